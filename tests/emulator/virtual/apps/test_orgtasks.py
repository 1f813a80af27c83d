"""Tasks (org.tasks) driven as clients drive a phone: the real adb server for `pm`, `am`, `adb pull` / `adb push` of
the app's Room database and `sqlite3` over it, uiautomator2 for the screen; and AndroidWorld's Tasks classes solved
by the reference agent on the in-process device over rows shaped as AndroidWorld inserts them, at its date."""

from __future__ import annotations

import datetime as dt
import random
import sqlite3
import uuid
from pathlib import Path
from typing import Any

import pytest

from agents.aw import tasks as aw_tasks
from emulator.virtual.apps.orgtasks_data import DB, MAIN, PKG
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

RID = PKG + ":id/"
DB_PATH = f"/data/data/{PKG}/databases/database"
# AndroidWorld's row type for the table (sqlite_schema_utils.Task): its columns, in its order
AW_COLUMNS = (
    "title importance dueDate hideUntil created modified completed deleted notes estimatedSeconds elapsedSeconds "
    "timerStart notificationFlags lastNotified recurrence repeat_from calendarUri remoteId collapsed parent order "
    "read_only _id"
).split()
AW_NOW = dt.datetime(2023, 10, 15, 15, 34, tzinfo=dt.timezone.utc)  # AndroidWorld's device clock (UTC)


def _ms(day: str, time: str = "00:00") -> int:
    return (
        int(dt.datetime.strptime(f"{day} {time}", "%B %d %Y %H:%M").replace(tzinfo=dt.timezone.utc).timestamp()) * 1000
    )


def _insert(conn: sqlite3.Connection, title: str, importance: int = 2, due: int = 0, completed: int = 0,
            hide: int = 0, notes: str | None = None) -> None:  # fmt: skip
    """A row as AndroidWorld inserts it: every column but _id named, created a week's hours before the due date."""
    values: dict[str, Any] = {c: 0 for c in AW_COLUMNS if c != "_id"}
    values.update(title=title, importance=importance, dueDate=due, hideUntil=hide, completed=completed, notes=notes,
                  created=due - 7 * 3600, modified=due - 7 * 3600, remoteId=str(uuid.uuid4().int), recurrence=None,
                  calendarUri=None, order=None)  # fmt: skip
    cols = ", ".join(f'"{c}"' for c in values)
    conn.execute(f"INSERT INTO tasks ({cols}) VALUES ({', '.join('?' * len(values))})", tuple(values.values()))


def test_listed_launchable_and_labelled(vdevice, adb_cli):
    s = vdevice.serial
    assert f"package:{PKG}" in sh(adb_cli, s, "pm list packages -3").split()  # installed, not a system app
    dump = sh(adb_cli, s, f"dumpsys package {PKG}")
    assert "versionName=13.6.3" in dump and "versionCode=130605" in dump
    resolved = sh(adb_cli, s, f"cmd package resolve-activity --brief -c android.intent.category.LAUNCHER {PKG}")
    assert resolved.strip().splitlines()[-1] == f"{PKG}/com.todoroo.astrid.activity.MainActivity"
    sh(adb_cli, s, f"am start -n {PKG}/{MAIN}")  # how AndroidWorld opens it
    assert focus(adb_cli, s) == f"{PKG}/{MAIN}"
    screen = sh(adb_cli, s, "uiautomator dump /dev/tty")
    assert 'text="My Tasks"' in screen and 'text="There are no tasks here."' in screen
    assert 'content-desc="Create new task"' in screen and f'resource-id="{RID}fab"' in screen
    sh(adb_cli, s, "input keyevent KEYCODE_HOME")
    assert 'text="Tasks"' in sh(adb_cli, s, "uiautomator dump /dev/tty")


def test_the_database_pulled_changed_and_pushed_back_is_what_the_app_shows(posing_emulator, adb_cli, tmp_path: Path):
    """AndroidWorld's way in: pull the file, insert rows with sqlite3, push it back, force-stop; the app shows
    them (smart sort, dates as the app writes them) and its judge reads them back."""
    _, s = posing_emulator
    root(adb_cli, s)
    sh(adb_cli, s, f"monkey -p {PKG} 1")  # the first start makes the database
    local = tmp_path / "database"
    assert adb_cli("-s", s, "pull", DB_PATH, str(local)).returncode == 0
    conn = sqlite3.connect(local)
    tables = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    assert {"tasks", "alarms", "tags", "caldav_lists", "room_master_table", "android_metadata"} <= tables
    assert [r[1] for r in conn.execute("PRAGMA table_info(tasks)")] == ["_id", *AW_COLUMNS[:-1]]
    assert conn.execute("PRAGMA user_version").fetchone()[0] == 88
    assert (
        conn.execute("SELECT identity_hash FROM room_master_table").fetchone()[0] == "a2597380bdfaeeb040d40bab2fc653c1"
    )
    _insert(conn, "Pay rent", 0, _ms("June 4 2024", "19:00"), notes="Before noon")  # noon on the fixed clock (UTC-7)
    _insert(conn, "Water plants", 3, _ms("June 20 2024", "19:00"))
    conn.commit()
    conn.close()
    assert adb_cli("-s", s, "push", str(local), DB_PATH).returncode == 0
    sh(adb_cli, s, f"am force-stop {PKG}")
    sh(adb_cli, s, f"am start -n {PKG}/{MAIN}")
    screen = sh(adb_cli, s, "uiautomator dump /dev/tty")
    assert screen.index('text="Pay rent"') < screen.index('text="Water plants"')
    assert 'text="Before noon"' in screen and 'text="Tmrw"' in screen and 'text="Jun 20"' in screen
    rows = sh(adb_cli, s, f"sqlite3 {DB_PATH} 'SELECT title, importance FROM tasks ORDER BY _id'")
    assert rows.splitlines() == ["Pay rent|0", "Water plants|3"]


def test_a_task_created_completed_edited_and_deleted_through_the_ui_is_in_the_file(u2dev, vdevice, adb_cli):
    d, s = u2dev, vdevice.serial
    sh(adb_cli, s, f"monkey -p {PKG} 1")
    d(resourceId=RID + "fab").click()
    d(resourceId=RID + "title").set_text("Book flights")
    d(className="android.widget.RadioButton")[3].click()  # None, Low, Medium, High: high
    d(text="No due date").click()
    d(resourceId=RID + "tomorrow_button").click()
    d(resourceId=RID + "ok_button").click()
    assert d(text="Tomorrow").exists
    d(description="Save").click()
    [(title, importance, due, completed)] = sqlite(
        adb_cli, s, DB_PATH, "SELECT title, importance, dueDate, completed FROM tasks"
    )
    when = dt.datetime.fromtimestamp(int(due) / 1000, dt.timezone(dt.timedelta(hours=-7)))
    assert (title, importance, completed) == ("Book flights", "0", "0")
    assert (when.date(), when.hour, when.minute, when.second) == (dt.date(2024, 6, 4), 12, 0, 0)  # a day: noon
    assert (
        d(resourceId=RID + "title", text="Book flights").exists and d(resourceId=RID + "due_date").get_text() == "Tmrw"
    )
    d(resourceId=RID + "completeBox").click()
    assert int(sqlite(adb_cli, s, DB_PATH, "SELECT completed FROM tasks")[0][0]) > 0
    d(resourceId=RID + "title", text="Book flights").click()
    assert d(textStartsWith="Completion ").exists  # the info row's completion date
    d(resourceId=RID + "title").set_text("Book trains")
    d.press("back")
    if not d(text="Keep editing").exists:  # the first BACK put the keyboard away
        d.press("back")
    assert d(text="Are you sure you want to discard your changes?").exists
    d(text="Keep editing").click()
    d(description="Save").click()
    assert sqlite(adb_cli, s, DB_PATH, "SELECT title FROM tasks") == [["Book trains"]]
    d(resourceId=RID + "title", text="Book trains").click()
    d(description="Delete task").click()
    d(text="OK").click()
    assert int(sqlite(adb_cli, s, DB_PATH, "SELECT deleted FROM tasks")[0][0]) > 0  # marked deleted, as the app does
    assert d(text="There are no tasks here.").exists


# --- AndroidWorld's classes --------------------------------------------------------------------------------------
RANDOM_TITLES = ("Grocery Shopping", "Water Plants", "Call Grandma", "Change Air Filter", "Organize Closet",
                 "Reply to Emails", "Clean Out Fridge", "Take Dog to the Vet")  # fmt: skip


def _aw_device(answers: list[dict[str, Any]], excluded: Any, seed: int) -> VirtualDeviceModel:
    """AndroidWorld's set-up at its date: the class's tasks and 20 random ones (due within a week of its date,
    started a few days before, half of them completed a fortnight ago) none of which `excluded` rules out."""
    rng = random.Random(seed)
    m = VirtualDeviceModel()
    m.props["persist.sys.timezone"] = "UTC"
    m.clock_offset = AW_NOW.timestamp() - m.clock.time()
    m.start_activity(PKG, MAIN)
    conn = open_bytes(m.fs.peek(DB_PATH) or b"")
    rows = list(answers)
    while len(rows) < len(answers) + 20:
        due = AW_NOW - dt.timedelta(days=7) + dt.timedelta(minutes=rng.randrange(14 * 24 * 60))
        hide = due - dt.timedelta(days=6) + dt.timedelta(minutes=rng.randrange(5 * 24 * 60) - 2.5 * 24 * 60)
        done = AW_NOW - dt.timedelta(days=21) + dt.timedelta(minutes=rng.randrange(14 * 24 * 60))
        row = {"title": rng.choice(RANDOM_TITLES), "importance": rng.randrange(4), "due": due,
               "hide": hide, "completed": done if rng.random() < 0.5 else None}  # fmt: skip
        if not excluded(row):
            rows.append(row)
    rng.shuffle(rows)
    for r in rows:
        ms = [int(r[k].timestamp() * 1000) if r.get(k) else 0 for k in ("due", "hide", "completed")]
        _insert(conn, r["title"], r.get("importance", 2), ms[0], ms[2], ms[1], "Some notes.")
    conn.commit()
    m.fs.write(DB_PATH, to_bytes(conn))
    m.force_stop(PKG)
    m.go_home()
    return m


def _day(text: str) -> dt.datetime:
    return dt.datetime.strptime(text, "%B %d %Y").replace(tzinfo=dt.timezone.utc)


def _answer(m: VirtualDeviceModel, cls: str, **params: Any) -> str:
    task = make_task(f"AndroidWorld {cls}", outside={"suite": "androidworld", "class": cls, "params": params})
    steps = run(create_agent("reference"), m, task, max_steps=12 if cls == "TasksDueNextWeek" else 10)
    last = steps[-1].action
    assert isinstance(last, Answer), [s.action for s in steps]
    assert not any(s.invalid for s in steps), [s.error for s in steps if s.invalid]
    return str(last.text)


TITLES = ["Review code changes", "Plan team outing", "Draft marketing email"]


@pytest.mark.parametrize("date", ["October 12 2023", "October 15 2023", "October 19 2023", "October 27 2023"])
def test_tasks_due_or_completed_on_a_date_are_read_off_the_grouped_list(date: str):
    day = _day(date)
    due = [{"title": t, "due": day, "importance": i, "hide": day - dt.timedelta(days=5)} for i, t in enumerate(TITLES)]
    m = _aw_device(due, lambda r: r["due"].date() == day.date(), seed=len(date))
    if day.date() >= AW_NOW.date():
        assert sorted(_answer(m, "TasksDueOnDate", date=date).split(", ")) == sorted(TITLES)
    done = [{**r, "completed": AW_NOW - dt.timedelta(hours=5 + i)} for i, r in enumerate(due)]
    m = _aw_device(done, lambda r: r["due"].date() == day.date(), seed=len(date) + 1)
    assert sorted(_answer(m, "TasksCompletedTasksForDate", date=date).split(", ")) == sorted(TITLES)


def test_incomplete_tasks_by_a_date_and_next_weeks_count():
    day = _day("October 18 2023")
    due = [{"title": t, "due": day, "hide": day - dt.timedelta(days=6)} for t in TITLES]
    m = _aw_device(due, lambda r: r["due"].date() <= day.date() and r["completed"] is None, seed=3)
    assert sorted(_answer(m, "TasksIncompleteTasksOnDate", date="October 18 2023").split(", ")) == sorted(TITLES)
    week = [{"title": f"Task {i}", "due": _day(f"October {16 + i} 2023")} for i in range(6)]
    m = _aw_device(week, lambda r: dt.date(2023, 10, 16) <= r["due"].date() <= dt.date(2023, 10, 22), seed=4)
    assert _answer(m, "TasksDueNextWeek") == "6"


def test_the_high_priority_classes_answer_their_titles():
    m = _aw_device([], lambda r: False, seed=5)
    assert _answer(m, "TasksHighPriorityTasks", task_title="Plan team outing") == "Plan team outing"
    assert _answer(m, "TasksHighPriorityTasksDueOnDate", title="Code Review", date="October 20 2023") == "Code Review"
    assert set(aw_tasks.SOLVERS) == {
        "TasksCompletedTasksForDate", "TasksDueNextWeek", "TasksDueOnDate", "TasksHighPriorityTasks",
        "TasksHighPriorityTasksDueOnDate", "TasksIncompleteTasksOnDate",
    }  # fmt: skip
    assert DB.name == "database"


# --- the family ---------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_familys_reference_adds_the_row_its_end_state_reads(make_vdevice, adb_server, lang: str):
    """An instance's reference played on a fresh install; its end state read from the database through the real
    adb server's shell (sqlite3 through su 0, as the shell user may not open the app's file) holds, in the
    instance's language only; before the reference it does not."""
    vd = make_vdevice(locale=lang)
    task = next(t for t in family_tasks("orgtasks", 0, 6) if "param:due=tomorrow" in t.tags)
    (end,) = task.end_state
    assert end.check is not None and end.check.state is not None and end.check.state.sqlite is not None
    dev = open_device(adb_server, vd, use_u2=False)
    try:
        state = DeviceState(dev.shell)
        assert not evaluate_state(end.check.state, state, lang).held
        steps = run(create_agent("reference"), vd.model, task, lang=lang, max_steps=task.max_steps)
        assert isinstance(steps[-1].action, Complete) and not any(s.invalid for s in steps)
        assert evaluate_state(end.check.state, state, lang).held
        other = "zh" if lang == "en" else "en"
        assert not evaluate_state(end.check.state, state, other).held  # the other language's title
    finally:
        dev.close()
