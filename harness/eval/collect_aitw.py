"""AitW action matching over evaluated steps (`harness.metrics.aitw`): per-episode partial accuracy, subset means,
`overall` = the mean of the subset means, and per split label when the episodes carry several."""

from __future__ import annotations

from typing import Any

import numpy as np

from harness.eval.collect import Collector
from harness.metrics import aitw
from tasks.datasets.adapter import DatasetAdapter


class AitwCollector(Collector):
    """AitW action matching (`harness.metrics.aitw`): native records of prediction and ground truth, the
    ground truth's annotated boxes; every step scores (a missing or invalid prediction is no match)."""

    def __init__(self, dataset: DatasetAdapter, rule: str | None = None) -> None:
        super().__init__(dataset, rule)
        self.gt_type: list[int] = []
        self.gt_touch: list[tuple[float, float]] = []
        self.gt_lift: list[tuple[float, float]] = []
        self.pred_type: list[int] = []
        self.pred_touch: list[tuple[float, float]] = []
        self.pred_lift: list[tuple[float, float]] = []
        self.boxes: list[np.ndarray] = []

    @staticmethod
    def _fields(raw: dict[str, Any] | None) -> tuple[int, tuple[float, float], tuple[float, float]]:
        if raw is None:
            return aitw.INVALID, (-1.0, -1.0), (-1.0, -1.0)
        code = raw.get("results/action_type", aitw.INVALID)
        code = int(code[0] if isinstance(code, (list, tuple)) else code)

        def pt(name: str) -> tuple[float, float]:
            v = raw.get(name)
            return (float(v[0]), float(v[1])) if isinstance(v, (list, tuple)) and len(v) == 2 else (-1.0, -1.0)

        return code, pt("results/yx_touch"), pt("results/yx_lift")

    def add(self, episode: Any, step: Any, pred_raw: dict[str, Any] | None) -> None:
        self.note_episode(episode)
        t, a, b = self._fields(step.raw)
        self.gt_type.append(t)
        self.gt_touch.append(a)
        self.gt_lift.append(b)
        t, a, b = self._fields(pred_raw)
        self.pred_type.append(t)
        self.pred_touch.append(a)
        self.pred_lift.append(b)
        self.boxes.append(
            np.asarray(step.raw.get("image/ui_annotations_positions", ()), dtype=np.float64).reshape(-1, 4)
        )

    def matches(self) -> np.ndarray:
        offsets = np.zeros(len(self.boxes) + 1, dtype=np.int64)
        offsets[1:] = np.cumsum([len(b) for b in self.boxes])
        flat = np.concatenate(self.boxes) if self.boxes else np.zeros((0, 4))
        return aitw.match_actions(
            self.pred_type,
            np.array(self.pred_touch).reshape(-1, 2),
            np.array(self.pred_lift).reshape(-1, 2),
            self.gt_type,
            np.array(self.gt_touch).reshape(-1, 2),
            np.array(self.gt_lift).reshape(-1, 2),
            flat,
            gt_box_offsets=offsets,
        )

    def score(self, split_file: str | None = None) -> dict[str, Any]:
        m = self.matches()
        res = aitw.score(m, self.episode, self.groups.get("subset"))
        splits = [s for s in self.groups.get("split", []) if s is not None]
        if splits and len(set(splits)) > 1:
            lab = np.array([str(s) for s in self.groups["split"]], dtype=object)
            res["per_split"] = {
                s: aitw.score(
                    m[lab == s],
                    np.asarray(self.episode, dtype=object)[lab == s],
                    np.asarray(self.groups["subset"], dtype=object)[lab == s],
                )
                for s in sorted(set(lab.tolist()))
            }
        return {"metric_family": "AitW action matching", **res}
