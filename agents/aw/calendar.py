"""Simple Calendar Pro: events added through the event editor (its date and time pickers), deleted from the day they
are on, and the information-retrieval questions answered after looking at the days they ask about.

AndroidWorld's calendar classes draw their events in October 2023 on a device whose date it set to October 15 2023
(time zone UTC): the monthly view the app opens on shows that month, its grid starting on the Sunday before the 1st.
The solvers work from the instance's parameters; where AndroidWorld draws part of the answer only when it sets the
task up (the `_without_replacement` events of SimpleCalendarAnyEventsOnDate and SimpleCalendarEventsInNextWeek), the
answer is read off the day views the solver opens (`ReadEvents` / `AnswerRead`).
"""

from __future__ import annotations

import calendar as _cal
import datetime as dt
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from harness.actions import Action, Answer, Complete
from tasks.schema import ReferenceStep

from .dates import question_day
from .steps import IfShown, Step, click, loc, open_app, type_into, when_shown

CALENDAR = ("Calendar", "com.simplemobiletools.calendar.pro")
UTC = dt.timezone.utc  # AndroidWorld's device time zone
MONTHS = [_cal.month_name[i] for i in range(1, 13)]
OK = click(resource_id="android:id/button1", text="OK")
DISCLAIMER_OK = when_shown(resource_id="android:id/button1", text="OK")
YES = click(resource_id="android:id/button1", text="Yes")


def _day_desc(d: dt.date) -> str:
    return f"{d.day} {MONTHS[d.month - 1]} {d.year}"


@dataclass(frozen=True)
class ShowMonth:
    """In the date picker: Previous / Next month until the month of `day` is shown (nothing when it is)."""

    day: dt.date
    type: str = "DECIDE"

    def choose(self, screen: Any, lang: str) -> ReferenceStep | Action | None:
        for el in screen.tree:
            m = re.fullmatch(r"\d+ (\w+) (\d{4})", el.content_desc or "")
            if m and m.group(1) in MONTHS:
                shown = int(m.group(2)) * 12 + MONTHS.index(m.group(1))
                want = self.day.year * 12 + self.day.month - 1
                if shown == want:
                    return None
                return click(resource_id="android:id/next" if want > shown else "android:id/prev")
        return None


@dataclass(frozen=True)
class ClockHour:
    """The time picker's clock: the hour as its face numbers it (1-12 in 12-hour mode, 0-23 in 24-hour mode)."""

    hour: int
    type: str = "DECIDE"

    def choose(self, screen: Any, lang: str) -> ReferenceStep | Action | None:
        twelve = any((el.resource_id or "").endswith("id/am_label") for el in screen.tree)
        value = (self.hour % 12 or 12) if twelve else self.hour
        return click(desc=str(value), resource_id=None)


def pick_date(field_rid: str, day: dt.date) -> list[Step]:
    return [click(resource_id=field_rid), ShowMonth(day), ShowMonth(day), click(desc=_day_desc(day)), OK]


def pick_time(field_rid: str, hour: int, minute: int) -> list[Step]:
    """The clock: the hour, then the minute (a multiple of 5, as the face offers), AM or PM in 12-hour mode."""
    half = "pm_label" if hour >= 12 else "am_label"
    return [
        click(resource_id=field_rid),
        ClockHour(hour),
        click(desc=str(minute - minute % 5)),
        IfShown(loc(resource_id=f"android:id/{half}"), click(resource_id=f"android:id/{half}")),
        OK,
    ]


def _start(p: Mapping[str, Any]) -> dt.datetime:
    return dt.datetime(int(p["year"]), int(p["month"]), int(p["day"]), int(p["hour"]), 0, tzinfo=UTC)


def add_event(p: Mapping[str, Any], repeat: str = "") -> list[Step]:
    """The FAB's Event, the title and description typed, the start's date and time picked, the end's (its date too
    when the event ends on the next day), the repetition chosen, saved (the reminders' disclaimer accepted)."""
    start = _start(p)
    end = start + dt.timedelta(minutes=int(p["duration_mins"]))
    steps: list[Step] = [
        open_app(CALENDAR),
        click(resource_id="calendar_fab"),
        click(resource_id="fab_event_label"),
        type_into(str(p["event_title"]), resource_id="event_title"),
        type_into(str(p["event_description"]), resource_id="event_description"),
        *pick_date("event_start_date", start.date()),
        *pick_time("event_start_time", start.hour, start.minute),
    ]
    if end.date() != start.date():
        steps += pick_date("event_end_date", end.date())
    steps += pick_time("event_end_time", end.hour, end.minute)
    if repeat:
        steps += [click(resource_id="event_repetition"), click(text=repeat.capitalize(), class_name="RadioButton")]
    return [*steps, click(resource_id="save"), DISCLAIMER_OK, Complete()]


def open_day(day: dt.date) -> list[Step]:
    """The monthly view's cell of `day` (the month shown is its month): that day's daily view."""
    lead = (dt.date(day.year, day.month, 1).weekday() + 1) % 7
    return [open_app(CALENDAR), click(resource_id="month_view_background", nth=lead + day.day - 1)]


def _times(hour: int, minute: int) -> tuple[str, str]:
    """An event's start as the daily view writes it, in 12- and 24-hour form."""
    return f"{hour % 12 or 12:02d}:{minute:02d} {'AM' if hour < 12 else 'PM'}", f"{hour:02d}:{minute:02d}"


@dataclass(frozen=True)
class PickEvent:
    """The daily view's event titled `title` that starts on the day shown at hour:minute (an event that began the
    day before, its date in brackets, is not it)."""

    title: str
    hour: int
    minute: int = 0
    type: str = "DECIDE"

    def choose(self, screen: Any, lang: str) -> ReferenceStep | Action | None:
        tree = screen.tree
        starts = _times(self.hour, self.minute)
        titles = [el for el in tree if (el.resource_id or "").endswith("id/event_item_title")]
        nth = 0
        for el in sorted(titles, key=lambda e: e.bounds[1]):
            if el.text != self.title:
                continue
            time = next(
                (
                    t.text
                    for t in tree
                    if t.parent == el.parent and (t.resource_id or "").endswith("id/event_item_time")
                ),
                "",
            )
            head = time.split(" - ")[0]
            if head in starts:
                return click(resource_id="event_item_title", text=self.title, nth=nth)
            nth += 1
        return click(resource_id="event_item_title", text=self.title)


def _rows(p: Mapping[str, Any]) -> list[tuple[str, dt.datetime]]:
    """The target rows' titles and starts (AndroidWorld's CalendarEvent objects, given as their text)."""
    out = []
    for row in p.get("row_objects") or []:
        if isinstance(row, Mapping):
            title, ts = str(row["title"]), int(row["start_ts"])
        else:
            m_title = re.search(r"title='((?:[^'\\]|\\.)*)'", str(row)) or re.search(r'title="([^"]*)"', str(row))
            m_ts = re.search(r"start_ts=(\d+)", str(row))
            if not (m_title and m_ts):
                continue
            title, ts = m_title.group(1), int(m_ts.group(1))
        out.append((title, dt.datetime.fromtimestamp(ts, UTC)))
    return out


def delete_events(p: Mapping[str, Any]) -> list[Step]:
    """The day's daily view; each target event opened, deleted (Yes), back on the day."""
    day = dt.date(int(p["year"]), int(p["month"]), int(p["day"]))
    steps: list[Step] = [*open_day(day)]
    for title, start in _rows(p):
        steps += [PickEvent(title, start.hour, start.minute), click(resource_id="delete"), YES]
    return [*steps, Complete()]


# --- information retrieval -----------------------------------------------------------------------------------------
@dataclass
class ReadEvents:
    """Notes the titles of the events the daily view shows that start on its day (their time without a bracketed
    date before " - "); plays nothing."""

    seen: list[str] = field(default_factory=list)
    after: tuple[int, int] | None = None  # only those starting at or after (hour, minute)
    before: tuple[int, int] | None = None  # only those starting at or before
    type: str = "DECIDE"

    def choose(self, screen: Any, lang: str) -> ReferenceStep | Action | None:
        tree = screen.tree
        for el in sorted(tree, key=lambda e: e.bounds[1]):
            if not (el.resource_id or "").endswith("id/event_item_title"):
                continue
            time = next(
                (
                    t.text
                    for t in tree
                    if t.parent == el.parent and (t.resource_id or "").endswith("id/event_item_time")
                ),
                "",
            )
            head = time.split(" - ")[0]
            if "(" in head:
                continue
            start = _parse_time(head)
            if start is None or (self.after and start < self.after) or (self.before and start > self.before):
                continue
            if el.text not in self.seen:
                self.seen.append(el.text)
        return None


def _parse_time(s: str) -> tuple[int, int] | None:
    m = re.fullmatch(r"(\d{1,2}):(\d{2})(?: ?([AP]M))?", s.strip())
    if not m:
        return None
    h, mi = int(m.group(1)), int(m.group(2))
    if m.group(3):
        h = h % 12 + (12 if m.group(3) == "PM" else 0)
    return h, mi


@dataclass(frozen=True)
class AnswerRead:
    """Answers with the titles the `ReadEvents` before it noted, comma-separated."""

    read: ReadEvents
    type: str = "DECIDE"

    def choose(self, screen: Any, lang: str) -> ReferenceStep | Action | None:
        return Answer(text=", ".join(self.read.seen))


NEXT_DAY = click(resource_id="top_right_arrow")


def _time(text: str) -> tuple[int, int]:
    """A time as AndroidWorld's questions give it: "11:00am", "1:30pm", "12pm", "21:45"."""
    s = str(text).strip().lower().replace(" ", "")
    m = re.fullmatch(r"(\d{1,2})(?::(\d{2}))?(am|pm)?", s)
    if not m:
        raise ValueError(f"not a time: {text!r}")
    h, mi = int(m.group(1)), int(m.group(2) or 0)
    if m.group(3):
        h = h % 12 + (12 if m.group(3) == "pm" else 0)
    return h, mi


def ir_on_day(p: Mapping[str, Any], answer: str) -> list[Step]:
    """Looks at the day the question names, answers what its parameters say."""
    return [*open_day(question_day(p["date"])), Answer(text=answer)]


def events_on_date(p: Mapping[str, Any]) -> list[Step]:
    return ir_on_day(p, str(p["title"]))


def any_events_on_date(p: Mapping[str, Any]) -> list[Step]:
    """Three events drawn at set-up on the day: read off its daily view."""
    read = ReadEvents()
    return [*open_day(question_day(p["date"])), read, AnswerRead(read)]


def events_in_next_week(p: Mapping[str, Any]) -> list[Step]:
    """The events from today (Sunday October 15) to Sunday October 22: each day's daily view read."""
    read = ReadEvents()
    first = dt.date(2023, 10, 15)
    steps: list[Step] = [*open_day(first), read]
    for _ in range(7):
        steps += [NEXT_DAY, read]
    return [*steps, AnswerRead(read)]


def next_event(p: Mapping[str, Any]) -> list[Step]:
    return [*open_day(dt.date(2023, 10, 15)), Answer(text=str(p["title"]))]


def next_meeting_with(p: Mapping[str, Any]) -> list[Step]:
    day = question_day(p["date"])
    h, mi = _time(p["time"])
    return [*open_day(day), Answer(text=f"{MONTHS[day.month - 1]} {day.day} {day.year} {h:02d}:{mi:02d}")]


def location_of(p: Mapping[str, Any]) -> list[Step]:
    """The event opened from its day (its location field read), answered."""
    day = question_day(p["date"])
    h, mi = _time(p["time"])
    return [*open_day(day), PickEvent(str(p["title"]), h, mi), Answer(text=str(p["location"]))]


def _ir(key: str) -> Callable[[Mapping[str, Any]], list[Step]]:
    return lambda p: ir_on_day(p, str(p[key]))


SOLVERS: dict[str, Callable[[Mapping[str, Any]], list[Step]]] = {
    "SimpleCalendarAddOneEvent": add_event,
    "SimpleCalendarAddOneEventRelativeDay": add_event,
    "SimpleCalendarAddOneEventTomorrow": add_event,
    "SimpleCalendarAddOneEventInTwoWeeks": add_event,
    "SimpleCalendarAddRepeatingEvent": lambda p: add_event(p, str(p.get("repeat_rule", ""))),
    "SimpleCalendarDeleteEvents": delete_events,
    "SimpleCalendarDeleteOneEvent": delete_events,
    "SimpleCalendarDeleteEventsOnRelativeDay": delete_events,
    "SimpleCalendarEventsOnDate": events_on_date,
    "SimpleCalendarEventOnDateAtTime": _ir("title"),
    "SimpleCalendarFirstEventAfterStartTime": _ir("title"),
    "SimpleCalendarEventsInTimeRange": _ir("title"),
    "SimpleCalendarAnyEventsOnDate": any_events_on_date,
    "SimpleCalendarEventsInNextWeek": events_in_next_week,
    "SimpleCalendarNextEvent": next_event,
    "SimpleCalendarNextMeetingWithPerson": next_meeting_with,
    "SimpleCalendarLocationOfEvent": location_of,
}
