"""A family over Markor: a new note with a name and a text, on a fresh install (its first start's introduction and
storage permission first), judged by the note's file on shared storage (`cat`), as AndroidWorld judges Markor."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .base import Family
from .build import click, milestone, open_app, steps_for_both, type_into
from .params import ChoiceParam, Text, TextParam

MARKOR = "net.gsantner.markor"
NOTEBOOK = "/storage/emulated/0/Documents/Markor"
NAMES = ("groceries", "trip_plan", "reading_list", "meeting_notes", "gift_ideas", "workout_log")
EXTENSIONS = (".md", ".txt")
TEXTS = (
    ("Buy milk, eggs and bread", "买牛奶、鸡蛋和面包"),
    ("Train leaves at 9:40 from platform 3", "火车9点40分从3号站台出发"),
    ("Chapter 4 of the history book", "历史书第四章"),
    ("Budget review moved to Friday", "预算评审改到周五"),
    ("A scarf for Anna, a kite for Leo", "给安娜一条围巾，给小乐一只风筝"),
)
FIRST_START = [
    *([click("next", text="NEXT")] * 4),
    click("done", text="DONE"),
    click("android:id/button1", text={"en": "OK", "zh": "确定"}),
    click("android:id/title", text={"en": "Allow access to manage all files", "zh": "授予管理所有文件的权限"}),
    {"type": "BACK"},
]


def build_note(v: Mapping[str, Any]) -> dict[str, Any]:
    name = str(v["name"]) + str(v["ext"])
    text: Text = v["text"]
    saved = {"file": {"path": f"{NOTEBOOK}/{name}", "content": {"equals": text.loc(), "case_sensitive": True}}}
    return {
        "category": "1-1",
        "apps": [MARKOR],
        "instruction": {
            "en": f'In Markor, create a note named {name} with the text "{text.en}".',
            "zh": f"在 Markor 里新建一个名为 {name} 的笔记，内容为“{text.zh}”。",
        },
        "start": {"reset_apps": [MARKOR]},
        "max_steps": 20,
        "milestones": {
            "order": "ordered",
            "children": [
                milestone(
                    "editor",
                    f"Open the new note {name} in the editor",
                    f"在编辑器中打开新笔记 {name}",
                    {
                        "activity": "net.gsantner.markor.activity.DocumentActivity",
                        "element": {"resource_id": "note__activity__text_note_title", "text": name},
                    },
                ),
                milestone(
                    "saved",
                    f"{name} is listed and holds the text",
                    f"列表中有 {name}，且内容正确",
                    {
                        "package": MARKOR,
                        "element": {"resource_id": "opoc_filesystem_item__title", "text": name},
                        "state": saved,
                    },
                ),
            ],
        },
        "end_state": [{"check": {"state": saved}}],
        "reference": steps_for_both(
            [
                open_app("Markor", "Markor", MARKOR),
                *FIRST_START,
                click("fab_add_new_item"),
                type_into(str(v["name"]), "new_file_dialog__name"),
                type_into(str(v["ext"]), "new_file_dialog__ext", clear=True),
                click("android:id/button1"),
                type_into(text.loc(), "document__fragment__edit__highlighting_editor"),
                click("android:id/home"),
                {"type": "COMPLETE"},
            ]
        ),
    }


NOTE_FILE = Family(
    name="markor",
    description="a note with a name and a text, made on a fresh install (Markor; judged by the note's file)",
    params={"name": ChoiceParam(NAMES), "ext": ChoiceParam(EXTENSIONS), "text": TextParam(TEXTS)},
    build=build_note,
)
