"""Touches, mouse and keys from the emulator's gRPC door, turned into the device's own input (the model's `tap`,
`swipe`, `long_press`, `key` and `commit_text`: the path `input tap` and uiautomator2 take), so the UI reacts as it
does to the adb door.

Touches (`sendTouch`) are multi-touch slots by `identifier`, as the emulator's Protocol B events: a touch with a
pressure starts a contact or moves it, pressure 0 lifts it; the contact's gesture - from where it went down to
where it lifted, over the time it was down - is then a tap, a long press or a swipe, as `input swipe` makes one
(within the touch slop: a tap, held past the long-press timeout: a long press). A lift with nothing down does
nothing. Each contact makes its own gesture (the UI has no pinch). The mouse (`sendMouse`) is one more contact,
down while the primary button is.

Keys (`sendKey`): `key` takes the W3C key values the emulator understands ("GoHome", "GoBack", "AppSwitch",
"Power", "Enter", "Backspace", "Tab", "Escape", arrows, ...) and single printable characters; `keyCode` takes
evdev codes (`codeType` Evdev), X keycodes (`codeType` XKB: evdev + 8, what android_env sends on Linux) or USB
HID usages (`codeType` Usb, as 0x07XXXX / 0x0CXXXX or the bare usage of page 7; Win and Mac codes are dropped);
`text` types its printable ASCII characters (newline as Enter, others are dropped, as the emulator drops what its
keymap lacks). A key acts on `keydown` and `keypress`; `keyup` completes it and does nothing more.
"""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # pragma: no cover
    from ..model import VirtualDeviceModel

SOURCE = "grpc"
KEYDOWN, KEYUP, KEYPRESS = 0, 1, 2
USB, EVDEV, XKB = 0, 1, 2
XKB_OFFSET = 8  # an X server's keycode is the evdev code + 8 (xkb's evdev rules), as the emulator converts it

# W3C key values -> Android keycodes
KEY_NAMES: dict[str, int] = {
    "GoHome": 3,
    "GoBack": 4,
    "AppSwitch": 187,
    "Power": 26,
    "WakeUp": 224,
    "Enter": 66,
    "Backspace": 67,
    "Tab": 61,
    "Escape": 111,
    "Delete": 112,
    "ArrowUp": 19,
    "ArrowDown": 20,
    "ArrowLeft": 21,
    "ArrowRight": 22,
    "Home": 122,
    "End": 123,
    "PageUp": 92,
    "PageDown": 93,
    "AudioVolumeUp": 24,
    "AudioVolumeDown": 25,
    "AudioVolumeMute": 164,
    "ContextMenu": 82,
    "Camera": 27,
    "Call": 5,
    "EndCall": 6,
}

_LETTERS_EVDEV = dict(zip("qwertyuiop", range(16, 26), strict=True)) | dict(
    zip("asdfghjkl", range(30, 39), strict=True)
)
_LETTERS_EVDEV |= dict(zip("zxcvbnm", range(44, 51), strict=True))
# Linux input-event-codes.h -> Android keycodes
EVDEV_KEYS: dict[int, int] = {
    **{code: 29 + ord(ch) - ord("a") for ch, code in _LETTERS_EVDEV.items()},
    **{2 + d: 8 + d for d in range(9)},  # KEY_1..KEY_9
    11: 7,  # KEY_0
    1: 111,  # KEY_ESC
    12: 69,  # KEY_MINUS
    13: 70,  # KEY_EQUAL
    14: 67,  # KEY_BACKSPACE
    15: 61,  # KEY_TAB
    28: 66,  # KEY_ENTER
    51: 55,  # KEY_COMMA
    52: 56,  # KEY_DOT
    53: 76,  # KEY_SLASH
    57: 62,  # KEY_SPACE
    102: 122,  # KEY_HOME
    103: 19,  # KEY_UP
    104: 92,  # KEY_PAGEUP
    105: 21,  # KEY_LEFT
    106: 22,  # KEY_RIGHT
    107: 123,  # KEY_END
    108: 20,  # KEY_DOWN
    109: 93,  # KEY_PAGEDOWN
    111: 112,  # KEY_DELETE
    113: 164,  # KEY_MUTE
    114: 25,  # KEY_VOLUMEDOWN
    115: 24,  # KEY_VOLUMEUP
    116: 26,  # KEY_POWER
    139: 82,  # KEY_MENU
    142: 223,  # KEY_SLEEP
    143: 224,  # KEY_WAKEUP
    158: 4,  # KEY_BACK
    172: 3,  # KEY_HOMEPAGE
    0x244: 187,  # KEY_APPSELECT
}

# USB HID usages (page << 16 | usage) -> Android keycodes
USB_KEYS: dict[int, int] = {
    **{0x070004 + i: 29 + i for i in range(26)},  # a..z
    **{0x07001E + d: 8 + d for d in range(9)},  # 1..9
    0x070027: 7,  # 0
    0x070028: 66,  # Enter
    0x070029: 111,  # Escape
    0x07002A: 67,  # Backspace
    0x07002B: 61,  # Tab
    0x07002C: 62,  # Space
    0x07002D: 69,  # -
    0x07002E: 70,  # =
    0x070036: 55,  # ,
    0x070037: 56,  # .
    0x070038: 76,  # /
    0x07004A: 122,  # Home
    0x07004B: 92,  # PageUp
    0x07004C: 112,  # Delete
    0x07004D: 123,  # End
    0x07004E: 93,  # PageDown
    0x07004F: 22,  # ArrowRight
    0x070050: 21,  # ArrowLeft
    0x070051: 20,  # ArrowDown
    0x070052: 19,  # ArrowUp
    0x070066: 26,  # Power
    0x0C00E9: 24,  # Volume up
    0x0C00EA: 25,  # Volume down
    0x0C00E2: 164,  # Mute
    0x0C0223: 3,  # AC Home
    0x0C0224: 4,  # AC Back
}


def android_keycode(code_type: int, code: int) -> int | None:
    """The Android keycode of an evdev code, an X keycode or a USB usage; None for an unknown code or another code
    type."""
    if code_type == EVDEV:
        return EVDEV_KEYS.get(code)
    if code_type == XKB:
        return EVDEV_KEYS.get(code - XKB_OFFSET)
    if code_type == USB:
        return USB_KEYS.get(code if code > 0xFFFF else 0x070000 | code)
    return None


def typeable(ch: str) -> bool:
    return ch in "\n\t" or 0x20 <= ord(ch) <= 0x7E


def type_text(model: VirtualDeviceModel, text: str) -> None:
    """Type `text` as the emulator's keyboard would: printable ASCII as text, newline as Enter, tab as Tab."""
    chunk: list[str] = []
    for ch in [c for c in text if typeable(c)] + ["\0"]:
        if ch in "\n\t\0":
            if chunk:
                model.commit_text("".join(chunk), source=SOURCE)
                chunk = []
            if ch != "\0":
                model.key(66 if ch == "\n" else 61, source=SOURCE)
        else:
            chunk.append(ch)


def send_key(model: VirtualDeviceModel, event: Any) -> None:
    """One `KeyboardEvent` (text, key or keyCode, in the emulator's order of precedence: text, then keyCode, then
    key)."""
    if event.text:
        type_text(model, event.text)
        return
    if event.eventType == KEYUP:
        return
    if event.keyCode:
        code = android_keycode(event.codeType, event.keyCode)
        if code is not None:
            model.key(code, source=SOURCE)
        return
    key = event.key
    if key in KEY_NAMES:
        model.key(KEY_NAMES[key], source=SOURCE)
    elif len(key) == 1 and typeable(key):
        type_text(model, key)


@dataclass
class _Contact:
    x0: float
    y0: float
    t0: float
    x: float
    y: float


class Touches:
    """The contacts down on the screen (by identifier), each turned into a gesture when it lifts."""

    def __init__(self, model: VirtualDeviceModel) -> None:
        self.model = model
        self._down: dict[Any, _Contact] = {}
        self._lock = threading.Lock()

    def contact(self, ident: Any, x: float, y: float, down: bool) -> None:
        """A contact at (x, y): down (new or moved) or lifted."""
        now = time.monotonic()  # the client holds a contact on the host's time: so is it measured
        with self._lock:
            c = self._down.get(ident)
            if down:
                if c is None:
                    self._down[ident] = _Contact(x, y, now, x, y)
                else:
                    c.x, c.y = x, y
                return
            if c is None:
                return  # a lift with nothing down: nothing happens
            del self._down[ident]
        held_ms = int((now - c.t0) * 1000)
        self.model.clock.catch_up(now - c.t0)
        self.model.swipe(c.x0, c.y0, x, y, max(held_ms, 1), source=SOURCE)

    def send_touch(self, event: Any) -> None:
        for t in event.touches:
            self.contact(("touch", t.identifier), t.x, t.y, t.pressure > 0)

    def send_mouse(self, event: Any) -> None:
        self.contact(("mouse",), event.x, event.y, bool(event.buttons & 1))

    def down(self) -> int:
        """How many contacts are down."""
        with self._lock:
            return len(self._down)
