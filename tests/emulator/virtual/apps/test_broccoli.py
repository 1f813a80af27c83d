"""Broccoli driven as clients drive a phone: the real adb server (the adbutils wheel's adb) for `pm`, `am`,
`dumpsys`, `adb root` and `adb pull` / `adb push` of the app's Room database, uiautomator2 (unmodified) for the
screen. What the app wrote is read back from its database file as AndroidWorld's judges read it (the device posing as
its emulator, adbd as root): pulled, opened with Python's sqlite3; rows go in as its set-up puts them (pulled,
inserted, the databases directory emptied, pushed back, the app force-stopped)."""

from __future__ import annotations

import sqlite3

import pytest

from harness.device.state import DeviceState
from harness.run.judge.state_check import evaluate_state
from tasks.state_checks import StateCheck
from tests.device_util import open_device
from tests.emulator.virtual.apps.devshell import Emu, focus, pull_db, push_db, root, sh

pytest.importorskip("uiautomator2")

PKG = "com.flauschcode.broccoli"
RID = PKG + ":id/"
DB_DIR = f"/data/data/{PKG}/databases"
DB = f"{DB_DIR}/broccoli"
COLUMNS = ("title", "description", "servings", "preparationTime", "source", "ingredients", "directions", "favorite")


def _launch(adb_cli, serial: str) -> None:
    sh(adb_cli, serial, f"am start -n {PKG}/{PKG}.MainActivity")  # AndroidWorld's adb_utils.launch_app


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


@pytest.fixture
def emu(root_emu: Emu) -> Emu:
    """This app's tests read its database as AndroidWorld's judges do: on `root_emu`, adbd as root (`d` too)."""
    return root_emu


def test_installed_launchable_labelled_and_its_database_is_rooms(emu, adb_cli, tmp_path):
    _, s = emu
    assert f"package:{PKG}" in sh(adb_cli, s, "pm list packages -3").split()  # installed, not a system app
    dump = sh(adb_cli, s, f"dumpsys package {PKG}")
    assert "versionName=1.2.6" in dump and "versionCode=1020600" in dump
    resolved = sh(adb_cli, s, f"cmd package resolve-activity --brief -c android.intent.category.LAUNCHER {PKG}")
    assert resolved.strip().splitlines()[-1] == f"{PKG}/.MainActivity"
    assert 'text="Broccoli"' in sh(adb_cli, s, "uiautomator dump /dev/tty")
    _launch(adb_cli, s)
    assert focus(adb_cli, s) == f"{PKG}/{PKG}.MainActivity"
    conn = pull_db(adb_cli, s, DB, tmp_path / "broccoli")  # Room made it on the first start
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
    conn = pull_db(adb_cli, s, DB, tmp_path / "broccoli")
    _insert(conn, title="Lentil Soup", description="Warming", ingredients="lentils", servings="2 servings")
    _insert(conn, title="avocado Toast", source="flauschcode.com")
    _insert(conn, title="Beef Stir Fry", ingredients="as needed")
    conn.commit()
    conn.close()
    push_db(adb_cli, s, tmp_path / "broccoli", DB, PKG)
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
    row = _recipes(pull_db(adb_cli, s, DB, tmp_path / "broccoli"))[0]
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
    assert [r["servings"] for r in _recipes(pull_db(adb_cli, s, DB, tmp_path / "broccoli"))] == ["6 servings"]
    d(description="More options").click()
    d(resourceId=RID + "title", text="Delete").click()
    assert d(resourceId="android:id/message").get_text() == "Delete this recipe?"
    d(resourceId="android:id/button1", text="DELETE").click()
    assert d(resourceId=RID + "recipes_empty").wait(timeout=5)
    conn = pull_db(adb_cli, s, DB, tmp_path / "broccoli")
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
    assert _recipes(pull_db(adb_cli, s, DB, tmp_path / "broccoli")) == []


def test_sqlite_state_check_reads_the_apps_database(make_posing_emulator, adb_server, adb_cli, tmp_path):
    vd, s = make_posing_emulator()
    _launch(adb_cli, s)
    dev = open_device(adb_server, vd, use_u2=False)
    try:  # as the shell user, who may not open an app's database: sqlite3 through su 0
        assert DeviceState(dev.shell).table(DB, "recipes", ("title",)) == []
    finally:
        dev.close()
    assert "restarting adbd as root" in root(adb_cli, s)
    conn = pull_db(adb_cli, s, DB, tmp_path / "broccoli")
    _insert(conn, title="Pipe | and\nnewline", servings="2 servings")
    conn.commit()
    conn.close()
    push_db(adb_cli, s, tmp_path / "broccoli", DB, PKG)
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
