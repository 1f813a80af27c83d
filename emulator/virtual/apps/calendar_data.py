"""Simple Calendar Pro's data: its Room database `events.db` (the schema version 8 its 6.22.2 build creates: `events`,
`event_types`, `widgets`, `tasks`, Room's `room_master_table` and SQLite's `android_metadata`), what it reads from
it (the events of a span of days, repeating ones expanded into occurrences as its EventsHelper does) and writes to
it (an event inserted, updated, deleted), the device's dates as its Formatter writes them, and its strings (the
app's and Simple-Commons' English and zh-CN ones).

Times are epoch seconds read in the device's time zone (`persist.sys.timezone`); "now" is the device's wall clock
once it was set by hand (`date`, AndroidWorld's set-up), else the fixed reproducible moment the status bar shows.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import json
from dataclasses import dataclass
from typing import Any

from ..appstorage import AppDatabase
from ..clock import zone_named
from ..ui.host import Device
from ..ui.layout import Ctx
from .common import DEVICE_DATE, DEVICE_HOUR, DEVICE_MINUTE, MONTHS_EN

PKG = "com.simplemobiletools.calendar.pro"
_ACT = PKG + ".activities."
MAIN = _ACT + "MainActivity"
EVENT = _ACT + "EventActivity"
VERSION_NAME, VERSION_CODE = "6.22.2", 238  # the build AndroidWorld installs (com.simplemobiletools.calendar.pro_238)

DAY, WEEK, MONTH, YEAR = 86400, 604800, 2592001, 31536000  # the app's repeat intervals (seconds)
REMINDER_OFF = -1
FLAG_ALL_DAY = 1
REGULAR_EVENT_TYPE_ID = 1
SOURCE_SIMPLE_CALENDAR = "simple-calendar"
PRIMARY_COLOR = -689152  # 0xFFF57C00, Simple apps' default primary colour: the regular event type's
IDENTITY_HASH = "1d5b2fddcb258e43f2935820863057a9"

DDL = f"""
CREATE TABLE android_metadata (locale TEXT);
INSERT INTO android_metadata VALUES ('en_US');
CREATE TABLE IF NOT EXISTS `events` (`id` INTEGER PRIMARY KEY AUTOINCREMENT, `start_ts` INTEGER NOT NULL,
  `end_ts` INTEGER NOT NULL, `title` TEXT NOT NULL, `location` TEXT NOT NULL, `description` TEXT NOT NULL,
  `reminder_1_minutes` INTEGER NOT NULL, `reminder_2_minutes` INTEGER NOT NULL, `reminder_3_minutes` INTEGER NOT NULL,
  `reminder_1_type` INTEGER NOT NULL, `reminder_2_type` INTEGER NOT NULL, `reminder_3_type` INTEGER NOT NULL,
  `repeat_interval` INTEGER NOT NULL, `repeat_rule` INTEGER NOT NULL, `repeat_limit` INTEGER NOT NULL,
  `repetition_exceptions` TEXT NOT NULL, `attendees` TEXT NOT NULL, `import_id` TEXT NOT NULL,
  `time_zone` TEXT NOT NULL, `flags` INTEGER NOT NULL, `event_type` INTEGER NOT NULL, `parent_id` INTEGER NOT NULL,
  `last_updated` INTEGER NOT NULL, `source` TEXT NOT NULL, `availability` INTEGER NOT NULL, `color` INTEGER NOT NULL,
  `type` INTEGER NOT NULL);
CREATE UNIQUE INDEX IF NOT EXISTS `index_events_id` ON `events` (`id`);
CREATE TABLE IF NOT EXISTS `event_types` (`id` INTEGER PRIMARY KEY AUTOINCREMENT, `title` TEXT NOT NULL,
  `color` INTEGER NOT NULL, `caldav_calendar_id` INTEGER NOT NULL, `caldav_display_name` TEXT NOT NULL,
  `caldav_email` TEXT NOT NULL, `type` INTEGER NOT NULL);
CREATE UNIQUE INDEX IF NOT EXISTS `index_event_types_id` ON `event_types` (`id`);
CREATE TABLE IF NOT EXISTS `widgets` (`id` INTEGER PRIMARY KEY AUTOINCREMENT, `widget_id` INTEGER NOT NULL,
  `period` INTEGER NOT NULL);
CREATE UNIQUE INDEX IF NOT EXISTS `index_widgets_widget_id` ON `widgets` (`widget_id`);
CREATE TABLE IF NOT EXISTS `tasks` (`id` INTEGER PRIMARY KEY AUTOINCREMENT, `task_id` INTEGER NOT NULL,
  `start_ts` INTEGER NOT NULL, `flags` INTEGER NOT NULL);
CREATE UNIQUE INDEX IF NOT EXISTS `index_tasks_id_task_id` ON `tasks` (`id`, `task_id`);
CREATE TABLE IF NOT EXISTS room_master_table (id INTEGER PRIMARY KEY,identity_hash TEXT);
INSERT OR REPLACE INTO room_master_table (id,identity_hash) VALUES(42, '{IDENTITY_HASH}');
INSERT INTO event_types (id, title, color, caldav_calendar_id, caldav_display_name, caldav_email, type)
  VALUES ({REGULAR_EVENT_TYPE_ID}, 'Regular event', {PRIMARY_COLOR}, 0, '', '', 0);
"""
DB = AppDatabase(PKG, "events.db", DDL, 8)

STRINGS: dict[str, tuple[str, str]] = {
    "app_launcher_name": ("Calendar", "日历"),
    "new_event": ("New Event", "新活动"),
    "edit_event": ("Edit Event", "编辑活动"),
    "title": ("Title", "标题"),
    "location": ("Location", "地点"),
    "description": ("Description", "描述"),
    "all_day": ("All-day", "全天"),
    "regular_event": ("Regular event", "一般活动"),
    "event": ("Event", "活动"),
    "task": ("Task", "任务"),
    "daily_view": ("Daily view", "日历视图"),
    "monthly_view": ("Monthly view", "月历视图"),
    "simple_event_list": ("Simple event list", "简单活动列表"),
    "change_view": ("Change view", "改变视图"),
    "go_to_today": ("Go to today", "前往今天"),
    "no_upcoming_events": ("No upcoming events.", "没有即将到来的活动。"),
    "create_new_event": ("Create a new event", "建立一个新活动"),
    "repetition": ("Repetition", "重复"),
    "no_repetition": ("No repetition", "不重复"),
    "daily": ("Daily", "每日"),
    "weekly": ("Weekly", "每周"),
    "monthly": ("Monthly", "每月"),
    "yearly": ("Yearly", "每年"),
    "repeat": ("Repeat", "重复"),
    "repeat_on": ("Repeat on", "重复于"),
    "forever": ("Forever", "永远"),
    "every_day": ("Every day", "每天"),
    "title_empty": ("Title cannot be empty", "标题不能是空白的"),
    "end_before_start": ("The event cannot end earlier than it starts", "活动结束时间不能比开始早"),
    "event_added": ("Event added successfully", "活动添加成功"),
    "event_updated": ("Event updated successfully", "活动更新成功"),
    "status_busy": ("Busy", "繁忙"),
    "duplicate_event": ("Duplicate event", "复制活动"),
    "no_reminder": ("No reminder", "不再提醒"),
    "at_start": ("At start", "开始时"),
    "disclaimer": ("Disclaimer", "免责声明"),
    "reminder_warning": (
        "Please make sure the reminders work properly before relying on them. Check your device battery and "
        "notification settings, if there is nothing blocking the reminders, or killing the app in the background.",
        "在依赖它们之前，请确保提醒能够正常工作。由于系统与节电有关的限制，它们有时可能会失灵。",
    ),
    # Simple-Commons
    "yes": ("Yes", "是"),
    "no": ("No", "否"),
    "ok": ("OK", "确认"),
    "cancel": ("Cancel", "取消"),
    "save": ("Save", "保存"),
    "discard": ("Discard", "丢弃"),
    "delete": ("Delete", "删除"),
    "settings": ("Settings", "设置"),
    "back": ("Back", "返回"),
    "search": ("Search", "搜索"),
    "no_items_found": ("No items found.", "找不到任何项目。"),
    "type_2_characters": ("Type in at least 2 characters to start the search.", "请输入至少两个字符来开始搜索。"),
    "proceed_with_deletion": ("Are you sure you want to proceed with the deletion?", "是否执行此删除操作？"),
    "save_before_closing": ("You have unsaved changes. Save before exit?", "您尚未保存更改，是否保存？"),
}
WEEKDAY_SHORT_EN = ("Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun")
WEEKDAY_EN = ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday")
WEEKDAY_ZH = ("周一", "周二", "周三", "周四", "周五", "周六", "周日")
WEEKDAY_LETTERS_EN = ("S", "M", "T", "W", "T", "F", "S")  # Sunday first (the en-US locale's first day of the week)
WEEKDAY_LETTERS_ZH = ("日", "一", "二", "三", "四", "五", "六")


def tr(ctx: Ctx, key: str) -> str:
    en, zh = STRINGS[key]
    return zh if ctx.zh else en


# --- time ----------------------------------------------------------------------------------------------------------
def zone(model: Device) -> dt.tzinfo:
    """The device's time zone (DateTimeZone.getDefault())."""
    return zone_named(str(model.time_zone))


def now(model: Device) -> dt.datetime:
    """The device's now in its zone: its wall clock once set by hand, else the fixed moment the status bar shows."""
    tz = zone(model)
    if model.clock_set:
        return dt.datetime.fromtimestamp(model.now(), tz)
    return dt.datetime(DEVICE_DATE.year, DEVICE_DATE.month, DEVICE_DATE.day, DEVICE_HOUR, DEVICE_MINUTE, tzinfo=tz)


def today(model: Device) -> dt.date:
    return now(model).date()


def at(model: Device, ts: int) -> dt.datetime:
    return dt.datetime.fromtimestamp(ts, zone(model))


def ts_of(model: Device, day: dt.date, hour: int = 0, minute: int = 0) -> int:
    return int(dt.datetime(day.year, day.month, day.day, hour, minute, tzinfo=zone(model)).timestamp())


def day_code(d: dt.date) -> str:
    return f"{d.year:04d}{d.month:02d}{d.day:02d}"


def use_24h(model: Device) -> bool:
    """config.use24HourFormat: the system's 12/24-hour setting (12-hour for en-US when unset)."""
    return str(model.settings["system"].get("time_12_24", "12")) == "24"


def month_name(ctx: Ctx, month: int) -> str:
    return f"{month}月" if ctx.zh else MONTHS_EN[month - 1]


def fmt_time(ctx: Ctx, when: dt.datetime) -> str:
    """Formatter.getTime: "hh:mm a" (03:00 PM) or "HH:mm"."""
    if use_24h(ctx.model):
        return f"{when.hour:02d}:{when.minute:02d}"
    marker = ("上午" if when.hour < 12 else "下午") if ctx.zh else ("AM" if when.hour < 12 else "PM")
    return f"{when.hour % 12 or 12:02d}:{when.minute:02d} {marker}"


def fmt_date(ctx: Ctx, d: dt.date, day_of_week: bool = True) -> str:
    """Formatter.getDayTitle: "October 16 (Mon)", the year after the day when it is not this year's."""
    s = f"{month_name(ctx, d.month)} {d.day}"
    if d.year != today(ctx.model).year:
        s += f" {d.year}"
    if day_of_week:
        s += f" ({(WEEKDAY_ZH if ctx.zh else WEEKDAY_SHORT_EN)[d.weekday()]})"
    return s


def fmt_month_year(ctx: Ctx, d: dt.date) -> str:
    """Formatter.getLongMonthYear: "October", with the year when it is not this year."""
    s = month_name(ctx, d.month)
    return s if d.year == today(ctx.model).year else f"{s} {d.year}"


def fmt_day_section(ctx: Ctx, d: dt.date) -> str:
    """Formatter.getDateDayTitle ("d EEEE"): "16 Monday"."""
    return f"{d.day} {('星期' + '一二三四五六日'[d.weekday()]) if ctx.zh else WEEKDAY_EN[d.weekday()]}"


# --- events ----------------------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Occurrence:
    """An event as a view lists it: the row, and this occurrence's start and end (a repeating event's occurrence
    is shifted from the row's own times)."""

    row: dict[str, Any]
    start: int
    end: int

    @property
    def id(self) -> int:
        return int(self.row["id"])

    @property
    def title(self) -> str:
        return str(self.row["title"])


def all_events(ctx: Ctx) -> list[dict[str, Any]]:
    return DB.rows(ctx.model.fs, "SELECT * FROM events WHERE type = 0 ORDER BY start_ts, id")


def event(ctx: Ctx, event_id: Any) -> dict[str, Any] | None:
    rows = DB.rows(ctx.model.fs, "SELECT * FROM events WHERE id = ?", (event_id,))
    return rows[0] if rows else None


def _exceptions(row: dict[str, Any]) -> set[str]:
    try:
        return {str(x) for x in json.loads(str(row.get("repetition_exceptions") or "[]"))}
    except ValueError:
        return set()


def _occurrences(model: Device, row: dict[str, Any], start: int, end: int) -> list[Occurrence]:
    """A repeating event's occurrences overlapping [start, end] (daily / weekly on its days / monthly and yearly on
    the same day; its repeat limit: 0 forever, > 0 till that moment, < 0 that many times)."""
    interval = int(row["repeat_interval"])
    first, length = int(row["start_ts"]), int(row["end_ts"]) - int(row["start_ts"])
    limit = int(row["repeat_limit"])
    rule = int(row["repeat_rule"])
    base = at(model, first)
    out: list[Occurrence] = []
    count = 0
    day = base.date()
    last_day = at(model, end).date()
    while day <= last_day:
        hit = False
        delta = (day - base.date()).days
        if interval % YEAR == 0:
            hit = day.month == base.month and day.day == base.day and (day.year - base.year) % (interval // YEAR) == 0
        elif interval % MONTH == 0:
            months = (day.year - base.year) * 12 + day.month - base.month
            hit = day.day == base.day and months % (interval // MONTH) == 0
        elif interval % WEEK == 0:
            weeks = (delta + base.weekday()) // 7  # whole weeks since the week (from Monday) of the first one
            hit = bool(rule & (1 << day.weekday())) and weeks % (interval // WEEK) == 0
        elif interval % DAY == 0:
            hit = delta % (interval // DAY) == 0
        if hit:
            occ_start = int(base.replace(year=day.year, month=day.month, day=day.day).timestamp())
            count += 1
            if limit > 0 and occ_start > limit or limit < 0 and count > -limit:
                break
            if occ_start <= end and occ_start + length >= start:
                out.append(Occurrence(row, occ_start, occ_start + length))
        day += dt.timedelta(days=1)
    return out


def events_between(ctx: Ctx, start: int, end: int) -> list[Occurrence]:
    """EventsHelper.getEvents(from, to): one-time events with start <= to and end >= from, and the occurrences of
    repeating ones; those on a day listed in their repetition exceptions left out; by start, then title."""
    fs = ctx.model.fs
    once = DB.rows(
        fs,
        "SELECT * FROM events WHERE start_ts <= ? AND end_ts >= ? AND start_ts != 0 AND repeat_interval = 0 "
        "AND type = 0",
        (end, start),
    )
    out = [Occurrence(r, int(r["start_ts"]), int(r["end_ts"])) for r in once]
    for r in DB.rows(fs, "SELECT * FROM events WHERE start_ts <= ? AND repeat_interval != 0 AND type = 0", (end,)):
        out += _occurrences(ctx.model, r, start, end)
    out = [o for o in out if day_code(at(ctx.model, o.start).date()) not in _exceptions(o.row)]
    return sorted(out, key=lambda o: (o.start, o.end, o.title, o.id))


def events_on(ctx: Ctx, day: dt.date) -> list[Occurrence]:
    """The events a day shows (its span: midnight to 23:59)."""
    start = ts_of(ctx.model, day)
    return events_between(ctx, start, start + DAY - 60)


def import_id(seed: str) -> str:
    """generateImportId: a random UUID without dashes and the time in ms (here drawn from the seed, reproducibly)."""
    return hashlib.sha1(seed.encode()).hexdigest()[:32]


def insert_event(ctx: Ctx, values: dict[str, Any]) -> int:
    cols = ", ".join(f"`{k}`" for k in values)
    marks = ", ".join("?" for _ in values)
    return DB.execute(ctx.model.fs, f"INSERT INTO events ({cols}) VALUES ({marks})", tuple(values.values()))


def update_event(ctx: Ctx, event_id: int, values: dict[str, Any]) -> None:
    sets = ", ".join(f"`{k}` = ?" for k in values)
    DB.execute(ctx.model.fs, f"UPDATE events SET {sets} WHERE id = ?", (*values.values(), event_id))


def delete_events(ctx: Ctx, ids: list[int]) -> None:
    with DB.change(ctx.model.fs) as conn:
        conn.executemany("DELETE FROM events WHERE id = ?", [(i,) for i in ids])
        conn.executemany("DELETE FROM events WHERE parent_id = ?", [(i,) for i in ids])
    ctx.model.events.log("calendar", action="delete", package=PKG, ids=list(ids))


def delete_occurrence(ctx: Ctx, row: dict[str, Any], occurrence_start: int) -> None:
    """deleteRepeatingEventOccurrence: the occurrence's day added to the event's repetition exceptions."""
    days = sorted(_exceptions(row) | {day_code(at(ctx.model, occurrence_start).date())})
    update_event(ctx, int(row["id"]), {"repetition_exceptions": json.dumps(days, separators=(",", ":"))})
