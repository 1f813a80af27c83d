"""AndroidLens: ATP (Average Task Progress) and SR from per-task milestone hit lists (docs/datasets.md).

A task's progress is `hit milestones / milestones` and it succeeds when every milestone is hit: the same
semantics as `harness.run.judge.milestones.MilestoneTracker` (`progress`, `complete`; a task with no milestones has
progress 1.0). ATP = mean progress over tasks, SR = fraction of successful tasks. Hit lists come from live runs
(`from_trackers`) or any other milestone checker. Static (offline, teacher-forced) step scoring of AndroidLens
follows the AgentCPM-GUI evaluator: see `harness.metrics.agentcpm`.

Vectorized representation: `hits` bool[K] flat over all tasks' milestones + `offsets` int[T + 1]
(`milestones of task t = hits[offsets[t]:offsets[t + 1]]`); `atp_sr` also takes a list of lists.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

import numpy as np

CATEGORIES = ("1-1", "1-2", "1-3", "1-4", "2-1", "2-2", "3-1", "3-2")


def flatten(hit_lists: Iterable[Sequence[bool]]) -> tuple[np.ndarray, np.ndarray]:
    """List of per-task hit lists -> (flat bool[K], offsets int[T + 1])."""
    lists = [np.asarray(h, dtype=bool).ravel() for h in hit_lists]
    offsets = np.zeros(len(lists) + 1, dtype=np.int64)
    offsets[1:] = np.cumsum([len(h) for h in lists])
    return (np.concatenate(lists) if lists else np.zeros(0, dtype=bool)), offsets


def task_progress(hits: Any, offsets: Any = None) -> tuple[np.ndarray, np.ndarray]:
    """(progress float[T], success bool[T]) per task."""
    if offsets is None:
        hits, offsets = flatten(hits)
    h = np.asarray(hits, dtype=bool).ravel()
    off = np.asarray(offsets, dtype=np.int64)
    total = np.diff(off)
    if (total < 0).any() or off[0] != 0 or off[-1] != len(h):
        raise ValueError("offsets must be non-decreasing, start at 0 and end at len(hits)")
    task = np.repeat(np.arange(len(total)), total)
    got = np.bincount(task, weights=h, minlength=len(total))
    progress = np.where(total > 0, got / np.maximum(total, 1), 1.0)
    return progress, got == total


def atp_sr(hits: Any, offsets: Any = None, categories: Sequence[str] | None = None) -> dict[str, Any]:
    """`{"ATP", "SR", "tasks", "per_category": {category: {"ATP", "SR", "tasks"}}}` (per category when given)."""
    progress, success = task_progress(hits, offsets)
    nan = float("nan")
    out: dict[str, Any] = {
        "ATP": float(progress.mean()) if len(progress) else nan,
        "SR": float(success.mean()) if len(success) else nan,
        "tasks": len(progress),
    }
    if categories is not None:
        cats = np.asarray(list(categories), dtype=object)
        if len(cats) != len(progress):
            raise ValueError(f"{len(progress)} tasks but {len(cats)} categories")
        out["per_category"] = {
            str(c): {
                "ATP": float(progress[cats == c].mean()),
                "SR": float(success[cats == c].mean()),
                "tasks": int((cats == c).sum()),
            }
            for c in sorted(set(cats.tolist()), key=str)
        }
    return out


def from_trackers(trackers: Iterable[Any]) -> list[list[bool]]:
    """`MilestoneTracker`s (after an episode) -> per-task hit lists in leaf order."""
    return [[s["hit_step"] is not None for s in t.status()] for t in trackers]
