"""Files (DocumentsUI): AndroidWorld's file classes solved through the app's drawer, directory list, selection and
destination picker, from the instance's parameters: the device's storage root opened from the drawer, the folder
the goal names, a long press on the file, then Delete (confirmed with OK) or More options > Move to… and, in the
picker, the storage root, the destination folder and Move."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from harness.actions import Action, Complete
from tasks.schema import ReferenceStep

from .steps import Step, click, long_press, open_app

FILES = ("Files", "com.google.android.documentsui")
# the storage area AndroidWorld's goals name: the emulator's model, DocumentsUI's title of the storage root
STORAGE_NAME = "sdk_gphone_x86_64"
TITLE = "android:id/title"
SHOW_ROOTS = click(desc="Show roots")


@dataclass(frozen=True)
class StorageRoot:
    """The drawer's storage root: the one titled as the goal names the device, else the one whose summary gives the
    storage's free space (an emulator image of another model titles it with its own name)."""

    name: str = STORAGE_NAME
    type: str = "DECIDE"

    def choose(self, screen: Any, lang: str) -> ReferenceStep | Action | None:
        for e in screen.tree:
            if e.resource_id == TITLE and e.text == self.name:
                return click(resource_id=TITLE, text=self.name)
        for e in screen.tree:
            if e.resource_id == "android:id/summary" and e.text.endswith((" free", "可用空间")):
                return click(resource_id="android:id/summary", text=e.text)
        return click(resource_id=TITLE, text=self.name)  # sought, or reported as invalid


def folder(name: str) -> list[Step]:
    """The storage root's folder `name`, from wherever the list is."""
    return [SHOW_ROOTS, StorageRoot(), click(resource_id=TITLE, text=name)]


def move_file(p: Mapping[str, Any]) -> list[Step]:
    name = str(p["file_name"])
    return [
        open_app(FILES),
        *folder(str(p["source_folder"])),
        long_press(resource_id=TITLE, text=name),
        click(desc="More options"),
        click(resource_id="title", text="Move to\u2026"),
        *folder(str(p["destination_folder"])),
        click(resource_id="android:id/button1", text="Move"),
        Complete(),
    ]


def delete_file(p: Mapping[str, Any]) -> list[Step]:
    name = str(p["file_name"])
    return [
        open_app(FILES),
        *folder(str(p.get("subfolder", ""))),
        long_press(resource_id=TITLE, text=name),
        click(resource_id="action_menu_delete"),
        click(resource_id="android:id/button1", text="OK"),
        Complete(),
    ]


SOLVERS: dict[str, Callable[[Mapping[str, Any]], list[Step]]] = {
    "FilesMoveFile": move_file,
    "FilesDeleteFile": delete_file,
}
