"""An outside suite's task in the loop: a task instance whose set-up and judge are the suite's own code (AndroidWorld's
`initialize_task` / `is_successful` / `tear_down`: `harness.androidworld`), run through the same episode session as
every other task - the agent's steps, the recording, the perturbations - with the suite's verdict as its success.

`EpisodeSession(..., outside=judge)` calls `set_up()` where a task's start state would be put on, `judge(answer,
done)` where milestones and end states would be judged, `tear_down()` after it, and records `record()` in the
episode's `extra` under `key`. An exception in `set_up` is an infrastructure failure naming the suite's task (the
attempt is retried on a fresh device); a judge's exception is recorded in the verdict (`error`), never retried."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Protocol

from harness.device.controller import AdbDevice
from harness.device.slotdoors import SlotDoors
from tasks.schema import Task


@dataclass(frozen=True)
class OutsideVerdict:
    """What an outside judge said at the end: `score` in [0, 1] (1.0: solved; a composite task's share of its
    parts) or None when the judge itself failed (`error` says how)."""

    score: float | None
    error: str | None = None

    @property
    def success(self) -> bool:
        return self.score is not None and self.score >= 1.0


class OutsideJudge(Protocol):
    key: str  # where `record()` goes in episode.json's extra (e.g. "androidworld")

    def set_up(self) -> None: ...

    def judge(self, answer: str | None, done: bool) -> OutsideVerdict: ...

    def tear_down(self) -> None: ...

    def record(self) -> dict[str, Any]: ...


class OutsideSuite(Protocol):
    """A suite whose tasks are another package's (`--suite androidworld`): its tasks as the harness lists them,
    which of them a device can host, and a judge for one on a leased device."""

    name: str
    image: str  # the system image its embedded devices are started as (phone | emulator)

    def tasks(self) -> list[Task]: ...

    def select(self, task_ids: tuple[str, ...]) -> tuple[str, ...]: ...

    def skip_reason(self, task: Task, device: AdbDevice) -> str | None: ...

    def judge(self, task: Task, device: AdbDevice, slot: SlotDoors) -> OutsideJudge: ...


__all__ = ["OutsideJudge", "OutsideSuite", "OutsideVerdict"]
