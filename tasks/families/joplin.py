"""Joplin: a notebook made on a fresh install (Create a notebook, its title, Save changes) and a note or a to-do with a
title and a body written in it (Add new, New note / New to-do, Add title, Add body). Judged by the app's database:
the `folders` table holds the notebook and the `notes` table a note of that kind with that title and body, not in
the trash, as AndroidWorld's Joplin classes read it.

The texts are written in the instruction's language and typed as they are written."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .base import Family
from .build import both, milestone, open_app, steps_for_both
from .params import ChoiceParam, Text, TextParam

JOPLIN = "net.cozic.joplin"
DB_PATH = f"/data/data/{JOPLIN}/databases/joplin.sqlite"

NOTEBOOKS = (("Travel", "旅行"), ("Garden", "花园"), ("Reading", "阅读"), ("Errands", "杂事"))
TITLES = (
    ("Packing checklist", "行李清单"),
    ("Seeds to order", "要订的种子"),
    ("Books for June", "六月书单"),
    ("Pharmacy pickup", "去药店取药"),
)
BODIES = (
    ("Passport, charger and two shirts", "护照、充电器和两件衬衫"),
    ("Tomatoes, basil and sunflowers", "番茄、罗勒和向日葵"),
    ("Finish the second chapter first", "先读完第二章"),
    ("Ask for the receipt", "记得要收据"),
)
# kind: (en, zh, the Add new menu's button en / zh, is_todo)
KINDS = {
    "note": ("note", "笔记", ("New note", "新建笔记"), 0),
    "todo": ("to-do", "待办事项", ("New to-do", "新建待办事项"), 1),
}


def _click(**locate: Any) -> dict[str, Any]:
    return {"type": "CLICK", "locate": locate}


def _type(typed: Any, **locate: Any) -> dict[str, Any]:
    return {"type": "TYPE", "text": typed, "locate": locate}


def build_note(v: Mapping[str, Any]) -> dict[str, Any]:
    notebook: Text = v["notebook"]
    title: Text = v["title"]
    body: Text = v["body"]
    k_en, k_zh, button, is_todo = KINDS[v["kind"]]
    exact = {"case_sensitive": True}
    note_row = {
        "title": {"equals": title.loc(), **exact},
        "body": {"equals": body.loc(), **exact},
        "is_todo": is_todo,
        "deleted_time": 0,
    }
    saved = {"sqlite": {"path": DB_PATH, "table": "notes", "row": note_row}}
    folder = {"sqlite": {"path": DB_PATH, "table": "folders", "row": {"title": {"equals": notebook.loc(), **exact}}}}
    steps: list[dict[str, Any]] = [
        open_app("Joplin", "Joplin", JOPLIN),
        _click(text=both("CREATE A NOTEBOOK", "新建一个笔记本")),
        _type(notebook.loc(), text=both("Enter notebook title", "输入笔记本标题")),
        _click(desc=both("Save changes", "保存更改")),
        _click(desc=both("Add new", "新增")),
        _click(desc=both(*button)),
        _type(title.loc(), text=both("Add title", "添加标题")),
        _type(body.loc(), text=both("Add body", "添加内容")),
        {"type": "BACK"},  # the keyboard put away
        {"type": "BACK"},  # the note's edit mode left for its view
        {"type": "COMPLETE"},
    ]
    return {
        "category": "2-1",
        "apps": [JOPLIN],
        "instruction": {
            "en": f'In Joplin, create a notebook "{notebook.en}" and in it a {k_en} titled "{title.en}" that says '
            f'"{body.en}".',
            "zh": f"在 Joplin 里新建笔记本“{notebook.zh}”，并在其中新建一条{k_zh}，"
            f"标题为“{title.zh}”，内容写“{body.zh}”。",
        },
        "start": {"reset_apps": [JOPLIN]},
        "max_steps": 18,
        "milestones": {
            "order": "ordered",
            "children": [
                milestone(
                    "notebook",
                    "The notebook is made and shown",
                    "笔记本已建好并打开",
                    {"package": JOPLIN, "element": {"text": notebook.loc(), **exact}, "state": folder},
                ),
                milestone(
                    "saved",
                    f"The {k_en} is saved with its title and body",
                    f"{k_zh}已保存，标题和内容都正确",
                    {"package": JOPLIN, "state": saved},
                ),
            ],
        },
        "end_state": [{"check": {"state": folder}}, {"check": {"state": saved}}],
        "reference": steps_for_both(steps),
    }


JOPLIN_NOTE = Family(
    name="joplin",
    description="a notebook and a note or to-do with a title and a body in it, made on a fresh install (Joplin;"
    " judged by its database's folders and notes rows)",
    params={
        "notebook": TextParam(NOTEBOOKS),
        "title": TextParam(TITLES),
        "body": TextParam(BODIES),
        "kind": ChoiceParam(tuple(KINDS)),
    },
    build=build_note,
)

__all__ = ["JOPLIN_NOTE"]
