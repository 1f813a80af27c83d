"""Simple Calendar Pro's event editor (`EventActivity`): a new event (from the main screen's + and its Event label,
starting at the next full hour of the day shown, lasting no time as the default duration is 0) or one opened from a
list (`Edit Event`).

- `event_toolbar`: Back, `save` (Save), and for a stored event `delete` and `duplicate`.
- `event_title`, `event_location`, `event_description`; `event_all_day`; `event_start_date` / `event_start_time` /
  `event_end_date` / `event_end_time` ("October 16 (Mon)", "03:00 PM") open the platform's pickers
  (`calendar_pickers`); moving the start moves the end with it, as the app keeps the duration.
- `event_reminder_1` (10 minutes before, the last reminder used: a radio list), `event_repetition` (No repetition,
  Daily, Weekly, Monthly, Yearly; Weekly repeats on the start's weekday: `event_repetition_rule`, "Repeat on"),
  `event_repetition_limit` (Forever), `event_availability` (Busy), `event_type` (Regular event).
- Save writes the row as EventActivity.saveEvent does (an empty title or an end before the start are refused with
  the app's toasts; the reminders' disclaimer comes first while it was never shown); Delete asks (Yes / No, or the
  occurrence choices for a repeating event); Back with changes asks to save them (Save / Discard).
Left out: reminders 2 and 3, custom intervals, the repetition rule and limit dialogs, attendees, time zones, colours,
event types' editing, tasks.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable
from functools import partial
from typing import Any

from ..ui import dialogs
from ..ui import widgets as w
from ..ui.layout import Ctx, Row, V
from ..ui.view import View
from .base import page
from .calendar_data import (
    DAY,
    EVENT,
    FLAG_ALL_DAY,
    MONTH,
    PKG,
    REMINDER_OFF,
    SOURCE_SIMPLE_CALENDAR,
    WEEK,
    WEEKDAY_SHORT_EN,
    WEEKDAY_ZH,
    YEAR,
    at,
    delete_events,
    delete_occurrence,
    event,
    fmt_date,
    fmt_time,
    import_id,
    insert_event,
    now,
    tr,
    ts_of,
    update_event,
)
from .calendar_pickers import date_dialog, time_dialog

FIELDS = ("ev_title", "ev_location", "ev_description")
INTERVALS = ((0, "no_repetition"), (DAY, "daily"), (WEEK, "weekly"), (MONTH, "monthly"), (YEAR, "yearly"))
REMINDERS = (REMINDER_OFF, 0, 5, 10, 15, 30, 60, 1440)


# --- opening ---------------------------------------------------------------------------------------------------------
def new_event_start(ctx: Ctx, day: dt.date) -> int:
    """getNewEventTimestampFromCode: the day at the hour after the current one (the same day kept)."""
    hour = now(ctx.model).hour
    return ts_of(ctx.model, day, hour + 1 if hour < 23 else 0)


def open_new(ctx: Ctx, day: dt.date) -> None:
    ctx.push(EVENT, {"new_start": new_event_start(ctx, day)})


def open_event(ctx: Ctx, event_id: int, occurrence: int) -> None:
    ctx.push(EVENT, {"event_id": event_id, "occurrence": occurrence})


def editor_created(ctx: Ctx) -> None:
    """EventActivity.onCreate: the draft from the stored event, or a new one."""
    ex = ctx.extras
    row = event(ctx, ex.get("event_id")) if ex.get("event_id") is not None else None
    prefs = ctx.data.setdefault("prefs", {})
    if row is not None:
        length = int(row["end_ts"]) - int(row["start_ts"])
        start = int(ex.get("occurrence") or row["start_ts"])
        draft = {
            "start": start,
            "end": start + length,
            "all_day": bool(int(row["flags"]) & FLAG_ALL_DAY),
            "interval": int(row["repeat_interval"]),
            "rule": int(row["repeat_rule"]),
            "limit": int(row["repeat_limit"]),
            "reminder": int(row["reminder_1_minutes"]),
        }
        values = (str(row["title"]), str(row["location"]), str(row["description"]))
    else:
        start = int(ex.get("new_start") or new_event_start(ctx, now(ctx.model).date()))
        draft = {
            "start": start,
            "end": start,
            "all_day": False,
            "interval": 0,
            "rule": 0,
            "limit": 0,
            "reminder": int(prefs.get("last_reminder", 10)),
        }
        values = ("", "", "")
    for key, v in zip(FIELDS, values, strict=True):
        ctx.set_field(key, v)
    ctx.ui["draft"] = {**draft, "orig": {**draft, "texts": list(values)}}
    ctx.ui.setdefault("scroll", {}).pop("editor", None)
    if row is None:
        ctx.set_focus("ev_title")  # SOFT_INPUT_STATE_ALWAYS_VISIBLE, the title focused


def _draft(ctx: Ctx) -> dict[str, Any]:
    d: dict[str, Any] = ctx.ui.setdefault("draft", {})
    return d


def _changed(ctx: Ctx) -> bool:
    d = _draft(ctx)
    orig = d.get("orig", {})
    texts = [ctx.field_value(k) for k in FIELDS]
    keys = ("start", "end", "all_day", "interval", "rule", "limit", "reminder")
    return texts != orig.get("texts") or any(d.get(k) != orig.get(k) for k in keys)


def editor_back(ctx: Ctx) -> bool:
    if _changed(ctx):
        ctx.show_dialog({"id": "unsaved"})
        return True
    return False


# --- texts -----------------------------------------------------------------------------------------------------------
def reminder_text(ctx: Ctx, minutes: int) -> str:
    if minutes == REMINDER_OFF:
        return tr(ctx, "no_reminder")
    if minutes == 0:
        return tr(ctx, "at_start")
    if minutes % 1440 == 0:
        n = minutes // 1440
        return ctx.tr(f"{n} day{'s' if n > 1 else ''} before", f"{n} 天前")
    if minutes % 60 == 0:
        n = minutes // 60
        return ctx.tr(f"{n} hour{'s' if n > 1 else ''} before", f"{n} 小时前")
    return ctx.tr(f"{minutes} minute{'s' if minutes > 1 else ''} before", f"{minutes} 分钟前")


def interval_text(ctx: Ctx, interval: int) -> str:
    for value, key in INTERVALS:
        if value == interval:
            return tr(ctx, key)
    return ctx.tr(f"Every {interval // DAY} days", f"每 {interval // DAY} 天")


def rule_text(ctx: Ctx, rule: int) -> str:
    if rule == 127:
        return tr(ctx, "every_day")
    names = WEEKDAY_ZH if ctx.zh else WEEKDAY_SHORT_EN
    return ", ".join(names[i] for i in range(7) if rule & (1 << i))


# --- saving and deleting ---------------------------------------------------------------------------------------
def save(ctx: Ctx) -> None:
    """saveCurrentEvent: the reminders' disclaimer first (once), then saveEvent."""
    d = _draft(ctx)
    prefs = ctx.data.setdefault("prefs", {})
    if d.get("reminder", REMINDER_OFF) != REMINDER_OFF and not prefs.get("alarm_warning_shown"):
        ctx.show_dialog({"id": "warning"})
        return
    _store(ctx)


def _times(ctx: Ctx) -> tuple[int, int]:
    d = _draft(ctx)
    if d.get("all_day"):
        s, e = at(ctx.model, int(d["start"])).date(), at(ctx.model, int(d["end"])).date()
        return ts_of(ctx.model, s), ts_of(ctx.model, e, 12)
    return int(d["start"]), int(d["end"])


def _store(ctx: Ctx) -> None:
    title = ctx.field_value("ev_title")
    if not title:
        ctx.toast(tr(ctx, "title_empty"))
        ctx.set_focus("ev_title")
        return
    start, end = _times(ctx)
    if start > end:
        ctx.toast(tr(ctx, "end_before_start"))
        return
    d = _draft(ctx)
    model = ctx.model
    moment = int(model.now() * 1000)
    event_id = ctx.extras.get("event_id")
    row = event(ctx, event_id) if event_id is not None else None
    interval = int(d.get("interval", 0))
    values: dict[str, Any] = {
        "start_ts": start,
        "end_ts": end,
        "title": title,
        "location": ctx.field_value("ev_location"),
        "description": ctx.field_value("ev_description"),
        "reminder_1_minutes": int(d.get("reminder", REMINDER_OFF)),
        "reminder_2_minutes": REMINDER_OFF,
        "reminder_3_minutes": REMINDER_OFF,
        "reminder_1_type": 0,
        "reminder_2_type": 0,
        "reminder_3_type": 0,
        "repeat_interval": interval,
        "repeat_rule": int(d.get("rule", 0)) if interval else 0,
        "repeat_limit": int(d.get("limit", 0)) if interval else 0,
        "flags": (int(row["flags"]) if row else 0) & ~FLAG_ALL_DAY | (FLAG_ALL_DAY if d.get("all_day") else 0),
        "last_updated": moment,
        "source": SOURCE_SIMPLE_CALENDAR if row is None else row["source"],
        "availability": 0,
    }
    tz = str(model.time_zone)
    prefs = ctx.data.setdefault("prefs", {})
    prefs["last_reminder"] = values["reminder_1_minutes"]
    if row is None:
        values.update(
            repetition_exceptions="[]",
            attendees="",
            import_id=import_id(f"{moment}:{title}:{start}"),
            time_zone=tz,
            event_type=1,
            parent_id=0,
            color=0,
            type=0,
        )
        new_id = insert_event(ctx, values)
        model.events.log("calendar", action="insert", package=PKG, id=new_id, title=title, start=start, end=end)
        ctx.toast(tr(ctx, "event_added"))
    else:
        if int(row["repeat_interval"]) and ctx.extras.get("occurrence") not in (None, row["start_ts"]):
            # all occurrences edited: the series keeps its first start, moved by what this occurrence moved
            shift = start - int(ctx.extras["occurrence"])
            values["start_ts"] = int(row["start_ts"]) + shift
            values["end_ts"] = values["start_ts"] + (end - start)
        if not row["time_zone"]:
            values["time_zone"] = tz
        update_event(ctx, int(row["id"]), values)
        model.events.log("calendar", action="update", package=PKG, id=int(row["id"]), title=title)
        ctx.toast(tr(ctx, "event_updated"))
    ctx.set_focus(None)
    ctx.finish()


def delete_dialog(ctx: Ctx, spec: dict[str, Any], on_done: Any = None) -> View:
    """DeleteEventDialog: "Are you sure...?" Yes / No, with the occurrence choices when a repeating event is among
    them. spec: {"ids": [...], "occurrence": ts (the editor's), "repeating": bool, "choice"}."""
    ids = [int(i) for i in spec.get("ids", [])]
    repeating = bool(spec.get("repeating"))
    choice = spec.get("choice", "one")

    def confirm() -> None:
        ctx.dismiss_dialog()
        if repeating and choice == "one" and spec.get("occurrences"):
            for event_id, occ in spec["occurrences"]:
                row = event(ctx, event_id)
                if row is not None and int(row["repeat_interval"]):
                    delete_occurrence(ctx, row, int(occ))
                else:
                    delete_events(ctx, [int(event_id)])
        elif repeating and choice == "future" and spec.get("occurrences"):
            for event_id, occ in spec["occurrences"]:
                row = event(ctx, event_id)
                if row is not None and int(row["repeat_interval"]) and int(occ) > int(row["start_ts"]):
                    update_event(ctx, int(event_id), {"repeat_limit": int(occ) - 1})
                else:
                    delete_events(ctx, [int(event_id)])
        else:
            delete_events(ctx, ids)
        if callable(on_done):
            on_done()

    rows: list[Row] = []
    if repeating:
        rows.append(
            w.text_row(ctx, ctx.tr("The event is repeatable", "这是个重复活动"), "delete_event_repeat_description")
        )
        options = (
            ("one", "delete_event_one_only", ctx.tr("Delete the selected occurrence only", "只删除选中的发生")),
            (
                "future",
                "delete_event_future",
                ctx.tr("Delete this and all future occurrences", "删除活动的此次和所有未来发生"),
            ),
            ("all", "delete_event_all", ctx.tr("Delete all occurrences", "删除日历中的所有此活动")),
        )
        for key, rid, label in options:

            def pick(key: str = key) -> None:
                ctx.ui["dialog"] = {**spec, "choice": key}

            rows.append(radio_row(ctx, choice == key, rid, pick, label))
    return dialogs.dialog(
        ctx,
        "",
        tr(ctx, "proceed_with_deletion"),
        [(tr(ctx, "yes"), "android:id/button1", confirm), (tr(ctx, "no"), "android:id/button2", ctx.dismiss_dialog)],
        rows=rows,
        on_cancel=ctx.dismiss_dialog,
        message_rid="delete_event_description",
    )


# --- the screen ------------------------------------------------------------------------------------------------
def screen(ctx: Ctx) -> list[View]:
    d = _draft(ctx)
    if "start" not in d:
        editor_created(ctx)
        d = _draft(ctx)
    stored = ctx.extras.get("event_id") is not None
    th = ctx.theme
    title = tr(ctx, "edit_event") if stored else tr(ctx, "new_event")
    actions: list[tuple[str, str, Callable[[], Any] | None, str]] = [
        ("check", tr(ctx, "save"), lambda: save(ctx), "save")
    ]

    def up() -> None:
        if not editor_back(ctx):
            ctx.finish()

    if stored:
        row = event(ctx, ctx.extras.get("event_id"))
        repeating = bool(row and int(row["repeat_interval"]))
        spec = {
            "id": "delete",
            "ids": [ctx.extras["event_id"]],
            "repeating": repeating,
            "occurrences": [[ctx.extras["event_id"], ctx.extras.get("occurrence") or 0]],
        }
        actions.append(("delete", tr(ctx, "delete"), lambda: ctx.show_dialog(spec), "delete"))
        actions.append(("copy", tr(ctx, "duplicate_event"), lambda: _duplicate(ctx), "duplicate"))
    bar = w.toolbar(ctx, title, ("back", tr(ctx, "back"), up), actions, rid="event_toolbar")
    start, end = at(ctx.model, int(d["start"])), at(ctx.model, int(d["end"]))
    pad = ctx.dp(16)
    rows: list[Row] = []
    for key, rid, hint, multi in (
        ("ev_title", "event_title", tr(ctx, "title"), False),
        ("ev_location", "event_location", tr(ctx, "location"), False),
        ("ev_description", "event_description", tr(ctx, "description"), True),
    ):
        h = ctx.dp(56)

        def field(
            x: int, y: int, wd: int, key: str = key, rid: str = rid, hint: str = hint, multi: bool = multi, h: int = h
        ) -> View:
            return w.edit(
                ctx,
                (x + pad, y + ctx.dp(4), x + wd - pad, y + h - ctx.dp(4)),
                key,
                ctx.field_value(key),
                hint,
                partial(ctx.set_field, key),
                rid,
                multiline=multi,
                box="underline",
            )

        rows.append(Row(h, field, (key,)))
    line_h = ctx.dp(52)

    def all_day(x: int, y: int, wd: int) -> View:
        holder = V(
            ctx,
            "android.widget.RelativeLayout",
            (x, y, x + wd, y + line_h),
            "event_all_day_holder",
            clickable=True,
            on_click=lambda: _toggle_all_day(ctx),
        )
        holder.children.append(
            w.checkbox(
                ctx,
                (x + ctx.dp(56), y, x + wd - pad, y + line_h),
                bool(d.get("all_day")),
                "event_all_day",
                lambda: _toggle_all_day(ctx),
                tr(ctx, "all_day"),
            )
        )
        return holder

    rows.append(Row(line_h, all_day))

    def when(which: str, moment: dt.datetime) -> Row:
        def build(x: int, y: int, wd: int) -> list[View]:
            red = which == "end" and int(d["start"]) > int(d["end"])
            col = (211, 47, 47) if red else th.text
            out = [
                w.text(
                    ctx,
                    (x + ctx.dp(56), y, x + wd // 2 + ctx.dp(40), y + line_h),
                    fmt_date(ctx, moment.date()),
                    f"event_{which}_date",
                    size=16,
                    color=col,
                    clickable=True,
                    on_click=lambda: _pick_date(ctx, which),
                )
            ]
            if not d.get("all_day"):
                out.append(
                    w.text(
                        ctx,
                        (x + wd // 2 + ctx.dp(48), y, x + wd - pad, y + line_h),
                        fmt_time(ctx, moment),
                        f"event_{which}_time",
                        size=16,
                        color=col,
                        align="r",
                        clickable=True,
                        on_click=lambda: _pick_time(ctx, which),
                    )
                )
            return out

        return Row(line_h, build)

    rows += [when("start", start), when("end", end)]

    def line(rid: str, text: str, on_click: Any) -> Row:
        return Row(
            line_h,
            lambda x, y, wd: w.text(
                ctx,
                (x + ctx.dp(56), y, x + wd - pad, y + line_h),
                text,
                rid,
                size=16,
                clickable=on_click is not None,
                on_click=on_click,
            ),
        )

    rows.append(
        line(
            "event_reminder_1",
            reminder_text(ctx, int(d.get("reminder", REMINDER_OFF))),
            lambda: ctx.show_dialog({"id": "reminder"}),
        )
    )
    interval = int(d.get("interval", 0))
    rows.append(line("event_repetition", interval_text(ctx, interval), lambda: ctx.show_dialog({"id": "repeat"})))
    if interval and interval % WEEK == 0:
        rows.append(
            _pair(
                ctx,
                "event_repetition_rule_holder",
                "event_repetition_rule_label",
                tr(ctx, "repeat_on"),
                "event_repetition_rule",
                rule_text(ctx, int(d.get("rule", 0))),
            )
        )
    if interval:
        rows.append(
            _pair(
                ctx,
                "event_repetition_limit_holder",
                "event_repetition_limit_label",
                tr(ctx, "repeat"),
                "event_repetition_limit",
                tr(ctx, "forever"),
            )
        )
    rows.append(line("event_availability", tr(ctx, "status_busy"), None))
    rows.append(line("event_type", tr(ctx, "regular_event"), None))
    return page(
        ctx,
        [bar],
        rows,
        key="editor",
        rid="event_nested_scrollview",
        cls="android.widget.ScrollView",
        pad_bottom=ctx.dp(24),
    )


def _pair(ctx: Ctx, holder_rid: str, label_rid: str, label: str, value_rid: str, value: str) -> Row:
    h = ctx.dp(52)

    def build(x: int, y: int, wd: int) -> View:
        holder = V(
            ctx,
            "android.widget.RelativeLayout",
            (x, y, x + wd, y + h),
            holder_rid,
            clickable=True,
            on_click=lambda: None,
        )
        holder.children.append(w.text(ctx, (x + ctx.dp(56), y, x + wd // 2, y + h), label, label_rid, size=16))
        holder.children.append(
            w.text(ctx, (x + wd // 2, y, x + wd - ctx.dp(16), y + h), value, value_rid, size=16, align="r")
        )
        return holder

    return Row(h, build)


def _toggle_all_day(ctx: Ctx) -> None:
    d = _draft(ctx)
    d["all_day"] = not d.get("all_day")
    ctx.hide_keyboard()


def _duplicate(ctx: Ctx) -> None:
    """duplicateEvent: a new event's editor with this one's values (saved as a new row)."""
    texts = [ctx.field_value(k) for k in FIELDS]
    d = {k: v for k, v in _draft(ctx).items() if k != "orig"}
    ctx.finish()
    ctx.push(EVENT, {"new_start": d["start"], "_created": True})
    for key, v in zip(FIELDS, texts, strict=True):
        ctx.set_field(key, v)
    ctx.ui["draft"] = {**d, "orig": {}}


def _pick_date(ctx: Ctx, which: str) -> None:
    moment = at(ctx.model, int(_draft(ctx)[which]))
    ctx.set_focus(None)
    ctx.show_dialog({"id": "date", "which": which, "y": moment.year, "m": moment.month, "d": moment.day})


def _pick_time(ctx: Ctx, which: str) -> None:
    moment = at(ctx.model, int(_draft(ctx)[which]))
    ctx.set_focus(None)
    ctx.show_dialog({"id": "time", "which": which, "h": moment.hour, "mi": moment.minute})


def _date_set(ctx: Ctx, which: str, day: dt.date) -> None:
    """dateSet: a new start date keeps the event's length (the end moves with it); a weekly rule of one weekday
    follows the start's."""
    d = _draft(ctx)
    old = at(ctx.model, int(d[which]))
    new = int(old.replace(year=day.year, month=day.month, day=day.day).timestamp())
    if which == "start":
        length = int(d["end"]) - int(d["start"])
        d["start"], d["end"] = new, new + length
        if int(d.get("interval", 0)) % WEEK == 0 and int(d.get("interval", 0)) and bin(int(d["rule"])).count("1") == 1:
            d["rule"] = 1 << day.weekday()
    else:
        d["end"] = new


def _time_set(ctx: Ctx, which: str, hour: int, minute: int) -> None:
    d = _draft(ctx)
    old = at(ctx.model, int(d[which]))
    new = int(old.replace(hour=hour, minute=minute).timestamp())
    if which == "start":
        length = int(d["end"]) - int(d["start"])
        d["start"], d["end"] = new, new + length
    else:
        d["end"] = new


def radio_row(ctx: Ctx, checked: bool, rid: str, on_click: Callable[[], Any], label: str) -> Row:
    """A RadioButton of a radio list (Simple-Commons' RadioGroupDialog, DeleteEventDialog's choices)."""

    def build(x: int, y: int, wd: int) -> View:
        box = (x + ctx.dp(24), y, x + wd - ctx.dp(24), y + ctx.dp(48))
        return w.checkbox(ctx, box, checked, rid, on_click, label, radio=True)

    return Row(ctx.dp(48), build)


def _radio_dialog(ctx: Ctx, items: list[tuple[str, bool, Any]]) -> View:
    """Simple-Commons' RadioGroupDialog: one RadioButton per item; a pick closes it."""
    rows = [radio_row(ctx, on, "", cb, label) for label, on, cb in items]
    dlg = dialogs.dialog(ctx, "", "", [], rows=rows, on_cancel=ctx.dismiss_dialog)
    for v in dlg.walk():
        if v.resource_id.endswith(":id/select_dialog_listview"):
            v.resource_id = f"{PKG}:id/dialog_radio_group"
    return dlg


def editor_dialog(ctx: Ctx, spec: dict[str, Any]) -> View | None:
    kind = spec.get("id")
    d = _draft(ctx)
    if kind == "date":
        return date_dialog(ctx, spec, lambda day: _date_set(ctx, str(spec["which"]), day))
    if kind == "time":
        return time_dialog(ctx, spec, lambda h, m: _time_set(ctx, str(spec["which"]), h, m))
    if kind == "repeat":

        def set_interval(value: int) -> None:
            ctx.dismiss_dialog()
            d["interval"] = value
            if value and value % WEEK == 0:
                d["rule"] = 1 << at(ctx.model, int(d["start"])).weekday()
            elif value and (value % MONTH == 0 or value % YEAR == 0):
                d["rule"] = 1  # REPEAT_SAME_DAY
            else:
                d["rule"] = 0

        items = [
            (tr(ctx, key), int(d.get("interval", 0)) == value, lambda value=value: set_interval(value))
            for value, key in INTERVALS
        ]
        return _radio_dialog(ctx, items)
    if kind == "reminder":

        def set_reminder(value: int) -> None:
            ctx.dismiss_dialog()
            d["reminder"] = value

        items = [
            (reminder_text(ctx, m), int(d.get("reminder", REMINDER_OFF)) == m, lambda m=m: set_reminder(m))
            for m in REMINDERS
        ]
        return _radio_dialog(ctx, items)
    if kind == "warning":

        def ok() -> None:
            ctx.dismiss_dialog()
            ctx.data.setdefault("prefs", {})["alarm_warning_shown"] = True
            _store(ctx)

        return dialogs.dialog(
            ctx,
            tr(ctx, "disclaimer"),
            tr(ctx, "reminder_warning"),
            [
                (tr(ctx, "ok"), "android:id/button1", ok),
                (tr(ctx, "settings"), "android:id/button3", ctx.dismiss_dialog),
            ],
            message_rid="reminder_warning",
            cancel_outside=False,
        )
    if kind == "unsaved":

        def discard() -> None:
            ctx.dismiss_dialog()
            ctx.set_focus(None)
            ctx.finish()

        def keep() -> None:
            ctx.dismiss_dialog()
            save(ctx)

        return dialogs.dialog(
            ctx,
            "",
            tr(ctx, "save_before_closing"),
            [(tr(ctx, "save"), "android:id/button1", keep), (tr(ctx, "discard"), "android:id/button2", discard)],
            on_cancel=ctx.dismiss_dialog,
        )
    if kind == "delete":

        def done() -> None:
            ctx.set_focus(None)
            ctx.finish()

        return delete_dialog(ctx, spec, done)
    return None
