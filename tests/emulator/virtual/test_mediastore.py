"""MediaStore (emulator/virtual/mediastore.py, mediameta.py, providers/media.py): MediaProvider's index of shared
storage - what the scanner reads from files (MIME and media type, tags, durations, sizes), the index kept in step
with the files as the FUSE daemon reports them, MEDIA_SCANNER_SCAN_FILE, and content://media through the real adb
server (push, `content query`, `am broadcast`, `content delete`, the index pulled as a file)."""

from __future__ import annotations

import io
import wave

import numpy as np
import pytest
from mutagen.id3 import ID3, TALB, TIT2, TPE1
from PIL import Image

from emulator.virtual import mediameta as mm
from emulator.virtual import mediastore
from emulator.virtual.fs import FileSystem
from emulator.virtual.media import encode_mp4
from emulator.virtual.sqlitefile import open_bytes
from tests.emulator.virtual.apps.devshell import pull_db, root

FRAME = b"\xff\xfb\x90\x00" + bytes(413)  # MPEG-1 Layer III, 128 kb/s, 44.1 kHz, no padding: 417 bytes of silence


def mp3(title: str | None, artist: str | None, frames: int = 100) -> bytes:
    """A silent MP3 (`frames` frames of 1152 samples) behind an ID3v2 tag, as AndroidWorld's pydub export makes."""
    tag = ID3()
    if title:
        tag.add(TIT2(encoding=3, text=title))
    if artist:
        tag.add(TPE1(encoding=3, text=artist))
    tag.add(TALB(encoding=3, text="Album"))
    buf = io.BytesIO()
    tag.save(buf)
    return buf.getvalue() + FRAME * frames


def wav(seconds: float, rate: int = 8000) -> bytes:
    buf = io.BytesIO()
    with wave.open(buf, "wb") as w:
        w.setnchannels(1)
        w.setsampwidth(2)
        w.setframerate(rate)
        w.writeframes(b"\0\0" * int(rate * seconds))
    return buf.getvalue()


def jpeg(w: int, h: int) -> bytes:
    buf = io.BytesIO()
    Image.new("RGB", (w, h), (200, 30, 30)).save(buf, "JPEG")
    return buf.getvalue()


def mp4(w: int, h: int, seconds: int) -> bytes:
    black = np.zeros((h, w, 3), np.uint8)
    return encode_mp4([(black, float(t)) for t in range(seconds + 1)], w, h)


# --- what the scanner reads ------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("name", "mime", "kind"),
    [
        ("a.mp3", "audio/mpeg", mm.MEDIA_TYPE_AUDIO),
        ("a.M4A", "audio/mp4", mm.MEDIA_TYPE_AUDIO),
        ("a.wav", "audio/x-wav", mm.MEDIA_TYPE_AUDIO),
        ("a.mp4", "video/mp4", mm.MEDIA_TYPE_VIDEO),
        ("a.3gp", "video/3gpp", mm.MEDIA_TYPE_VIDEO),
        ("a.jpg", "image/jpeg", mm.MEDIA_TYPE_IMAGE),
        ("a.png", "image/png", mm.MEDIA_TYPE_IMAGE),
        ("a.m3u", "audio/x-mpegurl", mm.MEDIA_TYPE_PLAYLIST),
        ("a.srt", "application/x-subrip", mm.MEDIA_TYPE_SUBTITLE),
        ("a.md", "text/markdown", mm.MEDIA_TYPE_DOCUMENT),
        ("a.pdf", "application/pdf", mm.MEDIA_TYPE_DOCUMENT),
        ("noext", None, mm.MEDIA_TYPE_NONE),
    ],
)
def test_mime_and_media_type_by_name_as_android_maps_them(name: str, mime: str | None, kind: int) -> None:
    assert mm.mime_of(name) == mime
    assert mm.media_type_of(mime) == kind


def test_the_scanner_reads_tags_durations_and_sizes() -> None:
    p = mm.probe("x.mp3", "audio/mpeg", mp3("Song A", "Artist B", frames=100))
    assert (p.title, p.artist, p.album) == ("Song A", "Artist B", "Album")
    assert p.duration_ms is not None and abs(p.duration_ms - 100 * 1152 / 44.1) < 20  # 2612 ms
    assert mm.probe("Take 1.wav", "audio/x-wav", wav(3.0)) == mm.Probe(title="Take 1", duration_ms=3000)
    assert mm.probe("p.jpg", "image/jpeg", jpeg(64, 48)) == mm.Probe(title="p", width=64, height=48)
    v = mm.probe("v.mp4", "video/mp4", mp4(48, 32, 2))
    assert (v.width, v.height) == (48, 32) and v.duration_ms is not None and 2000 <= v.duration_ms < 2100
    # an untagged or broken file is known by its name, as MediaProvider leaves it
    assert mm.probe("Broken.mp3", "audio/mpeg", b"not audio") == mm.Probe(title="Broken")
    assert mm.probe("Bad.jpg", "image/jpeg", b"\xff\xd8 no") == mm.Probe(title="Bad")


def test_bucket_ids_are_java_s_string_hash_of_the_folder() -> None:
    assert mm.java_hash("") == 0 and mm.java_hash("abc") == 96354
    assert mm.java_hash("/storage/emulated/0/dcim/camera") == -1739773001  # the Camera bucket every app knows


# --- the index over a file system ------------------------------------------------------------------------------
@pytest.fixture
def fs() -> FileSystem:
    return FileSystem(lambda: 1_800_000_000.0)


def test_files_written_to_shared_storage_are_indexed_changed_and_dropped(fs: FileSystem) -> None:
    fs.write("/sdcard/Music/one.mp3", mp3("One", "A"))
    fs.write("/sdcard/Pictures/p.jpg", jpeg(20, 10))
    (song,) = mediastore.items(fs, mm.MEDIA_TYPE_AUDIO)
    assert (song.title, song.artist, song.relative_path, song.data) == (
        "One",
        "A",
        "Music/",
        "/storage/emulated/0/Music/one.mp3",
    )
    (pic,) = mediastore.items(fs, mm.MEDIA_TYPE_IMAGE)
    assert (pic.width, pic.height, pic.bucket_display_name, pic.mime_type) == (20, 10, "Pictures", "image/jpeg")
    fs.write("/sdcard/Music/one.mp3", mp3("One again", "A"))  # rewritten in place: read again
    (again,) = mediastore.items(fs, mm.MEDIA_TYPE_AUDIO)
    assert again.title == "One again" and again.id == song.id
    fs.remove("/sdcard/Music/one.mp3")
    assert mediastore.items(fs, mm.MEDIA_TYPE_AUDIO) == []
    fs.write("/sdcard/Music/two.mp3", mp3("Two", None))
    (two,) = mediastore.items(fs, mm.MEDIA_TYPE_AUDIO)
    assert two.id > song.id  # ids are never reused (AUTOINCREMENT)


def test_app_private_storage_is_not_indexed_and_nomedia_folders_hold_plain_files(fs: FileSystem) -> None:
    fs.mkdir("/sdcard/Android/data/com.x/files", parents=True)
    fs.write("/sdcard/Android/data/com.x/files/rec.wav", wav(1.0))
    fs.mkdir("/sdcard/Hidden")
    fs.write("/sdcard/Hidden/.nomedia", b"")
    fs.write("/sdcard/Hidden/secret.jpg", jpeg(8, 8))
    assert mediastore.items(fs, mm.MEDIA_TYPE_AUDIO) == [] and mediastore.items(fs, mm.MEDIA_TYPE_IMAGE) == []
    paths = {i.path for i in mediastore.items(fs)}
    assert "/sdcard/Hidden/secret.jpg" in paths and not any("/Android/data/" in p for p in paths)


def test_a_scan_reads_a_file_again_even_unchanged_and_the_index_is_a_real_database(fs: FileSystem) -> None:
    fs.write("/sdcard/Music/a.wav", wav(2.0))
    assert [i.duration_ms for i in mediastore.items(fs, mm.MEDIA_TYPE_AUDIO)] == [2000]
    conn = open_bytes(fs.peek(mediastore.INDEX.path) or b"")  # what `adb pull` of external.db gets
    assert conn.execute("PRAGMA user_version").fetchone() == (1407,)
    row = conn.execute("SELECT title, duration, is_music, volume_name FROM files WHERE _display_name='a.wav'")
    assert row.fetchone() == ("a", 2000, 1, "external_primary")
    gen = conn.execute("SELECT generation FROM local_metadata").fetchone()[0]
    mediastore.scan(fs, "file:///storage/emulated/0/Music")
    conn = open_bytes(fs.peek(mediastore.INDEX.path) or b"")
    assert conn.execute("SELECT generation FROM local_metadata").fetchone()[0] == gen + 1
    mediastore.scan(fs, "file:///data/local/tmp")  # not on the volume: nothing to scan
    conn = open_bytes(fs.peek(mediastore.INDEX.path) or b"")
    assert conn.execute("SELECT generation FROM local_metadata").fetchone()[0] == gen + 1


# --- through the real adb server -------------------------------------------------------------------------------
@pytest.mark.integration
def test_content_media_through_adb(posing_emulator, adb_client, adb_cli, tmp_path) -> None:
    _, serial = posing_emulator  # an emulator's userdebug image: `adb root` for the pull of the index
    d = adb_client.device(serial)
    (tmp_path / "s.mp3").write_bytes(mp3("Pushed Song", "Singer", frames=200))
    (tmp_path / "p.jpg").write_bytes(jpeg(30, 20))
    d.sync.push(str(tmp_path / "s.mp3"), "/sdcard/Music/s.mp3")
    d.sync.push(str(tmp_path / "p.jpg"), "/storage/emulated/0/DCIM/Camera/p.jpg")
    out = d.shell("content query --uri content://media/external/audio/media --projection title:artist:duration")
    assert out.strip() == "Row: 0 title=Pushed Song, artist=Singer, duration=5212"
    out = d.shell("content query --uri content://media/external/images/media --projection _data:width:bucket_id")
    assert out.strip() == "Row: 0 _data=/storage/emulated/0/DCIM/Camera/p.jpg, width=30, bucket_id=-1739773001"
    said = d.shell("am broadcast -a android.intent.action.MEDIA_SCANNER_SCAN_FILE -d file:///sdcard/Music")
    assert "Broadcast completed: result=0" in said
    d.shell("content delete --uri content://media/external/images/media")
    assert d.shell("ls /sdcard/DCIM/Camera").strip() == ""
    root(adb_cli, serial)
    conn = pull_db(adb_cli, serial, mediastore.INDEX.path, tmp_path / "external.db")
    assert [tuple(r) for r in conn.execute("SELECT title FROM files WHERE media_type = 2")] == [("Pushed Song",)]
    assert tuple(conn.execute("SELECT COUNT(*) FROM files WHERE media_type = 1").fetchone()) == (0,)
