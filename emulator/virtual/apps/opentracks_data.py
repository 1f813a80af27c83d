"""OpenTracks (de.dennisguse.opentracks)'s data: its SQLite database `database.db` as the v4.11.3 build's
SQLiteOpenHelper creates it (version 37: `tracks`, `trackpoints`, `markers`, Android's `android_metadata`), its
SharedPreferences (the unit system), its activity types and strings (English and zh-CN), and the values its screens
show, formatted as the app formats them.

The database is the app's one truth. A track is a `tracks` row: `category` the activity type as the user wrote it
(its localized name), `activity_type` the type's id, times in ms since the epoch, `starttime_offset` the zone offset
the track was recorded in (seconds), `totaldistance` in meters, `totaltime` / `movingtime` in ms. The track list
reads them newest first (`starttime DESC`); Search matches the name, the description or the category.

Units: Startup writes the default unit system on the first start - imperial (mi, ft) for a device in en-US, metric
(km, m) otherwise (PreferencesUtils.applyDefaultUnit) - and every distance and speed is shown in it.
"""

from __future__ import annotations

import datetime as dt
import struct
from dataclasses import dataclass
from decimal import ROUND_HALF_EVEN, Decimal
from typing import Any

from ..appstorage import AppDatabase, SharedPrefs
from ..clock import zone_named
from ..ui.host import Device
from .common import DEVICE_DATE, DEVICE_HOUR, DEVICE_MINUTE, MONTHS_EN, WEEKDAYS_EN

PKG = "de.dennisguse.opentracks"
TRACK_LIST = PKG + ".TrackListActivity"
TRACK_RECORDED = PKG + ".TrackRecordedActivity"
TRACK_EDIT = PKG + ".TrackEditActivity"
AGGREGATED = PKG + ".ui.aggregatedStatistics.AggregatedStatisticsActivity"
VERSION_NAME, VERSION_CODE = "v4.11.3", 5705  # the build AndroidWorld installs (de.dennisguse.opentracks_5705.apk)

# CustomSQLiteOpenHelper.onCreate (TrackPointsColumns, TracksColumns, MarkerColumns) and SQLiteOpenHelper's
# android_metadata
DDL = """
CREATE TABLE android_metadata (locale TEXT);
INSERT INTO android_metadata VALUES ('en_US');
CREATE TABLE trackpoints (_id INTEGER PRIMARY KEY AUTOINCREMENT, trackid INTEGER NOT NULL, longitude INTEGER, latitude INTEGER, time INTEGER, elevation FLOAT, accuracy FLOAT, speed FLOAT, bearing FLOAT, sensor_heartrate FLOAT, sensor_cadence FLOAT, sensor_power FLOAT, elevation_gain FLOAT, elevation_loss FLOAT, type TEXT CHECK(type IN (-2, -1, 0, 1, 3)), sensor_distance FLOAT, accuracy_vertical FLOAT, FOREIGN KEY (trackid) REFERENCES tracks(_id) ON UPDATE CASCADE ON DELETE CASCADE);
CREATE INDEX trackpoints_trackid_index ON trackpoints(trackid);
CREATE TABLE tracks (_id INTEGER PRIMARY KEY AUTOINCREMENT, name TEXT, description TEXT, category TEXT, starttime INTEGER, stoptime INTEGER, numpoints INTEGER, totaldistance FLOAT, totaltime INTEGER, movingtime INTEGER, avgspeed FLOAT, avgmovingspeed FLOAT, maxspeed FLOAT, minelevation FLOAT, maxelevation FLOAT, elevationgain FLOAT, icon TEXT, uuid BLOB, elevationloss FLOAT, starttime_offset INTEGER, activity_type TEXT);
CREATE UNIQUE INDEX tracks_uuid_index ON tracks(uuid);
CREATE TABLE markers (_id INTEGER PRIMARY KEY AUTOINCREMENT, name TEXT, description TEXT, category TEXT, icon TEXT, trackid INTEGER NOT NULL, length FLOAT, duration INTEGER, longitude INTEGER, latitude INTEGER, time INTEGER, elevation FLOAT, accuracy FLOAT, bearing FLOAT, photoUrl TEXT, FOREIGN KEY (trackid) REFERENCES tracks(_id) ON UPDATE CASCADE ON DELETE CASCADE);
CREATE INDEX markers_trackid_index ON markers(trackid);
"""  # noqa: E501 - the statements as the app writes them
DB = AppDatabase(PKG, "database.db", DDL, 37)
PREFS = SharedPrefs(PKG)
UNITS_KEY = "statsUnits"
METRIC, IMPERIAL = "METRIC", "IMPERIAL"  # stats_units_metric / stats_units_imperial_feet

STRINGS: dict[str, tuple[str, str]] = {
    "app_name": ("OpenTracks", "OpenTracks"),
    "menu_search": ("Search", "搜索"),
    "menu_markers": ("Markers", "标记"),
    "menu_settings": ("Settings", "设置"),
    "menu_help": ("Help", "帮助"),
    "menu_aggregated_statistics": ("Aggregated stats", "汇总统计数据"),
    "menu_show_on_map": ("Show on map", "在地图上显示"),
    "menu_share": ("Share", "分享"),
    "menu_edit": ("Edit", "修改"),
    "menu_delete": ("Delete", "删除"),
    "menu_select_all": ("Select all", "全选"),
    "menu_resume_track": ("Resume track", "继续"),
    "track_detail_stats_tab": ("Stats", "统计信息"),
    "track_detail_intervals_tab": ("Intervals", "分段"),
    "settings_chart_by_time": ("By time", "按时间"),
    "settings_chart_by_distance": ("By distance", "按距离"),
    "stats_distance": ("Distance", "距离"),
    "stats_moving_time": ("Moving time", "移动时间"),
    "stats_total_time": ("Total time", "总时间"),
    "stats_gain": ("Gain", "爬升"),
    "stats_loss": ("Loss", "降低"),
    "stats_average_speed": ("Avg speed", "平均速度"),
    "stats_average_pace": ("Avg pace", "平均配速"),
    "stats_max_speed": ("Max speed", "最高速度"),
    "stats_fastest_pace": ("Fastest pace", "最快配速"),
    "stats_average_moving_speed": ("Avg moving speed", "平均移动速度"),
    "stats_average_moving_pace": ("Avg moving pace", "平均移动配速"),
    "image_record": ("Record", "记录"),
    "image_track": ("Track", "跟踪"),
    "aggregated_stats_empty_message": (
        "Record your first track to see aggregated statistics",
        "记录您的第一条路线后即可看到汇总统计数据",
    ),
    "track_list_empty_message": ("Start recording your next adventure here", "在这里开始记录您的新冒险"),
    "generic_today": ("Today", "今天"),
    "generic_yesterday": ("Yesterday", "昨天"),
    "generic_name": ("Name", "名称"),
    "generic_description": ("Description", "说明"),
    "generic_save": ("Save", "保存"),
    "cancel": ("Cancel", "取消"),  # android:string/cancel
    "ok": ("OK", "确定"),  # android:string/ok
    "track_edit_activity_type_hint": ("Activity type", "活动类型"),
    "track_delete_one_confirm_title": ("Delete track?", "删除路线？"),
    "track_delete_one_confirm_message": (
        "The track and its markers will be permanently deleted from the device.",
        "系统将从设备中永久删除路线及其标记。",
    ),
    "generic_delete_selected_confirm_title": ("Delete selected?", "删除所选项？"),
    "track_delete_multiple_confirm_message": (
        "The selected tracks and their markers will be permanently deleted from the device.",
        "系统将从设备中永久删除选定的路线及其标记。",
    ),
    "hold_to_stop": ("Hold to stop", "长按停止"),
    "image_stop": ("Stop", "停止"),
    "image_discard": ("Discard", "丢弃"),
    "generic_recording": ("Recording\u2026", "正在记录…"),
    "stats_speed": ("Speed", "速度"),
    "stats_pace": ("Pace", "配速"),
    "more_options": ("More options", "更多选项"),  # AppCompat's abc_action_menu_overflow_description
    "done": ("Done", "完成"),  # AppCompat's abc_action_mode_done
    "navigate_up": ("Navigate up", "转到上一层级"),  # AppCompat's abc_action_bar_up_description
    "search_go": ("Submit query", "提交查询"),  # AppCompat's abc_searchview_description_submit
    "clear_query": ("Clear query", "清除查询"),  # AppCompat's abc_searchview_description_clear
}


def tr(ctx: Any, key: str) -> str:
    en, zh = STRINGS[key]
    return zh if ctx.zh else en


# --- activity types (ActivityType: id, localized name en / zh, icon, speed rather than pace) ----------------------
@dataclass(frozen=True)
class ActivityType:
    id: str
    en: str
    zh: str
    icon: str  # the drawable's name, ic_activity_<icon>_24dp ("" for the unknown icon)
    speed: bool

    def name(self, zh: bool) -> str:
        return self.zh if zh else self.en


def _t(spec: str) -> ActivityType:
    ident, en, zh, icon, speed = spec.split("|")
    return ActivityType(ident, en, zh, icon, speed == "1")


# in the enum's order (findByLocalizedString takes the first type with that name)
TYPES = tuple(
    _t(s)
    for s in (
        "airplane|airplane|坐飞机|flight|1",
        "ATV|ATV|全地形越野|drive|1",
        "biking|biking|自行车|bike|1",
        "blimp|blimp|小型飞艇游览||1",
        "boat|boat|船|boat|1",
        "climbing|climbing|攀岩|climbing|0",
        "commercial airplane|commercial airplane|乘坐民航机|flight|1",
        "cross-country skiing|cross-country skiing|越野滑雪|skiing|1",
        "cycling|cycling|骑自行车|bike|1",
        "dirt bike|dirt bike|泥地骑行|mtb|1",
        "donkey back riding|donkey back riding|骑驴||1",
        "driving|driving|开车|drive|1",
        "driving bus|driving bus|驾驶巴士|drive|1",
        "driving car|driving car|开车|drive|1",
        "escooter|escooter|电动滑板车|escooter|1",
        "ferry|ferry|轮渡|boat|1",
        "frisbee|frisbee|飞盘运动||1",
        "gliding|gliding|滑翔||1",
        "hang gliding|hang gliding|滑翔翼运动||1",
        "helicopter|helicopter|乘坐直升机||1",
        "hiking|hiking|徒步|walk|0",
        "horse back riding|horse back riding|骑马||1",
        "hot air balloon|hot air balloon|热气球游览||1",
        "ice sailing|ice sailing|冰上帆船||1",
        "inline skating|inline skating|直排轮滑|inline_skating|1",
        "kayaking|kayaking|皮划艇|kayaking|1",
        "kite surfing|kite surfing|风筝冲浪||1",
        "land sailing|land sailing|陆地帆船||1",
        "mixed type|mixed type|混合型||1",
        "motor bike|motor bike|骑摩托车|mtb|1",
        "motor boating|motor boating|摩托艇运动|boat|1",
        "mountain biking|mountain biking|山地自行车|mtb|1",
        "off trail hiking|hiking|徒步|walk|0",
        "other|other|其他||1",
        "paddling|paddling|划船||1",
        "para gliding|para gliding|滑翔伞运动||1",
        "RC airplane|RC airplane|遥控飞机|flight|1",
        "RC boat|RC boat|遥控船|boat|1",
        "RC helicopter|RC helicopter|遥控直升机||1",
        "riding|horse back riding|骑马||1",
        "road biking|road biking|公路自行车|bike|1",
        "roller skiing|roller skiing|旱地滑雪||1",
        "rowing|rowing|赛艇||1",
        "running|running|跑步|run|0",
        "sailing|sailing|帆船|sailing|1",
        "kickscooter|scooter|滑板车|scooter|1",
        "seaplane|seaplane|坐水上飞机|flight|1",
        "skateboarding|skate boarding|滑板运动|skateboarding|1",
        "skating|skating|滑冰||1",
        "skiing|skiing|滑雪|skiing|1",
        "sky jumping|sky jumping|跳伞||1",
        "sled|sled|坐雪橇||1",
        "snowboarding|snow boarding|单板滑雪|snowboarding|1",
        "snow shoeing|snow shoeing|雪地健行||1",
        "speed walking|speed walking|快步走|walk|0",
        "street running|street running|上街跑|run|0",
        "surfing|surfing|冲浪||1",
        "track cycling|track cycling|场地自行车|bike|1",
        "track running|trail running|越野跑|run|0",
        "trail hiking|trail hiking|沿小路徒步|walk|0",
        "trail running|trail running|越野跑|run|0",
        "train|train|坐火车||1",
        "ultimate frisbee|ultimate frisbee|极限飞盘||1",
        "wakeboarding|wakeboarding|尾波滑水||1",
        "walking|walking|步行|walk|0",
        "water skiing|water skiing|划水||1",
        "wind surfing|wind surfing|帆板运动||1",
        "swimming|swimming|游泳|swimming|0",
        "swimming in open water|swimming in open water|开放水域游泳|swimming_open|0",
        "workout|workout|健身|workout|0",
        "unknown|unknown|未知||1",
    )
)
UNKNOWN = TYPES[-1]


def type_by_id(ident: str | None) -> ActivityType:
    """ActivityType.findBy: the type with that id, else unknown."""
    return next((t for t in TYPES if t.id == ident), UNKNOWN)


def type_by_name(ctx: Any, name: str | None) -> ActivityType:
    """ActivityType.findByLocalizedString: the first type whose name in the UI's language is `name`."""
    return next((t for t in TYPES if t.name(ctx.zh) == name), UNKNOWN)


ICON_LETTERS = {"bike": "B", "mtb": "M", "run": "R", "walk": "W", "swimming": "S", "swimming_open": "S"}


def icon_of(t: ActivityType) -> tuple[str, str]:
    """(icon name, the letter drawn for it) of a type's drawable."""
    name = f"activity_{t.icon}" if t.icon else "activity_unknown"
    return name, ICON_LETTERS.get(t.icon, (t.icon[:1] or "?").upper())


# --- preferences -------------------------------------------------------------------------------------------------
def apply_default_unit(model: Device) -> None:
    """Startup: the unit system set once, imperial in en-US, metric elsewhere (applyDefaultUnit)."""
    if not PREFS.read(model.fs).get(UNITS_KEY):
        PREFS.put(model.fs, UNITS_KEY, IMPERIAL if model.locale == "en" else METRIC)


def unit_system(ctx: Any) -> str:
    value = PREFS.read(ctx.model.fs).get(UNITS_KEY)
    return IMPERIAL if value == IMPERIAL else METRIC


# --- the clock, in the device's zone ------------------------------------------------------------------------------
DEVICE_TZ = dt.timezone(dt.timedelta(hours=-7))  # the fixed clock's zone, as the other apps'


def zone(model: Device) -> dt.tzinfo:
    return zone_named(model.time_zone) if model.clock_set else DEVICE_TZ


def now(model: Device) -> dt.datetime:
    if model.clock_set:
        return dt.datetime.fromtimestamp(model.now(), zone(model))
    d = DEVICE_DATE
    return dt.datetime(d.year, d.month, d.day, DEVICE_HOUR, DEVICE_MINUTE, tzinfo=DEVICE_TZ)


def now_ms(model: Device) -> int:
    return int(now(model).timestamp() * 1000)


# --- formatting (StringUtils, DistanceFormatter, SpeedFormatter, ListItemUtils) -----------------------------------
MI = 1609.344  # Distance.MI_TO_M
M_TO_MI = 1 / MI
M_TO_FT = M_TO_MI * 5280.0
KM = 1000.0


def f32(value: float | None) -> float | None:
    """The value as the app reads it (Cursor.getFloat: a 32-bit float)."""
    return None if value is None else struct.unpack("f", struct.pack("f", float(value)))[0]


def fmt_decimal(value: float, places: int) -> str:
    """StringUtils.formatDecimal: DecimalFormat with grouping, `places` digits after the point, half-even."""
    q = Decimal(value).quantize(Decimal(1).scaleb(-places), rounding=ROUND_HALF_EVEN)
    return f"{q:,.{places}f}"


def distance_parts(ctx: Any, meters: float | None, places: int = 2, threshold: float = 0.5) -> tuple[str, str]:
    """DistanceFormatter.getDistanceParts: km / mi above the threshold, m / ft below."""
    imperial = unit_system(ctx) == IMPERIAL
    meters = f32(meters)
    if meters is None:
        return "-", "ft" if imperial else "m"
    if imperial:
        if meters > threshold * MI:
            return fmt_decimal(meters * M_TO_MI, places), "mi"
        return fmt_decimal(meters * M_TO_FT, places), "ft"
    if meters > threshold * KM:
        return fmt_decimal(meters / KM, places), "km"
    return fmt_decimal(meters, places), "m"


def format_distance(ctx: Any, meters: float | None) -> str:
    value, unit = distance_parts(ctx, meters)
    return f"{value} {unit}"


def altitude_parts(ctx: Any, meters: float | None) -> tuple[str, str]:
    return distance_parts(ctx, meters, 0, float("inf"))


def elapsed(ms: int | float | None) -> str:
    """DateUtils.formatElapsedTime: MM:SS, or H:MM:SS from an hour on."""
    s = int((ms or 0) // 1000)
    h, m, sec = s // 3600, s % 3600 // 60, s % 60
    return f"{h}:{m:02d}:{sec:02d}" if h else f"{m:02d}:{sec:02d}"


def speed_parts(ctx: Any, mps: float, speed: bool) -> tuple[str, str]:
    """SpeedFormatter.getSpeedParts: km/h or mph with one decimal, or the pace per km / mi as M:SS."""
    imperial = unit_system(ctx) == IMPERIAL
    per = M_TO_MI if imperial else 1 / KM  # the distance unit per meter
    if speed:
        return fmt_decimal(mps * 3600 * per, 1), "mph" if imperial else "km/h"
    pace = int(1 / (mps * per) + 0.5) if mps > 0 else 0  # Speed.toPace: Math.round(seconds per km / mi)
    return f"{pace // 60}:{pace % 60:02d}", "min/mi" if imperial else "min/km"


def started(row: dict[str, Any]) -> dt.datetime:
    """The track's start in the zone it was recorded in (OffsetDateTime with starttime_offset)."""
    offset = dt.timezone(dt.timedelta(seconds=int(row.get("starttime_offset") or 0)))
    return dt.datetime.fromtimestamp(int(row.get("starttime") or 0) / 1000, offset)


def _offset_differs(model: Device, when: dt.datetime) -> bool:
    return when.utcoffset() != now(model).utcoffset()


def date_label(ctx: Any, when: dt.datetime) -> str:
    """StringUtils.formatDateTodayRelative: Today, Yesterday, the weekday within a week, else "8 Oct" (with the year
    when it is not this year's)."""
    today = now(ctx.model).date()
    day = when.date()
    days = (today - day).days
    if days == 0:
        return tr(ctx, "generic_today")
    if days == 1:
        return tr(ctx, "generic_yesterday")
    if days < 7:
        return ("星期" + "一二三四五六日"[day.weekday()]) if ctx.zh else WEEKDAYS_EN[day.weekday()]
    month = f"{day.month}月" if ctx.zh else MONTHS_EN[day.month - 1][:3]
    return f"{day.day} {month}" + ("" if day.year == today.year else f" {day.year}")


def time_label(ctx: Any, when: dt.datetime) -> str:
    """ListItemUtils.setDateAndTime: HH:mm, with the offset ("+02") when the track's zone is not the device's."""
    text = when.strftime("%H:%M")
    if _offset_differs(ctx.model, when):
        secs = int((when.utcoffset() or dt.timedelta()).total_seconds())
        sign, secs = ("-" if secs < 0 else "+"), abs(secs)
        text += f" {sign}{secs // 3600:02d}" + (f"{secs % 3600 // 60:02d}" if secs % 3600 else "")
    return text


def start_text(ctx: Any, when: dt.datetime) -> str:
    """StringUtils.formatDateTimeWithOffsetIfDifferent: the MEDIUM date and time ("Oct 12, 2023, 2:15:00 PM")."""
    if ctx.zh:
        return f"{when.year}年{when.month}月{when.day}日 {when:%H:%M:%S}"
    hour = when.hour % 12 or 12
    text = f"{MONTHS_EN[when.month - 1][:3]} {when.day}, {when.year}, {hour}:{when:%M:%S} {when:%p}"
    if _offset_differs(ctx.model, when):  # FULL: with the zone
        text = f"{WEEKDAYS_EN[when.weekday()]}, {MONTHS_EN[when.month - 1]} {when.day}, {when.year}, " + (
            f"{hour}:{when:%M:%S} {when:%p} {when.strftime('%z')}"
        )
    return text


# --- reads and writes ---------------------------------------------------------------------------------------------
LIST_COLUMNS = (
    "_id, name, description, activity_type, category, starttime, starttime_offset, totaldistance, totaltime, "
    "(SELECT COUNT(*) FROM markers WHERE markers.trackid = tracks._id) AS markerCount"
)


def tracks(ctx: Any, query: str | None = None) -> list[dict[str, Any]]:
    """ContentProviderUtils.searchTracks: newest first; a query matches the name, the description or the
    category (LIKE %query%)."""
    sql = f"SELECT {LIST_COLUMNS} FROM tracks"
    params: tuple[str, ...] = ()
    if query is not None:
        sql += " WHERE name LIKE ? OR description LIKE ? OR category LIKE ?"
        params = (f"%{query}%",) * 3
    return DB.rows(ctx.model.fs, sql + " ORDER BY starttime DESC", params)


def track(ctx: Any, track_id: int) -> dict[str, Any] | None:
    rows = DB.rows(ctx.model.fs, "SELECT * FROM tracks WHERE _id = ?", (track_id,))
    return rows[0] if rows else None


def update_track(ctx: Any, track_id: int, name: str, category: str, description: str) -> None:
    """TrackUtils.updateTrack: the name, the activity type as written and the type it names, the description."""
    DB.execute(
        ctx.model.fs,
        "UPDATE tracks SET name = ?, category = ?, activity_type = ?, description = ? WHERE _id = ?",
        (name, category, type_by_name(ctx, category).id, description, track_id),
    )


def delete_tracks(ctx: Any, ids: list[int]) -> None:
    with DB.change(ctx.model.fs) as conn:
        for i in ids:
            conn.execute("DELETE FROM markers WHERE trackid = ?", (i,))
            conn.execute("DELETE FROM trackpoints WHERE trackid = ?", (i,))
            conn.execute("DELETE FROM tracks WHERE _id = ?", (i,))


@dataclass
class Aggregate:
    """AggregatedStatistic: the tracks of one activity type (as written), their statistics merged."""

    category: str
    count: int
    distance: float  # m
    moving_ms: int
    max_speed: float  # m/s


def aggregated(ctx: Any, ids: list[int] | None = None) -> list[Aggregate]:
    """AggregatedStatistics over the selected tracks (all when None): by the `category` column, the types with the
    most tracks first, then by name."""
    sql = "SELECT category, totaldistance, movingtime, maxspeed FROM tracks"
    if ids is not None:
        sql += f" WHERE _id IN ({','.join('?' * len(ids))})"
    groups: dict[str, Aggregate] = {}
    for r in DB.rows(ctx.model.fs, sql, tuple(ids or ())):
        cat = str(r["category"] or "")
        dist, moving = float(r["totaldistance"] or 0), int(r["movingtime"] or 0)
        own = max(float(r["maxspeed"] or 0), dist / (moving / 1000) if moving else 0.0)
        g = groups.get(cat)
        if g is None:
            groups[cat] = Aggregate(cat, 1, dist, moving, own)
        else:
            g.count, g.distance, g.moving_ms = g.count + 1, g.distance + dist, g.moving_ms + moving
            g.max_speed = max(g.max_speed, own)
    return sorted(groups.values(), key=lambda g: (-g.count, g.category))
