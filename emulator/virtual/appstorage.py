"""Where an app of the embedded device keeps its data, as the real app does: the files are the app's one truth.

An app declares its SQLite databases (`AppDatabase`: a file name under its package's `databases/` directory, the
schema its real build creates, the `user_version` it stamps) and reads and writes them through this module on
every frame and every change. What its screens show is what the file holds, so `adb pull`, `adb push`, the shell's
`sqlite3`, `run-as`, `pm clear`, snapshots and resets see and change the same data the app does:

- a database pushed while the app is stopped (or running) is what it shows next;
- the app creates its database (empty tables, `user_version`) on first use, and again after a push of its whole
  `databases/` directory removed it, as Room and SQLiteOpenHelper do when the file is missing;
- the file is written in rollback-journal mode, complete in itself (no `-wal` beside it), with the owner
  (the app's uid) and mode (0660) Android gives an app's database;
- `pm clear` empties the app's data directory (`clear_app_dir`), so the next start creates the database again.

Files an app keeps on shared storage (Markor's notes) are plain files of the device's file system; `shared_files`
lists a directory's regular files with their modification times.

Connections are kept per file content: a frame that reads an unchanged file reuses the connection opened on it.
"""

from __future__ import annotations

import contextlib
import posixpath
import sqlite3
import threading
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any
from xml.etree import ElementTree
from xml.sax.saxutils import escape

from .fs import FileSystem, FsError
from .procs import app_uid
from .sqlitefile import open_bytes, to_bytes

DB_MODE = 0o660
DIR_MODE = 0o771
Params = Sequence[Any] | dict[str, Any]


def data_dir(package: str) -> str:
    """An app's private data directory (/data/user/0/PKG, which /data/data/PKG is)."""
    return f"/data/data/{package}"


@dataclass(frozen=True)
class FileEntry:
    """A file or folder of a directory, as a file browser lists it."""

    name: str
    path: str
    is_dir: bool
    size: int
    mtime: int


def listing(fs: FileSystem, directory: str) -> list[FileEntry]:
    """The entries of `directory` (none when it does not exist), unsorted."""
    try:
        items = fs.listdir(directory)
    except FsError:
        return []
    return [
        FileEntry(name, posixpath.join(directory, name), node.is_dir, 0 if node.is_dir else node.size, node.mtime)
        for name, node in items
    ]


EXTERNAL_APP_DIRS = ("/sdcard/Android/data", "/sdcard/Android/media")  # an app's own folders on shared storage


def clear_app_dir(fs: FileSystem, package: str) -> None:
    """`pm clear`: everything under the app's data directory goes; `cache/` and `code_cache/` are made again. The
    app's folders on shared storage (`Android/data/PKG`, `Android/media/PKG`) go too, as clearApplicationUserData
    deletes them; the app makes them again when it next asks for them."""
    for parent in EXTERNAL_APP_DIRS:
        with contextlib.suppress(FsError):
            fs.remove(posixpath.join(parent, package), recursive=True)
    root = data_dir(package)
    for entry in listing(fs, root):
        with contextlib.suppress(FsError):
            fs.remove(entry.path, recursive=True)
    uid = app_uid(package)
    for d in ("cache", "code_cache"):
        path = posixpath.join(root, d)
        with contextlib.suppress(FsError):
            fs.mkdir(path, parents=True, owner=(uid, uid))
            fs.chmod(path, 0o2771)


class SharedPrefs:
    """An app's default SharedPreferences file (/data/data/PKG/shared_prefs/PKG_preferences.xml), in the XML
    Android writes: `<map>` of `<boolean name= value=/>`, `<string name=>text</string>`, `<int .../>`, `<long .../>`.
    Read and written through the file, so `run-as`, `adb pull`, `pm clear` and snapshots see what the app does."""

    def __init__(self, package: str, name: str = "") -> None:
        self.package = package
        self.path = f"{data_dir(package)}/shared_prefs/{name or package + '_preferences'}.xml"

    def read(self, fs: FileSystem) -> dict[str, str | bool | int]:
        data = fs.peek(self.path)
        if not data:
            return {}
        try:
            root = ElementTree.fromstring(data)
        except ElementTree.ParseError:
            return {}
        out: dict[str, str | bool | int] = {}
        for el in root:
            name = el.get("name")
            if name is None:
                continue
            if el.tag == "boolean":
                out[name] = el.get("value") == "true"
            elif el.tag in ("int", "long"):
                with contextlib.suppress(TypeError, ValueError):
                    out[name] = int(el.get("value") or 0)
            elif el.tag == "string":
                out[name] = el.text or ""
        return out

    def put(self, fs: FileSystem, key: str, value: str | bool | int) -> None:
        values = self.read(fs)
        values[key] = value
        lines = ["<?xml version='1.0' encoding='utf-8' standalone='yes' ?>", "<map>"]
        for k, v in values.items():
            name = escape(k, {'"': "&quot;"})
            if isinstance(v, bool):
                lines.append(f'    <boolean name="{name}" value="{str(v).lower()}" />')
            elif isinstance(v, int):
                lines.append(f'    <int name="{name}" value="{v}" />')
            else:
                lines.append(f'    <string name="{name}">{escape(v)}</string>')
        lines.append("</map>")
        uid = app_uid(self.package)
        folder = posixpath.dirname(self.path)
        if not fs.is_dir(folder):
            fs.mkdir(folder, parents=True, owner=(uid, uid))
            fs.chmod(folder, DIR_MODE)
        fs.write(self.path, ("\n".join(lines) + "\n").encode(), mode=DB_MODE, owner=(uid, uid))


class AppDatabase:
    """One SQLite database of an app, at /data/data/PKG/databases/NAME (module docstring)."""

    def __init__(self, package: str, name: str, ddl: str, version: int = 1, directory: str = "databases") -> None:
        self.package, self.name, self.ddl, self.version = package, name, ddl, version
        self.path = f"{data_dir(package)}/{directory}/{name}"  # `directory`: another folder of the data dir (app_db)
        self._lock = threading.RLock()
        self._bytes: bytes | None = None  # the file content `_conn` was opened on (or wrote)
        self._conn: sqlite3.Connection | None = None

    # --- the file ----------------------------------------------------------------------------------
    def create(self, fs: FileSystem) -> None:
        """Write a fresh database (the app's schema, no rows) where none is: the app's first start."""
        with self._lock:
            if fs.peek(self.path) is not None:
                return
            conn = sqlite3.connect(":memory:", check_same_thread=False)
            conn.executescript(self.ddl)
            conn.execute(f"PRAGMA user_version = {int(self.version)}")
            conn.commit()
            self._store(fs, conn)

    def _store(self, fs: FileSystem, conn: sqlite3.Connection) -> None:
        data = to_bytes(conn)
        uid = app_uid(self.package)
        folder = posixpath.dirname(self.path)
        if not fs.is_dir(folder):
            fs.mkdir(folder, parents=True, owner=(uid, uid))
            fs.chmod(folder, DIR_MODE)
        fs.write(self.path, data, mode=DB_MODE, owner=(uid, uid))
        if self._conn is not None and self._conn is not conn:
            self._conn.close()
        self._conn, self._bytes = conn, data

    def _open(self, fs: FileSystem) -> sqlite3.Connection:
        data = fs.peek(self.path)
        if data is None:
            self.create(fs)
            data = fs.peek(self.path) or b""
        if self._conn is not None and data == self._bytes:
            return self._conn
        if self._conn is not None:
            self._conn.close()
        self._conn, self._bytes = open_bytes(data), data
        return self._conn

    # --- reading and writing -------------------------------------------------------------------------
    def rows(self, fs: FileSystem, sql: str, params: Params = ()) -> list[dict[str, Any]]:
        """The rows of a SELECT as dicts (none when the file is not a database with that table)."""
        with self._lock:
            try:
                cur = self._open(fs).execute(sql, params)
            except sqlite3.DatabaseError:
                return []
            cols = [d[0] for d in cur.description]
            return [dict(zip(cols, r, strict=True)) for r in cur.fetchall()]

    def scalar(self, fs: FileSystem, sql: str, params: Params = ()) -> Any:
        rs = self.rows(fs, sql, params)
        return next(iter(rs[0].values())) if rs else None

    @contextlib.contextmanager
    def change(self, fs: FileSystem) -> Iterator[sqlite3.Connection]:
        """A transaction on the database; committed and written back to the file when the block ends."""
        with self._lock:
            conn = self._open(fs)
            try:
                yield conn
                conn.commit()
            except BaseException:
                conn.rollback()
                raise
            self._store(fs, conn)

    def execute(self, fs: FileSystem, sql: str, params: Params = ()) -> int:
        """One statement written through; the new row's id (for an INSERT)."""
        with self.change(fs) as conn:
            return int(conn.execute(sql, params).lastrowid or 0)
