"""What every offline collector shares: `Collector`, the rows of one official metric over the evaluated steps.

A collector is made per evaluation for one dataset adapter (`harness.eval.metric_kinds` picks its class from the
adapter's `metric`): `add` a step with the predicted record (native, or None = no match), `add_action` a step
with the predicted unified action, `add_missing` a step the predictions file has no line for; `score` returns the
metric's figures. The episode key and the groups each step is reported under come from the adapter
(`episode_key`, `breakdown`), not from the dataset's name.
"""

from __future__ import annotations

from typing import Any

from harness.actions import Action
from tasks.datasets.adapter import DatasetAdapter


class Collector:
    """Step rows of one official metric (subclasses: `collect_aitw`, `collect_odyssey`, `collect_agentcpm`)."""

    def __init__(self, dataset: DatasetAdapter, rule: str | None = None) -> None:
        self.dataset = dataset
        self.episode: list[str] = []  # the episode key of every added step
        self.groups: dict[str, list[Any]] = {}  # group name -> the value of every added step

    def note_episode(self, episode: Any) -> None:
        """Record the step's episode key and its groups (`DatasetAdapter.breakdown`)."""
        self.episode.append(self.dataset.episode_key(episode))
        for k, v in self.dataset.breakdown(episode).items():
            self.groups.setdefault(k, []).append(v)

    def add(self, episode: Any, step: Any, pred_raw: dict[str, Any] | None) -> None:
        raise NotImplementedError

    def add_missing(self, episode: Any, step: Any) -> None:
        """A step the predictions file has no line for."""
        self.add(episode, step, None)

    def add_action(self, episode: Any, step: Any, action: Action | None, pred_raw: dict[str, Any] | None) -> None:
        """A predicted unified action (None = invalid output) and its dataset record (None = not expressible)."""
        self.add(episode, step, pred_raw)

    def score(self, split_file: str | None = None) -> dict[str, Any]:
        raise NotImplementedError
