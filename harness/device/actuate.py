"""Actions -> device operations.

Targets: a normalized `point` maps to pixels with `harness.coords.to_pixels` on the CURRENT display size (the
observation's `size`, which is in the current rotation); an `element` index maps to the centre of that
element's on-screen part in the given observation's tree (a missing index raises `ActionValidationError` naming
the step and the index). Gestures and keys go through an emulator's gRPC door when the device has one
(`sendTouch` held for the gesture's duration, `sendKey` with the emulator's key names), else uiautomator2 RPCs
when the device has them, and fall back to `input` shell commands (a failed gRPC call is recorded in the outcome's
`fallbacks`); every shell string is built with `harness.shellquote`.

TYPE: focus the target (tap) if given; `clear` empties the field; printable-ASCII text goes through
`input text` (spaces as `%s`, quoted, chunked); any other text (CJK, emoji, newline, tab) through
uiautomator2 (`setText` when clearing, else clipboard + paste). Then the focused field is read back and
compared with `readback_matches`; `submit` presses ENTER after the read-back.

`\n` and `\t` mean one thing on every path: characters of the text, inserted into the field (a single-line
field shows a newline as a space, as Android's do), never a key press: ENTER is `submit` (or the ENTER action),
and a TAB key would move the focus. Without uiautomator2 no path inserts them as characters (`input text` turns
them into ENTER / TAB key events), so such text - like any non-ASCII text - is refused there with a
`DeviceError` naming the characters, never typed with another meaning.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, NoReturn

from harness import actions as A
from harness.coords import to_pixels
from harness.device import apps
from harness.device.fastadb import U2RpcError
from harness.device.link import DeviceLink, DeviceLostError
from harness.errors import ActionValidationError, DeviceError
from harness.hierarchy import UITree
from harness.observation import Observation
from harness.shellquote import command, input_text_args, is_input_text_typeable, join_commands

if TYPE_CHECKING:
    from harness.device.grpc_link import EmulatorGrpc

log = logging.getLogger(__name__)
FOCUSED = {"mask": 131072, "childOrSibling": [], "childOrSiblingSelector": [], "focused": True}  # u2 Selector
KEYS = {"back": "KEYCODE_BACK", "home": "KEYCODE_HOME", "enter": "KEYCODE_ENTER", "recent": "KEYCODE_APP_SWITCH"}
# A tap's press: uiautomator2's click(x, y) holds the finger 100 ms (REGULAR_CLICK_LENGTH) on a phone; a tap needs
# only DOWN and UP (`input tap` sends both at the same time), so the harness holds it 1 ms.
TAP_PRESS_MS = 1
SETTLING = (A.Click, A.LongPress, A.Swipe, A.Scroll, A.TypeText, A.Back, A.Home, A.Enter, A.Recent, A.OpenApp)


def readback_matches(typed: str, readback: str | None, clear: bool) -> bool:
    """The read-back rule. True when the focused field's text (`readback`) equals the typed text, or - when the
    field was not cleared first - ends with it (the field held text before). Newlines may read back as spaces
    (single-line fields turn them into spaces, as Android's do). No focused field (None) never matches."""
    if readback is None:
        return False
    forms = {typed, typed.replace("\r\n", "\n").replace("\n", " ")}
    if readback in forms:
        return True
    return not clear and any(readback.endswith(f) for f in forms)


@dataclass
class Outcome:
    ok: bool = True
    path: str = ""
    pixels: list[tuple[int, int]] = field(default_factory=list)
    typed_text: str | None = None
    readback: str | None = None
    readback_matches: bool | None = None
    package: str | None = None
    error: str | None = None
    fallbacks: list[str] = field(default_factory=list)  # "action: grpc failed: ..." for a path that failed first


class Actuator:
    """Runs actions on a `Link`. `poll_tree` is the cheap hierarchy capture (for settling and label lookup);
    `wait(s)` lets a WAIT's seconds pass on the device's time (default: on the host's; a virtual-clock device's
    own: harness.device.devicetime)."""

    def __init__(
        self,
        link: DeviceLink,
        poll_tree: Callable[[], UITree],
        settle: Callable[[], Any],
        display_size: Callable[[], tuple[int, int]],
        type_chunk: int = 200,
        wait: Callable[[float], object] | None = None,
    ) -> None:
        self.link = link
        self.poll_tree = poll_tree
        self.settle = settle
        self.display_size = display_size
        self.type_chunk = type_chunk
        self.wait = wait or threading.Event().wait
        self._size: tuple[int, int] | None = None
        # package -> launcher activity resolved on this device; unbounded, finite: its packages (docs/caches.md)
        self._launchers: dict[str, str] = {}
        self._enabled: list[str] | None = None  # `pm list packages -e` as last read on this device
        self._out = Outcome()  # the outcome of the action running (where a gRPC fallback is recorded)
        self._handlers: dict[type, Callable[[Any, Outcome], None]] = {
            A.Click: self._click,
            A.LongPress: self._long_press,
            A.Swipe: self._swipe,
            A.Scroll: self._scroll,
            A.TypeText: self._type,
            A.Back: lambda a, o: self._key("back", o),
            A.Home: lambda a, o: self._key("home", o),
            A.Enter: lambda a, o: self._key("enter", o),
            A.Recent: lambda a, o: self._key("recent", o),
            A.Wait: self._wait,
            A.OpenApp: self._open_app,
            A.Complete: self._noop,
            A.Impossible: self._noop,
            A.Answer: self._noop,
        }

    # --- entry ------------------------------------------------------------------------------------------------
    def run(self, action: Any, observation: Observation | None, step: int | None) -> Outcome:
        handler = self._handlers.get(type(action))
        if handler is None:
            raise ActionValidationError(
                f"{self._where(step)}: {type(action).__name__} is not an action "
                f"(expected one of {', '.join(A.ACTION_TYPES)})"
            )
        self._obs, self._step = observation, step
        self._size = observation.size if observation is not None else None
        out = Outcome()
        self._out = out
        handler(action, out)
        return out

    @staticmethod
    def _where(step: int | None) -> str:
        return f"step {step}" if step is not None else "action"

    def screen_size(self) -> tuple[int, int]:
        if self._size is None:
            self._size = self.display_size()
        return self._size

    def _point(self, action: Any, what: str = "") -> tuple[int, int]:
        """Pixel of an action's target (`point` or `element`)."""
        if action.element is not None:
            return self._element_center(action, action.element, what)
        return to_pixels(action.point.as_tuple(), self.screen_size())

    def _element_bounds(self, action: Any, index: int) -> tuple[int, int, int, int]:
        obs = self._obs
        if obs is None:
            raise ActionValidationError(
                f"{self._where(self._step)}: {action.type}.element [{index}] needs the "
                "observation its index refers to (pass observation=...)"
            )
        try:
            el = obs.tree[index]
        except IndexError:
            el = None
        if el is None:
            raise ActionValidationError(
                f"{self._where(self._step)}: {action.type}.element: no element "
                f"[{index}] in the observation's tree (it has {len(obs.tree)} elements)"
            )
        w, h = obs.size
        l, t, r, b = el.bounds
        l, t, r, b = max(l, 0), max(t, 0), min(r, w), min(b, h)
        if r <= l or b <= t:
            raise ActionValidationError(
                f"{self._where(self._step)}: {action.type}.element [{index}] is off "
                f"screen (bounds {el.bounds} on a {w}x{h} display)"
            )
        return l, t, r, b

    def _element_center(self, action: Any, index: int, what: str = "") -> tuple[int, int]:
        l, t, r, b = self._element_bounds(action, index)  # clipped to the screen: the visible part's centre
        return (l + r) // 2, (t + b) // 2

    # --- primitives: gRPC first, uiautomator2 second, `input` third ---------------------------------------------
    def _either(
        self, op: str, method: str, params: list[Any], shell_cmd: str, grpc: Callable[[], None] | None = None
    ) -> str:
        if grpc is not None and self.link.has("grpc"):
            try:
                grpc()
                return "grpc"
            except DeviceError as e:
                log.info("device %s: %s through gRPC failed (%s); adb's paths", self.link.serial, op, e)
                self._out.fallbacks.append(f"{op}: grpc failed: {e}")
        if self.link.has("u2"):
            try:
                self.link.rpc(op, method, params)
                return "u2"
            except DeviceLostError:
                raise
            except (DeviceError, U2RpcError):
                pass  # fall through to the shell
        res = self.link.shell(op, shell_cmd)
        if res.exit_code != 0:
            raise DeviceError(
                f"device {self.link.serial}: {op}: `{shell_cmd[:80]}` exited {res.exit_code}: "
                f"{(res.error_text or res.text)[:200]}"
            )
        return "input"

    def _grpc(self) -> EmulatorGrpc | None:
        g = self.link.grpc
        return g if g is not None and g.drives_input else None

    def tap(self, x: int, y: int) -> str:
        g = self._grpc()
        grpc = (lambda: g.tap(x, y, TAP_PRESS_MS)) if g is not None else None
        return self._either("tap", "click", [x, y, TAP_PRESS_MS], command("input", "tap", x, y), grpc)

    def long_press_at(self, x: int, y: int, ms: int) -> str:
        g = self._grpc()
        grpc = (lambda: g.tap(x, y, ms)) if g is not None else None
        return self._either("long press", "click", [x, y, ms], command("input", "swipe", x, y, x, y, ms), grpc)

    def swipe(self, x1: int, y1: int, x2: int, y2: int, ms: int) -> str:
        steps = max(1, round(ms / 5))  # UiAutomator injects one step every 5 ms
        g = self._grpc()
        grpc = (lambda: g.swipe(x1, y1, x2, y2, ms)) if g is not None else None
        shell_cmd = command("input", "swipe", x1, y1, x2, y2, ms)
        return self._either("swipe", "swipe", [x1, y1, x2, y2, steps], shell_cmd, grpc)

    def press(self, key: str) -> str:
        g = self._grpc()
        grpc = (lambda: g.key(key)) if g is not None else None
        return self._either(f"press {key}", "pressKey", [key], command("input", "keyevent", KEYS[key]), grpc)

    def press_home(self) -> None:
        self.press("home")

    def settled_tree(self) -> UITree:
        res = self.settle()
        return res.tree if res.tree is not None else self.poll_tree()

    # --- actions ------------------------------------------------------------------------------------------------
    def _click(self, a: A.Click, out: Outcome) -> None:
        x, y = self._point(a)
        out.pixels.append((x, y))
        out.path = self.tap(x, y)

    def _long_press(self, a: A.LongPress, out: Outcome) -> None:
        x, y = self._point(a)
        out.pixels.append((x, y))
        out.path = self.long_press_at(x, y, max(1, round(a.duration * 1000)))

    def _swipe(self, a: A.Swipe, out: Outcome) -> None:
        size = self.screen_size()
        p1, p2 = to_pixels(a.start.as_tuple(), size), to_pixels(a.end.as_tuple(), size)
        out.pixels += [p1, p2]
        out.path = self.swipe(*p1, *p2, max(1, round(a.duration * 1000)))

    def _scroll(self, a: A.Scroll, out: Outcome) -> None:
        area = self._element_bounds(a, a.element) if a.element is not None else None
        self._swipe(a.to_swipe(area, self.screen_size()), out)

    def _key(self, key: str, out: Outcome) -> None:
        out.path = self.press(key)

    def _wait(self, a: A.Wait, out: Outcome) -> None:
        self.wait(a.duration)  # WAIT is the one action that waits (on the device's time)
        out.path = "none"

    def _noop(self, a: Any, out: Outcome) -> None:
        out.path = "none"

    # --- TYPE ---------------------------------------------------------------------------------------------------
    def _type(self, a: A.TypeText, out: Outcome) -> None:
        bad = A.untypeable(a.text)  # the schema refuses these; an action built without validation must not pass
        if bad is not None:
            raise ActionValidationError(
                f"{self._where(self._step)}: TYPE.text has {A.describe_char(bad[1])} at "
                f"position {bad[0]}: no device can type it"
            )
        text = a.text
        if text and not is_input_text_typeable(text) and not self.link.has("u2"):
            self._refuse_without_u2(text)  # before the tap and the clear: a refused TYPE changes nothing
        if a.target is not None:
            x, y = self._point(a)
            out.pixels.append((x, y))
            self.tap(x, y)
        paths: list[str] = []
        if a.clear and not (text and not is_input_text_typeable(text) and self.link.has("u2")):
            paths.append(self._clear_focused())
        if text:
            if is_input_text_typeable(text):
                paths.append(self._input_text(text))
            else:
                paths.append(self._u2_text(text, replace=a.clear))
        out.path = "+".join(p for p in paths if p)
        out.typed_text = text
        out.readback = self.read_focused()
        out.readback_matches = readback_matches(text, out.readback, a.clear)
        if a.submit:
            self.press("enter")

    def _input_text(self, text: str) -> str:
        cmds = [command("input", "text", arg) for arg in input_text_args(text, self.type_chunk)]
        for line in join_commands(cmds):
            res = self.link.quick_shell("type text (input text)", line)
            if res.exit_code != 0:
                raise DeviceError(
                    f"device {self.link.serial}: input text exited {res.exit_code}: "
                    f"{(res.error_text or res.text)[:200]}"
                )
        return "input_text"

    def _refuse_without_u2(self, text: str) -> NoReturn:
        """No uiautomator2 and text `input text` cannot type as characters (non-ASCII, newline, tab): refused,
        naming the characters, rather than typed with another meaning (see the module docstring)."""
        bad = sorted({c for c in text if not is_input_text_typeable(c)})
        shown = ", ".join(A.describe_char(c) if c in "\n\t" else repr(c) for c in bad[:5])
        raise DeviceError(
            f"device {self.link.serial}: cannot type {shown} without uiautomator2 (`input text` types "
            "printable ASCII only; it would turn a newline or tab into a key press)"
        )

    def _u2_text(self, text: str, replace: bool) -> str:
        """setText on the focused node (replace) or clipboard + paste (insert at the cursor). With no focused
        field the server reports an error or pastes nothing: the read-back (None) reports it."""
        try:
            if replace:
                self.link.rpc("type text (setText)", "setText", [FOCUSED, text])
                return "u2_set_text"
            self.link.rpc("type text (setClipboard)", "setClipboard", [None, text])
            self.link.rpc("type text (pasteClipboard)", "pasteClipboard", {})
        except U2RpcError as e:
            log.info("device %s: TYPE through uiautomator2 failed: %s", self.link.serial, e)
        return "u2_set_text" if replace else "u2_paste"

    def _clear_focused(self) -> str:
        if self.link.has("u2"):
            try:
                self.link.rpc("clear text", "clearTextField", [FOCUSED])
                return "u2_clear"
            except U2RpcError:
                return "u2_clear"  # no focused field: nothing to clear (the read-back will say so)
        current = self.read_focused() or ""
        if current:
            self.link.quick_shell(
                "clear text", command("input", "keyevent", "KEYCODE_MOVE_END", *(["KEYCODE_DEL"] * len(current)))
            )
        return "input_keys_clear"

    def read_focused(self) -> str | None:
        """Text of the focused field: uiautomator2 `getText` on the focused node, else from the hierarchy."""
        if self.link.has("u2"):
            try:
                value = self.link.rpc("read back the focused field", "getText", [FOCUSED])
                return None if value is None else str(value)
            except U2RpcError:
                return None
            except DeviceLostError:
                raise
            except DeviceError:
                pass
        tree = self.poll_tree()
        focused = tree.find(focused=True)
        editable = [e for e in focused if e.is_editable]
        pick = editable[0] if editable else focused[0] if focused else None
        if pick is None:
            return None
        # an empty field reports its hint as its text (AccessibilityNodeInfo.getText): read it as empty
        return "" if pick.hint and pick.text == pick.hint else pick.text

    # --- OPEN_APP -----------------------------------------------------------------------------------------------
    def _open_app(self, a: A.OpenApp, out: Outcome) -> None:
        wanted = a.package or a.name or ""
        kept = self._enabled is not None
        candidates = apps.candidate_packages(a.name, a.package, self.installed_packages())
        if not candidates and kept:  # installed or enabled since the list was read?
            candidates = apps.candidate_packages(a.name, a.package, self.installed_packages(fresh=True))
        for pkg in candidates:
            try:
                out.path = self.launch_package(pkg)
            except DeviceLostError:
                raise
            except DeviceError:
                if not kept:
                    raise
                self.forget_packages()  # disabled or removed since the list was read? decide on a fresh one
                return self._open_app(a, out)
            out.package = pkg
            return
        if not a.name:
            out.ok, out.path = False, "none"
            out.error = f"OPEN_APP: package {a.package!r} is not installed on {self.link.serial}"
            return
        icon = apps.open_by_label(self, a.name)
        if icon is None:
            out.ok, out.path = False, "launcher"
            out.error = f"OPEN_APP: no app labelled {wanted!r} on {self.link.serial}'s launcher or app drawer"
            return
        out.path, out.pixels = "launcher", [icon.center]

    def installed_packages(self, fresh: bool = False) -> list[str]:
        """`pm list packages -e`: what OPEN_APP may launch (a disabled app cannot be started). Read once and kept,
        like the launcher activities, until `forget_packages` (`fresh`: read it again now). OPEN_APP reads it
        again before it says an app is missing, and after a kept app fails to start (~0.3-0.6 s saved per
        OPEN_APP on a phone, where `pm` starts a new runtime)."""
        if fresh or self._enabled is None:
            text = self.link.shell("list packages", command(*apps.ENABLED_PACKAGES)).text
            self._enabled = apps.parse_package_list(text)
        return self._enabled

    def forget_packages(self) -> None:
        """Drop the enabled-package list and the launcher activities resolved so far (packages may have been
        installed, updated, enabled, disabled or removed)."""
        self._enabled = None
        self._launchers.clear()

    def launch_package(self, package: str) -> str:
        """Start `package`'s launcher activity: `am start -n` of the component `cmd package resolve-activity`
        names (resolved once per package and kept until a start of it fails or `forget_launchers`), else
        `monkey` with the LAUNCHER category."""
        comp = self._launchers.pop(package, None)
        if comp is not None and self._am_start(comp):  # a kept component that no longer starts is resolved anew
            self._launchers[package] = comp
            return "am_start"
        res = self.link.shell(
            "resolve launcher activity", command("cmd", "package", "resolve-activity", "--brief", package)
        )
        comp = res.text.strip().splitlines()[-1].strip() if res.text.strip() else ""
        if res.exit_code == 0 and "/" in comp and self._am_start(comp):
            self._launchers[package] = comp
            return "am_start"
        res = self.link.shell(
            "launch with monkey", command("monkey", "-p", package, "-c", "android.intent.category.LAUNCHER", "1")
        )
        if res.exit_code != 0 or "aborted" in res.text:
            raise DeviceError(
                f"device {self.link.serial}: OPEN_APP: cannot launch {package}: {(res.error_text or res.text)[-200:]}"
            )
        return "monkey"

    def _am_start(self, component: str) -> bool:
        started = self.link.quick_shell("start activity", command("am", "start", "-n", component))
        # `am start` may exit 0 and say "Error: Activity class {...} does not exist." on stderr
        return started.exit_code == 0 and "Error" not in started.text and "Error" not in started.error_text


def timed(fn: Callable[[], Any]) -> tuple[Any, float]:
    t = time.perf_counter()
    value = fn()
    return value, time.perf_counter() - t
