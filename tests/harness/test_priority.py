"""Background threads run at a lower CPU priority (Linux: per-thread nice values)."""

from __future__ import annotations

import os
import sys
import threading
import time
from pathlib import Path

import pytest

from harness.priority import BACKGROUND_NICE, lower_this_thread
from harness.trajectory.result import EpisodeResult
from harness.trajectory.writer import RunWriter

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="per-thread nice values are Linux's")


def _nice(tid: int) -> int:
    """The nice value of one of this process's threads, as the kernel reports it (/proc stat field 19)."""
    stat = Path(f"/proc/self/task/{tid}/stat").read_text()
    return int(stat.rsplit(")", 1)[1].split()[16])


def _tids() -> set[int]:
    return {int(t) for t in os.listdir("/proc/self/task")}


def test_lowers_only_the_calling_thread_and_stops_at_19() -> None:
    main = threading.get_native_id()
    base = _nice(main)
    seen: list[tuple[bool, int, bool, int]] = []

    def worker() -> None:
        tid = threading.get_native_id()
        first = lower_this_thread()
        after_first = _nice(tid)
        second = lower_this_thread(100)
        seen.append((first, after_first, second, _nice(tid)))

    t = threading.Thread(target=worker)
    t.start()
    t.join()
    assert seen == [(True, min(19, base + BACKGROUND_NICE), True, 19)]
    assert _nice(main) == base  # the process and its other threads keep their priority
    assert lower_this_thread(0) is False and _nice(main) == base


def test_the_trajectory_writer_thread_runs_in_the_background(tmp_path: Path) -> None:
    base = _nice(threading.get_native_id())
    want = min(19, base + BACKGROUND_NICE)
    before = _tids()
    run = RunWriter.create(tmp_path, "prio")
    ep = run.episode("task", "en")  # starts the episode's writer thread
    deadline = time.monotonic() + 5.0
    lowered: set[int] = set()
    while not lowered and time.monotonic() < deadline:  # the thread lowers itself as it starts
        lowered = {t for t in _tids() - before if _nice(t) == want}
        time.sleep(0.01)
    ep.finish(EpisodeResult(ep.task_id, ep.lang, status="success", success=True))
    assert len(lowered) == 1
    assert _nice(threading.get_native_id()) == base
