"""MediaStore's index of shared storage: MediaProvider's `external.db` (`files` table), as on Android 11 and later.

The index is a real SQLite file at /data/data/com.android.providers.media.module/databases/external.db (schema
version 1407, Android 14's), so `adb pull`, `sqlite3` and snapshots see what the gallery, music and video apps
read. Its rows come from the files of /storage/emulated/0 (`/sdcard`, `/data/media/0`), as MediaProvider's own
paths put them there:

- **FUSE**: a file created, changed or removed on shared storage (by `adb push`, the shell, an app) is indexed,
  re-read or dropped before the next read of the index, as the FUSE daemon tells MediaProvider on close;
- **the scan at boot**: the first read after the device starts scans the whole volume;
- **`MEDIA_SCANNER_SCAN_FILE`** (`am broadcast -a android.intent.action.MEDIA_SCANNER_SCAN_FILE -d file:///...`):
  the file, or every file under the folder, is scanned again even when its size and time did not change;
- a `content delete` of a row deletes its file (MediaProvider deletes the file behind a row).

Each row carries what the scanner reads (`mediameta`): MIME and media type, title, artist, album, duration, width,
height, plus the columns apps filter on (relative_path, bucket_id, bucket_display_name, is_download, is_music,
volume_name). App-private external storage (`Android/data`, `Android/obb`) is never indexed; files in a folder
holding `.nomedia` are indexed as plain files (media_type 0).

Left out: the internal volume, thumbnails, `is_pending`/`is_trashed` life cycles, the audio artists/albums/genres
tables, and writes of media columns through `content update`.
"""

from __future__ import annotations

import posixpath
import threading
import weakref
from dataclasses import dataclass
from typing import Any

from .appstorage import AppDatabase
from .fs import FileSystem, FsError, Node
from .mediameta import (
    FORMAT_DIRECTORY,
    MEDIA_TYPE_AUDIO,
    MEDIA_TYPE_IMAGE,
    MEDIA_TYPE_NONE,
    MEDIA_TYPE_VIDEO,
    java_hash,
    media_type_of,
    mime_of,
    probe,
)

PKG = "com.android.providers.media.module"
ROOT = "/sdcard"
SHOWN_ROOT = "/storage/emulated/0"
VOLUME = "external_primary"
SCAN_ACTION = "android.intent.action.MEDIA_SCANNER_SCAN_FILE"
HIDDEN_DIRS = ("Android/data", "Android/obb")
_SPECIAL_AUDIO = ("Ringtones/", "Notifications/", "Alarms/", "Podcasts/", "Audiobooks/", "Recordings/")

DDL = """
CREATE TABLE files (_id INTEGER PRIMARY KEY AUTOINCREMENT, _data TEXT UNIQUE COLLATE NOCASE, _size INTEGER,
 format INTEGER, parent INTEGER, date_added INTEGER, date_modified INTEGER, mime_type TEXT, title TEXT,
 description TEXT, _display_name TEXT, orientation INTEGER, datetaken INTEGER, bucket_id TEXT,
 bucket_display_name TEXT, artist TEXT, album TEXT, album_artist TEXT, composer TEXT, track INTEGER, year INTEGER,
 is_ringtone INTEGER NOT NULL DEFAULT 0, is_music INTEGER NOT NULL DEFAULT 0, is_alarm INTEGER NOT NULL DEFAULT 0,
 is_notification INTEGER NOT NULL DEFAULT 0, is_podcast INTEGER NOT NULL DEFAULT 0, duration INTEGER,
 width INTEGER, height INTEGER, resolution TEXT, media_type INTEGER, is_download INTEGER NOT NULL DEFAULT 0,
 relative_path TEXT DEFAULT NULL, volume_name TEXT DEFAULT NULL, owner_package_name TEXT DEFAULT NULL,
 is_pending INTEGER DEFAULT 0, is_trashed INTEGER DEFAULT 0, is_favorite INTEGER DEFAULT 0,
 generation_added INTEGER DEFAULT 0, generation_modified INTEGER DEFAULT 0);
CREATE INDEX path_index ON files(_data);
CREATE INDEX media_type_index ON files(media_type);
CREATE TABLE local_metadata (generation INTEGER DEFAULT 0);
INSERT INTO local_metadata VALUES (0);
CREATE TABLE android_metadata (locale TEXT);
INSERT INTO android_metadata VALUES ('en_US');
"""
INDEX = AppDatabase(PKG, "external.db", DDL, version=1407)


@dataclass(frozen=True)
class MediaItem:
    """One row of the index, as an app's cursor over MediaStore reads it."""

    id: int
    path: str  # on the device's file system (/sdcard/...)
    data: str  # the `_data` column (/storage/emulated/0/...)
    display_name: str
    relative_path: str  # "Music/" ("" for the root)
    mime_type: str | None
    media_type: int
    size: int
    date_added: int  # seconds
    date_modified: int  # seconds
    title: str
    artist: str | None
    album: str | None
    duration_ms: int | None
    width: int | None
    height: int | None
    bucket_display_name: str


_synced: weakref.WeakKeyDictionary[FileSystem, int] = weakref.WeakKeyDictionary()
_lock = threading.RLock()


def shown(path: str) -> str:
    return SHOWN_ROOT + path[len(ROOT) :]


def fs_path(data: str) -> str:
    for root in (SHOWN_ROOT, "/storage/self/primary", "/data/media/0", "/sdcard"):
        if data == root or data.startswith(root + "/"):
            return ROOT + data[len(root) :]
    return data


def _files(fs: FileSystem) -> dict[str, tuple[Node, bool]]:
    """Every file and folder the scanner sees under the volume: path -> (node, in a .nomedia folder)."""
    out: dict[str, tuple[Node, bool]] = {}

    def walk(folder: str, nomedia: bool) -> None:
        try:
            items = fs.listdir(folder)
        except FsError:
            return
        nomedia = nomedia or any(name == ".nomedia" for name, _ in items)
        for name, node in items:
            path = posixpath.join(folder, name)
            rel = path[len(ROOT) + 1 :]
            if node.is_dir and rel in HIDDEN_DIRS:
                continue
            out[path] = (node, nomedia)
            if node.is_dir:
                walk(path, nomedia)

    walk(ROOT, False)
    return out


def _row(fs: FileSystem, path: str, node: Node, nomedia: bool, now: int) -> dict[str, Any]:
    name = posixpath.basename(path)
    folder = posixpath.dirname(path)
    rel = folder[len(ROOT) + 1 :]
    rel = rel + "/" if rel else ""
    row: dict[str, Any] = {
        "_data": shown(path),
        "_display_name": name,
        "relative_path": rel,
        "parent": None,
        "date_modified": int(node.mtime),
        "bucket_id": str(java_hash(shown(folder).lower())),
        "bucket_display_name": posixpath.basename(folder) if rel else None,
        "volume_name": VOLUME,
        "date_added": now,
    }
    if node.is_dir:
        return row | {"format": FORMAT_DIRECTORY, "_size": 4096, "media_type": MEDIA_TYPE_NONE, "title": name}
    mime = mime_of(name)
    kind = MEDIA_TYPE_NONE if nomedia else media_type_of(mime)
    try:
        data = fs.read(path) if kind in (MEDIA_TYPE_IMAGE, MEDIA_TYPE_AUDIO, MEDIA_TYPE_VIDEO) else b""
    except FsError:
        data = b""
    p = probe(name, mime if kind else None, data)
    return row | {
        "format": 0,
        "_size": node.size,
        "mime_type": mime,
        "media_type": kind,
        "title": p.title,
        "artist": p.artist,
        "album": p.album,
        "album_artist": p.album_artist,
        "duration": p.duration_ms,
        "width": p.width,
        "height": p.height,
        "resolution": f"{p.width}\u00d7{p.height}" if p.width and p.height else None,
        "datetaken": int(node.mtime) * 1000 if kind in (MEDIA_TYPE_IMAGE, MEDIA_TYPE_VIDEO) else None,
        "is_download": int(rel.startswith("Download/")),
        "is_music": int(kind == MEDIA_TYPE_AUDIO and not rel.startswith(_SPECIAL_AUDIO)),
    }


def sync(fs: FileSystem, rescan: tuple[str, ...] = ()) -> None:
    """Bring the index in step with shared storage (the FUSE daemon's reports, the scan at boot); the paths in
    `rescan` (files, or folders for everything under them) are read again whatever their size and time."""
    with _lock:
        if not rescan and _synced.get(fs) == fs.generation and fs.exists(INDEX.path):
            return
        files = _files(fs)
        known = {
            fs_path(str(r["_data"])): r
            for r in INDEX.rows(fs, "SELECT _id, _data, _size, date_modified, format FROM files")
        }
        now = int(fs.now())

        def stale(path: str, node: Node) -> bool:
            r = known[path]
            if any(path == p or path.startswith(p.rstrip("/") + "/") for p in rescan):
                return True
            if node.is_dir:
                return r["format"] != FORMAT_DIRECTORY
            return r["_size"] != node.size or r["date_modified"] != int(node.mtime)

        gone = [r["_id"] for p, r in known.items() if p not in files]
        new = [p for p in files if p not in known]
        changed = [p for p, (node, _) in files.items() if p in known and stale(p, node)]
        if gone or new or changed:
            with INDEX.change(fs) as conn:
                gen = int(conn.execute("SELECT generation FROM local_metadata").fetchone()[0]) + 1
                conn.execute("UPDATE local_metadata SET generation = ?", (gen,))
                conn.executemany("DELETE FROM files WHERE _id = ?", [(i,) for i in gone])
                for path in sorted(new):
                    node, nomedia = files[path]
                    row = _row(fs, path, node, nomedia, now) | {"generation_added": gen, "generation_modified": gen}
                    cols = ", ".join(row)
                    conn.execute(f"INSERT INTO files ({cols}) VALUES ({', '.join('?' * len(row))})", list(row.values()))
                for path in changed:
                    node, nomedia = files[path]
                    row = _row(fs, path, node, nomedia, now) | {"generation_modified": gen}
                    row.pop("date_added")
                    sets = ", ".join(f"{c} = ?" for c in row)
                    conn.execute(f"UPDATE files SET {sets} WHERE _id = ?", [*row.values(), known[path]["_id"]])
                conn.execute(
                    "UPDATE files SET parent = COALESCE((SELECT p._id FROM files p WHERE p._data ="
                    " rtrim(rtrim(files._data, replace(files._data, '/', '')), '/')), -1)"
                )
        _synced[fs] = fs.generation


def scan(fs: FileSystem, uri_or_path: str) -> None:
    """MEDIA_SCANNER_SCAN_FILE's receiver: `file:///storage/emulated/0/Music` (or a plain path) scanned again."""
    path = uri_or_path[len("file://") :] if uri_or_path.startswith("file://") else uri_or_path
    path = fs_path(posixpath.normpath(path or "/"))
    if path == ROOT or path.startswith(ROOT + "/"):
        sync(fs, rescan=(path,))


def rows(fs: FileSystem, where: str = "1", params: tuple[Any, ...] = ()) -> list[dict[str, Any]]:
    """The index's rows (all columns) matching an SQL condition, in row order, after bringing it in step."""
    sync(fs)
    return INDEX.rows(fs, f"SELECT * FROM files WHERE {where} ORDER BY _id", params)


def columns(fs: FileSystem) -> list[str]:
    """The `files` table's columns, in order (a query without a projection gets them all, as on Android)."""
    return [str(r["name"]) for r in INDEX.rows(fs, "PRAGMA table_info(files)")]


def items(fs: FileSystem, media_type: int | None = None) -> list[MediaItem]:
    """The media of one type (MEDIA_TYPE_AUDIO, ...; None: every file but folders), as an app's query lists them."""
    where, params = ("media_type = ?", (media_type,)) if media_type is not None else ("format != ?", (0x3001,))
    return [
        MediaItem(
            id=int(r["_id"]),
            path=fs_path(str(r["_data"])),
            data=str(r["_data"]),
            display_name=str(r["_display_name"]),
            relative_path=str(r["relative_path"] or ""),
            mime_type=r["mime_type"],
            media_type=int(r["media_type"] or 0),
            size=int(r["_size"] or 0),
            date_added=int(r["date_added"] or 0),
            date_modified=int(r["date_modified"] or 0),
            title=str(r["title"] or ""),
            artist=r["artist"],
            album=r["album"],
            duration_ms=r["duration"],
            width=r["width"],
            height=r["height"],
            bucket_display_name=str(r["bucket_display_name"] or ""),
        )
        for r in rows(fs, where, params)
    ]


__all__ = ["INDEX", "PKG", "SCAN_ACTION", "MediaItem", "columns", "fs_path", "items", "rows", "scan", "shown", "sync"]
