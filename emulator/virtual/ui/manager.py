"""The window manager of the virtual device: composes the windows on screen and dispatches input to apps.

CONTRACT (used by `VirtualDeviceModel`; every method is called with the model lock held):
  install_builtin_apps()               register every built-in `Package` with the model
  on_foreground_changed()              the foreground activity changed (drop focus, keyboard, dialogs...)
  on_data_cleared(package)             `pm clear` ran for package
  view_roots() -> list[View]           windows on screen, bottom to top, bounds in display pixels (built now)
  views() -> (list[View], key)         the same, built once per device state (in `model.lock.reading()`)
  keyboard_shown(ime_packages) -> bool an IME's window is on screen (`dumpsys window`)
  frame() -> Frame                     what is on screen now, named and ready to draw (the views it holds)
  render(frame) -> PIL.Image (RGB)     pixels of exactly those views, display size (callers must not draw on it)
  render_jpeg(frame, scale, quality)   those pixels as uiautomator2's takeScreenshot JPEG (bytes)
                                       - these two need no lock: drawing reads only the frame's views and theme,
                                       so a capture holds the lock only while the views are built, as a phone's
                                       screenshot does not stop a hierarchy dump
  tap(x, y) / long_press(x, y, ms) / swipe(x1, y1, x2, y2, ms)
  key(code) -> bool                    True when consumed (BACK closing a dialog/keyboard, ENTER, DEL, ...)
  intercept_home() -> bool             True when the foreground app handled HOME itself (`App.on_home`)
  commit_text(text) -> bool            type into the focused editable field
  focused_text() -> str | None         text of the focused editable field
  set_focused_text(text) -> bool       replace it
  dismiss_transient()                  close keyboard / dialogs / recents (HOME)
  show_recents()                       open the Overview screen
  expand_shade() / collapse_shade()    open / close the notification shade (`cmd statusbar`, a swipe down)
  snapshot() / restore(obj)            UI state for emulator snapshots

Windows, bottom to top: the foreground app (or the Overview screen), the app's dialog (modal), the soft
keyboard, the notification shade or the heads-up notification (`shade`), the status bar, the navigation bar. The
heads-up shows the newest alerting notification until the next input (a tap, swipe or key, wherever it lands) or
until it is opened or swiped away - no timer, so what a capture shows does not depend on when it is taken.
A screen's views are built once per device state (`views()`, `viewsonce`, `statelock`): a step's hit test, screenshot,
hierarchy and keyboard check read one tree, so the XML and the pixels always come from the same tree.
"""

from __future__ import annotations

import copy
import dataclasses
from typing import TYPE_CHECKING, Any

from PIL import Image

from ..notifications import FLAG_AUTO_CANCEL
from ..records import INTENT_ACTION, INTENT_HANDLED
from .frames import Frame, FrameCache, views_frame
from .gestures import scroll_amount
from .interruptions import build_interruptions
from .keyboard import IME_PACKAGE, build_keyboard, keyboard_height
from .layout import Ctx, FieldBinding, V, clip_tree
from .recents import build_recents
from .render import render as render_roots
from .render import render_bands
from .shade import build_heads_up, build_shade
from .systembars import SYSTEMUI, bar_heights, gesture_nav, navigation_bar, status_bar
from .theme import Theme, is_dark, theme_for
from .view import View
from .viewsonce import KeptViews, ViewsOnce
from .windowstate import Layer, WindowState

if TYPE_CHECKING:  # pragma: no cover
    from ..apps.base import App
    from .host import Device

# printable key codes -> the character `input keyevent` types into the focused field
_KEY_CHARS: dict[int, str] = {
    **{7 + d: str(d) for d in range(10)},
    **{29 + i: chr(ord("a") + i) for i in range(26)},
    55: ",",
    56: ".",
    62: " ",
    68: "`",
    69: "-",
    70: "=",
    71: "[",
    72: "]",
    73: "\\",
    74: ";",
    75: "'",
    76: "/",
    77: "@",
    81: "+",
    17: "*",
    18: "#",
}


class UIManager(ViewsOnce):
    def __init__(self, model: Device) -> None:
        self.model = model
        self.frames = FrameCache()  # frames drawn and encoded lately, by what they show
        self.apps: dict[str, App] = {}
        self.state = WindowState()
        self._area: tuple[int, int, int, int] = (0, 0, *model.display_size)
        self._keep_recents = False
        self._kept: KeptViews = None

    # --- packages --------------------------------------------------------------------------------
    def install_builtin_apps(self) -> None:
        from ..apps.builtin import builtin_apps
        from ..records import LATIN_IME, Package

        for app in builtin_apps():
            self.apps[app.package] = app
            self.model.install_package(app.package_record())
        for name, labels, ime in [
            (SYSTEMUI, {"en": "System UI", "zh": "系统界面"}, None),
            (IME_PACKAGE, {"en": "Gboard", "zh": "Gboard"}, LATIN_IME),
            ("com.google.android.permissioncontroller", {"en": "Permission controller", "zh": "权限控制器"}, None),
        ]:
            self.model.install_package(
                Package(name, labels, [], None, system=True, ime_service=ime, first_install_time=1_700_000_000.0)
            )

    def app_for(self, package: str) -> App:
        app = self.apps.get(package)
        if app is None:
            from ..apps.base import GenericApp

            pkg = self.model.packages.get(package)
            app = GenericApp(package, dict(pkg.labels) if pkg else {"en": package})
        return app

    # --- state changes from the model --------------------------------------------------------------
    def on_foreground_changed(self) -> None:
        st = self.state
        st.focus_pkg = st.focus = None
        st.keyboard = st.shift = st.symbols = False
        if not self._keep_recents:
            st.recents = False
        if not self.model.tasks:
            return
        top = self.model.tasks[-1].top
        app = self.apps.get(top.package)
        if app is None:
            return
        ui = self.model.app_ui.setdefault(top.package, {})
        ctx = self._ctx(top.package, self.theme())
        if not ui.get("_created"):
            ui["_created"] = True
            for db in app.databases:  # Room / SQLiteOpenHelper: the database made where there is none
                db.create(self.model.fs)
            app.on_create(ctx)
        app.on_foreground(ctx)
        action = top.extras.get(INTENT_ACTION)
        if action and not top.extras.get(INTENT_HANDLED):
            top.extras[INTENT_HANDLED] = True
            app.on_intent(ctx, str(action), top.extras)

    def on_data_cleared(self, package: str) -> None:
        if self.state.focus_pkg == package:
            self.set_focus(None, None)

    # --- focus and keyboard ----------------------------------------------------------------------
    def set_focus(self, package: str | None, key: str | None, keyboard: bool = True) -> None:
        self.state.focus_pkg = package if key else None
        self.state.focus = key
        self.state.keyboard = bool(key) and keyboard
        self.state.shift = self.state.symbols = False

    def hide_keyboard(self) -> None:
        self.state.keyboard = False

    def toast(self, text: str) -> None:
        if self.model.tasks:
            self.model.app_ui.setdefault(self.model.tasks[-1].package, {})["snackbar"] = text

    # --- frame ------------------------------------------------------------------------------------
    def theme(self) -> Theme:
        return theme_for(is_dark(self.model.settings))

    def dialog_area(self) -> tuple[int, int, int, int]:
        return self._area

    def _ctx(self, package: str, theme: Theme, area: tuple[int, int, int, int] | None = None) -> Ctx:
        rec = None
        for t in reversed(self.model.tasks):
            if t.package == package and t.stack:
                rec = t.top
                break
        focus = self.state.focus if self.state.focus_pkg == package else None
        return Ctx(
            self.model,
            self,
            package,
            rec,
            theme,
            area or self._area,
            self.model.display_size,
            focus,
            bool(self.state.keyboard) and focus is not None,
        )

    def _foreground_package(self) -> str:
        return self.model.tasks[-1].package if self.model.tasks else ""

    def view_roots(self) -> list[View]:
        m = self.model
        W, H = m.display_size
        theme = self.theme()
        status_h, nav_h = bar_heights(m)
        pkg = self._foreground_package()
        roots: list[View] = []
        from ..records import LAUNCHER_PACKAGE

        on_wallpaper = False
        if self.state.recents:
            self._area = (0, status_h, W, H - nav_h)
            roots.append(
                build_recents(
                    m,
                    theme,
                    (W, H),
                    self._area,
                    self.state,
                    lambda p: self.app_for(p).icon_style(),
                    self._open_task,
                    self._dismiss_task,
                    self._clear_all,
                    self._go_home,
                )
            )
            on_wallpaper = True
        elif pkg:
            kb = bool(self.state.keyboard) and self.state.focus_pkg == pkg
            app_roots, binding = self._build_app(pkg, theme, W, H, status_h, nav_h, kb)
            if kb and binding is None:
                self.state.keyboard = False
                kb = False
                app_roots, binding = self._build_app(pkg, theme, W, H, status_h, nav_h, False)
            if self.state.focus and binding is None:
                # the focused field is gone from the screen: focus goes with it
                self.state.focus = self.state.focus_pkg = None
            roots.extend(app_roots)
            if kb and binding is not None:
                roots.append(
                    build_keyboard(
                        m,
                        theme,
                        W,
                        H - nav_h,
                        H,
                        self.state,
                        binding.action_kind,
                        binding.multiline,
                        self._soft_commit,
                        self._soft_press,
                        self._soft_toggle,
                    )
                )
            roots.extend(build_interruptions(self.state, pkg, lambda p: self._ctx(p, theme)))
            window_bg = app_roots[0].style.get("bg", theme.bg) if app_roots else theme.bg
            on_wallpaper = pkg == LAUNCHER_PACKAGE or sum(window_bg) < 300  # light bars over a dark window
        icons = lambda p: self.app_for(p).icon_style()  # noqa: E731
        heads_up = m.notifications.heads_up_record()
        if m.settings.get("global", {}).get("heads_up_notifications_enabled", "1") == "0":
            heads_up = None  # the setting harnesses turn off (harness.device.prepare): nothing peeks
        if self.state.shade:
            roots.append(
                build_shade(
                    m,
                    theme,
                    (W, H),
                    status_h,
                    nav_h,
                    icons,
                    self._open_notification,
                    self._dismiss_notification,
                    self._clear_notifications,
                    self.collapse_shade,
                )
            )
            on_wallpaper = True
        elif heads_up is not None:
            roots.append(
                build_heads_up(m, theme, heads_up, W, status_h, icons, self._open_notification, self._put_away)
            )
        bar_fg = (255, 255, 255) if on_wallpaper or theme.dark else (31, 31, 31)
        roots.append(status_bar(m, W, status_h, bar_fg))
        roots.append(
            navigation_bar(
                m, W, nav_h, H, theme, bar_fg, None if on_wallpaper or gesture_nav(m) else theme.bg, self._nav_press
            )
        )
        screen = (0, 0, W, H)
        return [r for r in roots if clip_tree(r, screen)]

    def _build_app(
        self, pkg: str, theme: Theme, W: int, H: int, status_h: int, nav_h: int, kb: bool
    ) -> tuple[list[View], FieldBinding | None]:
        kb_h = keyboard_height(self.model, H) if kb else 0
        self._area = (0, status_h, W, H - nav_h - kb_h)
        app = self.app_for(pkg)
        ctx = self._ctx(pkg, theme)
        ctx.keyboard = kb
        window = View(
            cls="android.widget.FrameLayout", package=pkg, bounds=(0, 0, W, H), style={"bg": app.window_bg(ctx)}
        )
        content = V(ctx, "android.widget.FrameLayout", self._area, "android:id/content")
        window.children.append(content)
        content.children.extend(app.build(ctx))
        snack = ctx.ui.get("snackbar")
        if snack:
            content.children.append(self._snackbar(ctx, snack))
        roots = [window]
        dlg = app.dialog(ctx)
        if dlg is not None:
            roots.append(dlg)
        binding = None
        key = ctx.focus
        if key:
            for r in roots:
                for v in r.walk():
                    if v.key == key and isinstance(v.style.get("field"), FieldBinding):
                        binding = v.style["field"]
                        break
                if binding:
                    break
        return roots, binding

    def _snackbar(self, ctx: Ctx, msg: str) -> View:
        l, t, r, b = ctx.area
        h = ctx.dp(48)
        m = ctx.dp(12)
        bg = (50, 50, 54) if not ctx.theme.dark else (230, 225, 229)
        fg = (242, 242, 242) if not ctx.theme.dark else (49, 48, 51)
        v = V(
            ctx,
            "android.widget.FrameLayout",
            (l + m, b - h - m, r - m, b - m),
            "snackbar_layout",
            style={"bg": bg, "radius": ctx.dp(4)},
        )
        v.children.append(
            V(
                ctx,
                "android.widget.TextView",
                (l + m + ctx.dp(16), b - h - m, r - m - ctx.dp(16), b - m),
                "snackbar_text",
                text=msg,
                style={"fg": fg, "size": ctx.sp(14)},
            )
        )
        return v

    def render(self, frame: Frame) -> Image.Image:
        """`frame`'s pixels, drawn once per frame (no lock needed)."""
        return self.frames.image(frame.key, frame.draw, frame.draw_on, frame.redraw)

    def render_jpeg(self, frame: Frame, scale: float, quality: int) -> bytes:
        """`frame` as uiautomator2's takeScreenshot sends it (`frames.encode_jpeg`), encoded once per frame (no
        lock needed)."""
        return self.frames.jpeg(frame.key, lambda: self.render(frame), scale, quality)

    def render_raw(self, frame: Frame, size: tuple[int, int], mode: str) -> memoryview:
        """`frame`'s raw rows (`frames.raw`: RGB888 or RGBA8888 at `size`), made once per frame (no lock needed)."""
        return self.frames.raw(frame.key, lambda: self.render(frame), size, mode)

    def frame(self) -> Frame:
        """What is on screen now: its name (`frames.frame_key` of its paint list) and how to draw it from its views
        (once per state)."""
        W, H = self.model.display_size
        if not self.model.screen_on:
            return Frame(("screen off", (W, H)), lambda: Image.new("RGB", (W, H), (0, 0, 0)))
        (roots, key), theme = self.views(), self.theme()
        kept = self.kept_frame(key)
        return kept or self.keep_frame(key, views_frame(roots, (W, H), theme, render_roots, render_bands))

    # --- input ------------------------------------------------------------------------------------
    def _clear_snackbar(self) -> None:
        pkg = self._foreground_package()
        if pkg:
            self.model.app_ui.get(pkg, {}).pop("snackbar", None)

    def _target_root(self, roots: list[View], x: float, y: float) -> tuple[View | None, bool]:
        """The window that gets a touch at (x, y): (root, outside_modal)."""
        for root in reversed(roots):
            if root.contains(x, y):
                return root, False
            if root.style.get("modal"):
                return root, True
        return None, False

    def tap(self, x: float, y: float) -> None:
        roots = self._action_views()
        self._put_away()
        self._clear_snackbar()
        root, outside = self._target_root(roots, x, y)
        if root is None:
            return
        if outside:
            cancel = root.style.get("on_cancel")
            if cancel is not None and root.style.get("cancel_outside", True):
                cancel()
            return
        v = root.hit(x, y, lambda n: n.clickable)
        if v is not None and not self._seek(v, x):
            self._click(v)

    @staticmethod
    def _seek(v: View, x: float) -> bool:
        """A touch ending at x on a SeekBar moves its thumb there (the track is inset by half its height)."""
        seek = v.style.get("on_seek")
        if seek is None or not v.enabled:
            return False
        inset = v.height / 2
        seek((x - v.bounds[0] - inset) / max(1.0, v.width - 2 * inset))
        return True

    def _click(self, v: View) -> None:
        if not v.enabled:
            return
        if isinstance(v.style.get("field"), FieldBinding):
            self.set_focus(v.package, v.key, True)
        if v.on_click is not None:
            v.on_click()

    def long_press(self, x: float, y: float, ms: int) -> None:
        roots = self._action_views()
        self._put_away()
        self._clear_snackbar()
        root, outside = self._target_root(roots, x, y)
        if root is None or outside:
            return
        v = root.hit(x, y, lambda n: n.clickable or n.long_clickable)
        if v is None or not v.enabled:
            return
        if v.long_clickable and v.on_long_click is not None:
            v.on_long_click()
        else:
            self._click(v)

    def swipe(self, x1: float, y1: float, x2: float, y2: float, ms: int) -> None:
        m = self.model
        W, H = m.display_size
        status_h, nav_h = bar_heights(m)
        s = m.scale
        roots = self._action_views()
        self._put_away()
        self._clear_snackbar()
        if gesture_nav(m) and y1 >= H - nav_h - 4 * s and y1 - y2 > 48 * s:
            # gesture navigation: swipe up from the bottom edge = home; a slow swipe (hold) = overview
            if ms >= 700:
                self.show_recents()
            else:
                self.dismiss_transient()
                m.go_home()
            return
        if (
            gesture_nav(m)
            and (x1 <= 12 * s or x1 >= W - 12 * s)
            and abs(x2 - x1) > 48 * s
            and abs(y2 - y1) < abs(x2 - x1)
        ):
            # back gesture from a screen edge
            m.key(4, source="gesture")
            return
        if y1 < status_h and not self.state.shade:
            if y2 - y1 > 48 * s:  # a swipe down from the status bar pulls the shade down
                self.expand_shade()
            return
        root, outside = self._target_root(roots, x1, y1)
        if root is None or outside:
            return
        chain: list[View] = []
        node: View | None = root
        while node is not None:
            chain.append(node)
            node = next((c for c in reversed(node.children) if c.contains(x1, y1)), None)
        if any(self._seek(v, x2) for v in reversed(chain) if v.style.get("on_seek")):
            return  # a drag on a SeekBar takes its thumb along
        drag = next((v.style["on_drag"] for v in reversed(chain) if v.style.get("on_drag")), None)
        if drag is not None:  # a view that takes the finger's path itself (a drawing canvas): from, to
            drag(x1, y1, x2, y2)
            return
        # the content moves by the drag past the touch slop plus the fling of the release velocity, so a slow
        # swipe scrolls about its length and a fast one much further (gestures.scroll_amount)
        dx, dy = scroll_amount(x2 - x1, y2 - y1, ms, s)
        if dx == 0 and dy == 0:
            return
        for v in reversed(chain):
            if v.on_scroll is not None and v.on_scroll(dx, dy):
                return

    # --- keys and text ------------------------------------------------------------------------------
    def _focused(self) -> FieldBinding | None:
        key = self.state.focus
        if not key:
            return None
        for r in self.view_roots():
            if r.package != self.state.focus_pkg:
                continue
            for v in r.walk():
                if v.key == key and isinstance(v.style.get("field"), FieldBinding):
                    return v.style["field"]
        return None

    def key(self, code: int) -> bool:
        self._put_away()
        self._clear_snackbar()
        if code == 4:
            return self._back()
        if code in (66, 160):  # ENTER, NUMPAD_ENTER
            return self._enter()
        if code == 67:  # DEL
            f = self._focused()
            if f is None:
                return False
            cur = f.get()
            if cur:
                f.set(cur[:-1])
            return True
        if code == 111:  # ESCAPE: like BACK for the keyboard only
            if self.state.keyboard:
                self.hide_keyboard()
                return True
            return False
        ch = _KEY_CHARS.get(code)
        if ch is not None:
            return self.commit_text(ch)
        return False

    def _back(self) -> bool:
        if self.state.keyboard and self._focused() is not None:
            self.hide_keyboard()
            return True
        if self.state.recents:
            self.state.recents = False
            return True
        if self.state.shade:
            self.state.shade = False
            return True
        roots = self.view_roots()
        pkg = self._foreground_package()
        for r in reversed(roots):
            if r.style.get("modal"):
                cancel = r.style.get("on_cancel")
                if cancel is not None:
                    cancel()
                return True
        app = self.apps.get(pkg)
        if app is not None and app.on_back(self._ctx(pkg, self.theme())):
            return True
        return False

    def _enter(self) -> bool:
        f = self._focused()
        if f is None:
            return False
        if f.action is not None and (not f.multiline or f.action_kind in ("send", "search")):
            f.action()
        elif f.multiline:
            self._insert(f, "\n")
        else:
            self.hide_keyboard()
        return True

    def _insert(self, f: FieldBinding, text: str) -> None:
        if not f.multiline:
            text = text.replace("\r", "").replace("\n", " ")
        f.set((f.get() + text)[: f.max_length])

    def commit_text(self, text: str) -> bool:
        self._put_away()
        f = self._focused()
        if f is None:
            return False
        self._insert(f, text)
        return True

    def focused_text(self) -> str | None:
        f = self._focused()
        return None if f is None else f.get()

    def set_focused_text(self, text: str) -> bool:
        f = self._focused()
        if f is None:
            return False
        f.set(text if f.multiline else text.replace("\n", " "))
        return True

    # soft keyboard callbacks
    def _soft_commit(self, text: str) -> None:
        self.commit_text(text)
        if self.state.shift:
            self.state.shift = False

    def _soft_press(self, code: int) -> None:
        self.key(code)

    def _soft_toggle(self, what: Layer) -> None:
        self.state.toggle(what)
        if what == "symbols":
            self.state.shift = False

    def _nav_press(self, code: int) -> None:
        self.model.key(code, source="navbar")

    def intercept_home(self) -> bool:
        """HOME key: True when the foreground app handles it itself (an app with `on_home(ctx) -> True`, e.g. an
        episode-backed app replaying a recorded HOME as an in-app transition); else the launcher comes up."""
        pkg = self._foreground_package()
        hook = getattr(self.apps.get(pkg), "on_home", None)
        if hook is None or self.state.recents:
            return False
        return bool(hook(self._ctx(pkg, self.theme())))

    # --- transient UI --------------------------------------------------------------------------------
    def dismiss_transient(self) -> None:
        self.state.keyboard = False
        self.state.recents = False
        self.state.shade = False
        self._put_away()
        self.state.focus = self.state.focus_pkg = None
        pkg = self._foreground_package()
        if pkg:
            self.model.app_ui.get(pkg, {}).pop("dialog", None)

    def show_recents(self) -> None:
        if self.state.recents:
            recent = self.model.recent_packages()
            if recent:
                self._open_task(recent[1] if len(recent) > 1 else recent[0])
            return
        self.state.keyboard = False
        self.state.recents = True
        self.state.recents_scroll = 0
        self.state.shade = False
        self._put_away()

    # --- notifications --------------------------------------------------------------------------------
    def expand_shade(self) -> None:
        self.state.shade = True
        self.state.keyboard = False
        self.model.notifications.heads_up = None

    def collapse_shade(self) -> None:
        self.state.shade = False
        self._put_away()  # what came while the shade was open does not peek afterwards

    def _put_away(self) -> None:
        """The heads-up goes (input came, or it was swiped); the notification stays in the shade."""
        self.model.notifications.heads_up = None

    def _open_notification(self, key: str) -> None:
        """A tap on a notification: the shade closes, its content intent starts, an auto-cancel one goes."""
        n = self.model.notifications.get(key)
        self.state.shade = False
        self._put_away()
        if n is None:
            return
        if n.flags & FLAG_AUTO_CANCEL:
            self.model.notifications.cancel(key)
        if n.intent is not None:
            self.state.recents = False
            self.model.start_activity(n.intent["package"], n.intent.get("activity"), dict(n.intent.get("extras") or {}))

    def _dismiss_notification(self, key: str) -> None:
        self.model.notifications.cancel(key)

    def _clear_notifications(self) -> None:
        self.model.notifications.clear_all()
        self.state.shade = False

    def _open_task(self, package: str) -> None:
        self.state.recents = False
        self.model.start_activity(package)

    def _dismiss_task(self, package: str) -> None:
        self._keep_recents = True
        try:
            self.model.force_stop(package)
            # force_stop put the launcher in front; the Overview stays open over it
            self.state.recents = True
        finally:
            self._keep_recents = False

    def _clear_all(self) -> None:
        for p in list(self.model.recent_packages()):
            self._keep_recents = True
            try:
                self.model.force_stop(p)
            finally:
                self._keep_recents = False
        self._go_home()

    def _go_home(self) -> None:
        self.state.recents = False
        self.model.go_home()

    # --- snapshots ----------------------------------------------------------------------------------
    def snapshot(self) -> WindowState:
        return copy.deepcopy(self.state)

    def restore(self, snap: WindowState | dict[str, Any] | None) -> None:
        """Back to a snapshot's window state (one saved as a dict, before WindowState, gives its known fields)."""
        if isinstance(snap, WindowState):
            self.state = copy.deepcopy(snap)
        else:
            known = {f.name for f in dataclasses.fields(WindowState)}
            self.state = WindowState(**{k: copy.deepcopy(v) for k, v in (snap or {}).items() if k in known})
