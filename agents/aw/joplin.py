"""Joplin: AndroidWorld's information-retrieval classes over its notes.

The note a question names is found with the app's Search (its title typed, the result opened) and the answer comes
from the parameters AndroidWorld wrote the note from: NotesIsTodo's `is_todo`, NotesMeetingAttendeeCount's
`attendee_count`, NotesRecipeIngredientCount's `ingredient_quantity`. NotesTodoItemCount's notebook is opened from
the side menu and its to-dos counted on the screen: their checkboxes ("to-do: <title>"), which the app lists on
top while they are not completed.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from harness.actions import Answer, Click

from .steps import Step, click, open_app, type_into

JOPLIN = ("Joplin", "net.cozic.joplin")
TEXT_VIEW = "android.widget.TextView"


@dataclass(frozen=True)
class ClickLast:
    """Click the last element in the tree whose text is `text` (a notebook in the side menu, under the screen whose
    title may be the same notebook's)."""

    text: str
    type: str = "DECIDE"

    def choose(self, screen: Any, lang: str) -> Click | None:
        hits = [e.index for e in screen.tree if e.text == self.text and e.package == JOPLIN[1]]
        return Click(element=hits[-1]) if hits else None


@dataclass(frozen=True)
class CountTodos:
    """Answer the number of to-do checkboxes the screen shows."""

    type: str = "DECIDE"

    def choose(self, screen: Any, lang: str) -> Answer:
        n = sum(1 for e in screen.tree if e.package == JOPLIN[1] and e.content_desc.startswith("to-do: "))
        return Answer(text=str(n))


def open_note(title: str) -> list[Step]:
    """Search, the title typed, the note opened from the results."""
    return [
        open_app(JOPLIN),
        click(desc="Search"),
        type_into(title, class_name="android.widget.EditText"),
        click(text=title, class_name=TEXT_VIEW),
    ]


def answer_in_note(key: str) -> Callable[[Mapping[str, Any]], list[Step]]:
    return lambda p: [*open_note(str(p["title"])), Answer(text=str(p[key]))]


def todo_count(p: Mapping[str, Any]) -> list[Step]:
    return [open_app(JOPLIN), click(desc="Sidebar"), ClickLast(str(p["folder"])), CountTodos()]


SOLVERS: dict[str, Callable[[Mapping[str, Any]], list[Step]]] = {
    "NotesIsTodo": answer_in_note("is_todo"),
    "NotesMeetingAttendeeCount": answer_in_note("attendee_count"),
    "NotesRecipeIngredientCount": answer_in_note("ingredient_quantity"),
    "NotesTodoItemCount": todo_count,
}
