"""AndroidWorld's own figure for a run of its suite, computed as its runner computes it (`suite_utils`), beside the
harness's SR:

- an episode's score is `is_successful`'s float when the agent declared the task done (a terminal action), else 0
  (`agent_successful = task_successful if done else 0.0`);
- an episode whose set-up or judge raised, or whose agent raised, has no score (AndroidWorld's runner records its
  exception and leaves it out: NaN, skipped by the means);
- the mean per class (`mean_success_rate`), then the mean over the classes (its `Average` row), and means of the
  per-class rates by difficulty and by tag (its table by tag and difficulty), and by app (a class counts for each
  app it uses).

It reads each episode's `extra["androidworld"]` (harness.androidworld.judge.AwJudge.record); episodes that are not
AndroidWorld's are ignored, and a run without any gets None.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from typing import Any

from harness.trajectory.result import AGENT_ERROR, UNSCORED, EpisodeResult

KEY = "androidworld"


def _mean(xs: list[float]) -> float | None:
    return sum(xs) / len(xs) if xs else None


def aw_episode_score(r: EpisodeResult) -> float | None:
    """The episode's score in AndroidWorld's figure (see the module docstring); None: left out."""
    rec = r.extra.get(KEY)
    if not isinstance(rec, dict) or r.status in UNSCORED or r.status == AGENT_ERROR:
        return None
    score = rec.get("aw_score")
    return float(score) if isinstance(score, (int, float)) and not isinstance(score, bool) else None


def androidworld_figure(results: Iterable[EpisodeResult]) -> dict[str, Any] | None:
    per_class: dict[str, list[float]] = defaultdict(list)
    trials: dict[str, int] = defaultdict(int)
    left_out: dict[str, int] = defaultdict(int)
    meta: dict[str, tuple[str, tuple[str, ...]]] = {}
    apps: dict[str, tuple[str, ...]] = {}
    for r in results:
        rec = r.extra.get(KEY)
        if not isinstance(rec, dict) or not isinstance(rec.get("class"), str):
            continue
        name = rec["class"]
        meta[name] = (str(rec.get("difficulty") or ""), tuple(str(t) for t in rec.get("tags") or ()))
        apps[name] = tuple(sorted({*apps.get(name, ()), *(str(a) for a in rec.get("apps") or ())}))
        if r.status in UNSCORED:
            continue  # skipped, unfinished or an infrastructure failure: never judged
        s = aw_episode_score(r)
        if s is None:
            left_out[name] += 1
        else:
            per_class[name].append(s)
            trials[name] += 1
    if not meta:
        return None
    rates = {name: _mean(per_class[name]) for name in sorted(meta)}
    counted = {k: v for k, v in rates.items() if v is not None}
    by_difficulty: dict[str, list[float]] = defaultdict(list)
    by_tag: dict[str, list[float]] = defaultdict(list)
    by_app: dict[str, list[float]] = defaultdict(list)
    for name, rate in counted.items():
        difficulty, tags = meta[name]
        by_difficulty[difficulty or "unknown"].append(rate)
        for tag in [t or "untagged" for t in tags] or ["untagged"]:
            by_tag[tag].append(rate)
        for app in apps[name] or ("(none)",):
            by_app[app].append(rate)
    return {
        "success_rate": _mean(list(counted.values())),
        "classes": len(counted),
        "classes_without_score": sorted(set(meta) - set(counted)),
        "by_class": {
            k: {"mean_success_rate": v, "trials": trials[k], "left_out": left_out[k], "difficulty": meta[k][0]}
            for k, v in rates.items()
        },
        "by_difficulty": {k: _mean(v) for k, v in sorted(by_difficulty.items())},
        "by_tag": {k: _mean(v) for k, v in sorted(by_tag.items())},
        "by_app": {k: _mean(v) for k, v in sorted(by_app.items())},
    }


__all__ = ["aw_episode_score", "androidworld_figure"]
