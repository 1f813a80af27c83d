"""Families over the Clock app: an alarm at a time with a label, a timer for a duration."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .base import Family
from .build import both, click, milestone, open_app, steps_for_both, type_into
from .params import Duration, DurationParam, TextParam, TimeOfDay, TimeParam

CLOCK = "com.google.android.deskclock"
LABELS = (
    ("Yoga", "瑜伽"),
    ("Meds", "吃药"),
    ("Standup", "站会"),
    ("Wake up", "起床"),
    ("Piano", "练琴"),
    ("Laundry", "洗衣服"),
    ("Water plants", "浇花"),
)


def build_alarm(v: Mapping[str, Any]) -> dict[str, Any]:
    t: TimeOfDay = v["time"]
    label = v["label"]
    return {
        "category": "2-1",
        "apps": [CLOCK],
        "instruction": {
            "en": f'Set an alarm for {t.en()} labeled "{label.en}".',
            "zh": f"设一个{t.zh()}的闹钟，标签为“{label.zh}”。",
        },
        "start": {"reset_apps": [CLOCK]},
        "max_steps": 15,
        "milestones": {
            "order": "ordered",
            "children": [
                milestone(
                    "editor",
                    "Open the new-alarm editor",
                    "打开添加闹钟页面",
                    {
                        "activity": "com.android.deskclock.alarms.AlarmEditActivity",
                        "element": {"resource_id": "save_button"},
                    },
                ),
                milestone(
                    "saved",
                    f"The alarm {t.en()} {label.en} is listed",
                    f"闹钟列表里有{t.zh()} {label.zh}",
                    {
                        "package": CLOCK,
                        "element": {
                            "resource_id": "alarm_card",
                            "desc": both(f"{t.en()} {label.en}", f"{t.zh()} {label.zh}"),
                        },
                    },
                ),
            ],
        },
        "end_state": [
            {
                "check": {
                    "state": {
                        "content": {
                            "uri": "content://com.android.deskclock/alarms",
                            "row": {
                                "hour": t.hour,
                                "minutes": t.minute,
                                "label": {"equals": label.loc()},
                                "enabled": 1,
                            },
                        }
                    }
                }
            }
        ],
        "reference": steps_for_both(
            [
                open_app("Clock", "时钟", CLOCK),
                click("fab"),
                type_into(str(t.h12), "hour", clear=True),
                type_into(f"{t.minute:02d}", "minute", clear=True),
                click("pm_label" if t.pm else "am_label"),
                type_into(label.loc(), "label_edit"),
                {"type": "BACK"},
                click("save_button"),
                {"type": "COMPLETE"},
            ]
        ),
    }


def build_timer(v: Mapping[str, Any]) -> dict[str, Any]:
    d: Duration = v["duration"]
    digits = str(int(f"{d.hours:02d}{d.minutes:02d}{d.seconds:02d}"))
    return {
        "category": "2-1",
        "apps": [CLOCK],
        "instruction": {"en": f"Start a timer for {d.en()}.", "zh": f"开一个{d.zh()}的计时器。"},
        "start": {"reset_apps": [CLOCK]},
        "max_steps": 10 + len(digits),
        "milestones": {
            "order": "ordered",
            "children": [
                milestone(
                    "timer_tab",
                    "Open the Timer tab",
                    "打开计时器标签页",
                    {"package": CLOCK, "element": {"resource_id": "tab_menu_timer", "states": ["selected"]}},
                ),
                milestone(
                    "entered",
                    f"Enter {d.en()}",
                    f"输入{d.zh()}",
                    {
                        "package": CLOCK,
                        "element": {
                            "resource_id": "timer_setup_time",
                            "text": f"{d.hours:02d}h {d.minutes:02d}m {d.seconds:02d}s",
                        },
                    },
                ),
                milestone(
                    "running",
                    "The timer runs",
                    "计时器开始运行",
                    {
                        "package": CLOCK,
                        "element": {
                            "resource_id": "timer_time_text",
                            "text": f"{d.hours:02d}:{d.minutes:02d}:{d.seconds:02d}",
                        },
                    },
                ),
            ],
        },
        # timers live in DeskClock's private preferences (no shell reads them): the state is the app's screen
        "end_state": [
            {
                "app": CLOCK,
                "steps": [click("tab_menu_timer")],
                "milestones": ["running"],
                "check": {
                    "package": CLOCK,
                    "element": {"resource_id": "timer_label", "text": both("Running", "正在计时")},
                },
            }
        ],
        "reference": steps_for_both(
            [
                open_app("Clock", "时钟", CLOCK),
                click("tab_menu_timer"),
                *(click(f"timer_setup_digit_{ch}") for ch in digits),
                click("fab", text=both("Start", "开始")),
                {"type": "COMPLETE"},
            ]
        ),
    }


ALARM = Family(
    "clock-alarm",
    "an alarm at a time of day with a label (Clock; judged by the alarm's provider row)",
    {
        "time": TimeParam(avoid=((7, 0), (8, 30))),  # the seeded alarms
        "label": TextParam(LABELS),
    },
    build_alarm,
)
TIMER = Family(
    "clock-timer",
    "a timer for a duration of hours, minutes and seconds (Clock; judged on the reopened Timer tab)",
    {"duration": DurationParam(max_hours=1, seconds=(0, 30))},
    build_timer,
)
