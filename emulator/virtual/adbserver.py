"""A private adb server (the real binary shipped in the adbutils wheel) on a free port.

Used by the harness, the tests and the benchmarks so that nothing touches a user's adb server on 5037:
`ANDROID_ADB_SERVER_PORT=<free port>`, `ADB_LIBUSB=0` (adb 36 takes 3 s to start without it), a private HOME
(for `~/.android/adbkey`), and the server is killed on exit (it outlives the Python process otherwise).

NO ORPHANS. An adb server daemonizes, so a SIGKILLed owner leaves it running, with its private HOME. Every
private server is therefore recorded in the state directory (`$DROIDHARNESS_STATE_DIR`, default
`<tmp>/droidharness-<uid>`): `adb-servers/<port>.json` = {pid, port, home, owner pid}, written before the server
starts and updated with its pid. Starting a private server first reaps what dead owners left: for each record
whose owner is gone, the recorded pid is killed (SIGKILL) only if it is still an adb server on that very port
(its command line says `fork-server` and `tcp:<port>`), then its HOME and the record are removed. Nothing is
ever killed by name or by port alone, and no process of a live owner is touched.
"""

from __future__ import annotations

import atexit
import json
import logging
import os
import random
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

import adbutils
from adbutils._adb import AdbConnection
from adbutils.errors import AdbError, AdbTimeout

from .statedir import orphaned_records, state_dir, state_subdir

log = logging.getLogger(__name__)
PORT_ATTEMPTS = 5  # ports tried when the one chosen is taken before the server binds it
CLOSE_WAIT = 0.01  # seconds a closing client connection waits for the server's end (adbutils sleeps that long)


class _ConnectionWithoutAutostart(AdbConnection):
    """adbutils answers "connection refused" by running `adb start-server` with no port, which starts a server on
    the user's 5037. A private server that died must stay dead until its owner restarts it on its own port.

    Closing: adbutils shuts its side down and then sleeps 10 ms, so that the server has read the last request before
    the socket goes - 10 ms on every request (`devices`, `connect`, a device's state...). The server's own end of the
    connection says the same at once: it closes a host request's connection once it has answered. So the socket is
    read to its end, 10 ms at most (a stream the server keeps open waits no longer than adbutils would), then
    closed."""

    def _safe_connect(self) -> Any:
        self._sock: socket.socket | None = self._create_socket()
        return self._sock

    @property
    def conn(self) -> socket.socket:
        if self._sock is None:
            raise AdbError("Connection is closed")
        return self._sock

    @property
    def closed(self) -> bool:
        return self._sock is None

    def close(self) -> None:
        sock, self._sock = self._sock, None
        if sock is None:
            return
        try:
            sock.shutdown(socket.SHUT_WR)
            sock.settimeout(CLOSE_WAIT)
            while sock.recv(65536):
                pass
        except OSError:  # reset, or nothing came within CLOSE_WAIT: closed all the same
            pass
        sock.close()


class PrivateAdbClient(adbutils.AdbClient):
    """An `adbutils.AdbClient` that never starts an adb server (see `_ConnectionWithoutAutostart`)."""

    def __init__(self, host: str, port: int, socket_timeout: float | None = None) -> None:
        super().__init__(host=host, port=port, socket_timeout=socket_timeout)
        self._timeout = socket_timeout

    def make_connection(self, timeout: float | None = None) -> AdbConnection:
        t = timeout or self._timeout
        try:
            conn = _ConnectionWithoutAutostart(self.host, self.port)
        except TimeoutError:
            raise AdbTimeout("connect to adb server timeout") from None
        if t:
            conn.conn.settimeout(t)
        return conn


class AdbServerError(RuntimeError):
    """The private adb server could not be started or did not answer."""


def adb_binary() -> str:
    """Path of the adb binary inside the adbutils wheel (falls back to adb on PATH)."""
    wheel = Path(adbutils.__file__).parent / "binaries" / "adb"
    if wheel.exists():
        if not os.access(wheel, os.X_OK):
            wheel.chmod(0o755)
        return str(wheel)
    found = shutil.which("adb")
    if found:
        return found
    raise AdbServerError("no adb binary: expected one in the adbutils wheel or on PATH")


def free_port(avoid_emulator_range: bool = True, listen_later: bool = False) -> int:
    """A free TCP port on 127.0.0.1, outside 5554..5585 (which the adb server scans for emulators).

    With `listen_later` (a port another program will listen on once it starts, like an adb server's): outside
    the kernel's ephemeral range too, so no socket bound to port 0 in the meantime - a device process booting
    beside it - can be given the same port."""
    if listen_later:
        lo, _ = ephemeral_range()
        candidates = [p for p in range(20000, min(lo, 32768)) if not 5554 <= p <= 5585]
        for port in random.sample(candidates, min(len(candidates), 200)):
            with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
                try:
                    s.bind(("127.0.0.1", port))
                except OSError:
                    continue
            return port
    while True:
        with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
            s.bind(("127.0.0.1", 0))
            port = s.getsockname()[1]
        if not (avoid_emulator_range and 5554 <= port <= 5585):
            return port


def ephemeral_range() -> tuple[int, int]:
    """The ports the kernel hands to sockets bound to port 0 (Linux; the IANA range elsewhere)."""
    try:
        lo, hi = Path("/proc/sys/net/ipv4/ip_local_port_range").read_text().split()
        return int(lo), int(hi)
    except (OSError, ValueError):
        return 49152, 65535


def _adb_server_pid(port: int) -> int | None:
    """The pid of the adb server process serving `port` (Linux /proc; None elsewhere or if none)."""
    proc = Path("/proc")
    if not proc.is_dir():
        return None
    want = f"tcp:{port}".encode()
    for d in proc.iterdir():
        if not d.name.isdigit():
            continue
        try:
            cmd = (d / "cmdline").read_bytes().split(b"\0")
        except OSError:
            continue
        if (
            b"fork-server" in cmd
            and want in cmd
            and any(Path(c.decode(errors="replace")).name == "adb" or c.endswith(b"/adb") for c in cmd[:1])
        ):
            return int(d.name)
    return None


def _is_adb_server_on(pid: int, port: int) -> bool:
    try:
        cmd = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")
    except OSError:
        return False
    return b"fork-server" in cmd and f"tcp:{port}".encode() in cmd


def reap_orphans() -> list[int]:
    """Kill the private adb servers (and delete the HOMEs) that runs whose owner died left behind; returns the
    ports reaped. Safe to call any time: live owners' servers are never touched."""
    reaped: list[int] = []
    for rec_path, rec in orphaned_records("adb-servers", ints=("port",)):
        port = rec["port"]
        pid = rec.get("pid")
        if isinstance(pid, int) and _is_adb_server_on(pid, port):
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        home = rec.get("home")
        if isinstance(home, str) and Path(home).name.startswith("droidharness-adb-home-"):
            shutil.rmtree(home, ignore_errors=True)
        rec_path.unlink(missing_ok=True)
        reaped.append(port)
    return reaped


class PrivateAdbServer:
    """`with PrivateAdbServer() as srv: srv.connect("127.0.0.1:6520"); srv.client.device(...)`."""

    def __init__(self, port: int | None = None, home: str | None = None) -> None:
        self._own_port = port is None  # a port of our choosing: another may be chosen if it is taken meanwhile
        self._own_home = home is None
        self.home = home or tempfile.mkdtemp(prefix="droidharness-adb-home-", dir=state_dir())
        self.adb = adb_binary()
        self.pid: int | None = None
        self._use_port(port or free_port(listen_later=True))

    def _use_port(self, port: int) -> None:
        self.port = port
        self.client = PrivateAdbClient(host="127.0.0.1", port=port, socket_timeout=30)
        self._record = state_subdir("adb-servers") / f"{port}.json"

    @property
    def env(self) -> dict[str, str]:
        env = dict(os.environ)
        env.update(
            {
                "ANDROID_ADB_SERVER_PORT": str(self.port),
                "ADB_LIBUSB": "0",
                "HOME": self.home,
                "ADB_MDNS": "0",
                "ADB_MDNS_AUTO_CONNECT": "0",
            }
        )
        return env

    def run(self, *args: str, timeout: float = 60, input: bytes | None = None) -> subprocess.CompletedProcess:
        """Run the adb CLI against this server; returns the completed process (bytes output)."""
        return subprocess.run(
            [self.adb, "-P", str(self.port), *args], env=self.env, capture_output=True, timeout=timeout, input=input
        )

    def _write_record(self) -> None:
        tmp = self._record.with_suffix(".tmp")
        tmp.write_text(
            json.dumps(
                {
                    "pid": self.pid,
                    "port": self.port,
                    "home": self.home if self._own_home else None,
                    "owner": os.getpid(),
                    "started": time.time(),
                    "by": " ".join(sys.argv[:3]),
                    "test": os.environ.get("PYTEST_CURRENT_TEST"),
                }
            )
        )
        os.replace(tmp, self._record)

    def start(self) -> PrivateAdbServer:
        reap_orphans()
        try:
            return self._start()
        except BaseException:  # a server that failed to answer, or a stop mid-start: none is left running
            self._abandon()
            raise

    def _abandon(self) -> None:
        """A start that did not finish: kill the server it may have started - the adb server on its port whose
        HOME is this server's, so never another's on that port - and drop its record and HOME (a later start
        makes the HOME again)."""
        pid = self.pid or _adb_server_pid(self.port)
        if pid is not None and _is_adb_server_on(pid, self.port) and self._runs_in_home(pid):
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        self.pid = None
        if self._own_home:
            shutil.rmtree(self.home, ignore_errors=True)
        self._record.unlink(missing_ok=True)

    def _runs_in_home(self, pid: int) -> bool:
        try:
            environ = Path(f"/proc/{pid}/environ").read_bytes().split(b"\0")
        except OSError:
            return False
        return f"HOME={self.home}".encode() in environ

    def _start(self) -> PrivateAdbServer:
        Path(self.home).mkdir(parents=True, exist_ok=True)  # (an abandoned start removed its own)
        for attempt in range(PORT_ATTEMPTS):
            self._write_record()  # before the server exists: a kill right after start still leaves a record
            proc = self.run("start-server", timeout=60)
            if proc.returncode == 0:
                break
            why = proc.stderr.decode(errors="replace").strip()
            taken = "Address already in use" in why
            if not (taken and self._own_port and attempt + 1 < PORT_ATTEMPTS):
                raise AdbServerError(f"adb start-server on port {self.port} failed: {why}")
            # the free port we chose was taken before the server bound it (another harness starting its own)
            log.info("adb server port %d was taken before the server bound it; trying another", self.port)
            self._record.unlink(missing_ok=True)
            self._use_port(free_port(listen_later=True))
        deadline = time.time() + 20
        while time.time() < deadline:
            if self.alive():
                self.pid = _adb_server_pid(self.port)
                self._write_record()
                return self
            time.sleep(0.05)
        raise AdbServerError(f"adb server on port {self.port} did not answer within 20 s")

    def alive(self) -> bool:
        """Does the server answer on its port?"""
        try:
            self.client.server_version()
            return True
        except Exception:  # noqa: BLE001 - refused, reset, timed out: not alive
            return False

    def restart(self) -> PrivateAdbServer:
        """Start the server again on the same port (after it died); devices must be `connect`ed again."""
        if self.pid is not None and _is_adb_server_on(self.pid, self.port):
            os.kill(self.pid, signal.SIGKILL)
        self.pid = None
        return self.start()

    def connect(self, address: str, timeout: float = 20) -> adbutils.AdbDevice:
        """`adb connect` and wait until the device is online (adbutils returns a string instead of raising)."""
        deadline = time.time() + timeout
        last = ""
        while time.time() < deadline:
            last = self.client.connect(address, timeout=5)
            if "connected" in last and "failed" not in last and "unable" not in last:
                state = self.state(address)
                if state == "device":
                    return self.client.device(address)
                if state == "offline":
                    self.client.disconnect(address)
            time.sleep(0.05)
        raise AdbServerError(
            f"could not connect {address} through the adb server on port {self.port}: "
            f"{last or 'no answer'} (state {self.state(address)})"
        )

    def state(self, serial: str) -> str | None:
        for info in self.client.list():
            if info.serial == serial:
                return info.state
        return None

    def disconnect(self, address: str) -> None:
        try:
            self.client.disconnect(address)
        except Exception:  # noqa: BLE001 - already gone is fine
            pass

    def stop(self) -> None:
        try:
            self.run("kill-server", timeout=15)
        except subprocess.TimeoutExpired:
            pass
        if self.pid is not None:  # kill-server asks; make sure, by the pid we recorded, that it is gone
            deadline = time.time() + 5
            while _is_adb_server_on(self.pid, self.port) and time.time() < deadline:
                time.sleep(0.02)
            if _is_adb_server_on(self.pid, self.port):
                os.kill(self.pid, signal.SIGKILL)
        if self._own_home:
            shutil.rmtree(self.home, ignore_errors=True)
        self._record.unlink(missing_ok=True)

    def __enter__(self) -> PrivateAdbServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()


class _Ahead:
    """A private adb server starting in the background (`prestart_server`), until a pool takes it."""

    def __init__(self) -> None:
        self.server: PrivateAdbServer | None = None
        self.error: BaseException | None = None
        self.thread = threading.Thread(target=self._start, name="adb-server-ahead", daemon=True)

    def _start(self) -> None:
        try:
            self.server = PrivateAdbServer().start()
        except BaseException as e:  # noqa: BLE001 - said by whoever takes it (the pool then starts its own)
            self.error = e


_ahead_lock = threading.Lock()
_ahead: _Ahead | None = None


def prestart_server() -> None:
    """Start a private adb server now, in the background, for the next pool of embedded devices in this process
    (`take_prestarted_server`): `adb start-server` (~0.1 s) then runs while the caller does the rest of its start
    instead of after its devices are up. One at a time; one no pool takes is stopped when the process exits."""
    global _ahead
    with _ahead_lock:
        if _ahead is not None:
            return
        _ahead = _Ahead()
        _ahead.thread.start()


def take_prestarted_server() -> PrivateAdbServer | None:
    """The server `prestart_server` started, once its start is done (it is the caller's to stop); None when none
    was started ahead, or its start failed (logged: the caller starts its own)."""
    global _ahead
    with _ahead_lock:
        taken, _ahead = _ahead, None
    if taken is None:
        return None
    taken.thread.join()
    if taken.error is not None:
        log.info("the adb server started ahead is not used: %s", taken.error)
    return taken.server


@atexit.register
def stop_prestarted_server() -> None:
    """Stop the server started ahead that no pool took, if any (the command that started it ends, or failed before
    its pool)."""
    server = take_prestarted_server()
    if server is not None:
        server.stop()
