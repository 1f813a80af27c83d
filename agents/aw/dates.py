"""Dates as AndroidWorld's questions give them, on the device date its tasks set (15 October 2023): "October 17
2023" as drawn, or the wording its set-up may put in its place ("October 17", "today", "tomorrow", "yesterday",
"Tuesday", "this Tuesday", "the Tuesday after next"). Shared by the calendar and Tasks solvers."""

from __future__ import annotations

import calendar
import datetime as dt
from typing import Any

AW_TODAY = dt.date(2023, 10, 15)  # AndroidWorld's device date (its device_constants.DT)
WEEKDAYS = ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday")
MONTHS = tuple(calendar.month_name[1:])  # January ... December


def question_day(value: Any, today: dt.date = AW_TODAY) -> dt.date:
    """The day a date parameter names (`ValueError` when it names none)."""
    text = " ".join(str(value).split())
    for fmt in ("%B %d %Y", "%B %d"):
        try:
            d = dt.datetime.strptime(text, fmt).date()
            return d if fmt.endswith("%Y") else d.replace(year=today.year)
        except ValueError:
            pass
    low = text.lower()
    offsets = {"today": 0, "tomorrow": 1, "yesterday": -1}
    if low in offsets:
        return today + dt.timedelta(days=offsets[low])
    for i, name in enumerate(WEEKDAYS):
        if name.lower() in low:
            ahead = (i - today.weekday()) % 7 or 7
            return today + dt.timedelta(days=ahead + (7 if "after next" in low else 0))
    raise ValueError(f"not a date: {value!r}")
