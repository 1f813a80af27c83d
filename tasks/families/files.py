"""A family over Files (DocumentsUI): a file moved from one folder of the device's storage to another (More options >
Move to… and the destination picker), or deleted from one folder while a file of the same name in another stays.
The files are put on shared storage at the start (MediaStore inserts, which make the files), and the verdict is the
file system's: the file where it must be (`cat` finds it) and gone where it must be gone, as AndroidWorld's
FilesMoveFile and FilesDeleteFile judge."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .base import Family
from .build import both, milestone, open_app, steps_for_both
from .params import ChoiceParam

FILES = "com.google.android.documentsui"
STORAGE = "/storage/emulated/0"
NAMES = (
    "trip_receipt.pdf",
    "lecture_notes.txt",
    "team_photo.jpg",
    "voice_memo.mp3",
    "birthday_clip.mp4",
    "tax_return_2023.pdf",
)
OTHERS = ("old_invoice.pdf", "draft.txt", "sunset.jpg")  # files beside the one the task is about
FOLDERS = ("Documents", "Download", "Pictures", "Music", "Movies", "DCIM")
PAIRS = tuple((a, b) for a in FOLDERS for b in FOLDERS if a != b)
TITLE = "android:id/title"
# the drawer's storage root, found by its summary (the free space): its title is the device's name
STORAGE_ROOT = {"resource_id": "android:id/summary", "text": both(".* free$", "^可用空间"), "match": "regex"}


def _row(folder: str, name: str) -> dict[str, Any]:
    return {"uri": "content://media/external/file", "values": {"relative_path": f"{folder}/", "_display_name": name}}


def _file(folder: str, name: str, exists: bool = True) -> dict[str, Any]:
    return {"file": {"path": f"{STORAGE}/{folder}/{name}", "exists": exists}}


def _click(**locate: Any) -> dict[str, Any]:
    return {"type": "CLICK", "locate": locate}


def _folder(name: str) -> list[dict[str, Any]]:
    """The storage root's folder NAME, from the drawer."""
    return [_click(desc=both("Show roots", "显示根目录")), _click(**STORAGE_ROOT), _click(resource_id=TITLE, text=name)]


def build_files(v: Mapping[str, Any]) -> dict[str, Any]:
    name, other = str(v["name"]), str(v["other"])
    src, dest = v["folders"]
    move = v["action"] == "move"
    selected = milestone(
        "selected",
        f"Select {name} in {src}",
        f"在 {src} 中选中 {name}",
        {"package": FILES, "element": {"resource_id": "action_bar_title", "text": both("1 selected", "已选择 1 项")}},
    )
    if move:
        instruction = both(
            f"In Files, move the file {name} from the {src} folder to the {dest} folder of the device's storage.",
            f"在“文件”应用中，把设备存储中 {src} 文件夹里的文件 {name} 移到 {dest} 文件夹。",
        )
        done = {"state": _file(dest, name), "package": FILES}
        children = [
            selected,
            milestone(
                "picker",
                "Open the Move to… picker",
                "打开“移至…”选择器",
                {
                    "activity": "com.android.documentsui.picker.PickActivity",
                    "element": {"resource_id": "android:id/button1", "text": both("Move", "移动")},
                },
            ),
            milestone("moved", f"{name} is in {dest}", f"{name} 已在 {dest} 中", done),
        ]
        end = [_file(dest, name), _file(src, name, exists=False)]
        start_rows = [_row(src, name), _row(src, other), _row(dest, other)]
        steps = [
            _click(desc=both("More options", "更多选项")),
            _click(resource_id="title", text=both("Move to\u2026", "移至…")),
            *_folder(dest),
            _click(resource_id="android:id/button1", text=both("Move", "移动")),
        ]
    else:
        instruction = both(
            f"In Files, delete the file {name} from the {src} folder of the device's storage; keep the one in {dest}.",
            f"在“文件”应用中，删除设备存储中 {src} 文件夹里的文件 {name}；保留 {dest} 文件夹里的那个。",
        )
        children = [
            selected,
            milestone(
                "deleted",
                f"{name} is gone from {src}",
                f"{src} 中已没有 {name}",
                {"state": _file(src, name, exists=False), "package": FILES},
            ),
        ]
        end = [_file(src, name, exists=False), _file(dest, name)]
        start_rows = [_row(src, name), _row(src, other), _row(dest, name)]
        steps = [
            _click(resource_id="action_menu_delete"),
            _click(resource_id="android:id/button1", text=both("OK", "确定")),
        ]
    return {
        "category": "1-2",
        "apps": [FILES],
        "instruction": instruction,
        "start": {"reset_apps": [FILES], "content": start_rows},
        "max_steps": 20,
        "milestones": {"order": "ordered", "children": children},
        "end_state": [{"check": {"state": s}} for s in end],
        "reference": steps_for_both(
            [
                open_app("Files", "文件", FILES),
                *_folder(src),
                {"type": "LONG_PRESS", "locate": {"resource_id": TITLE, "text": name}},
                *steps,
                {"type": "COMPLETE"},
            ]
        ),
    }


FILES_FAMILY = Family(
    name="files",
    description="a file moved between folders of the storage, or deleted from one (Files; judged by the files)",
    params={
        "action": ChoiceParam(("move", "delete")),
        "name": ChoiceParam(NAMES),
        "other": ChoiceParam(OTHERS),
        "folders": ChoiceParam(PAIRS),
    },
    build=build_files,
)
