"""Camera (Camera2): AndroidWorld's camera classes solved from the viewfinder - the first start's location prompt
passed when it shows, the mode chosen in the mode list (a swipe right on the viewfinder opens it), then the
shutter: once for a photo, twice (start, stop) for a video."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from harness.actions import Complete, Point, Swipe

from .steps import Step, click, open_app, when_shown

CAMERA = ("Camera", "com.android.camera2")
SHUTTER = click(resource_id="shutter_button", desc="Shutter")
MODE_LIST = Swipe(start=Point(x=0.2, y=0.4), end=Point(x=0.8, y=0.4), duration=0.3)


def _in_mode(desc: str) -> list[Step]:
    return [open_app(CAMERA), when_shown(resource_id="confirm_button", text="NEXT"), MODE_LIST, click(desc=desc)]


def take_photo(p: Mapping[str, Any]) -> list[Step]:
    return [*_in_mode("Switch to Camera Mode"), SHUTTER, Complete()]


def take_video(p: Mapping[str, Any]) -> list[Step]:
    return [*_in_mode("Switch to Video Camera"), SHUTTER, SHUTTER, Complete()]


SOLVERS: dict[str, Callable[[Mapping[str, Any]], list[Step]]] = {
    "CameraTakePhoto": take_photo,
    "CameraTakeVideo": take_video,
}
