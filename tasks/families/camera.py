"""A family over Camera (Camera2) and Files (DocumentsUI): a photo taken, or a video recorded, on a fresh start of
the camera (its location prompt first), then moved with Files from where the camera saved it (Pictures/ or Movies/)
to another folder of the device's storage. Judged by MediaStore's index, as a gallery finds the capture: an
IMG_yyyyMMdd_HHmmss.jpg (or VID_yyyyMMdd_HHmmss.mp4) in the folder asked for, and none left where it was saved."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .base import Family
from .build import both, milestone, open_app, steps_for_both
from .params import ChoiceParam

CAMERA = "com.android.camera2"
FILES = "com.google.android.documentsui"
DESTINATIONS = (
    "Documents",
    "Download",
    "DCIM",
    "Music",
    "Alarms",
    "Podcasts",
    "Ringtones",
    "Notifications",
    "Audiobooks",
    "Recordings",
)
# kind: (the folder Camera2 saves it in, the MediaStore table, the name it gives, the mode's item in the mode list)
KINDS = {
    "photo": ("Pictures", "images", r"^IMG_\d{8}_\d{6}(_\d+)?\.jpg$", both("Switch to Camera Mode", "切换到相机模式")),
    "video": ("Movies", "video", r"^VID_\d{8}_\d{6}(_\d+)?\.mp4$", both("Switch to Video Camera", "切换到摄像机模式")),
}
TITLE = "android:id/title"
STORAGE_ROOT = {"resource_id": "android:id/summary", "text": both(".* free$", "^可用空间"), "match": "regex"}


def _click(**locate: Any) -> dict[str, Any]:
    return {"type": "CLICK", "locate": locate}


def _capture(table: str, folder: str, name: str, exists: bool = True) -> dict[str, Any]:
    """A row of MediaStore's TABLE for a capture named as Camera2 names it, in FOLDER."""
    return {
        "content": {
            "uri": f"content://media/external/{table}/media",
            "projection": ["_display_name", "relative_path"],
            "row": {"_display_name": {"regex": name, "case_sensitive": True}, "relative_path": f"{folder}/"},
            "exists": exists,
        }
    }


def _storage_folder(name: str) -> list[dict[str, Any]]:
    return [_click(desc=both("Show roots", "显示根目录")), _click(**STORAGE_ROOT), _click(resource_id=TITLE, text=name)]


def build_camera(v: Mapping[str, Any]) -> dict[str, Any]:
    kind, dest = str(v["kind"]), str(v["destination"])
    saved_in, table, name, mode = KINDS[kind]
    shutter = _click(resource_id="shutter_button", desc=both("Shutter", "快门"))
    if kind == "photo":
        instruction = both(
            f"Take a photo with the Camera app, then move it to the {dest} folder of the device's storage with Files.",
            f"用相机拍一张照片，然后用“文件”应用把它移到设备存储的 {dest} 文件夹。",
        )
        shots = [shutter]
    else:
        instruction = both(
            f"Record a short video with the Camera app, then move it to the {dest} folder of the device's storage "
            "with Files.",
            f"用相机录一段短视频，然后用“文件”应用把它移到设备存储的 {dest} 文件夹。",
        )
        shots = [shutter, {"type": "WAIT", "duration": 1}, shutter]
    captured = _capture(table, saved_in, name)
    moved = _capture(table, dest, name)
    return {
        "category": "1-4",
        "apps": [CAMERA, FILES],
        "instruction": instruction,
        "start": {"reset_apps": [CAMERA, FILES]},
        "max_steps": 24,
        "milestones": {
            "order": "ordered",
            "children": [
                milestone(
                    "captured", f"The {kind} is saved in {saved_in}", f"已保存到 {saved_in}", {"state": captured}
                ),
                milestone(
                    "picker",
                    "Files' Move to… picker is open",
                    "打开“文件”的“移至…”选择器",
                    {"activity": "com.android.documentsui.picker.PickActivity"},
                ),
                milestone("moved", f"The {kind} is in {dest}", f"已移到 {dest}", {"state": moved}),
            ],
        },
        "end_state": [{"check": {"state": moved}}, {"check": {"state": _capture(table, saved_in, name, False)}}],
        "reference": steps_for_both(
            [
                open_app("Camera", "相机", CAMERA),
                _click(resource_id="confirm_button", text=both("NEXT", "下一页")),
                {"type": "SWIPE", "start": [0.2, 0.4], "end": [0.8, 0.4], "duration": 0.3},  # the mode list
                _click(desc=mode),
                *shots,
                open_app("Files", "文件", FILES),
                *_storage_folder(saved_in),
                {"type": "LONG_PRESS", "locate": {"resource_id": TITLE, "text": name, "match": "regex"}},
                _click(desc=both("More options", "更多选项")),
                _click(resource_id="title", text=both("Move to\u2026", "移至…")),
                *_storage_folder(dest),
                _click(resource_id="android:id/button1", text=both("Move", "移动")),
                {"type": "COMPLETE"},
            ]
        ),
    }


CAMERA_SHOT = Family(
    name="camera",
    description="a photo or a video taken on a fresh start, then moved to a folder with Files (judged by MediaStore)",
    params={"destination": ChoiceParam(DESTINATIONS), "kind": ChoiceParam(tuple(KINDS))},
    build=build_camera,
)
