"""Simple Calendar Pro: an event with a title on a day of the month the device shows (June 2024, from Tuesday the
4th on), at a whole hour, lasting 30, 60 or 90 minutes. Judged on the app reopened fresh (what survives is what its
database holds): the day's daily view lists the event with its start and end times. The device keeps the 24-hour
clock (the time picker's face then numbers the hours 0-23)."""

from __future__ import annotations

import datetime as dt
from collections.abc import Mapping
from typing import Any

from .base import Family
from .build import both, click, milestone, open_app, steps_for_both, type_into
from .params import ChoiceParam, Text, TextParam

CALENDAR = "com.simplemobiletools.calendar.pro"
EDITOR = CALENDAR + ".activities.EventActivity"
YEAR, MONTH = 2024, 6  # the virtual device's month (its fixed date: Monday June 3 2024, 12:00)

TITLES = (
    ("Dentist appointment", "看牙医"),
    ("Team lunch", "团队午餐"),
    ("Piano lesson", "钢琴课"),
    ("Project review", "项目评审"),
    ("Yoga class", "瑜伽课"),
    ("Call with the bank", "给银行打电话"),
)
DAYS = tuple(range(4, 29))
HOURS = tuple(range(8, 21))
DURATIONS = (30, 60, 90)
WEEKDAYS_EN = ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday")
WEEKDAYS_ZH = ("星期一", "星期二", "星期三", "星期四", "星期五", "星期六", "星期日")


def _clock(hour: int, minute: int) -> str:
    """A time as the daily view writes it on the 24-hour clock the task sets ("15:00")."""
    return f"{hour:02d}:{minute:02d}"


def _spoken(hour: int) -> dict[str, str]:
    h12 = hour % 12 or 12
    return both(f"{h12} {'AM' if hour < 12 else 'PM'}", f"{'上午' if hour < 12 else '下午'}{h12}点")


def _pick_time(rid: str, hour: int, minute: int) -> list[dict[str, Any]]:
    """The time picker's clock (24-hour): the hour, then the minute, OK."""
    return [
        click(rid),
        {"type": "CLICK", "locate": {"desc": str(hour)}},
        {"type": "CLICK", "locate": {"desc": str(minute)}},
        click("android:id/button1"),
    ]


def build_event(v: Mapping[str, Any]) -> dict[str, Any]:
    title: Text = v["title"]
    day, hour, minutes = int(v["day"]), int(v["hour"]), int(v["duration"])
    date = dt.date(YEAR, MONTH, day)
    start = dt.datetime(YEAR, MONTH, day, hour)
    end = start + dt.timedelta(minutes=minutes)
    lead = (dt.date(YEAR, MONTH, 1).weekday() + 1) % 7  # the monthly grid starts on the Sunday before the 1st
    cell = {"type": "CLICK", "locate": {"resource_id": "month_view_background", "nth": lead + day - 1}}
    times = f"{_clock(hour, 0)} - {_clock(end.hour, end.minute)}"
    listed = {
        "package": CALENDAR,
        "all_elements": [
            {"resource_id": "event_item_title", "text": title.loc()},
            {"resource_id": "event_item_time", "text": times},
        ],
    }
    when_en = f"{WEEKDAYS_EN[date.weekday()]}, June {day}, at {_spoken(hour)['en']}"
    when_zh = f"6月{day}日（{WEEKDAYS_ZH[date.weekday()]}）{_spoken(hour)['zh']}"
    return {
        "category": "1-1",
        "apps": [CALENDAR],
        "instruction": {
            "en": f'In Simple Calendar Pro, add an event titled "{title.en}" on {when_en}, lasting {minutes} minutes.',
            "zh": f"在日历（Simple Calendar Pro）里添加一个标题为“{title.zh}”的活动，"
            f"时间是{when_zh}，持续{minutes}分钟。",
        },
        "start": {"reset_apps": [CALENDAR], "settings": {"system:time_12_24": "24"}},
        "max_steps": 30,
        "milestones": {
            "order": "ordered",
            "children": [
                milestone(
                    "editor",
                    "Open a new event",
                    "新建一个活动",
                    {"activity": EDITOR, "element": {"resource_id": "event_title"}},
                ),
                milestone("saved", "The event is listed on its day with its times", "活动按时间列在当天", listed),
            ],
        },
        "end_state": [{"app": CALENDAR, "steps": [cell], "milestones": ["saved"]}],
        "reference": steps_for_both(
            [
                open_app("Calendar", "日历", CALENDAR),
                click("calendar_fab"),
                click("fab_event_label"),
                type_into(title.loc(), "event_title"),
                click("event_start_date"),
                {"type": "CLICK", "locate": {"desc": both(f"{day} June {YEAR}", f"{YEAR}年{MONTH}月{day}日")}},
                click("android:id/button1"),
                *_pick_time("event_start_time", hour, 0),
                *_pick_time("event_end_time", end.hour, end.minute),
                click("save"),
                click("android:id/button1"),  # the reminders' disclaimer, shown before the first save
                cell,
                {"type": "COMPLETE"},
            ]
        ),
    }


EVENT = Family(
    "calendar",
    "an event with a title on a day at an hour, lasting 30-90 minutes (Simple Calendar Pro; judged on the reopened "
    "app's daily view)",
    {
        "title": TextParam(TITLES),
        "day": ChoiceParam(DAYS),
        "hour": ChoiceParam(HOURS),
        "duration": ChoiceParam(DURATIONS),
    },
    build_event,
)
