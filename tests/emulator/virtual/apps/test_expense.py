"""Pro Expense driven as clients drive a phone: the real adb server (the adbutils wheel's adb) for `pm`, `am`,
`dumpsys`, `adb root` and `adb pull` / `adb push` of the app's Room database, uiautomator2 (unmodified) for the
screen. What the app wrote is read back from its database file as AndroidWorld's judges read it (the device posing as
its emulator, adbd as root): pulled, opened with Python's sqlite3; rows go in as its set-up puts them (pulled,
inserted, the databases directory emptied, pushed back, the app force-stopped)."""

from __future__ import annotations

import sqlite3

import pytest

from emulator.virtual.apps.expense_data import MAIN, PKG
from emulator.virtual.model import VirtualDeviceModel
from harness.device.state import DeviceState
from harness.run.judge.state_check import evaluate_state
from tasks.families.registry import family_tasks
from tests.agents_helpers import observe
from tests.device_util import open_device
from tests.emulator.virtual.apps.devshell import Emu, focus, pull_db, push_db, root, sh

pytest.importorskip("uiautomator2")

RID = PKG + ":id/"
DB_DIR = f"/data/data/{PKG}/databases"
DB = f"{DB_DIR}/accounting.db"
PREFS = f"/data/data/{PKG}/shared_prefs/{PKG}_preferences.xml"
COLUMNS = [
    "expense_id",
    "name",
    "amount",
    "category",
    "note",
    "created_date",
    "modified_date",
]  # AndroidWorld's Expense
OCT_9 = 1696878000000  # 2023-10-09 12:00 PDT


def _launch(adb_cli, serial: str) -> None:
    sh(adb_cli, serial, f"am start -n {PKG}/{MAIN}")  # AndroidWorld's adb_utils.launch_app


def _expenses(conn: sqlite3.Connection) -> list[dict]:
    return [dict(r) for r in conn.execute("SELECT * FROM expense ORDER BY expense_id")]


def _insert(conn: sqlite3.Connection, name: str, amount: int, category: int, note: str, when: int) -> None:
    """AndroidWorld's insert_into_db: every field of its Expense row but the key, quoted."""
    cols = ", ".join(f'"{c}"' for c in COLUMNS[1:])
    conn.execute(f"INSERT INTO expense ({cols}) VALUES (?, ?, ?, ?, ?, ?)", (name, amount, category, note, when, when))


def _texts(d, rid: str) -> list[str]:
    return [e.get_text() for e in d(resourceId=RID + rid)]


def _onboard(d) -> None:
    """The first start's configuration, as AndroidWorld's set-up clicks through it."""
    assert d(resourceId=RID + "btn_continue", text="NEXT").wait(timeout=5)
    d(text="NEXT").click()
    d(text="CONTINUE").click()
    assert d(resourceId=RID + "fb_main_add").wait(timeout=5)


@pytest.fixture
def emu(root_emu: Emu) -> Emu:
    """This app's tests read its database as AndroidWorld's judges do: on `root_emu`, adbd as root (`d` too)."""
    return root_emu


def test_installed_labelled_configured_once_and_its_database_is_rooms(d, emu, adb_cli, tmp_path):
    _, s = emu
    assert f"package:{PKG}" in sh(adb_cli, s, "pm list packages -3").split()  # installed, not a system app
    dump = sh(adb_cli, s, f"dumpsys package {PKG}")
    assert "versionName=1.0.0-beta05" in dump and "versionCode=11" in dump
    resolved = sh(adb_cli, s, f"cmd package resolve-activity --brief -c android.intent.category.LAUNCHER {PKG}")
    assert resolved.strip().splitlines()[-1] == f"{PKG}/.ui.MainActivity"
    assert 'text="Pro Expense"' in sh(adb_cli, s, "uiautomator dump /dev/tty")
    _launch(adb_cli, s)
    assert focus(adb_cli, s) == f"{PKG}/{MAIN}"
    assert d(resourceId=RID + "tv_welcome", text="Hello! Welcome to Pro Expense").wait(timeout=5)
    assert "United States(English)" in _texts(d, "tv_language_name") and d(resourceId=RID + "imv_checked").exists
    d(text="NEXT").click()
    assert d(resourceId=RID + "tv_currency", text="United State Dollar").exists and d(resourceId=RID + "imv_selected")
    d(text="CONTINUE").click()
    assert d(resourceId=RID + "fb_main_add").wait(timeout=5) and d(text="Home").exists
    local = tmp_path / "prefs.xml"
    assert adb_cli("-s", s, "pull", PREFS, str(local)).returncode == 0
    assert '<boolean name="isFirstTime" value="false" />' in local.read_text()
    sh(adb_cli, s, f"am force-stop {PKG}")
    _launch(adb_cli, s)
    assert d(resourceId=RID + "fb_main_add").wait(timeout=5)  # once only
    conn = pull_db(adb_cli, s, DB, tmp_path / "accounting.db")  # Room made it on the first start
    tables = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    assert {"expense", "backup", "room_master_table", "android_metadata", "sqlite_sequence"} <= tables
    assert conn.execute("PRAGMA user_version").fetchone()[0] == 6
    assert conn.execute("SELECT identity_hash FROM room_master_table WHERE id = 42").fetchone()[0] == (
        "27085a6798a70569f4984067458b86b2"
    )
    assert [r[1] for r in conn.execute("PRAGMA table_info(expense)")] == COLUMNS
    assert _expenses(conn) == []


@pytest.mark.slow
def test_pushed_rows_show_and_deletions_land_in_the_file(d, emu, adb_cli, tmp_path):
    _, s = emu
    _launch(adb_cli, s)
    _onboard(d)
    conn = pull_db(adb_cli, s, DB, tmp_path / "accounting.db")
    rows = [("Groceries", 123450, 3, "Urgent"), ("Salary", 500000, 2, ""), ("Taxi Fare", 1250, 7, "Paid by card")]
    rows += [("Books", 2000, 6, "A need"), ("Gas", 4575, 7, "Monthly recurring"), ("Rent", 90000, 4, "")]
    for i, (name, amount, category, note) in enumerate(rows):
        _insert(conn, name, amount, category, note, OCT_9 - i * 86_400_000)
    conn.commit()
    conn.close()
    push_db(adb_cli, s, tmp_path / "accounting.db", DB, PKG)
    _launch(adb_cli, s)
    assert d(resourceId=RID + "tv_recent_lists", text="Recent").wait(timeout=5)
    assert _texts(d, "tv_name") == ["Groceries", "Salary", "Taxi Fare", "Books"]  # the four newest
    assert _texts(d, "tv_amount")[:2] == ["1,234.5", "5,000"] and _texts(d, "tv_currency_symbol")[0] == "USD"
    d(resourceId=RID + "btn_more_logs", text="MORE").click()
    assert d(resourceId=RID + "tb_expense").child(text="2023 Oct 4 - 9 . DESC").wait(timeout=5)
    assert _texts(d, "tv_name") == [r[0] for r in rows] and _texts(d, "tv_date")[0] == "2023 Oct 9"
    d(resourceId=RID + "tv_name", text="Taxi Fare").click()  # its detail
    assert d(resourceId=RID + "tv_name_value").get_text() == "Taxi Fare"
    assert [d(resourceId=RID + r).get_text() for r in ("tv_amount_value", "tv_currency_symbol", "tv_note_value")] == [
        "12.5",
        "$",
        "Paid by card",
    ]
    d(resourceId=RID + "btn_delete").click()
    assert d(resourceId=RID + "tv_items").get_text() == "item " and d(text="will be deleted!").exists
    d(resourceId=RID + "btn_confirm", text="CONFIRM").click()
    assert [r["name"] for r in _expenses(pull_db(adb_cli, s, DB, tmp_path / "accounting.db"))] == [
        "Groceries",
        "Salary",
        "Books",
        "Gas",
        "Rent",
    ]
    for name in ("Salary", "Gas"):  # swiped right: selected
        b = d(resourceId=RID + "tv_name", text=name).info["bounds"]
        y = (b["top"] + b["bottom"]) // 2
        d.swipe(150, y, 800, y, 0.3)
    assert d(resourceId=RID + "tb_expense").child(text="2 items").exists
    d(resourceId=RID + "delete", description="Delete").click()
    assert d(resourceId=RID + "tv_items").get_text() == "2 items "
    d(resourceId=RID + "btn_confirm").click()
    left = _expenses(pull_db(adb_cli, s, DB, tmp_path / "accounting.db"))
    assert [(r["name"], r["amount"], r["category"], r["note"]) for r in left] == [
        ("Groceries", 123450, 3, "Urgent"),
        ("Books", 2000, 6, "A need"),
        ("Rent", 90000, 4, ""),
    ]
    assert d(resourceId=RID + "tb_expense").child(text="Expense Logs").exists  # the selection went with them
    b = d(resourceId=RID + "tv_name", text="Books").info["bounds"]  # a long press uncovers the row's own delete
    d.long_click((b["left"] + b["right"]) // 2, (b["top"] + b["bottom"]) // 2)
    (icon,) = [e for e in d(resourceId=RID + "imv_delete_icon") if b["top"] <= e.center()[1] <= b["bottom"] + 40]
    icon.click()
    d(resourceId=RID + "btn_confirm").click()
    assert [r["name"] for r in _expenses(pull_db(adb_cli, s, DB, tmp_path / "accounting.db"))] == ["Groceries", "Rent"]


def test_an_expense_entered_and_updated_in_the_ui_is_a_row_of_the_file(d, emu, adb_cli, tmp_path):
    _, s = emu
    _launch(adb_cli, s)
    _onboard(d)
    d(resourceId=RID + "fb_main_add").click()
    assert d(text="Expense Entry").exists and d(resourceId=RID + "cd_category", checked=True).child(text="Food").exists
    d(resourceId=RID + "btn_save", text="SAVE").click()  # no amount
    assert d(text="Cost is Empty").exists
    d(resourceId=RID + "edt_name").set_text("Taxi to airport")
    d(resourceId=RID + "edt_amount").set_text("12a.50")  # the input filter drops the letter
    assert d(resourceId=RID + "edt_amount").get_text() == "12.50"
    d.press("back")  # the keyboard
    d(resourceId=RID + "rv_category").swipe("left", steps=40)
    d(resourceId=RID + "tv_name", text="Transportation").click()
    d(resourceId=RID + "edt_note").set_text("Paid by card")
    d(resourceId=RID + "btn_save").click()
    assert d(resourceId=RID + "tv_name", text="Taxi to airport").wait(timeout=5)  # on Home's recent list
    (row,) = _expenses(pull_db(adb_cli, s, DB, tmp_path / "accounting.db"))
    now_ms = int(sh(adb_cli, s, "date +%s")) * 1000
    assert (row["name"], row["amount"], row["category"], row["note"]) == ("Taxi to airport", 1250, 7, "Paid by card")
    # created when saved, dated when the entry opened (the device's wall clock, as `date` reads it)
    assert abs(row["created_date"] - now_ms) < 120_000 and 0 <= row["created_date"] - row["modified_date"] < 60_000
    d(resourceId=RID + "tv_name", text="Taxi to airport").click()
    d(resourceId=RID + "btn_edit", text="EDIT").click()
    assert d(text="Update Data").exists and d(resourceId=RID + "edt_amount").get_text() == "12.5"
    d(resourceId=RID + "edt_amount").set_text("99")
    d(resourceId=RID + "btn_save", text="UPDATE").click()
    assert d(text="Data Updated!").wait(timeout=5)
    (updated,) = _expenses(pull_db(adb_cli, s, DB, tmp_path / "accounting.db"))
    assert updated == {**row, "amount": 9900}


def test_the_familys_end_state_is_read_from_the_file(make_posing_emulator, adb_server, adb_cli, tmp_path):
    vd, s = make_posing_emulator()
    _launch(adb_cli, s)
    task = family_tasks("expense", 3, 1)[0]
    (end,) = task.end_state
    assert end.check is not None and end.check.state is not None and end.check.state.sqlite is not None
    want = {
        k: m.equals if isinstance(m.equals, str) else (m.equals or {})["en"]
        for k, m in end.check.state.sqlite.row.items()
    }
    dev = open_device(adb_server, vd, use_u2=False)
    try:  # as the shell user: sqlite3 through su 0
        assert not evaluate_state(end.check.state, DeviceState(dev.shell), "en").held
    finally:
        dev.close()
    assert "restarting adbd as root" in root(adb_cli, s)
    conn = pull_db(adb_cli, s, DB, tmp_path / "accounting.db")
    _insert(conn, want["name"], int(want["amount"]), int(want["category"]), want["note"], OCT_9)
    conn.commit()
    conn.close()
    push_db(adb_cli, s, tmp_path / "accounting.db", DB, PKG)
    dev = open_device(adb_server, vd, use_u2=False)
    try:
        state = DeviceState(dev.shell)
        assert evaluate_state(end.check.state, state, "en").held
        assert not evaluate_state(end.check.state, state, "zh").held  # the Chinese instance wants its own name
    finally:
        dev.close()


def test_the_app_speaks_its_own_language_not_the_systems() -> None:
    m = VirtualDeviceModel(locale="zh")
    m.start_activity(PKG, MAIN)
    texts = [e.text for e in observe(m).tree.visible()]
    assert "Hello! Welcome to Pro Expense" in texts and "NEXT" in texts  # English until another is chosen
    tree = observe(m).tree
    (china,) = [e for e in tree.visible() if e.text == "China (Chinese)"]
    m.tap(*china.center)
    texts = [e.text for e in observe(m).tree.visible()]
    assert "你好！欢迎来到 Pro Expense" in texts and "下一步" in texts
