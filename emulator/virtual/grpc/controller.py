"""`android.emulation.control.EmulatorController` on the virtual device: the methods it models, over the device's
model (what the adb door and the console see too). Unary methods take the request and return the reply; stream
methods are generators that run while the call is `active()`. The methods it does not model are listed in
`UNMODELLED` and answer UNIMPLEMENTED (server.py).
"""

from __future__ import annotations

import re
import threading
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, Any

from emulator.grpcproto.messages import Empty, message

from ..hardware import BATTERY_HEALTH, BATTERY_STATUS, Fix
from ..providers import ProviderError
from ..providers.sms import receive
from ..shell.cmd_logcat import device_zone, format_entry
from ..telephony import answer, hang_up, hold, ring
from .errors import RpcError
from .input import Touches, send_key
from .screen import SharedRegions, image_message, stream

if TYPE_CHECKING:  # pragma: no cover
    from ..model import VirtualDeviceModel

SERVICE = "android.emulation.control.EmulatorController"
VERSION = "35.1.4.0 (droidharness virtual device)"
LOGCAT_KEEP = 128 * 1024  # getLogcat returns at most the last 128 KiB, as the emulator's buffer holds
ROTATION, RUNNING = 1, 1
LOG_LEVELS = {"V": 2, "D": 3, "I": 4, "W": 5, "E": 6, "F": 7}

# gRPC enum value <-> BatteryManager value (the device's battery and GPS are `emulator.virtual.hardware`'s, one
# state with the console's `power` / `geo`)
_STATUS = {
    0: BATTERY_STATUS["unknown"],
    1: BATTERY_STATUS["charging"],
    2: BATTERY_STATUS["discharging"],
    3: BATTERY_STATUS["not-charging"],
    4: BATTERY_STATUS["full"],
}
_HEALTH = {
    0: BATTERY_HEALTH["good"],
    1: BATTERY_HEALTH["failure"],
    2: BATTERY_HEALTH["dead"],
    3: BATTERY_HEALTH["overvoltage"],
    4: BATTERY_HEALTH["overheat"],
}
KNOT = 0.514444  # m/s: GpsState's speed is in m/s, the GPS fix keeps knots (as the console's `geo fix` gives them)
CHARGER_NONE, CHARGER_AC, CHARGER_USB = 0, 1, 2  # BatteryState.BatteryCharger (WIRELESS, 3, is not modelled)
# PhoneCall.Operation -> what emulator.virtual.telephony does; PhoneResponse.Response values
PHONE_OPERATIONS = {1: answer, 2: hang_up, 3: hang_up, 4: hang_up, 5: hold, 6: answer}  # 0, InitCall: `ring`
INIT_CALL = 0
PHONE_OK, PHONE_BAD_OPERATION, PHONE_BAD_NUMBER, PHONE_INVALID_ACTION = 0, 1, 2, 3

MODELLED_UNARY = (
    "getStatus",
    "getScreenshot",
    "sendTouch",
    "sendMouse",
    "sendKey",
    "getDisplayConfigurations",
    "setClipboard",
    "getClipboard",
    "getLogcat",
    "getBattery",
    "setBattery",
    "getGps",
    "setGps",
    "setPhysicalModel",
    "getPhysicalModel",
    "sendSms",
    "sendPhone",
    "getVmState",
)
MODELLED_STREAMS = ("streamScreenshot", "streamLogcat", "streamClipboard")
# the rest of the published service, by kind: unary-unary, unary-stream, stream-unary
UNMODELLED = {
    "getSensor": "uu",
    "setSensor": "uu",
    "sendFingerprint": "uu",
    "setVmState": "uu",
    "setDisplayConfigurations": "uu",
    "rotateVirtualSceneCamera": "uu",
    "setVirtualSceneCameraVelocity": "uu",
    "setPosture": "uu",
    "streamSensor": "us",
    "streamPhysicalModel": "us",
    "streamAudio": "us",
    "streamNotification": "us",
    "injectAudio": "su",
}
# request type of each modelled method (the reply's is the method's return value)
REQUESTS = {
    "getStatus": "google.protobuf.Empty",
    "getScreenshot": "ImageFormat",
    "streamScreenshot": "ImageFormat",
    "sendTouch": "TouchEvent",
    "sendMouse": "MouseEvent",
    "sendKey": "KeyboardEvent",
    "getDisplayConfigurations": "google.protobuf.Empty",
    "setClipboard": "ClipData",
    "getClipboard": "google.protobuf.Empty",
    "getLogcat": "LogMessage",
    "streamLogcat": "LogMessage",
    "getBattery": "google.protobuf.Empty",
    "setBattery": "BatteryState",
    "getGps": "google.protobuf.Empty",
    "setGps": "GpsState",
    "setPhysicalModel": "PhysicalModelValue",
    "getPhysicalModel": "PhysicalModelValue",
    "sendSms": "SmsMessage",
    "sendPhone": "PhoneCall",
    "streamClipboard": "google.protobuf.Empty",
    "getVmState": "google.protobuf.Empty",
}


class LogText:
    """The log as the emulator's logcat buffer keeps it: text with byte positions that only grow (`start` /
    `next`), the oldest bytes past 128 KiB dropped; each line also kept parsed."""

    def __init__(self, model: VirtualDeviceModel) -> None:
        self.model = model
        self._lock = threading.Lock()
        self._seq = 0  # the last log entry taken in
        self._base = 0  # the byte position of the first line kept
        self._lines: list[tuple[int, bytes, Any]] = []  # (position, text, entry)
        self._end = 0

    def _take_in(self) -> None:
        zone = device_zone(self.model.time_zone)  # the lines logcat prints: the device's local time
        for e in self.model.logbuf.entries(after=self._seq):
            self._seq = e.seq
            text = format_entry("threadtime", e, zone).encode()
            self._lines.append((self._end, text, e))
            self._end += len(text)
        while self._lines and self._end - self._lines[0][0] > LOGCAT_KEEP:
            self._lines.pop(0)
        self._base = self._lines[0][0] if self._lines else self._end

    def read(self, request: Any) -> Any:
        with self._lock:
            self._take_in()
            start = max(request.start, self._base)
            lines = [(pos, text, e) for pos, text, e in self._lines if pos >= start]
            reply = message("LogMessage")(start=start, next=self._end, sort=request.sort)
            if request.sort == 1:  # Parsed
                for _, _, e in lines:
                    reply.entries.add(
                        timestamp=int(e.t * 1000),
                        pid=e.pid,
                        tid=e.tid,
                        level=LOG_LEVELS.get(e.level, 0),
                        tag=e.tag,
                        msg=e.msg,
                    )
            else:
                reply.contents = b"".join(text for _, text, _ in lines).decode(errors="replace")
            return reply

    @property
    def last_seq(self) -> int:
        return self._seq


class EmulatorControl:
    """The modelled methods of EmulatorController over one device's model."""

    def __init__(self, model: VirtualDeviceModel, avd_name: str, stop: threading.Event) -> None:
        self.model = model
        self.avd_name = avd_name
        self.stop = stop
        self.touches = Touches(model)
        self.log = LogText(model)
        self._host_clip: str | None = None  # what setClipboard put there last: streamClipboard does not echo it
        self.regions = SharedRegions()  # clients' shared memory (an MMAP transport's screenshots)

    # --- status and display -----------------------------------------------------------------------------
    def hardware_config(self) -> dict[str, str]:
        p = self.model.profile
        return {
            "avd.name": self.avd_name,
            "hw.lcd.width": str(p.width),
            "hw.lcd.height": str(p.height),
            "hw.lcd.density": str(p.density),
            "hw.cpu.arch": "x86_64" if p.emulator else "arm64",
            "hw.cpu.ncore": "4",
            "hw.ramSize": "2048",
            "hw.device.name": p.name,
            "hw.device.manufacturer": p.manufacturer,
            "hw.keyboard": "yes",
            "hw.battery": "yes",
            "hw.gps": "yes",
            "hw.sensors.orientation": "yes",
            "hw.initialOrientation": "portrait",
            "image.androidVersion.api": str(p.api_level),
        }

    def getStatus(self, request: Any) -> Any:
        reply = message("EmulatorStatus")(
            version=VERSION,
            uptime=int((self.model.clock.time() - self.model.boot_time) * 1000),
            booted=self.model.props.get("sys.boot_completed") == "1",
        )
        reply.vmConfig.hypervisorType = 2  # KVM
        reply.vmConfig.numberOfCpuCores = 4
        reply.vmConfig.ramSizeBytes = 2048 * 1024 * 1024
        for key, value in self.hardware_config().items():
            reply.hardwareConfig.entry.add(key=key, value=value)
        return reply

    def getScreenshot(self, request: Any) -> Any:
        self._main_display(request.display)
        return image_message(self.model, request, regions=self.regions)

    def streamScreenshot(self, request: Any, active: Callable[[], bool]) -> Iterator[Any]:
        self._main_display(request.display)
        yield from stream(self.model, request, active, self.stop, self.regions)

    def getDisplayConfigurations(self, request: Any) -> Any:
        w, h = self.model.physical_size
        reply = message("DisplayConfigurations")()
        reply.displays.add(width=w, height=h, dpi=self.model.profile.density, flags=0, display=0)
        return reply

    def _main_display(self, display: int) -> None:
        if display:
            raise RpcError("INVALID_ARGUMENT", f"display {display} does not exist: the device has display 0 only")

    # --- input --------------------------------------------------------------------------------------------
    def sendTouch(self, request: Any) -> Any:
        self._main_display(request.display)
        self.touches.send_touch(request)
        return Empty()

    def sendMouse(self, request: Any) -> Any:
        self._main_display(request.display)
        self.touches.send_mouse(request)
        return Empty()

    def sendKey(self, request: Any) -> Any:
        send_key(self.model, request)
        return Empty()

    # --- clipboard, log ----------------------------------------------------------------------------------
    def setClipboard(self, request: Any) -> Any:
        with self.model.lock:
            self.model.clipboard = request.text
            self._host_clip = request.text
        return Empty()

    def streamClipboard(self, request: Any, active: Callable[[], bool]) -> Iterator[Any]:
        """The clipboard now, then each clip the guest makes (an app's copy, uiautomator2's setClipboard); a clip
        set through setClipboard is not an event, as on the emulator."""
        last = self.model.clipboard or ""
        yield message("ClipData")(text=last)
        while active() and not self.stop.is_set():
            self.stop.wait(0.05)  # the guest's clipboard has no change signal here: looked at 20 times a second
            with self.model.lock:
                now, host = self.model.clipboard or "", self._host_clip
            if now != last:
                last = now
                if now != host:
                    yield message("ClipData")(text=now)

    def getClipboard(self, request: Any) -> Any:
        return message("ClipData")(text=self.model.clipboard or "")

    def getLogcat(self, request: Any) -> Any:
        return self.log.read(request)

    def streamLogcat(self, request: Any, active: Callable[[], bool]) -> Iterator[Any]:
        position = request.start
        while active() and not self.stop.is_set():
            reply = self.log.read(message("LogMessage")(start=position, sort=request.sort))
            if reply.next > position or reply.start > position:
                position = reply.next
                yield reply
            self.model.logbuf.wait_new(self.log.last_seq, 0.5)

    # --- battery, gps, rotation -----------------------------------------------------------------------------
    def getBattery(self, request: Any) -> Any:
        b = self.model.hw.battery
        return message("BatteryState")(
            hasBattery=True,
            isPresent=b.present,
            charger=CHARGER_AC if b.ac else CHARGER_USB if b.usb else CHARGER_NONE,
            chargeLevel=b.level,
            health=next((k for k, v in _HEALTH.items() if v == b.health), 0),
            status=next((k for k, v in _STATUS.items() if v == b.status), 0),
        )

    def setBattery(self, request: Any) -> Any:
        if not 0 <= request.chargeLevel <= 100:
            raise RpcError("INVALID_ARGUMENT", f"chargeLevel must be 0..100, got {request.chargeLevel}")
        if request.charger not in (CHARGER_NONE, CHARGER_AC, CHARGER_USB):
            raise RpcError("UNIMPLEMENTED", "setBattery: only the NONE, AC and USB chargers are modelled")
        with self.model.lock:
            b = self.model.hw.battery
            b.present = request.isPresent
            b.ac, b.usb = request.charger == CHARGER_AC, request.charger == CHARGER_USB
            b.level = request.chargeLevel
            b.health = _HEALTH.get(request.health, BATTERY_HEALTH["good"])
            b.status = _STATUS.get(request.status, BATTERY_STATUS["unknown"])
            self.model.events.log("battery", level=b.level, ac=b.ac, usb=b.usb, source="grpc")
        return Empty()

    def getGps(self, request: Any) -> Any:
        fix = self.model.hw.fix
        if fix is None:  # no fix yet: the location provider has nothing to report
            return message("GpsState")(passiveUpdate=False)
        return message("GpsState")(
            passiveUpdate=False,
            latitude=fix.latitude,
            longitude=fix.longitude,
            speed=fix.speed_knots * KNOT,
            bearing=fix.bearing,
            altitude=fix.altitude,
            satellites=fix.satellites,
        )

    def setGps(self, request: Any) -> Any:
        if not (-90 <= request.latitude <= 90 and -180 <= request.longitude <= 180):
            raise RpcError("INVALID_ARGUMENT", f"no such place: {request.latitude}, {request.longitude}")
        with self.model.lock:
            self.model.hw.fix = Fix(
                request.longitude,
                request.latitude,
                request.altitude,
                int(self.model.now() * 1000),
                request.satellites,
                request.speed / KNOT,
                request.bearing,
            )
            self.model.events.log("gps", latitude=request.latitude, longitude=request.longitude, source="grpc")
        return Empty()

    def setPhysicalModel(self, request: Any) -> Any:
        """ROTATION only: the angle about z (degrees, counter-clockwise: 90 landscape, -90 reverse landscape,
        +-180 reverse portrait) picks the display's rotation, as the emulator's skin rotation does."""
        if request.target != ROTATION:
            raise RpcError("UNIMPLEMENTED", "setPhysicalModel: only the ROTATION target is modelled")
        data = list(request.value.data) + [0.0, 0.0, 0.0]
        self.model.set_rotation(round(data[2] / 90.0) % 4)
        return Empty()

    def getPhysicalModel(self, request: Any) -> Any:
        if request.target != ROTATION:
            raise RpcError("UNIMPLEMENTED", "getPhysicalModel: only the ROTATION target is modelled")
        reply = message("PhysicalModelValue")(target=ROTATION)
        reply.value.data.extend([0.0, 0.0, {0: 0.0, 1: 90.0, 2: -180.0, 3: -90.0}[self.model.rotation]])
        return reply

    def getVmState(self, request: Any) -> Any:
        return message("VmRunState")(state=RUNNING)

    # --- telephony -----------------------------------------------------------------------------------------
    def sendPhone(self, request: Any) -> Any:
        """A call from `number` (InitCall: it rings, the in-call screen shows), or what happens to it - the same
        calls as the console's `gsm` (`emulator.virtual.telephony`)."""
        number, op = request.number, request.operation
        if op != INIT_CALL and op not in PHONE_OPERATIONS:
            return message("PhoneResponse")(response=PHONE_BAD_OPERATION)
        if not re.fullmatch(r"\+?[0-9]+", number):
            return message("PhoneResponse")(response=PHONE_BAD_NUMBER)
        if op == INIT_CALL:
            ring(self.model, number)
            done = True
        else:
            done = PHONE_OPERATIONS[op](self.model, number)
        return message("PhoneResponse")(response=PHONE_OK if done else PHONE_INVALID_ACTION)

    def sendSms(self, request: Any) -> Any:
        """An SMS from `srcAddress` lands in the inbox the device keeps (content://sms, the Messages app)."""
        try:
            receive(self.model, request.srcAddress, request.text)
        except ProviderError:
            return message("PhoneResponse")(response=2)  # BadNumber
        return message("PhoneResponse")(response=0)
