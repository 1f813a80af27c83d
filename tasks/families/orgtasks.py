"""Tasks (org.tasks): a task with a title, a priority and a due date (none, today or tomorrow), added on a fresh
install (the list's Create new task button, the editor's Task name, its four priority radio buttons - none, low,
medium, high -, its due date row's shortcuts with OK, Save). Judged by the app's Room database: the `tasks` table
holds a row with that title, the priority's `importance` (0 high, 1 medium, 2 low) and a due date or none, as
AndroidWorld's Tasks classes read it; the list shows the task with its due date.

The title is written in the instruction's language and typed as it is written."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .base import Family
from .build import both, milestone, open_app, steps_for_both, type_into
from .params import ChoiceParam, Text, TextParam

TASKS = "org.tasks"
DB_PATH = f"/data/data/{TASKS}/databases/database"

TITLES = (
    ("Renew passport", "续办护照"),
    ("Buy birthday gift", "买生日礼物"),
    ("Call the plumber", "给水管工打电话"),
    ("Return library books", "归还图书馆的书"),
    ("Book a dentist visit", "预约看牙"),
    ("Pay the electricity bill", "交电费"),
    ("Water the balcony plants", "给阳台的花浇水"),
    ("Send the rent reminder", "发送房租提醒"),
)
# priority: (en, zh, importance, its radio button among None, Low, Medium, High)
PRIORITIES = {
    "high": ("high", "高", 0, 3),
    "medium": ("medium", "中", 1, 2),
    "low": ("low", "低", 2, 1),
}
# due date: (the instruction's words en / zh, the picker's shortcut, the row's label en / zh)
DUES = {
    "none": ("", "", None, None),
    "today": (" due today", "，今天截止", "today_button", ("Today", "今天")),
    "tomorrow": (" due tomorrow", "，明天截止", "tomorrow_button", ("Tmrw", "明天")),
}


def _click(**locate: Any) -> dict[str, Any]:
    return {"type": "CLICK", "locate": locate}


def build_task(v: Mapping[str, Any]) -> dict[str, Any]:
    title: Text = v["title"]
    p_en, p_zh, importance, radio = PRIORITIES[v["priority"]]
    d_en, d_zh, shortcut, label = DUES[v["due"]]
    row: dict[str, Any] = {
        "title": {"equals": title.loc(), "case_sensitive": True},
        "importance": importance,
        "dueDate": {"gt": 0} if shortcut else 0,
        "completed": 0,
        "deleted": 0,
    }
    saved = {"sqlite": {"path": DB_PATH, "table": "tasks", "row": row}}
    on_list: list[dict[str, Any]] = [{"resource_id": "title", "text": title.loc(), "case_sensitive": True}]
    if label:
        on_list.append({"resource_id": "due_date", "text": both(*label)})
    steps: list[dict[str, Any]] = [
        open_app("Tasks", "Tasks", TASKS),
        _click(resource_id="fab"),
        type_into(title.loc(), "title"),
        {"type": "BACK"},  # the keyboard put away: the rows below the title show
        _click(class_name="android.widget.RadioButton", nth=radio),
    ]
    if shortcut:
        steps += [
            _click(text=both("No due date", "无截止日期")),
            _click(resource_id=shortcut),
            _click(resource_id="ok_button"),
        ]
    steps += [_click(desc=both("Save", "保存")), {"type": "COMPLETE"}]
    return {
        "category": "2-1",
        "apps": [TASKS],
        "instruction": {
            "en": f'In Tasks, add a task "{title.en}" with {p_en} priority{d_en}.',
            "zh": f"在 Tasks 里新建任务“{title.zh}”，优先级为{p_zh}{d_zh}。",
        },
        "start": {"reset_apps": [TASKS]},
        "max_steps": 16,
        "milestones": {
            "order": "ordered",
            "children": [
                milestone(
                    "editor",
                    "Open a new task",
                    "新建一个任务",
                    {"package": TASKS, "element": {"resource_id": "title", "class_name": "android.widget.EditText"}},
                ),
                milestone(
                    "saved",
                    "The task is saved with its priority and due date",
                    "任务已保存，优先级和截止日期都正确",
                    {"package": TASKS, "all_elements": on_list, "state": saved},
                ),
            ],
        },
        "end_state": [{"check": {"state": saved}}],
        "reference": steps_for_both(steps),
    }


ORGTASKS = Family(
    name="orgtasks",
    description="a task with a title, a priority and a due date, added on a fresh install (Tasks; judged by its"
    " database's tasks row)",
    params={
        "priority": ChoiceParam(tuple(PRIORITIES)),
        "due": ChoiceParam(tuple(DUES)),
        "title": TextParam(TITLES),
    },
    build=build_task,
)

__all__ = ["ORGTASKS"]
