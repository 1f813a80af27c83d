"""OsmAnd (`net.osmand` 4.6.13, the build AndroidWorld installs), launcher label "OsmAnd", its map activity
`net.osmand.plus.activities.MapActivity` - one activity whose screens are fragments - over a small offline map of
Liechtenstein (`osmand_data`: the places AndroidWorld's OsmAnd classes name, at their coordinates; `osmand_map`: the
map drawn from them).

Modeled:
- the first start: the first-usage wizard (Location not found; SKIP DOWNLOAD), remembered in the global preferences;
  each start makes the app's folders (`tiles/`, `tracks/`, `.nomedia` in its external files dir) as the real app's
  ResourceManager does;
- the map: dragged to pan, Zoom in / Zoom out, Back to location, Configure map, Search, the Menu (the side menu:
  Map markers, My places, Search, Navigation) and Navigation buttons; the places' names (tapped: their context
  menu), favourites (stars), active map markers (flags), the first marker in a bar on top;
- a point's context menu (MapContextMenu): its name and kind, Add (the favourite editor; Edit favorite when it is
  one), Marker (a map marker added at the end of the list), Share (its coordinates copied), Actions (Directions
  from, Search nearby), NAVIGATION (a route to it);
- search (`osmand_search`), the favourite editor, Map markers and My places (`osmand_places`), route planning with
  its details and "Save as new track" (`osmand_route`);
- storage as the real app keeps it: favourites in GPX files, markers in the SQLite `map_markers_db`, tracks as GPX
  (`osmand_data`).
Left out: map downloads and real map data (no streets, POIs or addresses beyond the places), GPS and navigation
guidance, Plan a route (the measurement tool), track recording, favourite colours/icons and new groups, marker
groups and history screens, settings, plugins, the favourites' zipped backups.
"""

from __future__ import annotations

from typing import Any

from ..ui import widgets as w
from ..ui.fonts import text_width, wrap
from ..ui.layout import Ctx, Row, V, clip_tree, vlist
from ..ui.view import View
from . import osmand_map, osmand_places, osmand_route, osmand_search
from .base import App
from .osmand_data import (
    COUNTRY,
    MAIN,
    MARKERS_DB,
    PKG,
    VERSION_CODE,
    VERSION_NAME,
    active_markers,
    add_marker,
    ensure_folders,
    favorite_at,
    first_run_done,
    format_coords,
    marker_name,
    read_favorites,
    set_first_run_done,
    tr,
)
from .osmand_ui import (
    ORANGE,
    ORANGE_TEXT,
    bottom_sheet,
    map_screen,
    now_ms,
    plan,
    pop,
    push,
    sheet_item,
    stack,
    start_plan,
)

# the manifest's <uses-permission>s a user or AndroidWorld's set-up can grant
PERMISSIONS = (
    "android.permission.ACCESS_FINE_LOCATION",
    "android.permission.ACCESS_COARSE_LOCATION",
    "android.permission.POST_NOTIFICATIONS",
    "android.permission.INTERNET",
    "android.permission.ACCESS_NETWORK_STATE",
    "android.permission.WRITE_EXTERNAL_STORAGE",
    "android.permission.READ_EXTERNAL_STORAGE",
    "android.permission.RECORD_AUDIO",
    "android.permission.CAMERA",
    "android.permission.VIBRATE",
    "android.permission.WAKE_LOCK",
    "android.permission.FOREGROUND_SERVICE",
)
BUTTON_BG = (255, 255, 255)
ICON = (80, 80, 80)


class OsmAndApp(App):
    package = PKG
    labels = {"en": "OsmAnd", "zh": "OsmAnd"}
    activities = {MAIN: "main"}
    launcher = MAIN
    color = ORANGE
    glyph = "location"
    version_name = VERSION_NAME
    version_code = VERSION_CODE
    installed = True  # as AndroidWorld installs it
    permissions = PERMISSIONS
    databases = (MARKERS_DB,)

    def on_create(self, ctx: Ctx) -> None:
        ensure_folders(ctx.model.fs)

    def on_back(self, ctx: Ctx) -> bool:
        if not first_run_done(ctx.model.fs):
            return False
        if len(stack(ctx)) > 1:
            pop(ctx)
            return True
        if map_screen(ctx).pop("menu", None) is not None:
            return True
        return osmand_route.on_back(ctx)

    def window_bg(self, ctx: Ctx) -> Any:
        on_map = first_run_done(ctx.model.fs) and len(stack(ctx)) == 1
        return (osmand_map.NIGHT if ctx.theme.dark else osmand_map.DAY)[0] if on_map else ctx.theme.bg

    # --- screens -----------------------------------------------------------------------------------------------
    def screen_main(self, ctx: Ctx) -> list[View]:
        if not first_run_done(ctx.model.fs):
            return self._wizard(ctx)
        name = stack(ctx)[-1]["name"]
        if name == "search":
            return osmand_search.screen(ctx)
        if name == "fav_edit":
            return osmand_places.editor(ctx)
        if name == "markers":
            return osmand_places.markers(ctx)
        if name == "places":
            return osmand_places.my_places(ctx)
        if name == "details":
            return osmand_route.details(ctx)
        return self._map(ctx)

    def _wizard(self, ctx: Ctx) -> list[View]:
        """FirstUsageWizardFragment: no location found, the map download skipped or tried again."""
        l, t, r, b = ctx.area
        th = ctx.theme
        root = V(ctx, w.LINEAR, (l, t, r, b), "first_usage_wizard", clickable=True, style={"bg": th.surface})
        y = t + ctx.dp(16)
        root.children.append(w.icon(ctx, (l + ctx.dp(16), y, l + ctx.dp(48), y + ctx.dp(32)), "location", ORANGE))
        label = tr(ctx, "SKIP DOWNLOAD")
        bw = int(text_width(label, ctx.sp(14), True)) + ctx.dp(32)
        title, x0, x1 = tr(ctx, "Location not found"), l + ctx.dp(60), r - bw - ctx.dp(16)
        title_h = ctx.line_h(18, min(3, len(wrap(title, ctx.sp(18), x1 - x0, True))))
        root.children.append(
            w.text(ctx, (x0, y, x1, y + title_h), title, "wizard_title", size=18, bold=True, lines=3, valign="t")
        )

        def skip() -> None:
            set_first_run_done(ctx.model.fs)

        btn_h = max(ctx.dp(40), ctx.text_h(14) + ctx.dp(12))
        root.children.append(
            w.button(
                ctx,
                (r - bw - ctx.dp(8), y - ctx.dp(4), r - ctx.dp(8), y - ctx.dp(4) + btn_h),
                label,
                skip,
                "skip_button",
                kind="text",
            )
        )
        y += max(title_h, btn_h) + ctx.dp(16)
        desc = tr(ctx, "first_usage_desc")
        desc_h = ctx.line_h(15, len(wrap(desc, ctx.sp(15), r - l - ctx.dp(120))))
        root.children.append(
            w.text(
                ctx,
                (l + ctx.dp(60), y, r - ctx.dp(60), y + desc_h),
                desc,
                "wizard_description",
                size=15,
                lines=8,
                valign="t",
            )
        )
        y += desc_h + ctx.dp(24)
        root.children.append(
            w.button(
                ctx,
                (l + ctx.dp(40), y, r - ctx.dp(40), y + max(ctx.dp(48), ctx.text_h(14) + ctx.dp(20))),
                tr(ctx, "TRY AGAIN"),
                lambda: ctx.toast(tr(ctx, "Location not found")),
                "wizard_action_button",
                kind="outlined",
            )
        )
        return [root]

    def _map(self, ctx: Ctx) -> list[View]:
        l, t, r, b = ctx.area
        fs = ctx.model.fs
        scr = map_screen(ctx)
        menu: dict[str, Any] | None = scr.get("menu")
        pl = plan(ctx)
        marks = [(marker_name(m), float(m["marker_lat"]), float(m["marker_lon"])) for m in active_markers(fs)]
        route = osmand_route.route(ctx) if pl is not None else []
        if route and scr.get("fitted") != route:
            osmand_map.fit(ctx, route, ctx.area, (b - t) * 11 // 20)
            scr["fitted"] = route
        over = self._top_buttons(ctx, marks)
        if pl is not None:
            over.extend(osmand_route.menu(ctx))
        elif menu is not None:
            over.extend(self._context_menu(ctx, menu))
        else:
            over.extend(self._bottom_buttons(ctx))
        surface = osmand_map.view(
            ctx,
            (l, t, r, b),
            lambda p: self.open_menu(ctx, p),
            menu,
            route,
            favorites=tuple((f.lat, f.lon) for f in read_favorites(fs).points),
            markers=tuple((la, lo) for _n, la, lo in marks),
            covered=[v.bounds for v in over],
        )
        surface.children = [c for c in surface.children if clip_tree(c, (l, t, r, b))]
        return [surface, *over]

    def open_menu(self, ctx: Ctx, p: dict[str, Any]) -> None:
        """A place's name tapped: its context menu, the map centred on it."""
        if plan(ctx) is None:
            map_screen(ctx)["menu"] = dict(p)
            osmand_map.move_to(ctx, float(p["lat"]), float(p["lon"]))

    def _round_button(self, ctx: Ctx, x: int, y: int, size: int, glyph: str, desc: str, cb: Any, rid: str) -> View:
        return V(
            ctx,
            w.IMAGE_BUTTON,
            (x, y, x + size, y + size),
            rid,
            desc=desc,
            clickable=True,
            focusable=True,
            on_click=cb,
            style={
                "bg": BUTTON_BG,
                "radius": size // 2,
                "icon": glyph,
                "icon_color": ICON,
                "inset": size // 4,
                "shadow": True,
            },
        )

    def _top_buttons(self, ctx: Ctx, marks: list[tuple[str, float, float]]) -> list[View]:
        l, t, r, _b = ctx.area
        s, m = ctx.dp(48), ctx.dp(12)
        y = t + m
        out: list[View] = []
        if marks:
            name, lat, lon = marks[0]
            bar = V(
                ctx,
                w.LINEAR,
                (l, t, r, t + ctx.dp(48)),
                "map_markers_top_bar",
                clickable=True,
                focusable=True,
                on_click=lambda: push(ctx, "markers"),
                style={"bg": (60, 60, 70)},
            )
            bar.children.append(
                w.icon(
                    ctx, (l + ctx.dp(12), t + ctx.dp(12), l + ctx.dp(36), t + ctx.dp(36)), "location", osmand_map.MARKER
                )
            )
            bar.children.append(
                w.text(
                    ctx,
                    (l + ctx.dp(48), t, r - ctx.dp(16), t + ctx.dp(48)),
                    name,
                    "map_marker_address_1",
                    size=16,
                    color=(255, 255, 255),
                )
            )
            out.append(bar)
            y += ctx.dp(48)
        out.append(self._round_button(ctx, l + m, y, s, "image", tr(ctx, "Configure map"), None, "map_layers_button"))
        out.append(
            self._round_button(
                ctx,
                l + m + s + m,
                y,
                s,
                "search",
                tr(ctx, "Search"),
                lambda: push(ctx, "search", focus="search", mode=""),
                "map_search_button",
            )
        )
        out.append(
            self._round_button(ctx, l + m, y + s + m, s, "forward", tr(ctx, "Compass"), None, "map_compass_button")
        )
        return out

    def _bottom_buttons(self, ctx: Ctx) -> list[View]:
        l, _t, r, b = ctx.area
        s, m = ctx.dp(56), ctx.dp(12)
        y = b - m - s
        return [
            self._round_button(
                ctx, l + m, y, s, "menu", tr(ctx, "Menu"), lambda: ctx.show_dialog({"id": "drawer"}), "map_menu_button"
            ),
            self._round_button(
                ctx,
                l + 2 * m + s,
                y,
                s,
                "send",
                tr(ctx, "Navigation"),
                lambda: start_plan(ctx, None, None),
                "map_route_info_button",
            ),
            self._round_button(
                ctx,
                r - 2 * m - 2 * s,
                y,
                s,
                "location",
                tr(ctx, "Back to location"),
                lambda: osmand_map.move_to(ctx, *osmand_map.CENTER),
                "map_my_location_button",
            ),
            self._round_button(
                ctx,
                r - m - s,
                y - s - m,
                s,
                "add",
                tr(ctx, "Zoom in"),
                lambda: osmand_map.zoom_by(ctx, 1),
                "map_zoom_in_button",
            ),
            self._round_button(
                ctx,
                r - m - s,
                y,
                s,
                "minus",
                tr(ctx, "Zoom out"),
                lambda: osmand_map.zoom_by(ctx, -1),
                "map_zoom_out_button",
            ),
        ]

    # --- the context menu ------------------------------------------------------------------------------------
    def _context_menu(self, ctx: Ctx, p: dict[str, Any]) -> list[View]:
        l, _t, r, b = ctx.area
        th = ctx.theme
        fs = ctx.model.fs
        fav = favorite_at(fs, float(p["lat"]), float(p["lon"]))
        title_h, sub_h = ctx.line_h(20) + ctx.dp(12), ctx.line_h(14) + ctx.dp(8)
        btn_h = ctx.dp(72)
        bottom_h = ctx.dp(48)
        h = title_h + sub_h + btn_h + bottom_h + ctx.dp(24)
        y0 = b - h
        panel = V(ctx, w.LINEAR, (l, y0, r, b), "context_menu_main", style={"bg": th.surface, "shadow": True})
        pad = ctx.dp(16)
        name = fav.name if fav else str(p["name"])
        panel.children.append(
            w.text(
                ctx,
                (l + pad, y0 + ctx.dp(12), r - pad, y0 + title_h),
                name,
                "context_menu_line1",
                size=20,
                bold=True,
                style={"ellipsize": True},
            )
        )
        if fav:
            sub = tr(ctx, "Favorites")
        elif p["kind"] == "Location":
            sub = tr(ctx, "Location")
        else:
            sub = f"{p['kind']}, {COUNTRY}" if p["kind"] != "Marker" else tr(ctx, "Map markers")
        sub += f" • {format_coords(float(p['lat']), float(p['lon']))}" if p["kind"] != "Location" else ""
        panel.children.append(
            w.text(
                ctx,
                (l + pad, y0 + title_h, r - pad, y0 + title_h + sub_h),
                sub,
                "context_menu_line2",
                size=14,
                style={"ellipsize": True},
                color=th.text2,
            )
        )
        y = y0 + title_h + sub_h + ctx.dp(8)
        row = V(ctx, w.LINEAR, (l, y, r, y + btn_h), "context_menu_buttons")
        items = [
            (tr(ctx, "Edit favorite" if fav else "Add"), "star", lambda: osmand_places.edit_favorite(ctx, p)),
            (tr(ctx, "Marker"), "location", lambda: self._add_marker(ctx, p)),
            (tr(ctx, "Share"), "send", lambda: self._share(ctx, p)),
            (tr(ctx, "Actions"), "more", lambda: ctx.show_dialog({"id": "actions"})),
        ]
        cw = (r - l) // len(items)
        for i, (label, glyph, cb) in enumerate(items):
            x = l + i * cw
            item = V(ctx, w.LINEAR, (x, y, x + cw, y + btn_h), clickable=True, focusable=True, on_click=cb)
            isz = ctx.dp(28)
            item.children.append(
                w.icon(
                    ctx, (x + (cw - isz) // 2, y + ctx.dp(8), x + (cw + isz) // 2, y + ctx.dp(8) + isz), glyph, ORANGE
                )
            )
            item.children.append(
                w.text(
                    ctx, (x, y + ctx.dp(40), x + cw, y + btn_h), label, "context_menu_item_title", size=13, align="c"
                )
            )
            row.children.append(item)
        panel.children.append(row)
        y += btn_h + ctx.dp(8)
        panel.children.append(V(ctx, "android.view.View", (l, y, r, y + 1), style={"bg": th.divider}))
        label = tr(ctx, "NAVIGATION")
        bw = int(text_width(label, ctx.sp(14), True)) + 2 * pad
        panel.children.append(
            w.text(
                ctx,
                (r - bw, y, r, y + bottom_h),
                label,
                "context_menu_directions_button",
                size=14,
                bold=True,
                color=ORANGE if th.dark else ORANGE_TEXT,
                align="c",
                clickable=True,
                focusable=True,
                on_click=lambda: start_plan(ctx, None, dict(p)),
            )
        )
        return [panel]

    def _add_marker(self, ctx: Ctx, p: dict[str, Any]) -> None:
        add_marker(ctx.model.fs, p, now_ms(ctx))
        map_screen(ctx).pop("menu", None)
        ctx.toast(tr(ctx, "Marker added"))

    def _share(self, ctx: Ctx, p: dict[str, Any]) -> None:
        ctx.model.clipboard = format_coords(float(p["lat"]), float(p["lon"]))
        ctx.toast(ctx.tr("Copied to clipboard", "已复制到剪贴板"))

    # --- dialogs ---------------------------------------------------------------------------------------------
    def dialog_actions(self, ctx: Ctx, spec: dict[str, Any]) -> View:
        p = map_screen(ctx).get("menu")
        if p is None:
            return bottom_sheet(ctx, tr(ctx, "Actions"), [])
        rows = [
            sheet_item(ctx, tr(ctx, "Directions from"), "send", lambda: start_plan(ctx, dict(p), None)),
            sheet_item(ctx, tr(ctx, "Search nearby"), "search", lambda: push(ctx, "search", focus="search", mode="")),
        ]
        return bottom_sheet(ctx, tr(ctx, "Actions"), rows)

    def dialog_add_point(self, ctx: Ctx, spec: dict[str, Any]) -> View:
        return osmand_route.dialog_add_point(ctx, spec)

    def dialog_save_track(self, ctx: Ctx, spec: dict[str, Any]) -> View:
        return osmand_route.dialog_save_track(ctx, spec)

    def dialog_drawer(self, ctx: Ctx, spec: dict[str, Any]) -> View:
        """The side menu (the map's Menu button)."""
        l, t, r, b = ctx.mgr.dialog_area()
        wd = min(r - l - ctx.dp(56), ctx.dp(320))
        root = V(
            ctx,
            w.FRAME,
            (l, t, l + wd, b),
            "drawer_layout",
            style={"bg": ctx.theme.surface, "modal": True, "dim": True, "on_cancel": ctx.dismiss_dialog},
        )
        entries = [
            (tr(ctx, "Map markers"), "location", lambda: push(ctx, "markers")),
            (tr(ctx, "My places"), "star", lambda: push(ctx, "places", tab="favorites")),
            (tr(ctx, "Search"), "search", lambda: push(ctx, "search", focus="search", mode="")),
            (tr(ctx, "Navigation"), "send", lambda: start_plan(ctx, None, None)),
        ]
        rows: list[Row] = [w.text_row(ctx, "OsmAnd", size=20, bold=True, height_dp=64)]
        rows += [sheet_item(ctx, label, glyph, cb) for label, glyph, cb in entries]
        root.children.append(vlist(ctx, "drawer", (l, t, l + wd, b), rows, "menuItems", cls="android.widget.ListView"))
        return root
