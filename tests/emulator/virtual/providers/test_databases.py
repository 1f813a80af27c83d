"""The providers' data in SQLite files where Android keeps them, one truth with `content` and the apps, through
the real adb server: `adb pull` gives a valid database with Android's tables, `adb push` of a changed one is what
`content query` and the app show, the device's `sqlite3` reads and writes them, snapshots and `pm clear` cover
them (docs/virtual-device.md, "Where the data lives")."""

from __future__ import annotations

import sqlite3
from pathlib import Path

CONTACTS_DB = "/data/data/com.android.providers.contacts/databases/contacts2.db"
CALLLOG_DB = "/data/data/com.android.providers.contacts/databases/calllog.db"
SMS_DB = "/data/data/com.android.providers.telephony/databases/mmssms.db"
ALARMS_DB = "/data/user_de/0/com.google.android.deskclock/databases/alarms.db"
PEOPLE = "com.google.android.contacts/com.android.contacts.activities.PeopleActivity"


def _sh(adb_cli, vdevice, line: str, code: int = 0, stdin: bytes | None = None) -> str:
    args = ("-s", vdevice.serial, "shell", line)
    r = adb_cli(*args, input=stdin) if stdin is not None else adb_cli(*args)
    assert r.returncode == code, (r.stdout, r.stderr)
    return r.stdout.decode() + r.stderr.decode()


def _pull(adb_cli, vdevice, path: str, tmp_path: Path) -> sqlite3.Connection:
    local = tmp_path / Path(path).name
    r = adb_cli("-s", vdevice.serial, "pull", path, str(local))
    assert r.returncode == 0, r.stderr
    return sqlite3.connect(local)


def _names(conn: sqlite3.Connection) -> list[str]:
    return [
        r[0]
        for r in conn.execute(
            "SELECT r.display_name FROM raw_contacts r WHERE r.deleted = 0 ORDER BY r._id",
        )
    ]


def test_pulled_contacts_db_has_androids_tables_and_the_seeded_contacts(vdevice, adb_cli, tmp_path):
    conn = _pull(adb_cli, vdevice, CONTACTS_DB, tmp_path)
    tables = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    assert {"raw_contacts", "data", "mimetypes", "contacts"} <= tables
    assert "Alice Johnson" in _names(conn)
    phones = conn.execute(
        "SELECT data.data1 FROM data JOIN mimetypes ON data.mimetype_id = mimetypes._id JOIN raw_contacts r ON "
        "data.raw_contact_id = r._id WHERE mimetypes.mimetype = 'vnd.android.cursor.item/phone_v2' AND "
        "r.display_name = 'Alice Johnson'"
    ).fetchall()
    assert phones == [("+1 650-555-0101",)]
    calls = _pull(adb_cli, vdevice, CALLLOG_DB, tmp_path)
    assert calls.execute("SELECT count(*) FROM calls").fetchone() == (0,)
    listing = _sh(adb_cli, vdevice, f"ls {CONTACTS_DB.rsplit('/', 1)[0]}")
    assert "contacts2.db" in listing and "calllog.db" in listing


def test_a_contact_inserted_shows_in_the_pulled_file(vdevice, adb_cli, tmp_path):
    uri = _sh(adb_cli, vdevice, "content insert --uri content://com.android.contacts/raw_contacts --bind x:s:y")
    assert uri == ""
    out = _sh(adb_cli, vdevice, "content query --uri content://com.android.contacts/raw_contacts --projection _id")
    rid = out.strip().splitlines()[-1].rsplit("=", 1)[1]
    _sh(
        adb_cli,
        vdevice,
        "content insert --uri content://com.android.contacts/data --bind raw_contact_id:i:"
        + rid
        + " --bind mimetype:s:vnd.android.cursor.item/name --bind 'data1:s:Zed Zulu'",
    )
    assert "Zed Zulu" in _names(_pull(adb_cli, vdevice, CONTACTS_DB, tmp_path))


def test_a_pushed_contacts_db_is_what_the_provider_and_the_app_show(vdevice, adb_cli, tmp_path):
    conn = _pull(adb_cli, vdevice, CONTACTS_DB, tmp_path)
    conn.execute("UPDATE raw_contacts SET display_name = 'Alicia Keys' WHERE display_name = 'Alice Johnson'")
    conn.execute(
        "UPDATE data SET data1 = 'Alicia Keys', data2 = 'Alicia', data3 = 'Keys' WHERE data1 = 'Alice Johnson'"
    )
    conn.commit()
    conn.close()
    r = adb_cli("-s", vdevice.serial, "push", str(tmp_path / "contacts2.db"), CONTACTS_DB)
    assert r.returncode == 0, r.stderr
    out = _sh(adb_cli, vdevice, "content query --uri content://com.android.contacts/contacts --projection display_name")
    assert "display_name=Alicia Keys" in out and "Alice Johnson" not in out
    _sh(adb_cli, vdevice, f"am start -n {PEOPLE}")
    screen = _sh(adb_cli, vdevice, "uiautomator dump /dev/tty")
    assert "Alicia Keys" in screen and "Alice Johnson" not in screen


def test_sqlite3_on_the_device_reads_and_writes_the_sms_db(vdevice, adb_cli):
    out = _sh(adb_cli, vdevice, f'sqlite3 {SMS_DB} "select address, body from sms order by _id"')
    assert out.splitlines()[0] == "+1 650-555-0101|Are we still on for lunch tomorrow?"
    assert _sh(adb_cli, vdevice, "which sqlite3") == "/system/xbin/sqlite3\n"
    _sh(
        adb_cli,
        vdevice,
        f'sqlite3 {SMS_DB} "insert into sms (thread_id, address, date, read, type, body) values '
        "(1, '+1 650-555-0101', 1800000000000, 0, 1, 'from sqlite3')\"",
    )
    inbox = _sh(adb_cli, vdevice, "content query --uri content://sms/inbox --projection address:body:read")
    assert inbox.splitlines()[0] == "Row: 0 address=+1 650-555-0101, body=from sqlite3, read=0"
    header = _sh(adb_cli, vdevice, f"sqlite3 -header -separator , {SMS_DB} 'select _id, type from sms limit 1'")
    assert header.splitlines()[0] == "_id,type"


def test_sqlite3_reads_sql_from_stdin_and_prints_errors_as_the_cli(vdevice, adb_cli):
    script = b".tables\nselect hour, minutes, label from alarm_templates order by _id;\nselect nope from x;\n"
    r = adb_cli("-s", vdevice.serial, "shell", f"sqlite3 {ALARMS_DB}", input=script)
    assert r.returncode == 1
    lines = r.stdout.decode().splitlines()
    assert "alarm_templates" in lines[0] and lines[1:] == ["7|0|", "8|30|Gym"]
    assert r.stderr.decode() == "Error: near line 3: in prepare, no such table: x (1)\n"
    out = _sh(adb_cli, vdevice, f"sqlite3 {ALARMS_DB} 'select * from nope'", code=1)
    assert out == "Error: in prepare, no such table: nope (1)\n"
    _sh(adb_cli, vdevice, f"sqlite3 {ALARMS_DB} 'update alarm_templates set enabled = 1 where _id = 2'")
    alarms = _sh(adb_cli, vdevice, "content query --uri content://com.android.deskclock/alarms --projection enabled")
    assert alarms.splitlines() == ["Row: 0 enabled=1", "Row: 1 enabled=1"]


def test_snapshots_and_pm_clear_cover_the_databases(vdevice, adb_cli, tmp_path):
    model = vdevice.model
    snap = model.snapshot()
    _sh(adb_cli, vdevice, f"sqlite3 {SMS_DB} 'delete from sms'")
    assert _sh(adb_cli, vdevice, "content query --uri content://sms") == "No result found.\n"
    model.restore(snap)
    assert _sh(adb_cli, vdevice, f"sqlite3 {SMS_DB} 'select count(*) from sms'") == "5\n"
    assert "body=" in _sh(adb_cli, vdevice, "content query --uri content://sms")
    assert _sh(adb_cli, vdevice, "pm clear com.android.providers.telephony") == "Success\n"
    assert _sh(adb_cli, vdevice, "pm clear com.android.providers.contacts") == "Success\n"
    assert _sh(adb_cli, vdevice, f"sqlite3 {SMS_DB} 'select count(*) from sms'") == "0\n"
    conn = _pull(adb_cli, vdevice, CONTACTS_DB, tmp_path)
    assert conn.execute("SELECT count(*) FROM raw_contacts").fetchone() == (0,)
    assert conn.execute("SELECT count(*) FROM mimetypes").fetchone()[0] > 0
