"""OsmAnd's screens' common parts: the app's screen stack (one activity, MapActivity, with its fragments: the
map, search, the favourite editor, the route details, My places, Map markers), the route being planned, showing a
point on the map, and the bottom sheets and bars its fragments share."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..ui import widgets as w
from ..ui.layout import Ctx, Row, V, vlist
from ..ui.view import View
from . import osmand_map
from .osmand_data import tr

ORANGE = (255, 136, 0)  # OsmAnd's accent
ORANGE_TEXT = (200, 84, 0)  # the accent dark enough for text on a light surface
Click = Callable[[], Any] | None


# --- the screen stack and the planned route --------------------------------------------------------------------
def stack(ctx: Ctx) -> list[dict[str, Any]]:
    st: list[dict[str, Any]] = ctx.ui.setdefault("stack", [{"name": "map"}])
    return st


def top(ctx: Ctx) -> dict[str, Any]:
    return stack(ctx)[-1]


def push(ctx: Ctx, name: str, focus: str | None = None, **extra: Any) -> None:
    stack(ctx).append({"name": name, **extra})
    ctx.dismiss_dialog()
    ctx.set_focus(focus)


def pop(ctx: Ctx) -> None:
    st = stack(ctx)
    if len(st) > 1:
        st.pop()
    ctx.dismiss_dialog()
    ctx.set_focus(None)


def map_screen(ctx: Ctx) -> dict[str, Any]:
    return stack(ctx)[0]


def show_on_map(ctx: Ctx, p: dict[str, Any], zoom: int = 14) -> None:
    """The map with the point's context menu, centred on it (a search result, a favourite, a marker chosen)."""
    del stack(ctx)[1:]
    ctx.ui.pop("plan", None)
    map_screen(ctx)["menu"] = dict(p)
    osmand_map.move_to(ctx, float(p["lat"]), float(p["lon"]), max(zoom, int(osmand_map.state(ctx)["zoom"])))
    ctx.dismiss_dialog()
    ctx.set_focus(None)


def plan(ctx: Ctx) -> dict[str, Any] | None:
    """The route being planned: start (None: my position), intermediate points, destination (None: not chosen)."""
    p: dict[str, Any] | None = ctx.ui.get("plan")
    return p


def start_plan(ctx: Ctx, start: dict[str, Any] | None, dest: dict[str, Any] | None) -> None:
    ctx.ui["plan"] = {"start": start, "via": [], "dest": dest}
    del stack(ctx)[1:]
    map_screen(ctx).pop("menu", None)
    ctx.dismiss_dialog()


def now_ms(ctx: Ctx) -> int:
    return int(ctx.model.now() * 1000)


# --- bars and sheets ----------------------------------------------------------------------------------------------
def bar(ctx: Ctx, title: str, on_back: Click, actions: list[tuple[str, str, Click, str]] | None = None) -> View:
    """A fragment's toolbar: Navigate up, the title, its action buttons."""
    return w.toolbar(
        ctx, title, ("back", ctx.tr("Navigate up", "向上导航"), on_back), actions, bg=ctx.theme.surface, height_dp=56
    )


def sheet_item(ctx: Ctx, label: str, glyph: str, cb: Click, rid: str = "", desc: str = "") -> Row:
    h = max(ctx.dp(56), ctx.line_h(16) + ctx.dp(16))

    def build(x: int, y: int, wd: int) -> View:
        row = V(ctx, w.LINEAR, (x, y, x + wd, y + h), rid, clickable=True, focusable=True, on_click=cb, desc=desc)
        isz = ctx.dp(24)
        iy = y + (h - isz) // 2
        row.children.append(w.icon(ctx, (x + ctx.dp(16), iy, x + ctx.dp(16) + isz, iy + isz), glyph, ORANGE))
        row.children.append(w.text(ctx, (x + ctx.dp(72), y, x + wd - ctx.dp(16), y + h), label, "title", size=16))
        return row

    return Row(h, build)


def bottom_sheet(ctx: Ctx, title: str, rows: list[Row], close_label: str = "") -> View:
    """A modal bottom sheet (MenuBottomSheetDialogFragment): its title, its items, a Close button; a tap outside
    or Close dismisses it."""
    l, t, r, b = ctx.mgr.dialog_area()
    th = ctx.theme
    title_h = ctx.dp(56) if title else 0
    btn_h = ctx.dp(64)
    body_h = sum(rw.height for rw in rows)
    h = min(b - t - ctx.dp(48), title_h + body_h + btn_h)
    y0 = b - h
    root = V(
        ctx,
        w.FRAME,
        (l, y0, r, b),
        "design_bottom_sheet",
        style={"bg": th.surface, "modal": True, "dim": True, "on_cancel": ctx.dismiss_dialog},
    )
    if title:
        root.children.append(
            w.text(ctx, (l + ctx.dp(16), y0, r - ctx.dp(16), y0 + title_h), title, "title", size=18, bold=True)
        )
    root.children.append(vlist(ctx, "sheet", (l, y0 + title_h, r, b - btn_h), rows, cls=w.LINEAR))
    label = close_label or tr(ctx, "Close")
    root.children.append(
        w.button(
            ctx,
            (l + ctx.dp(16), b - btn_h + ctx.dp(10), r - ctx.dp(16), b - ctx.dp(10)),
            label,
            ctx.dismiss_dialog,
            "dismiss_button",
            kind="tonal",
        )
    )
    return root


def bottom_buttons(ctx: Ctx, y: int, buttons: list[tuple[str, Click, str, str]]) -> list[View]:
    """A row of buttons across the bottom (label, click, rid, kind), the last one the main action."""
    l, _t, r, _b = ctx.area
    n = len(buttons)
    gap = ctx.dp(16)
    bw = (r - l - gap * (n + 1)) // max(1, n)
    h = max(ctx.dp(44), ctx.text_h(14) + ctx.dp(16))
    out = []
    for i, (label, cb, rid, kind) in enumerate(buttons):
        x = l + gap + i * (bw + gap)
        out.append(w.button(ctx, (x, y, x + bw, y + h), label, cb, rid, kind=kind, enabled=cb is not None))
    return out
