"""Starting, waiting for, and stopping emulators; the records that let another process find them.

`start_emulator` launches `emulator -avd NAME -no-window -no-audio -no-boot-anim -port P` headless (plus
`-read-only -no-snapshot-save` for parallel copies of one AVD) on a free console/adb port pair, its output in a
log file under the state directory, in its own session (it outlives the command that started it). A record
`<state dir>/emulators/<console port>.json` (name, serial, pid, log, ...) reserves the port pair across
processes and lets `droidharness emulator stop|snapshot|list` find it; it is dropped when the emulator stops or
its pid is gone. Records are judged stale, replaced and dropped under one lock (`emulators/.lock`), and a stopping
emulator's owner drops the record only while it still names that emulator's pid: another process may already have
claimed the port again. `wait_for_boot` polls `getprop sys.boot_completed`, then `pm path android`, then uiautomator2,
through the adb server; a timeout or an emulator that exits first raises with the reason and the log's tail.
`RunningEmulator.stop()` asks the console to `kill`, waits, then terminates the process by its pid.
"""

from __future__ import annotations

import fcntl
import json
import os
import signal
import socket
import subprocess
import tempfile
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Any

from ..virtual import ports as port_ranges
from ..virtual.ports import (  # noqa: F401 - DEFAULT_CONSOLE_PORTS re-exported
    CONSOLE_PORT_MAX,
    CONSOLE_PORT_MIN,
    DEFAULT_CONSOLE_PORTS,
    PORTS_ENV,
)
from ..virtual.statedir import pid_alive, state_dir, state_subdir
from .console import EmulatorConsoleClient
from .errors import AvdConfigError, AvdError, BootTimeoutError, ConsoleError, EmulatorExitedError, SdkToolError
from .manage import check_name
from .sdk import Sdk, tail


def console_ports() -> range:
    """The console ports tried, in order: 5554..5584 (found by every adb server), or the even ports of
    $DROIDHARNESS_EMULATOR_PORTS within 5554..5682 (`emulator.virtual.ports`). Emulators outside 5554..5585 are not
    probed by adb servers; they announce themselves to the one adb server they are started for, so other servers
    never list them (the test suite uses this to keep its emulators away from other tests' servers)."""
    try:
        return port_ranges.console_ports()
    except ValueError as e:
        raise AvdConfigError(str(e)) from None


def valid_console_port(port: int) -> bool:
    return port % 2 == 0 and CONSOLE_PORT_MIN <= port <= CONSOLE_PORT_MAX


LOG_TAIL_LINES = 20


def records_dir() -> Path:
    return state_subdir("emulators")


@contextmanager
def _records_locked() -> Iterator[None]:
    """Hold the records' lock: a record is judged stale and replaced, or dropped, by one process at a time (else a
    stopping emulator's owner could drop the record another process has just written for the same port)."""
    fd = os.open(records_dir() / ".lock", os.O_CREAT | os.O_RDWR, 0o600)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        os.close(fd)


def _drop_record(console_port: int, pid: int) -> None:
    """Remove the record of port `console_port` if it is still the one of process `pid` (0: this process's
    placeholder claim): another process may have claimed the port since that emulator stopped."""
    path = records_dir() / f"{console_port}.json"
    with _records_locked():
        try:
            rec = json.loads(path.read_text())
        except FileNotFoundError:
            return
        except (OSError, ValueError):
            rec = {}
        if not isinstance(rec, dict):
            rec = {}
        mine = rec.get("pid") == pid if pid else (rec.get("owner") == os.getpid() and not rec.get("pid"))
        if mine or not rec:
            path.unlink(missing_ok=True)


def _is_emulator_on(pid: int, console_port: int) -> bool:
    """Is `pid` still the emulator started on `console_port` (not a recycled pid)? Its command line names the
    port (`-port 5554` for the emulator, `--console-port 5554` for the virtual device standing in for it)."""
    if not pid_alive(pid):
        return False
    try:
        argv = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")
    except FileNotFoundError:
        return False
    except OSError:
        return True  # no /proc: trust the record
    if not any(argv):
        return True  # an empty command line: the process is between fork and exec (the emulator's own wrapper)
    return str(console_port).encode() in argv


@dataclass
class RunningEmulator:
    """An emulator this harness started: the AVD, its serial and ports, its process, its log."""

    name: str
    serial: str
    console_port: int
    pid: int
    log_path: str
    read_only: bool = False
    adb_server_port: int | None = None
    owner: int = 0
    started: float = 0.0
    _process: Any = field(default=None, compare=False, repr=False)  # the Popen when started by this process

    @property
    def adb_port(self) -> int:
        return self.console_port + 1

    @property
    def record_path(self) -> Path:
        return records_dir() / f"{self.console_port}.json"

    def to_json(self) -> dict[str, Any]:
        return {f.name: getattr(self, f.name) for f in fields(self) if not f.name.startswith("_")}

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> RunningEmulator:
        required = {k: data[k] for k in ("name", "serial", "console_port", "pid", "log_path") if k in data}
        if len(required) != 5:
            raise ValueError("emulator record lacks a field")
        return cls(
            **required,
            read_only=bool(data.get("read_only")),
            adb_server_port=data.get("adb_server_port"),
            owner=int(data.get("owner") or 0),
            started=float(data.get("started") or 0.0),
        )

    def alive(self) -> bool:
        if self._process is not None:
            return self._process.poll() is None
        return _is_emulator_on(self.pid, self.console_port)

    def log_tail(self, lines: int = LOG_TAIL_LINES) -> str:
        try:
            return tail(Path(self.log_path).read_text(errors="replace"), lines)
        except OSError:
            return ""

    def console(
        self, home: str | Path | None = None, token: str | None = None, timeout: float = 10.0
    ) -> EmulatorConsoleClient:
        """A connected console client (use it in a `with`)."""
        return EmulatorConsoleClient(self.console_port, token=token, home=home, timeout=timeout).connect()

    def stop(self, timeout: float = 20.0, home: str | Path | None = None, keep_log: bool = False) -> None:
        """Console `kill`, wait up to `timeout` for the process to exit, then SIGTERM and SIGKILL it by pid."""
        stop_emulator(self, timeout=timeout, home=home, keep_log=keep_log)


def _write_record(emu: RunningEmulator) -> None:
    tmp = emu.record_path.with_suffix(f".{os.getpid()}.tmp")
    tmp.write_text(json.dumps(emu.to_json()))
    os.replace(tmp, emu.record_path)


def _reserve(console_port: int) -> bool:
    """Claim a port pair across processes: create its record exclusively (a stale record is removed first)."""
    with _records_locked():
        return _reserve_locked(records_dir() / f"{console_port}.json", console_port)


def _reserve_locked(path: Path, console_port: int) -> bool:
    if path.exists():
        try:
            rec = RunningEmulator.from_json(json.loads(path.read_text()))
            stale = not rec.alive() and not (rec.pid == 0 and pid_alive(rec.owner))
        except (OSError, ValueError, TypeError):
            stale = time.time() - path.stat().st_mtime > 60 if path.exists() else True
        if not stale:
            return False
        path.unlink(missing_ok=True)
    try:
        fd = os.open(path, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o600)
    except FileExistsError:
        return False
    with os.fdopen(fd, "w") as f:  # a placeholder until the emulator's pid is known
        json.dump(
            {
                "name": "",
                "serial": f"emulator-{console_port}",
                "console_port": console_port,
                "pid": 0,
                "log_path": "",
                "owner": os.getpid(),
                "started": time.time(),
            },
            f,
        )
    return True


def _listening(port: int) -> bool:
    """Does something accept connections on 127.0.0.1:port? (A connect, not a bind: a bind probe would fail on
    the TIME_WAIT a stopped emulator leaves and, for an instant, take the port from whoever is binding it.)"""
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=1.0):
            return True
    except OSError:
        return False


def _release(console_port: int) -> None:
    """Drop this process's placeholder claim on a port pair (never a record with an emulator's pid)."""
    _drop_record(console_port, 0)


def claim_console_port(preferred: int | None = None) -> int:
    """A console port whose pair is free: claimed by an exclusive record first, then checked that nothing
    listens on either port (another program's emulator)."""
    if preferred is not None and not valid_console_port(preferred):
        raise AvdConfigError(f"console port {preferred}: must be even and in {CONSOLE_PORT_MIN}..{CONSOLE_PORT_MAX}")
    ports = console_ports()
    for port in [preferred] if preferred is not None else ports:
        if not _reserve(port):
            continue
        if _listening(port) or _listening(port + 1):
            _release(port)
            continue
        return port
    if preferred is not None:
        raise AvdConfigError(f"console port {preferred}: in use (or claimed by another emulator)")
    raise AvdError(f"no free emulator port pair in {ports.start}..{ports.stop} (set ${PORTS_ENV} for more)")


def running_emulators() -> list[RunningEmulator]:
    """The emulators whose records are live (stale records are removed)."""
    out: list[RunningEmulator] = []
    for path in sorted(records_dir().glob("*.json")):
        try:
            emu = RunningEmulator.from_json(json.loads(path.read_text()))
        except (OSError, ValueError, TypeError):
            continue
        if emu.pid and emu.alive():
            out.append(emu)
        elif emu.pid:
            _drop_record(emu.console_port, emu.pid)
        elif not pid_alive(emu.owner):
            _drop_stale_claim(path, emu.owner)
    return out


def _drop_stale_claim(path: Path, owner: int) -> None:
    """Remove a placeholder claim whose owner is gone, if it is still that claim."""
    with _records_locked():
        try:
            rec = json.loads(path.read_text())
        except (OSError, ValueError):
            return
        if isinstance(rec, dict) and not rec.get("pid") and rec.get("owner") == owner and not pid_alive(owner):
            path.unlink(missing_ok=True)


def find_running(which: str) -> RunningEmulator:
    """A running emulator by serial (`emulator-5554`), console port (`5554`) or AVD name (if unique)."""
    running = running_emulators()
    hits = [e for e in running if which in (e.serial, str(e.console_port))] or [e for e in running if e.name == which]
    if len(hits) == 1:
        return hits[0]
    have = ", ".join(f"{e.serial} ({e.name})" for e in running) or "none"
    if hits:
        raise AvdConfigError(f"{len(hits)} emulators run AVD {which!r}: name one by serial ({have})")
    raise AvdConfigError(f"no running emulator {which!r} started by droidharness (running: {have})")


def emulator_command(
    sdk: Sdk,
    name: str,
    console_port: int,
    read_only: bool = False,
    snapshot_save: bool | None = None,
    extra: Sequence[str] = (),
) -> list[str]:
    """The headless emulator command line. `snapshot_save` (default: not for read-only copies) keeps the
    quick-boot snapshot on exit."""
    cmd = [
        str(sdk.require("emulator")),
        "-avd",
        check_name(name),
        "-no-window",
        "-no-audio",
        "-no-boot-anim",
        "-port",
        str(console_port),
    ]
    if read_only:
        cmd.append("-read-only")
    if not (snapshot_save if snapshot_save is not None else not read_only):
        cmd.append("-no-snapshot-save")
    return cmd + list(extra)


def start_emulator(
    sdk: Sdk,
    name: str,
    console_port: int | None = None,
    read_only: bool = False,
    extra: Sequence[str] = (),
    adb_server_port: int | None = None,
    snapshot_save: bool | None = None,
    log_dir: str | Path | None = None,
    env: Mapping[str, str] | None = None,
) -> RunningEmulator:
    """Launch the AVD headless on a free (or the given) console port; returns at once (see `wait_for_boot`).
    `adb_server_port` is the adb server it announces itself to (`ANDROID_ADB_SERVER_PORT`)."""
    emulator_command(sdk, name, CONSOLE_PORT_MIN, read_only, snapshot_save, extra)  # validate before claiming
    port = claim_console_port(console_port)
    try:
        cmd = emulator_command(sdk, name, port, read_only, snapshot_save, extra)
        logs = Path(log_dir) if log_dir is not None else state_dir() / "emulator-logs"
        logs.mkdir(parents=True, exist_ok=True)
        fd, log_name = tempfile.mkstemp(prefix=f"{name}-{port}-", suffix=".log", dir=logs)  # never shared
        os.close(fd)
        log_path = Path(log_name)
        run_env = {**sdk.env, **(env or {})}
        if adb_server_port is not None:
            run_env["ANDROID_ADB_SERVER_PORT"] = str(adb_server_port)
        with open(log_path, "wb") as log:
            log.write(f"$ {' '.join(cmd)}\n".encode())
            log.flush()
            try:
                proc = subprocess.Popen(
                    cmd,
                    stdin=subprocess.DEVNULL,
                    stdout=log,
                    stderr=subprocess.STDOUT,
                    env=run_env,
                    start_new_session=True,
                )
            except OSError as e:
                raise SdkToolError(f"emulator ({cmd[0]}): cannot run: {e.strerror or e}") from None
    except BaseException:
        _release(port)
        raise
    emu = RunningEmulator(
        name=name,
        serial=f"emulator-{port}",
        console_port=port,
        pid=proc.pid,
        log_path=str(log_path),
        read_only=read_only,
        adb_server_port=adb_server_port,
        owner=os.getpid(),
        started=time.time(),
        _process=proc,
    )
    try:
        _write_record(emu)
    except BaseException:  # an emulator nobody can find again must not outlive this call
        proc.kill()
        proc.wait()
        _release(port)
        _drop_record(port, proc.pid)
        raise
    return emu


def _exited(emu: RunningEmulator) -> int | None:
    """The exit code if the emulator's process is gone (None: still running)."""
    if emu._process is not None:
        code: int | None = emu._process.poll()
        return code
    return None if emu.alive() else -1


def wait_for_boot(
    emu: RunningEmulator | str,
    client: Any,
    timeout: float = 300.0,
    poll: float = 0.5,
    check_u2: bool = True,
    log_path: str | Path | None = None,
) -> None:
    """Wait until the device is listed, `sys.boot_completed` is 1, `pm path android` answers and (unless
    `check_u2=False`) uiautomator2 answers. `client` is an `adbutils.AdbClient` of the adb server the emulator
    announced itself to. Raises `BootTimeoutError` / `EmulatorExitedError` with the reason and the log's tail."""
    serial = emu.serial if isinstance(emu, RunningEmulator) else emu
    running = emu if isinstance(emu, RunningEmulator) else None
    log = Path(log_path) if log_path is not None else Path(running.log_path) if running else None
    deadline = time.monotonic() + timeout
    stage = "the device to appear on the adb server"
    last = ""

    def shell(cmd: str) -> str:
        out: str = client.device(serial).shell(cmd, timeout=10)
        return out.strip()

    stages: list[tuple[str, Callable[[], bool]]] = [
        ("the device to appear on the adb server", lambda: any(d.serial == serial for d in client.device_list())),
        ("sys.boot_completed to be 1", lambda: shell("getprop sys.boot_completed") == "1"),
        ("the package manager to answer (pm path android)", lambda: shell("pm path android").startswith("package:")),
    ]
    if check_u2:
        stages.append(("uiautomator2 to answer", lambda: _u2_ready(client.device(serial))))
    for stage, ready in stages:
        while True:
            if running is not None:
                code = _exited(running)
                if code is not None:
                    running.record_path.unlink(missing_ok=True)
                    raise EmulatorExitedError(
                        _with_tail(
                            f"emulator {serial} (AVD {running.name}) exited (code {code}) while waiting for {stage}",
                            log,
                        )
                    )
            try:
                if ready():
                    break
                last = ""
            except Exception as e:  # noqa: BLE001 - adbutils / uiautomator2 raise many kinds while a device boots
                last = f"{type(e).__name__}: {e}".strip()
            if time.monotonic() >= deadline:
                why = f"{serial} did not boot in {timeout:g}s: still waiting for {stage}" + (
                    f" (last error: {last})" if last else ""
                )
                raise BootTimeoutError(_with_tail(why, log))
            time.sleep(poll)


def _u2_ready(adb_device: Any) -> bool:
    import uiautomator2 as u2

    d = u2.connect(adb_device)
    return bool(d.info)


def _with_tail(message: str, log: Path | None) -> str:
    if log is None:
        return message
    try:
        text = tail(log.read_text(errors="replace"), LOG_TAIL_LINES)
    except OSError:
        return f"{message}; no emulator log at {log}"
    return f"{message}; last lines of {log}:\n{text}" if text else f"{message}; {log} is empty"


def stop_emulator(
    emu: RunningEmulator, timeout: float = 20.0, home: str | Path | None = None, keep_log: bool = False
) -> None:
    """Console `kill`, wait for the process to exit, then SIGTERM / SIGKILL it (by its pid) if it did not.
    A console that refuses or rejects the token is skipped: the process is terminated anyway. Its record goes,
    and its log too unless `keep_log` (an emulator stopped because it failed keeps its log for the user)."""
    try:
        if emu.alive():
            with EmulatorConsoleClient(emu.console_port, home=home, timeout=min(timeout, 10.0)) as c:
                c.kill()
    except ConsoleError:
        pass
    deadline = time.monotonic() + timeout
    for sig in (None, signal.SIGTERM, signal.SIGKILL):
        if sig is not None and emu.alive():
            try:
                os.kill(emu.pid, sig)  # the emulator's own pid (its session may hold qemu children)
            except ProcessLookupError:
                pass
            deadline = time.monotonic() + 5.0
        while emu.alive() and time.monotonic() < deadline:
            time.sleep(0.1)
        if not emu.alive():
            break
    if emu._process is not None:
        try:
            emu._process.wait(timeout=5)
        except subprocess.TimeoutExpired:
            pass
    if not emu.alive():
        _drop_record(emu.console_port, emu.pid)
        if not keep_log and emu.log_path:
            Path(emu.log_path).unlink(missing_ok=True)
    else:
        raise AvdError(f"emulator {emu.serial} (pid {emu.pid}) did not exit after SIGKILL")


def free_tcp_port() -> int:
    """A TCP port nothing listens on at 127.0.0.1 now (the kernel's pick)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def start_avd_copies(
    sdk: Sdk,
    name: str,
    n: int,
    adb_server_port: int | None,
    client: Any = None,
    timeout: float = 300.0,
    extra: Sequence[str] = (),
    env: Mapping[str, str] | None = None,
    log_dir: str | Path | None = None,
    grpc: bool = False,
) -> list[RunningEmulator]:
    """Start `n` read-only copies of one AVD on free port pairs and (with `client`) wait for all to boot; if any
    fails, the others are stopped and the error is raised. `grpc`: each copy also serves the emulator's gRPC door
    (`-grpc PORT` on a free port; it names it in its discovery file, where a client finds it)."""
    if n < 1:
        raise AvdConfigError(f"number of emulator copies must be >= 1, got {n}")
    started: list[RunningEmulator] = []
    try:
        for _ in range(n):
            door = ["-grpc", str(free_tcp_port())] if grpc else []
            started.append(
                start_emulator(
                    sdk,
                    name,
                    read_only=True,
                    extra=[*extra, *door],
                    adb_server_port=adb_server_port,
                    env=env,
                    log_dir=log_dir,
                )
            )
        if client is not None:
            for emu in started:
                wait_for_boot(emu, client, timeout=timeout)
    except BaseException:
        for emu in started:
            try:
                emu.stop(timeout=5, keep_log=True)
            except AvdError:
                pass
        raise
    return started
