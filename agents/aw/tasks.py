"""Tasks (org.tasks): AndroidWorld's information-retrieval classes over the task list.

Two of them name their answer in the parameters (TasksHighPriorityTasks' `task_title`, TasksHighPriorityTasksDueOnDate's
`title`): the list opened, that title answered. The others ask about tasks whose titles AndroidWorld draws while
it sets the instance up and keeps out of the parameters (`title_without_replacement`), so their solutions read the
list as a user does: the sort sheet's Grouping set to "By due date" (a header per day - Overdue, Due today, Due
tomorrow, Due Tuesday, Due Sunday, October 22 - so a weekday label is not taken for last week's), the days in
descending order when the question is about a day more than three days ahead, else Overdue folded away when it is
about today or later, the list read screen by screen, scrolled until the day's section
has gone by, and the titles under it answered (AndroidWorld allows 10 steps):

- TasksDueOnDate: the section of the date; TasksIncompleteTasksOnDate: Overdue and the sections up to the date (the
  completed tasks are in the Completed section at the bottom, as the app keeps them by default);
- TasksCompletedTasksForDate: the same with "Move completed tasks to bottom" off, so the completed tasks sit under
  their day (a day before today: under Overdue, by the row's own date label);
- TasksDueNextWeek: the tasks under the days of next week (Monday to Sunday), counted.

Relative days are the device's: AndroidWorld sets its clock to 15 October 2023 (`AW_TODAY`) before each task.
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from harness.actions import Answer, Back, Point, Swipe

from .dates import AW_TODAY, MONTHS, WEEKDAYS, question_day
from .steps import IfShown, Step, click, loc, open_app

TASKS = ("Tasks", "org.tasks")
RID = "org.tasks:id/"
READS = 5  # screens read at most (each one more than the first costs a swipe)
PAGE = Swipe(start=Point(x=0.5, y=0.84), end=Point(x=0.5, y=0.16), duration=1.5)  # about a screen of the list

GROUP_BY_DUE: tuple[Step, ...] = (
    click(resource_id=RID + "menu_sort"),
    click(text="Grouping"),
    click(text="By due date"),
)
COMPLETED_IN_PLACE = click(text="Move completed tasks to bottom")
DESCENDING = click(text="Ascending")  # the Grouping row's order (the only row showing Ascending once grouped by day)
# the days before today folded away (a tap on their header) when the question is about today or later
COLLAPSE_OVERDUE = IfShown(
    loc(resource_id=RID + "header", text="Overdue"), click(resource_id=RID + "header", text="Overdue")
)


# --- dates as the question and the list say them -------------------------------------------------------------------
def due_header(day: dt.date, today: dt.date = AW_TODAY) -> str:
    """The section header of a day on or after today when the list is grouped by due date."""
    delta = (day - today).days
    if delta == 0:
        return "Due today"
    if delta == 1:
        return "Due tomorrow"
    if delta <= 6:
        return f"Due {WEEKDAYS[day.weekday()]}"
    text = f"{WEEKDAYS[day.weekday()]}, {MONTHS[day.month - 1]} {day.day}"
    return f"Due {text}" + ("" if day.year == today.year else f", {day.year}")


def row_label(day: dt.date, today: dt.date = AW_TODAY) -> str:
    """A row's due date label (no time): Today / Tmrw / Yest / Mon within six days / Oct 8."""
    delta = (day - today).days
    if delta == 0:
        return "Today"
    if delta == 1:
        return "Tmrw"
    if delta == -1:
        return "Yest"
    if abs(delta) <= 6:
        return WEEKDAYS[day.weekday()][:3]
    return f"{MONTHS[day.month - 1][:3]} {day.day}" + ("" if day.year == today.year else f", {day.year}")


def header_day(text: str, today: dt.date = AW_TODAY) -> dt.date | None:
    """The day a "Due ..." header names (None for Overdue, No due date, Completed)."""
    if not text.startswith("Due "):
        return None
    rest = text[4:]
    if rest == "today":
        return today
    if rest == "tomorrow":
        return today + dt.timedelta(days=1)
    if rest in WEEKDAYS:
        return today + dt.timedelta(days=(WEEKDAYS.index(rest) - today.weekday()) % 7)
    m = re.fullmatch(r"\w+, (\w+) (\d+)(?:, (\d+))?", rest)
    if m and m.group(1) in MONTHS:
        return dt.date(int(m.group(3) or today.year), MONTHS.index(m.group(1)) + 1, int(m.group(2)))
    return None


# --- reading the list ------------------------------------------------------------------------------------------
@dataclass
class ListMemory:
    """What the screens read so far showed: each row as (section header, title, due label), in list order."""

    rows: list[tuple[str, str, str]] = field(default_factory=list)
    headers: list[str] = field(default_factory=list)
    last_signature: str | None = None
    ended: bool = False

    def read(self, screen: Any) -> None:
        """The rows and headers of this screen; rows above its first header belong where they were seen before,
        else to the last header read."""
        tree = screen.tree
        items: list[list[str]] = []  # ["h", text] / ["r", title, due]
        for e in tree:
            rid = e.resource_id
            if rid == RID + "header":
                items.append(["h", e.text])
            elif rid == RID + "row":
                items.append(["r", "", ""])
            elif rid == RID + "title" and items and items[-1][0] == "r":
                items[-1][1] = e.text
            elif rid == RID + "due_date" and items and items[-1][0] == "r":
                items[-1][2] = e.text
        section = self.headers[-1] if self.headers else ""
        seen_header = False
        for item in items:
            if item[0] == "h":
                section, seen_header = item[1], True
                if not self.headers or self.headers[-1] != section:
                    self.headers.append(section)
                continue
            title, due = item[1], item[2]
            if not title:
                continue  # a row cut at the screen's edge
            here = section
            if not seen_header:
                here = next((s for s, t, d in self.rows if (t, d) == (title, due)), section)
            if (here, title, due) not in self.rows:
                self.rows.append((here, title, due))
        signature = "|".join("/".join(i) for i in items)
        self.ended = signature == self.last_signature
        self.last_signature = signature


@dataclass(frozen=True)
class ReadList:
    """Read this screen of the list into `memory`; scroll on (a Swipe) unless `enough(memory)` or the list ended."""

    memory: ListMemory
    enough: Callable[[ListMemory], bool]
    type: str = "DECIDE"

    def choose(self, screen: Any, lang: str) -> Swipe | None:
        self.memory.read(screen)
        if self.memory.ended or self.enough(self.memory):
            return None
        return PAGE


@dataclass(frozen=True)
class AnswerFromList:
    """The answer, made from what the list showed (this screen read too)."""

    memory: ListMemory
    answer: Callable[[ListMemory], str]
    type: str = "DECIDE"

    def choose(self, screen: Any, lang: str) -> Answer:
        self.memory.read(screen)
        return Answer(text=self.answer(self.memory))


def passed(after: Callable[[str], bool]) -> Callable[[ListMemory], bool]:
    """Enough read once a header `after` accepts has been seen (the sections come in day order)."""
    return lambda mem: any(after(h) for h in mem.headers)


def _later_than(day: dt.date, today: dt.date = AW_TODAY) -> Callable[[str], bool]:
    def later(header: str) -> bool:
        d = header_day(header, today)
        return header in ("No due date", "Completed") if d is None else d > day

    return later


def _earlier_than(day: dt.date, today: dt.date = AW_TODAY) -> Callable[[str], bool]:
    def earlier(header: str) -> bool:
        d = header_day(header, today)
        return header in ("Overdue", "Completed") if d is None else d < day

    return earlier


def read_then_answer(answer: Callable[[ListMemory], str], enough: Callable[[ListMemory], bool]) -> list[Step]:
    memory = ListMemory()
    return [*(ReadList(memory, enough) for _ in range(READS - 1)), AnswerFromList(memory, answer)]


def titles_on(day: dt.date, today: dt.date = AW_TODAY) -> Callable[[ListMemory], str]:
    """The titles under the day's header (a day before today: under Overdue with the day's own label)."""
    header, label = due_header(day, today), row_label(day, today)

    def answer(mem: ListMemory) -> str:
        if day < today:
            hits = [t for s, t, d in mem.rows if s == "Overdue" and d == label]
        else:
            hits = [t for s, t, _ in mem.rows if s == header]
        return ", ".join(dict.fromkeys(hits))

    return answer


def titles_by(day: dt.date, today: dt.date = AW_TODAY) -> Callable[[ListMemory], str]:
    """The incomplete tasks due by the day: under Overdue and the days up to it (the completed ones are under
    Completed at the bottom)."""

    def answer(mem: ListMemory) -> str:
        hits = []
        for s, t, _ in mem.rows:
            d = header_day(s, today)
            if s == "Overdue" or (d is not None and d <= day):
                hits.append(t)
        return ", ".join(dict.fromkeys(hits))

    return answer


def on_date(completed_in_place: bool, by: bool = False) -> Callable[[Mapping[str, Any]], list[Step]]:
    """The list grouped by due date; a day more than three days ahead read from the latest day down (the Grouping
    row's Ascending turned to Descending), one from today on with the days before today folded away."""

    def solve(p: Mapping[str, Any]) -> list[Step]:
        day = question_day(p["date"])
        descending = not by and day > AW_TODAY + dt.timedelta(days=3)
        setup = [*GROUP_BY_DUE, *([DESCENDING] if descending else [])]
        setup += [*([COMPLETED_IN_PLACE] if completed_in_place else []), Back()]
        if day >= AW_TODAY and not by and not descending:
            setup.append(COLLAPSE_OVERDUE)
        if day < AW_TODAY:
            enough = passed(lambda h: h != "Overdue")
        elif descending:
            enough = passed(_earlier_than(day))
        else:
            enough = passed(_later_than(day))
        answer = titles_by(day) if by else titles_on(day)
        return [open_app(TASKS), *setup, *read_then_answer(answer, enough)]

    return solve


def due_next_week(p: Mapping[str, Any]) -> list[Step]:
    """Monday to Sunday after this week's: the rows under those days' headers, counted."""
    monday = AW_TODAY + dt.timedelta(days=7 - AW_TODAY.weekday())
    days = {due_header(monday + dt.timedelta(days=i)) for i in range(7)}
    sunday = monday + dt.timedelta(days=6)

    def count(mem: ListMemory) -> str:
        return str(sum(1 for s, _, _ in mem.rows if s in days))

    setup = [*GROUP_BY_DUE, Back(), COLLAPSE_OVERDUE]
    return [open_app(TASKS), *setup, *read_then_answer(count, passed(_later_than(sunday)))]


def named(key: str) -> Callable[[Mapping[str, Any]], list[Step]]:
    """The classes whose answer is a parameter: the list opened, the title answered."""
    return lambda p: [open_app(TASKS), Answer(text=str(p[key]))]


SOLVERS: dict[str, Callable[[Mapping[str, Any]], list[Step]]] = {
    "TasksHighPriorityTasks": named("task_title"),
    "TasksHighPriorityTasksDueOnDate": named("title"),
    "TasksDueOnDate": on_date(completed_in_place=False),
    "TasksIncompleteTasksOnDate": on_date(completed_in_place=False, by=True),
    "TasksCompletedTasksForDate": on_date(completed_in_place=True),
    "TasksDueNextWeek": due_next_week,
}
