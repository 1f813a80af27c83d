"""Simple Gallery Pro: AndroidWorld's gallery classes solved through the app's folders, media grid and viewer, from the
instance's parameters.

- SaveCopyOfReceiptTaskEval: DCIM, the receipt opened (the grid's file names shown first), More options > Copy to,
  "Other folder", up to "Internal" in the breadcrumbs, Download, OK.
- The three that read an image into another app (ExpenseAddMultipleFromGallery, MarkorTranscribeReceipt,
  RecipeAddMultipleRecipesFromImage): the image opened in the gallery as a user reads it, then its content (the
  parameters hold what the image shows) entered in Pro Expense, Markor or Broccoli with their solvers' steps.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from harness.actions import Action, Back, Complete
from tasks.schema import ReferenceStep

from . import expense, markor, recipe
from .steps import IfShown, Step, click, loc, open_app, when_shown

GALLERY = ("Gallery", "com.simplemobiletools.gallery.pro")
RID = GALLERY[1] + ":id/"
OK = "android:id/button1"
# the first start's all-files prompt, when AndroidWorld's set-up has not been through it: Settings' page, then back
FIRST_START = (
    when_shown(resource_id=OK, text="All files"),
    when_shown(text="Allow access to manage all files"),
    IfShown(loc(resource_id="com.android.settings:id/app_ops_settings_switch"), Back()),
)


@dataclass(frozen=True)
class ShowNames:
    """The media grid's "Toggle filename visibility", when the names are not shown yet."""

    type: str = "DECIDE"

    def choose(self, screen: Any, lang: str) -> ReferenceStep | Action | None:
        if any(e.resource_id == RID + "medium_name" for e in screen.tree):
            return None
        return click(resource_id="toggle_filename")


def open_gallery() -> list[Step]:
    """The gallery on its folders: opened (its first start's prompt through), back from a picture or a folder it
    was left on."""
    back_to_folders = (
        IfShown(loc(resource_id="medium_viewer_toolbar"), Back()),
        IfShown(loc(resource_id="media_grid"), Back()),
    )
    return [open_app(GALLERY), *FIRST_START, *back_to_folders]


def open_image(folder: str, name: str) -> list[Step]:
    """The folder opened from the folders grid, then the image from its grid: shown full screen."""
    return [
        *open_gallery(),
        click(resource_id="dir_name", text=folder),
        ShowNames(),
        click(resource_id="medium_name", text=name),
    ]


def copy_shown_to(folder: str) -> list[Step]:
    """The medium on screen copied into `folder` of the storage's root through the file picker."""
    return [
        click(desc="More options"),
        click(resource_id="android:id/title", text="Copy to"),
        click(resource_id="android:id/button3"),  # Other folder
        click(resource_id="breadcrumb_text", text="Internal"),
        click(resource_id="list_item_name", text=folder),
        click(resource_id=OK),
    ]


def save_copy_of_receipt(p: Mapping[str, Any]) -> list[Step]:
    return [*open_image("DCIM", str(p["file_name"])), *copy_shown_to("Download"), Complete()]


def from_image(name: str, then: Callable[[Mapping[str, Any]], list[Step]]) -> Callable[[Mapping[str, Any]], list[Step]]:
    """The image read in the gallery first, then the other app's solver on the same parameters."""
    return lambda p: [*open_image("DCIM", name), *then(p)]


SOLVERS: dict[str, Callable[[Mapping[str, Any]], list[Step]]] = {
    "SaveCopyOfReceiptTaskEval": save_copy_of_receipt,
    "ExpenseAddMultipleFromGallery": from_image("expenses.jpg", expense.add_expenses),
    "MarkorTranscribeReceipt": from_image("receipt.png", markor.create),
    "RecipeAddMultipleRecipesFromImage": from_image("recipes.jpg", recipe.add_recipes),
}
