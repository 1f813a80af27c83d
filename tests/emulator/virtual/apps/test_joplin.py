"""Joplin (net.cozic.joplin) driven as clients drive a phone: the real adb server for `pm`, `am`, `adb pull` /
`adb push` of the app's SQLite database and `sqlite3` over it, uiautomator2 for the screen; AndroidWorld's Joplin
classes solved by the reference agent on the in-process device over rows inserted as AndroidWorld inserts them; the
joplin family."""

from __future__ import annotations

import sqlite3
import uuid
from pathlib import Path
from typing import Any

import pytest

from agents.aw import joplin as aw_joplin
from emulator.virtual.apps.joplin_data import MAIN, PKG
from emulator.virtual.model import VirtualDeviceModel
from emulator.virtual.sqlitefile import open_bytes, to_bytes
from harness.actions import Answer, Complete
from harness.device.state import DeviceState
from harness.plugins import create_agent
from harness.run.judge.state_check import evaluate_state
from tasks.families.registry import family_tasks
from tests.agents_helpers import make_task, run
from tests.device_util import open_device
from tests.emulator.virtual.apps.devshell import focus, root, sh, sqlite

u2 = pytest.importorskip("uiautomator2")

DB_PATH = f"/data/data/{PKG}/databases/joplin.sqlite"
YESTERDAY = 1697300040000  # AndroidWorld's rows are dated the day before its date
# AndroidWorld's row types (sqlite_schema_utils.JoplinFolder / JoplinNote / JoplinNormalizedNote): their fields
FOLDER = "title id created_time updated_time user_created_time user_updated_time deleted_time encryption_cipher_text \
encryption_applied parent_id is_shared share_id master_key_id icon user_data".split()
NOTE = (
    "parent_id title body created_time updated_time is_conflict latitude longitude altitude author source_url is_todo \
todo_due todo_completed source source_application application_data order user_created_time user_updated_time \
encryption_cipher_text encryption_applied markup_language is_shared share_id conflict_original_id master_key_id \
user_data id".split()
)
NORMALIZED = "parent_id title body latitude longitude altitude source_url is_todo todo_due todo_completed \
user_created_time user_updated_time id".split()


def _folder(conn: sqlite3.Connection, title: str) -> str:
    """A notebook as AndroidWorld adds it (every field but deleted_time)."""
    fid = uuid.uuid4().hex
    values: dict[str, Any] = dict.fromkeys(FOLDER, "")
    values.update(title=title, id=fid, encryption_applied=0, is_shared=0)
    for k in ("created_time", "updated_time", "user_created_time", "user_updated_time"):
        values[k] = YESTERDAY
    values.pop("deleted_time")
    conn.execute(
        f"INSERT INTO folders ({', '.join(values)}) VALUES ({', '.join('?' * len(values))})", tuple(values.values())
    )
    return fid


def _note(conn: sqlite3.Connection, folder: str, title: str, body: str, todo: bool = False, done: bool = False) -> None:
    """A note as AndroidWorld adds it: its notes row (every field of its row type), then its notes_normalized row."""
    values: dict[str, Any] = {k: "" for k in NOTE}
    values.update({k: 0 for k in NOTE if k.endswith(("_time", "_due", "_completed", "is_todo", "is_conflict"))})
    values.update(latitude=0.0, longitude=0.0, altitude=0.0, order=0.0, encryption_applied=0, markup_language=1,
                  is_shared=0)  # fmt: skip
    values.update(
        parent_id=folder, title=title, body=body, is_todo=int(todo), todo_completed=int(done), id=uuid.uuid4().hex
    )
    for k in ("created_time", "updated_time", "user_created_time", "user_updated_time"):
        values[k] = YESTERDAY
    cols = ", ".join(f'"{k}"' for k in values)
    conn.execute(f"INSERT INTO notes ({cols}) VALUES ({', '.join('?' * len(values))})", tuple(values.values()))
    norm = {k: values[k] for k in NORMALIZED}
    norm["title"] = title.lower()
    conn.execute(
        f"INSERT INTO notes_normalized ({', '.join(norm)}) VALUES ({', '.join('?' * len(norm))})", tuple(norm.values())
    )


def test_listed_launchable_and_labelled(vdevice, adb_cli):
    s = vdevice.serial
    assert f"package:{PKG}" in sh(adb_cli, s, "pm list packages -3").split()
    dump = sh(adb_cli, s, f"dumpsys package {PKG}")
    assert "versionName=3.0.1" in dump and "versionCode=2097740" in dump
    resolved = sh(adb_cli, s, f"cmd package resolve-activity --brief -c android.intent.category.LAUNCHER {PKG}")
    assert resolved.strip().splitlines()[-1] == f"{PKG}/.MainActivity"
    sh(adb_cli, s, f"pm grant {PKG} android.permission.ACCESS_COARSE_LOCATION")  # AndroidWorld's set-up grants it
    sh(adb_cli, s, f"am start -n {PKG}/.MainActivity")
    assert focus(adb_cli, s) == f"{PKG}/{MAIN}"
    screen = sh(adb_cli, s, "uiautomator dump /dev/tty")
    assert 'text="All notes"' in screen and 'text="You currently have no notebooks."' in screen
    sh(adb_cli, s, "input keyevent KEYCODE_HOME")
    assert 'text="Joplin"' in sh(adb_cli, s, "uiautomator dump /dev/tty")


def test_the_database_pulled_changed_and_pushed_back_is_what_the_app_shows(posing_emulator, adb_cli, tmp_path: Path):
    _, s = posing_emulator
    root(adb_cli, s)
    sh(adb_cli, s, f"monkey -p {PKG} -c android.intent.category.LAUNCHER 1")
    local = tmp_path / "joplin.sqlite"
    assert adb_cli("-s", s, "pull", DB_PATH, str(local)).returncode == 0
    conn = sqlite3.connect(local)
    cols = {
        t: [r[1] for r in conn.execute(f"PRAGMA table_info({t})")] for t in ("folders", "notes", "notes_normalized")
    }
    assert sorted(cols["folders"]) == sorted(FOLDER)
    assert sorted(cols["notes"]) == sorted([*NOTE, "deleted_time"])  # the field AndroidWorld's note type leaves out
    assert sorted(cols["notes_normalized"]) == sorted(NORMALIZED)
    assert conn.execute("SELECT version FROM version").fetchone() == (46,)
    work = _folder(conn, "Work")
    _note(conn, work, "Project Proposal", "Finish the budget section.\n\n- Draft\n- Review")
    _note(conn, work, "Grocery List", "Buy milk.", todo=True)
    conn.commit()
    assert conn.execute("SELECT title FROM notes_fts WHERE notes_fts MATCH 'budget'").fetchall() == [
        ("project proposal",)
    ]
    conn.close()
    assert adb_cli("-s", s, "push", str(local), DB_PATH).returncode == 0
    sh(adb_cli, s, f"am force-stop {PKG}")
    sh(adb_cli, s, f"am start -n {PKG}/.MainActivity")
    screen = sh(adb_cli, s, "uiautomator dump /dev/tty")
    assert 'text="Work"' in screen and 'content-desc="to-do: Grocery List"' in screen  # the newest notebook
    assert screen.index('text="Grocery List"') < screen.index('text="Project Proposal"')  # the to-do on top
    rows = sh(adb_cli, s, f"sqlite3 {DB_PATH} 'SELECT title, is_todo FROM notes ORDER BY title'")
    assert rows.splitlines() == ["Grocery List|1", "Project Proposal|0"]


def test_a_notebook_and_notes_made_edited_and_trashed_through_the_ui_are_in_the_file(u2dev, vdevice, adb_cli):
    d, s = u2dev, vdevice.serial
    sh(adb_cli, s, f"monkey -p {PKG} 1")
    d(text="CREATE A NOTEBOOK").click()
    d(text="Enter notebook title").set_text("Home")
    d(description="Save changes").click()
    assert d(text="There are currently no notes. Create one by clicking on the (+) button.").exists
    [(folder_id, title)] = sqlite(adb_cli, s, DB_PATH, "SELECT id, title FROM folders")
    assert title == "Home" and len(folder_id) == 32
    d(description="Add new").click()
    d(description="New to-do").click()
    d(text="Add title").set_text("Fix the tap")
    d(text="Add body").set_text("Washer size 12")
    assert sqlite(adb_cli, s, DB_PATH, "SELECT title, body, is_todo, parent_id FROM notes") == [
        ["Fix the tap", "Washer size 12", "1", folder_id]  # saved as typed
    ]
    assert sqlite(adb_cli, s, DB_PATH, "SELECT title FROM notes_normalized") == [["fix the tap"]]
    d.press("back")
    if d(text="Washer size 12", className="android.widget.EditText").exists:  # the keyboard went first
        d.press("back")
    assert d(text="Washer size 12", className="android.widget.TextView").exists  # the body rendered
    d(description="Back").click()
    d(description="to-do: Fix the tap").click()
    assert int(sqlite(adb_cli, s, DB_PATH, "SELECT todo_completed FROM notes")[0][0]) > 0
    d(text="Fix the tap").click()
    d(description="Actions").click()
    d(text="Delete").click()
    assert int(sqlite(adb_cli, s, DB_PATH, "SELECT deleted_time FROM notes")[0][0]) > 0  # to the trash
    assert not d(text="Fix the tap").exists and d(text="Home").exists


# --- AndroidWorld's classes --------------------------------------------------------------------------------------
def _aw_device(notes: list[tuple[str, str, str, bool]]) -> VirtualDeviceModel:
    """The app started once, then its tables filled as AndroidWorld's set-up fills them, the app stopped."""
    m = VirtualDeviceModel()
    m.start_activity(PKG, MAIN)
    conn = open_bytes(m.fs.peek(DB_PATH) or b"")
    ids: dict[str, str] = {}
    for folder, title, body, todo in notes:
        if folder not in ids:
            ids[folder] = _folder(conn, folder)
        _note(conn, ids[folder], title, body, todo)
    conn.commit()
    m.fs.write(DB_PATH, to_bytes(conn))
    m.force_stop(PKG)
    m.go_home()
    return m


def _answer(m: VirtualDeviceModel, cls: str, **params: Any) -> str:
    task = make_task(f"AndroidWorld {cls}", outside={"suite": "androidworld", "class": cls, "params": params})
    steps = run(create_agent("reference"), m, task, max_steps=10)
    last = steps[-1].action
    assert isinstance(last, Answer), [s.action for s in steps]
    assert not any(s.invalid for s in steps), [s.error for s in steps if s.invalid]
    return str(last.text)


FILLER = [
    ("Recipes", "Pancake Notes", "Flour and milk.", False),
    ("Work", "Weekly Report", "Send on Friday.", True),
    ("Personal", "Travel Itinerary", "Rome, Florence.", False),
]


def test_the_note_a_question_names_is_opened_and_answered_from_its_parameters():
    body = "Meeting Minutes:\n- Presented sales performance metrics\n- 35 attendees were present\n"
    m = _aw_device([*FILLER, ("Meeting Notes", "Client Quarterly Review", body, False)])
    assert _answer(m, "NotesMeetingAttendeeCount", title="Client Quarterly Review", attendee_count="35") == "35"
    fg = m.foreground
    assert fg.package == PKG and any(v.text == "35 attendees were present" for r in m.view_roots() for v in r.walk())
    m = _aw_device([*FILLER, ("Finance", "Budget Spreadsheet", "Review chapter 5.", True)])
    assert _answer(m, "NotesIsTodo", title="Budget Spreadsheet", is_todo="True", folder="Finance") == "True"
    assert any(v.text == "Budget Spreadsheet" and v.cls.endswith("EditText") for r in m.view_roots() for v in r.walk())


def test_the_todos_of_a_notebook_are_counted_on_its_list():
    todos = [("Ideas", f"Idea {i}", "Something.", True) for i in range(3)]
    notes = [("Ideas", f"Plain {i}", "Text.", False) for i in range(12)]
    m = _aw_device([*FILLER, *notes, *todos, ("Home", "Chores", "Sweep.", True)])
    assert _answer(m, "NotesTodoItemCount", folder="Ideas", title="Idea 0") == "3"
    assert set(aw_joplin.SOLVERS) == {
        "NotesIsTodo", "NotesMeetingAttendeeCount", "NotesRecipeIngredientCount", "NotesTodoItemCount",
    }  # fmt: skip


# --- the family ---------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_familys_reference_makes_the_rows_its_end_state_reads(make_vdevice, adb_server, lang: str):
    vd = make_vdevice(locale=lang)
    task = next(t for t in family_tasks("joplin", 0, 6) if "param:kind=todo" in t.tags)
    checks = [e.check.state for e in task.end_state if e.check is not None and e.check.state is not None]
    assert [c.sqlite.table for c in checks if c.sqlite is not None] == ["folders", "notes"]
    dev = open_device(adb_server, vd, use_u2=False)
    try:
        state = DeviceState(dev.shell)
        assert not any(evaluate_state(c, state, lang).held for c in checks)
        steps = run(create_agent("reference"), vd.model, task, lang=lang, max_steps=task.max_steps)
        assert isinstance(steps[-1].action, Complete) and not any(s.invalid for s in steps)
        assert all(evaluate_state(c, state, lang).held for c in checks)
        other = "zh" if lang == "en" else "en"
        assert not any(evaluate_state(c, state, other).held for c in checks)  # the other language's texts
    finally:
        dev.close()
