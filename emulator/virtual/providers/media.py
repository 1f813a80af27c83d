"""content://media (MediaStore) over MediaProvider's index of shared storage (`mediastore`: the `files` table of
external.db, kept in step with the files of /storage/emulated/0 as the FUSE daemon and the media scanner keep it).

Tables (volume `external` or `external_primary`): `file` (every file and folder), `downloads` (under Download/),
`images/media`, `video/media`, `audio/media` (by media type), `audio/playlists`; a row id after the table is one
row (`.../audio/media/12`). Columns are the index's (`_id`, `_data`, `_display_name`, `relative_path`,
`mime_type`, `_size`, `date_added`, `date_modified`, `title`, `artist`, `album`, `duration`, `width`, `height`,
`bucket_id`, ...); a query without a projection gets them all, as on Android. `content delete` deletes the rows'
files, as MediaProvider does. `content insert` creates an empty file at `relative_path` + `_display_name` and
indexes it (a pending item written later by its owner, without the pending life cycle); `update` is refused.
"""

from __future__ import annotations

import posixpath
from typing import Any

from ..fs import FsError
from ..mediameta import MEDIA_TYPE_AUDIO, MEDIA_TYPE_IMAGE, MEDIA_TYPE_PLAYLIST, MEDIA_TYPE_VIDEO
from ..mediastore import ROOT, columns, fs_path, rows, shown, sync
from ..ui.host import Device
from .base import ProviderError, Table, UnknownUri, Values
from .where import Predicate

VOLUMES = ("external", "external_primary")
# table -> the index's condition on it
KINDS = {
    "file": "1",
    "downloads": "is_download = 1",
    "images/media": f"media_type = {MEDIA_TYPE_IMAGE}",
    "video/media": f"media_type = {MEDIA_TYPE_VIDEO}",
    "audio/media": f"media_type = {MEDIA_TYPE_AUDIO}",
    "audio/playlists": f"media_type = {MEDIA_TYPE_PLAYLIST}",
}


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


def _rows(model: Device, table: str, row: int | None) -> list[dict[str, Any]]:
    where = KINDS[table]
    if row is None:
        return rows(model.fs, where)
    return rows(model.fs, f"({where}) AND _id = ?", (row,))


class MediaProvider:
    authorities: tuple[str, ...] = ("media",)

    def query(self, model: Device, path: str) -> Table:
        table, row = _parse(path)
        rs = _rows(model, table, row)
        return Table(columns(model.fs), rs)

    def insert(self, model: Device, path: str, values: Values) -> str:
        table, _ = _parse(path)
        name = str(values.get("_display_name") or "")
        if not name or "/" in name:
            raise ProviderError("insert into the media provider: _display_name is required")
        rel = str(
            values.get("relative_path")
            or {"images/media": "Pictures/", "video/media": "Movies/"}.get(
                table, "Music/" if table.startswith("audio") else "Download/"
            )
        )
        target = posixpath.normpath(posixpath.join(ROOT, rel.strip("/"), name))
        if not target.startswith(ROOT + "/"):
            raise ProviderError(f"insert into the media provider: relative_path {rel!r} is outside the volume")
        try:
            model.fs.mkdir(posixpath.dirname(target), parents=True)
            if not model.fs.exists(target):
                model.fs.write(target, b"")
        except FsError as e:
            raise ProviderError(f"insert into the media provider: {e.message}") from None
        found = rows(model.fs, "_data = ?", (shown(target),))
        return f"content://media/{VOLUMES[0]}/{table}/{found[0]['_id'] if found else 0}"

    def update(self, model: Device, path: str, values: Values, where: Predicate) -> int:
        _parse(path)
        raise ProviderError("update of the media provider: not supported")

    def delete(self, model: Device, path: str, where: Predicate) -> int:
        table, row = _parse(path)
        gone = 0
        for r in _rows(model, table, row):
            if not where(r):
                continue
            try:
                model.fs.remove(fs_path(str(r["_data"])))
            except FsError:
                continue
            gone += 1
        if gone:
            sync(model.fs)
        return gone
