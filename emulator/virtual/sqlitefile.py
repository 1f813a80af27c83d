"""A SQLite database file's bytes and an in-memory connection on them, both ways (the providers' databases and the
apps' own keep their files in the device's file system as bytes)."""

from __future__ import annotations

import contextlib
import os
import sqlite3
import tempfile


def open_bytes(data: bytes) -> sqlite3.Connection:
    """An in-memory connection on a database file's bytes (empty bytes: an empty database). A WAL-mode file (as
    a phone writes them) is read as a rollback-journal one: its pages are all there once the WAL is checkpointed."""
    if len(data) >= 20 and data[18:20] == b"\x02\x02":
        data = data[:18] + b"\x01\x01" + data[20:]
    conn = sqlite3.connect(":memory:", check_same_thread=False)
    if not data:
        return conn
    if hasattr(conn, "deserialize"):  # Python 3.11+
        conn.deserialize(data)
        return conn
    conn.close()  # Python 3.10: through a temporary file
    fd, name = tempfile.mkstemp(suffix=".db")
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
        disk = sqlite3.connect(name)
        conn = sqlite3.connect(":memory:", check_same_thread=False)
        disk.backup(conn)
        disk.close()
        return conn
    finally:
        with contextlib.suppress(OSError):
            os.unlink(name)


def to_bytes(conn: sqlite3.Connection) -> bytes:
    """The database file's bytes of a connection."""
    if hasattr(conn, "serialize"):  # Python 3.11+
        return bytes(conn.serialize())
    fd, name = tempfile.mkstemp(suffix=".db")
    os.close(fd)
    try:
        disk = sqlite3.connect(name)
        conn.backup(disk)
        disk.close()
        with open(name, "rb") as f:
            return f.read()
    finally:
        with contextlib.suppress(OSError):
            os.unlink(name)
