"""Tasks (org.tasks)' data: its Room database (`database`, schema version 88 as the 13.6 build creates it), its
preferences, its strings (the app's English and zh-CN ones) and the dates as it shows them.

The database is the app's one truth: the list, the editor and the checkboxes read and write the `tasks` table of
/data/data/org.tasks/databases/database. Its columns and their meaning are the real app's: `importance` 0 high,
1 medium, 2 low, 3 none; `dueDate`, `hideUntil` (the start date), `completed`, `created`, `modified` and `deleted`
in ms since the epoch, 0 for none; a due date whose seconds are 0 has no time (Task.hasDueTime), and a date picked
without a time is stored at noon; `remoteId` a random number as text (unique).

The list's sort, grouping and filters are the app's default SharedPreferences (`sort_mode`, `group_mode`,
`show_completed_tasks`, ...), with its defaults: smart sort, no grouping, completed and unstarted tasks shown,
completed ones at the bottom, most recently completed first.
"""

from __future__ import annotations

import datetime as dt
import random
from dataclasses import dataclass
from typing import Any

from ..appstorage import AppDatabase, SharedPrefs
from ..clock import zone_named
from ..ui.host import Device
from .common import DEVICE_DATE, DEVICE_HOUR, DEVICE_MINUTE, MONTHS_EN, WEEKDAYS_EN

PKG = "org.tasks"
MAIN = "com.todoroo.astrid.activity.MainActivity"
VERSION_NAME, VERSION_CODE = "13.6.3", 130605  # the build AndroidWorld installs (org.tasks_130605.apk)
DEVICE_TZ = dt.timezone(dt.timedelta(hours=-7))  # the fixed clock's zone, as the other apps' (America/Los_Angeles)

# Room's schema 88 (app/schemas/com.todoroo.astrid.dao.Database/88.json): its tables in entity order, their indices,
# Room's identity hash, and the android_metadata table SQLiteOpenHelper adds
DDL = """
CREATE TABLE android_metadata (locale TEXT);
INSERT INTO android_metadata VALUES ('en_US');
CREATE TABLE IF NOT EXISTS `notification` (`uid` INTEGER PRIMARY KEY AUTOINCREMENT NOT NULL, `task` INTEGER NOT NULL, `timestamp` INTEGER NOT NULL, `type` INTEGER NOT NULL, `location` INTEGER, FOREIGN KEY(`task`) REFERENCES `tasks`(`_id`) ON UPDATE NO ACTION ON DELETE CASCADE );
CREATE UNIQUE INDEX IF NOT EXISTS `index_notification_task` ON `notification` (`task`);
CREATE TABLE IF NOT EXISTS `tagdata` (`_id` INTEGER PRIMARY KEY AUTOINCREMENT, `remoteId` TEXT, `name` TEXT, `color` INTEGER, `tagOrdering` TEXT, `td_icon` INTEGER, `td_order` INTEGER NOT NULL);
CREATE TABLE IF NOT EXISTS `userActivity` (`_id` INTEGER PRIMARY KEY AUTOINCREMENT, `remoteId` TEXT, `message` TEXT, `picture` TEXT, `target_id` TEXT, `created_at` INTEGER);
CREATE TABLE IF NOT EXISTS `attachment_file` (`file_id` INTEGER PRIMARY KEY AUTOINCREMENT, `file_uuid` TEXT NOT NULL, `filename` TEXT NOT NULL, `uri` TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS `task_list_metadata` (`_id` INTEGER PRIMARY KEY AUTOINCREMENT, `tag_uuid` TEXT, `filter` TEXT, `task_ids` TEXT);
CREATE TABLE IF NOT EXISTS `tasks` (`_id` INTEGER PRIMARY KEY AUTOINCREMENT NOT NULL, `title` TEXT, `importance` INTEGER NOT NULL, `dueDate` INTEGER NOT NULL, `hideUntil` INTEGER NOT NULL, `created` INTEGER NOT NULL, `modified` INTEGER NOT NULL, `completed` INTEGER NOT NULL, `deleted` INTEGER NOT NULL, `notes` TEXT, `estimatedSeconds` INTEGER NOT NULL, `elapsedSeconds` INTEGER NOT NULL, `timerStart` INTEGER NOT NULL, `notificationFlags` INTEGER NOT NULL, `lastNotified` INTEGER NOT NULL, `recurrence` TEXT, `repeat_from` INTEGER NOT NULL DEFAULT 0, `calendarUri` TEXT, `remoteId` TEXT, `collapsed` INTEGER NOT NULL, `parent` INTEGER NOT NULL, `order` INTEGER, `read_only` INTEGER NOT NULL DEFAULT 0);
CREATE UNIQUE INDEX IF NOT EXISTS `t_rid` ON `tasks` (`remoteId`);
CREATE INDEX IF NOT EXISTS `active_and_visible` ON `tasks` (`completed`, `deleted`, `hideUntil`);
CREATE TABLE IF NOT EXISTS `alarms` (`_id` INTEGER PRIMARY KEY AUTOINCREMENT NOT NULL, `task` INTEGER NOT NULL, `time` INTEGER NOT NULL, `type` INTEGER NOT NULL DEFAULT 0, `repeat` INTEGER NOT NULL DEFAULT 0, `interval` INTEGER NOT NULL DEFAULT 0, FOREIGN KEY(`task`) REFERENCES `tasks`(`_id`) ON UPDATE NO ACTION ON DELETE CASCADE );
CREATE INDEX IF NOT EXISTS `index_alarms_task` ON `alarms` (`task`);
CREATE TABLE IF NOT EXISTS `places` (`place_id` INTEGER PRIMARY KEY AUTOINCREMENT NOT NULL, `uid` TEXT, `name` TEXT, `address` TEXT, `phone` TEXT, `url` TEXT, `latitude` REAL NOT NULL, `longitude` REAL NOT NULL, `place_color` INTEGER NOT NULL, `place_icon` INTEGER NOT NULL, `place_order` INTEGER NOT NULL, `radius` INTEGER NOT NULL DEFAULT 250);
CREATE UNIQUE INDEX IF NOT EXISTS `place_uid` ON `places` (`uid`);
CREATE TABLE IF NOT EXISTS `geofences` (`geofence_id` INTEGER PRIMARY KEY AUTOINCREMENT NOT NULL, `task` INTEGER NOT NULL, `place` TEXT, `arrival` INTEGER NOT NULL, `departure` INTEGER NOT NULL, FOREIGN KEY(`task`) REFERENCES `tasks`(`_id`) ON UPDATE NO ACTION ON DELETE CASCADE );
CREATE INDEX IF NOT EXISTS `index_geofences_task` ON `geofences` (`task`);
CREATE TABLE IF NOT EXISTS `tags` (`_id` INTEGER PRIMARY KEY AUTOINCREMENT NOT NULL, `task` INTEGER NOT NULL, `name` TEXT, `tag_uid` TEXT, `task_uid` TEXT, FOREIGN KEY(`task`) REFERENCES `tasks`(`_id`) ON UPDATE NO ACTION ON DELETE CASCADE );
CREATE INDEX IF NOT EXISTS `index_tags_task` ON `tags` (`task`);
CREATE TABLE IF NOT EXISTS `filters` (`_id` INTEGER PRIMARY KEY AUTOINCREMENT NOT NULL, `title` TEXT, `sql` TEXT, `values` TEXT, `criterion` TEXT, `f_color` INTEGER, `f_icon` INTEGER, `f_order` INTEGER NOT NULL);
CREATE TABLE IF NOT EXISTS `caldav_lists` (`cdl_id` INTEGER PRIMARY KEY AUTOINCREMENT NOT NULL, `cdl_account` TEXT, `cdl_uuid` TEXT, `cdl_name` TEXT, `cdl_color` INTEGER NOT NULL, `cdl_ctag` TEXT, `cdl_url` TEXT, `cdl_icon` INTEGER, `cdl_order` INTEGER NOT NULL, `cdl_access` INTEGER NOT NULL, `cdl_last_sync` INTEGER NOT NULL);
CREATE TABLE IF NOT EXISTS `caldav_tasks` (`cd_id` INTEGER PRIMARY KEY AUTOINCREMENT NOT NULL, `cd_task` INTEGER NOT NULL, `cd_calendar` TEXT, `cd_remote_id` TEXT, `cd_object` TEXT, `cd_etag` TEXT, `cd_last_sync` INTEGER NOT NULL, `cd_deleted` INTEGER NOT NULL, `cd_remote_parent` TEXT, `gt_moved` INTEGER NOT NULL, `gt_remote_order` INTEGER NOT NULL, FOREIGN KEY(`cd_task`) REFERENCES `tasks`(`_id`) ON UPDATE NO ACTION ON DELETE CASCADE );
CREATE INDEX IF NOT EXISTS `index_caldav_tasks_cd_task` ON `caldav_tasks` (`cd_task`);
CREATE TABLE IF NOT EXISTS `caldav_accounts` (`cda_id` INTEGER PRIMARY KEY AUTOINCREMENT NOT NULL, `cda_uuid` TEXT, `cda_name` TEXT, `cda_url` TEXT, `cda_username` TEXT, `cda_password` TEXT, `cda_error` TEXT, `cda_account_type` INTEGER NOT NULL, `cda_collapsed` INTEGER NOT NULL, `cda_server_type` INTEGER NOT NULL);
CREATE TABLE IF NOT EXISTS `principals` (`id` INTEGER PRIMARY KEY AUTOINCREMENT NOT NULL, `account` INTEGER NOT NULL, `href` TEXT NOT NULL, `email` TEXT, `display_name` TEXT, FOREIGN KEY(`account`) REFERENCES `caldav_accounts`(`cda_id`) ON UPDATE NO ACTION ON DELETE CASCADE );
CREATE UNIQUE INDEX IF NOT EXISTS `index_principals_account_href` ON `principals` (`account`, `href`);
CREATE TABLE IF NOT EXISTS `principal_access` (`id` INTEGER PRIMARY KEY AUTOINCREMENT NOT NULL, `principal` INTEGER NOT NULL, `list` INTEGER NOT NULL, `invite` INTEGER NOT NULL, `access` INTEGER NOT NULL, FOREIGN KEY(`principal`) REFERENCES `principals`(`id`) ON UPDATE NO ACTION ON DELETE CASCADE , FOREIGN KEY(`list`) REFERENCES `caldav_lists`(`cdl_id`) ON UPDATE NO ACTION ON DELETE CASCADE );
CREATE UNIQUE INDEX IF NOT EXISTS `index_principal_access_list_principal` ON `principal_access` (`list`, `principal`);
CREATE INDEX IF NOT EXISTS `index_principal_access_principal` ON `principal_access` (`principal`);
CREATE TABLE IF NOT EXISTS `attachment` (`attachment_id` INTEGER PRIMARY KEY AUTOINCREMENT, `task` INTEGER NOT NULL, `file` INTEGER NOT NULL, `file_uuid` TEXT NOT NULL, FOREIGN KEY(`task`) REFERENCES `tasks`(`_id`) ON UPDATE NO ACTION ON DELETE CASCADE , FOREIGN KEY(`file`) REFERENCES `attachment_file`(`file_id`) ON UPDATE NO ACTION ON DELETE CASCADE );
CREATE UNIQUE INDEX IF NOT EXISTS `index_attachment_task_file` ON `attachment` (`task`, `file`);
CREATE INDEX IF NOT EXISTS `index_attachment_task` ON `attachment` (`task`);
CREATE INDEX IF NOT EXISTS `index_attachment_file` ON `attachment` (`file`);
CREATE TABLE IF NOT EXISTS room_master_table (id INTEGER PRIMARY KEY,identity_hash TEXT);
INSERT OR REPLACE INTO room_master_table (id,identity_hash) VALUES(42, 'a2597380bdfaeeb040d40bab2fc653c1');
"""  # noqa: E501 - the statements as Room writes them
DB = AppDatabase(PKG, "database", DDL, 88)
PREFS = SharedPrefs(PKG)

# Task.Priority
HIGH, MEDIUM, LOW, NONE = 0, 1, 2, 3
# SortHelper's modes (sort_mode / group_mode / completed_mode)
GROUP_NONE, SORT_AUTO, SORT_ALPHA, SORT_DUE, SORT_IMPORTANCE = -1, 0, 1, 2, 3
SORT_MODIFIED, SORT_CREATED, SORT_START, SORT_COMPLETED = 4, 5, 8, 10
NO_DATE = 3538339200000  # SortHelper.NO_DATE: where tasks without a date sort
HEADER_COMPLETED, HEADER_OVERDUE = -1, -2  # SectionedDataSource's header values
ONE_DAY = 86_400_000

STRINGS: dict[str, tuple[str, str]] = {
    "app_name": ("Tasks", "Tasks"),
    "BFE_Active": ("My Tasks", "我的任务"),
    "action_create_new_task": ("Create new task", "新建任务"),
    "TLA_menu_search": ("Search", "搜索"),
    "TLA_menu_sort": ("Sort", "排序"),
    "TLA_no_items": ("There are no tasks here.", "这里没有任务哦。"),
    "show_completed": ("Show completed", "显示已完成任务"),
    "show_unstarted": ("Show unstarted", "显示未开始项目"),
    "gtasks_GTA_clear_completed": ("Clear Completed", "清除已完成项"),
    "clear_completed_tasks_confirmation": ("Clear completed tasks?", "是否清除完成的任务？"),
    "TEA_title_hint": ("Task name", "任务名称"),
    "TEA_note_label": ("Description", "描述"),
    "TEA_importance_label": ("Priority", "优先级"),
    "no_due_date": ("No due date", "无截止日期"),
    "no_start_date": ("No start date", "无开始日期"),
    "save": ("Save", "保存"),
    "discard": ("Discard", "放弃"),
    "menu_discard_changes": ("Discard changes", "放弃修改"),
    "discard_confirmation": ("Are you sure you want to discard your changes?", "确定要放弃你的修改吗？"),
    "keep_editing": ("Keep editing", "继续编辑"),
    "delete_task": ("Delete task", "删除任务"),
    "DLG_delete_this_task_question": ("Delete this task?", "确认删除？"),
    "ok": ("OK", "确定"),
    "cancel": ("Cancel", "取消"),
    "today": ("Today", "今天"),
    "tomorrow": ("Tomorrow", "明天"),
    "yesterday": ("Yesterday", "昨天"),
    "today_lowercase": ("today", "今日"),
    "tomorrow_lowercase": ("tomorrow", "明天"),
    "yesterday_lowercase": ("yesterday", "昨天"),
    "tmrw": ("Tmrw", "明天"),
    "yest": ("Yest", "昨天"),
    "next_week": ("Next week", "下周"),
    "no_date": ("No date", "无日期"),
    "no_title": ("(No title)", "（无标题）"),
    "completed": ("Completed", "已完成"),
    "filter_overdue": ("Overdue", "已过期"),
    "sort_due_group": ("Due %s", "%s截止"),
    "sort_start_group": ("Start %s", "%s开始"),
    "sort_created_group": ("Created %s", "%s创建"),
    "sort_modified_group": ("Modified %s", "%s修改"),
    "sort_completion_group": ("Completion %s", "完成 %s"),
    "filter_high_priority": ("High priority", "高优先级"),
    "filter_medium_priority": ("Medium priority", "中等优先级"),
    "filter_low_priority": ("Low priority", "低优先级"),
    "filter_no_priority": ("No priority", "无优先级"),
    "sort_grouping": ("Grouping", "分组"),
    "sort_sorting": ("Sorting", "排序"),
    "completed_tasks_at_bottom": ("Move completed tasks to bottom", "将已完成任务移至底部"),
    "sort_ascending": ("Ascending", "升序"),
    "sort_descending": ("Descending", "降序"),
    "none": ("None", "无"),
    "SSD_sort_auto": ("Smart sort", "智能排序"),
    "SSD_sort_due": ("By due date", "按截止日期"),
    "SSD_sort_start": ("By start date", "按开始日期"),
    "SSD_sort_importance": ("By priority", "按优先级"),
    "SSD_sort_alpha": ("By title", "按标题"),
    "SSD_sort_modified": ("By last modified", "按最后修改"),
    "sort_created": ("By creation time", "按创建时间"),
    "sort_completed": ("By completion time", "按完成时间"),
    "more_options": ("More options", "更多选项"),  # AOSP's abc_action_menu_overflow_description
    "collapse": ("Collapse", "收起"),  # AppCompat's abc_toolbar_collapse_description
    "search_hint": ("Search…", "搜索…"),  # AppCompat's abc_search_hint
    "clear_query": ("Clear query", "清除查询"),  # AppCompat's abc_searchview_description_clear
}


def tr(ctx: Any, key: str) -> str:
    en, zh = STRINGS[key]
    return zh if ctx.zh else en


# --- the clock, in the device's zone -----------------------------------------------------------------------------
def zone(model: Device) -> dt.tzinfo:
    """The device's zone: its own once the clock was set (AndroidWorld's set-up sets UTC), else the fixed clock's."""
    if not model.clock_set:
        return DEVICE_TZ
    return zone_named(model.time_zone)


def now(model: Device) -> dt.datetime:
    """The device's now: its wall clock once set by hand, else the fixed reproducible moment the status bar shows."""
    if model.clock_set:
        return dt.datetime.fromtimestamp(model.now(), zone(model))
    return dt.datetime(
        DEVICE_DATE.year, DEVICE_DATE.month, DEVICE_DATE.day, DEVICE_HOUR, DEVICE_MINUTE, tzinfo=DEVICE_TZ
    )


def now_ms(model: Device) -> int:
    return int(now(model).timestamp() * 1000)


def local(model: Device, ms: int) -> dt.datetime:
    return dt.datetime.fromtimestamp(ms / 1000, zone(model))


def start_of_day_ms(model: Device, day: dt.date) -> int:
    return int(dt.datetime(day.year, day.month, day.day, tzinfo=zone(model)).timestamp() * 1000)


def due_at_noon(model: Device, day: dt.date) -> int:
    """Task.createDueDate(URGENCY_SPECIFIC_DAY): a day without a time is stored at 12:00:00.000."""
    return start_of_day_ms(model, day) + 12 * 3_600_000


def has_due_time(ms: int) -> bool:
    return ms > 0 and ms % 60_000 > 0


def new_remote_id() -> str:
    """UUIDHelper.newUUID: a random positive long, as text."""
    return str(random.getrandbits(62) + 1)


# --- dates as the app shows them (DateUtilities) ---------------------------------------------------------------
def _time(ctx: Any, when: dt.datetime) -> str:
    """DateUtilities.getTimeString: HH:mm on a 24-hour clock, else "h a" / "h:mm a"."""
    if str(ctx.model.settings["system"].get("time_12_24", "12")) == "24":
        return f"{when.hour:02d}:{when.minute:02d}"
    h12 = when.hour % 12 or 12
    if ctx.zh:
        return f"{'上午' if when.hour < 12 else '下午'}{h12}:{when.minute:02d}"
    return (
        f"{h12} {'AM' if when.hour < 12 else 'PM'}"
        if when.minute == 0
        else f"{h12}:{when.minute:02d} " + ("AM" if when.hour < 12 else "PM")
    )


def _full_date(ctx: Any, day: dt.date, style: str) -> str:
    """DateTimeFormatter.ofLocalizedDate(style) with this year stripped: MEDIUM "Oct 22" / FULL "Sunday, October
    22" (zh-CN: "10月22日" / "10月22日星期日")."""
    this_year = now(ctx.model).year
    if ctx.zh:
        wd = "星期" + "一二三四五六日"[day.weekday()]
        text = f"{day.year}年{day.month}月{day.day}日" + (wd if style == "FULL" else "")
        return text.replace(f"{this_year}年", "") if day.year == this_year else text
    month = MONTHS_EN[day.month - 1]
    if style == "FULL":
        text = f"{WEEKDAYS_EN[day.weekday()]}, {month} {day.day}"
    else:
        text = f"{month[:3]} {day.day}"
    return text if day.year == this_year else f"{text}, {day.year}"


def _relative_day(ctx: Any, day: dt.date, abbreviated: bool, lowercase: bool) -> str:
    today = now(ctx.model).date()
    if day == today:
        return tr(ctx, "today_lowercase" if lowercase else "today")
    if day == today + dt.timedelta(days=1):
        return tr(ctx, "tmrw" if abbreviated and not lowercase else "tomorrow_lowercase" if lowercase else "tomorrow")
    if day == today - dt.timedelta(days=1):
        return tr(ctx, "yest" if abbreviated and not lowercase else "yesterday_lowercase" if lowercase else "yesterday")
    if ctx.zh:
        return ("周" if abbreviated else "星期") + "一二三四五六日"[day.weekday()]
    name = WEEKDAYS_EN[day.weekday()]
    return name[:3] if abbreviated else name


def within_six_days(ctx: Any, day: dt.date) -> bool:
    return abs((day - now(ctx.model).date()).days) <= 6


def relative_date_time(ctx: Any, ms: int, style: str = "MEDIUM") -> str:
    """DateUtilities.getRelativeDateTime: Today / Tmrw / Yest / a weekday within six days (with the time when the
    date has one, the time alone today), else the date without this year."""
    when = local(ctx.model, ms)
    day = when.date()
    if not within_six_days(ctx, day):
        text = _full_date(ctx, day, style)
        return f"{text}, {_time(ctx, when)}" if has_due_time(ms) else text
    rel = _relative_day(ctx, day, style in ("SHORT", "MEDIUM"), False)
    if has_due_time(ms):
        return _time(ctx, when) if day == now(ctx.model).date() else f"{rel} {_time(ctx, when)}"
    return rel


def header_day(ctx: Any, ms: int) -> str:
    """HeaderFormatter's date (FULL style, lowercase relative days): "today", "Tuesday", "Sunday, October 22"."""
    day = local(ctx.model, ms).date()
    if not within_six_days(ctx, day):
        return _full_date(ctx, day, "FULL")
    return _relative_day(ctx, day, False, True)


# --- preferences -------------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class ListPrefs:
    sort_mode: int = SORT_AUTO
    group_mode: int = GROUP_NONE
    completed_mode: int = SORT_COMPLETED
    sort_ascending: bool = True
    group_ascending: bool = False
    completed_ascending: bool = False
    completed_at_bottom: bool = True
    show_completed: bool = True
    show_hidden: bool = True


def list_prefs(ctx: Any) -> ListPrefs:
    p = PREFS.read(ctx.model.fs)
    d = ListPrefs()

    def num(key: str, default: int) -> int:
        v = p.get(key, default)
        return int(v) if isinstance(v, (int, bool)) else int(str(v) or default)

    def flag(key: str, default: bool) -> bool:
        v = p.get(key, default)
        return v if isinstance(v, bool) else str(v).lower() == "true"

    return ListPrefs(
        num("sort_mode", d.sort_mode),
        num("group_mode", d.group_mode),
        num("completed_mode", d.completed_mode),
        flag("sort_ascending", d.sort_ascending),
        flag("group_ascending", d.group_ascending),
        flag("completed_ascending", d.completed_ascending),
        flag("completed_tasks_at_bottom", d.completed_at_bottom),
        flag("show_completed_tasks", d.show_completed),
        flag("show_hidden_tasks", d.show_hidden),
    )


def put_pref(ctx: Any, key: str, value: bool | int) -> None:
    PREFS.put(ctx.model.fs, key, value)


def mode_ascending(mode: int) -> bool:
    """SortSettingsViewModel: choosing a mode resets its direction (newest first for modified / created /
    completed, else ascending)."""
    return mode not in (SORT_MODIFIED, SORT_CREATED, SORT_COMPLETED)


# --- rows and their order (TaskListQuery, SortHelper, SectionedDataSource) --------------------------------------
def task_rows(ctx: Any, prefs: ListPrefs, query: str = "") -> list[dict[str, Any]]:
    """My Tasks: the top-level tasks not deleted, the completed ones and those not started yet as the
    preferences show them, matching the search text in the title or the description."""
    where = ["deleted = 0", "parent = 0"]
    params: list[Any] = []
    if not prefs.show_completed:
        where.append("completed = 0")
    if not prefs.show_hidden:
        where.append("hideUntil < ?")
        params.append(now_ms(ctx.model))
    if query.strip():
        where.append("(title LIKE ? OR notes LIKE ?)")
        params += [f"%{query.strip()}%"] * 2
    rows = DB.rows(ctx.model.fs, f"SELECT * FROM tasks WHERE {' AND '.join(where)}", params)
    return order(ctx, rows, prefs)


def _adjusted(ms: int, noon_if_no_time: int) -> int:
    return ms if (ms // 1000) % 60 > 0 else ms + noon_if_no_time


def _sort_value(t: dict[str, Any], mode: int, now_value: int) -> int | str:
    due, start, imp = int(t["dueDate"] or 0), int(t["hideUntil"] or 0), int(t["importance"] or 0)
    if mode == SORT_ALPHA:
        return str(t["title"] or "").upper()
    if mode == SORT_DUE:
        return (NO_DATE if due == 0 else _adjusted(due, 43_140_000)) + imp * 1000
    if mode == SORT_START:
        return (NO_DATE if start == 0 else _adjusted(start, 86_399_000)) + imp * 1000
    if mode == SORT_IMPORTANCE:
        return imp
    if mode == SORT_MODIFIED:
        return int(t["modified"] or 0)
    if mode == SORT_CREATED:
        return int(t["created"] or 0)
    if mode == SORT_COMPLETED:
        return int(t["completed"] or 0)
    # SORT_AUTO: the due time (now * 2 without one), nearly two days later per priority step
    return (now_value * 2 if due == 0 else _adjusted(due, 43_140_000)) + 172_799_999 * imp


def group_value(ctx: Any, t: dict[str, Any], mode: int) -> int | None:
    """The row's sortGroup: the start of its day for a date grouping (0 for none), its priority, or None."""
    if mode == SORT_IMPORTANCE:
        return int(t["importance"] or 0)
    column = {SORT_DUE: "dueDate", SORT_START: "hideUntil", SORT_MODIFIED: "modified", SORT_CREATED: "created"}
    if mode not in column:
        return None
    ms = int(t[column[mode]] or 0)
    if ms == 0:
        return 0
    return start_of_day_ms(ctx.model, local(ctx.model, ms).date())


def order(ctx: Any, rows: list[dict[str, Any]], prefs: ListPrefs) -> list[dict[str, Any]]:
    """The recursive query's ORDER BY: completed ones last (when at the bottom, by completion), then the group,
    then the sort mode, then the title."""
    now_value = now_ms(ctx.model)

    def key(t: dict[str, Any]) -> tuple[Any, ...]:
        done = prefs.completed_at_bottom and int(t["completed"] or 0) > 0
        comp = _sort_value(t, prefs.completed_mode, now_value) if done else 0
        comp_key = _directed(comp, prefs.completed_ascending)
        g = group_value(ctx, t, prefs.group_mode) if prefs.group_mode != GROUP_NONE else 0
        group_key = _directed(
            NO_DATE if g == 0 and prefs.group_mode not in (GROUP_NONE, SORT_IMPORTANCE) else g or 0,
            prefs.group_ascending,
        )
        primary = _directed(_sort_value(t, prefs.sort_mode, now_value), prefs.sort_ascending)
        return (done, comp_key, group_key, primary, str(t["title"] or "").upper())

    return sorted(rows, key=key)


class _Desc:
    """A sort key reversed (for text and numbers alike)."""

    def __init__(self, v: Any) -> None:
        self.v = v

    def __lt__(self, other: _Desc) -> bool:
        return bool(other.v < self.v)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, _Desc) and self.v == other.v


def _directed(v: Any, ascending: bool) -> Any:
    return v if ascending else _Desc(v)


def sections(ctx: Any, rows: list[dict[str, Any]], prefs: ListPrefs) -> list[tuple[int | None, dict[str, Any]]]:
    """SectionedDataSource: each row with the header starting before it (None: no header there) - a header where
    the group changes (Overdue for the days before today when grouped by due date; Completed where the completed
    ones begin at the bottom); no headers without a grouping."""
    out: list[tuple[int | None, dict[str, Any]]] = []
    if prefs.group_mode == GROUP_NONE:
        return [(None, t) for t in rows]
    today = start_of_day_ms(ctx.model, now(ctx.model).date())
    last: int | None = None
    for t in rows:
        if prefs.completed_at_bottom and int(t["completed"] or 0) > 0:
            header: int = HEADER_COMPLETED
        else:
            g = group_value(ctx, t, prefs.group_mode) or 0
            header = HEADER_OVERDUE if prefs.group_mode == SORT_DUE and 0 < g < today else g
        out.append((header if header != last else None, t))
        last = header
    return out


def header_text(ctx: Any, value: int, group_mode: int) -> str:
    """HeaderFormatter.headerString."""
    if value == HEADER_COMPLETED:
        return tr(ctx, "completed")
    if group_mode == SORT_IMPORTANCE:
        return (
            tr(ctx, ("filter_high_priority", "filter_medium_priority", "filter_low_priority")[value])
            if (0 <= value <= 2)
            else tr(ctx, "filter_no_priority")
        )
    if value == HEADER_OVERDUE:
        return tr(ctx, "filter_overdue")
    if value == 0:
        return tr(ctx, {SORT_DUE: "no_due_date", SORT_START: "no_start_date"}.get(group_mode, "no_date"))
    key = {
        SORT_DUE: "sort_due_group",
        SORT_START: "sort_start_group",
        SORT_CREATED: "sort_created_group",
        SORT_MODIFIED: "sort_modified_group",
    }[group_mode]
    return tr(ctx, key).replace("%s", header_day(ctx, value))


def task(ctx: Any, task_id: int | None) -> dict[str, Any] | None:
    if task_id is None:
        return None
    rows = DB.rows(ctx.model.fs, "SELECT * FROM tasks WHERE _id = ?", (task_id,))
    return rows[0] if rows else None


def set_completed(ctx: Any, task_id: int, done: bool) -> None:
    """TaskCompleter: completed now (or 0 again), modified now."""
    t = now_ms(ctx.model)
    DB.execute(
        ctx.model.fs, "UPDATE tasks SET completed = ?, modified = ? WHERE _id = ?", (t if done else 0, t, task_id)
    )


def priority_color(importance: int, dark: bool) -> tuple[int, int, int]:
    """The checkbox's colour (the app's priority colours: red, amber, blue, grey)."""
    colors = {HIGH: (244, 67, 54), MEDIUM: (251, 140, 0), LOW: (33, 150, 243)}
    return colors.get(importance, (176, 176, 176) if dark else (158, 158, 158))
