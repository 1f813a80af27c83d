"""OsmAnd's quick search (QuickSearchDialogFragment): the search field, then the places of the offline map whose
names match what is typed (a typed "lat, lon" is a location) and the favourites whose names do. A result tapped is
shown on the map with its context menu, or - when the search was opened to choose a route point (start,
destination, intermediate) - becomes that point of the route being planned."""

from __future__ import annotations

from typing import Any

from ..ui import widgets as w
from ..ui.layout import Ctx, Row, V
from ..ui.view import View
from .base import page
from .osmand_data import COUNTRY, fold, read_favorites, search, tr
from .osmand_ui import bar, plan, pop, show_on_map, top

FIELD = "search"


def results(ctx: Ctx, query: str) -> list[dict[str, Any]]:
    found = search(query)
    words = [x for x in fold(query).replace(",", " ").split() if x]
    if words and not (found and found[0]["kind"] == "Location"):
        for f in read_favorites(ctx.model.fs).points:
            if all(any(h.startswith(x) for h in fold(f.name).split()) for x in words):
                found.append({"name": f.name, "kind": "Favorite", "lat": f.lat, "lon": f.lon})
    return found


def choose(ctx: Ctx, p: dict[str, Any]) -> None:
    """A result tapped: the route point the search was opened for, else the point shown on the map."""
    mode = str(top(ctx).get("mode", ""))
    ctx.set_field(FIELD, "")
    pl = plan(ctx)
    if mode and pl is not None:
        point = {k: p[k] for k in ("name", "kind", "lat", "lon")}
        if mode == "start":
            pl["start"] = point
        elif mode == "dest":
            pl["dest"] = point
        else:
            pl["via"].append(point)
        pop(ctx)
        return
    show_on_map(ctx, p)


def subtitle(ctx: Ctx, p: dict[str, Any]) -> str:
    kind = str(p["kind"])
    if kind == "Location":
        return tr(ctx, "Location")
    if kind == "Favorite":
        return tr(ctx, "Favorites")
    return f"{kind} • {COUNTRY}"


def screen(ctx: Ctx) -> list[View]:
    l, t, r, b = ctx.area
    query = ctx.field_value(FIELD)
    header = bar(ctx, "", lambda: pop(ctx))
    isz = ctx.dp(48)
    fx0, fx1 = l + ctx.dp(60), r - ctx.dp(8) - (isz if query else 0)
    y0 = t + (ctx.dp(56) - ctx.dp(44)) // 2
    header.children.append(
        w.edit(
            ctx,
            (fx0, y0, fx1, y0 + ctx.dp(44)),
            FIELD,
            query,
            tr(ctx, "Search"),
            lambda v: ctx.set_field(FIELD, v),
            "searchEditText",
            action=ctx.hide_keyboard,
            action_kind="search",
            box="none",
        )
    )
    if query:
        header.children.append(
            w.icon_button(
                ctx,
                (r - ctx.dp(4) - isz, t + ctx.dp(4), r - ctx.dp(4), t + ctx.dp(4) + isz),
                "close",
                tr(ctx, "Clear"),
                lambda: ctx.set_field(FIELD, ""),
                "clearButton",
            )
        )
    rows: list[Row] = []
    found = results(ctx, query)
    h = ctx.line_h(16) + ctx.line_h(13) + ctx.dp(20)
    for p in found:

        def build(x: int, y: int, wd: int, p: dict[str, Any] = p) -> View:
            row = V(
                ctx, w.LINEAR, (x, y, x + wd, y + h), clickable=True, focusable=True, on_click=lambda: choose(ctx, p)
            )
            glyph = "star" if p["kind"] == "Favorite" else "location"
            isz2 = ctx.dp(24)
            row.children.append(
                w.icon(
                    ctx,
                    (x + ctx.dp(16), y + (h - isz2) // 2, x + ctx.dp(16) + isz2, y + (h + isz2) // 2),
                    glyph,
                    ctx.theme.text2,
                )
            )
            ty = y + ctx.dp(10)
            row.children.append(
                w.text(
                    ctx,
                    (x + ctx.dp(64), ty, x + wd - ctx.dp(16), ty + ctx.line_h(16)),
                    str(p["name"]),
                    "title",
                    size=16,
                )
            )
            sy = ty + ctx.line_h(16)
            row.children.append(
                w.text(
                    ctx,
                    (x + ctx.dp(64), sy, x + wd - ctx.dp(16), sy + ctx.line_h(13)),
                    subtitle(ctx, p),
                    "subtitle",
                    size=13,
                    color=ctx.theme.text2,
                )
            )
            row.children.append(
                V(ctx, "android.view.View", (x + ctx.dp(64), y + h - 1, x + wd, y + h), style={"bg": ctx.theme.divider})
            )
            return row

        rows.append(Row(h, build))
    if query.strip() and not found:
        rows.append(w.text_row(ctx, tr(ctx, "No results"), "empty_view", color=ctx.theme.text2, height_dp=72))
    return page(ctx, [header], rows, key="search", rid="android:id/list")
