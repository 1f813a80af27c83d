"""content://media (MediaStore) over the files of shared storage: the media provider's rows are the files under
/storage/emulated/0, so what `adb push`, the apps and the shell put there is what it lists, and what it deletes is
gone from the file system (as MediaProvider deletes a row's file).

Tables (volume `external` or `external_primary`): `file` (every file), `downloads` (under Download/),
`images/media`, `video/media`, `audio/media` (by MIME type); a row id after the table is one row
(`.../downloads/12`). Columns: _id, _data, _display_name, relative_path, mime_type, size, date_modified (seconds).
An id is the file's path hashed (stable while the file keeps its path). `insert` and `update` are refused: files
come and go through the file system here.
"""

from __future__ import annotations

import mimetypes
import posixpath
import zlib
from typing import Any

from ..fs import FsError
from ..ui.host import Device
from .base import ProviderError, Table, UnknownUri, Values
from .where import Predicate

ROOT = "/sdcard"
SHOWN_ROOT = "/storage/emulated/0"
COLUMNS = ["_id", "_data", "_display_name", "relative_path", "mime_type", "size", "date_modified"]
VOLUMES = ("external", "external_primary")
KINDS = {"file": "", "downloads": "", "images/media": "image/", "video/media": "video/", "audio/media": "audio/"}


def _parse(path: str) -> tuple[str, int | None]:
    parts = path.split("/")
    if not parts or parts[0] not in VOLUMES:
        raise UnknownUri(path)
    rest = parts[1:]
    row: int | None = None
    if rest and rest[-1].isdigit():
        row = int(rest.pop())
    table = "/".join(rest)
    if table not in KINDS:
        raise UnknownUri(path)
    return table, row


def _rows(model: Device, table: str) -> list[dict[str, Any]]:
    fs = model.fs
    out: list[dict[str, Any]] = []

    def walk(folder: str) -> None:
        try:
            items = fs.listdir(folder)
        except FsError:
            return
        for name, node in items:
            path = posixpath.join(folder, name)
            if node.is_dir:
                walk(path)
                continue
            rel = posixpath.relpath(folder, ROOT)
            mime = mimetypes.guess_type(name)[0] or "application/octet-stream"
            if table == "downloads" and not (rel == "Download" or rel.startswith("Download/")):
                continue
            if KINDS[table] and not mime.startswith(KINDS[table]):
                continue
            shown = SHOWN_ROOT + path[len(ROOT) :]
            out.append(
                {
                    "_id": zlib.crc32(shown.encode()) & 0x7FFFFFFF,
                    "_data": shown,
                    "_display_name": name,
                    "relative_path": ("" if rel == "." else rel) + "/",
                    "mime_type": mime,
                    "size": node.size,
                    "date_modified": node.mtime,
                    "_path": path,
                }
            )

    walk(ROOT)
    return out


class MediaProvider:
    authorities: tuple[str, ...] = ("media",)

    def query(self, model: Device, path: str) -> Table:
        table, row = _parse(path)
        rows = [{c: r[c] for c in COLUMNS} for r in _rows(model, table) if row is None or r["_id"] == row]
        return Table(list(COLUMNS), rows)

    def insert(self, model: Device, path: str, values: Values) -> str:
        _parse(path)
        raise ProviderError("insert into the media provider: files are added through storage here")

    def update(self, model: Device, path: str, values: Values, where: Predicate) -> int:
        _parse(path)
        raise ProviderError("update of the media provider: not supported")

    def delete(self, model: Device, path: str, where: Predicate) -> int:
        table, row = _parse(path)
        gone = 0
        for r in _rows(model, table):
            if (row is not None and r["_id"] != row) or not where({c: r[c] for c in COLUMNS}):
                continue
            try:
                model.fs.remove(r["_path"])
            except FsError:
                continue
            gone += 1
        return gone
