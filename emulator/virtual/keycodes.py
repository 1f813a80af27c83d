"""Android key codes (android.view.KeyEvent) by name, as `input keyevent` and uiautomator2 use them."""

from __future__ import annotations

KEYCODES: dict[str, int] = {
    "UNKNOWN": 0,
    "SOFT_LEFT": 1,
    "SOFT_RIGHT": 2,
    "HOME": 3,
    "BACK": 4,
    "CALL": 5,
    "ENDCALL": 6,
    **{str(d): 7 + d for d in range(10)},
    "STAR": 17,
    "POUND": 18,
    "DPAD_UP": 19,
    "DPAD_DOWN": 20,
    "DPAD_LEFT": 21,
    "DPAD_RIGHT": 22,
    "DPAD_CENTER": 23,
    "VOLUME_UP": 24,
    "VOLUME_DOWN": 25,
    "POWER": 26,
    "CAMERA": 27,
    "CLEAR": 28,
    **{chr(ord("A") + i): 29 + i for i in range(26)},
    "COMMA": 55,
    "PERIOD": 56,
    "ALT_LEFT": 57,
    "ALT_RIGHT": 58,
    "SHIFT_LEFT": 59,
    "SHIFT_RIGHT": 60,
    "TAB": 61,
    "SPACE": 62,
    "SYM": 63,
    "EXPLORER": 64,
    "ENVELOPE": 65,
    "ENTER": 66,
    "DEL": 67,
    "GRAVE": 68,
    "MINUS": 69,
    "EQUALS": 70,
    "LEFT_BRACKET": 71,
    "RIGHT_BRACKET": 72,
    "BACKSLASH": 73,
    "SEMICOLON": 74,
    "APOSTROPHE": 75,
    "SLASH": 76,
    "AT": 77,
    "NUM": 78,
    "HEADSETHOOK": 79,
    "FOCUS": 80,
    "PLUS": 81,
    "MENU": 82,
    "NOTIFICATION": 83,
    "SEARCH": 84,
    "MEDIA_PLAY_PAUSE": 85,
    "MEDIA_STOP": 86,
    "MEDIA_NEXT": 87,
    "MEDIA_PREVIOUS": 88,
    "PAGE_UP": 92,
    "PAGE_DOWN": 93,
    "ESCAPE": 111,
    "FORWARD_DEL": 112,
    "CTRL_LEFT": 113,
    "CTRL_RIGHT": 114,
    "MOVE_HOME": 122,
    "MOVE_END": 123,
    "VOLUME_MUTE": 164,
    "APP_SWITCH": 187,
    "SLEEP": 223,
    "WAKEUP": 224,
    "ALL_APPS": 284,
}

# uiautomator2 `pressKey` names (UiDevice.pressXxx) -> key code
U2_KEY_NAMES: dict[str, int] = {
    "home": 3,
    "back": 4,
    "left": 21,
    "right": 22,
    "up": 19,
    "down": 20,
    "center": 23,
    "menu": 82,
    "search": 84,
    "enter": 66,
    "delete": 67,
    "del": 67,
    "recent": 187,
    "volume_up": 24,
    "volume_down": 25,
    "volume_mute": 164,
    "camera": 27,
    "power": 26,
}

_NAMES_BY_CODE = {v: k for k, v in KEYCODES.items()}


def parse_keycode(token: str) -> int | None:
    """`66`, `ENTER` or `KEYCODE_ENTER` -> 66; None when unknown."""
    t = token.strip()
    if t.lstrip("-").isdigit():
        return int(t)
    name = t.upper()
    if name.startswith("KEYCODE_"):
        name = name[len("KEYCODE_") :]
    return KEYCODES.get(name)


def keycode_name(code: int) -> str:
    return "KEYCODE_" + _NAMES_BY_CODE.get(code, str(code))
