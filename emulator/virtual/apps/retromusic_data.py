"""Retro Music's data: its two SQLite files, its preferences, and the songs it reads from MediaStore.

- `playlist.db` (/data/data/code.name.monkey.retromusic/databases/playlist.db): the Room database RetroDatabase,
  version 24 (exportSchema = false: the identity hash here is ours, Room's own is not published) with the tables
  Room creates for its entities - `PlaylistEntity` (playlist_id, playlist_name), `SongEntity` (song_key, the
  playlist's id in playlist_creator_id, then the song's MediaStore columns: id, title, track_number, year,
  duration, data, date_modified, album_id, album_name, artist_id, artist_name, composer, album_artist; unique on
  (playlist_creator_id, id)), `HistoryEntity`, `PlayCountEntity` - with `room_master_table` and `android_metadata`.
  Songs go in as PlaylistDao.insertSongsToPlaylist does (INSERT OR REPLACE: a song added again to a playlist
  moves to its end, with a new song_key); a playlist's songs are read in song_key order.
- `music_playback_state.db`: MusicPlaybackQueueStore (SQLiteOpenHelper version 12): `playing_queue` and
  `original_playing_queue` with the song columns (_id, title, track, year, duration, _data, date_modified,
  album_id, album, artist_id, artist, composer, album_artist), rewritten whole on every change of the queue.
- the default SharedPreferences: the queue's position (`POSITION`, `POSITION_IN_TRACK`), `SHUFFLE_MODE`,
  `REPEAT_MODE`, the last tab, the What's New version seen (`last_changelog_version`).

The songs are MediaStore's audio (`mediastore.rows`) as RealSongRepository selects them: is_music = 1, a title,
and at least 20 s long (the "filter song length" default), sorted by title with a collator.
"""

from __future__ import annotations

import hashlib
import posixpath
from dataclasses import dataclass
from typing import Any

from ..appstorage import AppDatabase, SharedPrefs
from ..fs import FileSystem, FsError
from ..mediameta import MEDIA_TYPE_AUDIO, java_hash
from ..mediastore import fs_path
from ..mediastore import rows as media_rows

PKG = "code.name.monkey.retromusic"
MAIN = f"{PKG}.activities.MainActivity"
VERSION_NAME, VERSION_CODE = "6.1.0", 10603  # code.name.monkey.retromusic_10603.apk, the build AndroidWorld installs
PERMISSIONS = (
    "android.permission.BLUETOOTH",
    "android.permission.DISABLE_KEYGUARD",
    "android.permission.SCHEDULE_EXACT_ALARM",
    "android.permission.VIBRATE",
    "android.permission.WAKE_LOCK",
    "android.permission.READ_EXTERNAL_STORAGE",
    "android.permission.READ_MEDIA_AUDIO",
    "android.permission.POST_NOTIFICATIONS",
    "android.permission.WRITE_EXTERNAL_STORAGE",
    "android.permission.INTERNET",
    "android.permission.ACCESS_NETWORK_STATE",
    "android.permission.BROADCAST_STICKY",
    "android.permission.FOREGROUND_SERVICE",
    "android.permission.WRITE_SETTINGS",
    "android.permission.RECEIVE_BOOT_COMPLETED",
    "android.permission.USE_FULL_SCREEN_INTENT",
    "android.permission.BLUETOOTH_CONNECT",
)
MIN_DURATION_MS = 20 * 1000  # PreferenceUtil.filterLength: 20 s
DOWNLOAD = "/sdcard/Download"

_SONG_COLUMNS = """`id` INTEGER NOT NULL, `title` TEXT NOT NULL, `track_number` INTEGER NOT NULL,
 `year` INTEGER NOT NULL, `duration` INTEGER NOT NULL, `data` TEXT NOT NULL, `date_modified` INTEGER NOT NULL,
 `album_id` INTEGER NOT NULL, `album_name` TEXT NOT NULL, `artist_id` INTEGER NOT NULL,
 `artist_name` TEXT NOT NULL, `composer` TEXT, `album_artist` TEXT"""
_ROOM_DDL = f"""
CREATE TABLE IF NOT EXISTS `PlaylistEntity` (`playlist_id` INTEGER PRIMARY KEY AUTOINCREMENT NOT NULL,
 `playlist_name` TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS `SongEntity` (`song_key` INTEGER PRIMARY KEY AUTOINCREMENT NOT NULL,
 `playlist_creator_id` INTEGER NOT NULL, {_SONG_COLUMNS});
CREATE UNIQUE INDEX IF NOT EXISTS `index_SongEntity_playlist_creator_id_id` ON `SongEntity`
 (`playlist_creator_id`, `id`);
CREATE TABLE IF NOT EXISTS `HistoryEntity` ({_SONG_COLUMNS},
 `time_played` INTEGER NOT NULL, PRIMARY KEY(`id`));
CREATE TABLE IF NOT EXISTS `PlayCountEntity` ({_SONG_COLUMNS}, `time_played` INTEGER NOT NULL,
 `play_count` INTEGER NOT NULL, PRIMARY KEY(`id`));
"""
IDENTITY_HASH = hashlib.md5(_ROOM_DDL.encode()).hexdigest()
PLAYLIST_DDL = f"""{_ROOM_DDL}
CREATE TABLE IF NOT EXISTS room_master_table (id INTEGER PRIMARY KEY,identity_hash TEXT);
INSERT OR REPLACE INTO room_master_table (id,identity_hash) VALUES(42, '{IDENTITY_HASH}');
CREATE TABLE android_metadata (locale TEXT);
INSERT INTO android_metadata VALUES ('en_US');
"""
PLAYLIST_DB = AppDatabase(PKG, "playlist.db", PLAYLIST_DDL, 24)

_QUEUE_COLUMNS = (
    "_id INT NOT NULL,title STRING NOT NULL,track INT NOT NULL,year INT NOT NULL,duration LONG NOT NULL,"
    "_data STRING NOT NULL,date_modified LONG NOT NULL,album_id INT NOT NULL,album STRING NOT NULL,"
    "artist_id INT NOT NULL,artist STRING NOT NULL,composer STRING,album_artist STRING"
)
QUEUE_DDL = f"""
CREATE TABLE android_metadata (locale TEXT);
INSERT INTO android_metadata VALUES ('en_US');
CREATE TABLE IF NOT EXISTS playing_queue({_QUEUE_COLUMNS});
CREATE TABLE IF NOT EXISTS original_playing_queue({_QUEUE_COLUMNS});
"""
QUEUE_DB = AppDatabase(PKG, "music_playback_state.db", QUEUE_DDL, 12)
PREFS = SharedPrefs(PKG)
# preference keys (MusicService, PreferenceUtil)
SAVED_POSITION, SAVED_POSITION_IN_TRACK = "POSITION", "POSITION_IN_TRACK"
SAVED_SHUFFLE_MODE, SAVED_REPEAT_MODE = "SHUFFLE_MODE", "REPEAT_MODE"
LAST_USED_TAB, LAST_CHANGELOG_VERSION = "last_used_tab", "last_changelog_version"
REPEAT_NONE, REPEAT_ALL, REPEAT_THIS = 0, 1, 2

STRINGS: dict[str, tuple[str, str]] = {
    "for_you": ("For you", "私人订制"),
    "songs": ("Songs", "歌曲"),
    "song": ("Song", "歌曲"),
    "albums": ("Albums", "专辑"),
    "artists": ("Artists", "艺术家"),
    "playlists": ("Playlists", "播放列表"),
    "action_play": ("Play", "播放"),
    "action_play_next": ("Play next", "下一首播放"),
    "action_add_to_playing_queue": ("Add to playing queue", "加入播放队列"),
    "action_add_to_playlist": ("Add to playlist", "加入播放列表"),
    "action_go_to_album": ("Go to album", "查看专辑"),
    "action_go_to_artist": ("Go to artist", "查看艺术家"),
    "action_share": ("Share", "分享"),
    "action_tag_editor": ("Tag editor", "标签编辑器"),
    "action_details": ("Details", "详情"),
    "action_set_as_ringtone": ("Set as ringtone", "设为铃声"),
    "action_add_to_blacklist": ("Add to Blacklist", "加入黑名单"),
    "action_delete_from_device": ("Delete from device", "从设备中删除"),
    "action_rename": ("Rename", "重命名"),
    "action_delete": ("Delete", "删除"),
    "save_playlist_title": ("Save as file", "保存为文件"),
    "saved_playlist_to": ("Saved playlist to %s.", "保存播放列表到 %s。"),
    "action_new_playlist": ("New playlist", "新建播放列表"),
    "playlist_name_empty": ("Playlist name", "播放列表名"),
    "create_action": ("Create", "创建"),
    "added_title_to_playing_queue": ("Added 1 title to the playing queue.", "已添加 1 首歌到播放队列。"),
    "added_x_titles_to_playing_queue": ("Added %d titles to the playing queue.", "已添加 %d 首歌到播放队列。"),
    "action_clear_playing_queue": ("Clear playing queue", "清空播放队列"),
    "now_playing_queue": ("Now playing queue", "正在播放队列"),
    "action_remove_from_playing_queue": ("Remove from playing queue", "从播放队列中移除"),
    "action_remove_from_playlist": ("Remove from playlist", "从播放列表中移除"),
    "shuffle": ("Shuffle", "随机播放"),
    "action_search": ("Search", "搜索"),
    "history": ("History", "历史记录"),
    "last_added": ("Last added", "最近添加"),
    "my_top_tracks": ("Most played", "最常播放"),
    "favorites": ("Favorites", "收藏夹"),
    "no_songs": ("You have no songs", "暂无歌曲"),
    "no_albums": ("You have no albums", "暂无专辑"),
    "no_artists": ("You have no artists", "暂无艺术家"),
    "no_playlists": ("You have no playlists", "暂无播放列表"),
    "no_results": ("No results", "暂无结果"),
    "up_next": ("Up next", "下一首"),
    "action_save_playing_queue": ("Save playing queue", "保存播放队列"),
    "action_cancel": ("Cancel", "取消"),
    "add_playlist_title": ("Add to playlist", "加入播放列表"),
    "empty": ("Empty", "空空如也"),
    "action_sort_order": ("Sort order", "排序"),
    "action_settings": ("Settings", "设置"),
    "action_grid_size": ("Grid size", "网格大小"),
    "grid_style_label": ("Grid style", "网格样式"),
    "import_playlist": ("Import playlist", "导入播放列表"),
    "playlist_created_sucessfully": ("%s created successfully", "%s 创建成功"),
    "added_song_count_to_playlist": ("Added %d song(s) to %s", "已将 %d 首歌添加到 %s"),
    "clear_playing_queue": ("Clear queue", "清空队列"),
    "action_sleep_timer": ("Sleep timer", "睡眠定时器"),
    "lyrics": ("Lyrics", "歌词"),
    "playback_speed": ("Playback Speed", "播放速度"),
    "drive_mode": ("Drive mode", "驾驶模式"),
    "equalizer": ("Equalizer", "均衡器"),
    "action_go_to_lyrics": ("Go to Lyrics", "查看歌词"),
    "whats_new": ("What's New", "更新内容"),
    "view_on_telegram": ("View on Telegram", "在 Telegram 上查看"),
    "welcome": ("Welcome,", "欢迎，"),
    "action_play_all": ("Play all", "播放全部"),
    "delete_playlist_title": ("Delete playlist", "删除播放列表"),
    "delete_playlist_x": ("Delete the playlist %s?", "确定删除播放列表 %s 吗？"),
    "rename_playlist_title": ("Rename playlist", "重命名播放列表"),
    "remove_song_from_playlist_title": ("Remove song from playlist", "从播放列表中删除歌曲"),
    "remove_song_x_from_playlist": ("Remove the song %s from the playlist?", "是否从播放列表中删除歌曲 %s？"),
    "remove_action": ("Remove", "移除"),
    "label_file_name": ("File name", "文件名"),
    "label_file_path": ("File path", "文件路径"),
    "label_track_length": ("Length", "长度"),
    "label_file_size": ("Size", "文件大小"),
    "action_next": ("Next", "下一首"),
    "action_previous": ("Previous", "上一首"),
    "action_play_pause": ("Play/Pause", "播放/暂停"),
    "action_toggle_shuffle": ("Toggle shuffle mode", "切换随机播放模式"),
    "action_cycle_repeat": ("Cycle repeat mode", "循环重复模式"),
    "more_options": ("More options", "更多选项"),
    "select_all": ("Select all", "全选"),
    "done": ("Done", "完成"),
    "navigate_up": ("Navigate up", "转到上一层级"),
    "app_name": ("Retro Music", "Retro Music"),
}


def tr(locale_zh: bool, key: str) -> str:
    en, zh = STRINGS.get(key, (key, key))
    return zh if locale_zh else en


@dataclass(frozen=True)
class Song:
    """A song as the app's Song model holds it (its MediaStore columns)."""

    id: int
    title: str
    track_number: int
    year: int
    duration: int
    data: str
    date_modified: int
    album_id: int
    album_name: str
    artist_id: int
    artist_name: str
    composer: str
    album_artist: str

    @property
    def path(self) -> str:
        return fs_path(self.data)


def _key_id(text: str) -> int:
    """MediaProvider's album / artist id for a name (a stable positive number)."""
    return abs(java_hash(text.lower())) if text else 0


def _song_of_media(r: dict[str, Any]) -> Song:
    album = str(r.get("album") or "")
    artist = str(r.get("artist") or "")
    return Song(
        id=int(r["_id"]),
        title=str(r.get("title") or ""),
        track_number=int(r.get("track") or 0),
        year=int(r.get("year") or 0),
        duration=int(r.get("duration") or 0),
        data=str(r["_data"]),
        date_modified=int(r.get("date_modified") or 0),
        album_id=_key_id(album + "|" + posixpath.dirname(str(r["_data"]))),
        album_name=album,
        artist_id=_key_id(artist),
        artist_name=artist,
        composer=str(r.get("composer") or ""),
        album_artist=str(r.get("album_artist") or ""),
    )


def all_songs(fs: FileSystem) -> list[Song]:
    """The library: MediaStore's music of 20 s or more with a title, by title (the Songs tab's default order)."""
    rows = media_rows(
        fs,
        "media_type = ? AND is_music = 1 AND title != '' AND duration >= ?",
        (MEDIA_TYPE_AUDIO, MIN_DURATION_MS),
    )
    return sorted((_song_of_media(r) for r in rows), key=lambda s: (s.title.casefold(), s.title))


def last_added(fs: FileSystem) -> list[Song]:
    dates = {
        int(r["_id"]): int(r.get("date_added") or 0) for r in media_rows(fs, "media_type = ?", (MEDIA_TYPE_AUDIO,))
    }
    return sorted(all_songs(fs), key=lambda s: -dates.get(s.id, 0))


def song_text(s: Song) -> str:
    return s.artist_name


def duration_text(ms: int) -> str:
    """MusicUtil.getReadableDurationString: mm:ss, or hh:mm:ss from an hour."""
    minutes, seconds = ms // 1000 // 60, ms // 1000 % 60
    if minutes < 60:
        return f"{minutes:02d}:{seconds:02d}"
    return f"{minutes // 60:02d}:{minutes % 60:02d}:{seconds:02d}"


def count_text(zh: bool, n: int) -> str:
    return f"{n} {tr(zh, 'song' if n == 1 else 'songs')}"


def info_text(zh: bool, songs: list[Song]) -> str:
    """MusicUtil.getPlaylistInfoString: "3 Songs  •  12:34"."""
    return f"{count_text(zh, len(songs))}  \u2022  {duration_text(sum(s.duration for s in songs))}"


# --- playlists (playlist.db) --------------------------------------------------------------------------------------
_ENTITY_COLS = (
    "id, title, track_number, year, duration, data, date_modified, album_id, album_name, artist_id, artist_name,"
    " composer, album_artist"
)


def _song_of_entity(r: dict[str, Any]) -> Song:
    return Song(
        id=int(r["id"]),
        title=str(r["title"]),
        track_number=int(r["track_number"] or 0),
        year=int(r["year"] or 0),
        duration=int(r["duration"] or 0),
        data=str(r["data"]),
        date_modified=int(r["date_modified"] or 0),
        album_id=int(r["album_id"] or 0),
        album_name=str(r["album_name"] or ""),
        artist_id=int(r["artist_id"] or 0),
        artist_name=str(r["artist_name"] or ""),
        composer=str(r["composer"] or ""),
        album_artist=str(r["album_artist"] or ""),
    )


def _entity_values(s: Song) -> tuple[Any, ...]:
    return (
        s.id,
        s.title,
        s.track_number,
        s.year,
        s.duration,
        s.data,
        s.date_modified,
        s.album_id,
        s.album_name,
        s.artist_id,
        s.artist_name,
        s.composer,
        s.album_artist,
    )


@dataclass(frozen=True)
class Playlist:
    id: int
    name: str
    songs: tuple[Song, ...]


def playlists(fs: FileSystem) -> list[Playlist]:
    """The playlists with their songs (song_key order), by name (the Playlists tab's default A-Z order)."""
    entities = PLAYLIST_DB.rows(fs, "SELECT playlist_id, playlist_name FROM PlaylistEntity")
    songs = PLAYLIST_DB.rows(fs, f"SELECT playlist_creator_id, {_ENTITY_COLS} FROM SongEntity ORDER BY song_key")
    out = []
    for e in entities:
        pid = int(e["playlist_id"])
        mine = tuple(_song_of_entity(r) for r in songs if int(r["playlist_creator_id"]) == pid)
        out.append(Playlist(pid, str(e["playlist_name"]), mine))
    return sorted(out, key=lambda p: (p.name.casefold(), p.id))


def playlist(fs: FileSystem, pid: int) -> Playlist | None:
    return next((p for p in playlists(fs) if p.id == pid), None)


def insert_songs(fs: FileSystem, pid: int, songs: list[Song]) -> None:
    """PlaylistDao.insertSongsToPlaylist (REPLACE on the (playlist, song) index)."""
    with PLAYLIST_DB.change(fs) as conn:
        conn.executemany(
            f"INSERT OR REPLACE INTO SongEntity (playlist_creator_id, {_ENTITY_COLS})"
            " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            [(pid, *_entity_values(s)) for s in songs],
        )


def add_to_playlist(fs: FileSystem, name: str, songs: list[Song]) -> bool:
    """LibraryViewModel.addToPlaylist: into the first playlist of that name, made first when none is. True when
    it was made."""
    found = PLAYLIST_DB.rows(fs, "SELECT playlist_id FROM PlaylistEntity WHERE playlist_name = ?", (name,))
    created = not found
    pid = int(found[0]["playlist_id"]) if found else 0
    if created:
        pid = PLAYLIST_DB.execute(fs, "INSERT INTO PlaylistEntity (playlist_name) VALUES (?)", (name,))
    insert_songs(fs, pid, songs)
    return created


def rename_playlist(fs: FileSystem, pid: int, name: str) -> None:
    PLAYLIST_DB.execute(fs, "UPDATE PlaylistEntity SET playlist_name = ? WHERE playlist_id = ?", (name, pid))


def delete_playlist(fs: FileSystem, pid: int) -> None:
    """DeletePlaylistDialog: the playlist's songs, then the playlist."""
    with PLAYLIST_DB.change(fs) as conn:
        conn.execute("DELETE FROM SongEntity WHERE playlist_creator_id = ?", (pid,))
        conn.execute("DELETE FROM PlaylistEntity WHERE playlist_id = ?", (pid,))


def remove_from_playlist(fs: FileSystem, pid: int, song_id: int) -> None:
    PLAYLIST_DB.execute(fs, "DELETE FROM SongEntity WHERE playlist_creator_id = ? AND id = ?", (pid, song_id))


def m3u(songs: tuple[Song, ...] | list[Song]) -> str:
    """M3UWriter.writeIO: the header, then per song its #EXTINF line and its path (nothing for no songs)."""
    if not songs:
        return ""
    lines = ["#EXTM3U"]
    for s in songs:
        lines += [f"#EXTINF:{s.duration},{s.artist_name} - {s.title}", s.data]
    return "\n".join(lines)


def save_document(fs: FileSystem, folder: str, name: str, ext: str, data: bytes) -> str:
    """ExternalStorageProvider.createDocument + the app's write: `<name>.<ext>` in the folder (" (1)" ... when
    taken) -> its path."""
    base = name if name.lower().endswith("." + ext) else f"{name}.{ext}"
    stem = base[: -len(ext) - 1]
    path, n = posixpath.join(folder, base), 1
    while fs.exists(path):
        path = posixpath.join(folder, f"{stem} ({n}).{ext}")
        n += 1
    try:
        fs.mkdir(folder, parents=True)
    except FsError:
        pass
    fs.write(path, data)
    return path


# --- the playing queue (music_playback_state.db, preferences) -------------------------------------------------------
_QUEUE_COLS = "_id, title, track, year, duration, _data, date_modified, album_id, album, artist_id, artist, composer"


def _song_of_queue(r: dict[str, Any]) -> Song:
    return Song(
        id=int(r["_id"]),
        title=str(r["title"]),
        track_number=int(r["track"] or 0),
        year=int(r["year"] or 0),
        duration=int(r["duration"] or 0),
        data=str(r["_data"]),
        date_modified=int(r["date_modified"] or 0),
        album_id=int(r["album_id"] or 0),
        album_name=str(r["album"] or ""),
        artist_id=int(r["artist_id"] or 0),
        artist_name=str(r["artist"] or ""),
        composer=str(r["composer"] or ""),
        album_artist=str(r.get("album_artist") or ""),
    )


@dataclass(frozen=True)
class Queue:
    playing: tuple[Song, ...]
    original: tuple[Song, ...]
    position: int  # -1: none

    @property
    def current(self) -> Song | None:
        return self.playing[self.position] if 0 <= self.position < len(self.playing) else None


def pref_int(fs: FileSystem, key: str, default: int) -> int:
    v = PREFS.read(fs).get(key, default)
    return v if isinstance(v, int) and not isinstance(v, bool) else default


def load_queue(fs: FileSystem) -> Queue:
    """The queue the service restores: both tables read, kept when they are as long as each other and a position
    was saved (MusicService.restoreQueuesAndPositionIfNecessary)."""
    playing = tuple(_song_of_queue(r) for r in QUEUE_DB.rows(fs, "SELECT * FROM playing_queue ORDER BY rowid"))
    original = tuple(
        _song_of_queue(r) for r in QUEUE_DB.rows(fs, "SELECT * FROM original_playing_queue ORDER BY rowid")
    )
    position = pref_int(fs, SAVED_POSITION, -1)
    if not playing or len(playing) != len(original) or position == -1:
        return Queue((), (), -1)
    return Queue(playing, original, min(position, len(playing) - 1))


def save_queue(fs: FileSystem, queue: Queue) -> None:
    """MusicPlaybackQueueStore.saveQueues (both tables emptied and written again) and the position."""
    with QUEUE_DB.change(fs) as conn:
        for table, songs in (("playing_queue", queue.playing), ("original_playing_queue", queue.original)):
            conn.execute(f"DELETE FROM {table}")
            conn.executemany(
                f"INSERT INTO {table} ({_QUEUE_COLS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                [_entity_values(s)[:12] for s in songs],
            )
    PREFS.put(fs, SAVED_POSITION, queue.position)


__all__ = [
    "DOWNLOAD",
    "MAIN",
    "PERMISSIONS",
    "PKG",
    "PLAYLIST_DB",
    "PREFS",
    "QUEUE_DB",
    "STRINGS",
    "VERSION_CODE",
    "VERSION_NAME",
    "Playlist",
    "Queue",
    "Song",
    "add_to_playlist",
    "all_songs",
    "count_text",
    "delete_playlist",
    "duration_text",
    "info_text",
    "insert_songs",
    "last_added",
    "load_queue",
    "m3u",
    "playlist",
    "playlists",
    "pref_int",
    "remove_from_playlist",
    "rename_playlist",
    "save_document",
    "save_queue",
    "song_text",
    "tr",
]
