"""The emulator's gRPC door as the harness drives it: `EmulatorGrpc`, a client of `EmulatorController` and
`SnapshotService` on one emulator, and `discover`, which finds an `emulator-NNNN`'s door from the discovery file
the emulator writes for itself (`pid_<pid>.ini` under `$XDG_RUNTIME_DIR/avd/running` or `~/.android/avd/running`,
whose `port.serial` is NNNN: `grpc.port`, `grpc.token`).

The messages are the ones the virtual device's server uses (`emulator.grpcproto.messages`: descriptors built
field by field, the emulator's wire format), called through grpcio's generic unary callables: no generated code.
grpcio (the `grpc` extra) is imported when a client opens, so a device without a gRPC door never imports it.

What the device layer takes from it: screenshots (`getScreenshot`, RGBA8888 or PNG, or RGB888 written into shared
memory: `screenshot_shared`, harness.device.sharedframe), taps, long presses and
swipes (`sendTouch`, the contact held for the gesture's duration), keys (`sendKey` with the emulator's key names)
and the boot snapshot (`SnapshotService.SaveSnapshot` / `LoadSnapshot`). Every failing call is a `GrpcError` (a
`DeviceError`) naming the emulator and the method; after `MAX_FAILURES` failures in a row the client says it is
no longer `usable`, and the device layer goes back to adb's paths for good.
"""

from __future__ import annotations

import io
import logging
import re
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from PIL import Image

from emulator.grpcproto import discovery
from emulator.grpcproto.messages import message
from emulator.virtual.statedir import pid_alive
from harness.device.sharedframe import RawFrame, SharedFrames
from harness.errors import DeviceError

log = logging.getLogger(__name__)
CONTROLLER = "android.emulation.control.EmulatorController"
SNAPSHOTS = "android.emulation.control.SnapshotService"
PNG, RGBA8888, RGB888 = 0, 1, 2  # ImageFormat.ImgFormat
MMAP = 1  # ImageTransport.TransportChannel
FORMATS = {"rgba": RGBA8888, "png": PNG}
MAX_RECEIVE = 64 * 1024 * 1024  # an RGBA frame of 1080x2400 is 10 MB; a tablet's more
MAX_FAILURES = 3  # failed calls in a row before the client is given up
MOVE_INTERVAL_S = 0.016  # a swipe's finger moves this often (one frame at 60 Hz)
KEY_NAMES = {"back": "GoBack", "home": "GoHome", "enter": "Enter", "recent": "AppSwitch"}  # W3C key values
_SERIAL = re.compile(r"^emulator-(\d+)$")
_PID_FILE = re.compile(r"^pid_(\d+)(?:_\d+)?\.ini$")


class GrpcError(DeviceError):
    """A gRPC call to an emulator failed (refused, unavailable, timed out, or answered an error)."""


@dataclass(frozen=True)
class GrpcEndpoint:
    """Where an emulator's gRPC door is: host, port, the bearer token calls must bring (None: none), and where
    that was read (its discovery file, or "given")."""

    port: int
    token: str | None = None
    host: str = "127.0.0.1"
    source: str = "given"

    @property
    def address(self) -> str:
        return f"{self.host}:{self.port}"


def discover(serial: str, env: dict[str, str] | None = None) -> GrpcEndpoint | None:
    """The gRPC door of the emulator `serial` (`emulator-NNNN`) from its discovery file (`port.serial` = NNNN, the
    file's process alive); None for another serial, or when no such file names a `grpc.port`."""
    m = _SERIAL.match(serial)
    if m is None:
        return None
    directory = discovery.running_dir(env)
    try:
        paths = sorted(directory.iterdir())
    except OSError:
        return None
    for path in paths:
        pm = _PID_FILE.match(path.name)
        if pm is None or not pid_alive(int(pm.group(1))):
            continue
        try:
            values = discovery.read(path)
        except OSError:
            continue
        if values.get("port.serial") != m.group(1) or not values.get("grpc.port", "").isdigit():
            continue
        return GrpcEndpoint(int(values["grpc.port"]), values.get("grpc.token") or None, source=str(path))
    return None


def _rgb_from_rgba(data: bytes, size: tuple[int, int], source: str) -> Image.Image:
    w, h = size
    if w <= 0 or h <= 0 or len(data) != w * h * 4:
        raise GrpcError(f"{source}: an RGBA8888 frame of {w}x{h} has {len(data)} bytes, not {w * h * 4}")
    with memoryview(data) as view:
        return Image.frombytes("RGB", (w, h), view, "raw", "RGBX")  # alpha dropped: screens are opaque


class EmulatorGrpc:
    """A client of one emulator's gRPC door. `open()` connects and checks it answers (`getStatus`)."""

    def __init__(self, endpoint: GrpcEndpoint, serial: str = "", timeout: float = 10.0) -> None:
        self.endpoint = endpoint
        self.serial = serial or endpoint.address
        self.timeout = timeout
        self._grpc: Any = None  # the grpc module, imported on open
        self._channel: Any = None
        self._calls: dict[str, Any] = {}  # method -> stub; unbounded, finite: the methods called (docs/caches.md)
        self._failures = 0
        self._lock = threading.Lock()
        self._metadata = (("authorization", f"Bearer {endpoint.token}"),) if endpoint.token else None
        self._frames: SharedFrames | None = None  # shared memory screenshots' regions, made on first use
        self._screen = (0, 0)  # the display's size (hw.lcd.*), read on open
        # screenshots through shared memory: only with an emulator on this host, given up after one failure
        self.shared = endpoint.host in ("127.0.0.1", "localhost", "::1")
        # taps, swipes and keys go through this door (False: only screenshots do; input keeps to adb's paths)
        self.drives_input = True

    # --- lifecycle --------------------------------------------------------------------------------------------
    def open(self) -> EmulatorGrpc:
        try:
            import grpc
        except ImportError as e:
            raise GrpcError(f"device {self.serial}: grpcio is not installed (pip install 'droidharness[grpc]')") from e
        self._grpc = grpc
        self._channel = grpc.insecure_channel(
            self.endpoint.address,
            options=[("grpc.max_receive_message_length", MAX_RECEIVE), ("grpc.enable_http_proxy", 0)],
        )
        status = self.call(CONTROLLER, "getStatus", message("google.protobuf.Empty")(), "EmulatorStatus")
        hw = {e.key: e.value for e in status.hardwareConfig.entry}
        try:
            self._screen = (int(hw.get("hw.lcd.width", 0)), int(hw.get("hw.lcd.height", 0)))
        except ValueError:
            self._screen = (0, 0)
        if not status.booted:
            log.info("device %s: gRPC answers but the emulator says it has not booted", self.serial)
        return self

    @property
    def usable(self) -> bool:
        """False once `MAX_FAILURES` calls in a row failed (or the client was closed)."""
        return self._channel is not None and self._failures < MAX_FAILURES

    def close(self) -> None:
        channel, self._channel = self._channel, None
        if channel is not None:
            channel.close()
        frames, self._frames = self._frames, None
        if frames is not None:
            frames.close()

    # --- one call ---------------------------------------------------------------------------------------------
    def call(self, service: str, method: str, request: Any, reply: str, timeout: float | None = None) -> Any:
        """One unary call; a `GrpcError` naming the method when it fails."""
        channel = self._channel
        if channel is None:
            raise GrpcError(f"device {self.serial}: gRPC {method}: the client is closed")
        fn = self._calls.get(method)
        if fn is None:
            fn = channel.unary_unary(
                f"/{service}/{method}",
                request_serializer=lambda m: m.SerializeToString(),
                response_deserializer=message(reply).FromString,
            )
            self._calls[method] = fn
        try:
            out = fn(request, timeout=timeout or self.timeout, metadata=self._metadata)
        except self._grpc.RpcError as e:
            with self._lock:
                self._failures += 1
            code = e.code().name if hasattr(e, "code") else "ERROR"
            details = e.details() if hasattr(e, "details") else str(e)
            raise GrpcError(
                f"device {self.serial}: gRPC {method} on {self.endpoint.address} failed: {code} {details}"
            ) from None
        with self._lock:
            self._failures = 0
        return out

    # --- screenshots ------------------------------------------------------------------------------------------
    def screenshot(self, fmt: str = "rgba") -> tuple[Image.Image, bytes | None]:
        """The screen as an RGB image, and the PNG bytes it was decoded from (None for RGBA8888)."""
        request = message("ImageFormat")(format=FORMATS[fmt])
        reply = self.call(CONTROLLER, "getScreenshot", request, "Image")
        source = f"device {self.serial}: gRPC getScreenshot"
        size = (reply.format.width or reply.width, reply.format.height or reply.height)
        if fmt == "rgba":
            return _rgb_from_rgba(reply.image, size, source), None
        try:
            img = Image.open(io.BytesIO(reply.image))
            img.load()
        except Exception as e:  # noqa: BLE001 - PIL raises many kinds
            raise GrpcError(f"{source}: not a decodable PNG ({len(reply.image)} bytes): {e}") from None
        return (img if img.mode == "RGB" else img.convert("RGB")), (reply.image if img.mode == "RGB" else None)

    def screenshot_shared(self) -> RawFrame:
        """The screen's RGB888 rows written by the emulator into a shared memory region of this client
        (`getScreenshot` with an MMAP transport; harness.device.sharedframe): no encoding, one copy out. A device
        that answers with the pixels in the reply instead (it ignores the transport) is a `GrpcError`."""
        if self._frames is None:
            self._frames = SharedFrames()
        size = self._screen if all(self._screen) else (4096, 4096)  # a region per screen, either rotation fits
        source = f"device {self.serial}: gRPC getScreenshot (shared memory)"

        def take(handle: str) -> tuple[int, int]:
            request = message("ImageFormat")(format=RGB888)
            request.transport.channel = MMAP
            request.transport.handle = handle
            reply = self.call(CONTROLLER, "getScreenshot", request, "Image")
            if reply.image:
                raise GrpcError(f"{source}: the frame came in the reply: the door does not write to shared memory")
            return (reply.format.width or reply.width, reply.format.height or reply.height)

        try:
            return self._frames.capture(size, take)
        except (GrpcError, ValueError, OSError) as e:
            self._frames.drop(size)
            self.shared = False  # the device's other screenshot paths from now on
            log.warning("%s: shared memory screenshots given up: %s", self.serial, e)
            raise GrpcError(f"{source}: {e}") from None

    # --- input ------------------------------------------------------------------------------------------------
    def _touch(self, x: int, y: int, pressure: int) -> None:
        event = message("TouchEvent")()
        event.touches.add(x=x, y=y, identifier=0, pressure=pressure)
        self.call(CONTROLLER, "sendTouch", event, "google.protobuf.Empty")

    def swipe(self, x1: int, y1: int, x2: int, y2: int, ms: int) -> None:
        """A finger down at (x1, y1), moved to (x2, y2) over `ms` milliseconds, lifted there (a tap or a long
        press when both points are one)."""
        t0 = time.monotonic()
        end = t0 + ms / 1000
        self._touch(x1, y1, 1)
        try:
            moving = (x1, y1) != (x2, y2)
            while True:
                left = end - time.monotonic()
                if left <= 0:
                    break
                threading.Event().wait(min(MOVE_INTERVAL_S, left))  # the gesture's own duration
                if moving:
                    f = min(1.0, (time.monotonic() - t0) / max(ms / 1000, 1e-6))
                    self._touch(round(x1 + (x2 - x1) * f), round(y1 + (y2 - y1) * f), 1)
        finally:
            self._touch(x2, y2, 0)

    def tap(self, x: int, y: int, ms: int) -> None:
        self.swipe(x, y, x, y, ms)

    def key(self, name: str) -> None:
        """A key press (`eventType` keypress) by the emulator's key name (`KEY_NAMES` maps the harness's)."""
        event = message("KeyboardEvent")(eventType=2, key=KEY_NAMES.get(name, name))
        self.call(CONTROLLER, "sendKey", event, "google.protobuf.Empty")

    # --- snapshots --------------------------------------------------------------------------------------------
    def _snapshot(self, method: str, name: str, timeout: float) -> None:
        reply = self.call(SNAPSHOTS, method, message("SnapshotPackage")(snapshot_id=name), "SnapshotPackage", timeout)
        if not reply.success:
            err = bytes(reply.err).decode(errors="replace") or "no reason given"
            raise GrpcError(f"device {self.serial}: gRPC {method} {name!r}: {err}")

    def save_snapshot(self, name: str, timeout: float = 120.0) -> None:
        self._snapshot("SaveSnapshot", name, timeout)

    def load_snapshot(self, name: str, timeout: float = 120.0) -> None:
        self._snapshot("LoadSnapshot", name, timeout)


def open_discovered(serial: str, env: dict[str, str] | None = None) -> EmulatorGrpc | None:
    """A client of `serial`'s gRPC door when its discovery file names one and it answers; else None (logged)."""
    endpoint = discover(serial, env)
    if endpoint is None:
        return None
    client = EmulatorGrpc(endpoint, serial)
    try:
        return client.open()
    except DeviceError as e:
        client.close()
        log.warning("%s: gRPC door of %s not used: %s", serial, Path(endpoint.source).name, e)
        return None
