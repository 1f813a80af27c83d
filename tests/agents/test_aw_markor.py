"""The reference agent's Markor solvers (agents/aw/markor.py) on the virtual device, without AndroidWorld: each class
played from an instance's parameters on a device set up as AndroidWorld's set-up leaves it (notes written into the
notebook folder), and the notes read back from the file system, where AndroidWorld's judge reads them (`cat`,
`ls`)."""

from __future__ import annotations

from typing import Any

import pytest

from agents.aw import markor as solvers
from emulator.virtual.model import VirtualDeviceModel
from harness.plugins import create_agent
from tests.agents_helpers import make_task, run

NOTEBOOK = "/sdcard/Documents/Markor"


def _play(m: VirtualDeviceModel, cls: str, budget: int = 20, **params: Any) -> list[Any]:
    task = make_task(f"AndroidWorld {cls}", outside={"suite": "androidworld", "class": cls, "params": params})
    steps = run(create_agent("reference"), m, task, max_steps=budget)
    assert steps[-1].action.type == "COMPLETE", [s.action for s in steps]
    assert not any(s.invalid for s in steps), [s.error for s in steps if s.invalid]
    return steps


def _note(m: VirtualDeviceModel, path: str, text: str, when: float | None = None) -> None:
    m.fs.write(f"{NOTEBOOK}/{path}", text.encode(), parents=True, mtime=int(when) if when else None)


def _text(m: VirtualDeviceModel, path: str) -> str | None:
    data = m.fs.peek(f"{NOTEBOOK}/{path}")
    return None if data is None else data.decode()


def test_every_markor_class_has_a_solver() -> None:
    assert set(solvers.SOLVERS) == {
        "MarkorCreateNote",
        "MarkorCreateNoteFromClipboard",
        "MarkorCreateFolder",
        "MarkorEditNote",
        "MarkorDeleteNote",
        "MarkorDeleteNewestNote",
        "MarkorDeleteAllNotes",
        "MarkorMoveNote",
        "MarkorMergeNotes",
        "MarkorChangeNoteContent",
        "MarkorAddNoteHeader",
        "MarkorCreateNoteAndSms",
    }


def test_create_note_through_a_first_start() -> None:
    m = VirtualDeviceModel()
    _play(m, "MarkorCreateNote", file_name="plan.txt", text="Pack the tent")
    assert _text(m, "plan.txt") == "Pack the tent"


def test_merge_into_a_note_without_extension() -> None:
    m = VirtualDeviceModel()
    params = {f"file{i}_content": c for i, c in enumerate(("aa", "bb", "cc"), 1)}
    _play(m, "MarkorMergeNotes", new_file_name="merged", **params)
    assert _text(m, "merged") == "aa\n\nbb\n\ncc\n"


@pytest.mark.parametrize(("kind", "want"), [("header", "Top\nold line\n"), ("footer", "old line\nEnd")])
def test_edit_puts_the_line_before_or_after_what_the_note_shows(kind: str, want: str) -> None:
    m = VirtualDeviceModel()
    _note(m, "n.md", "old line\n")
    _play(m, "MarkorEditNote", file_name="n.md", edit_type=kind, header="Top", footer="End")
    assert _text(m, "n.md") == want


def test_move_and_rename() -> None:
    m = VirtualDeviceModel()
    _note(m, "Work/todo.md", "x\n")
    m.fs.mkdir(f"{NOTEBOOK}/Home", parents=True)
    _play(m, "MarkorMoveNote", file_name="todo.md", source_folder="Work", destination_folder="Home")
    assert _text(m, "Home/todo.md") == "x\n" and _text(m, "Work/todo.md") is None
    m.force_stop("net.gsantner.markor")  # as AndroidWorld's set-up leaves it: the app not running
    _note(m, "c.md", "c\n")
    _play(m, "MarkorAddNoteHeader", original_name="c.md", new_name="d.md", header="H", original_content="c")
    assert _text(m, "d.md") == "H\n\nc\n" and _text(m, "c.md") is None


def test_delete_newest_reads_the_times_the_list_shows() -> None:
    m = VirtualDeviceModel()
    now = m.now()
    _note(m, "a.md", "a", now - 7200)
    _note(m, "b.md", "b", now - 60)  # the newest
    _note(m, "c.md", "c", now - 3600)
    _play(m, "MarkorDeleteNewestNote")
    assert [_text(m, n) is None for n in ("a.md", "b.md", "c.md")] == [False, True, False]


def test_delete_all_selects_every_note() -> None:
    m = VirtualDeviceModel()
    for n in ("a.md", "b.txt", "c.md", "d.md"):
        _note(m, n, n)
    _play(m, "MarkorDeleteAllNotes")
    assert [name for name, _ in m.fs.listdir(NOTEBOOK)] == []
