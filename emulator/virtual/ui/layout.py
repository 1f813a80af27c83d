"""Layout: the per-frame build context (dp -> px, locale, theme, app state) and scrolling containers.

Bounds are absolute display pixels. Screens are built top-down: fixed bars take their height, the rest goes to
a `vlist` (a RecyclerView-like container) that only instantiates the rows intersecting its viewport, keeps
its scroll offset in `app_ui[pkg]["scroll"][key]`, and clips its children (bounds in the XML are the visible
part, as uiautomator reports them; drawing uses the unclipped box kept in `style["draw"]`).
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from .textlayout import LINE_SPACING, font_scale
from .theme import Theme
from .view import Behaviour, Bounds, View, int_bounds

if TYPE_CHECKING:  # pragma: no cover
    from ..records import ActivityRecord
    from .host import Device, Screen

RECYCLER = "androidx.recyclerview.widget.RecyclerView"
SCROLLVIEW = "android.widget.ScrollView"
HSCROLLVIEW = "android.widget.HorizontalScrollView"


@dataclass
class FieldBinding(Behaviour):
    """How the window manager reads and writes an editable field, and what ENTER does in it (never drawn)."""

    get: Callable[[], str]
    set: Callable[[str], None]
    multiline: bool = False
    action: Callable[[], Any] | None = None  # ENTER / the keyboard's action key
    action_kind: str = "done"  # "search" | "send" | "done" | "next" | "go"
    max_length: int = 10_000


@dataclass
class Ctx:
    """Everything a screen builder needs for one frame of one app."""

    model: Device
    mgr: Screen
    pkg: str
    record: ActivityRecord | None
    theme: Theme
    area: Bounds  # where the app's content goes (between the system bars, above the keyboard)
    screen: tuple[int, int]
    focus: str | None = None  # key of the focused field of this app, if any
    keyboard: bool = False

    # --- units (read once per frame: a frame is built at one density and font scale) -------------------------
    @functools.cached_property
    def scale(self) -> float:
        return self.model.scale

    @functools.cached_property
    def _sp_scale(self) -> float:
        return self.scale * font_scale(self.model.settings)

    def dp(self, v: float) -> int:
        return int(round(v * self.scale))

    def sp(self, v: float) -> int:
        return max(6, int(round(v * self._sp_scale)))

    def line_h(self, size: float, lines: int = 1) -> int:
        """The height in px of `lines` lines of `size` sp text, as the renderer spaces them: a TextView's
        wrap_content height, which grows with the font scale where the dp boxes around it do not."""
        return int(self.sp(size) * LINE_SPACING) * lines

    def text_h(self, size: float) -> int:
        """The least height in px one line of `size` sp text shows whole in (its glyphs, in a Latin or a CJK
        face): a box sized in dp around sp text has to grow to this as the font scale grows."""
        return int(self.sp(size) * 1.2)

    @property
    def width_dp(self) -> float:
        return (self.area[2] - self.area[0]) / self.scale

    # --- locale ----------------------------------------------------------------------------------
    @property
    def locale(self) -> str:
        return self.model.locale

    @property
    def zh(self) -> bool:
        return self.model.locale == "zh"

    def tr(self, en: str, zh: str) -> str:
        return zh if self.model.locale == "zh" else en

    # --- state -----------------------------------------------------------------------------------
    @property
    def data(self) -> dict[str, Any]:
        app = self.mgr.apps.get(self.pkg)
        return app.data(self.model) if app else self.model.app_data.setdefault(self.pkg, {})

    @property
    def ui(self) -> dict[str, Any]:
        return self.model.app_ui.setdefault(self.pkg, {})

    @property
    def activity(self) -> str:
        return self.record.activity if self.record else ""

    @property
    def extras(self) -> dict[str, Any]:
        return self.record.extras if self.record else {}

    def field_value(self, key: str, default: str = "") -> str:
        return self.ui.setdefault("fields", {}).get(key, default)

    def set_field(self, key: str, value: str) -> None:
        self.ui.setdefault("fields", {})[key] = value

    def rid(self, name: str) -> str:
        return name if ":" in name else f"{self.pkg}:id/{name}"

    # --- navigation ------------------------------------------------------------------------------
    def push(self, activity: str, extras: dict[str, Any] | None = None, focus: str | None = None) -> None:
        self.model.push_activity(activity, extras)
        if focus:
            self.mgr.set_focus(self.pkg, focus)

    def finish(self) -> None:
        self.model.finish_activity()

    def start(self, package: str, activity: str | None = None, extras: dict[str, Any] | None = None) -> None:
        self.model.start_activity(package, activity, extras)

    def set_focus(self, key: str | None, keyboard: bool = True) -> None:
        self.mgr.set_focus(self.pkg if key else None, key, keyboard)

    def hide_keyboard(self) -> None:
        self.mgr.hide_keyboard()

    def show_dialog(self, spec: dict[str, Any]) -> None:
        self.ui["dialog"] = spec
        self.mgr.hide_keyboard()

    def dismiss_dialog(self) -> None:
        self.ui.pop("dialog", None)

    def toast(self, text: str) -> None:
        self.mgr.toast(text)


# --- views ---------------------------------------------------------------------------------------


def V(ctx: Ctx, cls: str, bounds: Bounds, rid: str = "", **kw: Any) -> View:
    """A view of the app being built (package and resource-id filled in)."""
    style = kw.pop("style", None) or {}
    v = View(
        cls=cls,
        bounds=int_bounds(bounds),
        package=kw.pop("package", ctx.pkg),
        resource_id=ctx.rid(rid) if rid else "",
        **kw,
    )
    v.style.update(style)
    return v


def intersect(a: Bounds, b: Bounds) -> Bounds:
    l, t = max(a[0], b[0]), max(a[1], b[1])
    r, btm = min(a[2], b[2]), min(a[3], b[3])
    if r <= l or btm <= t:
        return (l, t, l, t)
    return (l, t, r, btm)


def clip_tree(v: View, box: Bounds) -> bool:
    """Clip `v` and its subtree to `box`; drop children that end up invisible. False if `v` is invisible."""
    nb = intersect(v.bounds, box)
    if nb[2] <= nb[0] or nb[3] <= nb[1]:
        if v.bounds[2] > v.bounds[0] and v.bounds[3] > v.bounds[1]:
            return False
        nb = (min(max(v.bounds[0], box[0]), box[2]), min(max(v.bounds[1], box[1]), box[3])) * 2
    if nb != v.bounds:
        v.style.setdefault("draw", v.bounds)
        v.bounds = nb
    v.children = [c for c in v.children if clip_tree(c, nb if not v.style.get("noclip") else box)]
    return True


@dataclass
class Row:
    """One item of a `vlist`: its height in px and a builder (left, top, width) -> View."""

    height: int
    build: Callable[[int, int, int], View | list[View] | None]
    keys: tuple[str, ...] = ()  # field keys inside (the list scrolls a focused field into view)


def _scroll_state(ctx: Ctx) -> dict[str, int]:
    return ctx.ui.setdefault("scroll", {})


def vlist(
    ctx: Ctx,
    key: str,
    bounds: Bounds,
    rows: Iterable[Row],
    rid: str = "",
    cls: str = RECYCLER,
    pad_top: int = 0,
    pad_bottom: int = 0,
    bg: Any = None,
    desc: str = "",
    on_overscroll: Callable[[int, int], bool] | None = None,
) -> View:
    """A vertically scrolling container showing the rows that intersect `bounds`."""
    rows = list(rows)
    l, t, r, b = bounds
    view_h = max(0, b - t)
    total = pad_top + sum(rw.height for rw in rows) + pad_bottom
    max_off = max(0, total - view_h)
    st = _scroll_state(ctx)
    off = min(max(0, int(st.get(key, 0))), max_off)
    # keep the focused field on screen (adjustResize + requestRectangleOnScreen)
    if ctx.focus:
        y = pad_top
        for rw in rows:
            if ctx.focus in rw.keys:
                if y < off:
                    off = y
                elif y + rw.height > off + view_h:
                    off = min(max_off, y + rw.height - view_h)
                break
            y += rw.height
    st[key] = off
    style = {"clip": True, "scroll": "v"}
    if bg is not None:
        style["bg"] = bg
    container = V(ctx, cls, bounds, rid, scrollable=max_off > 0, desc=desc, style=style)

    def on_scroll(dx: int, dy: int) -> bool:
        if abs(dx) > abs(dy):
            return False
        cur = int(_scroll_state(ctx).get(key, 0))
        new = min(max(0, cur - int(dy)), max_off)
        if new == cur:
            return bool(on_overscroll and on_overscroll(dx, dy))
        _scroll_state(ctx)[key] = new
        return True

    container.on_scroll = on_scroll
    y = t + pad_top - off
    for rw in rows:
        if y + rw.height > t and y < b:
            built = rw.build(l, y, r - l)
            for child in built if isinstance(built, list) else [built] if built is not None else []:
                container.children.append(child)
        y += rw.height
    container.children = [c for c in container.children if clip_tree(c, bounds)]
    return container


def hlist(
    ctx: Ctx,
    key: str,
    bounds: Bounds,
    items: list[tuple[int, Callable[[int, int, int], View]]],
    rid: str = "",
    cls: str = RECYCLER,
    pad: int = 0,
) -> View:
    """A horizontally scrolling row; items are (width px, builder (left, top, height) -> View)."""
    l, t, r, b = bounds
    view_w = r - l
    total = 2 * pad + sum(w for w, _ in items)
    max_off = max(0, total - view_w)
    st = _scroll_state(ctx)
    off = min(max(0, int(st.get(key, 0))), max_off)
    st[key] = off
    container = V(ctx, cls, bounds, rid, scrollable=max_off > 0, style={"clip": True, "scroll": "h"})

    def on_scroll(dx: int, dy: int) -> bool:
        if abs(dx) <= abs(dy):
            return False
        cur = int(_scroll_state(ctx).get(key, 0))
        _scroll_state(ctx)[key] = min(max(0, cur - int(dx)), max_off)
        return True

    container.on_scroll = on_scroll
    x = l + pad - off
    for w, build in items:
        if x + w > l and x < r:
            container.children.append(build(x, t, b - t))
        x += w
    container.children = [c for c in container.children if clip_tree(c, bounds)]
    return container


def grid_rows(count: int, columns: int, row_h: int, cell: Callable[[int, int, int, int, int], View]) -> list[Row]:
    """Rows of a grid: `cell(index, left, top, width, height)` builds each cell."""
    out = []
    for start in range(0, count, columns):

        def build(x: int, y: int, w: int, start: int = start) -> list[View]:
            cw = w // columns
            return [cell(i, x + (i - start) * cw, y, cw, row_h) for i in range(start, min(count, start + columns))]

        out.append(Row(row_h, build))
    return out


def spacer(h: int) -> Row:
    return Row(h, lambda x, y, w: None)
