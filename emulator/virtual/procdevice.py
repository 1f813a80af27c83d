"""Embedded virtual devices in their own processes, as N emulators would be: the parent side (`DeviceProcess`,
`Spawner`, `reap_orphans`) and the child (`python -m emulator.virtual.procdevice`).

The child runs one `VirtualDevice` (a TCP serial: the parent `adb connect`s its address) and a control console,
the emulator console's protocol (`emulator.virtual.console`) on a free port, holding the device's boot state as
snapshots in both languages: `avd snapshot load droidharness-boot-en` (or `-zh`) is the reset between episodes
and the language switch, as loading a snapshot of an AVD is. The console asks for the token the parent wrote
into the child's private directory (`.emulator_console_auth_token`, mode 0600). The child writes one JSON line
`{"serial", "address", "port", "console_port", "pid"}` to its ready file (as `python -m emulator.virtual` does).

A pool of several devices forks them from a device zygote (`emulator.virtual.zygote`, `Spawner(zygote=True)`):
one interpreter that imported and warmed up the device once, so each device, the first ones included, boots in
tens of milliseconds of CPU instead of ~0.7 s and shares those pages; a command may start that zygote ahead of its
pool (`prestart_zygote`), which then forks even a single device from it. The child runs
`emulator.virtual.devicemain.serve` either way.

NO ORPHANS. Each child is recorded in the state directory (`<state>/devices/<pid>.json`: pid, owner pid, its
private directory) and the parent stops it by that pid (SIGTERM, then SIGKILL). If the parent dies without
stopping it (SIGKILL), the child dies too: it asks Linux for SIGKILL on its parent's death (prctl
PR_SET_PDEATHSIG; that "parent" is the thread that started it, so the `Spawner` starts every child from one
thread that lives as long as the pool) and exits at once if its parent is already gone. Where that is not
available, the next pool's `reap_orphans()` kills the recorded children of dead owners - by pid, and only a
process whose command line is this module with that very private directory.
"""

from __future__ import annotations

import atexit
import json
import logging
import os
import queue
import secrets
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from concurrent.futures import Future
from pathlib import Path
from typing import Any

from .devicemain import BOOT_SNAPSHOT, LANGS, boot_snapshot, parse_args, serve
from .statedir import orphaned_records, state_subdir
from .zygote import ZYGOTE_MODULE, ForkedProcess, Zygote, ZygoteError, log_tail, start_python

log = logging.getLogger(__name__)

CHILD_MODULE = "emulator.virtual.procdevice"
__all__ = [
    "BOOT_SNAPSHOT",
    "LANGS",
    "DeviceProcess",
    "DeviceProcessError",
    "Spawner",
    "boot_snapshot",
    "prestart_zygote",
    "prestarted_zygote",
    "reap_orphans",
    "stop_prestarted",
]


class DeviceProcessError(RuntimeError):
    """A device process could not be started, did not get ready, or its control console failed (names it)."""


def is_device_process(pid: int, home: str) -> bool:
    """Is `pid` a device process (or the device zygote) whose private directory is `home`? (Linux /proc: the
    command line names this module or the zygote's, and `home` is in it or is the working directory - a child
    the zygote forked carries the zygote's command line and runs in its own directory.)"""
    try:
        cmd = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")
    except OSError:
        return False
    if CHILD_MODULE.encode() not in cmd and ZYGOTE_MODULE.encode() not in cmd:
        return False
    if home.encode() in cmd:
        return True
    try:
        return os.readlink(f"/proc/{pid}/cwd") == home
    except OSError:
        return False


def reap_orphans() -> list[int]:
    """Kill the device processes whose owner died (by the recorded pid, after checking it is still that child)
    and remove their directories and records; returns the pids reaped. Live owners' children are never touched."""
    reaped: list[int] = []
    for rec_path, rec in orphaned_records("devices", ints=("pid",), strs=("home",)):
        pid, home = rec["pid"], rec["home"]
        if is_device_process(pid, home):
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
            reaped.append(pid)
        if Path(home).name.startswith("droidharness-device-"):
            shutil.rmtree(home, ignore_errors=True)
        rec_path.unlink(missing_ok=True)
    return reaped


class Prestarted:
    """A device zygote started before the pool that will fork from it (`prestart_zygote`), with its record."""

    def __init__(self, zygote: Zygote, record: Path) -> None:
        self.zygote, self.record = zygote, record

    def stop(self) -> None:
        self.zygote.close()
        shutil.rmtree(self.zygote.home, ignore_errors=True)
        self.record.unlink(missing_ok=True)


_prestarted: Prestarted | None = None
_prestart_lock = threading.Lock()


def prestart_zygote(profile: str, langs: tuple[str, ...]) -> bool:
    """Start a device zygote now, for the next pool of device processes of `profile` in this process: it imports
    and warms up (the home screen in `langs`; the first screens of the apps the pool names, once it does) while the
    caller does the rest of its start - a command's imports, loading its tasks - so that the pool's first devices
    are forked warm soon after it asks. Call it from the main thread (the zygote dies with the thread that started
    it: PR_SET_PDEATHSIG). One at a time; a zygote no pool takes is stopped when the process exits. False where
    no zygote can be started (it is logged; the pool then starts its devices itself)."""
    global _prestarted
    with _prestart_lock:
        if _prestarted is not None and _prestarted.zygote.alive():
            return True
        home = _device_dir()
        zygote = Zygote(home, profile=profile, langs=langs, apps_later=True)
        try:
            zygote.launch()
        except OSError as e:
            log.warning("device zygote not started ahead of its pool: %s", e)
            shutil.rmtree(home, ignore_errors=True)
            return False
        _prestarted = Prestarted(zygote, _record_child(zygote.pid, home, "zygote"))
    return True


def prestart_warm(langs: tuple[str, ...], packages: tuple[str, ...]) -> None:
    """Tell the zygote started ahead (`prestart_zygote`), if there is one, the apps its pool will name: it draws
    their first screens in `langs` as soon as it has imported, while the caller is still starting, instead of once
    the pool asks (the pool's own request then finds them warm). Nothing when `packages` is empty or no zygote was
    started ahead."""
    with _prestart_lock:
        z = _prestarted.zygote if _prestarted is not None else None
    if z is None or not packages or not z.alive():
        return
    try:
        z.warm(langs, packages)
    except (ZygoteError, OSError) as e:  # the pool finds it gone and starts its devices itself
        log.info("device zygote started ahead not told the run's apps: %s", e)


def prestarted_zygote(profile: str | None = None) -> bool:
    """Is a zygote started ahead of its pool (`prestart_zygote`) waiting for one (of `profile`)?"""
    with _prestart_lock:
        z = _prestarted.zygote if _prestarted is not None else None
        return z is not None and z.alive() and profile in (None, z.profile)


def _take_prestarted(profile: str) -> Prestarted | None:
    """The zygote started ahead of the pool, if it warms `profile` (else it is stopped); None if there is none."""
    global _prestarted
    with _prestart_lock:
        taken, _prestarted = _prestarted, None
    if taken is not None and (taken.zygote.profile != profile or not taken.zygote.alive()):
        log.info("device zygote started ahead for profile %s not used (the pool's: %s)", taken.zygote.profile, profile)
        taken.stop()
        return None
    return taken


@atexit.register
def stop_prestarted() -> None:
    """Stop the zygote started ahead that no pool took (`prestart_zygote`), if any: the command that started it
    ends, or failed before its pool."""
    global _prestarted
    with _prestart_lock:
        taken, _prestarted = _prestarted, None
    if taken is not None:
        taken.stop()


class Spawner:
    """Starts child processes from one long-lived thread, so that each child's PR_SET_PDEATHSIG (which fires when
    the thread that forked it ends) fires only when the process dies or the spawner is closed.

    With `zygote`, devices are forked by a device zygote (`emulator.virtual.zygote`) instead of each starting an
    interpreter: the one started ahead for this profile (`prestart_zygote`) if there is one, else one started on
    this thread as the spawner starts; either way it is told what to warm up (the first screens of the apps in
    `packages`, the run's - empty: every app's - in `langs`) and, by default (`warm_after` 0), forks every device
    once it has: a device then boots in a few tens of ms of CPU and shares the warmed pages. With `warm_after` K the
    zygote forks the first K devices before it warms up; None: it never warms up. If the zygote cannot be started
    or dies, devices are started as their own interpreters again (logged)."""

    def __init__(
        self,
        zygote: bool = False,
        profile: str = "medium_phone",
        langs: tuple[str, ...] = ("en", "zh"),
        warm_after: int | None = 0,
        packages: tuple[str, ...] = (),
    ) -> None:
        self._jobs: queue.Queue[tuple[Callable[[], Any], Future[Any]] | None] = queue.Queue()
        self._use_zygote = zygote
        self._profile = profile
        self._langs = langs
        self._warm_after = warm_after
        self._packages = packages
        self._zygote: Zygote | None = None
        self._zygote_record: Path | None = None
        self._thread = threading.Thread(target=self._loop, name="device-spawner", daemon=True)
        self._thread.start()
        if zygote:  # at once, on the spawner's thread: it warms up while the pool starts its adb server
            self._jobs.put((self._get_zygote, Future()))

    def _get_zygote(self) -> Zygote | None:
        """The running zygote (started now if needed, on the spawner's thread); None: spawn directly."""
        if not self._use_zygote:
            return None
        if self._zygote is not None and self._zygote.alive():
            return self._zygote
        self._stop_zygote()
        ahead = _take_prestarted(self._profile) if self._warm_after == 0 else None
        if ahead is not None:
            zygote, home = ahead.zygote, ahead.zygote.home
            self._zygote_record = ahead.record
        else:
            home = _device_dir()
            zygote = Zygote(
                home, profile=self._profile, langs=self._langs, warm_after=self._warm_after, packages=self._packages
            )
        try:
            if ahead is None:
                zygote.launch()
            if self._warm_after is not None:
                zygote.warm(self._langs, self._packages)  # what this pool's devices need (a prestarted one: narrowed)
            zygote.wait_ready()
        except (ZygoteError, OSError) as e:
            log.warning("device zygote unavailable, starting device processes one interpreter each: %s", e)
            zygote.close()
            shutil.rmtree(home, ignore_errors=True)
            if self._zygote_record is not None:
                self._zygote_record.unlink(missing_ok=True)
                self._zygote_record = None
            self._use_zygote = False
            return None
        self._zygote = zygote
        if self._zygote_record is None:
            self._zygote_record = _record_child(zygote.pid, home, "zygote")
        return zygote

    def _stop_zygote(self) -> None:
        if self._zygote is not None:
            self._zygote.close()
            shutil.rmtree(self._zygote.home, ignore_errors=True)
            self._zygote = None
        if self._zygote_record is not None:
            self._zygote_record.unlink(missing_ok=True)
            self._zygote_record = None

    def _loop(self) -> None:
        while True:
            job = self._jobs.get()
            if job is None:
                return
            fn, fut = job
            try:
                fut.set_result(fn())
            except BaseException as e:  # noqa: BLE001 - handed to the caller
                fut.set_exception(e)

    def launch(self, proc: DeviceProcess) -> None:
        """Start `proc`'s child on the spawner thread (returns once it is started, not yet ready)."""
        fut: Future[Any] = Future()
        self._jobs.put((lambda: self._spawn(proc), fut))
        fut.result(timeout=90)

    def _spawn(self, proc: DeviceProcess) -> DeviceProcess:
        zygote = self._get_zygote()
        if zygote is not None:
            try:
                return proc.spawn(zygote)
            except ZygoteError as e:
                log.warning("device zygote failed, starting %s as its own interpreter: %s", proc.serial, e)
                self._stop_zygote()
        return proc.spawn()

    def close(self) -> None:
        """Stop the zygote and the thread (children still running get SIGKILL from their PDEATHSIG: stop them
        first)."""
        fut: Future[Any] = Future()
        self._jobs.put((self._stop_zygote, fut))
        self._jobs.put(None)
        self._thread.join(10)


class DeviceProcess:
    """One embedded virtual device in a child process (see the module docstring)."""

    def __init__(
        self,
        serial: str,
        profile: str,
        locale: str = "en",
        latency: str = "instant",
        ready_timeout: float = 60.0,
        cpus: frozenset[int] | None = None,
        grpc_port: int | None = None,
        clock: str = "real",
        image: str = "phone",
        grpc_discovery: bool = True,
    ) -> None:
        if locale not in LANGS:
            raise DeviceProcessError(f"device {serial}: unknown locale {locale!r}; choose en or zh")
        self.serial = serial
        self.profile, self.locale, self.latency = profile, locale, latency
        self.clock = clock  # the device's clock: real or virtual (emulator.virtual.clock)
        self.image = image  # the system image: phone (a user build) or emulator (userdebug: `adb root` works)
        self.ready_timeout = ready_timeout
        self.cpus = cpus  # the cores the child is to run on (`--cpus`); None: wherever the scheduler puts it
        self.grpc_port = grpc_port  # the emulator's gRPC door in the child (0: any free port; None: none)
        self.grpc_discovery = grpc_discovery  # an emulator discovery file names the door (False: the ready file only)
        self.home = _device_dir()
        self.ready_file = Path(self.home) / "ready.json"
        self.log_file = Path(self.home) / "device.log"
        self.proc: subprocess.Popen[bytes] | ForkedProcess | None = None
        self.info: dict[str, Any] = {}
        self._record: Path | None = None
        self._console: Any = None
        self._console_lock = threading.Lock()
        self._token = secrets.token_urlsafe(16)

    # --- lifecycle ---------------------------------------------------------------------------------------------
    @property
    def pid(self) -> int | None:
        return self.proc.pid if self.proc is not None else None

    def command(self) -> list[str]:
        return [sys.executable, "-m", CHILD_MODULE, *self.child_args(os.getpid())]

    def child_args(self, parent: int) -> list[str]:
        """The device's arguments (`devicemain.parse_args`), `parent` the pid it dies with."""
        pin = ["--cpus", ",".join(str(c) for c in sorted(self.cpus))] if self.cpus else []
        if self.grpc_port is not None:
            pin += ["--grpc-port", str(self.grpc_port)]
            if not self.grpc_discovery:
                pin.append("--no-grpc-discovery")
        return [
            "--serial",
            self.serial,
            "--profile",
            self.profile,
            "--locale",
            self.locale,
            "--latency",
            self.latency,
            "--clock",
            self.clock,
            "--image",
            self.image,
            "--home",
            self.home,
            "--ready-file",
            str(self.ready_file),
            "--parent",
            str(parent),
            *pin,
        ]

    def spawn(self, zygote: Zygote | None = None) -> DeviceProcess:
        """Start the child - forked by `zygote`, else as its own interpreter - (call it on the `Spawner`'s
        thread) and record it."""
        token_file = Path(self.home) / ".emulator_console_auth_token"
        token_file.write_text(self._token)
        token_file.chmod(0o600)
        if zygote is not None:
            self.proc = zygote.fork(self.child_args(zygote.pid), self.home, str(self.log_file))
        else:
            self.proc = start_python(self.command(), self.home, self.log_file)
        self._record = _record_child(self.proc.pid, self.home, self.serial)
        return self

    def wait_ready(self) -> dict[str, Any]:
        """Wait for the child's ready line; a child that exits or stays silent is a `DeviceProcessError` with the
        tail of its log."""
        deadline = time.monotonic() + self.ready_timeout
        pause = 0.002  # a device forked warm is ready in ~20 ms: looked for often at first, then every 20 ms
        while time.monotonic() < deadline:
            if self.ready_file.exists():
                try:
                    self.info = json.loads(self.ready_file.read_text())
                    return self.info
                except ValueError:
                    pass  # replaced atomically: cannot be partial, but be safe
            if self.proc is None or self.proc.poll() is not None:
                raise DeviceProcessError(
                    f"device process {self.serial} exited before it was ready ({self.exit_description()}): "
                    f"{self.log_tail()}"
                )
            time.sleep(pause)
            pause = min(0.02, pause * 1.5)
        self.stop()
        raise DeviceProcessError(
            f"device process {self.serial} (pid {self.pid}) not ready within {self.ready_timeout:g} s: "
            f"{self.log_tail()}"
        )

    @property
    def address(self) -> str:
        return str(self.info["address"])

    @property
    def console_port(self) -> int:
        return int(self.info["console_port"])

    def alive(self) -> bool:
        return self.proc is not None and self.proc.poll() is None

    def exit_description(self) -> str:
        code = self.proc.poll() if self.proc is not None else None
        if code is None:
            return "running" if self.proc is not None else "not started"
        if code < 0:
            try:
                return f"killed by {signal.Signals(-code).name}"
            except ValueError:
                return f"killed by signal {-code}"
        return f"exit code {code}"

    def log_tail(self, lines: int = 5) -> str:
        return log_tail(self.log_file, lines)

    def request_stop(self) -> None:
        """Ask the child to exit (SIGTERM by its pid) without waiting: `stop()` then waits (a pool stops all its
        children at once)."""
        self._close_console()
        if self.proc is not None and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)

    def stop(self) -> None:
        """Stop the child by its pid (SIGTERM, then SIGKILL), remove its directory and record."""
        self._close_console()
        p = self.proc
        if p is not None and p.poll() is None:
            p.send_signal(signal.SIGTERM)
            try:
                p.wait(5)
            except subprocess.TimeoutExpired:
                p.kill()
                p.wait(5)
        shutil.rmtree(self.home, ignore_errors=True)
        if self._record is not None:
            self._record.unlink(missing_ok=True)

    # --- the control console -----------------------------------------------------------------------------------
    def _close_console(self) -> None:
        with self._console_lock:
            if self._console is not None:
                self._console.close()
                self._console = None

    def console(self, line: str) -> list[str]:
        """One control-console command (reconnecting once if the connection broke); its reply lines."""
        from emulator.avd.console import EmulatorConsoleClient
        from emulator.avd.errors import AvdError

        with self._console_lock:
            for attempt in (1, 2):
                try:
                    if self._console is None:
                        self._console = EmulatorConsoleClient(
                            self.console_port, token=self._token, timeout=30.0
                        ).connect()
                    return list(self._console.command(line))
                except AvdError as e:
                    if self._console is not None:
                        self._console.close()
                        self._console = None
                    if attempt == 2 or not self.alive():
                        raise DeviceProcessError(
                            f"device process {self.serial} (pid {self.pid}): control console {line!r}: {e}"
                        ) from None
        raise AssertionError("unreachable")

    def snapshot_load(self, name: str) -> None:
        self.console(f"avd snapshot load {name}")

    def snapshot_save(self, name: str) -> None:
        self.console(f"avd snapshot save {name}")

    def __repr__(self) -> str:
        return f"DeviceProcess({self.serial}, pid {self.pid})"


def _record_child(pid: int, home: str, serial: str) -> Path:
    """Record a child we started (`<state>/devices/<pid>.json`) for the reaper of a later pool."""
    record = state_subdir("devices") / f"{pid}.json"
    tmp = record.with_suffix(".tmp")
    tmp.write_text(
        json.dumps(
            {
                "pid": pid,
                "owner": os.getpid(),
                "home": home,
                "serial": serial,
                "started": time.time(),
                "by": " ".join(sys.argv[:3]),
                "test": os.environ.get("PYTEST_CURRENT_TEST"),
            }
        )
    )
    os.replace(tmp, record)
    return record


def _device_dir() -> str:
    """A private directory for one child (ready file, console token, log) in the state directory."""
    return tempfile.mkdtemp(prefix="droidharness-device-", dir=state_subdir("devices"))


if __name__ == "__main__":
    sys.exit(serve(parse_args(None, f"python -m {CHILD_MODULE}")))
