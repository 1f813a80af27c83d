"""A family over Audio Recorder: on a fresh install (its first run: Welcome's "Get started", then Setup, where the
recording format is chosen, and Apply), a clip of at least some seconds recorded and saved under a name through the
rename dialog that follows it. Judged by the record file in the app's external files directory (NAME.FORMAT, as
AndroidWorld judges its Audio Recorder classes) and by the app's database: a `records` row with that name, format
and a duration (microseconds) of at least those seconds."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .base import Family
from .build import both, click, milestone, open_app, steps_for_both, type_into
from .params import ChoiceParam

RECORDER = "com.dimowner.audiorecorder"
RECORDS_DIR = f"/storage/emulated/0/Android/data/{RECORDER}/files/Music/records"
DB_PATH = f"/data/data/{RECORDER}/databases/records.db"
NAMES = ("band_practice", "lecture_intro", "voice_memo", "interview_take2", "bird_song", "standup_notes")
FORMATS = {"m4a": "M4a", "wav": "Wav", "3gp": "3gp"}
SECONDS = (3, 5, 8)


def build_recording(v: Mapping[str, Any]) -> dict[str, Any]:
    name, fmt, secs = str(v["name"]), str(v["format"]), int(v["seconds"])
    label = FORMATS[fmt]
    exact = {"case_sensitive": True}
    saved_file = {"file": {"path": f"{RECORDS_DIR}/{name}.{fmt}"}}
    row = {
        "sqlite": {
            "path": DB_PATH,
            "table": "records",
            "row": {"name": {"equals": name, **exact}, "format": fmt, "duration": {"ge": secs * 1_000_000}},
        }
    }
    return {
        "category": "1-1",
        "apps": [RECORDER],
        "instruction": {
            "en": f"In Audio Recorder, record a clip of at least {secs} seconds in the {label} format and save it "
            f"with the name {name}.",
            "zh": f"在 Audio Recorder 里用 {label} 格式录一段至少 {secs} 秒的音频，并保存为 {name}。",
        },
        "start": {"reset_apps": [RECORDER]},
        "max_steps": 16,
        "milestones": {
            "order": "ordered",
            "children": [
                milestone(
                    "format",
                    f"{label} is the recording format",
                    f"录音格式为 {label}",
                    {
                        "package": RECORDER,
                        "element": {"text": label, "class_name": "CheckBox", "states": ["checked"]},
                    },
                ),
                milestone(
                    "recording",
                    "A recording is under way",
                    "正在录音",
                    {"package": RECORDER, "element": {"resource_id": "txt_name", "text": "Recording\u2026"}},
                ),
                milestone(
                    "saved",
                    f"The recording is saved as {name}",
                    f"录音已保存为 {name}",
                    {"package": RECORDER, "state": {**saved_file, **row}},
                ),
            ],
        },
        "end_state": [{"check": {"state": saved_file}}, {"check": {"state": row}}],
        "reference": steps_for_both(
            [
                open_app("Audio Recorder", "Audio Recorder", RECORDER),
                click("btn_action", text=both("Get started", "Get started")),
                {"type": "CLICK", "locate": {"text": label}},
                click("btn_apply"),
                click("btn_record"),
                {"type": "WAIT", "duration": secs + 1},
                click("btn_record_stop"),
                type_into(name, "input_name", clear=True),
                click("dialog_positive_btn"),
                {"type": "COMPLETE"},
            ]
        ),
    }


RECORDING = Family(
    name="recorder",
    description="a clip of at least some seconds in a format, recorded and saved under a name on a fresh install "
    "(Audio Recorder; judged by the record file and its records row)",
    params={"name": ChoiceParam(NAMES), "format": ChoiceParam(tuple(FORMATS)), "seconds": ChoiceParam(SECONDS)},
    build=build_recording,
)
