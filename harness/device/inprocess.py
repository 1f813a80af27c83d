"""The in-process device: the full device controller (`AdbDevice`: capture chains, actuation, settling) over a
link that talks to the embedded virtual device's model directly, with no adb server and no sockets.

    with InProcessDevice(profile="medium_phone", locale="zh") as dev:
        obs = dev.observe()
        result, obs = dev.step(Click(element=3), obs)

`InProcessLink` implements `harness.device.link.DeviceLink`: shell command lines run in the virtual device's mini shell
(the same registry of Android commands `adb shell` reaches), uiautomator2 calls go through the same JSON-RPC
service (requests and answers JSON-encoded, as on the wire), so everything above the link behaves as it does
over adb. It is what the run-loop, milestone and report tests use; the device layer's own tests, and every
product path, go through the real adb server.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import replace
from typing import TYPE_CHECKING, Any, TypeVar

from emulator.virtual import VirtualDeviceModel
from emulator.virtual.services.shell_service import run_command
from emulator.virtual.u2.rpc import RpcService, ServerKilled
from harness.device.controller import AdbDevice, DeviceConfig
from harness.device.devicetime import DeviceTime
from harness.device.fastadb import ShellResult, U2RpcError
from harness.device.link import DeviceLostError

if TYPE_CHECKING:
    from harness.device.grpc_link import EmulatorGrpc

T = TypeVar("T")
CAPABILITIES = frozenset({"u2", "shell_v2", "screencap_raw", "screencap_png", "uiautomator_dump"})


class _BufferIO:
    """A `ShellIO` with no stdin that collects stdout and stderr."""

    def __init__(self) -> None:
        self.out = bytearray()
        self.err = bytearray()

    def read_stdin(self, n: int = -1, timeout: float | None = None) -> bytes:
        return b""

    def write_stdout(self, data: bytes) -> None:
        self.out += data

    def write_stderr(self, data: bytes) -> None:
        self.err += data

    @property
    def closed(self) -> bool:
        return False

    def wait_closed(self, timeout: float | None = None) -> bool:
        return False


class InProcessLink:
    """`DeviceLink` straight onto a `VirtualDeviceModel`. An offline device (`model.faults.go_offline()`)
    raises `DeviceLostError` on every call, as a link whose device is gone does."""

    def __init__(self, model: VirtualDeviceModel, workers: int = 4) -> None:
        self.model = model
        self.serial = model.serial
        self.grpc: EmulatorGrpc | None = None  # no gRPC door in-process
        self._rpc = RpcService(model, threading.Event())
        self._pool = ThreadPoolExecutor(workers, thread_name_prefix=f"dh-inproc-{model.serial}")
        self._ids = 0
        self._closed = False

    @property
    def capabilities(self) -> frozenset[str]:
        return CAPABILITIES

    def has(self, capability: str) -> bool:
        return capability in CAPABILITIES

    def _check(self, op: str) -> None:
        if self._closed or self.model.faults.offline:
            raise DeviceLostError(
                f"device {self.serial}: {op}: the device is {'closed' if self._closed else 'offline'}"
            )

    def shell(self, op: str, command: str, timeout: float | None = None) -> ShellResult:
        self._check(op)
        io = _BufferIO()
        code = run_command(self.model, command, io)
        return ShellResult(code, bytes(io.out), bytes(io.err))

    def exec_out(self, op: str, command: str, timeout: float | None = None) -> bytes:
        return self.shell(op, command, timeout).stdout

    def kept_shell(self, op: str, command: str, timeout: float | None = None) -> ShellResult:
        return self.shell(op, command, timeout).merged()

    def quick_shell(self, op: str, command: str, timeout: float | None = None) -> ShellResult:
        return self.kept_shell(op, command, timeout)

    def rpc(self, op: str, method: str, params: Any = None, timeout: float | None = None) -> Any:
        self._check(op)
        self._ids += 1
        body = json.dumps(
            {"jsonrpc": "2.0", "id": self._ids, "method": method, "params": [] if params is None else params}
        ).encode("utf-8")
        try:
            answer = json.loads(self._rpc.handle(body))
        except ServerKilled:
            raise DeviceLostError(f"device {self.serial}: {op}: the uiautomator2 server was killed") from None
        if "error" in answer:
            err = answer["error"]
            raise U2RpcError(method, err.get("code"), str(err.get("message", "")))
        return answer.get("result")

    def submit(self, fn: Callable[[], T]) -> Future[T]:
        return self._pool.submit(fn)

    def state(self) -> str | None:
        return "offline" if self.model.faults.offline else "device"

    def close(self) -> None:
        if not self._closed:
            self._closed = True
            self._pool.shutdown(wait=False, cancel_futures=True)


class InProcessDevice(AdbDevice):
    """A `Device` on a fresh embedded virtual device model, in this process (`.model` is that model). `clock`
    (default `config.clock`): the model's clock, `real` or `virtual` (simulated time: waits advance it); the
    device's waits and step times are that clock's, used directly."""

    def __init__(
        self,
        profile: str = "medium_phone",
        locale: str = "en",
        latency: str = "instant",
        serial: str = "INPROC0001",
        config: DeviceConfig | None = None,
        clock: str | None = None,
    ) -> None:
        config = config or DeviceConfig()
        config = replace(config, clock=clock or config.clock)
        self.model = VirtualDeviceModel(
            profile=profile, locale=locale, latency=latency, serial=serial, clock=config.clock
        )
        link = InProcessLink(self.model)
        own = self.model.clock
        super().__init__(link, config, cleanup=[link.close], device_time=DeviceTime(own.monotonic, own.sleep))

    def __enter__(self) -> InProcessDevice:
        return self


__all__ = ["InProcessDevice", "InProcessLink"]
