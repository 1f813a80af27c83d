"""OsmAnd's route planning (MapRouteInfoMenu over the map): the starting point (my position unless one is chosen),
the intermediate points in their order, the destination; each chosen in the Add point sheet (AddPointBottomSheet-
Dialog: Search, My location for the start, the favourites and the map markers). With a start and a destination the
route is computed over the offline map (a line of points through every stop, in order) and drawn; its Details
(ChooseRouteFragment) lists the legs, and "Save as new track" writes it to `tracks/<name>.gpx`
(SaveAsNewTrackBottomSheetDialogFragment: the file name, the date by default)."""

from __future__ import annotations

import datetime as dt
from typing import Any

from ..clock import zone_named
from ..ui import widgets as w
from ..ui.layout import Ctx, Row, V
from ..ui.view import View
from .base import page
from .osmand_data import (
    active_markers,
    distance_m,
    format_distance,
    marker_name,
    read_favorites,
    route_points,
    save_track,
    tr,
    track_names,
)
from .osmand_ui import ORANGE, Click, bar, bottom_buttons, bottom_sheet, plan, pop, push, sheet_item, stack

KINDS = {"start": "Add starting point", "dest": "Add destination", "via": "Add intermediate point"}
TRACK_FIELD = "track_name"


def stops(pl: dict[str, Any]) -> list[tuple[float, float]] | None:
    """The route's stops in order, or None while the start (my position, unknown) or destination is missing."""
    if pl.get("start") is None or pl.get("dest") is None:
        return None
    pts = [pl["start"], *pl["via"], pl["dest"]]
    return [(float(p["lat"]), float(p["lon"])) for p in pts]


def route(ctx: Ctx) -> list[tuple[float, float]]:
    pl = plan(ctx)
    s = stops(pl) if pl is not None else None
    return route_points(s) if s else []


def summary(pts: list[tuple[float, float]]) -> str:
    m = sum(distance_m(a, b) for a, b in zip(pts, pts[1:], strict=False))
    minutes = max(1, int(round(m / 1000 / 50 * 60)))  # at 50 km/h
    return (
        f"{format_distance(m)} • {minutes // 60} h {minutes % 60} min"
        if minutes >= 60
        else (f"{format_distance(m)} • {minutes} min")
    )


def close(ctx: Ctx) -> None:
    ctx.ui.pop("plan", None)
    ctx.dismiss_dialog()


def set_point(ctx: Ctx, kind: str, p: dict[str, Any] | None) -> None:
    pl = plan(ctx)
    if pl is None:
        return
    point = None if p is None else {k: p[k] for k in ("name", "kind", "lat", "lon")}
    if kind == "start":
        pl["start"] = point
    elif kind == "dest":
        pl["dest"] = point
    elif point is not None:
        pl["via"].append(point)
    ctx.dismiss_dialog()


# --- the route menu over the map ----------------------------------------------------------------------------------
def menu(ctx: Ctx) -> list[View]:
    """The route info menu across the bottom of the map: From, the intermediate points, To, the route's length and
    its buttons."""
    pl = plan(ctx)
    assert pl is not None
    l, t, r, b = ctx.area
    th = ctx.theme
    row_h = max(ctx.dp(56), ctx.line_h(12) + ctx.line_h(16) + ctx.dp(12))
    pts = route(ctx)
    rows: list[tuple[str, str, Any, str, str]] = [
        (
            tr(ctx, "Starting point"),
            pl["start"]["name"] if pl["start"] else tr(ctx, "My position"),
            "start",
            "FromLayout",
            "location",
        ),
    ]
    for i, v in enumerate(pl["via"]):
        rows.append((tr(ctx, "Intermediate point"), str(v["name"]), f"via{i}", "ViaLayout", "location"))
    rows.append(
        (
            tr(ctx, "Destination"),
            pl["dest"]["name"] if pl["dest"] else tr(ctx, "Choose destination"),
            "dest",
            "ToLayout",
            "location",
        )
    )
    btn_h = max(ctx.dp(44), ctx.text_h(14) + ctx.dp(16))
    info_h = ctx.line_h(16) + ctx.dp(16)
    h = len(rows) * row_h + info_h + btn_h + ctx.dp(40)
    y0 = b - h
    panel = V(ctx, w.LINEAR, (l, y0, r, b), "route_menu_top_shadow_all", style={"bg": th.surface, "shadow": True})
    y = y0 + ctx.dp(8)
    isz = ctx.dp(48)
    for label, value, kind, rid, glyph in rows:
        editable = kind in ("start", "dest")

        def pick(kind: str = kind) -> None:
            ctx.show_dialog({"id": "add_point", "kind": kind})

        row = V(
            ctx,
            w.LINEAR,
            (l, y, r - (isz if kind == "dest" else 0), y + row_h),
            rid,
            clickable=editable,
            focusable=editable,
            on_click=pick if editable else None,
        )
        color = ORANGE if kind == "dest" else (66, 133, 244)
        row.children.append(w.icon(ctx, (l + ctx.dp(16), y + ctx.dp(16), l + ctx.dp(40), y + ctx.dp(40)), glyph, color))
        ty = y + ctx.dp(6)
        row.children.append(
            w.text(ctx, (l + ctx.dp(56), ty, r - isz, ty + ctx.line_h(12)), label, size=12, color=th.text2)
        )
        row.children.append(
            w.text(
                ctx,
                (l + ctx.dp(56), ty + ctx.line_h(12), r - isz - ctx.dp(8), ty + ctx.line_h(12) + ctx.line_h(16)),
                value,
                "title" if kind in ("start", "dest") else "",
                size=16,
                style={"ellipsize": True},
            )
        )
        panel.children.append(row)
        if kind == "dest":
            panel.children.append(
                w.icon_button(
                    ctx,
                    (r - isz - ctx.dp(4), y + (row_h - isz) // 2, r - ctx.dp(4), y + (row_h + isz) // 2),
                    "add",
                    tr(ctx, "Add intermediate point"),
                    lambda: pick("via"),
                    "ViaButton",
                )
            )
        y += row_h
    if pts:
        info = summary(pts)
    elif pl["start"] is None:
        info = tr(ctx, "Position not yet known")
    else:
        info = tr(ctx, "Choose destination")
    panel.children.append(
        w.text(ctx, (l + ctx.dp(16), y, r - ctx.dp(16), y + info_h), info, "route_info", size=16, bold=bool(pts))
    )
    y += info_h + ctx.dp(8)
    buttons: list[tuple[str, Click, str, str]] = [
        (tr(ctx, "Cancel"), lambda: close(ctx), "dismiss_button", "outlined"),
        (tr(ctx, "Details"), (lambda: push(ctx, "details")) if pts else None, "details_button", "outlined"),
        (tr(ctx, "Start"), (lambda: close(ctx)) if pts else None, "start_button", "filled"),
    ]
    panel.children.extend(bottom_buttons(ctx, y, buttons))
    return [panel]


def setter(ctx: Ctx, kind: str, p: dict[str, Any]) -> Click:
    return lambda: set_point(ctx, kind, p)


def dialog_add_point(ctx: Ctx, spec: dict[str, Any]) -> View:
    """The Add point sheet: Search, my location (for the start), the favourites and the markers."""
    kind = str(spec.get("kind", "dest"))
    rows: list[Row] = [
        sheet_item(
            ctx, tr(ctx, "Search"), "search", lambda: push(ctx, "search", focus="search", mode=kind), "first_item"
        )
    ]
    if kind == "start":
        rows.append(sheet_item(ctx, tr(ctx, "My position"), "location", lambda: set_point(ctx, "start", None)))
    for f in read_favorites(ctx.model.fs).points:
        p = {"name": f.name, "kind": "Favorite", "lat": f.lat, "lon": f.lon}
        rows.append(sheet_item(ctx, f.name, "star", setter(ctx, kind, p)))
    for m in active_markers(ctx.model.fs):
        p = {"name": marker_name(m), "kind": "Marker", "lat": m["marker_lat"], "lon": m["marker_lon"]}
        rows.append(sheet_item(ctx, str(p["name"]), "location", setter(ctx, kind, p)))
    return bottom_sheet(ctx, tr(ctx, KINDS.get(kind, KINDS["dest"])), rows)


# --- the route's details and saving it ----------------------------------------------------------------------------
def details(ctx: Ctx) -> list[View]:
    pl = plan(ctx)
    pts = route(ctx)
    if pl is None or not pts:
        pop(ctx)
        return []
    header = bar(
        ctx,
        tr(ctx, "Route"),
        lambda: pop(ctx),
        [
            ("check", tr(ctx, "Save as new track"), lambda: open_save(ctx), "save_as_gpx"),
            ("send", tr(ctx, "Share"), None, "share_as_gpx"),
        ],
    )
    rows: list[Row] = [w.text_row(ctx, summary(pts), "route_summary", size=18, bold=True, height_dp=56)]
    legs = [pl["start"], *pl["via"], pl["dest"]]
    for i, (a, b) in enumerate(zip(legs, legs[1:], strict=False)):
        d = format_distance(distance_m((a["lat"], a["lon"]), (b["lat"], b["lon"])))
        what = tr(ctx, "Arrive at %s" if i == len(legs) - 2 else "Go to %s").replace("%s", str(b["name"]))
        rows.append(w.text_row(ctx, f"{i + 1}. {what} ({d})", "route_direction", size=15, height_dp=48))
    return page(ctx, [header], rows, key="details", rid="route_details_list")


def suggested_name(ctx: Ctx) -> str:
    """The date (EEE dd MMM yyyy), made unique among the tracks."""
    base = dt.datetime.fromtimestamp(ctx.model.now(), zone_named(ctx.model.time_zone)).strftime("%a %d %b %Y")
    names, name, n = set(track_names(ctx.model.fs)), base, 1
    while name in names:
        n += 1
        name = f"{base}_{n}"
    return name


def open_save(ctx: Ctx) -> None:
    ctx.set_field(TRACK_FIELD, suggested_name(ctx))
    ctx.show_dialog({"id": "save_track"})


def save(ctx: Ctx) -> None:
    name = ctx.field_value(TRACK_FIELD).strip().replace("/", "_")
    pts = route(ctx)
    if not name or not pts:
        return
    save_track(ctx.model.fs, name, pts, ctx.model.now())
    ctx.dismiss_dialog()
    ctx.hide_keyboard()
    ctx.toast(tr(ctx, "Track %s is saved").replace("%s", name))


def dialog_save_track(ctx: Ctx, spec: dict[str, Any]) -> View:
    name = ctx.field_value(TRACK_FIELD)

    def field(x: int, y: int, wd: int) -> View:
        return w.edit(
            ctx,
            (x + ctx.dp(16), y + ctx.dp(8), x + wd - ctx.dp(16), y + ctx.dp(64)),
            TRACK_FIELD,
            name,
            tr(ctx, "File name"),
            lambda v: ctx.set_field(TRACK_FIELD, v),
            "name_edit",
            action=lambda: save(ctx),
        )

    sheet = bottom_sheet(ctx, tr(ctx, "Save as new track"), [Row(ctx.dp(80), field, (TRACK_FIELD,))], tr(ctx, "Cancel"))
    close_btn = sheet.children[-1]
    l, t, r, b = close_btn.bounds
    mid = (l + r) // 2
    close_btn.bounds = (l, t, mid - ctx.dp(8), b)
    sheet.children.append(
        w.button(
            ctx,
            (mid + ctx.dp(8), t, r, b),
            tr(ctx, "Save"),
            lambda: save(ctx),
            "right_bottom_button",
            enabled=bool(name.strip()),
        )
    )
    return sheet


def on_back(ctx: Ctx) -> bool:
    """BACK on the map while a route is planned closes the planning."""
    if plan(ctx) is not None and len(stack(ctx)) == 1:
        close(ctx)
        return True
    return False
