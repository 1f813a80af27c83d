"""Audio Recorder's data: its SQLite database (`records.db`, version 3, as its SQLiteOpenHelper creates it: `records`
and `trash`, and the framework's `android_metadata`), its preferences file (`PrefsImpl`'s
`shared_prefs/com.dimowner.audiorecorder.data.PrefsImpl.xml`), the record files in its external files directory
(`Android/data/com.dimowner.audiorecorder/files/Music/records`, where it records on Android 10 and later) and what
a recording does to them.

- A recording starts as `provideRecordFile` makes it: `record_counter` + 1, the name from the naming setting
  ("Record-N" by default, or the date and time in one of four formats), the extension of the format setting
  (m4a by default, wav, 3gp; a name in use gets a "1" in front), an empty file, and a `records` row for it (duration
  0, the settings' format, sample rate, channels and bitrate) that becomes the active record. Stopped, the file
  is written (`audiorecorder_media`: the recorded length of silence) and the row gets its duration (microseconds),
  size and waveform.
- Renaming keeps the format's extension ("NAME.m4a": a name typed with ".m4a" gets a second one, as in the app) and
  changes the row's `name` and `path`; moving to the trash renames the file to "NAME.m4a.del" and moves the row to
  `trash` with its `removed` time.
- A record whose file is gone is "lost": the app warns about it when it reads the row.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import posixpath
from dataclasses import dataclass
from typing import Any

from ..appstorage import AppDatabase, SharedPrefs
from ..clock import zone_named
from ..fs import FileSystem, FsError
from ..procs import app_uid
from ..ui.host import Device
from ..ui.theme import Color
from .audiorecorder_media import record_file

PKG = "com.dimowner.audiorecorder"
VERSION_NAME, VERSION_CODE = "0.9.26", 926  # com.dimowner.audiorecorder_926.apk
MAIN = f"{PKG}.app.main.MainActivity"
WELCOME = f"{PKG}.app.welcome.WelcomeActivity"
SETUP = f"{PKG}.app.setup.SetupActivity"
RECORDS = f"{PKG}.app.records.RecordsActivity"
SETTINGS = f"{PKG}.app.settings.SettingsActivity"
RECORDS_DIR = f"/storage/emulated/0/Android/data/{PKG}/files/Music/records"
TRASH_EXT = "del"
MAX_NAME = 50  # AppConstants.MAX_RECORD_NAME_LENGTH: the rename field keeps no more

# the app's colours (the default "blue_gray" theme: md_blue_gray_700 / _500, white text)
PRIMARY: Color = (28, 39, 51)
PRIMARY_DARK: Color = (37, 51, 67)
TEXT: Color = (255, 255, 255)
TEXT2: Color = (170, 174, 178)
RED: Color = (229, 28, 35)

DDL = """
CREATE TABLE android_metadata (locale TEXT);
INSERT INTO android_metadata VALUES ('en_US');
CREATE TABLE records (_id INTEGER PRIMARY KEY AUTOINCREMENT, name TEXT NOT NULL, duration LONG NOT NULL,
 created LONG NOT NULL, added LONG NOT NULL, path TEXT NOT NULL, format TEXT NOT NULL DEFAULT '',
 size LONG NOT NULL DEFAULT 0, sample_rate INTEGER NOT NULL DEFAULT 0, channel_count INTEGER NOT NULL DEFAULT 0,
 bitrate INTEGER NOT NULL DEFAULT 0, data BLOB NOT NULL, bookmark INTEGER NOT NULL DEFAULT 0,
 waveform_processed INTEGER NOT NULL DEFAULT 0, data_str BLOB NOT NULL);
CREATE TABLE trash (_id INTEGER PRIMARY KEY AUTOINCREMENT, name TEXT NOT NULL, duration LONG NOT NULL,
 created LONG NOT NULL, added LONG NOT NULL, removed LONG NOT NULL, path TEXT NOT NULL,
 format TEXT NOT NULL DEFAULT '', size LONG NOT NULL DEFAULT 0, sample_rate INTEGER NOT NULL DEFAULT 0,
 channel_count INTEGER NOT NULL DEFAULT 0, bitrate INTEGER NOT NULL DEFAULT 0, data BLOB NOT NULL,
 bookmark INTEGER NOT NULL DEFAULT 0, waveform_processed INTEGER NOT NULL DEFAULT 0, data_str BLOB NOT NULL);
"""
DB = AppDatabase(PKG, "records.db", DDL, 3)
PREFS = SharedPrefs(PKG, "com.dimowner.audiorecorder.data.PrefsImpl")

# the settings' choices: (key, label) as SettingView's chips show them
FORMATS = (("m4a", "M4a"), ("wav", "Wav"), ("3gp", "3gp"))
SAMPLE_RATES = (
    (8000, "8kHz"),
    (16000, "16kHz"),
    (22050, "22kHz"),
    (32000, "32kHz"),
    (44100, "44.1kHz"),
    (48000, "48kHz"),
)
BITRATES = ((48000, "48 kbps"), (96000, "96 kbps"), (128000, "128 kbps"), (192000, "192 kbps"), (256000, "256 kbps"))
CHANNELS = ((2, "Stereo"), (1, "Mono"))
NAMINGS = ("record", "date", "date_us", "date_iso8601", "timestamp")
THEMES = (
    "Theme Blue Gray",
    "Theme Black",
    "Theme Teal",
    "Theme Blue",
    "Theme Purple",
    "Theme Pink",
    "Theme Orange",
    "Theme Red",
    "Theme Brown",
)
# what SetupPresenter shows under the settings for the last choice (info_m4a, info_sample_rate_44k, ...)
INFO: dict[tuple[str, Any], str] = {
    ("fmt", "m4a"): "M4a format is encoded with AAC audio codec has good quality and small size. (recommended)",
    ("fmt", "wav"): "Wav is uncompressed audio data format. It takes much more space than other formats. It's "
    "needed for specific cases.",
    ("fmt", "3gp"): "3gp is a multimedia container format developed for mobile telecommunication services. Use it "
    "if you need to save space.",
    ("rate", 8000): "8kHz sample rate has less bandwidth than modern telephone systems. Not suitable for any serious "
    "recording task.",
    ("rate", 16000): "16kHz is better than 8kHz.",
    ("rate", 22050): "22kHz popular sample rate for low bit rate such as 64 kbps.",
    ("rate", 32000): "32kHz is a bit better than 22kHz.",
    ("rate", 44100): "44,1kHz is the sampling rate of Audio CDs. (recommended)",
    ("rate", 48000): "48kHz is the sample rate used for DVDs.",
    ("bitrate", 48000): "48 kbps generally acceptable only for speech.",
    ("bitrate", 96000): "96 kbps generally used for speech or low-quality streaming.",
    ("bitrate", 128000): "128 kbps mid-range bitrate quality. Common bitrate for podcasts. (recommended)",
    ("bitrate", 192000): "192 kbps medium quality bitrate.",
    ("bitrate", 256000): "256 kbps good quality bitrate.",
    ("channels", 2): "Stereo two separate channels are recorded. This means that each stereo speaker has a "
    "different sound signal. (recommended)",
    ("channels", 1): "Mono one signal channel is recorded. It can be reproduced through several speakers, but all "
    "speakers are still reproducing the same copy of the signal.",
}
# what a SettingView's info button says of its setting (info_format, info_frequency, ...): the choices' texts
SECTION_INFO = {
    "fmt": "Recording format: the file type the recording is saved in.",
    "rate": "Sample rate is the number of samples of audio carried per second.",
    "bitrate": "Bitrate is size of data per second of sound. Directly affects recording quality and size.",
    "channels": "Stereo or Mono: how many channels are recorded.",
}


@dataclass(frozen=True)
class Settings:
    """The recording settings PrefsImpl keeps (`setting_*`), with its defaults."""

    fmt: str = "m4a"
    sample_rate: int = 44100
    bitrate: int = 128000
    channels: int = 2
    naming: str = "record"


def prefs(fs: FileSystem) -> dict[str, str | bool | int]:
    return PREFS.read(fs)


def first_run(fs: FileSystem) -> bool:
    """PrefsImpl.isFirstRun: until Setup's Apply stores `is_first_run` false."""
    return prefs(fs).get("is_first_run", True) is not False


def first_run_executed(fs: FileSystem) -> None:
    for key, value in (
        ("is_first_run", False),
        ("is_store_dir_public", False),
        ("is_migrated", True),
        ("pref_is_public_storage_migrated", True),
        ("is_show_directory_setting", False),
    ):
        PREFS.put(fs, key, value)


def settings(fs: FileSystem) -> Settings:
    p = prefs(fs)
    d = Settings()
    fmt = str(p.get("setting_recording_format", d.fmt))
    return Settings(
        fmt if fmt in dict(FORMATS) else d.fmt,
        int(p.get("setting_sample_rate", d.sample_rate)),
        int(p.get("setting_bitrate", d.bitrate)),
        int(p.get("setting_channel_count", d.channels)),
        str(p.get("setting_naming_format", d.naming)),
    )


def put_setting(fs: FileSystem, key: str, value: str | int) -> None:
    PREFS.put(fs, key, value)


def reset_settings(fs: FileSystem) -> None:
    """PrefsImpl.resetSettings: format, sample rate, bitrate and channels back to their defaults."""
    d = Settings()
    for key, value in (
        ("setting_recording_format", d.fmt),
        ("setting_sample_rate", d.sample_rate),
        ("setting_bitrate", d.bitrate),
        ("setting_channel_count", d.channels),
    ):
        PREFS.put(fs, key, value)


def ask_to_rename(fs: FileSystem) -> bool:
    return prefs(fs).get("is_ask_rename_after_stop_recording", True) is not False


def active_id(fs: FileSystem) -> int:
    return int(prefs(fs).get("active_record", -1))


# --- names and formats ------------------------------------------------------------------------------------------
def local_time(model: Device, millis: int) -> dt.datetime:
    return dt.datetime.fromtimestamp(millis / 1000, zone_named(model.time_zone))


def record_name(naming: str, counter: int, when: dt.datetime) -> str:
    """FileUtil.generateRecordName*: "Record-N", or the time as TimeUtils' name formats write it."""
    if naming == "date":
        return when.strftime("%d.%m.%Y %H.%M.%S")
    if naming == "date_us":
        return when.strftime("%m-%d-%Y %I.%M.%S%p")
    if naming == "date_iso8601":
        return when.strftime("%Y-%m-%d %H.%M.%S")
    if naming == "timestamp":
        return str(int(when.timestamp() * 1000))
    return f"Record-{counter}"


def fmt_duration(millis: int) -> str:
    """TimeUtils.formatTimeIntervalHourMinSec2: MM:SS, HH:MM:SS from an hour."""
    secs = max(0, millis) // 1000
    h, m, s = secs // 3600, secs // 60 % 60, secs % 60
    return f"{h:02d}:{m:02d}:{s:02d}" if h else f"{secs // 60:02d}:{s:02d}"


def fmt_size(size: int) -> str:
    """SettingsMapper.formatSize: megabytes with at most two decimals ("0.01 Mb")."""
    mb = f"{size / (1024 * 1024):.2f}".rstrip("0").rstrip(".")
    return f"{mb} Mb"


def label_of(choices: tuple[tuple[Any, str], ...], key: Any) -> str:
    return next((label for k, label in choices if k == key), "")


def record_info(fmt: str, sample_rate: int, size: int) -> str:
    """MainPresenter.updateInformation: "0.01 Mb, M4a, 44.1kHz"."""
    name = label_of(FORMATS, fmt) or fmt
    return ", ".join((fmt_size(size), name, label_of(SAMPLE_RATES, sample_rate)))


def size_per_min(s: Settings) -> str:
    """SetupPresenter.updateSizePerMin: "0.96 Mb/min expected size"."""
    if s.fmt == "3gp":
        size = 60 * (12000 // 8)
    elif s.fmt == "wav":
        size = 60 * s.sample_rate * s.channels * 2
    else:
        size = 60 * (s.bitrate // 8)
    value = f"{size / 1_000_000:.2f}".rstrip("0").rstrip(".")
    return f"{value} Mb/min expected size"


# --- the records --------------------------------------------------------------------------------------------------
def records(fs: FileSystem, order: str = "added DESC") -> list[dict[str, Any]]:
    return DB.rows(fs, f"SELECT * FROM records ORDER BY {order}")


def record(fs: FileSystem, rid: int) -> dict[str, Any] | None:
    rows = DB.rows(fs, "SELECT * FROM records WHERE _id = ?", (rid,))
    return rows[0] if rows else None


def lost(fs: FileSystem, rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """LocalRepositoryImpl.checkForLostRecords: the rows whose file is gone."""
    return [r for r in rows if not fs.exists(str(r["path"]))]


def _owner(pkg: str = PKG) -> tuple[int, int]:
    uid = app_uid(pkg)
    return (uid, uid)


def make_records_dir(fs: FileSystem) -> None:
    """FileUtil.getPrivateRecordsDir: the directory is made when the app starts."""
    if not fs.is_dir(RECORDS_DIR):
        fs.mkdir(RECORDS_DIR, parents=True, owner=_owner())


def start_record(model: Device) -> tuple[int, str]:
    """FileRepositoryImpl.provideRecordFile and LocalRepository.insertEmptyFile: the new (empty) file and its row,
    made the active record. Returns the row id and the path."""
    fs = model.fs
    make_records_dir(fs)
    counter = int(prefs(fs).get("record_counter", 0)) + 1
    PREFS.put(fs, "record_counter", counter)
    s = settings(fs)
    now = int(model.now() * 1000)
    name = record_name(s.naming, counter, local_time(model, now))
    file_name = f"{name}.{s.fmt}"
    while fs.exists(posixpath.join(RECORDS_DIR, file_name)):  # FileUtil.createFile: "1" in front of a name in use
        file_name = "1" + file_name
    path = posixpath.join(RECORDS_DIR, file_name)
    fs.write(path, b"", owner=_owner())
    rid = DB.execute(
        fs,
        "INSERT INTO records (name, duration, created, added, path, format, size, sample_rate, channel_count, "
        "bitrate, data, bookmark, waveform_processed, data_str) VALUES (?, 0, ?, ?, ?, ?, 0, ?, ?, ?, ?, 0, 0, '')",
        (file_name.rsplit(".", 1)[0], now, now, path, s.fmt, s.sample_rate, s.channels, s.bitrate, b""),
    )
    PREFS.put(fs, "active_record", rid)
    return rid, path


def finish_record(model: Device, rid: int, path: str, seconds: float) -> dict[str, Any] | None:
    """The recorder stopped: the file holds the recording, the row its duration, size and waveform."""
    fs = model.fs
    row = record(fs, rid)
    if row is None:
        return None
    fmt, rate, channels = str(row["format"]), int(row["sample_rate"]), int(row["channel_count"])
    if fmt == "3gp":
        rate, channels = (16000 if rate == 16000 else 8000), 1
    data = record_file(fmt, seconds, rate, channels, int(row["bitrate"]), int(model.now()))
    fs.write(path, data, owner=_owner())
    amps = bytes([0x80]) * max(1, round(seconds * 25))  # Record.int2byte of a silent waveform (amplitude 0)
    DB.execute(
        fs,
        "UPDATE records SET duration = ?, size = ?, sample_rate = ?, channel_count = ?, data = ?, "
        "waveform_processed = 1 WHERE _id = ?",
        (int(seconds * 1_000_000), len(data), rate, channels, amps, rid),
    )
    return record(fs, rid)


def discard_record(fs: FileSystem, rid: int, path: str) -> None:
    """A recording deleted while it was made: its file and row go."""
    with contextlib.suppress(FsError):
        fs.remove(path)
    DB.execute(fs, "DELETE FROM records WHERE _id = ?", (rid,))
    if active_id(fs) == rid:
        PREFS.put(fs, "active_record", -1)


def clean_name(name: str) -> str:
    """FileUtil.removeUnallowedSignsFromName: ':' becomes '_', the ends are trimmed."""
    return name.replace(":", "_").strip()


def rename_record(fs: FileSystem, rid: int, new_name: str) -> str:
    """MainPresenter.renameRecord: "" on success, else the error the app shows."""
    name = clean_name(new_name)
    row = record(fs, rid)
    if row is None or not name:
        return "Failed to rename the record!"
    old = str(row["path"])
    new = posixpath.join(posixpath.dirname(old), f"{name}.{row['format']}")
    if fs.exists(new):
        return "File with this name is already exists!"
    data = fs.peek(old)
    if data is None:
        return "Failed to rename the record!"
    node = fs.stat(old)
    fs.write(new, data, mtime=node.mtime if node else None, owner=_owner())
    fs.remove(old)
    DB.execute(fs, "UPDATE records SET name = ?, path = ? WHERE _id = ?", (name, new, rid))
    return ""


def trash_record(model: Device, rid: int) -> None:
    """LocalRepositoryImpl.deleteRecord: the file marked ".del", the row moved to `trash`."""
    fs = model.fs
    row = record(fs, rid)
    if row is None:
        return
    path = str(row["path"])
    marked = f"{path}.{TRASH_EXT}"
    data = fs.peek(path)
    if data is not None:
        fs.write(marked, data, owner=_owner())
        fs.remove(path)
    with DB.change(fs) as conn:
        conn.execute(
            "INSERT INTO trash (name, duration, created, added, removed, path, format, size, sample_rate, "
            "channel_count, bitrate, data, bookmark, waveform_processed, data_str) SELECT name, duration, created, "
            "added, ?, ?, format, size, sample_rate, channel_count, bitrate, data, bookmark, waveform_processed, "
            "data_str FROM records WHERE _id = ?",
            (int(model.now() * 1000), marked, rid),
        )
        conn.execute("DELETE FROM records WHERE _id = ?", (rid,))
    if active_id(fs) == rid:
        PREFS.put(fs, "active_record", -1)
