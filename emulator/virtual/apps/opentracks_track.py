"""OpenTracks' screens beyond the track list: TrackRecordedActivity (its tabs, the Stats tab -
statistics_recorded.xml: the activity type's icon, `stats_name_value`, `stats_description_value`,
`stats_start_datetime_value`, Distance, Moving time, Total time, the speeds or paces the activity type prefers,
Gain and Loss - and the bottom app bar's menu: Show on map, Share, Markers, Edit, Delete, Resume track, Settings),
TrackEditActivity (Name, Activity type, Description; Cancel / Save write the row) and AggregatedStatisticsActivity
(per activity type as written: the count, the distance, the moving time, the average moving and the top speed or
pace; of the selected tracks, or of all)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..ui import widgets as w
from ..ui.fonts import text_width
from ..ui.layout import Ctx, Row, V
from ..ui.view import View
from .base import page
from .opentracks_data import (
    TRACK_EDIT,
    Aggregate,
    aggregated,
    altitude_parts,
    distance_parts,
    elapsed,
    f32,
    icon_of,
    speed_parts,
    start_text,
    started,
    tr,
    track,
    type_by_name,
    update_track,
)
from .opentracks_widgets import BAR_DP, ORANGE, Item, bottom_app_bar, edit_rows, tabs_row

TABS = ("track_detail_stats_tab", "track_detail_intervals_tab", "settings_chart_by_time", "settings_chart_by_distance")


def _track_id(ctx: Ctx) -> int:
    return int(ctx.extras.get("track_id", -1))


# --- TrackRecordedActivity ---------------------------------------------------------------------------------------
def recorded_menu(ctx: Ctx) -> list[Item]:
    """track_detail.xml (Markers shown if room, as onPrepareOptionsMenu sets it)."""
    tid = _track_id(ctx)
    return [
        Item("track_detail_menu_show_on_map", tr(ctx, "menu_show_on_map"), "map", lambda: None),
        Item("track_detail_share", tr(ctx, "menu_share"), "share", lambda: None),
        Item("track_detail_markers", tr(ctx, "menu_markers"), "marker", lambda: None),
        Item("track_detail_edit", tr(ctx, "menu_edit"), "edit", lambda: ctx.push(TRACK_EDIT, {"track_id": tid}), False),
        Item(
            "track_detail_delete",
            tr(ctx, "menu_delete"),
            "delete",
            lambda: ctx.show_dialog({"id": "delete", "ids": [tid]}),
            False,
        ),
        Item("track_detail_resume_track", tr(ctx, "menu_resume_track"), "play", lambda: None, False),
        Item("track_detail_settings", tr(ctx, "menu_settings"), "settings", lambda: None, False),
    ]


def recorded_screen(ctx: Ctx) -> list[View]:
    t = track(ctx, _track_id(ctx))
    if t is None:  # no such track: the activity finishes (handleIntent / loadStatistics)
        ctx.finish()
        return []
    tab = int(ctx.extras.get("tab", 0))

    def pick(i: int) -> Callable[[], None]:
        return lambda: ctx.extras.update(tab=i)

    bar = tabs_row(ctx, [tr(ctx, k) for k in TABS], tab, pick)
    rows = _stats_rows(ctx, t) if tab == 0 else []
    overlays = bottom_app_bar(ctx, [], recorded_menu(ctx), "recorded")
    return page(
        ctx,
        [bar],
        rows,
        key=f"stats_{tab}",
        rid="track_detail_activity_view_pager",
        cls="android.widget.ScrollView",
        footer_h=ctx.dp(BAR_DP + 24),
        overlays=overlays,
    )


def _value_cell(ctx: Ctx, x: int, y: int, wd: int, key: str, label: str, value: str, unit: str | None) -> list[View]:
    """A statistic: its label over its value (and unit), the views named `stats_<key>_label/_value/_unit`."""
    th = ctx.theme
    lh, vh = ctx.line_h(12), ctx.line_h(24)
    out = [w.text(ctx, (x, y, x + wd, y + lh), label, f"stats_{key}_label", size=12, color=th.text2)]
    unit_w = 0 if unit is None else min(wd // 2, int(text_width(unit, ctx.sp(14))) + ctx.dp(8))
    vw = wd - unit_w
    out.append(w.text(ctx, (x, y + lh, x + vw, y + lh + vh), value, f"stats_{key}_value", size=24, bold=True))
    if unit is not None:
        out.append(
            w.text(ctx, (x + vw, y + lh, x + wd, y + lh + vh), unit, f"stats_{key}_unit", size=14, color=th.text2)
        )
    return out


def _cells_row(ctx: Ctx, cells: list[tuple[str, str, str, str | None]]) -> Row:
    h = ctx.line_h(12) + ctx.line_h(24) + ctx.dp(16)

    def build(x: int, y: int, wd: int) -> list[View]:
        out: list[View] = []
        cw = (wd - ctx.dp(32)) // max(1, len(cells))
        for i, (key, label, value, unit) in enumerate(cells):
            out += _value_cell(ctx, x + ctx.dp(16) + i * cw, y + ctx.dp(8), cw - ctx.dp(8), key, label, value, unit)
        return out

    return Row(h, build)


def _line(ctx: Ctx, rid: str) -> Row:
    return Row(
        ctx.dp(17),
        lambda x, y, wd: V(
            ctx,
            "android.view.View",
            (x + ctx.dp(16), y + ctx.dp(8), x + wd - ctx.dp(16), y + ctx.dp(9)),
            rid,
            style={"bg": ctx.theme.divider},
        ),
    )


def _stats_rows(ctx: Ctx, t: dict[str, Any]) -> list[Row]:
    th = ctx.theme
    kind = type_by_name(ctx, t["category"])
    icon_name, letter = icon_of(kind)
    name, description = str(t["name"] or ""), str(t["description"] or "")
    when = start_text(ctx, started(t))
    head_h = ctx.dp(16) + ctx.line_h(20) + ctx.line_h(14, 2 if description else 0) + ctx.line_h(14)

    def head(x: int, y: int, wd: int) -> list[View]:
        isz = ctx.dp(48)
        out = [
            w.icon(
                ctx,
                (x + ctx.dp(16), y + ctx.dp(8), x + ctx.dp(16) + isz, y + ctx.dp(8) + isz),
                icon_name,
                ORANGE,
                "stats_activity_type_icon",
            )
        ]
        out[0].style["letter"] = letter
        tx = x + ctx.dp(80)
        yy = y + ctx.dp(8)
        out.append(w.text(ctx, (tx, yy, x + wd - ctx.dp(16), yy + ctx.line_h(20)), name, "stats_name_value", size=20))
        yy += ctx.line_h(20)
        if description:
            dh = ctx.line_h(14, 2)
            out.append(
                w.text(
                    ctx,
                    (tx, yy, x + wd - ctx.dp(16), yy + dh),
                    description,
                    "stats_description_value",
                    size=14,
                    color=th.text2,
                    lines=2,
                    valign="t",
                )
            )
            yy += dh
        out.append(
            w.text(
                ctx,
                (tx, yy, x + wd - ctx.dp(16), yy + ctx.line_h(14)),
                when,
                "stats_start_datetime_value",
                size=14,
                color=th.text2,
            )
        )
        return out

    distance = distance_parts(ctx, t["totaldistance"])
    total_ms, moving_ms = int(t["totaltime"] or 0), int(t["movingtime"] or 0)
    meters = f32(t["totaldistance"]) or 0.0
    avg = meters / (total_ms // 1000) if total_ms // 1000 else 0.0
    moving = meters / (moving_ms / 1000) if moving_ms else 0.0
    top = max(float(t["maxspeed"] or 0), moving)
    speed = kind.speed
    label = {
        "max_speed": tr(ctx, "stats_max_speed" if speed else "stats_fastest_pace"),
        "moving_speed": tr(ctx, "stats_average_moving_speed" if speed else "stats_average_moving_pace"),
        "average_speed": tr(ctx, "stats_average_speed" if speed else "stats_average_pace"),
    }
    rows = [
        Row(head_h, head),
        _line(ctx, "stats_information_horizontal_line"),
        _cells_row(ctx, [("distance", tr(ctx, "stats_distance"), *distance)]),
        _cells_row(
            ctx,
            [
                ("moving_time", tr(ctx, "stats_moving_time"), elapsed(moving_ms), None),
                ("total_time", tr(ctx, "stats_total_time"), elapsed(total_ms), None),
            ],
        ),
        _line(ctx, "stats_speed_horizontal_line"),
        _cells_row(
            ctx,
            [
                ("max_speed", label["max_speed"], *speed_parts(ctx, top, speed)),
                ("moving_speed", label["moving_speed"], *speed_parts(ctx, moving, speed)),
            ],
        ),
        _cells_row(ctx, [("average_speed", label["average_speed"], *speed_parts(ctx, avg, speed))]),
    ]
    gain, loss = t["elevationgain"], t["elevationloss"]
    if gain is not None and loss is not None:
        rows += [
            _line(ctx, "stats_altitude_horizontal_line"),
            _cells_row(
                ctx,
                [
                    ("altitude_gain", tr(ctx, "stats_gain"), *altitude_parts(ctx, gain)),
                    ("altitude_loss", tr(ctx, "stats_loss"), *altitude_parts(ctx, loss)),
                ],
            ),
        ]
    return rows


# --- TrackEditActivity -------------------------------------------------------------------------------------------
def edit_screen(ctx: Ctx) -> list[View]:
    tid = _track_id(ctx)
    t = track(ctx, tid)
    if t is None:
        ctx.finish()
        return []
    if not ctx.extras.get("loaded"):  # onCreate: the fields from the track
        ctx.extras["loaded"] = True
        ctx.set_field("track_edit_name", str(t["name"] or ""))
        ctx.set_field("track_edit_activity_type", str(t["category"] or ""))
        ctx.set_field("track_edit_description", str(t["description"] or ""))
    name = ctx.field_value("track_edit_name")
    category = ctx.field_value("track_edit_activity_type")
    description = ctx.field_value("track_edit_description")

    def save() -> None:
        update_track(ctx, tid, name, category, description)
        ctx.set_focus(None)
        ctx.finish()

    rows = edit_rows(ctx, name, category, description)
    l, _, r, b = ctx.area
    bar_h = ctx.dp(BAR_DP + 24)
    btn_h = ctx.dp(56)
    y = b - bar_h - btn_h
    half = (r - l) // 2
    buttons = [
        w.button(
            ctx,
            (l + ctx.dp(8), y + ctx.dp(4), l + half - ctx.dp(4), y + btn_h - ctx.dp(4)),
            tr(ctx, "cancel"),
            ctx.finish,
            "track_edit_cancel",
            kind="text",
        ),
        w.button(
            ctx,
            (l + half + ctx.dp(4), y + ctx.dp(4), r - ctx.dp(8), y + btn_h - ctx.dp(4)),
            tr(ctx, "generic_save"),
            save,
            "track_edit_save",
            kind="text",
        ),
    ]
    overlays = buttons + bottom_app_bar(ctx, [], [], "edit")
    return page(
        ctx,
        [],
        rows,
        key="edit",
        rid="fields",
        cls="android.widget.ScrollView",
        footer_h=bar_h + btn_h,
        overlays=overlays,
    )


# --- AggregatedStatisticsActivity --------------------------------------------------------------------------------
def aggregated_screen(ctx: Ctx) -> list[View]:
    ids = ctx.extras.get("track_ids")
    stats = aggregated(ctx, [int(i) for i in ids] if ids else None)
    l, t, r, _ = ctx.area
    h = ctx.dp(BAR_DP)
    bar = V(ctx, "android.view.ViewGroup", (l, t, r, t + h), "toolbar", style={"bg": ctx.theme.bg})
    isz = ctx.dp(48)
    bar.children.append(
        w.icon(
            ctx,
            (l + ctx.dp(4), t + (h - isz) // 2, l + ctx.dp(4) + isz, t + (h + isz) // 2),
            "bar_chart",
            ctx.theme.text,
        )
    )
    bar.children.append(
        w.text(ctx, (l + ctx.dp(68), t, r - ctx.dp(16), t + h), tr(ctx, "menu_aggregated_statistics"), size=22)
    )
    rows = [_aggregate_row(ctx, a) for a in stats]
    if not stats:
        rows = [
            w.text_row(
                ctx,
                tr(ctx, "aggregated_stats_empty_message"),
                "aggregated_stats_empty_view",
                size=24,
                align="c",
                lines=4,
                height_dp=320,
            )
        ]
    return page(
        ctx,
        [bar],
        rows,
        key="aggregated",
        rid="aggregated_stats_list",
        footer_h=ctx.dp(BAR_DP + 24),
        overlays=bottom_app_bar(ctx, [], [], "aggregated"),
    )


def _aggregate_row(ctx: Ctx, a: Aggregate) -> Row:
    th = ctx.theme
    kind = type_by_name(ctx, a.category)
    icon_name, letter = icon_of(kind)
    distance = distance_parts(ctx, a.distance)
    moving = a.distance / (a.moving_ms / 1000) if a.moving_ms else 0.0
    speed = kind.speed
    avg_value, avg_unit = speed_parts(ctx, moving, speed)
    max_value, max_unit = speed_parts(ctx, max(a.max_speed, moving), speed)
    avg_label = tr(ctx, "stats_average_moving_speed" if speed else "stats_average_moving_pace")
    max_label = tr(ctx, "stats_max_speed" if speed else "stats_fastest_pace")
    l1, l2, l3 = ctx.dp(40), ctx.line_h(24), ctx.line_h(18) + ctx.line_h(12)
    h = l1 + l2 + l3 + ctx.dp(17)

    def build(x: int, y: int, wd: int) -> list[View]:
        x0, mid, x1 = x + ctx.dp(8), x + wd // 2, x + wd - ctx.dp(8)
        isz = ctx.dp(32)
        icon = w.icon(ctx, (x0, y + ctx.dp(4), x0 + isz, y + ctx.dp(4) + isz), icon_name, ORANGE, "activity_icon")
        icon.style["letter"] = letter
        out = [
            icon,
            w.text(
                ctx,
                (x0 + isz + ctx.dp(8), y, mid + ctx.dp(40), y + l1),
                a.category,
                "aggregated_stats_type_label",
                size=18,
                bold=True,
            ),
            w.text(
                ctx,
                (mid + ctx.dp(44), y, x1, y + l1),
                f"({a.count})",
                "aggregated_stats_num_tracks",
                size=18,
                bold=True,
            ),
        ]
        y2 = y + l1
        out += [
            w.text(
                ctx, (x0, y2, mid - ctx.dp(48), y2 + l2), distance[0], "aggregated_stats_distance", size=24, align="r"
            ),
            w.text(
                ctx,
                (mid - ctx.dp(44), y2, mid, y2 + l2),
                distance[1],
                "aggregated_stats_distance_unit",
                size=14,
                color=th.text2,
            ),
            w.text(ctx, (mid, y2, x1, y2 + l2), elapsed(a.moving_ms), "aggregated_stats_time", size=24, align="c"),
        ]
        y3 = y2 + l2
        lh = ctx.line_h(18)
        for left, right, key, value, unit, label in (
            (x0, mid, "avg_rate", avg_value, avg_unit, avg_label),
            (mid, x1, "max_rate", max_value, max_unit, max_label),
        ):
            uw = min((right - left) // 2, int(text_width(unit, ctx.sp(12))) + ctx.dp(8))
            out += [
                w.text(
                    ctx,
                    (left, y3, right - uw - ctx.dp(4), y3 + lh),
                    value,
                    f"aggregated_stats_{key}",
                    size=18,
                    align="r",
                ),
                w.text(
                    ctx,
                    (right - uw, y3, right, y3 + lh),
                    unit,
                    f"aggregated_stats_{key}_unit",
                    size=12,
                    color=th.text2,
                ),
                w.text(
                    ctx,
                    (left, y3 + lh, right, y3 + lh + ctx.line_h(12)),
                    label,
                    f"aggregated_stats_{key}_label",
                    size=12,
                    color=th.text2,
                    align="c",
                ),
            ]
        out.append(
            V(
                ctx,
                "android.view.View",
                (x, y + h - 1, x + wd, y + h),
                "aggregated_stats_horizontal_line",
                style={"bg": th.divider},
            )
        )
        return out

    return Row(h, build)
