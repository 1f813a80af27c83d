"""`input`: Android 14's InputShellCommand (tap, swipe, draganddrop, text, keyevent, press, motionevent, ...).

Faithful where clients notice: `input text` takes ONE argument, turns `%s` into a space, and can only type what
the virtual keyboard's key character map can (printable ASCII, newline, tab). Anything else (CJK, emoji,
accents) makes the phone throw a NullPointerException: nothing is typed, the trace goes to stderr and the
exit status is 255. Bad numbers give `Error: Invalid arguments for command: X` the same way.

Gestures take their time as InputShellCommand's do: `swipe` returns after its duration (default 300 ms),
`draganddrop` after the long-press timeout plus its duration, `keyevent --longpress` holds each key for the
long-press timeout, `--doubletap` waits getDoubleTapMinTime() (40 ms) between the two presses, `--delay MS` waits
between keycodes, `keycombination -t MS` holds the keys. `tap` and plain key events inject DOWN and UP at the
same uptime, so they take no gesture time. The UI sees the gesture's effect at once; the command returns when
the gesture would have ended on a phone (plus the latency profile's `input` delay, applied before).
"""

from __future__ import annotations

from ..keycodes import KEYCODES
from ..ui.gestures import LONG_PRESS_TIMEOUT_MS
from .registry import Ctx, command, procs

SOURCES = {
    "keyboard",
    "dpad",
    "gamepad",
    "touchscreen",
    "mouse",
    "stylus",
    "trackball",
    "touchpad",
    "touchnavigation",
    "joystick",
    "rotaryencoder",
}
LONG_PRESS_MS = LONG_PRESS_TIMEOUT_MS  # ViewConfiguration.DEFAULT_LONG_PRESS_TIMEOUT
DOUBLE_TAP_MIN_MS = 40  # ViewConfiguration.DOUBLE_TAP_MIN_TIME


def _hold(ctx: Ctx, start: float, ms: float) -> None:
    """Return when a gesture that began at `start` (the device clock's monotonic) and lasts `ms` would have ended
    (at once on a virtual clock, which moves on by the time left)."""
    clock = ctx.model.clock
    left = start + ms / 1000.0 - clock.monotonic()
    if left > 0:
        clock.wait(left, ctx.io.wait_closed)


_MODIFIERS = {57, 58, 59, 60, 113, 114, 117, 118}

_TRACE_TAIL = [
    "com.android.server.input.InputShellCommand.onCommand(InputShellCommand.java:253)",
    "com.android.modules.utils.BasicShellCommandHandler.exec(BasicShellCommandHandler.java:97)",
    "android.os.ShellCommand.exec(ShellCommand.java:38)",
    "com.android.server.input.InputManagerService.onShellCommand(InputManagerService.java:2913)",
    "android.os.Binder.shellCommand(Binder.java:1092)",
    "android.os.Binder.onTransact(Binder.java:912)",
    "android.hardware.input.IInputManager$Stub.onTransact(IInputManager.java:1398)",
    "android.os.Binder.execTransactInternal(Binder.java:1392)",
    "android.os.Binder.execTransact(Binder.java:1299)",
]


class JavaError(Exception):
    def __init__(self, exc: str, message: str, frames: list[str]) -> None:
        super().__init__(message)
        self.exc, self.message, self.frames = exc, message, frames


def _invalid(cmd: str) -> JavaError:
    return JavaError(
        "java.lang.IllegalArgumentException",
        f"Error: Invalid arguments for command: {cmd}",
        ["com.android.server.input.InputShellCommand.onCommand(InputShellCommand.java:283)"],
    )


def _arg_required(prev: str) -> JavaError:
    return JavaError(
        "java.lang.IllegalArgumentException",
        f'Argument expected after "{prev}"',
        ["com.android.modules.utils.BasicShellCommandHandler.getNextArgRequired(BasicShellCommandHandler.java:295)"],
    )


class _Args:
    def __init__(self, args: list[str]) -> None:
        self.args, self.i = args, 0

    def next(self) -> str | None:
        if self.i >= len(self.args):
            return None
        self.i += 1
        return self.args[self.i - 1]

    def required(self) -> str:
        v = self.next()
        if v is None:
            raise _arg_required(self.args[self.i - 1] if self.i else "input")
        return v

    def float(self, cmd: str) -> float:
        v = self.required()
        try:
            f = float(v)
        except ValueError:
            raise _invalid(cmd) from None
        if f != f or f in (float("inf"), float("-inf")):
            raise _invalid(cmd)
        return f

    def int(self, cmd: str) -> int:
        v = self.required()
        try:
            return int(v)
        except ValueError:
            raise _invalid(cmd) from None


def keycode_from_string(name: str) -> int:
    """KeyEvent.keyCodeFromString: KEYCODE_X or X (case-sensitive), else a decimal number, else 0."""
    sym = name[len("KEYCODE_") :] if name.startswith("KEYCODE_") else name
    if sym in KEYCODES and not sym.isdigit():
        return KEYCODES[sym]
    try:
        return int(sym, 10)
    except ValueError:
        return 0


def _typeable(ch: str) -> bool:
    return ch in "\n\t" or 0x20 <= ord(ch) <= 0x7E


def _send_text(ctx: Ctx, text: str) -> None:
    # %s -> space, exactly as InputShellCommand.sendText does it
    buf = list(text)
    out: list[str] = []
    i = 0
    while i < len(buf):
        if buf[i] == "%" and i + 1 < len(buf) and buf[i + 1] == "s":
            out.append(" ")
            i += 2
            continue
        out.append(buf[i])
        i += 1
    text = "".join(out)
    if not all(_typeable(c) for c in text):
        raise JavaError(
            "java.lang.NullPointerException",
            "Attempt to get length of null array",
            [
                "com.android.server.input.InputShellCommand.sendText(InputShellCommand.java:380)",
                "com.android.server.input.InputShellCommand.runText(InputShellCommand.java:363)",
            ],
        )
    chunk: list[str] = []
    for c in text + "\0":
        if c in "\n\t\0":
            if chunk:
                ctx.model.commit_text("".join(chunk), source="input")
                chunk = []
            if c != "\0":
                ctx.model.key(66 if c == "\n" else 61, source="input")
        else:
            chunk.append(c)


def _keyevent(ctx: Ctx, a: _Args) -> None:
    arg: str | None = a.required()
    longpress = doubletap = False
    delay_ms = 0
    while arg is not None and arg.startswith("--"):
        longpress = longpress or arg == "--longpress"
        doubletap = doubletap or arg == "--doubletap"
        if arg == "--delay":
            delay_ms = a.int("keyevent")
        arg = a.next()
    first = True
    while arg is not None:
        if not first and delay_ms > 0:
            _hold(ctx, ctx.model.clock.monotonic(), delay_ms)
        first = False
        code = keycode_from_string(arg)
        for press in range(2 if doubletap else 1):
            if press:
                _hold(ctx, ctx.model.clock.monotonic(), DOUBLE_TAP_MIN_MS)
            start = ctx.model.clock.monotonic()
            if code <= 0:
                ctx.model.events.log("key", code=code, source="input")
                continue
            if longpress:
                ctx.model.events.log("long_key", code=code, source="input")
            ctx.model.key(code, source="input")
            if longpress:
                _hold(ctx, start, LONG_PRESS_MS)
        arg = a.next()


def _motion(ctx: Ctx, a: _Args) -> None:
    action = a.required().upper()
    if action not in ("DOWN", "UP", "MOVE", "CANCEL"):
        raise JavaError(
            "java.lang.IllegalArgumentException",
            f"Unknown action: {action}",
            ["com.android.server.input.InputShellCommand.getAction(InputShellCommand.java:520)"],
        )
    x = y = 0.0
    if action != "CANCEL":
        x, y = a.float("motionevent"), a.float("motionevent")
    p = procs(ctx.model)
    state = p.motion
    if action == "DOWN":
        state["down"] = (x, y)
    elif action == "CANCEL":
        state.pop("down", None)
    elif action == "UP" and "down" in state:
        x1, y1 = state.pop("down")
        ctx.model.swipe(x1, y1, x, y, 100, source="input")


def _dispatch(ctx: Ctx, cmd: str, a: _Args) -> None:
    model = ctx.model
    if cmd == "text":
        _send_text(ctx, a.required())
    elif cmd == "keyevent":
        _keyevent(ctx, a)
    elif cmd == "tap":
        x, y = a.float(cmd), a.float(cmd)
        model.tap(x, y, source="input")
    elif cmd in ("swipe", "draganddrop"):
        x1, y1, x2, y2 = (a.float(cmd) for _ in range(4))
        d = a.next()
        try:
            duration = int(d) if d is not None else -1
        except ValueError:
            raise _invalid(cmd) from None
        if duration < 0:
            duration = 300
        if cmd == "draganddrop":  # press, hold for the long-press timeout, then move
            duration += LONG_PRESS_MS
        start = ctx.model.clock.monotonic()
        model.swipe(x1, y1, x2, y2, duration, source="input")
        _hold(ctx, start, duration)
    elif cmd == "press":
        model.key(23, source="input")
    elif cmd == "roll":
        a.float(cmd), a.float(cmd)
    elif cmd == "scroll":
        pass
    elif cmd == "motionevent":
        _motion(ctx, a)
    elif cmd == "keycombination":
        first = a.required()
        hold_ms = 0
        if first == "-t":
            hold_ms = a.int(cmd)
            first = a.required()
        codes = []
        arg: str | None = first
        while arg is not None:
            code = keycode_from_string(arg)
            if code == 0:
                raise JavaError("java.lang.IllegalArgumentException", f"Unknown keycode: {arg}", [])
            codes.append(code)
            arg = a.next()
        if len(codes) < 2:
            raise JavaError("java.lang.IllegalArgumentException", "keycombination requires at least 2 keycodes", [])
        start = ctx.model.clock.monotonic()
        model.events.log("key_combination", codes=codes, source="input")
        for code in codes:
            if code not in _MODIFIERS:
                model.key(code, source="input")
        _hold(ctx, start, hold_ms)
    else:
        raise KeyError(cmd)


HELP = """Usage: input [<source>] [-d DISPLAY_ID] <command> [<arg>...]

The sources are: 
      keyboard
      dpad
      gamepad
      touchscreen
      mouse
      stylus
      trackball
      touchpad
      touchnavigation
      joystick
      rotaryencoder

-d: specify the display ID.
      (Default: -1 for key event, 0 for motion event if not specified.)
The commands and default sources are:
      text <string> (Default: keyboard)
      keyevent [--longpress|--doubletap|--async|--delay <duration between keycodes in ms>] <key code number or name> ... (Default: keyboard)
      tap <x> <y> (Default: touchscreen)
      swipe <x1> <y1> <x2> <y2> [duration(ms)] (Default: touchscreen)
      draganddrop <x1> <y1> <x2> <y2> [duration(ms)] (Default: touchscreen)
      press (Default: trackball)
      roll <dx> <dy> (Default: trackball)
      motionevent <DOWN|UP|MOVE|CANCEL> <x> <y> (Default: touchscreen)
      scroll (Default: rotaryencoder).
      keycombination [-t duration(ms)] <key code 1> <key code 2> ... (Default: keyboard, the key order is important here.)
"""  # noqa: E501, W291 - Android's own `input` help text, byte for byte (its long lines, its trailing space)


@command("input")
def input_(ctx: Ctx, argv: list[str]) -> int:
    ctx.model.latency.delay("input")
    a = _Args(argv[1:])
    first = a.next()
    if first is None or first in ("help", "-h"):
        ctx.out(HELP)
        return 0
    cmd_name = first  # what BasicShellCommandHandler reports as the command
    arg: str = first
    try:
        if arg in SOURCES:
            arg = a.required()
        if arg == "-d":
            a.required()
            arg = a.required()
        try:
            _dispatch(ctx, arg, a)
        except KeyError:
            ctx.errln(f"Unknown command: {arg}")
            return 255
    except JavaError as e:
        frames = e.frames + _TRACE_TAIL
        ctx.err(
            f"\nException occurred while executing '{cmd_name}':\n{e.exc}: {e.message}\n"
            + "".join(f"\tat {f}\n" for f in frames)
        )
        return 255
    return 0
