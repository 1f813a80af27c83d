"""Simple Calendar Pro driven as clients drive a phone: the real adb server (the adbutils wheel's adb) for `am`,
`pull`, `push`, `pm grant`; uiautomator2 (unmodified) for the screen. Its database events.db is read and written
as AndroidWorld does: pulled, changed with Python's sqlite3, pushed back, the app force-stopped."""

from __future__ import annotations

import datetime as dt
import sqlite3
import zoneinfo
from pathlib import Path

import pytest

from agents.androidworld_reference import plan
from tasks.families.registry import family_tasks
from tests.emulator.virtual.apps.devshell import sh

pytest.importorskip("uiautomator2")

PKG = "com.simplemobiletools.calendar.pro"
RID = PKG + ":id/"
DB = f"/data/data/{PKG}/databases/events.db"
LA = zoneinfo.ZoneInfo("America/Los_Angeles")  # the virtual device's zone; its fixed date is Monday June 3 2024


def _pull(adb_cli, serial: str, tmp_path: Path) -> Path:
    """As AndroidWorld pulls it, adbd as root (`adb root`)."""
    adb_cli("-s", serial, "root")
    adb_cli("-s", serial, "wait-for-device")
    local = tmp_path / "events.db"
    local.unlink(missing_ok=True)
    r = adb_cli("-s", serial, "pull", DB, str(local))
    assert r.returncode == 0, r.stderr
    return local


def _rows(path: Path, sql: str = "SELECT * FROM events") -> list[dict]:
    conn = sqlite3.connect(path)
    conn.row_factory = sqlite3.Row
    try:
        return [dict(r) for r in conn.execute(sql)]
    finally:
        conn.close()


def _launch(adb_cli, serial: str, d) -> None:
    sh(adb_cli, serial, "settings put system time_12_24 24")  # as the harness prepares devices
    sh(adb_cli, serial, f"am start -n {PKG}/.activities.MainActivity")
    assert d(resourceId=RID + "calendar_fab").wait(timeout=5)


@pytest.fixture
def vdevice(make_vdevice):
    """The emulator's userdebug image, as AndroidWorld runs on (`adb root` works); `u2dev` is on it too."""
    return make_vdevice(image="emulator")


def test_database_in_the_real_schema_and_a_pushed_event_shown(vdevice, adb_cli, u2dev, tmp_path):
    d, s = u2dev, vdevice.serial
    _launch(adb_cli, s, d)
    local = _pull(adb_cli, s, tmp_path)
    tables = {r["name"] for r in _rows(local, "SELECT name FROM sqlite_master WHERE type = 'table'")}
    assert {"events", "event_types", "widgets", "tasks", "room_master_table", "android_metadata"} <= tables
    assert _rows(local, "SELECT identity_hash FROM room_master_table") == [
        {"identity_hash": "1d5b2fddcb258e43f2935820863057a9"}
    ]
    assert _rows(local, "SELECT id, title FROM event_types") == [{"id": 1, "title": "Regular event"}]
    assert _rows(local, "PRAGMA user_version") == [{"user_version": 8}]
    # AndroidWorld's way: insert with sqlite3, push back, force-stop
    start = int(dt.datetime(2024, 6, 5, 14, 0, tzinfo=LA).timestamp())
    conn = sqlite3.connect(local)
    conn.execute(
        "INSERT INTO events (start_ts, end_ts, title, location, description, reminder_1_minutes, reminder_2_minutes,"
        " reminder_3_minutes, reminder_1_type, reminder_2_type, reminder_3_type, repeat_interval, repeat_rule,"
        " repeat_limit, repetition_exceptions, attendees, import_id, time_zone, flags, event_type, parent_id,"
        " last_updated, source, availability, color, type) VALUES (?, ?, 'Budget review', 'Room 4', 'Q3 numbers',"
        " -1, -1, -1, 0, 0, 0, 0, 0, 0, '[]', '', '', 'UTC', 0, 1, 0, 0, 'imported-ics', 0, 0, 0)",
        (start, start + 3600),
    )
    conn.commit()
    conn.close()
    assert adb_cli("-s", s, "push", str(local), DB).returncode == 0
    sh(adb_cli, s, f"am force-stop {PKG}")
    _launch(adb_cli, s, d)
    # the pushed row is what the daily view of June 5 lists (the grid starts on Sunday May 26)
    d(resourceId=RID + "month_view_background", instance=10).click()
    assert d(resourceId=RID + "top_value", text="June 5 (Wed)").wait(timeout=3)
    assert d(resourceId=RID + "event_item_title", text="Budget review").exists
    assert d(resourceId=RID + "event_item_time").get_text() == "14:00 - 15:00"
    assert d(resourceId=RID + "event_item_description").get_text() == "Q3 numbers"
    # AndroidWorld's grants take (the manifest's permissions)
    sh(adb_cli, s, f"pm grant {PKG} android.permission.POST_NOTIFICATIONS")


def test_event_created_and_deleted_through_the_ui_lands_in_the_file(vdevice, adb_cli, u2dev, tmp_path):
    d, s = u2dev, vdevice.serial
    _launch(adb_cli, s, d)
    d(resourceId=RID + "calendar_fab").click()
    d(resourceId=RID + "fab_event_label").click()
    assert d(resourceId=RID + "event_title").wait(timeout=3)
    d(resourceId=RID + "event_title").set_text("Piano lesson")
    d(resourceId=RID + "event_location").set_text("Studio 2")
    d(resourceId=RID + "event_start_date").click()
    d(description="12 June 2024").click()
    d(resourceId="android:id/button1").click()
    d(resourceId=RID + "event_start_time").click()
    d(description="9").click()  # the 24-hour face: 9, then the minutes
    d(description="30").click()
    d(resourceId="android:id/button1").click()
    d(resourceId=RID + "event_end_time").click()
    d(description="10").click()
    d(description="15").click()
    d(resourceId="android:id/button1").click()
    d(resourceId=RID + "event_repetition").click()
    d(text="Weekly", className="android.widget.RadioButton").click()
    assert d(resourceId=RID + "event_repetition_rule").get_text() == "Wed"
    d(resourceId=RID + "save").click()
    assert d(resourceId="android:id/button1", text="OK").wait(timeout=3)  # the reminders' disclaimer, once
    d(resourceId="android:id/button1", text="OK").click()
    assert d(resourceId=RID + "calendar_fab").wait(timeout=3)
    rows = _rows(_pull(adb_cli, s, tmp_path))
    assert len(rows) == 1
    row = rows[0]
    start = int(dt.datetime(2024, 6, 12, 9, 30, tzinfo=LA).timestamp())
    assert (row["title"], row["location"], row["start_ts"], row["end_ts"]) == (
        "Piano lesson",
        "Studio 2",
        start,
        start + 45 * 60,
    )
    assert (row["repeat_interval"], row["repeat_rule"], row["reminder_1_minutes"]) == (604800, 4, 10)
    assert (row["source"], row["event_type"], row["time_zone"]) == ("simple-calendar", 1, "America/Los_Angeles")
    # a week later it repeats: June 19's daily view lists it; opened there, deleted with all its occurrences
    d(resourceId=RID + "month_view_background", instance=24).click()
    assert d(resourceId=RID + "top_value", text="June 19 (Wed)").wait(timeout=3)
    d(resourceId=RID + "event_item_title", text="Piano lesson").click()
    assert d(resourceId=RID + "delete").wait(timeout=3)
    d(resourceId=RID + "delete").click()
    d(resourceId=RID + "delete_event_all").click()
    d(resourceId="android:id/button1", text="Yes").click()
    assert d(resourceId=RID + "day_events").wait(timeout=3)
    assert not d(resourceId=RID + "event_item_title").exists
    assert _rows(_pull(adb_cli, s, tmp_path)) == []


def test_family_and_solvers():
    tasks = family_tasks("calendar", 0, 3)
    assert len({t.id for t in tasks}) == 3
    assert all(t.apps == (PKG,) or PKG in t.apps for t in tasks)
    params = {
        "year": 2023,
        "month": 10,
        "day": 31,
        "hour": 23,
        "duration_mins": 60,
        "event_title": "Call with HR",
        "event_description": "We will plan.",
        "repeat_rule": "weekly",
    }
    steps = plan({"suite": "androidworld", "class": "SimpleCalendarAddRepeatingEvent", "params": params})
    assert steps and any("event_end_date" in str(s) for s in steps)  # ends on November 1
    rows = ["CalendarEvent(start_ts=1697450400, end_ts=1697454000, title='Meeting with Bob', location='')"]
    steps = plan(
        {"suite": "androidworld", "class": "SimpleCalendarDeleteEvents", "params": {**params, "row_objects": rows}}
    )
    assert steps and "Meeting with Bob" in str(steps)
    for name in ("SimpleCalendarNextMeetingWithPerson", "SimpleCalendarLocationOfEvent"):
        p = {"date": "tomorrow", "time": "9:15pm", "title": "Concert", "location": "Mall", "person": "Ava"}
        assert plan({"suite": "androidworld", "class": name, "params": p})
