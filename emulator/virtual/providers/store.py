"""A provider's SQLite database file in the device's file system, kept as one truth with the data the provider
and the app serve (docs/virtual-device.md, "Where the data lives").

A `Database` watches its file (`FileSystem.watch`). Before anyone reads or stats the file (`adb pull`, `cat`,
`ls -l`, the shell's `sqlite3`) it is written afresh from the provider's data, if that changed since it was last
written: a real SQLite database with Android's tables (the `Schema`). After anyone writes the file (`adb push`, a
shell redirection, `cp`, `sqlite3`) its tables are read back into the provider's data, so `content query` and
the app show them; a file that is not such a database (a half-written one, other tables) is left as it is and
the provider keeps its data, as a provider keeps its open database.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from ..sqlitefile import open_bytes, to_bytes
from ..ui.host import Device

Rows = dict[str, list[dict[str, Any]]]  # table -> rows (column -> value)


@dataclass(frozen=True)
class Schema:
    path: str  # where Android keeps the file
    ddl: str  # CREATE TABLE / VIEW statements
    tables: tuple[str, ...]  # the tables a file must have to be taken in
    dump: Callable[[Any], Rows]  # the provider's data as rows (under the model's lock)
    load: Callable[[Any, sqlite3.Connection], None]  # rows into the provider's data (under the model's lock)


def build(ddl: str, rows: Rows) -> bytes:
    """A database file with the schema and the rows."""
    conn = sqlite3.connect(":memory:")
    try:
        conn.executescript(ddl)
        for table, rs in rows.items():
            for r in rs:
                cols = list(r)
                conn.execute(
                    f"INSERT INTO {table} ({', '.join(cols)}) VALUES ({', '.join('?' * len(cols))})",
                    [r[c] for c in cols],
                )
        conn.commit()
        return to_bytes(conn)
    finally:
        conn.close()


def has_tables(conn: sqlite3.Connection, tables: tuple[str, ...]) -> bool:
    names = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type IN ('table', 'view')")}
    return all(t in names for t in tables)


def query(conn: sqlite3.Connection, sql: str) -> list[dict[str, Any]]:
    """Rows of a SELECT as dicts."""
    cur = conn.execute(sql)
    cols = [d[0] for d in cur.description]
    return [dict(zip(cols, r, strict=True)) for r in cur.fetchall()]


class Database:
    """One database file of the model, written from and read into the provider's data (module docstring)."""

    def __init__(self, model: Device, schema: Schema) -> None:
        self.model, self.schema = model, schema
        self._own: bytes | None = None  # the bytes last written or taken in
        self._rows: Rows | None = None  # the data those bytes hold
        self._writing = False

    def before_read(self, path: str) -> None:
        fs = self.model.fs
        with self.model.lock:
            rows = self.schema.dump(self.model)
            current = fs.peek(path)
            if current is not None and rows == self._rows and current == self._own:
                return
            data = build(self.schema.ddl, rows)
            self._own, self._rows = data, rows
            if current != data:
                self._writing = True
                try:
                    fs.write(path, data, mode=0o660, parents=True)
                finally:
                    self._writing = False

    def after_write(self, path: str) -> None:
        with self.model.lock:
            if self._writing:
                return
            data = self.model.fs.peek(path)
            if data is None or data == self._own:
                return
            try:
                conn = open_bytes(data)
            except sqlite3.DatabaseError:
                return
            try:
                if not has_tables(conn, self.schema.tables):
                    return
                self.schema.load(self.model, conn)
            except (sqlite3.DatabaseError, ValueError, TypeError, KeyError):  # not rows the provider can take
                return
            finally:
                conn.close()
            self._own, self._rows = data, self.schema.dump(self.model)
        self.model.events.log("database", action="load", path=path)
