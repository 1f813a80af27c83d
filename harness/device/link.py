"""`Link`: one live connection to one device (adb transport + the uiautomator2 server), with THE reconnect-on-error
wrapper (`Link.guard`). Every device call in the harness goes through `guard`:

- it runs the call in the caller's thread under a deadline that every socket operation of the call honours (the
  `harness.device.fastadb` primitives re-arm their socket's timeout with the time left before each send and
  receive): a device call never hangs the harness, and one that times out leaves no thread behind (a call handed to
  a worker thread costs two thread wake-ups, and one that hangs keeps its worker);
- on a transport-level failure (adb error, socket error, EOF, timeout, uiautomator2 unreachable) it recovers
  once: if the adb transport is not `device` any more, `adb disconnect` + `adb connect` for TCP serials (or wait
  for a USB device to come back); if uiautomator2 does not answer its ping, relaunch it (uiautomator2's own
  launcher, through `FastAdbDevice`); then it retries the call once;
- if that fails too, it raises `DeviceError` naming the serial, the operation and both failures. If the device
  cannot be reached again it raises `DeviceLostError` at once for every waiting call.

Capabilities are declared once at connect (`Link.capabilities`): "u2" (uiautomator2 RPC), "kept_shell", "screencap_raw",
"screencap_png", "uiautomator_dump", "shell_v2"; "grpc" ("grpc_shm": and its screenshots through shared memory
work) while the link holds a usable client of an emulator's
gRPC door (`Link.grpc`, harness.device.grpc_link; attached by `harness.device.provision`). "u2" is withdrawn when
its server cannot be relaunched, "grpc" when its calls keep failing. With `LinkConfig.open_in_background` (a device
pool's links) the sessions a link keeps (the kept shell, the uiautomator2 server) open in the background of `start`:
the device's first shell calls (its info, its preparation) go on meanwhile, and whatever asks for a capability waits
until they are open (or found unusable).
"""

from __future__ import annotations

import itertools
import logging
import re
import threading
import time
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol, TypeVar, runtime_checkable

import adbutils
from adbutils.errors import AdbError

from harness.device.fastadb import (
    Clock,
    FastAdbDevice,
    ShellResult,
    ShellSession,
    U2Rpc,
    U2RpcError,
    U2Unreachable,
    exec_out,
    shell_v1,
    shell_v2,
)
from harness.errors import DeviceError

if TYPE_CHECKING:
    from harness.device.grpc_link import EmulatorGrpc

log = logging.getLogger(__name__)
T = TypeVar("T")
_TCP_SERIAL = re.compile(r"^[\w.\-\[\]:]+:\d+$")
RECOVERABLE: tuple[type[BaseException], ...] = (AdbError, OSError, EOFError, TimeoutError, U2Unreachable)


class DeviceLostError(DeviceError):
    """The device could not be reached again after a failure (offline, unplugged, unauthorized)."""


class CapabilityError(DeviceError):
    """The operation needs a capability this device does not have (e.g. uiautomator2 is unavailable)."""


@dataclass(frozen=True)
class LinkConfig:
    use_u2: bool = True  # False: never start uiautomator2 (shell paths only)
    u2_port: int = 9008
    call_timeout: float = 20.0  # deadline of one device call (a shell command, an RPC)
    reconnect_timeout: float = 10.0  # how long recovery may wait for the transport to come back
    clock: Clock = time.monotonic  # what every deadline above is measured on (a test gives one it drives)
    open_in_background: bool = False  # `start` returns before the kept shell and u2 are open (capabilities wait)


@runtime_checkable
class DeviceLink(Protocol):
    """The seam below the device controller: what capture, actuation and settling use of a connection.
    `Link` implements it over adb + uiautomator2; `harness.device.inprocess.InProcessLink` directly on the embedded
    virtual device's model (no adb server, no sockets), for fast tests of everything above the device."""

    serial: str
    grpc: EmulatorGrpc | None  # an emulator's gRPC door, when it has one the harness uses

    @property
    def capabilities(self) -> frozenset[str]: ...

    def has(self, capability: str) -> bool: ...

    def shell(self, op: str, command: str, timeout: float | None = None) -> ShellResult: ...

    def exec_out(self, op: str, command: str, timeout: float | None = None) -> bytes: ...

    def kept_shell(self, op: str, command: str, timeout: float | None = None) -> ShellResult: ...

    def quick_shell(self, op: str, command: str, timeout: float | None = None) -> ShellResult: ...

    def rpc(self, op: str, method: str, params: Any = None, timeout: float | None = None) -> Any: ...

    def submit(self, fn: Callable[[], T]) -> Future[T]: ...

    def state(self) -> str | None: ...

    def close(self) -> None: ...


def _describe(e: BaseException) -> str:
    text = str(e).strip() or "no details"
    return f"{type(e).__name__}: {text}"


class Link:
    def __init__(self, client: adbutils.AdbClient, serial: str, config: LinkConfig | None = None) -> None:
        self.client = client
        self.serial = serial
        self.config = config or LinkConfig()
        self.adb = FastAdbDevice(client, serial)
        self.clock = self.config.clock
        self.rpc_client = U2Rpc(self.adb, self.config.u2_port, self.clock)
        self.session = ShellSession(self.adb, self.clock)
        self._u2: Any = None  # uiautomator2.Device (owns the server process)
        self.grpc: EmulatorGrpc | None = None  # the emulator's gRPC door (`attach_grpc`)
        self._caps: set[str] = set()
        self._caps_lock = threading.Lock()
        self._opening: Future[set[str]] | None = None  # the kept shell and u2 opening in the background (`start`)
        self._features: set[str] = set()
        self._part_pool = ThreadPoolExecutor(4, thread_name_prefix=f"dh-part-{serial}")
        self._recover_lock = threading.Lock()
        self._generation = 0
        self.calls = 0  # guarded calls begun: a device read by nothing since may be reused (devicetime.link_time)
        self._count = itertools.count(1)
        self._lost: dict[int, DeviceLostError] = {}
        self._closed = False

    # --- setup ---------------------------------------------------------------------------------------------
    def start(self) -> Link:
        state = self.state()
        if state is None and _TCP_SERIAL.match(self.serial):
            self._adb_connect()
            state = self.state()
        if state != "device":
            hint = {
                "unauthorized": " (accept the USB debugging prompt on the phone)",
                None: " (not known to the adb server: check `droidharness devices`)",
            }.get(state, "")
            raise DeviceLostError(f"device {self.serial}: state is {state or 'absent'}, not 'device'{hint}")
        t = self.config.call_timeout
        self._features = set(self.guard("connect: read adb features", lambda: self.adb.features(t)).split(","))
        caps = {"screencap_raw", "screencap_png", "uiautomator_dump"}
        if "shell_v2" in self._features:
            caps.add("shell_v2")
        self._caps = caps
        self._opening = self._part_pool.submit(self._open_sessions)
        if not self.config.open_in_background:
            self._opened()
        return self

    def _open_sessions(self) -> set[str]:
        """Open the sessions the link keeps, in the background of `start`: the capabilities they give."""
        caps = set()
        if "shell_v2" in self._features and self._open_session():
            caps.add("kept_shell")
        if self.config.use_u2 and self._launch_u2():
            caps.add("u2")
        return caps

    def _opened(self) -> None:
        """Wait until the sessions `start` opens are open (or found unusable) and declare what they give; what
        opening them raised is raised here."""
        fut = self._opening
        if fut is None:
            return
        caps = fut.result()  # each session's opening ends within its own deadlines
        with self._caps_lock:
            if self._opening is fut:
                self._caps |= caps
                self._opening = None

    def _open_session(self) -> bool:
        """Open the kept shell (`ShellSession`) and check it answers; False (and closed) where it does not."""
        try:
            code, out = self.session.run("echo ok", self.config.call_timeout)
        except RECOVERABLE as e:
            log.info("device %s: no kept shell session (%s); one adb stream per query", self.serial, _describe(e))
            self.session.close()
            return False
        if code != 0 or out.strip() != b"ok":
            log.info("device %s: the kept shell answered %r (status %d); a stream per query", self.serial, out, code)
            self.session.close()
            return False
        return True

    def attach_grpc(self, client: EmulatorGrpc) -> None:
        """Use `client` (open) for what the emulator's gRPC door does faster; closed with the link."""
        self.grpc = client

    @property
    def capabilities(self) -> frozenset[str]:
        self._opened()
        return frozenset(self._caps | ({"grpc"} if self.has("grpc") else set()))

    def has(self, capability: str) -> bool:
        self._opened()
        if capability == "grpc":
            return self.grpc is not None and self.grpc.usable
        if capability == "grpc_shm":  # the door writes frames into this host's shared memory
            return self.grpc is not None and self.grpc.usable and self.grpc.shared
        return capability in self._caps

    # --- THE guarded call --------------------------------------------------------------------------------------
    def guard(self, op: str, fn: Callable[[], T], timeout: float | None = None) -> T:
        """Run `fn`, which ends within `timeout` (default: the call timeout) on its own, as the fastadb primitives
        do; on a transport failure recover once and retry; else raise DeviceError."""
        if self._closed:
            raise DeviceError(f"device {self.serial}: {op}: the connection is closed")
        deadline = timeout or self.config.call_timeout
        gen = self._generation
        self.calls = next(self._count)  # atomic: calls from several threads each count
        try:
            return self._run(op, fn, deadline)
        except RECOVERABLE as e:
            first = e
        log.info("device %s: %s failed (%s); recovering", self.serial, op, _describe(first))
        self._recover(op, first, gen)
        try:
            return self._run(op, fn, deadline)
        except RECOVERABLE as e:
            raise DeviceError(
                f"device {self.serial}: {op} failed after reconnecting: {_describe(e)} "
                f"(first failure: {_describe(first)})"
            ) from e

    @staticmethod
    def _run(op: str, fn: Callable[[], T], deadline: float) -> T:
        try:
            return fn()
        except TimeoutError:  # socket.timeout too
            raise TimeoutError(f"{op} did not finish within {deadline:.1f} s") from None

    def _recover(self, op: str, error: BaseException, gen: int) -> None:
        self._opened()  # the sessions it may close and relaunch are open first
        with self._recover_lock:
            if gen in self._lost:
                raise self._lost[gen]
            if self._generation != gen:
                return  # another thread recovered meanwhile
            self.rpc_client.close()  # kept-alive connections do not outlive a failure
            self.session.close()
            try:
                state = self.state()
                if state != "device":
                    self._reconnect_transport(op, error, state)
                if "u2" in self._caps or (self.config.use_u2 and isinstance(error, U2Unreachable)):
                    if not self.rpc_client.ping(timeout=3.0) and not self._launch_u2():
                        self._caps.discard("u2")
                        log.warning("device %s: uiautomator2 cannot be relaunched; using shell paths", self.serial)
            except DeviceLostError as lost:
                self._lost[gen] = lost
                raise
            self._generation += 1

    def _reconnect_transport(self, op: str, error: BaseException, state: str | None) -> None:
        deadline = self.clock() + self.config.reconnect_timeout
        tcp = bool(_TCP_SERIAL.match(self.serial))
        while True:
            if tcp:
                try:
                    self.client.disconnect(self.serial)
                except (AdbError, OSError):
                    pass
                self._adb_connect()
            state = self.state()
            if state == "device":
                log.info("device %s: transport reconnected", self.serial)
                return
            if self.clock() >= deadline:
                raise DeviceLostError(
                    f"device {self.serial}: {op} failed ({_describe(error)}) and the device did not come back "
                    f"within {self.config.reconnect_timeout:.1f} s (adb state: {state or 'absent'})"
                )
            threading.Event().wait(0.1)  # poll interval while waiting for the transport (a condition poll)

    def _adb_connect(self) -> None:
        try:
            self.client.connect(self.serial, timeout=3.0)  # returns a message instead of raising
        except (AdbError, OSError) as e:
            log.debug("adb connect %s: %s", self.serial, e)

    def _launch_u2(self) -> bool:
        """(Re)start the uiautomator2 server with uiautomator2's own launcher, over `FastAdbDevice`."""
        try:
            import uiautomator2 as u2

            if self._u2 is None:
                self._u2 = u2.connect(self.adb, port=self.config.u2_port)
            else:
                self._u2.start_uiautomator()
            ok = self.rpc_client.ping(timeout=3.0)
        except Exception as e:  # noqa: BLE001 - any launch failure means "no u2 on this device"
            log.warning("device %s: uiautomator2 unavailable: %s", self.serial, _describe(e))
            return False
        return ok

    def after_restart(self) -> None:
        """adbd restarted on purpose (`adb root` / `unroot`) and answers again: kept connections are dropped, and
        uiautomator2, when this link uses it, is reached again or relaunched (a failure met while adbd was down
        must not withdraw it for good)."""
        self._opened()
        with self._recover_lock:
            self.rpc_client.close()
            self.session.close()
            self._generation += 1
            if self.config.use_u2 and (self.rpc_client.ping(timeout=3.0) or self._launch_u2()):
                self._caps.add("u2")

    # --- adb state -------------------------------------------------------------------------------------------
    def state(self) -> str | None:
        try:
            for info in self.client.list():
                if info.serial == self.serial:
                    return info.state
        except (AdbError, OSError) as e:
            raise DeviceLostError(
                f"device {self.serial}: the adb server at {self.client.host}:{self.client.port} "
                f"does not answer: {_describe(e)}"
            ) from e
        return None

    # --- guarded primitives ----------------------------------------------------------------------------------
    def shell(self, op: str, command: str, timeout: float | None = None) -> ShellResult:
        """Run a (pre-quoted) command line; exit status and stderr with shell v2, else stdout only."""
        t = timeout or self.config.call_timeout
        if "shell_v2" in self._caps:
            return self.guard(op, lambda: shell_v2(self.adb, command, t, self.clock), t)
        return self.guard(op, lambda: ShellResult(0, shell_v1(self.adb, command, t, self.clock), b""), t)

    def exec_out(self, op: str, command: str, timeout: float | None = None) -> bytes:
        t = timeout or self.config.call_timeout
        return self.guard(op, lambda: exec_out(self.adb, command, t, self.clock), t)

    def kept_shell(self, op: str, command: str, timeout: float | None = None) -> ShellResult:
        """A command line on the shell the link keeps open (`ShellSession`), for a query made on every step: no new
        adb stream per call. The shell's exit status; stdout and stderr come merged (stderr empty)."""
        t = timeout or self.config.call_timeout

        def call() -> ShellResult:
            code, out = self.session.run(command, t)
            return ShellResult(code, out, b"")

        return self.guard(op, call, t)

    def quick_shell(self, op: str, command: str, timeout: float | None = None) -> ShellResult:
        """A short command line whose output is read merged (stdout and stderr together in `stdout`, as they
        come): on the shell the link keeps open when it has one - in a subshell reading /dev/null, so that nothing
        the command does (cd, variables, exit, reading input) reaches the session, and with no adb stream to open
        (a round trip instead of a connection to the adb server and three) - else on a new stream (`shell`). Not
        for a command whose output is parsed apart from its errors, nor one that runs for long."""
        if "\n" in command or "\r" in command or not self.has("kept_shell"):
            return self.shell(op, command, timeout).merged()
        return self.kept_shell(op, f"( {command} ) </dev/null", timeout)

    def rpc(self, op: str, method: str, params: Any = None, timeout: float | None = None) -> Any:
        """A uiautomator2 JSON-RPC call. Raises CapabilityError when u2 is unavailable, U2RpcError when the
        server answers with an error (e.g. UiObjectNotFoundException)."""
        if not self.has("u2"):
            raise CapabilityError(f"device {self.serial}: {op}: uiautomator2 is not available")
        t = timeout or self.config.call_timeout

        def call() -> Any:
            if "u2" not in self._caps:  # withdrawn by a recovery in the meantime
                raise CapabilityError(f"device {self.serial}: {op}: uiautomator2 is not available")
            return self.rpc_client.call(method, params, timeout=t)

        return self.guard(op, call, t)

    def submit(self, fn: Callable[[], T]) -> Future[T]:
        """Run `fn` in the link's capture pool (the parts of one observation run concurrently, each making its
        device calls in its own thread)."""
        return self._part_pool.submit(fn)

    # --- teardown --------------------------------------------------------------------------------------------
    def close(self) -> None:
        if self._closed:
            return
        self._closed = True
        try:
            self._opened()  # a u2 server launched in the background is stopped below
        except Exception:  # noqa: BLE001 - closing: the device may be gone
            pass
        if self._u2 is not None:
            try:
                self._u2.stop_uiautomator(wait=False)
            except Exception:  # noqa: BLE001 - the device may already be gone
                pass
        self.rpc_client.close()
        self.session.close()
        if self.grpc is not None:
            self.grpc.close()
        self._part_pool.shutdown(wait=False, cancel_futures=True)


__all__ = ["DeviceLink", "Link", "LinkConfig", "DeviceLostError", "CapabilityError", "RECOVERABLE", "U2RpcError"]
