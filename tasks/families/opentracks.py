"""OpenTracks: a track recorded on a fresh install and saved under a name and an activity type - the app's
permissions granted on its first start (location while in use, nearby devices, notifications: recording needs the
first two), Record, a long press on Stop, then the name and the activity type typed on the stopped track's screen
and Finish. Judged by the app's database: its `tracks` table holds a track with that name whose activity type is
that one (`activity_type`, the type's id, whatever language its name was typed in).

The name and the activity type are written in the instruction's language (the activity type as the app names it
in that language: "running" / 跑步) and typed as they are written.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .base import Family
from .build import both, milestone, open_app
from .params import ChoiceParam, Text, TextParam

OPENTRACKS = "de.dennisguse.opentracks"
DB_PATH = f"/data/data/{OPENTRACKS}/databases/database.db"
RID = f"{OPENTRACKS}:id/"
PC = "com.android.permissioncontroller:id/"  # the permission prompt's buttons

NAMES = (
    ("Morning loop", "晨间环线"),
    ("Lunch break", "午休出行"),
    ("River path", "河边小路"),
    ("Hill session", "爬坡训练"),
    ("Sunday outing", "周日出游"),
)
# activity type id: its name in en and zh (ActivityType's localized names)
TYPES = {
    "running": ("running", "跑步"),
    "hiking": ("hiking", "徒步"),
    "cycling": ("cycling", "骑自行车"),
    "walking": ("walking", "步行"),
    "swimming": ("swimming", "游泳"),
}


def _step(kind: str, resource_id: str, **extra: Any) -> dict[str, Any]:
    return {"type": kind, "locate": {"resource_id": resource_id}, **extra}


def build_recording(v: Mapping[str, Any]) -> dict[str, Any]:
    name: Text = v["name"]
    type_id = v["type"]
    type_en, type_zh = TYPES[type_id]
    exact = {"case_sensitive": True}
    saved = {
        "sqlite": {
            "path": DB_PATH,
            "table": "tracks",
            "row": {"name": {"equals": name.loc(), **exact}, "activity_type": type_id},
        }
    }
    steps: list[dict[str, Any]] = [
        open_app("OpenTracks", "OpenTracks", OPENTRACKS),
        _step("CLICK", PC + "permission_allow_foreground_only_button"),  # location, while using the app
        _step("CLICK", PC + "permission_allow_button"),  # nearby devices
        _step("CLICK", PC + "permission_allow_button"),  # notifications
        _step("CLICK", RID + "track_list_fab_action"),
        _step("LONG_PRESS", RID + "track_recording_fab_action"),
        _step("TYPE", RID + "track_edit_name", text=name.loc(), clear=True),
        _step("TYPE", RID + "track_edit_activity_type", text=both(type_en, type_zh), clear=True),
        _step("CLICK", RID + "finish_button"),
        {"type": "COMPLETE"},
    ]
    return {
        "category": "2-1",
        "apps": [OPENTRACKS],
        "instruction": {
            "en": f'In OpenTracks, record a new track, stop it and save it with the name "{name.en}" and the activity '
            f'type "{type_en}".',
            "zh": f"在 OpenTracks 中记录一条新路线，停止后保存，名称为“{name.zh}”，活动类型为“{type_zh}”。",
        },
        "start": {"reset_apps": [OPENTRACKS]},
        "max_steps": 20,
        "milestones": {
            "order": "ordered",
            "children": [
                milestone(
                    "recording",
                    "A track is being recorded",
                    "正在记录路线",
                    {"package": OPENTRACKS, "element": {"resource_id": RID + "track_recording_fab_action"}},
                ),
                milestone(
                    "saved",
                    f'The track is saved as "{name.en}" ({type_en})',
                    f"路线已保存为“{name.zh}”（{type_zh}）",
                    {"package": OPENTRACKS, "state": saved},
                ),
            ],
        },
        "end_state": [{"check": {"state": saved}}],
        "reference": {"en": steps, "zh": steps},
    }


OPENTRACKS_RECORD = Family(
    name="opentracks-record",
    description="a track recorded and saved under a name and an activity type on a fresh install (OpenTracks;"
    " judged by its database's tracks rows)",
    params={"name": TextParam(NAMES), "type": ChoiceParam(tuple(TYPES))},
    build=build_recording,
)

__all__ = ["OPENTRACKS_RECORD"]
