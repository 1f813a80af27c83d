"""A family over Simple Draw Pro: a drawing (one stroke or more) saved under a name, as PNG, JPG or SVG, into a folder
of the internal storage (Pictures, Documents or Download) through the Save as dialog and its folder picker. Judged by
the image file there, as AndroidWorld judges its drawing class."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .base import Family
from .build import both, click, milestone, open_app, steps_for_both, type_into
from .params import ChoiceParam

DRAW = "com.simplemobiletools.draw.pro"
INTERNAL = "/storage/emulated/0"
NAMES = ("sunset_sketch", "house_plan", "cat_doodle", "map_to_park", "logo_idea", "tree_study")
FOLDERS = ("Pictures", "Documents", "Download")
EXTENSIONS = ("png", "jpg", "svg")


def build_drawing(v: Mapping[str, Any]) -> dict[str, Any]:
    name, folder, ext = str(v["name"]), str(v["folder"]), str(v["ext"])
    file_name = f"{name}.{ext}"
    saved = {"file": {"path": f"{INTERNAL}/{folder}/{file_name}"}}
    return {
        "category": "1-1",
        "apps": [DRAW],
        "instruction": {
            "en": f"In Simple Draw, draw a line and save the drawing as {file_name} in the {folder} folder of the "
            "internal storage.",
            "zh": f"在 Simple Draw 里画一条线，并把这幅画以 {file_name} 为名保存到内部存储的 {folder} 文件夹。",
        },
        "start": {"reset_apps": [DRAW]},
        "max_steps": 15,
        "milestones": {
            "order": "ordered",
            "children": [
                milestone(
                    "drawn",
                    "Something is drawn (Undo is offered)",
                    "已经画了东西（出现“撤销”）",
                    {"package": DRAW, "element": {"resource_id": "undo"}},
                ),
                milestone(
                    "saved",
                    f"The drawing is saved as {folder}/{file_name}",
                    f"画已保存为 {folder}/{file_name}",
                    {"package": DRAW, "state": saved},
                ),
            ],
        },
        "end_state": [{"check": {"state": saved}}],
        "reference": steps_for_both(
            [
                open_app("Draw", "绘图", DRAW),
                {"type": "SWIPE", "start": [0.25, 0.4], "end": [0.75, 0.6], "duration": 0.5},
                click("menu_save"),
                click("folder_value"),
                click("breadcrumb_text", text=both("Internal", "内部存储器")),
                click("list_item_name", text=folder),
                click("android:id/button1", text=both("OK", "确认")),
                type_into(name, "save_image_filename", clear=True),
                click(f"save_image_radio_{ext}"),
                click("android:id/button1", text=both("OK", "确认")),
                {"type": "COMPLETE"},
            ]
        ),
    }


DRAWING = Family(
    name="drawing",
    description="a drawing saved under a name as PNG, JPG or SVG into a folder of the internal storage (Simple Draw "
    "Pro; judged by the image file)",
    params={"name": ChoiceParam(NAMES), "folder": ChoiceParam(FOLDERS), "ext": ChoiceParam(EXTENSIONS)},
    build=build_drawing,
)
