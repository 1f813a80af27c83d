"""Audio Recorder (com.dimowner.audiorecorder) driven as clients drive a phone: the real adb server for `pm`, `am`,
`monkey`, `adb pull` / `adb push` of its records.db and its record files, uiautomator2 for the screen; AndroidWorld's
two Audio Recorder classes and the recorder family solved by the reference agent on an in-process device whose clock
is virtual (a WAIT lets the recording run)."""

from __future__ import annotations

import sqlite3
import struct
import wave
from io import BytesIO
from pathlib import Path
from typing import Any

import pytest

from agents.aw import recorder as aw_recorder
from emulator.virtual.apps.audiorecorder_data import MAIN, PKG, RECORDS_DIR, SETUP, WELCOME
from emulator.virtual.apps.audiorecorder_media import m4a, three_gp
from emulator.virtual.media import parse_boxes
from emulator.virtual.model import VirtualDeviceModel
from emulator.virtual.sqlitefile import open_bytes
from harness.actions import Complete, Wait
from harness.agent import HistoryItem
from harness.device.state import DeviceState
from harness.plugins import create_agent
from harness.run.judge.state_check import evaluate_state
from tasks.families.registry import family_tasks
from tests.agents_helpers import context, execute, make_task, observe
from tests.device_util import open_device
from tests.emulator.virtual.apps.devshell import focus, root, sh

u2 = pytest.importorskip("uiautomator2")

DB_PATH = f"/data/data/{PKG}/databases/records.db"
PREFS = f"/data/data/{PKG}/shared_prefs/com.dimowner.audiorecorder.data.PrefsImpl.xml"


def _duration(data: bytes) -> float:
    """An .m4a / .3gp file's duration from its mdhd (timescale, duration)."""
    moov = next((s, e) for kind, s, e in parse_boxes(data) if kind == b"moov")
    trak = next((s, e) for kind, s, e in parse_boxes(data, *moov) if kind == b"trak")
    mdia = next((s, e) for kind, s, e in parse_boxes(data, *trak) if kind == b"mdia")
    start, _ = next((s, e) for kind, s, e in parse_boxes(data, *mdia) if kind == b"mdhd")
    scale, length = struct.unpack(">II", data[start + 12 : start + 20])
    return length / scale


def test_the_files_are_valid_containers_of_the_recorded_length():
    data = m4a(3.2, 44100, 2, 128000)
    assert data[4:12] == b"ftypisom" and abs(_duration(data) - 3.2) < 0.03
    assert b"mp4a" in data and b"esds" in data
    amr = three_gp(2.0, 16000)
    assert amr[8:12] == b"3gp4" and b"sawb" in amr and _duration(amr) == 2.0


def test_installed_first_run_and_awaiting_its_records_directory(posing_emulator, adb_cli):
    _, s = posing_emulator
    assert f"package:{PKG}" in sh(adb_cli, s, "pm list packages -3").split()
    dump = sh(adb_cli, s, f"dumpsys package {PKG}")
    assert "versionName=0.9.26" in dump and "versionCode=926" in dump
    resolved = sh(adb_cli, s, f"cmd package resolve-activity --brief -c android.intent.category.LAUNCHER {PKG}")
    assert resolved.strip().splitlines()[-1] == f"{PKG}/.app.main.MainActivity"
    # AndroidWorld's set-up: its data cleared, the two permissions granted, the app launched and closed
    sh(adb_cli, s, f"pm clear {PKG}")
    for perm in ("RECORD_AUDIO", "POST_NOTIFICATIONS"):
        sh(adb_cli, s, f"pm grant {PKG} android.permission.{perm}")
    sh(adb_cli, s, f"monkey -p {PKG} -candroid.intent.category.LAUNCHER 1")
    assert focus(adb_cli, s) == f"{PKG}/{WELCOME}"  # a first run: the welcome screen
    assert sh(adb_cli, s, f"ls {RECORDS_DIR}").strip() == ""  # made, empty
    sh(adb_cli, s, f"am force-stop {PKG}")
    sh(adb_cli, s, f"am start -n {PKG}/{WELCOME}")  # AndroidWorld's activity map names WelcomeActivity
    screen = sh(adb_cli, s, "uiautomator dump /dev/tty")
    assert 'text="Welcome to a simple and fast application"' in screen and 'text="Get started"' in screen


def test_a_recording_renamed_in_the_ui_is_a_file_and_a_row(u2dev, vdevice, adb_cli, tmp_path: Path):
    d, s = u2dev, vdevice.serial
    sh(adb_cli, s, f"monkey -p {PKG} -c android.intent.category.LAUNCHER 1")
    d(resourceId=f"{PKG}:id/btn_action").click()
    assert focus(adb_cli, s) == f"{PKG}/{SETUP}"
    d(text="Wav").click()
    assert d(text="Wav", checked=True).exists and not d(resourceId=f"{PKG}:id/setting_bitrate").exists
    d(resourceId=f"{PKG}:id/btn_apply").click()
    assert focus(adb_cli, s) == f"{PKG}/{MAIN}"
    fs = vdevice.model.fs  # the app's private files (a user build's shell cannot read them)
    assert b'<boolean name="is_first_run" value="false" />' in (fs.peek(PREFS) or b"")
    d(description="Recording: %s").click()
    assert d(resourceId=f"{PKG}:id/txt_name", text="Recording\u2026").exists
    assert sh(adb_cli, s, f"ls {RECORDS_DIR}").split() == ["Record-1.wav"]
    d(resourceId=f"{PKG}:id/btn_record_stop").click()
    assert d(resourceId=f"{PKG}:id/dialog_title", text="New name").exists and d(text="Don't ask again").exists
    d(resourceId=f"{PKG}:id/input_name").set_text("Kitchen: take 1")
    d(resourceId=f"{PKG}:id/dialog_positive_btn").click()
    assert d(resourceId=f"{PKG}:id/txt_name", text="Kitchen_ take 1").exists
    assert sh(adb_cli, s, f"ls {RECORDS_DIR}").splitlines() == ["Kitchen_ take 1.wav"]
    local = tmp_path / "r.wav"
    assert adb_cli("-s", s, "pull", f"{RECORDS_DIR}/Kitchen_ take 1.wav", str(local)).returncode == 0
    with wave.open(str(local)) as wf:
        assert (wf.getnchannels(), wf.getframerate(), wf.getsampwidth()) == (2, 44100, 2)
    conn = open_bytes(fs.peek(DB_PATH) or b"")
    row = conn.execute("SELECT name, path, format, size, sample_rate, channel_count FROM records").fetchall()
    assert row == [("Kitchen_ take 1", f"{RECORDS_DIR}/Kitchen_ take 1.wav", "wav", local.stat().st_size, 44100, 2)]
    assert conn.execute("PRAGMA user_version").fetchone() == (3,)
    # the record's menu: moved to the trash, its file marked ".del"
    d(resourceId=f"{PKG}:id/btn_share").click()
    d(text="Delete").click()
    assert d(text="Move to trash Kitchen_ take 1?").exists
    d(resourceId=f"{PKG}:id/dialog_positive_btn").click()
    assert sh(adb_cli, s, f"ls {RECORDS_DIR}").splitlines() == ["Kitchen_ take 1.wav.del"]
    conn = open_bytes(fs.peek(DB_PATH) or b"")
    assert conn.execute("SELECT COUNT(*) FROM records").fetchone() == (0,)
    assert conn.execute("SELECT name, path FROM trash").fetchall() == [
        ("Kitchen_ take 1", f"{RECORDS_DIR}/Kitchen_ take 1.wav.del")
    ]


def test_rows_and_files_pushed_behind_its_back_are_what_it_lists(posing_emulator, adb_cli, tmp_path: Path):
    _, s = posing_emulator
    root(adb_cli, s)
    sh(adb_cli, s, f"monkey -p {PKG} -c android.intent.category.LAUNCHER 1")  # its database and directory made
    sh(adb_cli, s, f"am force-stop {PKG}")
    db = tmp_path / "records.db"
    assert adb_cli("-s", s, "pull", DB_PATH, str(db)).returncode == 0
    conn = sqlite3.connect(db)
    tables = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    assert {"records", "trash", "android_metadata"} <= tables
    for i, (name, secs) in enumerate((("Interview", 65), ("Lost one", 4))):
        conn.execute(
            "INSERT INTO records (name, duration, created, added, path, format, size, sample_rate, channel_count, "
            "bitrate, data, data_str) VALUES (?, ?, ?, ?, ?, 'm4a', 2048, 44100, 2, 128000, x'', '')",
            (name, secs * 1_000_000, 1_700_000_000_000 + i, 1_700_000_000_000 + i, f"{RECORDS_DIR}/{name}.m4a"),
        )
    conn.commit()
    conn.close()
    clip = tmp_path / "Interview.m4a"
    clip.write_bytes(m4a(65, 44100, 2, 128000))
    assert adb_cli("-s", s, "push", str(clip), f"{RECORDS_DIR}/Interview.m4a").returncode == 0
    sh(adb_cli, s, f"rm -r {DB_PATH.rsplit('/', 1)[0]}/*")
    assert adb_cli("-s", s, "push", str(db), DB_PATH).returncode == 0
    sh(adb_cli, s, f"am start -n {PKG}/.app.records.RecordsActivity")
    screen = sh(adb_cli, s, "uiautomator dump /dev/tty")
    assert 'text="Some of your records was deleted or moved"' in screen  # "Lost one" has no file
    assert 'text="Interview"' in screen and 'text="01:05"' in screen and 'text="Lost one"' in screen


# --- AndroidWorld's classes and the family, on an in-process device ------------------------------------------------
def _play(m: VirtualDeviceModel, task: Any, lang: str = "en", max_steps: int = 20) -> list[Any]:
    """The reference agent's episode; a WAIT moves the device's (virtual) clock."""
    agent = create_agent("reference")
    agent.reset(context(task, lang, 0, max_steps))
    history: list[HistoryItem] = []
    steps = []
    for step in range(1, max_steps + 1):
        obs = observe(m)
        s = agent.act(obs, list(history))
        steps.append(s)
        if isinstance(s.action, Wait):
            m.clock.sleep(float(s.action.duration))
        result = execute(m, obs, s.action) if s.action is not None else None
        history.append(HistoryItem(step=step, agent_step=s, result=result))
        if s.action is None or s.action.type in ("COMPLETE", "ANSWER", "IMPOSSIBLE"):
            break
    return steps


def _aw_device() -> VirtualDeviceModel:
    """As AndroidWorld's set-up leaves the app: launched once (the welcome screen), stopped."""
    m = VirtualDeviceModel(clock="virtual")
    m.start_activity(PKG)
    m.force_stop(PKG)
    m.go_home()
    return m


def test_androidworld_classes_record_and_name_a_clip():
    m = _aw_device()
    task = make_task("AndroidWorld", outside={"suite": "androidworld", "class": "AudioRecorderRecordAudioWithFileName",
                                              "params": {"file_name": "2023_05_01_memo.m4a", "text": ""}})  # fmt: skip
    steps = _play(m, task)
    assert isinstance(steps[-1].action, Complete) and not any(s.invalid for s in steps)
    # the app adds its extension to the typed name, which AndroidWorld's judge looks for (file_name + ".m4a")
    data = m.fs.peek(f"{RECORDS_DIR}/2023_05_01_memo.m4a.m4a")
    assert data is not None and abs(_duration(data) - aw_recorder.RECORD_SECONDS) < 0.1
    task = make_task("AndroidWorld", outside={"suite": "androidworld", "class": "AudioRecorderRecordAudio",
                                              "params": {}})  # fmt: skip
    steps = _play(m, task)
    assert isinstance(steps[-1].action, Complete) and not any(s.invalid for s in steps)
    assert sorted(name for name, _ in m.fs.listdir(RECORDS_DIR)) == ["2023_05_01_memo.m4a.m4a", "Record-2.m4a"]


def test_the_familys_reference_makes_the_file_and_row_its_end_state_reads(make_vdevice, adb_server):
    vd = make_vdevice(clock="virtual")
    task = family_tasks("recorder", 0, 1)[0]
    checks = [e.check.state for e in task.end_state if e.check is not None and e.check.state is not None]
    assert [c.file is not None for c in checks] == [True, False] and checks[1].sqlite is not None
    dev = open_device(adb_server, vd, use_u2=False)
    try:
        state = DeviceState(dev.shell)
        assert not any(evaluate_state(c, state, "en").held for c in checks)
        steps = _play(vd.model, task, max_steps=task.max_steps)
        assert isinstance(steps[-1].action, Complete) and not any(s.invalid for s in steps)
        assert all(evaluate_state(c, state, "en").held for c in checks)
    finally:
        dev.close()
    data = vd.model.fs.peek(checks[0].file.path) if checks[0].file else None
    assert data is not None
    with wave.open(BytesIO(data)) as wf:  # seed 0's first instance: Wav, at least 5 seconds
        assert wf.getnframes() / wf.getframerate() >= 5
