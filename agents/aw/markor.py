"""Markor: AndroidWorld's Markor classes solved through the app's file browser, New file dialog, editor and
selection actions, from the instance's parameters (and, where a goal depends on what the app shows - a note's
current text, which note is newest -, from the screen it meets)."""

from __future__ import annotations

import posixpath
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from harness.actions import Action, Back, Click, Complete
from tasks.schema import ReferenceStep

from .sms import sms_to
from .steps import IfShown, Step, click, loc, long_press, open_app, replace_into, type_into, when_shown

MARKOR = ("Markor", "net.gsantner.markor")
EDITOR = "document__fragment__edit__highlighting_editor"
TITLE = "opoc_filesystem_item__title"
ITEM = "opoc_filesystem_item__root"
OK = "android:id/button1"
DONE_EDITING = click(resource_id="android:id/home")  # the editor's up arrow: the note saved, back to the list
# the first start's introduction and storage permission, when AndroidWorld's set-up has not been through them
FIRST_START = (
    *(when_shown(resource_id="next", text="NEXT") for _ in range(4)),
    when_shown(resource_id="done", text="DONE"),
    when_shown(resource_id=OK, text="OK"),
    when_shown(text="Allow access to manage all files"),
    IfShown(loc(resource_id="com.android.settings:id/app_ops_settings_switch"), Back()),  # back to Markor
)


def open_markor() -> list[Step]:
    return [open_app(MARKOR), *FIRST_START]


def new_file(name: str) -> list[Step]:
    """The New file dialog: NAME's stem and extension typed (no extension: Type None), OK - the editor opens."""
    stem, ext = posixpath.splitext(name)
    steps: list[Step] = [click(resource_id="fab_add_new_item"), replace_into(stem, resource_id="new_file_dialog__name")]
    if ext:
        steps.append(replace_into(ext, resource_id="new_file_dialog__ext"))
    else:
        steps += [click(resource_id="new_file_dialog__type"), click(resource_id="android:id/text1", text="None")]
    return [*steps, click(resource_id=OK)]


def create_note(name: str, text: str) -> list[Step]:
    body = [replace_into(text, resource_id=EDITOR)] if text else []
    return [*new_file(name), *body, DONE_EDITING]


def select(name: str) -> ReferenceStep:
    return long_press(resource_id=TITLE, text=name)


def rename_selected(new: str) -> list[Step]:
    return [
        click(resource_id="action_rename_selected_item"),
        replace_into(new, resource_id="new_name"),
        click(resource_id=OK),
    ]


def delete_selected() -> list[Step]:
    return [click(resource_id="action_delete_selected_items"), click(resource_id=OK)]


@dataclass(frozen=True)
class EditText:
    """The editor's text rewritten from what it shows: `header` on a line before it, `footer` on a line after it."""

    header: str = ""
    footer: str = ""
    type: str = "DECIDE"

    def choose(self, screen: Any, lang: str) -> ReferenceStep | Action | None:
        current = next((e.text for e in screen.tree if e.resource_id.endswith(EDITOR)), "")
        text = current
        if self.header:
            text = self.header + "\n" + text
        if self.footer:
            text = text.rstrip("\n") + "\n" + self.footer
        return replace_into(text, resource_id=EDITOR)


_SHOWN_TIME = re.compile(r"(\d+)/(\d+)/(\d+), (\d+):(\d+) (AM|PM)")


def _shown_time(description: str) -> datetime | None:
    m = _SHOWN_TIME.search(description)
    if m is None:
        return None
    month, day, year, hour, minute, half = m.groups()
    h = int(hour) % 12 + (12 if half == "PM" else 0)
    return datetime(int(year), int(month), int(day), h, int(minute))


def _files(screen: Any) -> list[Any]:
    return [e for e in screen.tree if e.resource_id.endswith(ITEM) and not e.content_desc.startswith(("..", "Folder"))]


@dataclass(frozen=True)
class SelectNewest:
    """A long press on the file whose modification time the list shows latest."""

    type: str = "DECIDE"

    def choose(self, screen: Any, lang: str) -> ReferenceStep | Action | None:
        dated = [(t, e) for e in _files(screen) if (t := _shown_time(e.content_desc)) is not None]
        if not dated:
            return None
        newest = max(dated, key=lambda te: te[0])[1]
        titles = [screen.tree[i].text for i in newest.children if screen.tree[i].resource_id.endswith(TITLE)]
        return select(titles[0]) if titles else None


@dataclass(frozen=True)
class SelectNext:
    """One more file of the list into the selection: a long press on the first when none is selected, then a tap
    on the next one not selected; nothing when every file shown is."""

    type: str = "DECIDE"

    def choose(self, screen: Any, lang: str) -> ReferenceStep | Action | None:
        files = _files(screen)
        chosen = [e for e in files if e.content_desc.startswith("Selected")]
        rest = [e for e in files if not e.content_desc.startswith("Selected")]
        if not rest:
            return None
        titles = [screen.tree[i].text for i in rest[0].children if screen.tree[i].resource_id.endswith(TITLE)]
        if not titles:
            return None
        return click(resource_id=TITLE, text=titles[0]) if chosen else select(titles[0])


@dataclass(frozen=True)
class InDialog:
    """A click on the dialog's row titled `text` (the folder dialog lists rows like the browser behind it)."""

    text: str
    type: str = "DECIDE"

    def choose(self, screen: Any, lang: str) -> ReferenceStep | Action | None:
        panels = [e.index for e in screen.tree if e.resource_id == "android:id/parentPanel"]
        for e in screen.tree:
            if e.resource_id.endswith(TITLE) and e.text == self.text:
                if any(a.index in panels for a in screen.tree.ancestors(e.index)):
                    return Click(element=e.index)
        return click(resource_id=TITLE, text=self.text)  # sought, or reported as not found


# --- the classes ----------------------------------------------------------------------------------------------------
def create(p: Mapping[str, Any]) -> list[Step]:
    return [*open_markor(), *create_note(str(p["file_name"]), str(p["text"])), Complete()]


def create_from_clipboard(p: Mapping[str, Any]) -> list[Step]:
    """A new note, the clipboard pasted into its editor from the keyboard's clipboard chip, saved."""
    paste = [click(resource_id=EDITOR), click(resource_id="clipboard_chip")]
    return [*open_markor(), *new_file(str(p["file_name"])), *paste, DONE_EDITING, Complete()]


def create_folder(p: Mapping[str, Any]) -> list[Step]:
    name = str(p["folder_name"])
    return [
        *open_markor(),
        click(resource_id="fab_add_new_item"),
        replace_into(name, resource_id="new_file_dialog__name"),
        click(resource_id="android:id/button3"),  # Folder
        Complete(),
    ]


def edit(p: Mapping[str, Any]) -> list[Step]:
    kind = str(p.get("edit_type", ""))
    rewrite: Step = (
        EditText(header=str(p["header"]))
        if kind == "header"
        else EditText(footer=str(p["footer"]))
        if kind == "footer"
        else replace_into(str(p["replace_text"]), resource_id=EDITOR)
    )
    return [*open_markor(), click(resource_id=TITLE, text=str(p["file_name"])), rewrite, DONE_EDITING, Complete()]


def delete(p: Mapping[str, Any]) -> list[Step]:
    return [*open_markor(), select(str(p["file_name"])), *delete_selected(), Complete()]


def delete_newest(p: Mapping[str, Any]) -> list[Step]:
    return [*open_markor(), SelectNewest(), *delete_selected(), Complete()]


def delete_all(p: Mapping[str, Any]) -> list[Step]:
    return [*open_markor(), *(SelectNext() for _ in range(30)), *delete_selected(), Complete()]


def move(p: Mapping[str, Any]) -> list[Step]:
    """Into the source folder, the note selected, Move; in the folder dialog up to the notebook and into the
    destination, Select this folder."""
    return [
        *open_markor(),
        click(resource_id=TITLE, text=str(p["source_folder"])),
        select(str(p["file_name"])),
        click(resource_id="action_move_selected_items"),
        InDialog(".."),
        InDialog(str(p["destination_folder"])),
        click(resource_id=OK),
        Complete(),
    ]


def merge(p: Mapping[str, Any]) -> list[Step]:
    """A new note (no extension) holding the three notes' contents, a blank line between each."""
    text = "\n\n".join(str(p[f"file{i}_content"]) for i in (1, 2, 3)) + "\n"
    return [*open_markor(), *create_note(str(p["new_file_name"]), text), Complete()]


def change_content(p: Mapping[str, Any]) -> list[Step]:
    """The note's text replaced, then the note renamed."""
    original = str(p["original_name"])
    return [
        *open_markor(),
        click(resource_id=TITLE, text=original),
        replace_into(str(p["updated_content"]), resource_id=EDITOR),
        DONE_EDITING,
        select(original),
        *rename_selected(str(p["new_name"])),
        Complete(),
    ]


def add_header(p: Mapping[str, Any]) -> list[Step]:
    """The header and a blank line put before the note's text, then the note renamed."""
    original = str(p["original_name"])
    text = f"{p['header']}\n\n{p['original_content']}\n"
    return [
        *open_markor(),
        click(resource_id=TITLE, text=original),
        replace_into(text, resource_id=EDITOR),
        DONE_EDITING,
        select(original),
        *rename_selected(str(p["new_name"])),
        Complete(),
    ]


def note_and_sms(p: Mapping[str, Any]) -> list[Step]:
    """The note made, then its text sent to the number from SMS Messenger."""
    text = str(p["text"])
    note = [*open_markor(), *create_note(str(p["file_name"]), text)]
    return [*note, *sms_to(str(p["number"]), [type_into(text, resource_id="thread_type_message")])]


SOLVERS: dict[str, Callable[[Mapping[str, Any]], list[Step]]] = {
    "MarkorCreateNote": create,
    "MarkorCreateNoteFromClipboard": create_from_clipboard,
    "MarkorCreateFolder": create_folder,
    "MarkorEditNote": edit,
    "MarkorDeleteNote": delete,
    "MarkorDeleteNewestNote": delete_newest,
    "MarkorDeleteAllNotes": delete_all,
    "MarkorMoveNote": move,
    "MarkorMergeNotes": merge,
    "MarkorChangeNoteContent": change_content,
    "MarkorAddNoteHeader": add_header,
    "MarkorCreateNoteAndSms": note_and_sms,
}
