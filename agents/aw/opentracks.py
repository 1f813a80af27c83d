"""OpenTracks: AndroidWorld's six information-retrieval classes over the track list (SportsTracker*).

The track list shows each track's name, date (Today / Yesterday / a weekday within a week / "8 Oct"), time, total
time and distance, but not its activity type (only its icon); the activity types are named on the aggregated
statistics of a selection. So the solutions read the list as a user does:

- the tracks of the category searched for (the toolbar's Search: name, description or category) when the question
  names one, else the whole list;
- the tracks of the question's days selected (a long press on the first, a tap on each other; the list scrolled
  until it has passed the days, newest first), their "Aggregated stats" opened from the selection's bar (under
  More options when it does not fit) and the answer read off the row of the category: its count
  (ActivitiesCountForWeek), its moving time in minutes (TotalDurationForCategoryThisWeek), its distance in meters
  (TotalDistanceForCategoryOverInterval), or every row's type once per track (ActivitiesOnDate);
- ActivityDuration and LongestDistanceActivity open the track itself (the row of that day showing the duration, the
  row of this week showing the distance the parameters give, as AndroidWorld rounds it through miles) and read its
  Total time / Distance on the Stats tab.

Dates are the device's: AndroidWorld sets its clock to 15 October 2023 (`AW_TODAY`), a week starts on Monday.
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from harness.actions import Answer, Click, LongPress, Point, Swipe
from tasks.schema import ReferenceStep

from .dates import AW_TODAY, MONTHS, WEEKDAYS, question_day
from .steps import Step, click, loc, open_app

OPENTRACKS = ("OpenTracks", "de.dennisguse.opentracks")
RID = "de.dennisguse.opentracks:id/"
PAGE = Swipe(start=Point(x=0.5, y=0.8), end=Point(x=0.5, y=0.25), duration=1.5)  # most of a screen of the list
SELECTS = 14  # list moves (a selection or a scroll) at most
MI, KM, FT = 1609.344, 1000.0, 0.3048  # the app's units, in meters
AGGREGATED = "Aggregated stats"


# --- what the screens show ------------------------------------------------------------------------------------------
def label_day(text: str, today: dt.date = AW_TODAY) -> dt.date | None:
    """The day a row's date label names: Today, Yesterday, a weekday of the last week, "8 Oct" or "8 Oct 2022"."""
    if text == "Today":
        return today
    if text == "Yesterday":
        return today - dt.timedelta(days=1)
    if text in WEEKDAYS:
        back = (today.weekday() - WEEKDAYS.index(text)) % 7
        return today - dt.timedelta(days=back)
    m = re.fullmatch(r"(\d+) (\w{3})(?: (\d{4}))?", text)
    months = [name[:3] for name in MONTHS]
    if m and m.group(2) in months:
        return dt.date(int(m.group(3) or today.year), months.index(m.group(2)) + 1, int(m.group(1)))
    return None


def meters(value: str, unit: str) -> float:
    """A distance as shown ("3.11" "mi", "2,624.67" "ft", "5.01" "km") in meters."""
    per = {"mi": MI, "km": KM, "ft": FT, "m": 1.0}.get(unit, 1.0)
    return float(value.replace(",", "")) * per


def minutes(text: str) -> int:
    """An elapsed time as shown (H:MM:SS or MM:SS) in whole minutes."""
    parts = [int(p) for p in text.split(":")]
    seconds = sum(p * 60**i for i, p in enumerate(reversed(parts)))
    return round(seconds / 60)


def aw_meters(distance: Any) -> int:
    """The distance AndroidWorld stores for a parameter: rounded to 0.01 mi, back to whole meters."""
    return round(round(float(distance) / 1609.34, 2) * 1609.34)


@dataclass(frozen=True)
class TrackRow:
    index: int  # the name's element (a tap on it lands on the row)
    name: str
    day: dt.date | None
    time: str
    time_distance: str

    @property
    def key(self) -> tuple[str, str, str, str]:
        return (self.name, str(self.day), self.time, self.time_distance)

    @property
    def shown_meters(self) -> float | None:
        m = re.search(r"\(([\d,.]+) (\w+)\)", self.time_distance)
        return meters(m.group(1), m.group(2)) if m else None


def track_rows(screen: Any) -> list[TrackRow]:
    """The rows the screen shows whole enough to read (name, date, time, time and distance), top to bottom."""
    rows: list[dict[str, Any]] = []
    for e in screen.tree:
        rid = e.resource_id
        if rid == RID + "track_list_item_name":
            rows.append({"index": e.index, "name": e.text})
        elif rows and rid == RID + "track_list_item_date":
            rows[-1]["day"] = label_day(e.text)
        elif rows and rid == RID + "track_list_item_time":
            rows[-1]["time"] = e.text
        elif rows and rid == RID + "track_list_item_time_distance":
            rows[-1]["time_distance"] = e.text
    return [
        TrackRow(r["index"], r["name"], r["day"], r["time"], r["time_distance"])
        for r in rows
        if {"day", "time", "time_distance"} <= r.keys()
    ]


def scrolls(screen: Any) -> bool:
    """Whether the track list has more than it shows (a list that fits the screen is not scrollable)."""
    return any(e.resource_id == RID + "track_list" and e.scrollable for e in screen.tree)


def text_of(screen: Any, rid: str) -> str:
    return next((e.text for e in screen.tree if e.resource_id == RID + rid), "")


# --- reading the list -------------------------------------------------------------------------------------------------
@dataclass
class ListMemory:
    """The tracks selected so far, and the last screen's rows (the list ended when a scroll showed the same)."""

    selected: list[TrackRow] = field(default_factory=list)
    last: list[tuple[str, str, str, str]] | None = None


@dataclass(frozen=True)
class SelectDays:
    """Select every track from `first` to `last` (days, inclusive): a long press on the first, a tap on each other;
    scroll on while the list has not passed `first` (it runs newest first); None once it has, or ended."""

    memory: ListMemory
    first: dt.date
    last: dt.date
    type: str = "DECIDE"

    def choose(self, screen: Any, lang: str) -> LongPress | Click | Swipe | None:
        rows = track_rows(screen)
        done = {r.key for r in self.memory.selected}
        for r in rows:
            if r.day is not None and self.first <= r.day <= self.last and r.key not in done:
                self.memory.selected.append(r)
                return LongPress(element=r.index) if len(done) == 0 else Click(element=r.index)
        keys = [r.key for r in rows]
        ended = keys == self.memory.last or not scrolls(screen)
        self.memory.last = keys
        passed = any(r.day is not None and r.day < self.first for r in rows)
        return None if passed or ended or not rows else PAGE


@dataclass(frozen=True)
class OpenAggregated:
    """The selection's Aggregated stats: on its bar, or under More options (then a second one taps it)."""

    type: str = "DECIDE"

    def choose(self, screen: Any, lang: str) -> ReferenceStep | None:
        tree = screen.tree
        if any(e.resource_id == RID + "aggregated_stats_list" for e in tree):
            return None
        if any(e.content_desc == AGGREGATED for e in tree):
            return click(desc=AGGREGATED)
        if any(e.text == AGGREGATED for e in tree):
            return click(text=AGGREGATED)
        return click(desc="More options")


@dataclass(frozen=True)
class Aggregate:
    category: str
    count: int
    meters: float
    minutes: int


def aggregates(screen: Any) -> list[Aggregate]:
    rows: list[dict[str, str]] = []
    for e in screen.tree:
        rid = e.resource_id.removeprefix(RID)
        if rid == "aggregated_stats_type_label":
            rows.append({"category": e.text})
        elif rows and rid in ("aggregated_stats_num_tracks", "aggregated_stats_distance", "aggregated_stats_time"):
            rows[-1][rid] = e.text
        elif rows and rid == "aggregated_stats_distance_unit":
            rows[-1]["unit"] = e.text
    return [
        Aggregate(
            r["category"],
            int(r.get("aggregated_stats_num_tracks", "(0)").strip("()") or 0),
            meters(r.get("aggregated_stats_distance", "0"), r.get("unit", "m")),
            minutes(r.get("aggregated_stats_time", "0")),
        )
        for r in rows
    ]


@dataclass(frozen=True)
class AnswerWith:
    """The answer made from what this screen shows."""

    answer: Callable[[Any], str]
    type: str = "DECIDE"

    def choose(self, screen: Any, lang: str) -> Answer:
        return Answer(text=self.answer(screen))


@dataclass(frozen=True)
class OpenRow:
    """Tap the row of the days whose shown values `pick` accepts (scrolling on until one shows); None when the list
    passed the days or ended."""

    memory: ListMemory
    first: dt.date
    last: dt.date
    pick: Callable[[TrackRow], bool]
    type: str = "DECIDE"

    def choose(self, screen: Any, lang: str) -> Click | Swipe | None:
        rows = track_rows(screen)
        if not rows:  # the track opened (or nothing listed)
            return None
        for r in rows:
            if r.day is not None and self.first <= r.day <= self.last and self.pick(r):
                return Click(element=r.index)
        keys = [r.key for r in rows]
        ended, self.memory.last = keys == self.memory.last or not scrolls(screen), keys
        passed = any(r.day is not None and r.day < self.first for r in rows)
        return None if passed or ended else PAGE


# --- the solutions ---------------------------------------------------------------------------------------------------
def _search(category: str) -> list[Step]:
    return [
        click(resource_id=RID + "search_button"),
        ReferenceStep(
            type="TYPE", text=category, clear=True, submit=True, locate=loc(resource_id=RID + "search_src_text")
        ),
    ]


def _week() -> tuple[dt.date, dt.date]:
    monday = AW_TODAY - dt.timedelta(days=AW_TODAY.weekday())
    return monday, monday + dt.timedelta(days=6)


def _aggregated(
    category: str | None, first: dt.date, last: dt.date, answer: Callable[[list[Aggregate]], str]
) -> list[Step]:
    memory = ListMemory()
    steps: list[Step] = [open_app(OPENTRACKS), *(_search(category) if category else [])]
    steps += [SelectDays(memory, first, last) for _ in range(SELECTS)]
    steps += [OpenAggregated(), OpenAggregated(), AnswerWith(lambda screen: answer(aggregates(screen)))]
    return steps


def _of(category: str, value: Callable[[Aggregate], float]) -> Callable[[list[Aggregate]], str]:
    def answer(rows: list[Aggregate]) -> str:
        hit = next((a for a in rows if a.category == category), None)
        return str(round(value(hit))) if hit else "0"

    return answer


def activities_on_date(p: Mapping[str, Any]) -> list[Step]:
    """The day's tracks, each one's type (a type of two tracks named twice)."""
    day = question_day(p["date"])

    def answer(rows: list[Aggregate]) -> str:
        return ", ".join(a.category for a in rows for _ in range(a.count))

    return _aggregated(None, day, day, answer)


def count_for_week(p: Mapping[str, Any]) -> list[Step]:
    category = str(p["category"])
    return _aggregated(category, *_week(), _of(category, lambda a: a.count))


def duration_for_week(p: Mapping[str, Any]) -> list[Step]:
    category = str(p["category"])
    return _aggregated(category, *_week(), _of(category, lambda a: a.minutes))


def distance_over_interval(p: Mapping[str, Any]) -> list[Step]:
    category = str(p["category"])
    first, last = question_day(p["start_date"]), question_day(p["end_date"])
    return _aggregated(category, first, last, _of(category, lambda a: a.meters))


def activity_duration(p: Mapping[str, Any]) -> list[Step]:
    """The category's track of that day showing the duration, opened: its Total time."""
    day, mins = question_day(p["date"]), int(p["duration"])
    memory = ListMemory()

    def pick(r: TrackRow) -> bool:
        return minutes(r.time_distance.split(" ")[0]) == mins

    steps: list[Step] = [open_app(OPENTRACKS), *_search(str(p["category"]))]
    steps += [OpenRow(memory, day, day, pick) for _ in range(SELECTS)]
    return [*steps, AnswerWith(lambda screen: str(minutes(text_of(screen, "stats_total_time_value") or "0")))]


def longest_distance(p: Mapping[str, Any]) -> list[Step]:
    """This week's track of the category showing the distance AndroidWorld stored for it, opened: its Distance."""
    target = aw_meters(p["distance"])
    memory = ListMemory()

    def pick(r: TrackRow) -> bool:
        shown = r.shown_meters
        return shown is not None and abs(shown - target) < 10

    def answer(screen: Any) -> str:
        value, unit = text_of(screen, "stats_distance_value"), text_of(screen, "stats_distance_unit")
        return str(round(meters(value, unit))) if value else str(target)

    steps: list[Step] = [open_app(OPENTRACKS), *_search(str(p["category"]))]
    steps += [OpenRow(memory, *_week(), pick) for _ in range(SELECTS)]
    return [*steps, AnswerWith(answer)]


SOLVERS: dict[str, Callable[[Mapping[str, Any]], list[Step]]] = {
    "SportsTrackerActivitiesOnDate": activities_on_date,
    "SportsTrackerActivitiesCountForWeek": count_for_week,
    "SportsTrackerActivityDuration": activity_duration,
    "SportsTrackerLongestDistanceActivity": longest_distance,
    "SportsTrackerTotalDurationForCategoryThisWeek": duration_for_week,
    "SportsTrackerTotalDistanceForCategoryOverInterval": distance_over_interval,
}
