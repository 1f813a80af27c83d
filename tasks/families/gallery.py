"""A family over Simple Gallery Pro: a picture copied from its folder to another folder of the device's storage
(the viewer's More options > Copy to, "Other folder" and the folder picker), or renamed (More options > Rename), on
a fresh install (its first start's all-files prompt and Settings' page first). The pictures are put on shared
storage at the start (MediaStore inserts, which make the files), and the verdict is the file system's, as
AndroidWorld judges SaveCopyOfReceiptTaskEval: the picture where it must be (`cat` finds it), gone where it must be
gone."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .base import Family
from .build import both, click, milestone, open_app, steps_for_both, type_into
from .params import ChoiceParam

GALLERY = "com.simplemobiletools.gallery.pro"
VIEWER = GALLERY + ".activities.ViewPagerActivity"
STORAGE = "/storage/emulated/0"
NAMES = (
    "beach_day.jpg",
    "birthday_cake.jpg",
    "receipt_march.png",
    "city_skyline.jpg",
    "family_dinner.png",
    "mountain_trail.jpg",
)
OTHERS = ("old_screenshot.png", "note_scan.jpg", "parking_spot.jpg")  # a picture beside the one the task is about
SOURCES = ("DCIM", "Pictures")
DESTINATIONS = ("Download", "Documents", "Pictures", "DCIM", "Movies")
PAIRS = tuple((a, b) for a in SOURCES for b in DESTINATIONS if a != b)
STEMS = ("summer_2023", "favorite_shot", "keep_this", "for_print", "best_of_year")
OK = "android:id/button1"
FIRST_START = [
    click(OK, text=both("All files", "所有文件")),
    click("android:id/title", text=both("Allow access to manage all files", "授予管理所有文件的权限")),
    {"type": "BACK"},
]


def _row(folder: str, name: str) -> dict[str, Any]:
    return {
        "uri": "content://media/external/images/media",
        "values": {"relative_path": f"{folder}/", "_display_name": name},
    }


def _file(folder: str, name: str, exists: bool = True) -> dict[str, Any]:
    return {"file": {"path": f"{STORAGE}/{folder}/{name}", "exists": exists}}


def _more(item: dict[str, str]) -> list[dict[str, Any]]:
    more = {"type": "CLICK", "locate": {"desc": both("More options", "更多选项")}}
    return [more, click("android:id/title", text=item)]


def build_gallery(v: Mapping[str, Any]) -> dict[str, Any]:
    name, other = str(v["name"]), str(v["other"])
    src, dest = v["folders"]
    ext = name.rsplit(".", 1)[1]
    new = f"{v['stem']}.{ext}"
    opened = milestone(
        "opened",
        f"Open {name} from {src}",
        f"从 {src} 打开 {name}",
        {"activity": VIEWER, "element": {"text": name}},
    )
    if v["action"] == "copy":
        instruction = both(
            f"In Simple Gallery Pro, copy the picture {name} from the {src} folder to the {dest} folder of the "
            "device's storage.",
            f"在 Simple Gallery Pro 中，把 {src} 文件夹里的图片 {name} 复制到设备存储的 {dest} 文件夹。",
        )
        done = _file(dest, name)
        end = [_file(dest, name), _file(src, name)]
        steps = [
            *_more(both("Copy to", "复制到")),
            click("android:id/button3"),  # Other folder
            click("breadcrumb_text", text=both("Internal", "内部存储器")),
            click("list_item_name", text=dest),
            click(OK),
        ]
        last = milestone(
            "copied", f"{name} is in {dest}", f"{name} 已在 {dest} 中", {"state": done, "package": GALLERY}
        )
    else:
        instruction = both(
            f"In Simple Gallery Pro, rename the picture {name} in the {src} folder to {new}.",
            f"在 Simple Gallery Pro 中，把 {src} 文件夹里的图片 {name} 重命名为 {new}。",
        )
        done = _file(src, new)
        end = [_file(src, new), _file(src, name, exists=False)]
        steps = [
            *_more(both("Rename", "重命名")),
            type_into(str(v["stem"]), "rename_item_name", clear=True),
            click(OK),
        ]
        last = milestone(
            "renamed", f"{name} is now {new}", f"{name} 已改名为 {new}", {"state": done, "package": GALLERY}
        )
    return {
        "category": "1-2",
        "apps": [GALLERY],
        "instruction": instruction,
        "start": {"reset_apps": [GALLERY], "content": [_row(src, name), _row(src, other)]},
        "max_steps": 20,
        "milestones": {"order": "ordered", "children": [opened, last]},
        "end_state": [{"check": {"state": s}} for s in end],
        "reference": steps_for_both(
            [
                open_app("Gallery", "图库", GALLERY),
                *FIRST_START,
                click("dir_name", text=src),
                click("toggle_filename"),
                click("medium_name", text=name),
                *steps,
                {"type": "COMPLETE"},
            ]
        ),
    }


GALLERY_FAMILY = Family(
    name="gallery",
    description="a picture copied to another folder of the storage, or renamed (Simple Gallery Pro; judged by files)",
    params={
        "action": ChoiceParam(("copy", "rename")),
        "name": ChoiceParam(NAMES),
        "other": ChoiceParam(OTHERS),
        "folders": ChoiceParam(PAIRS),
        "stem": ChoiceParam(STEMS),
    },
    build=build_gallery,
)
