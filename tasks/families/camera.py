"""A family over Camera (Camera2): a photo taken, or a video of at least some seconds recorded, on a fresh start of the
app (its location prompt first). Judged by MediaStore's index of what was saved, as the gallery and AndroidWorld's
camera classes find it: a JPEG named IMG_yyyyMMdd_HHmmss in Pictures/, or an MP4 named VID_yyyyMMdd_HHmmss in
Movies/ lasting that long."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .base import Family
from .build import both, milestone, open_app, steps_for_both
from .params import ChoiceParam

CAMERA = "com.android.camera2"
# (kind, seconds): a photo, or a video of at least that many seconds
SHOTS = (("photo", 0), ("video", 2), ("video", 3), ("video", 5))


def _click(**locate: Any) -> dict[str, Any]:
    return {"type": "CLICK", "locate": locate}


def build_camera(v: Mapping[str, Any]) -> dict[str, Any]:
    kind, seconds = v["shot"]
    shutter = _click(resource_id="shutter_button", desc=both("Shutter", "快门"))
    mode_list = {"type": "SWIPE", "start": [0.2, 0.4], "end": [0.8, 0.4], "duration": 0.3}
    first_start = [_click(resource_id="confirm_button", text=both("NEXT", "下一页")), mode_list]
    if kind == "photo":
        instruction = both("Take a photo with the Camera app.", "用相机拍一张照片。")
        row = {
            "uri": "content://media/external/images/media",
            "projection": ["_display_name", "relative_path", "mime_type"],
            "row": {
                "_display_name": {"regex": r"^IMG_\d{8}_\d{6}(_\d+)?\.jpg$"},
                "relative_path": "Pictures/",
                "mime_type": "image/jpeg",
            },
        }
        steps = [*first_start, _click(desc=both("Switch to Camera Mode", "切换到相机模式")), shutter]
        middle = milestone(
            "photo_mode",
            "Camera mode chosen in the mode list",
            "在模式列表中选择相机模式",
            {"package": CAMERA, "element": {"resource_id": "shutter_button"}},
        )
    else:
        instruction = both(
            f"Record a video of at least {seconds} seconds with the Camera app.",
            f"用相机录一段至少 {seconds} 秒的视频。",
        )
        row = {
            "uri": "content://media/external/video/media",
            "projection": ["_display_name", "relative_path", "duration"],
            "row": {
                "_display_name": {"regex": r"^VID_\d{8}_\d{6}(_\d+)?\.mp4$"},
                "relative_path": "Movies/",
                "duration": {"ge": seconds * 1000},
            },
        }
        steps = [
            *first_start,
            _click(desc=both("Switch to Video Camera", "切换到摄像机模式")),
            shutter,
            {"type": "WAIT", "duration": seconds + 1},
            shutter,
        ]
        middle = milestone(
            "recording",
            "Recording",
            "正在录制",
            {"package": CAMERA, "element": {"resource_id": "recording_time"}},
        )
    saved = {"content": row}
    return {
        "category": "1-1",
        "apps": [CAMERA],
        "instruction": instruction,
        "start": {"reset_apps": [CAMERA]},
        "max_steps": 12,
        "milestones": {
            "order": "ordered",
            "children": [
                milestone(
                    "prompt",
                    "Past the first start's location prompt",
                    "通过首次启动的位置提示",
                    {
                        "package": CAMERA,
                        "element": {"resource_id": "shutter_button"},
                        "absent": [{"resource_id": "confirm_button"}],
                    },
                ),
                middle,
                milestone("saved", "The capture is saved", "拍摄内容已保存", {"package": CAMERA, "state": saved}),
            ],
        },
        "end_state": [{"check": {"state": saved}}],
        "reference": steps_for_both([open_app("Camera", "相机", CAMERA), *steps, {"type": "COMPLETE"}]),
    }


CAMERA_SHOT = Family(
    name="camera",
    description="a photo, or a video of at least 2-5 seconds, taken on a fresh start (Camera; judged by MediaStore)",
    params={"shot": ChoiceParam(SHOTS)},
    build=build_camera,
)
