"""Retro Music (code.name.monkey.retromusic) driven as clients drive a phone: the real adb server for the shell, push
and pull, uiautomator2 for the screen. Its songs are MediaStore's (MP3 files pushed to Music/ and scanned), its
truth its two SQLite files: a playlist made in the app is PlaylistEntity / SongEntity rows of playlist.db read as
AndroidWorld's judge reads them, the playing queue is music_playback_state.db's playing_queue, a database pushed
back (as AndroidWorld clears it) is what the app shows after a restart, and Save as file writes the M3U in
Download. Then AndroidWorld's four classes played by the reference agent on the in-process device, and the retro
family's end state."""

from __future__ import annotations

import io
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from mutagen.id3 import ID3, TIT2, TPE1

from emulator.virtual import VirtualDevice
from emulator.virtual.adbserver import PrivateAdbServer
from emulator.virtual.apps.retromusic_data import IDENTITY_HASH
from emulator.virtual.model import VirtualDeviceModel
from emulator.virtual.sqlitefile import open_bytes
from harness.actions import Complete
from harness.device.state import DeviceState
from harness.plugins import create_agent
from harness.run.judge.state_check import evaluate_state
from tasks.families.registry import family_tasks
from tests.agents_helpers import make_task, run
from tests.device_util import open_device
from tests.emulator.virtual.apps.devshell import emulator_image, focus, pull_db, push_db, sh, uiautomator

pytest.importorskip("uiautomator2")

# the module's tests run in order on its one device, in one worker (make test: --dist loadgroup)
pytestmark = pytest.mark.xdist_group("retromusic-device")
PKG = "code.name.monkey.retromusic"
RID = PKG + ":id/"
MAIN = f"{PKG}/.activities.MainActivity"
DBS = f"/data/data/{PKG}/databases"
PLAYLIST_DB, QUEUE_DB = f"{DBS}/playlist.db", f"{DBS}/music_playback_state.db"
MUSIC = "/sdcard/Music"
# AndroidWorld's judge of its playlist classes (retro_music._get_playlist_info_query)
JUDGE = """
SELECT pe.playlist_name AS playlist_name, se.title AS media_file_name, se.duration AS duration_ms,
  ROW_NUMBER() OVER (PARTITION BY pe.playlist_name ORDER BY se.song_key) - 1 AS order_in_playlist
FROM PlaylistEntity pe JOIN SongEntity se ON pe.playlist_id = se.playlist_creator_id
ORDER BY pe.playlist_name, order_in_playlist
"""
SONG_COLUMNS = [
    "id", "title", "track_number", "year", "duration", "data", "date_modified", "album_id", "album_name", "artist_id",
    "artist_name", "composer", "album_artist",
]  # fmt: skip
QUEUE_COLUMNS = [
    "_id", "title", "track", "year", "duration", "_data", "date_modified", "album_id", "album", "artist_id", "artist",
    "composer", "album_artist",
]  # fmt: skip
FRAME_MS = 1152 / 44100 * 1000  # an MPEG-1 Layer III frame at 44.1 kHz


def mp3(title: str, artist: str, ms: int) -> bytes:
    """A silent MP3 of about `ms`: MPEG-1 Layer III frames (128 kb/s, 44.1 kHz: 417 bytes each, zeros after the
    header) behind an ID3 tag of the title and artist."""
    tag = ID3()
    tag.add(TIT2(encoding=3, text=title))
    tag.add(TPE1(encoding=3, text=artist))
    out = io.BytesIO()
    tag.save(out)
    return out.getvalue() + (b"\xff\xfb\x90\x00" + bytes(413)) * max(1, round(ms / FRAME_MS))


SONGS = [("Night Drive", "Ann", 30_000), ("Bright Lights", "Bob", 41_000), ("Moments", "Cy", 25_000)]


@pytest.fixture(scope="module")
def retro_dev(adb_server: PrivateAdbServer) -> Iterator[VirtualDevice]:
    """One device of the emulator's image for the module, adbd as root (the app's files pulled and pushed)."""
    with emulator_image(adb_server, as_root=True) as vd:
        yield vd


@pytest.fixture(scope="module")
def rd(retro_dev: VirtualDevice, adb_server: PrivateAdbServer) -> Iterator[Any]:
    with uiautomator(adb_server, retro_dev.serial) as dev:
        yield dev


def _push_songs(adb_cli: Any, serial: str, tmp: Path, songs: list[tuple[str, str, int]]) -> None:
    for title, artist, ms in songs:
        local = tmp / f"{title}.mp3"
        local.write_bytes(mp3(title, artist, ms))
        assert adb_cli("-s", serial, "push", str(local), f"{MUSIC}/{local.name}").returncode == 0
    sh(
        adb_cli,
        serial,
        "am broadcast -a android.intent.action.MEDIA_SCANNER_SCAN_FILE -d file:///storage/emulated/0/Music",
    )


def test_androidworld_s_set_up_and_the_songs_mediastore_lists(rd, retro_dev, adb_cli, tmp_path: Path):
    s = retro_dev.serial
    dump = sh(adb_cli, s, f"dumpsys package {PKG}")
    assert "versionName=6.1.0" in dump and "versionCode=10603" in dump
    resolved = sh(adb_cli, s, f"cmd package resolve-activity --brief -c android.intent.category.LAUNCHER {PKG}")
    assert resolved.strip().splitlines()[-1] == MAIN
    # RetroMusicApp.setup: data cleared, the permissions granted, the app launched and closed
    sh(adb_cli, s, f"pm clear {PKG}")
    for permission in ("READ_MEDIA_AUDIO", "POST_NOTIFICATIONS"):
        sh(adb_cli, s, f"pm grant {PKG} android.permission.{permission}")
    sh(adb_cli, s, f"am start -n {MAIN}")
    assert focus(adb_cli, s) == f"{PKG}/{PKG}.activities.MainActivity"
    assert rd(resourceId=RID + "tgFab", text="View on Telegram").wait(3)  # What's New, once
    assert sh(adb_cli, s, f"ls {DBS}").split() == ["music_playback_state.db", "playlist.db"]
    sh(adb_cli, s, f"am force-stop {PKG}")
    _push_songs(adb_cli, s, tmp_path, [*SONGS, ("Jingle", "Dee", 5_000)])  # a song under 20 s is not listed
    sh(adb_cli, s, f"am start -n {MAIN}")
    assert not rd(resourceId=RID + "tgFab").exists
    rd(resourceId=RID + "action_song").click()
    assert [e.info["text"] for e in rd(resourceId=RID + "title")] == ["Bright Lights", "Moments", "Night Drive"]
    assert [e.info["text"] for e in rd(resourceId=RID + "text")] == ["Bob", "Cy", "Ann"]


def _fresh(rd: Any, adb_cli: Any, serial: str, tmp: Path) -> None:
    """The app's data cleared and the songs in place (each test starts so, whichever worker runs it), its Songs tab."""
    sh(adb_cli, serial, f"pm clear {PKG}")
    _push_songs(adb_cli, serial, tmp, SONGS)
    sh(adb_cli, serial, f"am start -n {MAIN}")
    rd.press("back")  # What's New
    rd(resourceId=RID + "action_song").click()


def test_a_playlist_made_in_the_app_is_the_rows_androidworld_reads(rd, retro_dev, adb_cli, tmp_path: Path):
    s = retro_dev.serial
    _fresh(rd, adb_cli, s, tmp_path)
    rd(resourceId=RID + "title", text="Night Drive").long_click()  # quick-select mode, in the order checked
    rd(resourceId=RID + "title", text="Bright Lights").click()
    assert rd(resourceId=RID + "selection_mode_number").info["text"] == "2"
    rd(description="Add to playlist").click()
    rd(resourceId="android:id/text1", text="New playlist").click()
    rd(resourceId=RID + "actionNewPlaylist").set_text("Drive Mix")
    rd(resourceId="android:id/button1", text="Create").click()
    conn = pull_db(adb_cli, s, PLAYLIST_DB, tmp_path / "playlist.db")
    rows = [tuple(r) for r in conn.execute(JUDGE)]
    assert [(r[0], r[1], r[3]) for r in rows] == [("Drive Mix", "Night Drive", 0), ("Drive Mix", "Bright Lights", 1)]
    assert 29_000 < rows[0][2] < 31_000  # MediaStore's duration of the file
    cols = [r[1] for r in conn.execute("PRAGMA table_info(SongEntity)")]
    assert cols == ["song_key", "playlist_creator_id", *SONG_COLUMNS]
    assert [r[1] for r in conn.execute("PRAGMA table_info(PlaylistEntity)")] == ["playlist_id", "playlist_name"]
    assert conn.execute("SELECT identity_hash FROM room_master_table WHERE id = 42").fetchone()[0] == IDENTITY_HASH
    assert conn.execute("PRAGMA user_version").fetchone()[0] == 24
    # a song's menu: Add to playlist > the playlist (it goes at the end)
    rd(resourceId=RID + "title", text="Moments").sibling(resourceId=RID + "menu").click()
    rd(resourceId=RID + "title", text="Add to playlist").click()
    rd(resourceId="android:id/text1", text="Drive Mix").click()
    conn = pull_db(adb_cli, s, PLAYLIST_DB, tmp_path / "playlist.db")
    assert [r[1] for r in conn.execute(JUDGE)] == ["Night Drive", "Bright Lights", "Moments"]
    # AndroidWorld's clean-up (every row deleted, the file pushed back) and a playlist put in: what the app shows
    conn.execute("DELETE FROM SongEntity")
    conn.execute("DELETE FROM PlaylistEntity")
    pid = conn.execute("INSERT INTO PlaylistEntity (playlist_name) VALUES ('Pushed')").lastrowid
    values = (
        pid,
        7,
        "Far Away",
        0,
        0,
        61_000,
        "/storage/emulated/0/Music/Far Away.mp3",
        0,
        0,
        "",
        0,
        "Eve",
        None,
        None,
    )
    conn.execute(
        f"INSERT INTO SongEntity (playlist_creator_id, {', '.join(SONG_COLUMNS)}) VALUES ({', '.join('?' * 14)})",
        values,
    )
    conn.commit()
    conn.close()
    push_db(adb_cli, s, tmp_path / "playlist.db", PLAYLIST_DB, PKG)
    sh(adb_cli, s, f"am start -n {MAIN}")
    rd(resourceId=RID + "action_playlist").click()
    assert rd(resourceId=RID + "title", text="Pushed").exists
    assert rd(resourceId=RID + "text").info["text"] == "1 Song  \u2022  01:01"
    assert sh(adb_cli, s, f"ls {DBS}").split() == ["music_playback_state.db", "playlist.db"]  # made again at the start


def test_the_playing_queue_and_save_as_file(rd, retro_dev, adb_cli, tmp_path: Path):
    s = retro_dev.serial
    _fresh(rd, adb_cli, s, tmp_path)
    for title in ("Moments", "Night Drive"):
        rd(resourceId=RID + "title", text=title).sibling(resourceId=RID + "menu").click()
        rd(resourceId=RID + "title", text="Add to playing queue").click()
    conn = pull_db(adb_cli, s, QUEUE_DB, tmp_path / "queue.db")
    assert [r[0] for r in conn.execute("SELECT title FROM playing_queue")] == ["Moments", "Night Drive"]
    assert [r[0] for r in conn.execute("SELECT title FROM original_playing_queue")] == ["Moments", "Night Drive"]
    assert [r[1] for r in conn.execute("PRAGMA table_info(playing_queue)")] == QUEUE_COLUMNS
    assert conn.execute("PRAGMA user_version").fetchone()[0] == 12
    assert rd(resourceId=RID + "miniPlayerTitle", text="Moments \u2022 Cy").exists
    rd(resourceId=RID + "miniPlayerFragment").click()  # Now Playing: play, then the queue's menu clears it
    rd(resourceId=RID + "playPauseButton").click()
    rd(resourceId=RID + "playerToolbar").child(description="More options").click()
    rd(resourceId=RID + "title", text="Clear playing queue").click()
    assert sh(adb_cli, s, f"sqlite3 {QUEUE_DB} 'SELECT COUNT(*) FROM playing_queue'").strip() == "0"
    assert not rd(resourceId=RID + "miniPlayerFragment").exists
    # Save as file: DocumentsUI's picker on Downloads, the name filled in, Save
    rd(resourceId=RID + "title", text="Moments").sibling(resourceId=RID + "menu").click()
    rd(resourceId=RID + "title", text="Add to playlist").click()
    rd(resourceId="android:id/text1", text="New playlist").click()
    rd(resourceId=RID + "actionNewPlaylist").set_text("Pushed")
    rd(resourceId="android:id/button1", text="Create").click()
    rd(resourceId=RID + "action_playlist").click()
    rd(resourceId=RID + "title", text="Pushed").click()
    rd(description="More options").click()
    rd(resourceId=RID + "title", text="Save as file").click()
    assert rd(resourceId="android:id/title", text="Pushed").exists
    assert rd(packageName="com.google.android.documentsui", text="Downloads").exists
    rd(resourceId="android:id/button1", text="Save").click()
    assert rd(textStartsWith="Saved playlist to msf:").wait(2)
    m3u = sh(adb_cli, s, "cat '/sdcard/Download/Pushed.m3u'", stderr=False)
    assert m3u.startswith("#EXTM3U\n#EXTINF:2") and m3u.endswith(",Cy - Moments\n/storage/emulated/0/Music/Moments.mp3")
    sh(adb_cli, s, f"rm '/sdcard/Download/Pushed.m3u'; am force-stop {PKG}")


# --- AndroidWorld's classes ---------------------------------------------------------------------------------------
AW_SONGS = [
    "My Heart is Yours", "Endless Summer", "Whispering Wind", "Lost in the Echo", "Chasing Shadows", "Night Drive",
    "Echoes of Silence", "Bright Lights", "Moments", "Forever Young", "Rising Sun", "Silent Dreams", "City of Stars",
    "Moonlight Sonata", "Through the Storm",
]  # fmt: skip


def _aw_device() -> VirtualDeviceModel:
    """As AndroidWorld's set-up and initialize_task leave it: the app run once, fifteen songs in Music."""
    m = VirtualDeviceModel()
    m.start_activity(PKG)
    m.force_stop(PKG)
    m.go_home()
    for i, title in enumerate(AW_SONGS):
        m.fs.write(f"{MUSIC}/{title}.mp3", mp3(title, "Ann", 21_000 + 500 * i), parents=True)
    return m


def _solve(m: VirtualDeviceModel, cls: str, files: list[str], name: str = "Party Mix 99") -> None:
    m.force_stop(PKG)  # as AndroidWorld's initialize_task leaves the app
    params = {"playlist_name": name, "files": [f"{f}.mp3" for f in files], "noise_files": []}
    task = make_task(f"AndroidWorld {cls}", outside={"suite": "androidworld", "class": cls, "params": params})
    steps = run(create_agent("reference"), m, task, max_steps=30)
    assert isinstance(steps[-1].action, Complete) and not any(s.invalid for s in steps), [
        (s.action, s.error) for s in steps if s.invalid
    ]


def _rows(m: VirtualDeviceModel, path: str, sql: str) -> list[Any]:
    return [r[0] for r in open_bytes(m.fs.peek(path) or b"").execute(sql)]


def test_androidworld_s_classes_make_the_playlists_and_the_queue_they_judge():
    m = _aw_device()
    files = ["Through the Storm", "City of Stars", "Bright Lights", "Silent Dreams", "Echoes of Silence"]
    _solve(m, "RetroSavePlaylist", files)  # the first and last of the list: sought both ways
    assert _rows(m, PLAYLIST_DB, "SELECT title FROM SongEntity ORDER BY song_key") == files
    m3u = (m.fs.peek("/sdcard/Download/Party Mix 99.m3u") or b"").decode()
    assert m3u.startswith("#EXTM3U\n#EXTINF:") and m3u.count("#EXTINF") == 5
    queue = "SELECT title FROM playing_queue"
    _solve(m, "RetroPlayingQueue", files[2:4])
    assert _rows(m, QUEUE_DB, queue) == files[2:4]
    _solve(m, "RetroPlayingQueue", ["My Heart is Yours", "Moments"])  # the queue left from before cleared first
    assert _rows(m, QUEUE_DB, queue) == ["My Heart is Yours", "Moments"]


def test_the_duration_class_takes_the_songs_the_app_lists():
    """RetroPlaylistDuration's lengths are cut at random from 47.5 minutes: a song under 20 s is not listed (the
    app's filter) and the playlist is made of the others, in the list's order."""
    m = _aw_device()
    short = ["Moments", "City of Stars"]
    for title in short:
        m.fs.write(f"{MUSIC}/{title}.mp3", mp3(title, "Ann", 9_000))
    files = ["Through the Storm", "Moments", "Bright Lights", "My Heart is Yours", "City of Stars", "Rising Sun"]
    _solve(m, "RetroPlaylistDuration", files, "Jazz Lounge 5")
    made = _rows(m, PLAYLIST_DB, "SELECT title FROM SongEntity ORDER BY song_key")
    assert made == sorted(set(files) - set(short))


# --- the family ---------------------------------------------------------------------------------------------------
@pytest.mark.slow
def test_the_familys_reference_makes_the_rows_and_the_file_its_end_state_reads(retro_dev, adb_server):
    tasks = family_tasks("retro", 0, 6)
    dev = open_device(adb_server, retro_dev, use_u2=False)
    try:
        state = DeviceState(dev.shell)
        for kind, lang in (("export", "zh"), ("rename", "en")):
            task = next(t for t in tasks if f"param:kind={kind}" in t.tags)
            assert dev.shell(["pm", "clear", PKG]).exit_code == 0
            checks = [e.check.state for e in task.end_state if e.check is not None and e.check.state is not None]
            assert not all(evaluate_state(c, state, lang).held for c in checks)
            steps = run(create_agent("reference"), retro_dev.model, task, lang=lang, max_steps=task.max_steps)
            assert isinstance(steps[-1].action, Complete) and not any(s.invalid for s in steps), [
                s.error for s in steps if s.invalid
            ]
            assert all(evaluate_state(c, state, lang).held for c in checks)
    finally:
        dev.close()
