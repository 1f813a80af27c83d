"""OpenTracks (de.dennisguse.opentracks) driven as clients drive a phone: the real adb server for `pm`, `am`, `adb pull`
/ `adb push` of the app's SQLite database and `sqlite3` over it, uiautomator2 for the screen, AndroidWorld's one-time
set-up (the permission prompts it answers after force-stopping the app); the permission prompts themselves; the
AndroidWorld SportsTracker classes solved by the reference agent on the in-process device over rows inserted as
AndroidWorld inserts them, at its date; the opentracks-record family."""

from __future__ import annotations

import datetime as dt
import re
import sqlite3
import uuid
from pathlib import Path
from typing import Any

import pytest

from agents.aw import opentracks as aw_opentracks
from emulator.virtual.apps.opentracks_data import DB, PKG, TRACK_LIST
from emulator.virtual.model import VirtualDeviceModel
from emulator.virtual.sqlitefile import open_bytes, to_bytes
from emulator.virtual.ui.permissionprompt import granted
from harness.actions import Answer, Complete
from harness.device.state import DeviceState
from harness.plugins import create_agent
from harness.run.judge.state_check import evaluate_state
from tasks.families.registry import family_tasks
from tests.agents_helpers import make_task, run
from tests.device_util import open_device
from tests.emulator.virtual.apps.devshell import focus, pull_db, push_db, root, sh, sqlite, uiautomator
from tests.ui_helpers import exists, find, tap, views

u2 = pytest.importorskip("uiautomator2")

DB_PATH = DB.path
RID = PKG + ":id/"
P = "android.permission."
AW_NOW = dt.datetime(2023, 10, 15, 15, 34, tzinfo=dt.timezone.utc)  # AndroidWorld's device time
# AndroidWorld's row type (sqlite_schema_utils.SportsActivity): its fields, all written but _id
FIELDS = "name description category activity_type starttime stoptime numpoints totaldistance totaltime \
movingtime avgspeed avgmovingspeed maxspeed minelevation maxelevation elevationgain icon uuid elevationloss \
starttime_offset".split()


def _row(name: str, category: str, start: dt.datetime, minutes: int, meters: int, description: str = "") -> dict:
    """A track as AndroidWorld's activity_app_utils writes it."""
    ms = int(start.timestamp() * 1000)
    total = minutes * 60_000
    row: dict[str, Any] = dict.fromkeys(FIELDS, 0)
    row.update(name=name, description=description, category=category, activity_type=category, starttime=ms,
               stoptime=ms + total, totaldistance=float(meters), totaltime=total, movingtime=total, icon=None,
               uuid=uuid.uuid4().bytes, avgspeed=meters / (total * 1000), avgmovingspeed=meters / (total * 1000),
               elevationgain=120, elevationloss=80)  # fmt: skip
    return row


def _insert(conn: sqlite3.Connection, rows: list[dict]) -> None:
    for r in rows:
        conn.execute(f"INSERT INTO tracks ({', '.join(r)}) VALUES ({', '.join('?' * len(r))})", tuple(r.values()))
    conn.commit()


def _day(day: int, hour: int = 9, month: int = 10) -> dt.datetime:
    return dt.datetime(2023, month, day, hour, 0, tzinfo=dt.timezone.utc)


TRACKS = [
    _row("Trail Run", "running", _day(14, 7), 45, 6437, "Shared laughs and made memories with friends."),
    _row("Bike Tour", "biking", _day(13), 90, 20117),
    _row("Road Cycling", "biking", _day(12), 60, 15000),  # a name that matches a search for "cycling"
    _row("Lake Kayaking", "kayaking", _day(11), 75, 4000),
    _row("Scenic Cycling", "cycling", _day(10, 6), 50, 12875),
    _row("Evening Stroll", "walking", _day(8), 30, 2414),
    _row("Ski Trip", "skiing", _day(5), 120, 9656),
    _row("Pool Swim", "swimming", _day(3), 40, 1207),
    _row("Morning Run", "running", _day(1), 35, 5000),
    _row("Powder Day", "snow boarding", _day(9, 14), 150, 8047),
    _row("Laps around the lake", "cycling", _day(12, 17), 105, 9656),
    _row("Quick outing", "cycling", _day(9, 8), 20, 3219),
]


# --- through adb: AndroidWorld's set-up, the database round trip, the UI's changes in the file --------------------
def _tap_text(adb_cli: Any, serial: str, text: str) -> None:
    """`input tap` at the centre of the element `uiautomator dump` shows with that text."""
    screen = sh(adb_cli, serial, "uiautomator dump /dev/tty")
    m = re.search(rf'text="{re.escape(text)}"[^>]*bounds="\[(\d+),(\d+)\]\[(\d+),(\d+)\]"', screen)
    assert m, screen
    x0, y0, x1, y1 = map(int, m.groups())
    sh(adb_cli, serial, f"input tap {(x0 + x1) // 2} {(y0 + y1) // 2}")


def test_androidworlds_setup_answers_the_prompt_left_up_and_its_pushed_rows_are_listed(
    make_posing_emulator, adb_cli, tmp_path: Path
):
    _, s = make_posing_emulator()
    root(adb_cli, s)
    assert f"package:{PKG}" in sh(adb_cli, s, "pm list packages -3").split()
    dump = sh(adb_cli, s, f"dumpsys package {PKG}")
    assert "versionName=v4.11.3" in dump and "versionCode=5705" in dump
    resolved = sh(adb_cli, s, f"cmd package resolve-activity --brief -c android.intent.category.LAUNCHER {PKG}")
    assert resolved.strip().splitlines()[-1] == f"{PKG}/.TrackListActivity"
    # OpenTracksApp.setup: launched and stopped, three permissions granted, then "Allow" on the prompt still up
    sh(adb_cli, s, f"am start -n {PKG}/.TrackListActivity")
    sh(adb_cli, s, f"am force-stop {PKG}")
    for p in ("ACCESS_COARSE_LOCATION", "ACCESS_FINE_LOCATION", "POST_NOTIFICATIONS"):
        sh(adb_cli, s, f"pm grant {PKG} {P}{p}")
    assert "determine the relative position of nearby devices?" in sh(adb_cli, s, "uiautomator dump /dev/tty")
    _tap_text(adb_cli, s, "Allow")
    assert "permissioncontroller" not in sh(adb_cli, s, "uiautomator dump /dev/tty")
    granted_now = sh(adb_cli, s, f"dumpsys package {PKG} | grep BLUETOOTH_SCAN")
    assert "granted=true" in granted_now
    sh(adb_cli, s, f"am start -n {PKG}/.TrackListActivity")
    assert focus(adb_cli, s) == f"{PKG}/{TRACK_LIST}"
    screen = sh(adb_cli, s, "uiautomator dump /dev/tty")
    assert 'text="Start recording your next adventure here"' in screen and "permissioncontroller" not in screen
    # the database pulled, filled as AndroidWorld fills it, pushed back
    conn = pull_db(adb_cli, s, DB_PATH, tmp_path / "database.db")
    assert {r[1] for r in conn.execute("PRAGMA table_info(tracks)")} == {*FIELDS, "_id"}
    assert conn.execute("PRAGMA user_version").fetchone()[0] == 37
    tables = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    assert tables >= {"tracks", "trackpoints", "markers", "android_metadata"}
    _insert(conn, [TRACKS[0], TRACKS[1]])
    conn.close()
    push_db(adb_cli, s, tmp_path / "database.db", DB_PATH, PKG)
    sh(adb_cli, s, f"am start -n {PKG}/.TrackListActivity")
    screen = sh(adb_cli, s, "uiautomator dump /dev/tty")
    assert screen.index('text="Trail Run"') < screen.index('text="Bike Tour"')  # newest first
    assert 'text="45:00 (4.00 mi)"' in screen  # en-US: imperial
    rows = sqlite(adb_cli, s, DB_PATH, "SELECT name, totaltime FROM tracks ORDER BY _id")
    assert rows == [["Trail Run", "2700000"], ["Bike Tour", "5400000"]]


@pytest.mark.slow
def test_a_track_edited_and_one_deleted_through_the_ui_are_so_in_the_file(
    make_posing_emulator, adb_server, adb_cli, tmp_path: Path
):
    _, s = make_posing_emulator()
    root(adb_cli, s)
    for p in ("ACCESS_COARSE_LOCATION", "ACCESS_FINE_LOCATION", "BLUETOOTH_SCAN", "BLUETOOTH_CONNECT"):
        sh(adb_cli, s, f"pm grant {PKG} {P}{p}")
    sh(adb_cli, s, f"pm grant {PKG} {P}POST_NOTIFICATIONS")
    sh(adb_cli, s, f"am start -n {PKG}/.TrackListActivity")  # nothing left to ask
    conn = pull_db(adb_cli, s, DB_PATH, tmp_path / "database.db")
    _insert(conn, [TRACKS[0], TRACKS[1]])
    conn.close()
    push_db(adb_cli, s, tmp_path / "database.db", DB_PATH, PKG)
    sh(adb_cli, s, f"am start -n {PKG}/.TrackListActivity")
    with uiautomator(adb_server, s) as d:
        d(text="Bike Tour").long_click()
        assert d(description="Share").exists and d(description="Done").exists
        d(description="More options").click()
        d(text="Edit").click()
        d(resourceId=RID + "track_edit_name").set_text("Bike Tour 2")
        d(resourceId=RID + "track_edit_activity_type").set_text("road biking")
        d(resourceId=RID + "track_edit_save").click()
        rows = sqlite(adb_cli, s, DB_PATH, "SELECT name, category, activity_type FROM tracks ORDER BY _id")
        assert rows == [["Trail Run", "running", "running"], ["Bike Tour 2", "road biking", "road biking"]]
        d(text="Trail Run").click()
        assert d(resourceId=RID + "stats_total_time_value", text="45:00").exists
        d(description="More options").click()
        d(text="Delete").click()
        d(text="OK").click()
        assert sqlite(adb_cli, s, DB_PATH, "SELECT name FROM tracks") == [["Bike Tour 2"]]


# --- the permission prompts ---------------------------------------------------------------------------------------
def _prompt(m: VirtualDeviceModel) -> str | None:
    return next((v.text for v in views(m) if v.resource_id.endswith("permission_message")), None)


def test_the_first_start_asks_group_by_group_and_what_is_granted_or_denied_sticks():
    m = VirtualDeviceModel()
    m.start_activity(PKG)
    assert _prompt(m) == "Allow OpenTracks to access this device\u2019s location?"
    assert exists(m, text="While using the app") and exists(m, text="Only this time")
    tap(m, text="While using the app")
    assert str(_prompt(m)).startswith("Allow OpenTracks to find, connect to")
    tap(m, text="Don\u2019t allow")
    assert _prompt(m) == "Allow OpenTracks to send you notifications?"
    tap(m, text="Allow")
    assert _prompt(m) is None and exists(m, text="Start recording your next adventure here")
    assert granted(m, PKG) == {P + "ACCESS_FINE_LOCATION", P + "ACCESS_COARSE_LOCATION", P + "POST_NOTIFICATIONS"}
    m.force_stop(PKG)  # nearby devices denied once: asked again at the next start
    m.start_activity(PKG)
    assert "nearby devices" in str(_prompt(m))
    tap(m, text="Don\u2019t allow")
    m.force_stop(PKG)
    m.start_activity(PKG)
    assert _prompt(m) is None  # don't ask again
    m.clear_data(PKG)  # pm clear: the runtime permissions reset with the data
    m.start_activity(PKG)
    assert _prompt(m) == "Allow OpenTracks to access this device\u2019s location?"
    m.key(4)  # BACK cancels the request
    assert _prompt(m) is None


# --- AndroidWorld's classes ---------------------------------------------------------------------------------------
def _aw_device(rows: list[dict]) -> VirtualDeviceModel:
    """AndroidWorld's date and zone, the app set up (its permissions granted), its rows inserted, the app stopped."""
    m = VirtualDeviceModel()
    m.props["persist.sys.timezone"] = "UTC"
    m.clock_offset = AW_NOW.timestamp() - m.clock.time()
    m.start_activity(PKG)
    for label in ("While using the app", "Allow", "Allow"):
        tap(m, text=label)
    conn = open_bytes(m.fs.peek(DB_PATH) or b"")
    _insert(conn, rows)
    m.fs.write(DB_PATH, to_bytes(conn))
    m.force_stop(PKG)
    m.go_home()
    return m


def _answer(m: VirtualDeviceModel, cls: str, budget: int = 10, **params: Any) -> str:
    task = make_task(f"AndroidWorld {cls}", outside={"suite": "androidworld", "class": cls, "params": params})
    steps = run(create_agent("reference"), m, task, max_steps=budget)
    last = steps[-1].action
    assert isinstance(last, Answer), [s.action for s in steps]
    assert not any(s.invalid for s in steps), [s.error for s in steps if s.invalid]
    return str(last.text)


def test_the_list_shows_androidworlds_rows_as_the_app_formats_them():
    m = _aw_device(TRACKS)
    m.start_activity(PKG)
    rows = [v.text for v in views(m) if v.resource_id == RID + "track_list_item_date"]
    assert rows[:4] == ["Yesterday", "Friday", "Thursday", "Thursday"]  # Oct 14, 13, 12 (17:00), 12 (09:00)
    assert find(m, text="Trail Run") and exists(m, text="45:00 (4.00 mi)") and exists(m, text="07:00")
    m.swipe(500, 1800, 500, 300, 300)
    assert exists(m, text="8 Oct") or exists(m, text="5 Oct")


def test_the_categories_of_a_day_are_read_off_the_selections_aggregated_stats():
    m = _aw_device(TRACKS)
    answer = _answer(m, "SportsTrackerActivitiesOnDate", budget=20, date="October 12 2023")
    assert sorted(answer.split(", ")) == ["biking", "cycling"]
    assert m.foreground.activity.endswith("AggregatedStatisticsActivity")


@pytest.mark.parametrize(
    ("cls", "params", "want"),
    [
        ("SportsTrackerActivitiesCountForWeek", {"category": "cycling"}, "3"),  # Oct 12, 10, 9: not biking's
        ("SportsTrackerTotalDurationForCategoryThisWeek", {"category": "cycling"}, str(105 + 50 + 20)),
        ("SportsTrackerTotalDistanceForCategoryOverInterval",
         {"category": "running", "start_date": "October 1 2023", "end_date": "October 14 2023"}, "11437"),
        ("SportsTrackerActivityDuration", {"category": "snow boarding", "date": "October 9 2023", "duration": "150"},
         "150"),
        ("SportsTrackerLongestDistanceActivity", {"category": "cycling", "distance": "12875"}, "12875"),
    ],
)  # fmt: skip
def test_a_categorys_tracks_are_searched_and_read(cls: str, params: dict[str, str], want: str):
    m = _aw_device(TRACKS)
    budget = 20 if cls.endswith("Interval") else 10
    got = _answer(m, cls, budget=budget, **params)
    assert abs(float(got) - float(want)) < 10, got


def test_the_solvers_cover_androidworlds_opentracks_classes():
    assert set(aw_opentracks.SOLVERS) == {
        "SportsTrackerActivitiesOnDate", "SportsTrackerActivitiesCountForWeek", "SportsTrackerActivityDuration",
        "SportsTrackerLongestDistanceActivity", "SportsTrackerTotalDurationForCategoryThisWeek",
        "SportsTrackerTotalDistanceForCategoryOverInterval",
    }  # fmt: skip
    assert aw_opentracks.label_day("Monday") == dt.date(2023, 10, 9)
    assert aw_opentracks.label_day("8 Oct") == dt.date(2023, 10, 8)
    assert aw_opentracks.minutes("1:45:00") == 105 and aw_opentracks.aw_meters("5000") == 5005


# --- the family ---------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_familys_reference_records_the_track_its_end_state_reads(make_vdevice, adb_server, lang: str):
    vd = make_vdevice(locale=lang)
    task = family_tasks("opentracks-record", 0, 1)[0]
    checks = [e.check.state for e in task.end_state if e.check is not None and e.check.state is not None]
    dev = open_device(adb_server, vd, use_u2=False)
    try:
        state = DeviceState(dev.shell)
        assert not any(evaluate_state(c, state, lang).held for c in checks)
        steps = run(create_agent("reference"), vd.model, task, lang=lang, max_steps=task.max_steps)
        assert isinstance(steps[-1].action, Complete) and not any(s.invalid for s in steps)
        assert all(evaluate_state(c, state, lang).held for c in checks)
    finally:
        dev.close()
