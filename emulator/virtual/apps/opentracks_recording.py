"""OpenTracks' recording, without movement: the Record button starts a track (TrackRecordingManager.startNewTrack:
a `tracks` row named by its start, "2024-06-03T12:00-07" - the default DATE_ISO_8601 track name -, of the default
activity type, unknown), TrackRecordingActivity shows it running (its time from the device's clock; no GPS fix comes,
so the distance stays 0) with the Stop button (a tap says "Hold to stop", a long press ends the track), and
TrackStoppedActivity takes its name, activity type and description (Finish stores them; Resume records on; Discard
deletes it). The recording is the app process's (its service's): a force-stop ends it.

Recording needs the location and nearby-devices permissions: without them the Record button asks for them again
(the real build's service throws on Android 14 instead)."""

from __future__ import annotations

import datetime as dt
import uuid

from ..ui import widgets as w
from ..ui.layout import Ctx, Row
from ..ui.permissionprompt import has_permissions, request
from ..ui.view import View
from .base import page
from .opentracks_data import (
    DB,
    PKG,
    TRACK_LIST,
    delete_tracks,
    distance_parts,
    elapsed,
    now,
    now_ms,
    speed_parts,
    tr,
    track,
    type_by_name,
    update_track,
)
from .opentracks_widgets import BAR_DP, FAB_RISE_DP, ORANGE, bottom_app_bar, edit_rows, fab, tabs_row

TRACK_RECORDING = PKG + ".TrackRecordingActivity"
TRACK_STOPPED = PKG + ".TrackStoppedActivity"
_P = "android.permission."
RECORDING = tuple(
    _P + p for p in ("ACCESS_FINE_LOCATION", "ACCESS_COARSE_LOCATION", "BLUETOOTH_SCAN", "BLUETOOTH_CONNECT")
)


def recording(ctx: Ctx) -> int | None:
    """The track being recorded (RecordingStatus.trackId), None when not recording."""
    tid = ctx.ui.get("recording")
    return int(tid) if tid is not None else None


def start(ctx: Ctx) -> None:
    """The Record button: a new track, and TrackRecordingActivity on it."""
    if recording(ctx) is not None:
        ctx.toast(tr(ctx, "hold_to_stop"))
        return
    if not has_permissions(ctx.model, PKG, RECORDING):
        request(ctx.model, PKG, RECORDING)
        return
    when = now(ctx.model)
    offset = int((when.utcoffset() or dt.timedelta()).total_seconds())
    ms = now_ms(ctx.model)
    zone = "Z" if offset == 0 else f"{'-' if offset < 0 else '+'}{abs(offset) // 3600:02d}"
    if offset % 3600:
        zone += f"{abs(offset) % 3600 // 60:02d}"
    name = when.strftime("%Y-%m-%dT%H:%M") + zone  # yyyy-MM-dd'T'HH:mmX
    unknown = type_by_name(ctx, None)
    tid = DB.execute(
        ctx.model.fs,
        "INSERT INTO tracks (name, description, category, starttime, stoptime, numpoints, totaldistance, totaltime, "
        "movingtime, avgspeed, avgmovingspeed, maxspeed, minelevation, maxelevation, elevationgain, icon, uuid, "
        "elevationloss, starttime_offset, activity_type) "
        "VALUES (?, '', ?, ?, ?, 0, 0, 0, 0, 0, 0, 0, NULL, NULL, NULL, '', ?, NULL, ?, ?)",
        (name, unknown.name(ctx.zh), ms, ms, uuid.uuid4().bytes, offset, unknown.id),
    )
    ctx.ui["recording"] = tid
    ctx.push(TRACK_RECORDING, {"track_id": tid})


def stop(ctx: Ctx) -> int | None:
    """TrackRecordingService.endCurrentTrack: the track's stop time and total time written (no movement: moving time
    and distance stay 0)."""
    tid = recording(ctx)
    if tid is None:
        return None
    ctx.ui.pop("recording", None)
    t = track(ctx, tid)
    if t is not None:
        ms = now_ms(ctx.model)
        DB.execute(
            ctx.model.fs,
            "UPDATE tracks SET stoptime = ?, totaltime = ? WHERE _id = ?",
            (ms, max(0, ms - int(t["starttime"] or ms)), tid),
        )
    return tid


def resume(ctx: Ctx, tid: int) -> None:
    ctx.ui["recording"] = tid
    ctx.finish()
    ctx.push(TRACK_RECORDING, {"track_id": tid})


# --- TrackRecordingActivity --------------------------------------------------------------------------------------
def recording_screen(ctx: Ctx) -> list[View]:
    tid = int(ctx.extras.get("track_id", -1))
    t = track(ctx, tid)
    if t is None:
        ctx.finish()
        return []
    tabs = (
        "track_detail_stats_tab",
        "track_detail_intervals_tab",
        "settings_chart_by_time",
        "settings_chart_by_distance",
    )
    bar = tabs_row(ctx, [tr(ctx, k) for k in tabs], 0, None)
    running = now_ms(ctx.model) - int(t["starttime"] or 0) if recording(ctx) == tid else int(t["totaltime"] or 0)
    speed = type_by_name(ctx, t["category"]).speed
    fields = [
        ("total_time", tr(ctx, "stats_total_time"), elapsed(running), None),
        ("moving_time", tr(ctx, "stats_moving_time"), elapsed(t["movingtime"]), None),
        ("distance", tr(ctx, "stats_distance"), *distance_parts(ctx, t["totaldistance"])),
        ("speed", tr(ctx, "stats_speed" if speed else "stats_pace"), *speed_parts(ctx, 0.0, speed)),
    ]
    rows = [_field_row(ctx, *f) for f in fields]

    def hold() -> None:
        ctx.toast(tr(ctx, "hold_to_stop"))

    def stop_and_edit() -> None:
        stopped = stop(ctx)
        ctx.finish()
        if stopped is not None:
            ctx.push(TRACK_STOPPED, {"track_id": stopped})

    stop_button = fab(ctx, "stop", tr(ctx, "image_stop"), "track_recording_fab_action", hold)
    stop_button.long_clickable, stop_button.on_long_click = True, stop_and_edit
    stop_button.style["bg"] = ORANGE
    overlays = bottom_app_bar(ctx, [], [], "recording", stop_button)
    return page(
        ctx,
        [bar],
        rows,
        key="recording",
        rid="track_detail_activity_view_pager",
        footer_h=ctx.dp(BAR_DP + 24 + FAB_RISE_DP),
        overlays=overlays,
    )


def _field_row(ctx: Ctx, key: str, label: str, value: str, unit: str | None) -> Row:
    h = ctx.line_h(14) + ctx.line_h(32) + ctx.dp(16)

    def build(x: int, y: int, wd: int) -> list[View]:
        pad = ctx.dp(16)
        out = [
            w.text(
                ctx,
                (x + pad, y + ctx.dp(8), x + wd - pad, y + ctx.dp(8) + ctx.line_h(14)),
                label,
                "stats_label",
                size=14,
                color=ctx.theme.text2,
            )
        ]
        vy = y + ctx.dp(8) + ctx.line_h(14)
        out.append(
            w.text(ctx, (x + pad, vy, x + wd * 2 // 3, vy + ctx.line_h(32)), value, "stats_value", size=32, bold=True)
        )
        if unit is not None:
            out.append(
                w.text(
                    ctx,
                    (x + wd * 2 // 3, vy, x + wd - pad, vy + ctx.line_h(32)),
                    unit,
                    "stats_unit",
                    size=14,
                    color=ctx.theme.text2,
                )
            )
        return out

    return Row(h, build)


# --- TrackStoppedActivity ----------------------------------------------------------------------------------------
def stopped_screen(ctx: Ctx) -> list[View]:
    tid = int(ctx.extras.get("track_id", -1))
    t = track(ctx, tid)
    if t is None:
        ctx.finish()
        return []
    if not ctx.extras.get("loaded"):
        ctx.extras["loaded"] = True
        ctx.set_field("track_edit_name", str(t["name"] or ""))
        ctx.set_field("track_edit_activity_type", str(t["category"] or ""))
        ctx.set_field("track_edit_description", str(t["description"] or ""))
    name = ctx.field_value("track_edit_name")
    category = ctx.field_value("track_edit_activity_type")
    description = ctx.field_value("track_edit_description")
    kind = type_by_name(ctx, category)

    def store() -> None:
        update_track(ctx, tid, name, category, description)
        ctx.set_focus(None)

    def finish() -> None:
        store()
        ctx.finish()

    def resume_track() -> None:
        store()
        resume(ctx, tid)

    def discard() -> None:
        delete_tracks(ctx, [tid])
        ctx.set_focus(None)
        ctx.finish()

    moving = int(t["movingtime"] or 0)
    meters = float(t["totaldistance"] or 0)
    dist = distance_parts(ctx, meters)
    speed = speed_parts(ctx, meters / (moving / 1000) if moving else 0.0, kind.speed)

    def figures(x: int, y: int, wd: int) -> list[View]:
        pad = ctx.dp(16)
        big, mid = ctx.line_h(48), ctx.line_h(32)
        out = [w.text(ctx, (x + pad, y, x + wd - pad, y + big), elapsed(moving), "time", size=48, align="c")]
        half = x + wd // 2
        for left, value, unit, vid in ((x + pad, *dist, "distance"), (half, *speed, "speed")):
            out.append(w.text(ctx, (left, y + big, left + wd // 4, y + big + mid), value, vid, size=32, align="r"))
            out.append(
                w.text(
                    ctx,
                    (left + wd // 4 + ctx.dp(4), y + big, left + wd // 2 - pad, y + big + mid),
                    unit,
                    f"{vid}_unit",
                    size=14,
                    color=ctx.theme.text2,
                )
            )
        return out

    rows = [
        *edit_rows(ctx, name, category, description),
        Row(ctx.line_h(48) + ctx.line_h(32) + ctx.dp(16), figures),
    ]
    l, _, r, b = ctx.area
    bar_h = ctx.dp(96)
    cx = (l + r) // 2
    y = b - bar_h + ctx.dp(16)
    th = ctx.theme
    buttons = [
        w.icon(
            ctx,
            (cx - ctx.dp(84) - ctx.dp(32), y + ctx.dp(16), cx - ctx.dp(84), y + ctx.dp(48)),
            "delete",
            th.text,
            "discard_button",
            tr(ctx, "image_discard"),
            on_click=discard,
        ),
        w.icon(
            ctx,
            (cx - ctx.dp(32), y, cx + ctx.dp(32), y + ctx.dp(64)),
            "play",
            ORANGE,
            "resume_button",
            tr(ctx, "image_record"),
            on_click=resume_track,
        ),
        w.icon(
            ctx,
            (cx + ctx.dp(68), y, cx + ctx.dp(132), y + ctx.dp(64)),
            "check",
            ORANGE,
            "finish_button",
            tr(ctx, "image_stop"),
            on_click=finish,
        ),
    ]
    return page(
        ctx,
        [],
        rows,
        key="stopped",
        rid="content_linear_layout",
        cls="android.widget.ScrollView",
        footer_h=bar_h,
        overlays=buttons,
    )


def stopped_back(ctx: Ctx) -> None:
    """TrackStoppedActivity.onBackPressed: the track recorded on."""
    resume(ctx, int(ctx.extras.get("track_id", -1)))


def list_fab(ctx: Ctx) -> View:
    """TrackListActivity's floating button: Record, or (recording) stop on a long press."""
    v = fab(
        ctx,
        "stop" if recording(ctx) is not None else "record",
        tr(ctx, "image_record"),
        "track_list_fab_action",
        lambda: start(ctx),
    )
    if recording(ctx) is not None:
        v.long_clickable, v.on_long_click = True, lambda: stop(ctx)
        v.style["bg"] = ORANGE
    return v


__all__ = [
    "TRACK_LIST",
    "TRACK_RECORDING",
    "TRACK_STOPPED",
    "list_fab",
    "recording",
    "recording_screen",
    "stopped_back",
    "stopped_screen",
]
