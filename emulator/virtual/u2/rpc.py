"""The uiautomator2 server's JSON-RPC methods, on the virtual device's model.

Shapes follow the real server (`AutomatorServiceImpl` of android-uiautomator-server / u2.jar): overloads are told
apart by argument types, a selector argument is either a Selector object or the string name of a UiObject that
`childByText` & co. returned, errors carry the Java exception class in `message` (the client looks for
`uiautomator.UiObjectNotFoundException`). Every input goes through the model with `source="u2"`.

Here: the JSON-RPC envelope, the device, input, toast and text methods; the selector and scrolling methods are
`uiobjects.UiObjectMethods` (mixed in), the errors, the method table and the timings `base`.
"""

from __future__ import annotations

import itertools
import json
import threading
import time
import traceback
import uuid
from collections import OrderedDict
from collections.abc import Callable
from contextlib import nullcontext
from typing import TYPE_CHECKING, Any

from ... import b64
from ..keycodes import U2_KEY_NAMES
from . import selector as S
from .base import (
    CLICK_MS,
    INVALID_PARAMS,
    INVALID_REQUEST,
    JAVA_EXCEPTION,
    LONG_CLICK_MS,
    LONG_PRESS_MS,
    MAX_NAMED_OBJECTS,
    METHOD_NOT_FOUND,
    METHODS,
    PARSE_ERROR,
    POLL_S,
    STEP_MS,
    SWIPE_MARGIN,
    TOUCH_SLOP_PX,
    RpcError,
    ServerKilled,
    integer,
    is_target,
    java_error,
    not_found,
    number,
    rpc,
)
from .uiobjects import UiObjectMethods

if TYPE_CHECKING:  # pragma: no cover
    from ..model import VirtualDeviceModel

_ORIENTATIONS = {"natural": 0, "n": 0, "left": 1, "l": 1, "upsidedown": 2, "u": 2, "right": 3, "r": 3}
# the calls that only observe the screen -> their latency on top of the RPC's (its delay precedes the call's work)
OBSERVATIONS = {"takeScreenshot": "u2_screenshot", "dumpWindowHierarchy": "u2_hierarchy"}
READS = frozenset(  # calls that change nothing on the device: the views of its state stay (statelock)
    {
        *OBSERVATIONS,
        *("ping", "deviceInfo", "isScreenOn", "waitForIdle", "waitForWindowUpdate", "getLastTraversedText"),
        *("getLastToast", "getClipboard", "getText", "exist", "waitForExists", "waitUntilGone", "count"),
        *("objInfo", "objInfoOfAllInstances"),
    }
)


class Base64Text(str):
    """A result that is base64 text: nothing in it needs a JSON escape, so its response is assembled around it
    (`RpcService.handle`), the bytes `json.dumps` would give without scanning and copying a screenshot's ~130 KB."""


class RpcService(UiObjectMethods):
    """One server process's RPC state: named UiObjects, the touch gesture in progress, the last toast."""

    def __init__(self, model: VirtualDeviceModel, killed: threading.Event) -> None:
        self.model = model
        self.killed = killed
        self._lock = threading.Lock()
        self._objects: OrderedDict[str, dict[str, Any]] = OrderedDict()
        self._gesture: dict[str, Any] | None = None
        self._toast: tuple[str, float] | None = None

    # --- JSON-RPC envelope -------------------------------------------------------------------------
    def handle(self, body: bytes) -> bytes:
        """One JSON-RPC request body -> the response body. Raises ServerKilled if the server died meanwhile."""
        req_id: Any = None
        try:
            try:
                req = json.loads(body.decode("utf-8"))
            except (UnicodeDecodeError, ValueError) as e:
                raise RpcError(PARSE_ERROR, f"Parse error: {e}") from None
            if not isinstance(req, dict) or not isinstance(req.get("method"), str):
                raise RpcError(INVALID_REQUEST, "Invalid Request")
            req_id = req.get("id")
            result = self.call(req["method"], req.get("params"))
            if type(result) is Base64Text:
                rid = json.dumps(req_id, ensure_ascii=False).encode("utf-8", "replace")
                return b'{"jsonrpc": "2.0", "id": ' + rid + b', "result": "' + result.encode("ascii") + b'"}'
            resp: dict[str, Any] = {"jsonrpc": "2.0", "id": req_id, "result": result}
        except RpcError as e:
            resp = {"jsonrpc": "2.0", "id": req_id, "error": e.to_json()}
        return json.dumps(resp, ensure_ascii=False).encode("utf-8", "replace")  # lone surrogates: "?", as Java

    def call(self, method: str, params: Any) -> Any:
        attr = METHODS.get(method)
        if attr is None:
            raise RpcError(METHOD_NOT_FOUND, f"method not found: {method}")
        if params is None:
            args: list[Any] = []
        elif isinstance(params, list):
            args = params
        elif isinstance(params, dict):
            # uiautomator2 sends {} for a call without arguments; named arguments are not supported by the server
            if params:
                raise RpcError(INVALID_PARAMS, f"Invalid method parameters: {method} takes positional params")
            args = []
        else:
            raise RpcError(INVALID_REQUEST, "Invalid Request: params must be an array")
        self.model.events.log("u2_rpc", method=method)
        if method in OBSERVATIONS:  # its whole delay is one observation's: it overlaps the others' (latency.observe)
            self.model.latency.observe("u2_rpc", OBSERVATIONS[method])
        else:
            self.model.latency.delay("u2_rpc")
        self._check_alive()
        fn = getattr(self, attr)
        reads, lock = method in READS, self.model.lock
        try:
            with lock.door(), lock.only_reading() if reads else nullcontext():
                return fn(*args)
        except (RpcError, ServerKilled):
            raise
        except S.SelectorError as e:
            raise java_error(e.java_class, str(e)) from None
        except TypeError as e:
            if e.__traceback__ is not None and e.__traceback__.tb_next is None:  # the call itself: wrong arity
                raise RpcError(INVALID_PARAMS, f"Invalid method parameters for {method}: {e}") from None
            raise RpcError(JAVA_EXCEPTION, f"java.lang.RuntimeException: {e}", traceback.format_exc()) from None
        except Exception as e:  # noqa: BLE001 - a bug here must not kill the server; the client sees a Java-style error
            raise RpcError(
                JAVA_EXCEPTION, f"java.lang.RuntimeException: {type(e).__name__}: {e}", traceback.format_exc()
            ) from None
        finally:
            if not reads:  # it may have changed the state without the model's lock (statelock)
                self.model.changed()

    # --- helpers ------------------------------------------------------------------------------------
    def _check_alive(self) -> None:
        if self.killed.is_set():
            raise ServerKilled()

    def _sleep(self, seconds: float) -> None:
        """Wait `seconds` on the device's clock; the server's death ends it."""
        if self.model.clock.sleep(seconds, self.killed):
            raise ServerKilled()

    def _nodes(self) -> list[S.Node]:
        with self.model.lock.reading():
            return S.flatten(self.model.view_roots(), self.model.display_size)

    def _selector(self, obj: Any) -> dict[str, Any]:
        """A Selector object, or the selector behind a UiObject name."""
        if isinstance(obj, dict):
            return obj
        if isinstance(obj, str):
            with self._lock:
                sel = self._objects.get(obj)
            if sel is None:
                raise not_found(f"UiObject {obj} not found!")
            return sel
        raise RpcError(INVALID_PARAMS, f"Invalid method parameters: expected a selector, got {obj!r}")

    def _find(self, obj: Any) -> S.Node | None:
        return S.find(self._nodes(), self._selector(obj))

    def _must(self, obj: Any) -> S.Node:
        sel = self._selector(obj)
        node = S.find(self._nodes(), sel)
        if node is None:
            raise not_found(S.describe(sel))
        return node

    def _wait(self, pred: Callable[[], bool], timeout_ms: Any) -> bool:
        clock = self.model.clock
        deadline = clock.monotonic() + max(0.0, number(timeout_ms, "timeout")) / 1000.0
        while True:
            if pred():
                return True
            left = deadline - clock.monotonic()
            if left <= 0:
                return False
            self._sleep(min(POLL_S, left))

    def _name(self, sel: dict[str, Any]) -> str:
        key = str(uuid.uuid4())
        with self._lock:
            self._objects[key] = sel
            while len(self._objects) > MAX_NAMED_OBJECTS:
                self._objects.popitem(last=False)
        return key

    @staticmethod
    def _center(node: S.Node) -> tuple[int, int]:
        l, t, r, b = node.visible
        return (l + r) // 2, (t + b) // 2

    def _hold(self, start: float, ms: float) -> None:
        """Return when a gesture that began at `start` (the device clock's monotonic) and lasts `ms` would have
        ended on a phone: the call answers after its gesture, as UiAutomator's injection does."""
        left = start + ms / 1000.0 - self.model.clock.monotonic()
        if left > 0:
            self._sleep(left)

    def _swipe(self, x1: float, y1: float, x2: float, y2: float, ms: int) -> None:
        start = self.model.clock.monotonic()
        self.model.swipe(x1, y1, x2, y2, duration_ms=ms, source="u2")
        self._hold(start, ms)

    def _tap(self, x: float, y: float) -> None:
        start = self.model.clock.monotonic()
        self.model.tap(x, y, source="u2")
        self._hold(start, CLICK_MS)

    def _press(self, x: float, y: float, ms: int) -> None:
        start = self.model.clock.monotonic()
        if ms >= LONG_PRESS_MS:
            self.model.long_press(x, y, duration_ms=ms, source="u2")
        else:
            self.model.tap(x, y, source="u2")
        self._hold(start, ms)

    # --- service --------------------------------------------------------------------------------------
    @rpc()
    def ping(self) -> str:
        return "pong"

    @rpc()
    def deviceInfo(self) -> dict[str, Any]:
        m = self.model
        with m.lock:
            w, h = m.display_size
            scale = m.scale
            try:
                pkg = m.foreground.package
            except IndexError:
                pkg = ""
            return {
                "currentPackageName": pkg,
                "displayHeight": h,
                "displayRotation": m.rotation,
                "displaySizeDpX": round(w / scale),
                "displaySizeDpY": round(h / scale),
                "displayWidth": w,
                "naturalOrientation": m.rotation % 2 == 0,
                "productName": m.props.get("ro.product.name", m.profile.product),
                "screenOn": bool(m.screen_on),
                "sdkInt": m.profile.api_level,
            }

    @rpc()
    def takeScreenshot(self, *args: Any) -> str | None:
        # (scale, quality) -> base64 JPEG; legacy (filename, scale, quality) -> path of the saved file
        filename = args[0] if args and isinstance(args[0], str) else None
        rest = args[1:] if filename is not None else args
        scale = float(number(rest[0], "scale")) if len(rest) > 0 else 1.0
        quality = integer(rest[1], "quality") if len(rest) > 1 else 80
        self._check_alive()
        data = self.model.screenshot_jpeg(scale, quality)
        if filename is not None:
            path = "/data/local/tmp/" + filename.rsplit("/", 1)[-1]
            self.model.fs.write(path, data, parents=True)
            return path
        return Base64Text(b64.encode(data).decode("ascii"))

    @rpc()
    def dumpWindowHierarchy(
        self, compressed: Any = False, depth_or_file: Any = None, root_in_active: Any = None
    ) -> str:
        max_depth = 50
        if isinstance(depth_or_file, (int, float)) and not isinstance(depth_or_file, bool):
            max_depth = int(depth_or_file)
        self._check_alive()
        m = self.model
        if not root_in_active:
            return m.hierarchy_xml(u2=True, max_depth=max_depth, system_bars=False)
        from ..ui.view import to_xml

        with m.lock.reading():
            roots, rotation = m.view_roots(), m.rotation
            try:
                pkg = m.foreground.package
            except IndexError:
                pkg = ""
        active = [r for r in roots if r.package == pkg][-1:] or roots[-1:]
        return to_xml(active, rotation, u2=True, max_depth=max_depth)  # written without the lock, as hierarchy_xml

    # --- coordinates input ----------------------------------------------------------------------------
    @rpc()
    def click(self, *args: Any) -> bool:
        if args and is_target(args[0]):  # click(selector) / click(selector, corner)
            node = self._must(args[0])
            corner = str(args[1]).lower() if len(args) > 1 and args[1] is not None else "center"
            l, t, r, b = node.visible
            if corner in ("br", "bottomright"):
                self._tap(r - SWIPE_MARGIN, b - SWIPE_MARGIN)
            elif corner in ("tl", "topleft"):
                self._tap(l + SWIPE_MARGIN, t + SWIPE_MARGIN)
            elif corner in ("c", "center"):
                self._tap(*self._center(node))
            else:
                return False
            return True
        if len(args) not in (2, 3):
            raise RpcError(INVALID_PARAMS, f"Invalid method parameters: click takes (x, y[, ms]), got {list(args)}")
        x, y = integer(args[0], "x"), integer(args[1], "y")
        if x < 0 or y < 0:
            return False
        if len(args) == 3:
            self._press(x, y, integer(args[2], "milliseconds"))
        else:
            self._tap(x, y)
        return True

    @rpc()
    def longClick(self, obj: Any, corner: Any = None) -> bool:
        node = self._must(obj)
        l, t, r, b = node.visible
        c = str(corner or "center").lower()
        if c in ("br", "bottomright"):
            x, y = r - SWIPE_MARGIN, b - SWIPE_MARGIN
        elif c in ("tl", "topleft"):
            x, y = l + SWIPE_MARGIN, t + SWIPE_MARGIN
        elif c in ("c", "center"):
            x, y = self._center(node)
        else:
            return False
        self._press(x, y, LONG_CLICK_MS)
        return True

    @rpc()
    def clickAndWaitForNewWindow(self, obj: Any, timeout: Any = 5500) -> bool:
        node = self._must(obj)
        self._tap(*self._center(node))
        return True

    @rpc()
    def swipe(self, *args: Any) -> bool:
        if args and is_target(args[0]):  # swipe(selector, dir, steps) / swipe(selector, dir, percent, steps)
            return self._swipe_object(*args)
        if len(args) != 5:
            raise RpcError(INVALID_PARAMS, f"Invalid method parameters: swipe takes 5 numbers, got {list(args)}")
        fx, fy, tx, ty = (integer(a) for a in args[:4])
        steps = max(1, integer(args[4], "steps"))
        self._swipe(fx, fy, tx, ty, steps * STEP_MS)
        return True

    def _swipe_object(self, obj: Any, direction: Any, *rest: Any) -> bool:
        node = self._must(obj)
        d = str(direction).lower()
        if len(rest) == 2:
            percent, steps = float(number(rest[0], "percent")), integer(rest[1], "steps")
        elif len(rest) == 1:
            percent, steps = None, integer(rest[0], "steps")
        else:
            raise RpcError(INVALID_PARAMS, "Invalid method parameters: swipe(selector, dir[, percent], steps)")
        l, t, r, b = node.visible
        cx, cy = (l + r) // 2, (t + b) // 2
        if percent is None:  # UiObject.swipeXxx: edge to edge, inside a 5 px margin
            paths = {
                "up": (cx, b - SWIPE_MARGIN, cx, t + SWIPE_MARGIN),
                "down": (cx, t + SWIPE_MARGIN, cx, b - SWIPE_MARGIN),
                "left": (r - SWIPE_MARGIN, cy, l + SWIPE_MARGIN, cy),
                "right": (l + SWIPE_MARGIN, cy, r - SWIPE_MARGIN, cy),
            }
        else:  # UiObject2.swipe: a `percent` of the size, centred
            p = max(0.0, min(1.0, percent))
            hx, hy = int((r - l) * p / 2), int((b - t) * p / 2)
            paths = {
                "up": (cx, cy + hy, cx, cy - hy),
                "down": (cx, cy - hy, cx, cy + hy),
                "left": (cx + hx, cy, cx - hx, cy),
                "right": (cx - hx, cy, cx + hx, cy),
            }
        key = {"u": "up", "d": "down", "l": "left", "r": "right"}.get(d, d)
        if key not in paths:
            return False
        x1, y1, x2, y2 = paths[key]
        self._swipe(x1, y1, x2, y2, max(1, steps) * STEP_MS)
        return True

    @rpc()
    def swipePoints(self, points: Any, steps: Any) -> bool:
        if not isinstance(points, list) or len(points) < 4 or len(points) % 2:
            return False
        seg_ms = max(1, integer(steps, "steps")) * STEP_MS
        xs = [integer(v) for v in points]
        pts = list(zip(xs[0::2], xs[1::2], strict=True))  # len(points) is even
        # the model has no multi-segment gesture: one swipe per segment, in order
        for (x1, y1), (x2, y2) in itertools.pairwise(pts):
            self._swipe(x1, y1, x2, y2, seg_ms)
        return True

    @rpc()
    def drag(self, sx: Any, sy: Any, ex: Any, ey: Any, steps: Any) -> bool:
        # UiDevice.drag: press, hold past the long-press timeout, then move
        ms = LONG_PRESS_MS + max(1, integer(steps, "steps")) * STEP_MS
        self._swipe(integer(sx), integer(sy), integer(ex), integer(ey), ms)
        return True

    @rpc()
    def dragTo(self, obj: Any, *args: Any) -> bool:
        node = self._must(obj)
        x1, y1 = self._center(node)
        if args and is_target(args[0]):  # dragTo(selector, destSelector, steps)
            dest = self._must(args[0])
            x2, y2 = self._center(dest)
            steps = integer(args[1], "steps") if len(args) > 1 else 40
        elif len(args) >= 2:
            x2, y2 = integer(args[0], "x"), integer(args[1], "y")
            steps = integer(args[2], "steps") if len(args) > 2 else 40
        else:
            raise RpcError(INVALID_PARAMS, "Invalid method parameters: dragTo(selector, x, y, steps)")
        return self.drag(x1, y1, x2, y2, steps)

    @rpc()
    def injectInputEvent(self, action: Any, x: Any, y: Any, meta_state: Any = 0) -> bool:
        a = integer(action, "action")
        fx, fy = float(number(x, "x")), float(number(y, "y"))
        now = time.monotonic()  # the client times a touch it holds between calls on the host: so is it measured
        with self._lock:
            g = self._gesture
            if a == 0:  # ACTION_DOWN
                self._gesture = {"x0": fx, "y0": fy, "t0": now, "moved": 0.0}
                return True
            if a == 2:  # ACTION_MOVE
                if g is None:
                    return False
                g["moved"] = max(g["moved"], abs(fx - g["x0"]), abs(fy - g["y0"]))
                return True
            if a != 1:  # only DOWN, MOVE and UP, like the real server
                return False
            self._gesture = None
        if g is None:  # UP without DOWN: a press at that point
            self.model.tap(fx, fy, source="u2")
            return True
        ms = max(1, int((now - g["t0"]) * 1000))
        self.model.clock.catch_up(now - g["t0"])
        moved = max(g["moved"], abs(fx - g["x0"]), abs(fy - g["y0"]))
        if moved < TOUCH_SLOP_PX:  # the client held it between its calls: no further wait here
            if ms >= LONG_PRESS_MS:
                self.model.long_press(g["x0"], g["y0"], duration_ms=ms, source="u2")
            else:
                self.model.tap(g["x0"], g["y0"], source="u2")
        else:
            self.model.swipe(g["x0"], g["y0"], fx, fy, duration_ms=ms, source="u2")
        return True

    @rpc()
    def gesture(self, *args: Any) -> bool:
        # two pointers moving together (gesture(start1, start2, end1, end2, steps)): not modelled, but the call
        # takes its steps' time as UiObject.performTwoPointerGesture does
        if len(args) >= 5:
            self._hold(self.model.clock.monotonic(), max(1, integer(args[-1], "steps")) * STEP_MS)
        return False

    @rpc()
    def pinchIn(self, obj: Any, percent: Any = 100, steps: Any = 50) -> bool:
        self._must(obj)
        self._hold(self.model.clock.monotonic(), max(1, integer(steps, "steps")) * STEP_MS)
        return False  # multi-pointer gestures: not modelled

    @rpc()
    def pinchOut(self, obj: Any, percent: Any = 100, steps: Any = 50) -> bool:
        self._must(obj)
        self._hold(self.model.clock.monotonic(), max(1, integer(steps, "steps")) * STEP_MS)
        return False

    # --- keys, screen, rotation -------------------------------------------------------------------------
    @rpc()
    def pressKey(self, key: Any) -> bool:
        code = U2_KEY_NAMES.get(str(key).lower())
        if code is None:
            return False
        self.model.key(code, source="u2")
        return True

    @rpc()
    def pressKeyCode(self, code: Any, meta_state: Any = 0) -> bool:
        self.model.key(integer(code, "keyCode"), source="u2")
        return True

    @rpc()
    def wakeUp(self) -> None:
        if not self.model.screen_on:
            self.model.key(224, source="u2")  # KEYCODE_WAKEUP

    @rpc()
    def sleep(self) -> None:
        if self.model.screen_on:
            self.model.key(223, source="u2")  # KEYCODE_SLEEP

    @rpc()
    def isScreenOn(self) -> bool:
        return bool(self.model.screen_on)

    @rpc()
    def setOrientation(self, direction: Any) -> None:
        rot = _ORIENTATIONS.get(str(direction).lower())
        if rot is None:
            return  # the real server ignores unknown names
        m = self.model
        with m.lock:
            m.set_rotation(rot)
            m.settings.setdefault("system", {}).update({"accelerometer_rotation": "0", "user_rotation": str(rot)})

    @rpc()
    def freezeRotation(self, freeze: Any = True) -> None:
        m = self.model
        with m.lock:
            m.settings.setdefault("system", {})["accelerometer_rotation"] = "0" if freeze else "1"
            if freeze:
                m.settings["system"]["user_rotation"] = str(m.rotation)

    @rpc()
    def openNotification(self) -> bool:
        self.model.key(83, source="u2")  # KEYCODE_NOTIFICATION
        return True

    @rpc()
    def openQuickSettings(self) -> bool:
        return True

    @rpc()
    def waitForIdle(self, timeout: Any = 0) -> None:
        return None

    @rpc()
    def waitForWindowUpdate(self, package: Any = None, timeout: Any = 0) -> bool:
        return True

    @rpc()
    def getLastTraversedText(self) -> None:
        return None

    @rpc()
    def clearLastTraversedText(self) -> None:
        return None

    # --- toast ---------------------------------------------------------------------------------------
    @rpc()
    def makeToast(self, text: Any, duration: Any = 1000) -> bool:
        with self._lock:
            self._toast = (str(text), self.model.clock.monotonic())
        self.model.events.log("toast", text=str(text), source="u2")
        return True

    @rpc()
    def getLastToast(self, cache_ms: Any = None) -> str | None:
        with self._lock:
            toast = self._toast
        if toast is None:
            return None
        shown_for = self.model.clock.monotonic() - toast[1]
        if cache_ms is not None and shown_for > number(cache_ms, "cacheDuration") / 1000.0:
            return None
        return toast[0]

    @rpc()
    def clearLastToast(self) -> bool:
        with self._lock:
            self._toast = None
        return True

    # --- clipboard and text --------------------------------------------------------------------------
    @rpc()
    def setClipboard(self, label: Any, text: Any = None) -> None:
        m = self.model
        with m.lock:
            m.clipboard = None if text is None else str(text)
            m.events.log("clipboard", text=m.clipboard, source="u2")

    @rpc()
    def getClipboard(self) -> str | None:
        with self.model.lock:
            return self.model.clipboard

    @rpc()
    def pasteClipboard(self) -> bool:
        m = self.model
        with m.lock:
            clip = m.clipboard
            if not clip:
                return False
            return bool(m.commit_text(clip, source="u2"))

    @rpc()
    def clearInputText(self) -> bool:
        m = self.model
        with m.lock:
            if m.focused_text() is None:
                return False
            m.events.log("set_text", text="", source="u2")
            return bool(m.set_focused_text(""))

    def _set_text(self, obj: Any, text: str) -> bool:
        """UiObject2.click() then ACTION_SET_TEXT: the field gets focus, its content is replaced."""
        m = self.model
        sel = self._selector(obj)
        with m.lock:
            node = S.find(self._nodes(), sel)
            if node is None:
                raise not_found(S.describe(sel))
            self._tap(*self._center(node))
            after = S.find(self._nodes(), sel)
            if m.focused_text() is None or (after is not None and not after.view.focused):
                return False  # not an editable field (or it did not take focus)
            m.events.log("set_text", text=text, source="u2")
            return bool(m.set_focused_text(text))

    @rpc()
    def setText(self, obj: Any, text: Any) -> bool:
        return self._set_text(obj, "" if text is None else str(text))

    @rpc()
    def clearTextField(self, obj: Any) -> None:
        self._set_text(obj, "")

    @rpc()
    def getText(self, obj: Any) -> str:
        return self._must(obj).view.text
