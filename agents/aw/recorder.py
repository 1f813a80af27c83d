"""Audio Recorder: AndroidWorld's two recording classes solved through the app's first run (Welcome's "Get started",
Setup's Apply), the record and stop buttons and the rename dialog that follows a recording, from the instance's
parameters."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from harness.actions import Complete, Wait

from .steps import Step, click, open_app, replace_into, when_shown

RECORDER = ("Audio Recorder", "com.dimowner.audiorecorder")
RECORD_SECONDS = 3.0
# the first run (AndroidWorld's set-up only launches the app) and a warning about records whose files are gone
FIRST_RUN = (
    when_shown(resource_id="btn_action", text="Get started"),
    when_shown(resource_id="btn_apply", text="Apply"),
    when_shown(resource_id="dialog_ok_btn"),
)


def record(name: str | None) -> list[Step]:
    """A recording of a few seconds; the rename dialog after it saves it as `name` (the app adds ".m4a"), or keeps
    the name the app gave it."""
    steps: list[Step] = [
        open_app(RECORDER),
        *FIRST_RUN,
        click(resource_id="btn_record"),
        Wait(duration=RECORD_SECONDS),
        click(resource_id="btn_record_stop"),
    ]
    if name is not None:
        steps += [replace_into(name, resource_id="input_name"), click(resource_id="dialog_positive_btn", text="Save")]
    else:
        steps.append(when_shown(resource_id="dialog_positive_btn", text="Save"))
    return [*steps, Complete()]


SOLVERS: dict[str, Callable[[Mapping[str, Any]], list[Step]]] = {
    "AudioRecorderRecordAudio": lambda p: record(None),
    "AudioRecorderRecordAudioWithFileName": lambda p: record(str(p["file_name"])),
}
