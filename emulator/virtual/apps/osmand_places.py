"""OsmAnd's favourites and markers screens: the favourite editor (FavoritePointEditorFragment: Name, Address,
Description, the group chosen among the existing ones - Favorites is the default - and Save / Cancel, Delete for
one that exists), Map markers (the active markers in their order, each one passed with its flag button), and My
places (the favourites by group, the saved tracks)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..ui import widgets as w
from ..ui.fonts import text_width
from ..ui.layout import Ctx, Row, V, hlist
from ..ui.view import View
from .base import page
from .osmand_data import (
    Favorite,
    active_markers,
    add_favorite,
    delete_favorite,
    favorite_at,
    marker_name,
    marker_to_history,
    read_favorites,
    tr,
    track_names,
)
from .osmand_map import MARKER
from .osmand_ui import ORANGE, ORANGE_TEXT, Click, bar, bottom_buttons, map_screen, now_ms, pop, push, show_on_map, top

NAME, ADDRESS, DESC = "fav_name", "fav_address", "fav_desc"


def group_label(ctx: Ctx, g: str) -> str:
    return g or tr(ctx, "Favorites")


def edit_favorite(ctx: Ctx, p: dict[str, Any]) -> None:
    """The editor for the point: its favourite's fields when it is one, else a new favourite named after it."""
    fav = favorite_at(ctx.model.fs, float(p["lat"]), float(p["lon"]))
    ctx.set_field(NAME, fav.name if fav else str(p["name"]))
    ctx.set_field(ADDRESS, fav.address if fav else ("" if p["kind"] == "Location" else f"{p['name']}, Liechtenstein"))
    ctx.set_field(DESC, fav.description if fav else "")
    ctx.ui["fav_group"] = fav.group if fav else ""
    old = None if fav is None else {"name": fav.name, "lat": fav.lat, "lon": fav.lon}
    push(ctx, "fav_edit", point=dict(p), old=old)


def _save(ctx: Ctx) -> None:
    scr = top(ctx)
    p, old = scr["point"], scr.get("old")
    name = ctx.field_value(NAME).strip()
    if not name:
        ctx.toast(tr(ctx, "Name"))
        return
    replace = None if old is None else Favorite(old["name"], old["lat"], old["lon"])
    fav = Favorite(
        name,
        float(p["lat"]),
        float(p["lon"]),
        str(ctx.ui.get("fav_group", "")),
        ctx.field_value(DESC).strip(),
        ctx.field_value(ADDRESS).strip(),
        ctx.model.now(),
    )
    add_favorite(ctx.model.fs, fav, replace)
    pop(ctx)
    menu = map_screen(ctx).get("menu")
    if menu is not None:
        menu["name"] = name
    ctx.toast(tr(ctx, "Favorite saved"))


def _delete(ctx: Ctx) -> None:
    old = top(ctx).get("old")
    if old:
        delete_favorite(ctx.model.fs, Favorite(old["name"], old["lat"], old["lon"]))
    pop(ctx)
    map_screen(ctx).pop("menu", None)


def editor(ctx: Ctx) -> list[View]:
    scr = top(ctx)
    l, t, r, b = ctx.area
    title = tr(ctx, "Edit favorite" if scr.get("old") else "Add favorite")
    header = bar(ctx, title, lambda: pop(ctx))
    rows: list[Row] = [
        w.field_row(ctx, NAME, ctx.field_value(NAME), tr(ctx, "Name"), lambda v: ctx.set_field(NAME, v), "name_edit"),
        w.field_row(
            ctx,
            ADDRESS,
            ctx.field_value(ADDRESS),
            tr(ctx, "Address"),
            lambda v: ctx.set_field(ADDRESS, v),
            "address_edit",
        ),
        w.field_row(
            ctx,
            DESC,
            ctx.field_value(DESC),
            tr(ctx, "Description"),
            lambda v: ctx.set_field(DESC, v),
            "description_edit",
            multiline=True,
            height_dp=80,
        ),
        w.text_row(ctx, tr(ctx, "Select group"), size=14, color=ctx.theme.text2, height_dp=40),
    ]
    groups = read_favorites(ctx.model.fs).groups
    current = str(ctx.ui.get("fav_group", ""))
    chip_h = ctx.dp(40)

    def chip(g: str, cw: int) -> Callable[[int, int, int], View]:
        label = group_label(ctx, g)
        return lambda cx, cy, ch: w.chip(
            ctx, (cx, cy, cx + cw - ctx.dp(8), cy + ch), label, g == current, lambda: ctx.ui.update(fav_group=g)
        )

    def chips(x: int, y: int, wd: int) -> View:
        items = []
        for g in groups:
            cw = int(text_width(group_label(ctx, g), ctx.sp(14))) + ctx.dp(32)
            items.append((cw, chip(g, cw)))
        return hlist(ctx, "groups", (x, y, x + wd, y + chip_h), items, "group_recycler_view", pad=ctx.dp(16))

    rows.append(Row(chip_h + ctx.dp(16), chips))
    btn_h = max(ctx.dp(44), ctx.text_h(14) + ctx.dp(16)) + ctx.dp(24)
    buttons: list[tuple[str, Click, str, str]] = [(tr(ctx, "Cancel"), lambda: pop(ctx), "dismiss_button", "outlined")]
    if scr.get("old"):
        buttons.insert(0, (tr(ctx, "Delete"), lambda: _delete(ctx), "delete_button", "text"))
    buttons.append((tr(ctx, "Save"), lambda: _save(ctx), "right_bottom_button", "filled"))
    footer = [V(ctx, w.LINEAR, (l, b - btn_h, r, b), "buttons_container", style={"bg": ctx.theme.surface})]
    footer[0].children.extend(bottom_buttons(ctx, b - btn_h + ctx.dp(12), buttons))
    return page(
        ctx,
        [header],
        rows,
        key="fav_edit",
        rid="editor_scroll_view",
        cls="android.widget.ScrollView",
        footer=footer,
        footer_h=btn_h,
    )


# --- Map markers and My places ------------------------------------------------------------------------------------
def _row(ctx: Ctx, title: str, sub: str, glyph: str, color: Any, cb: Click, x: int, y: int, wd: int) -> View:
    """A list row: its icon, title and description."""
    h = row_height(ctx)
    row = V(ctx, w.LINEAR, (x, y, x + wd, y + h), clickable=cb is not None, focusable=cb is not None, on_click=cb)
    isz = ctx.dp(24)
    row.children.append(
        w.icon(ctx, (x + ctx.dp(16), y + (h - isz) // 2, x + ctx.dp(40), y + (h + isz) // 2), glyph, color)
    )
    ty = y + ctx.dp(12)
    right = x + wd - ctx.dp(64)
    row.children.append(w.text(ctx, (x + ctx.dp(64), ty, right, ty + ctx.line_h(16)), title, "title", size=16))
    sy = ty + ctx.line_h(16)
    row.children.append(
        w.text(
            ctx, (x + ctx.dp(64), sy, right, sy + ctx.line_h(13)), sub, "description", size=13, color=ctx.theme.text2
        )
    )
    return row


def shower(ctx: Ctx, p: dict[str, Any]) -> Click:
    return lambda: show_on_map(ctx, p)


def row_height(ctx: Ctx) -> int:
    return ctx.line_h(16) + ctx.line_h(13) + ctx.dp(24)


def list_row(ctx: Ctx, title: str, sub: str, glyph: str, color: Any, cb: Click) -> Row:
    return Row(row_height(ctx), lambda x, y, wd: _row(ctx, title, sub, glyph, color, cb, x, y, wd))


def markers(ctx: Ctx) -> list[View]:
    header = bar(ctx, tr(ctx, "Map markers"), lambda: pop(ctx))
    rows: list[Row] = []
    fs = ctx.model.fs
    for m in active_markers(fs):
        name = marker_name(m)
        p = {"name": name, "kind": "Marker", "lat": m["marker_lat"], "lon": m["marker_lon"]}
        sub = f"{m['marker_lat']:.5f}, {m['marker_lon']:.5f}"
        h = row_height(ctx)

        def build(
            x: int, y: int, wd: int, p: dict[str, Any] = p, mid: str = str(m["marker_id"]), s: str = sub, h: int = h
        ) -> list[View]:
            isz = ctx.dp(48)
            flag = w.icon_button(
                ctx,
                (x + wd - ctx.dp(8) - isz, y + (h - isz) // 2, x + wd - ctx.dp(8), y + (h + isz) // 2),
                "check",
                tr(ctx, "Passed"),
                lambda: marker_to_history(fs, mid, now_ms(ctx)),
                "marker_check",
            )
            return [_row(ctx, str(p["name"]), s, "location", MARKER, lambda: show_on_map(ctx, p), x, y, wd), flag]

        rows.append(Row(h, build))
    if not rows:
        rows.append(w.text_row(ctx, tr(ctx, "No results"), "empty_view", color=ctx.theme.text2, height_dp=72))
    return page(ctx, [header], rows, key="markers", rid="list")


def my_places(ctx: Ctx) -> list[View]:
    scr = top(ctx)
    tab = str(scr.get("tab", "favorites"))
    l, t, r, b = ctx.area
    header = bar(ctx, tr(ctx, "My places"), lambda: pop(ctx))
    tabs = w.tabs(
        ctx,
        (l, header.bounds[3], r, header.bounds[3] + ctx.dp(48)),
        [
            (tr(ctx, "Favorites"), tab == "favorites", lambda: scr.update(tab="favorites"), "tab_favorites"),
            (tr(ctx, "Tracks"), tab == "tracks", lambda: scr.update(tab="tracks"), "tab_tracks"),
        ],
    )
    rows: list[Row] = []
    if tab == "tracks":
        for name in track_names(ctx.model.fs):
            rows.append(list_row(ctx, name, "GPX", "storage", ORANGE, None))
    else:
        favs = read_favorites(ctx.model.fs)
        for g in favs.groups:
            pts = [f for f in favs.points if f.group == g]
            rows.append(
                w.text_row(
                    ctx,
                    f"{group_label(ctx, g)} ({len(pts)})",
                    "group_name",
                    size=14,
                    bold=True,
                    color=ORANGE_TEXT if not ctx.theme.dark else ORANGE,
                    height_dp=44,
                )
            )
            for f in pts:
                p = {"name": f.name, "kind": "Favorite", "lat": f.lat, "lon": f.lon}
                rows.append(
                    list_row(
                        ctx,
                        f.name,
                        f.address or f"{f.lat:.5f}, {f.lon:.5f}",
                        "star",
                        (238, 204, 34),
                        shower(ctx, p),
                    )
                )
    return page(ctx, [header, tabs], rows, key=f"places_{tab}", rid="list")


def open_screen(ctx: Ctx, name: str) -> None:
    push(ctx, name)
