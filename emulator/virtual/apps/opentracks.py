"""OpenTracks (`de.dennisguse.opentracks` v4.11.3, versionCode 5705 - the build AndroidWorld installs), launcher label
"OpenTracks", TrackListActivity opened from the launcher (AndroidWorld's activity map names it), over its SQLite
database /data/data/de.dennisguse.opentracks/databases/database.db (`opentracks_data`: the schema of database
version 37, read and written through the file).

Modeled:
- the first start: the default unit system written (imperial in en-US, metric elsewhere) and TrackListActivity's
  request for location, nearby devices (Bluetooth) and notifications - the permission controller's prompts
  (`ui.permissionprompt`), which outlive the app's force-stop as AndroidWorld's set-up expects;
- TrackListActivity (track_list.xml, track_list_item.xml): the toolbar (OpenTracks or the search's query, Search,
  Markers, More options), the tracks newest first - the activity type's icon ("Track"), `track_list_item_name`,
  `track_list_item_date` (Today / Yesterday / a weekday within a week / "8 Oct"), `track_list_item_time`,
  `track_list_item_time_distance` ("1:30:00 (2.34 mi)"), `track_list_item_category_description` -, the empty
  message, the bottom app bar (aggregated stats, GPS) with the Record button; the SearchView (name, description
  or category; BACK leaves the results); a long press starts the selection (taps add or remove tracks) with its
  contextual bar (Show on map, Share, Edit for one, Delete, Aggregated stats, Select all - as many as fit, the
  rest under More options);
- TrackRecordedActivity's Stats tab, TrackEditActivity and AggregatedStatisticsActivity (`opentracks_track`);
- recording without movement: TrackRecordingActivity and TrackStoppedActivity (`opentracks_recording`);
- deleting tracks (the confirmation; the tracks' markers and points go with them).
Left out: GPS fixes and sensors (a recording's distance stays 0), the GPS button, the introduction of the launcher's
IntroductionActivity (AndroidWorld opens TrackListActivity itself), maps, sharing and export, markers, the
Intervals and chart tabs, the aggregated statistics' filter, settings and help, the activity type chooser's grid
and the activity type field's suggestions.
"""

from __future__ import annotations

from typing import Any

from ..ui import dialogs
from ..ui import widgets as w
from ..ui.fonts import wrap
from ..ui.layout import Ctx, Row, V
from ..ui.permissionprompt import has_permissions, request
from ..ui.view import View
from . import opentracks_recording as rec
from . import opentracks_track as detail
from .base import App, page
from .opentracks_data import (
    AGGREGATED,
    DB,
    PKG,
    TRACK_EDIT,
    TRACK_LIST,
    TRACK_RECORDED,
    VERSION_CODE,
    VERSION_NAME,
    apply_default_unit,
    date_label,
    delete_tracks,
    elapsed,
    format_distance,
    icon_of,
    started,
    time_label,
    tr,
    tracks,
    type_by_id,
)
from .opentracks_widgets import BAR_DP, FAB_RISE_DP, Item, action_icons, bar_button, bottom_app_bar, popup_menu

_P = "android.permission."
PERMISSIONS = (  # the manifest's <uses-permission>s (for API 34)
    _P + "FOREGROUND_SERVICE",
    _P + "FOREGROUND_SERVICE_LOCATION",
    _P + "FOREGROUND_SERVICE_CONNECTED_DEVICE",
    _P + "ACCESS_COARSE_LOCATION",
    _P + "ACCESS_FINE_LOCATION",
    _P + "VIBRATE",
    _P + "WAKE_LOCK",
    _P + "BLUETOOTH_SCAN",
    _P + "BLUETOOTH_CONNECT",
    _P + "POST_NOTIFICATIONS",
)
# PermissionRequester.ALL: GPS, then Bluetooth (API 31+), then notifications (API 33+)
REQUESTED = tuple(
    _P + p for p in ("ACCESS_FINE_LOCATION", "ACCESS_COARSE_LOCATION", "BLUETOOTH_SCAN", "BLUETOOTH_CONNECT")
) + (_P + "POST_NOTIFICATIONS",)
ORANGE = (230, 81, 0)


class OpenTracksApp(App):
    package = PKG
    labels = {"en": "OpenTracks", "zh": "OpenTracks"}
    activities = {
        TRACK_LIST: "list",
        TRACK_RECORDED: "recorded",
        TRACK_EDIT: "edit",
        AGGREGATED: "aggregated",
        rec.TRACK_RECORDING: "recording",
        rec.TRACK_STOPPED: "stopped",
    }
    launcher = TRACK_LIST
    color = ORANGE
    glyph = "location"
    version_name = VERSION_NAME
    version_code = VERSION_CODE
    installed = True  # as AndroidWorld installs it
    permissions = PERMISSIONS
    databases = (DB,)

    def on_create(self, ctx: Ctx) -> None:
        apply_default_unit(ctx.model)  # Startup.onCreate
        if ctx.activity == TRACK_LIST and not has_permissions(ctx.model, PKG, REQUESTED):
            request(ctx.model, PKG, REQUESTED)  # TrackListActivity.requestRequiredPermissions

    def on_back(self, ctx: Ctx) -> bool:
        if ctx.activity == rec.TRACK_STOPPED:
            rec.stopped_back(ctx)
            return True
        if ctx.activity != TRACK_LIST:
            return False
        if ctx.ui.get("selecting"):  # the contextual action mode ends
            end_selection(ctx)
            return True
        ctx.ui.pop("search_open", None)  # onBackPressed: the search view iconified
        ctx.set_focus(None)
        if ctx.ui.get("query") is not None:  # the search's results left
            ctx.ui.pop("query", None)
            return True
        return False  # else the activity finishes

    # --- TrackListActivity ------------------------------------------------------------------------------------------
    def screen_list(self, ctx: Ctx) -> list[View]:
        query = ctx.ui.get("query")
        items = tracks(ctx, query)
        header = [self._context_bar(ctx) if ctx.ui.get("selecting") else self._toolbar(ctx, query)]
        rows = [self._track_row(ctx, t) for t in items]
        if not items:
            rows = [
                w.text_row(ctx, tr(ctx, "track_list_empty_message"), "", size=20, align="r", lines=3, height_dp=240)
            ]
        overlays: list[View] = []
        footer_h = 0
        if not ctx.ui.get("selecting") and not ctx.keyboard:
            stats = bar_button(ctx, 0, "bar_chart", "aggregated_stats_button", lambda: ctx.push(AGGREGATED))
            gps = bar_button(ctx, 1, "location", "sensor_start_button", lambda: None)
            overlays = bottom_app_bar(ctx, [stats, gps], [], "list_bottom", rec.list_fab(ctx))
            footer_h = ctx.dp(BAR_DP + 24 + FAB_RISE_DP)
        return page(ctx, header, rows, key="tracks", rid="track_list", footer_h=footer_h, overlays=overlays)

    def _toolbar(self, ctx: Ctx, query: str | None) -> View:
        l, t, r, _ = ctx.area
        h = ctx.dp(BAR_DP)
        bar = V(ctx, "android.view.ViewGroup", (l, t, r, t + h), "track_list_toolbar", style={"bg": ctx.theme.bg})
        isz = ctx.dp(48)
        y0 = t + (h - isz) // 2
        bar.children.append(w.icon(ctx, (l + ctx.dp(4), y0, l + ctx.dp(4) + isz, y0 + isz), "location", ORANGE))
        x = l + ctx.dp(68)
        menu = [
            Item("track_list_markers", tr(ctx, "menu_markers"), "marker", lambda: None),
            Item("track_list_settings", tr(ctx, "menu_settings"), "settings", lambda: None, if_room=False),
            Item("track_list_help", tr(ctx, "menu_help"), "help", lambda: None, if_room=False),
        ]
        if ctx.ui.get("search_open"):
            icons, right = action_icons(ctx, menu, r - ctx.dp(4), y0, "list_top")
            bar.children.append(_search_view(ctx, (x - ctx.dp(8), y0, right, y0 + isz)))
            bar.children.extend(icons)
            return bar

        def open_search() -> None:
            ctx.ui["search_open"] = True
            ctx.set_field("search", "")
            ctx.set_focus("search")

        search = Item("search_button", tr(ctx, "menu_search"), "search", open_search)
        icons, right = action_icons(ctx, [search, *menu], r - ctx.dp(4), y0, "list_top")
        title = query if query is not None else tr(ctx, "app_name")
        bar.children.append(w.text(ctx, (x, t, right, t + h), title, size=22, style={"ellipsize": True}))
        bar.children.extend(icons)
        return bar

    def _context_bar(self, ctx: Ctx) -> View:
        """The contextual action mode's bar over the toolbar: Done, and the list_context_menu items that fit."""
        l, t, r, _ = ctx.area
        h = ctx.dp(BAR_DP)
        bar = V(ctx, "android.view.ViewGroup", (l, t, r, t + h), "action_mode_bar", style={"bg": ctx.theme.surface2})
        isz = ctx.dp(48)
        y0 = t + (h - isz) // 2
        bar.children.append(
            w.icon_button(
                ctx,
                (l + ctx.dp(4), y0, l + ctx.dp(4) + isz, y0 + isz),
                "close",
                tr(ctx, "done"),
                lambda: end_selection(ctx),
                "action_mode_close_button",
            )
        )
        icons, _ = action_icons(ctx, self.context_items(ctx), r - ctx.dp(4), y0, "context")
        bar.children.extend(icons)
        return bar

    def context_items(self, ctx: Ctx) -> list[Item]:
        ids: list[int] = list(ctx.ui.get("selected", []))

        def edit() -> None:
            end_selection(ctx)
            ctx.push(TRACK_EDIT, {"track_id": ids[0]})

        def stats() -> None:
            end_selection(ctx)
            ctx.push(AGGREGATED, {"track_ids": ids})

        def select_all() -> None:
            ctx.ui["selected"] = [int(t["_id"]) for t in tracks(ctx, ctx.ui.get("query"))]

        items = [
            Item("list_context_menu_show_on_map", tr(ctx, "menu_show_on_map"), "map", lambda: None),
            Item("list_context_menu_share", tr(ctx, "menu_share"), "share", lambda: None),
            Item("list_context_menu_edit", tr(ctx, "menu_edit"), "edit", edit),
            Item(
                "list_context_menu_delete",
                tr(ctx, "menu_delete"),
                "delete",
                lambda: ctx.show_dialog({"id": "delete", "ids": ids}),
            ),
            Item("list_context_menu_aggregated_stats", tr(ctx, "menu_aggregated_statistics"), "bar_chart", stats),
            Item("list_context_menu_select_all", tr(ctx, "menu_select_all"), "select_all", select_all),
        ]
        return [i for i in items if len(ids) == 1 or i.rid != "list_context_menu_edit"]

    def _track_row(self, ctx: Ctx, t: dict[str, Any]) -> Row:
        th = ctx.theme
        tid = int(t["_id"])
        when = started(t)
        name = str(t["name"] or "")
        date, clock = date_label(ctx, when), time_label(ctx, when)
        recording = rec.recording(ctx)
        time_distance = f"{elapsed(t['totaltime'])} ({format_distance(ctx, t['totaldistance'])})"
        markers = int(t["markerCount"] or 0)
        if tid == recording:  # ListItemUtils: "Recording…", the recording icon
            time_distance = tr(ctx, "generic_recording")
        elif markers > 0:
            time_distance += "  \u2027"
        if recording is not None:  # no date and time on any row while recording
            date = clock = ""
        description = str(t["description"] or "")
        width = ctx.area[2] - ctx.area[0]
        left = ctx.dp(8 + 24 + 8)
        desc_lines = min(2, len(wrap(description, ctx.sp(12), width - left - ctx.dp(8)))) if description else 0
        line1, line2 = ctx.line_h(16), ctx.line_h(12)
        h = ctx.dp(16) + line1 + line2 + ctx.line_h(12, desc_lines) + 1
        icon_name, letter = icon_of(type_by_id(t["activity_type"]))
        icon_desc = tr(ctx, "image_record" if tid == recording else "image_track")
        if tid == recording:
            icon_name, letter = "record", "R"

        def toggle() -> None:
            sel: list[int] = ctx.ui.setdefault("selected", [])
            if tid in sel:
                sel.remove(tid)
            else:
                sel.append(tid)

        def click() -> None:
            if ctx.ui.get("selecting"):
                toggle()
            else:
                ctx.push(TRACK_RECORDED, {"track_id": tid})

        def long_click() -> None:
            toggle()
            ctx.ui["selecting"] = True
            ctx.ui.pop("search_open", None)
            ctx.set_focus(None)

        def build(x: int, y: int, wd: int) -> View:
            chosen = tid in ctx.ui.get("selected", [])
            row = V(
                ctx,
                "android.view.ViewGroup",
                (x, y, x + wd, y + h),
                clickable=True,
                focusable=True,
                long_clickable=True,
                on_click=click,
                on_long_click=long_click,
                style={"bg": th.primary_container if chosen else None},
            )
            top = y + ctx.dp(8)
            isz = ctx.dp(24)
            icon = w.icon(
                ctx,
                (x + ctx.dp(8), top, x + ctx.dp(8) + isz, top + isz),
                icon_name,
                ORANGE,
                "track_list_item_icon",
                icon_desc,
            )
            icon.style["letter"] = letter
            row.children.append(icon)
            left_x, right_x = x + left, x + wd - ctx.dp(8)
            date_w = ctx.dp(96)
            row.children.append(
                w.text(ctx, (left_x, top, right_x - date_w, top + line1), name, "track_list_item_name", size=16)
            )
            row.children.append(
                w.text(
                    ctx,
                    (right_x - date_w, top, right_x, top + line2),
                    date,
                    "track_list_item_date",
                    size=12,
                    color=th.text2,
                    align="r",
                )
            )
            y2 = top + line1
            row.children.append(
                w.text(
                    ctx,
                    (left_x, y2, right_x - date_w, y2 + line2),
                    time_distance,
                    "track_list_item_time_distance",
                    size=12,
                    color=th.text2,
                )
            )
            row.children.append(
                w.text(
                    ctx,
                    (right_x - date_w, y2, right_x, y2 + line2),
                    clock,
                    "track_list_item_time",
                    size=12,
                    color=th.text2,
                    align="r",
                )
            )
            if desc_lines:
                y3 = y2 + line2
                row.children.append(
                    w.text(
                        ctx,
                        (left_x, y3, right_x, y3 + ctx.line_h(12, desc_lines)),
                        description,
                        "track_list_item_category_description",
                        size=12,
                        color=th.text2,
                        lines=desc_lines,
                        valign="t",
                        style={"ellipsize": True},
                    )
                )
            row.children.append(
                V(
                    ctx,
                    "android.view.View",
                    (x, y + h - 1, x + wd, y + h),
                    "marker_list_item_bottom_line",
                    style={"bg": th.divider},
                )
            )
            return row

        return Row(h, build)

    # --- the other activities (opentracks_track) -----------------------------------------------------------------
    def screen_recorded(self, ctx: Ctx) -> list[View]:
        return detail.recorded_screen(ctx)

    def screen_edit(self, ctx: Ctx) -> list[View]:
        return detail.edit_screen(ctx)

    def screen_aggregated(self, ctx: Ctx) -> list[View]:
        return detail.aggregated_screen(ctx)

    def screen_recording(self, ctx: Ctx) -> list[View]:
        return rec.recording_screen(ctx)

    def screen_stopped(self, ctx: Ctx) -> list[View]:
        return rec.stopped_screen(ctx)

    # --- dialogs ---------------------------------------------------------------------------------------------------
    def dialog_menu(self, ctx: Ctx, spec: dict[str, Any]) -> View:
        menu = str(spec.get("menu"))
        if menu == "context":
            items = self.context_items(ctx)
        elif menu == "recorded":
            items = detail.recorded_menu(ctx)
        else:
            items = [
                Item("track_list_settings", tr(ctx, "menu_settings"), "settings", lambda: None, if_room=False),
                Item("track_list_help", tr(ctx, "menu_help"), "help", lambda: None, if_room=False),
            ]
        return popup_menu(ctx, items, str(spec.get("at", "top")))

    def dialog_delete(self, ctx: Ctx, spec: dict[str, Any]) -> View:
        """ConfirmDeleteDialogFragment: one track or the selection, OK deletes."""
        ids = [int(i) for i in spec.get("ids", [])]
        many = len(ids) > 1

        def ok() -> None:
            ctx.dismiss_dialog()
            end_selection(ctx)
            delete_tracks(ctx, ids)
            if ctx.activity == TRACK_RECORDED:
                ctx.finish()

        return dialogs.dialog(
            ctx,
            tr(ctx, "generic_delete_selected_confirm_title" if many else "track_delete_one_confirm_title"),
            tr(ctx, "track_delete_multiple_confirm_message" if many else "track_delete_one_confirm_message"),
            dialogs.confirm_buttons(ctx, tr(ctx, "ok"), ok, ctx.dismiss_dialog, tr(ctx, "cancel")),
            on_cancel=ctx.dismiss_dialog,
        )


def end_selection(ctx: Ctx) -> None:
    ctx.ui.pop("selecting", None)
    ctx.ui.pop("selected", None)


def _search_view(ctx: Ctx, box: tuple[int, int, int, int]) -> View:
    """The toolbar's SearchView, expanded: the query field (`search_src_text`), Clear query while it holds text,
    Submit query; submitting (or the keyboard's search key) shows the matching tracks under the query's title."""
    l, t, r, b = box
    isz = b - t
    text = ctx.field_value("search")
    group = V(ctx, w.LINEAR, box, "search_bar")

    def submit() -> None:
        if text.strip():  # SearchView.onSubmitQuery: an empty query is not sent
            ctx.ui["query"] = text
            ctx.ui.pop("search_open", None)
            ctx.set_field("search", "")
            ctx.set_focus(None)
            ctx.ui.setdefault("scroll", {}).pop("tracks", None)

    right = r - isz * (2 if text else 1)
    group.children.append(
        w.edit(
            ctx,
            (l, t, right, b),
            "search",
            text,
            tr(ctx, "menu_search"),
            lambda v: ctx.set_field("search", v),
            "search_src_text",
            action=submit,
            action_kind="search",
            box="none",
        )
    )
    if text:
        group.children.append(
            w.icon_button(
                ctx,
                (right, t, right + isz, b),
                "close",
                tr(ctx, "clear_query"),
                lambda: ctx.set_field("search", ""),
                "search_close_btn",
            )
        )
    group.children.append(w.icon_button(ctx, (r - isz, t, r, b), "send", tr(ctx, "search_go"), submit, "search_go_btn"))
    return group
