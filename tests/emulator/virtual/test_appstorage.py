"""The app storage platform (emulator/virtual/appstorage.py) over the device's file system: an app's database file
is its one truth (made where none is, re-read when someone else wrote it, written back on every change, complete
without a -wal file), its preferences are Android's XML, and `pm clear` empties its data directory. The apps'
own tests drive the same through adb and the screen (tests/emulator/virtual/apps/)."""

from __future__ import annotations

import sqlite3

import pytest

from emulator.virtual.appstorage import AppDatabase, SharedPrefs, clear_app_dir, data_dir
from emulator.virtual.fs import FileSystem
from emulator.virtual.procs import app_uid
from emulator.virtual.sqlitefile import open_bytes, to_bytes

PKG = "org.example.app"
DDL = "CREATE TABLE items (id INTEGER PRIMARY KEY AUTOINCREMENT, name TEXT NOT NULL);"


@pytest.fixture
def fs() -> FileSystem:
    f = FileSystem(lambda: 1_800_000_000.0)
    f.mkdir(data_dir(PKG), parents=True)
    return f


def test_a_database_is_made_where_none_is_with_its_schema_owner_and_version(fs: FileSystem) -> None:
    db = AppDatabase(PKG, "app.db", DDL, version=7)
    assert db.path == f"/data/data/{PKG}/databases/app.db"
    assert db.rows(fs, "SELECT * FROM items") == []  # first use makes it
    node = fs.stat(db.path)
    assert node is not None and (node.uid, node.gid) == (app_uid(PKG), app_uid(PKG)) and node.mode & 0o777 == 0o660
    conn = open_bytes(fs.peek(db.path) or b"")
    assert conn.execute("PRAGMA user_version").fetchone() == (7,)
    assert conn.execute("PRAGMA journal_mode").fetchone() != ("wal",)
    assert not fs.exists(db.path + "-wal")


def test_changes_go_to_the_file_and_the_file_s_changes_come_back(fs: FileSystem) -> None:
    db = AppDatabase(PKG, "app.db", DDL)
    new_id = db.execute(fs, "INSERT INTO items (name) VALUES (?)", ("milk",))
    assert new_id == 1
    pulled = open_bytes(fs.peek(db.path) or b"")  # what `adb pull` gets
    assert pulled.execute("SELECT name FROM items").fetchall() == [("milk",)]
    pulled.execute("INSERT INTO items (name) VALUES ('eggs')")  # as AndroidWorld's set-up inserts rows
    pulled.commit()
    fs.write(db.path, to_bytes(pulled))  # ... and pushes the file back
    assert [r["name"] for r in db.rows(fs, "SELECT name FROM items ORDER BY id")] == ["milk", "eggs"]
    assert db.scalar(fs, "SELECT COUNT(*) FROM items") == 2


def test_a_failed_change_leaves_the_file_as_it_was(fs: FileSystem) -> None:
    db = AppDatabase(PKG, "app.db", DDL)
    db.execute(fs, "INSERT INTO items (name) VALUES ('a')")
    before = fs.peek(db.path)
    with pytest.raises(sqlite3.IntegrityError), db.change(fs) as conn:
        conn.execute("INSERT INTO items (name) VALUES ('b')")
        conn.execute("INSERT INTO items (name) VALUES (NULL)")
    assert fs.peek(db.path) == before
    assert [r["name"] for r in db.rows(fs, "SELECT name FROM items")] == ["a"]


def test_a_removed_directory_is_made_again_and_a_foreign_file_reads_as_empty(fs: FileSystem) -> None:
    db = AppDatabase(PKG, "app.db", DDL)
    db.execute(fs, "INSERT INTO items (name) VALUES ('a')")
    fs.remove(f"{data_dir(PKG)}/databases", recursive=True)  # `rm -r databases/*` and the directory with it
    assert db.rows(fs, "SELECT * FROM items") == []
    assert fs.is_dir(f"{data_dir(PKG)}/databases")
    fs.write(db.path, b"not a database at all, just text")
    assert db.rows(fs, "SELECT * FROM items") == []


def test_shared_prefs_are_android_s_xml(fs: FileSystem) -> None:
    prefs = SharedPrefs(PKG)
    assert prefs.path == f"/data/data/{PKG}/shared_prefs/{PKG}_preferences.xml"
    assert prefs.read(fs) == {}
    prefs.put(fs, "shown", True)
    prefs.put(fs, "count", 3)
    prefs.put(fs, "name", 'a <b> & "c"')
    text = (fs.peek(prefs.path) or b"").decode()
    assert text.startswith("<?xml version='1.0' encoding='utf-8' standalone='yes' ?>\n<map>\n")
    assert '    <boolean name="shown" value="true" />' in text and '    <int name="count" value="3" />' in text
    assert '<string name="name">a &lt;b&gt; &amp; "c"</string>' in text
    assert prefs.read(fs) == {"shown": True, "count": 3, "name": 'a <b> & "c"'}
    fs.write(prefs.path, b"<map><boolean name='x' value='false' /><long name='t' value='12' /></map>")
    assert prefs.read(fs) == {"x": False, "t": 12}
    fs.write(prefs.path, b"<map><broken")
    assert prefs.read(fs) == {}


def test_pm_clear_empties_the_data_directory(fs: FileSystem) -> None:
    db = AppDatabase(PKG, "app.db", DDL)
    db.execute(fs, "INSERT INTO items (name) VALUES ('a')")
    SharedPrefs(PKG).put(fs, "k", "v")
    fs.mkdir(f"/sdcard/Android/data/{PKG}/files", parents=True)
    fs.write(f"/sdcard/Android/data/{PKG}/files/rec.wav", b"x")
    fs.mkdir("/sdcard/Android/data/other.app", parents=True)
    clear_app_dir(fs, PKG)
    assert sorted(name for name, _ in fs.listdir(data_dir(PKG))) == ["cache", "code_cache"]
    # its folder on shared storage goes too (as clearApplicationUserData deletes it); other apps' stay
    assert not fs.exists(f"/sdcard/Android/data/{PKG}") and fs.exists("/sdcard/Android/data/other.app")
    assert db.rows(fs, "SELECT * FROM items") == []
