"""VLC's media library: VideoLAN medialibrary 0.13.5 (database model 36, the one VLC for Android 3.5.4 builds in),
kept in /data/data/org.videolan.vlc/app_db/vlc_media.db. The file is the app's one truth: its screens read these
rows, adding to a playlist writes them, and what `adb push` puts there is what the app shows next.

The schema is the library's own for the tables the app's lists and playlists use - `Settings` (the model version:
the library keeps it there, not in `user_version`, which stays 0), `Device`, `Folder`, `File`, `Media`,
`Playlist`, `PlaylistMediaRelation` and the full-text tables beside them - with the triggers that keep them
consistent when rows go (a `DELETE FROM Media` drops the media's playlist entries and renumbers the positions
after them, as AndroidWorld's clean-up relies on).

`scan` is the discoverer on the main storage (`main-storage`, /storage/emulated/0): every audio and video file
there (as MediaStore's index lists them, with the durations its scanner read) gets a `File` and a `Media` row,
files gone lose theirs, and a media whose file row was orphaned is discovered again. A video's title is its file
name cleaned as the library's title analyzer does (extension, separators, release tags). Left out: albums,
artists, genres, shows, thumbnails, the parser's task queue, external and network media, media groups as rows (the
video list groups titles by their common prefix when it draws them, as the library's automatic groups do).
"""

from __future__ import annotations

import posixpath
import re
import sqlite3
from typing import Any
from urllib.parse import quote, unquote

from ..appstorage import AppDatabase, SharedPrefs
from ..mediameta import MEDIA_TYPE_AUDIO, MEDIA_TYPE_VIDEO
from ..mediastore import MediaItem, fs_path, items, shown
from ..ui.host import Device

PKG = "org.videolan.vlc"
VERSION_NAME = "3.5.4"
VERSION_CODE = 13050408
MODEL_VERSION = 36
MAIN_STORAGE = "main-storage"
ROOT = "/sdcard"
SHOWN_ROOT = "/storage/emulated/0"
TYPE_UNKNOWN, TYPE_VIDEO, TYPE_AUDIO = 0, 1, 2  # IMedia::Type
FILE_MAIN = 1  # IFile::Type::Main
GROUP_PREFIX = 6  # MediaGroup::AutomaticGroupPrefixSize
ALL_FILES_OP = "MANAGE_EXTERNAL_STORAGE"

DDL = """
CREATE TABLE Settings(db_model_version UNSIGNED INTEGER NOT NULL, max_task_attempts UNSIGNED INTEGER NOT NULL,
 max_link_task_attempts UNSIGNED INTEGER NOT NULL);
INSERT INTO Settings VALUES(36, 2, 6);
CREATE TABLE Device(id_device INTEGER PRIMARY KEY AUTOINCREMENT, uuid TEXT COLLATE NOCASE, scheme TEXT,
 is_removable BOOLEAN, is_present BOOLEAN, is_network BOOLEAN, last_seen UNSIGNED INTEGER,
 UNIQUE(uuid,scheme) ON CONFLICT FAIL);
CREATE TABLE Folder(id_folder INTEGER PRIMARY KEY AUTOINCREMENT, path TEXT, name TEXT COLLATE NOCASE,
 parent_id UNSIGNED INTEGER, is_banned BOOLEAN NOT NULL DEFAULT 0, device_id UNSIGNED INTEGER,
 is_removable BOOLEAN NOT NULL, nb_audio UNSIGNED INTEGER NOT NULL DEFAULT 0,
 nb_video UNSIGNED INTEGER NOT NULL DEFAULT 0,
 FOREIGN KEY(parent_id) REFERENCES Folder(id_folder) ON DELETE CASCADE,
 FOREIGN KEY(device_id) REFERENCES Device(id_device) ON DELETE CASCADE,
 UNIQUE(path,device_id) ON CONFLICT FAIL);
CREATE VIRTUAL TABLE FolderFts USING FTS3(name);
CREATE TABLE Media(id_media INTEGER PRIMARY KEY AUTOINCREMENT, type INTEGER,
 subtype INTEGER NOT NULL DEFAULT 0, duration INTEGER DEFAULT -1, last_position REAL DEFAULT -1,
 last_time INTEGER DEFAULT -1, play_count UNSIGNED INTEGER NOT NULL DEFAULT 0, last_played_date UNSIGNED INTEGER,
 insertion_date UNSIGNED INTEGER, release_date UNSIGNED INTEGER, title TEXT COLLATE NOCASE,
 filename TEXT COLLATE NOCASE, is_favorite BOOLEAN NOT NULL DEFAULT 0, is_present BOOLEAN NOT NULL DEFAULT 1,
 device_id INTEGER, nb_playlists UNSIGNED INTEGER NOT NULL DEFAULT 0, folder_id UNSIGNED INTEGER,
 import_type UNSIGNED INTEGER NOT NULL, group_id UNSIGNED INTEGER, forced_title BOOLEAN NOT NULL DEFAULT 0,
 artist_id UNSIGNED INTEGER, genre_id UNSIGNED INTEGER, track_number UNSIGEND INTEGER, album_id UNSIGNED INTEGER,
 disc_number UNSIGNED INTEGER, lyrics TEXT,
 FOREIGN KEY(folder_id) REFERENCES Folder(id_folder));
CREATE VIRTUAL TABLE MediaFts USING FTS3(title,labels);
CREATE TABLE File(id_file INTEGER PRIMARY KEY AUTOINCREMENT, media_id UNSIGNED INT DEFAULT NULL,
 playlist_id UNSIGNED INT DEFAULT NULL, mrl TEXT, type UNSIGNED INTEGER, last_modification_date UNSIGNED INT,
 size UNSIGNED INT, folder_id UNSIGNED INTEGER, is_removable BOOLEAN NOT NULL, is_external BOOLEAN NOT NULL,
 is_network BOOLEAN NOT NULL,
 FOREIGN KEY(media_id) REFERENCES Media(id_media) ON DELETE CASCADE,
 FOREIGN KEY(playlist_id) REFERENCES Playlist(id_playlist) ON DELETE CASCADE,
 FOREIGN KEY(folder_id) REFERENCES Folder(id_folder) ON DELETE CASCADE,
 UNIQUE(mrl,folder_id) ON CONFLICT FAIL);
CREATE TABLE Playlist(id_playlist INTEGER PRIMARY KEY AUTOINCREMENT, name TEXT COLLATE NOCASE,
 creation_date UNSIGNED INT NOT NULL, artwork_mrl TEXT, nb_video UNSIGNED INT NOT NULL DEFAULT 0,
 nb_audio UNSIGNED INT NOT NULL DEFAULT 0, nb_unknown UNSIGNED INT NOT NULL DEFAULT 0,
 nb_present_video UNSIGNED INT NOT NULL DEFAULT 0 CHECK(nb_present_video <= nb_video),
 nb_present_audio UNSIGNED INT NOT NULL DEFAULT 0 CHECK(nb_present_audio <= nb_audio),
 nb_present_unknown UNSIGNED INT NOT NULL DEFAULT 0 CHECK(nb_present_unknown <= nb_unknown),
 duration UNSIGNED INT NOT NULL DEFAULT 0, nb_duration_unknown UNSIGNED INT NOT NULL DEFAULT 0);
CREATE VIRTUAL TABLE PlaylistFts USING FTS3(name);
CREATE TABLE PlaylistMediaRelation(media_id INTEGER, playlist_id INTEGER, position INTEGER,
 FOREIGN KEY(media_id) REFERENCES Media(id_media) ON DELETE NO ACTION,
 FOREIGN KEY(playlist_id) REFERENCES Playlist(id_playlist) ON DELETE CASCADE);
CREATE TRIGGER insert_folder_fts AFTER INSERT ON Folder
 BEGIN INSERT INTO FolderFts(rowid,name) VALUES(new.id_folder,new.name); END;
CREATE TRIGGER delete_folder_fts BEFORE DELETE ON Folder
 BEGIN DELETE FROM FolderFts WHERE rowid = old.id_folder; END;
CREATE TRIGGER folder_update_nb_media_on_insert AFTER INSERT ON Media WHEN new.folder_id IS NOT NULL
 BEGIN UPDATE Folder SET nb_audio = nb_audio + (CASE new.type WHEN 2 THEN 1 ELSE 0 END),
 nb_video = nb_video + (CASE new.type WHEN 1 THEN 1 ELSE 0 END) WHERE id_folder = new.folder_id; END;
CREATE TRIGGER folder_update_nb_media_on_delete AFTER DELETE ON Media WHEN old.folder_id IS NOT NULL
 BEGIN UPDATE Folder SET nb_audio = nb_audio + (CASE old.type WHEN 2 THEN -1 ELSE 0 END),
 nb_video = nb_video + (CASE old.type WHEN 1 THEN -1 ELSE 0 END) WHERE id_folder = old.folder_id; END;
CREATE TRIGGER media_update_device_presence AFTER UPDATE OF is_present ON Device
 WHEN old.is_present != new.is_present
 BEGIN UPDATE Media SET is_present=new.is_present WHERE device_id=new.id_device; END;
CREATE TRIGGER media_cascade_file_deletion AFTER DELETE ON File WHEN old.type = 1 OR old.type = 6
 BEGIN DELETE FROM Media WHERE id_media=old.media_id; END;
CREATE TRIGGER media_cascade_file_update AFTER UPDATE OF media_id ON File
 WHEN old.media_id != new.media_id AND old.type = 1
 BEGIN DELETE FROM Media WHERE id_media = old.media_id; END;
CREATE TRIGGER insert_media_fts AFTER INSERT ON Media
 BEGIN INSERT INTO MediaFts(rowid,title,labels) VALUES(new.id_media, new.title, ''); END;
CREATE TRIGGER delete_media_fts BEFORE DELETE ON Media
 BEGIN DELETE FROM MediaFts WHERE rowid = old.id_media; END;
CREATE TRIGGER update_media_title_fts AFTER UPDATE OF title ON Media
 BEGIN UPDATE MediaFts SET title = new.title WHERE rowid = new.id_media; END;
CREATE TRIGGER increment_media_nb_playlist AFTER INSERT ON PlaylistMediaRelation
 BEGIN UPDATE Media SET nb_playlists = nb_playlists + 1 WHERE id_media = new.media_id; END;
CREATE TRIGGER decrement_media_nb_playlist AFTER DELETE ON PlaylistMediaRelation
 BEGIN UPDATE Media SET nb_playlists = nb_playlists - 1 WHERE id_media = old.media_id; END;
CREATE TRIGGER update_playlist_order_on_insert AFTER INSERT ON PlaylistMediaRelation
 WHEN new.position IS NOT NULL
 BEGIN UPDATE PlaylistMediaRelation SET position = position + 1 WHERE playlist_id = new.playlist_id
 AND position >= new.position AND rowid != new.rowid; END;
CREATE TRIGGER update_playlist_order_on_delete AFTER DELETE ON PlaylistMediaRelation
 BEGIN UPDATE PlaylistMediaRelation SET position = position - 1 WHERE playlist_id = old.playlist_id
 AND position > old.position; END;
CREATE TRIGGER insert_playlist_fts AFTER INSERT ON Playlist
 BEGIN INSERT INTO PlaylistFts(rowid, name) VALUES(new.id_playlist, new.name); END;
CREATE TRIGGER update_playlist_fts AFTER UPDATE OF name ON Playlist
 BEGIN UPDATE PlaylistFts SET name = new.name WHERE rowid = new.id_playlist; END;
CREATE TRIGGER delete_playlist_fts BEFORE DELETE ON Playlist
 BEGIN DELETE FROM PlaylistFts WHERE rowid = old.id_playlist; END;
CREATE TRIGGER playlist_update_nb_media_on_media_deletion AFTER DELETE ON Media WHEN old.nb_playlists > 0
 BEGIN UPDATE Playlist SET
 nb_video = nb_video - IIF(old.type = 1, items.count, 0),
 nb_present_video = nb_present_video - IIF(old.is_present != 0, IIF(old.type = 1, items.count, 0), 0),
 nb_audio = nb_audio - IIF(old.type = 2, items.count, 0),
 nb_present_audio = nb_present_audio - IIF(old.is_present != 0, IIF(old.type = 2, items.count, 0), 0),
 nb_unknown = nb_unknown - IIF(old.type = 0, items.count, 0),
 nb_present_unknown = nb_present_unknown - IIF(old.is_present != 0, IIF(old.type = 0, items.count, 0), 0),
 duration = duration - items.dur, nb_duration_unknown = nb_duration_unknown - IIF(items.dur <= 0, items.count, 0)
 FROM (SELECT COUNT(media_id) AS count, TOTAL(IIF(old.duration > 0, old.duration, 0)) AS dur, playlist_id
 FROM PlaylistMediaRelation WHERE media_id = old.id_media GROUP BY playlist_id) AS items
 WHERE id_playlist = items.playlist_id;
 DELETE FROM PlaylistMediaRelation WHERE media_id = old.id_media; END;
CREATE INDEX media_last_played_date_idx ON Media(last_played_date DESC);
CREATE INDEX media_presence_idx ON Media(is_present);
CREATE INDEX media_types_idx ON Media(type, subtype);
CREATE INDEX media_folder_id_idx ON Media(folder_id);
CREATE INDEX media_title_idx ON Media(title);
CREATE INDEX media_filename_idx ON Media(filename);
CREATE INDEX file_media_id_index ON File(media_id);
CREATE INDEX file_folder_id_index ON File(folder_id);
CREATE INDEX file_playlist_id_index ON File(playlist_id);
CREATE INDEX playlist_position_pl_id_index ON PlaylistMediaRelation(playlist_id,position);
CREATE INDEX playlist_rel_media_id_idx ON PlaylistMediaRelation(media_id);
"""
DB = AppDatabase(PKG, "vlc_media.db", DDL, version=0, directory="app_db")
PREFS = SharedPrefs(PKG)  # org.videolan.vlc_preferences.xml: the app's Settings
ONBOARDING_DONE = "app_onboarding_done"
KEY_CARDS = "video_display_in_cards"  # the video grid (true) or list
KEY_GROUPING = "video_min_group_length"  # "6" by name (the default), "-1" not grouped
GROUP_BY_NAME, GROUP_NONE = "6", "-1"


def can_read_storage(model: Device) -> bool:
    """Permissions.canReadStorage on Android 11+: all-files access (the MANAGE_EXTERNAL_STORAGE app-op)."""
    pkg = model.packages.get(PKG)
    return pkg is not None and pkg.appops.get(ALL_FILES_OP) == "allow"


def pref(model: Device, key: str, default: str | bool | int) -> str | bool | int:
    return PREFS.read(model.fs).get(key, default)


# --- titles ------------------------------------------------------------------------------------------------------
_SEP = r"[.\-_+]"
_EXTENSION = re.compile(r"\.[A-Za-z0-9]{2,4}$")
_SEPARATORS = re.compile(rf"(^|\s|\b|\(|\[){_SEP}{{1,2}}(?=\b|\s|\)|\]|$)")
_TAGS = re.compile(
    r"\b(xvid|dvd|rip|divx|x264|x265|hdtv|aac|webrip|bluray|bdrip|brrip|dvdrip|ac3|hdtc|mp4|mkv|avi|hdrip|hevc|"
    r"flac|10\s?bits?|[0-9]{3,4}[pi]|yify|rarbg|amzn|ettv)\b",
    re.IGNORECASE,
)


def title_of(filename: str) -> str:
    """The title the library's analyzer gives a video file: the extension dropped, `.` `_` `-` `+` between words
    made spaces, release tags (codecs, resolutions, containers) removed, spaces trimmed (the name when nothing is
    left)."""
    s = _EXTENSION.sub("", filename)
    s = _SEPARATORS.sub(" ", s)
    s = _TAGS.sub("", s)
    s = re.sub(r"\s+", " ", s).strip()
    return s or filename


# --- paths and MRLs ----------------------------------------------------------------------------------------------
def mrl_of(path: str) -> str:
    """`file:///storage/emulated/0/...` of a file of shared storage (the library's URL encoding)."""
    return "file://" + quote(shown(path), safe="/-._~!$&'()*+,;=:@")


def path_of(mrl: str) -> str:
    return fs_path(unquote(mrl[len("file://") :]) if mrl.startswith("file://") else mrl)


def duration_text(ms: int | None) -> str:
    """Tools.millisToString: m:ss, or h:mm:ss past an hour."""
    s = max(0, int(ms or 0)) // 1000
    h, m, sec = s // 3600, s // 60 % 60, s % 60
    return f"{h}:{m:02d}:{sec:02d}" if h else f"{m}:{sec:02d}"


def talkback_duration(ms: int | None) -> str:
    """TalkbackUtil.millisToString: '1 minutes 5 seconds'."""
    s = max(0, int(ms or 0)) // 1000
    h, m, sec = s // 3600, s // 60 % 60, s % 60
    parts = [f"{h} hours" if h else "", f"{m} minutes" if m else "", f"{sec} seconds" if sec else ""]
    return " ".join(p for p in parts if p)


# --- the discoverer ----------------------------------------------------------------------------------------------
def _device_id(conn: sqlite3.Connection, now: int) -> int:
    row = conn.execute("SELECT id_device FROM Device WHERE uuid = ? AND scheme = 'file://'", (MAIN_STORAGE,)).fetchone()
    if row:
        conn.execute("UPDATE Device SET last_seen = ?, is_present = 1 WHERE id_device = ?", (now, row[0]))
        return int(row[0])
    cur = conn.execute(
        "INSERT INTO Device(uuid, scheme, is_removable, is_present, is_network, last_seen) VALUES(?, 'file://', 0, 1,"
        " 0, ?)",
        (MAIN_STORAGE, now),
    )
    return int(cur.lastrowid or 0)


def _folder_id(conn: sqlite3.Connection, folder: str, device: int) -> int:
    """The Folder row of a folder of shared storage (its parents' first), made when missing."""
    path = mrl_of(folder).rstrip("/") + "/"
    row = conn.execute("SELECT id_folder FROM Folder WHERE path = ? AND device_id = ?", (path, device)).fetchone()
    if row:
        return int(row[0])
    parent = None if folder == ROOT else _folder_id(conn, posixpath.dirname(folder), device)
    name = posixpath.basename(shown(folder))
    cur = conn.execute(
        "INSERT INTO Folder(path, name, parent_id, device_id, is_removable) VALUES(?, ?, ?, ?, 0)",
        (path, name, parent, device),
    )
    return int(cur.lastrowid or 0)


def scan(model: Device) -> None:
    """Discover the main storage: its audio and video files as Media and File rows (module docstring). Writes the
    database only when something changed."""
    fs = model.fs
    kinds = {MEDIA_TYPE_VIDEO: TYPE_VIDEO, MEDIA_TYPE_AUDIO: TYPE_AUDIO}
    wanted = {mrl_of(i.path): i for i in items(fs) if i.media_type in kinds}
    known = {
        str(r["mrl"]): r
        for r in DB.rows(
            fs,
            "SELECT File.id_file, File.mrl, File.size, File.last_modification_date AS mtime, Media.id_media,"
            " Media.duration FROM File LEFT JOIN Media ON Media.id_media = File.media_id WHERE File.type = ?",
            (FILE_MAIN,),
        )
    }
    gone = [r["id_file"] for mrl, r in known.items() if mrl not in wanted or r["id_media"] is None]
    new = sorted(
        (mrl for mrl in wanted if mrl not in known or known[mrl]["id_media"] is None), key=lambda m: wanted[m].path
    )
    changed = [
        mrl
        for mrl, r in known.items()
        if mrl in wanted and r["id_media"] is not None and (r["size"], r["mtime"]) != _stamp(wanted[mrl])
    ]
    if not gone and not new and not changed:
        return
    now = int(model.now())
    with DB.change(fs) as conn:
        conn.executemany("DELETE FROM File WHERE id_file = ?", [(i,) for i in gone])
        device = _device_id(conn, now)
        for mrl in changed:
            item = wanted[mrl]
            conn.execute(
                "UPDATE File SET size = ?, last_modification_date = ? WHERE id_file = ?",
                (*_stamp(item), known[mrl]["id_file"]),
            )
            conn.execute(
                "UPDATE Media SET duration = ? WHERE id_media = ?", (item.duration_ms or -1, known[mrl]["id_media"])
            )
        for mrl in new:
            item = wanted[mrl]
            folder = _folder_id(conn, posixpath.dirname(item.path), device)
            kind = kinds[item.media_type]
            cur = conn.execute(
                "INSERT INTO Media(type, duration, insertion_date, title, filename, device_id, folder_id, import_type)"
                " VALUES(?, ?, ?, ?, ?, ?, ?, 0)",
                (kind, item.duration_ms or -1, now, item.display_name, item.display_name, device, folder),
            )
            media = int(cur.lastrowid or 0)
            title = title_of(item.display_name) if kind == TYPE_VIDEO else (item.title or item.display_name)
            conn.execute("UPDATE Media SET title = ? WHERE id_media = ?", (title, media))  # the parser's pass
            conn.execute(
                "INSERT INTO File(media_id, mrl, type, folder_id, last_modification_date, size, is_removable,"
                " is_external, is_network) VALUES(?, ?, ?, ?, ?, ?, 0, 0, 0)",
                (media, mrl, FILE_MAIN, folder, *reversed(_stamp(item))),
            )


def _stamp(item: MediaItem) -> tuple[int, int]:
    return item.size, item.date_modified


# --- reading ----------------------------------------------------------------------------------------------------
_MEDIA = (
    "SELECT Media.id_media, Media.type, Media.title, Media.filename, Media.duration, Media.play_count,"
    " Media.insertion_date, File.mrl FROM Media JOIN File ON File.media_id = Media.id_media AND File.type = 1"
)


def media(model: Device, kind: int) -> list[dict[str, Any]]:
    """The present media of a type, by title (the library's default sort), each with its file's path."""
    rows = DB.rows(model.fs, _MEDIA + " WHERE Media.type = ? AND Media.is_present = 1 ORDER BY Media.title", (kind,))
    return [r | {"path": path_of(str(r["mrl"]))} for r in rows]


def media_by_id(model: Device, media_id: int) -> dict[str, Any] | None:
    rows = DB.rows(model.fs, _MEDIA + " WHERE Media.id_media = ?", (media_id,))
    return rows[0] | {"path": path_of(str(rows[0]["mrl"]))} if rows else None


def media_id_of(model: Device, path: str) -> int | None:
    """The media of a file (Medialibrary.getMedia(uri)): its id, the file discovered first when it is not yet."""
    mrl = mrl_of(path)
    sql = "SELECT media_id FROM File WHERE mrl = ? AND type = 1 AND media_id IN (SELECT id_media FROM Media)"
    found = DB.scalar(model.fs, sql, (mrl,))
    if found is None:
        scan(model)
        found = DB.scalar(model.fs, sql, (mrl,))
    return int(found) if found is not None else None


def _common(a: str, b: str) -> str:
    n = 0
    while n < min(len(a), len(b)) and a[n].lower() == b[n].lower():
        n += 1
    return a[:n] if n >= GROUP_PREFIX else ""


def video_groups(videos: list[dict[str, Any]]) -> list[tuple[str, list[dict[str, Any]]]]:
    """The library's automatic video groups over `videos` (MediaGroup::assignToGroup in the order the media were
    added): a video joins the group sharing the longest common prefix (6 characters at least, a leading "the "
    aside) with its title, the group renamed to that prefix; else it starts a group named after it. Sorted by name."""
    groups: list[list[Any]] = []  # [name, members]
    for v in sorted(videos, key=lambda r: int(r["id_media"])):
        title = str(v["title"])
        bare = title[4:] if title.lower().startswith("the ") else title
        prefix = bare[:GROUP_PREFIX].lower()
        best: list[Any] | None = None
        pattern = ""
        if len(prefix) >= GROUP_PREFIX:
            for g in groups:
                if str(g[0])[:GROUP_PREFIX].lower() == prefix:
                    match = _common(str(g[0]), bare)
                    if len(match) > len(pattern):
                        best, pattern = g, match
        if best is None:
            groups.append([bare, [v]])
        else:
            best[0] = pattern
            best[1].append(v)
    out = [(str(name), sorted(members, key=lambda r: str(r["title"]).lower())) for name, members in groups]
    return sorted(out, key=lambda g: g[0].lower())


# --- playlists ---------------------------------------------------------------------------------------------------
def playlists(model: Device) -> list[dict[str, Any]]:
    """The playlists by name, with their present media count and duration."""
    return DB.rows(
        model.fs,
        "SELECT id_playlist, name, creation_date, duration, (SELECT COUNT(*) FROM PlaylistMediaRelation r JOIN Media"
        " m ON m.id_media = r.media_id WHERE r.playlist_id = id_playlist AND m.is_present = 1) AS tracks"
        " FROM Playlist ORDER BY name",
    )


def playlist(model: Device, playlist_id: int) -> dict[str, Any] | None:
    return next((p for p in playlists(model) if int(p["id_playlist"]) == playlist_id), None)


def playlist_named(model: Device, name: str) -> dict[str, Any] | None:
    """Medialibrary.getPlaylistByName (the name column's NOCASE collation)."""
    rows = DB.rows(model.fs, "SELECT id_playlist, name FROM Playlist WHERE name = ?", (name,))
    return rows[0] if rows else None


def tracks(model: Device, playlist_id: int) -> list[dict[str, Any]]:
    rows = DB.rows(
        model.fs,
        _MEDIA + " JOIN PlaylistMediaRelation r ON r.media_id = Media.id_media WHERE r.playlist_id = ?"
        " ORDER BY r.position",
        (playlist_id,),
    )
    return [r | {"path": path_of(str(r["mrl"]))} for r in rows]


def create_playlist(model: Device, name: str) -> int:
    """Medialibrary.createPlaylist: a Playlist row (its creation time in seconds); its id."""
    return DB.execute(
        model.fs,
        "INSERT INTO Playlist(name, creation_date, artwork_mrl) VALUES(?, ?, NULL)",
        (name, int(model.now())),
    )


def append(model: Device, playlist_id: int, media_ids: list[int]) -> None:
    """Playlist.append: each media after the playlist's last position, the playlist's counters and duration kept."""
    with DB.change(model.fs) as conn:
        for mid in media_ids:
            row = conn.execute("SELECT type, duration, is_present FROM Media WHERE id_media = ?", (mid,)).fetchone()
            if row is None:
                continue
            kind, duration, present = int(row[0] or 0), int(row[1] or 0), int(row[2] or 0)
            conn.execute(
                "INSERT INTO PlaylistMediaRelation(media_id, playlist_id, position) VALUES(?1, ?2,"
                " (SELECT COUNT(media_id) FROM PlaylistMediaRelation WHERE playlist_id = ?2))",
                (mid, playlist_id),
            )
            video, audio, unknown = int(kind == TYPE_VIDEO), int(kind == TYPE_AUDIO), int(kind == TYPE_UNKNOWN)
            conn.execute(
                "UPDATE Playlist SET nb_video = nb_video + ?, nb_present_video = nb_present_video + ?,"
                " nb_audio = nb_audio + ?, nb_present_audio = nb_present_audio + ?, nb_unknown = nb_unknown + ?,"
                " nb_present_unknown = nb_present_unknown + ?, duration = duration + ?,"
                " nb_duration_unknown = nb_duration_unknown + ? WHERE id_playlist = ?",
                (
                    video,
                    video & present,
                    audio,
                    audio & present,
                    unknown,
                    unknown & present,
                    max(0, duration),
                    int(duration <= 0),
                    playlist_id,
                ),
            )


def remove_track(model: Device, playlist_id: int, position: int) -> None:
    """Playlist.remove(position): the entry goes, the ones after it move up, the counters follow."""
    with DB.change(model.fs) as conn:
        row = conn.execute(
            "SELECT m.type, m.duration, m.is_present FROM PlaylistMediaRelation r JOIN Media m ON m.id_media ="
            " r.media_id WHERE r.playlist_id = ? AND r.position = ?",
            (playlist_id, position),
        ).fetchone()
        conn.execute(
            "DELETE FROM PlaylistMediaRelation WHERE playlist_id = ? AND position = ?", (playlist_id, position)
        )
        if row is not None:
            kind, duration, present = int(row[0] or 0), max(0, int(row[1] or 0)), int(row[2] or 0)
            col = {TYPE_VIDEO: "video", TYPE_AUDIO: "audio"}.get(kind, "unknown")
            conn.execute(
                f"UPDATE Playlist SET nb_present_{col} = nb_present_{col} - ?, nb_{col} = nb_{col} - 1,"
                " duration = duration - ? WHERE id_playlist = ?",
                (present, duration, playlist_id),
            )


def delete_playlist(model: Device, playlist_id: int) -> None:
    with DB.change(model.fs) as conn:
        conn.execute("DELETE FROM PlaylistMediaRelation WHERE playlist_id = ?", (playlist_id,))
        conn.execute("DELETE FROM Playlist WHERE id_playlist = ?", (playlist_id,))


def mark_played(model: Device, media_id: int, played: bool) -> None:
    """Media.markAsPlayed / Media.markAsUnplayed (play_count, last_played_date)."""
    if played:
        DB.execute(
            model.fs,
            "UPDATE Media SET play_count = play_count + 1, last_played_date = ? WHERE id_media = ?",
            (int(model.now()), media_id),
        )
    else:
        DB.execute(
            model.fs,
            "UPDATE Media SET play_count = 0, last_played_date = NULL, last_position = -1, last_time = -1"
            " WHERE id_media = ?",
            (media_id,),
        )
