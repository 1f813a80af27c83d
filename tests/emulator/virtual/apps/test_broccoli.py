"""Broccoli driven as clients drive a phone: the real adb server (the adbutils wheel's adb) for `pm`, `am`,
`dumpsys`, `adb root` and `adb pull` / `adb push` of the app's Room database, uiautomator2 (unmodified) for the
screen. What the app wrote is read back from its database file as AndroidWorld's judges read it (the device posing as
its emulator, adbd as root): pulled, opened with Python's sqlite3; rows go in as its set-up puts them (pulled,
inserted, the databases directory emptied, pushed back, the app force-stopped)."""

from __future__ import annotations

import sqlite3
import time
from pathlib import Path

import pytest

from harness.device.state import DeviceState
from harness.run.judge.state_check import evaluate_state
from tasks.state_checks import StateCheck
from tests.device_util import open_device

u2 = pytest.importorskip("uiautomator2")

PKG = "com.flauschcode.broccoli"
RID = PKG + ":id/"
DB_DIR = f"/data/data/{PKG}/databases"
DB = f"{DB_DIR}/broccoli"
COLUMNS = ("title", "description", "servings", "preparationTime", "source", "ingredients", "directions", "favorite")


def _sh(adb_cli, serial: str, line: str) -> str:
    r = adb_cli("-s", serial, "shell", line)
    assert r.returncode == 0, r.stderr
    return r.stdout.decode() + r.stderr.decode()


def _focus(adb_cli, serial: str) -> str:
    return _sh(adb_cli, serial, "dumpsys window | grep mCurrentFocus").split()[-1].rstrip("}")


def _launch(adb_cli, serial: str) -> None:
    _sh(adb_cli, serial, f"am start -n {PKG}/{PKG}.MainActivity")  # AndroidWorld's adb_utils.launch_app


def _pull(adb_cli, serial: str, tmp_path: Path) -> sqlite3.Connection:
    local = tmp_path / "broccoli"
    local.unlink(missing_ok=True)
    r = adb_cli("-s", serial, "pull", DB, str(local))
    assert r.returncode == 0, r.stderr
    conn = sqlite3.connect(local)
    conn.row_factory = sqlite3.Row
    return conn


def _push(adb_cli, serial: str, local: Path) -> None:
    """As AndroidWorld's controller pushes a database: the directory emptied, the file pushed, the app stopped."""
    _sh(adb_cli, serial, f"rm -r {DB_DIR}/*")
    r = adb_cli("-s", serial, "push", str(local), DB)
    assert r.returncode == 0, r.stderr
    _sh(adb_cli, serial, f"am force-stop {PKG}")


def _recipes(conn: sqlite3.Connection) -> list[dict]:
    return [dict(r) for r in conn.execute("SELECT * FROM recipes ORDER BY recipeId")]


def _titles(d) -> list[str]:
    return [e.get_text() for e in d(resourceId=RID + "card_text_view_title")]


def _insert(conn: sqlite3.Connection, **row: object) -> None:
    """AndroidWorld's insert_into_db: every field of its Recipe row but the key."""
    values: dict[str, object] = {"title": "", "description": "", "servings": "", "preparationTime": "", "source": ""}
    values["ingredients"] = ""
    values |= {"directions": "", "favorite": 0, "imageName": "", **row}
    cols = ", ".join(f'"{c}"' for c in values)
    conn.execute(f"INSERT INTO recipes ({cols}) VALUES ({', '.join('?' * len(values))})", tuple(values.values()))


def _root(adb_cli, adb_server, serial: str) -> None:
    assert "restarting adbd as root" in adb_cli("-s", serial, "root").stdout.decode()
    deadline = time.monotonic() + 15
    while adb_server.state(serial) != "device":
        assert time.monotonic() < deadline
        time.sleep(0.05)


@pytest.fixture
def emu(make_posing_emulator, adb_cli, adb_server) -> tuple[object, str]:
    """The device posing as AndroidWorld's emulator, adbd restarted as root -> (the device, its serial)."""
    vd, serial = make_posing_emulator()
    _root(adb_cli, adb_server, serial)
    return vd, serial


@pytest.fixture
def d(emu, adb_server):
    dev = u2.connect(adb_server.client.device(emu[1]))
    yield dev
    try:
        dev.stop_uiautomator(wait=False)
    except Exception:  # noqa: BLE001 - the device may already be gone
        pass


def test_installed_launchable_labelled_and_its_database_is_rooms(emu, adb_cli, tmp_path):
    _, s = emu
    assert f"package:{PKG}" in _sh(adb_cli, s, "pm list packages -3").split()  # installed, not a system app
    dump = _sh(adb_cli, s, f"dumpsys package {PKG}")
    assert "versionName=1.2.6" in dump and "versionCode=1020600" in dump
    resolved = _sh(adb_cli, s, f"cmd package resolve-activity --brief -c android.intent.category.LAUNCHER {PKG}")
    assert resolved.strip().splitlines()[-1] == f"{PKG}/.MainActivity"
    assert 'text="Broccoli"' in _sh(adb_cli, s, "uiautomator dump /dev/tty")
    _launch(adb_cli, s)
    assert _focus(adb_cli, s) == f"{PKG}/{PKG}.MainActivity"
    conn = _pull(adb_cli, s, tmp_path)  # Room made it on the first start
    tables = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type IN ('table', 'trigger')")}
    assert {"recipes", "categories", "recipes_with_categories", "recipes_fts", "room_master_table"} <= tables
    assert {"android_metadata", "room_fts_content_sync_recipes_fts_AFTER_INSERT"} <= tables
    assert conn.execute("PRAGMA user_version").fetchone()[0] == 1
    assert conn.execute("SELECT identity_hash FROM room_master_table WHERE id = 42").fetchone()[0] == (
        "1548e88f42d976a4b4915ca1cfa71e00"
    )
    cols = [r[1] for r in conn.execute("PRAGMA table_info(recipes)")]
    assert cols == ["recipeId", "title", "imageName", *COLUMNS[1:4], "source", "ingredients", "directions", "favorite"]
    assert _recipes(conn) == []


def test_pushed_rows_are_what_the_list_searches_and_shows(d, emu, adb_cli, tmp_path):
    _, s = emu
    _launch(adb_cli, s)
    conn = _pull(adb_cli, s, tmp_path)
    _insert(conn, title="Lentil Soup", description="Warming", ingredients="lentils", servings="2 servings")
    _insert(conn, title="avocado Toast", source="flauschcode.com")
    _insert(conn, title="Beef Stir Fry", ingredients="as needed")
    conn.commit()
    conn.close()
    _push(adb_cli, s, tmp_path / "broccoli")
    _launch(adb_cli, s)
    assert d(resourceId=RID + "card_text_view_title", text="Lentil Soup").wait(timeout=5)
    assert _titles(d) == ["avocado Toast", "Beef Stir Fry", "Lentil Soup"]  # by title, case ignored
    assert d(resourceId=RID + "recycler_view").info["contentDescription"] == "Recipes"
    d(resourceId=RID + "action_search").click()
    field = d(resourceId=RID + "search_src_text")
    assert field.get_text() == "Search in ALL RECIPES"
    field.set_text("lenti")  # a prefix, in the ingredients as well as the title
    assert _titles(d) == ["Lentil Soup"]
    field.set_text("needed")  # the ingredients only
    assert _titles(d) == ["Beef Stir Fry"]
    d.press("back")  # the keyboard
    d.press("back")  # the search
    assert len(_titles(d)) == 3 and d(resourceId=RID + "spinner").child(text="All recipes").exists


def test_created_edited_and_deleted_through_the_ui_in_the_file(d, emu, adb_cli, tmp_path):
    _, s = emu
    _launch(adb_cli, s)
    assert d(resourceId=RID + "recipes_empty").child(text="No recipes found.").wait(timeout=5)
    d(resourceId=RID + "fab_recipes").click()
    assert d(text="New Recipe").exists and d(resourceId=RID + "button_save_recipe").get_text() == "SAVE"
    d(resourceId=RID + "button_save_recipe").click()  # no title: not saved
    assert d(resourceId=RID + "new_title").exists
    fields = {"new_title": "Lentil Soup", "new_servings": "4 servings", "new_preparation_time": "45 mins"}
    fields |= {"new_ingredients": "200 g lentils\n- 1 onion", "new_directions": "1. Chop the onion.\nSimmer."}
    for rid, text in fields.items():
        if not d(resourceId=RID + rid).exists:  # under the keyboard: the form scrolls
            d(scrollable=True).scroll.to(resourceId=RID + rid)
        d(resourceId=RID + rid).set_text(text)
    d(resourceId=RID + "button_save_recipe").click()
    assert d(resourceId=RID + "details_title", text="Lentil Soup").wait(timeout=5)  # its details open
    assert [e.get_text() for e in d(resourceId=RID + "ingredient_quantity")] == ["200", "1"]
    assert [e.get_text() for e in d(resourceId=RID + "direction_text")] == ["Chop the onion.", "Simmer."]
    row = _recipes(_pull(adb_cli, s, tmp_path))[0]
    assert {k: row[k] for k in ("title", "servings", "preparationTime", "description", "favorite", "imageName")} == {
        "title": "Lentil Soup",
        "servings": "4 servings",
        "preparationTime": "45 mins",
        "description": "",
        "favorite": 0,
        "imageName": "",
    }
    assert row["ingredients"] == "200 g lentils\n- 1 onion"
    d(description="More options").click()
    d(resourceId=RID + "title", text="Edit").click()
    d(resourceId=RID + "new_servings").set_text("6 servings")
    d(resourceId=RID + "button_save_recipe").click()
    assert d(resourceId=RID + "details_servings", text="6 servings").wait(timeout=5)
    assert [r["servings"] for r in _recipes(_pull(adb_cli, s, tmp_path))] == ["6 servings"]
    d(description="More options").click()
    d(resourceId=RID + "title", text="Delete").click()
    assert d(resourceId="android:id/message").get_text() == "Delete this recipe?"
    d(resourceId="android:id/button1", text="DELETE").click()
    assert d(resourceId=RID + "recipes_empty").wait(timeout=5)
    conn = _pull(adb_cli, s, tmp_path)
    assert _recipes(conn) == []
    assert conn.execute("SELECT count(*) FROM recipes_fts WHERE recipes_fts MATCH 'lentil*'").fetchone()[0] == 0


def test_leaving_a_changed_form_asks_to_discard(d, emu, adb_cli, tmp_path):
    _, s = emu
    _launch(adb_cli, s)
    d(resourceId=RID + "fab_recipes").click()
    d(description="Navigate up").click()  # nothing typed: it just closes
    assert d(resourceId=RID + "fab_recipes").wait(timeout=5)
    d(resourceId=RID + "fab_recipes").click()
    d(resourceId=RID + "new_title").set_text("Draft")
    d(description="Navigate up").click()
    assert d(resourceId="android:id/message").get_text() == "Discard changes?"
    d(resourceId="android:id/button1", text="DISCARD").click()
    assert d(resourceId=RID + "recipes_empty").wait(timeout=5)
    assert _recipes(_pull(adb_cli, s, tmp_path)) == []


def test_sqlite_state_check_reads_the_apps_database(make_posing_emulator, adb_server, adb_cli, tmp_path):
    vd, s = make_posing_emulator()
    _launch(adb_cli, s)
    dev = open_device(adb_server, vd, use_u2=False)
    try:  # as the shell user, who may not open an app's database: sqlite3 through su 0
        assert DeviceState(dev.shell).table(DB, "recipes", ("title",)) == []
    finally:
        dev.close()
    _root(adb_cli, adb_server, s)
    conn = _pull(adb_cli, s, tmp_path)
    _insert(conn, title="Pipe | and\nnewline", servings="2 servings")
    conn.commit()
    conn.close()
    _push(adb_cli, s, tmp_path / "broccoli")
    dev = open_device(adb_server, vd, use_u2=False)
    try:
        state = DeviceState(dev.shell)

        def judge(sqlite: dict) -> tuple[bool, str | None]:
            v = evaluate_state(StateCheck.model_validate({"sqlite": {"path": DB, **sqlite}}), state, "en")
            return v.held, v.reason

        assert state.table(DB, "recipes", ("title", "source", "favorite")) == [
            {"title": "Pipe | and\nnewline", "source": "", "favorite": "0"}
        ]
        assert judge({"table": "recipes", "row": {"title": "Pipe | and\nnewline", "servings": "2 servings"}})[0]
        held, why = judge({"table": "recipes", "row": {"servings": "3 servings"}})
        assert not held and "no row with servings" in (why or "")
        assert judge({"table": "recipes", "where": "favorite = 1", "exists": False})[0]
        held, why = judge({"table": "no_such_table"})
        assert not held and "no such table" in (why or "")
    finally:
        dev.close()
