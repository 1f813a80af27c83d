"""Simple Draw Pro: AndroidWorld's drawing class solved on the canvas (a stroke swiped across it) and through the
Save as dialog: its Path changed to the internal storage's Pictures folder in the folder picker, the file name's stem
typed and its extension's radio button checked, from the instance's parameters."""

from __future__ import annotations

import posixpath
from collections.abc import Callable, Mapping
from typing import Any

from harness.actions import Complete, Point, Swipe

from .steps import Step, click, open_app, replace_into

DRAW = ("Draw", "com.simplemobiletools.draw.pro")
OK = "android:id/button1"


def drawing(name: str, folder: str = "Pictures") -> list[Step]:
    """A stroke on the canvas, then Save: the folder picked from the internal storage, NAME's stem and extension."""
    stem, ext = posixpath.splitext(name)
    return [
        open_app(DRAW),
        Swipe(start=Point(x=0.25, y=0.4), end=Point(x=0.75, y=0.6), duration=0.5),
        click(resource_id="menu_save"),
        click(resource_id="folder_value"),
        click(resource_id="breadcrumb_text", text="Internal"),
        click(resource_id="list_item_name", text=folder),
        click(resource_id=OK, text="OK"),  # the folder picker's
        replace_into(stem, resource_id="save_image_filename"),
        click(resource_id=f"save_image_radio_{ext.lstrip('.').lower() or 'png'}"),
        click(resource_id=OK, text="OK"),  # Save as
        Complete(),
    ]


SOLVERS: dict[str, Callable[[Mapping[str, Any]], list[Step]]] = {
    "SimpleDrawProCreateDrawing": lambda p: drawing(str(p["file_name"])),
}
