"""GUI Odyssey over evaluated steps (`harness.metrics.odyssey`): AMS and SR, pooled and per-category mean, the
action-type and text accuracy and the official printout, for the click rule asked for and the other one."""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import numpy as np

from harness.eval.collect import Collector
from harness.eval.errors import EvalError
from harness.metrics import odyssey
from tasks.datasets.adapter import DatasetAdapter


class OdysseyCollector(Collector):
    """GUI Odyssey: the official `src/eval_mm` rules (`harness.metrics.odyssey`); `rule` names the click rule
    whose figures are the headline (both are reported)."""

    def __init__(self, dataset: DatasetAdapter, rule: str | None = None) -> None:
        super().__init__(dataset, rule)
        rule = rule or odyssey.CLICK_RULES[0]
        if rule not in odyssey.CLICK_RULES:
            raise EvalError(f"odyssey metric rule must be one of {', '.join(odyssey.CLICK_RULES)}, got {rule!r}")
        self.rule = rule
        self.scored: list[bool] = []
        self.rows: dict[str, list[Any]] = {
            k: []
            for k in (
                "gt_type",
                "gt_point",
                "gt_end",
                "gt_text",
                "gt_box",
                "pred_type",
                "pred_point",
                "pred_end",
                "pred_text",
            )
        }

    @staticmethod
    def _fields(raw: dict[str, Any] | None) -> odyssey.Parsed:
        if raw is None:
            return {"type": odyssey.INVALID, "point": None, "end": None, "text": ""}
        return odyssey.parse_info(raw.get("action", ""), raw.get("info", ""))

    def add(self, episode: Any, step: Any, pred_raw: dict[str, Any] | None, scored: bool = True) -> None:
        self.note_episode(episode)
        self.scored.append(scored)
        nan2 = (math.nan, math.nan)
        for side, raw in (("gt", step.raw), ("pred", pred_raw)):
            f = self._fields(raw)
            self.rows[f"{side}_type"].append(f["type"])
            self.rows[f"{side}_point"].append(f["point"] or nan2)
            self.rows[f"{side}_end"].append(f["end"] or nan2)
            self.rows[f"{side}_text"].append(f["text"])
        box = step.raw.get("sam2_bbox")
        ok = isinstance(box, (list, tuple)) and len(box) == 4 and all(isinstance(v, (int, float)) for v in box)
        self.rows["gt_box"].append(tuple(float(v) for v in box) if ok else (math.nan,) * 4)

    def add_missing(self, episode: Any, step: Any) -> None:
        self.add(episode, step, None, scored=False)

    def matches(self, rule: str | None = None) -> np.ndarray:
        r = self.rows
        return odyssey.match_actions(
            r["pred_type"],
            np.array(r["pred_point"]).reshape(-1, 2),
            np.array(r["pred_end"]).reshape(-1, 2),
            r["gt_type"],
            np.array(r["gt_point"]).reshape(-1, 2),
            np.array(r["gt_end"]).reshape(-1, 2),
            gt_box=np.array(r["gt_box"]).reshape(-1, 4),
            pred_text=r["pred_text"],
            gt_text=r["gt_text"],
            rule=rule or self.rule,  # type: ignore[arg-type]  # reason: validated against the rule names above
        )

    def score(self, split_file: str | None = None) -> dict[str, Any]:
        cats = self.groups.get("category")
        official: odyssey.Aggregate = (
            "per_category_mean" if split_file and "random" in Path(split_file).name.lower() else "pooled"
        )
        r = self.rows
        type_ok = odyssey.type_matches(r["pred_type"], r["gt_type"])
        bad = odyssey.undecodable(r["pred_type"], np.array(r["pred_point"]).reshape(-1, 2))
        by_rule: dict[str, Any] = {}
        for rule in odyssey.CLICK_RULES:
            m = self.matches(rule)
            both = odyssey.score_both(m, self.episode, cats, self.scored)
            acc = odyssey.accuracies(m, type_ok, r["gt_type"], bad, self.scored)
            by_rule[rule] = {
                **both,
                **acc,
                "official_printout": odyssey.official_figures(m, self.episode, cats, official, acc, self.scored),
            }
        head = by_rule[self.rule]
        other = next(k for k in odyssey.CLICK_RULES if k != self.rule)
        return {
            "metric_family": "GUI Odyssey AMS / SR",
            "rule": self.rule,
            "official_aggregate": official,
            "AMS": head[official]["AMS"],
            "SR": head[official]["SR"],
            "episodes_left_out": head["pooled"]["episodes_left_out"],
            **head,
            "other_rule": {
                "rule": other,
                "pooled": by_rule[other]["pooled"],
                "per_category_mean": by_rule[other]["per_category_mean"],
            },
        }
