"""AndroidLens / AITZ steps scored by the AgentCPM-GUI static evaluator (`harness.metrics.agentcpm`): TM, EM, SR,
goal progress, per-type figures, hit rate, text and point distance; how a unified action reads as the model's
output (`agentcpm_fields`) and how AITZ boxes are normalized (`yxhw_boxes`)."""

from __future__ import annotations

import json
import math
from typing import Any, cast

import numpy as np

from harness.actions import (
    Action,
    Answer,
    Back,
    Click,
    Complete,
    Enter,
    Home,
    Impossible,
    LongPress,
    OpenApp,
    Point,
    Recent,
    Scroll,
    Swipe,
    TypeText,
    Wait,
)
from harness.errors import ActionValidationError
from harness.eval.collect import Collector
from harness.eval.errors import EvalError
from harness.eval.steps import resolve_targets
from harness.metrics import agentcpm
from tasks.datasets.adapter import DatasetAdapter
from tasks.datasets.errors import DatasetError

_KEY_CODES = {"BACK": agentcpm.BACK, "HOME": agentcpm.HOME, "ENTER": agentcpm.ENTER, "RECENT": agentcpm.RECENT}
_DIR_CODES = {d.lower(): i for i, d in enumerate(agentcpm.DIRECTIONS)}


def _snap1000(p: Point) -> tuple[float, float]:
    """A normalized point in the model's [0, 1000] space; integers when it came from integers (the model's POINT)."""
    out = []
    for v in p.as_tuple():
        w = v * 1000
        out.append(float(round(w)) if abs(w - round(w)) <= 1e-6 else w)
    return out[0], out[1]


def agentcpm_fields(action: Action | None) -> dict[str, Any]:
    """A unified action -> the AgentCPM evaluator's row (type, point (x, y), direction, key, text), as the evaluator
    would read the same action in AgentCPM-GUI's output: a long press of 200 ms is its click and a shorter one its
    wait (STOP); a swipe's direction is found in the model's [0, 1000] space."""
    row: dict[str, Any] = {
        "type": agentcpm.INVALID,
        "point": (math.nan, math.nan),
        "dir": agentcpm.NO_DIRECTION,
        "key": -1,
        "text": "",
    }
    if action is None:
        return row
    if isinstance(action, (Click, LongPress)) and action.point is not None:
        code = agentcpm.CLICK
        if isinstance(action, LongPress):
            ms = action.duration * 1000
            code = (
                agentcpm.LONG_PRESS
                if ms > agentcpm.DEFAULT_DURATION_MS + 1e-6
                else agentcpm.CLICK
                if ms >= agentcpm.DEFAULT_DURATION_MS - 1e-6
                else agentcpm.STOP
            )
        row.update(type=code, point=action.point.as_tuple() if code != agentcpm.STOP else (math.nan, math.nan))
    elif isinstance(action, Swipe):
        row.update(
            type=agentcpm.SCROLL, dir=int(agentcpm.finger_direction(_snap1000(action.start), _snap1000(action.end))[0])
        )
    elif isinstance(action, Scroll):
        row.update(type=agentcpm.SCROLL, dir=_DIR_CODES[action.finger_direction])
    elif isinstance(action, TypeText):
        row.update(type=agentcpm.TYPE, text=action.text)
    elif isinstance(action, (Back, Home, Enter, Recent)):
        row.update(type=agentcpm.PRESS, key=_KEY_CODES[action.type])
    elif isinstance(action, (Complete, Impossible, Answer)):
        row.update(type=agentcpm.STOP)
    elif isinstance(action, Wait):
        row.update(type=agentcpm.WAIT)
    elif isinstance(action, OpenApp):
        row.update(type=agentcpm.OPEN_APP, text=action.name or action.package or "")
    return row


def _row_dict(r: agentcpm.Row) -> dict[str, Any]:
    return {"type": r.type, "point": r.point, "dir": r.dir, "key": r.key, "text": r.text}


def yxhw_boxes(raw: dict[str, Any], width: int, height: int) -> np.ndarray:
    """AITZ `ui_positions` ([y, x, h, w] pixels) normalized as AgentCPM-GUI's data preparation does:
    [y / H, x / W, h / H, w / W]."""
    v = raw.get("ui_positions")
    try:
        pos = json.loads(v) if isinstance(v, str) and v.strip() else (v or [])
        arr = np.asarray(pos, dtype=np.float64).reshape(-1, 4)
    except (ValueError, TypeError):
        return np.zeros((0, 4))
    if not (width and height):
        return np.zeros((0, 4))
    return np.column_stack([arr[:, 0] / height, arr[:, 1] / width, arr[:, 2] / height, arr[:, 3] / width])


class AgentCPMCollector(Collector):
    """AndroidLens / AITZ scored by the AgentCPM-GUI evaluator (`harness.metrics.agentcpm`): ground-truth records
    read as its `_parse_answer_` reads them; predictions as unified actions, native records, or the model's own
    output (`"pred": {...}`). Steps without a prediction are left out of every figure, as the evaluator never
    sees them."""

    def __init__(self, dataset: DatasetAdapter, rule: str | None = None) -> None:
        super().__init__(dataset, rule)
        mode = rule or agentcpm.MODES[0]
        if mode not in agentcpm.MODES:
            raise EvalError(f"{dataset.name} metric mode must be one of {', '.join(agentcpm.MODES)}, got {mode!r}")
        self.mode = mode
        dialect = dataset.metric_dialect or agentcpm.DIALECTS[0]
        if dialect not in agentcpm.DIALECTS:
            raise EvalError(f"{dataset.name}: the AgentCPM-GUI evaluator reads no record dialect {dialect!r}")
        self.dialect = cast(agentcpm.Dialect, dialect)  # how ground-truth (and native predicted) records read
        self.scored: list[bool] = []
        self.boxes_unavailable = 0
        self.rows: dict[str, list[Any]] = {
            f"{s}_{k}": [] for s in ("gt", "pred") for k in ("type", "point", "dir", "key", "text")
        }
        self.boxes: list[np.ndarray] = []

    def _pred(self, raw: dict[str, Any] | None) -> dict[str, Any]:
        if raw is None:
            return agentcpm_fields(None)
        if "pred" in raw and "result_action_type" not in raw:
            return _row_dict(agentcpm.pred_from_output(raw["pred"]))
        try:
            self.dataset.to_unified(raw)  # validates the record
        except DatasetError:
            return agentcpm_fields(None)
        return _row_dict(agentcpm.gt_from_record(raw, self.dialect))

    def add(
        self,
        episode: Any,
        step: Any,
        pred_raw: dict[str, Any] | None,
        scored: bool = True,
        action: Action | None = None,
    ) -> None:
        self.note_episode(episode)
        self.scored.append(scored)
        gt = _row_dict(agentcpm.gt_from_record(step.raw, self.dialect))
        pred = agentcpm_fields(action) if action is not None else self._pred(pred_raw)
        if action is not None and getattr(action, "point", 0) is None and isinstance(action, (Click, LongPress)):
            pred = agentcpm_fields(None)
        for side, row in (("gt", gt), ("pred", pred)):
            for k, v in row.items():
                self.rows[f"{side}_{k}"].append(v)
        w = step.width or step.raw.get("image_width")
        h = step.height or step.raw.get("image_height")
        boxes = yxhw_boxes(step.raw, int(w or 0), int(h or 0))
        if not len(boxes) and step.raw.get("ui_positions") not in (None, "", "[]", []):
            self.boxes_unavailable += 1  # no screenshot size to normalize them: the distance rule alone
        self.boxes.append(boxes)

    def add_missing(self, episode: Any, step: Any) -> None:
        self.add(episode, step, None, scored=False)

    def add_action(self, episode: Any, step: Any, action: Action | None, pred_raw: dict[str, Any] | None) -> None:
        """The unified action itself, read as the evaluator would read it in the model's output (a record would
        lose e.g. a long press's exact duration)."""
        resolved = None
        if action is not None:
            try:
                resolved = resolve_targets(action, step)
            except ActionValidationError:
                resolved = None
        self.add(episode, step, None, action=resolved)

    def results(self, mode: str | None = None) -> agentcpm.StepResults:
        r = self.rows
        offsets = np.zeros(len(self.boxes) + 1, dtype=np.int64)
        offsets[1:] = np.cumsum([len(b) for b in self.boxes])
        flat = np.concatenate(self.boxes) if self.boxes else np.zeros((0, 4))
        return agentcpm.evaluate_steps(
            r["pred_type"],
            r["gt_type"],
            np.array(r["pred_point"]).reshape(-1, 2),
            np.array(r["gt_point"]).reshape(-1, 2),
            r["pred_dir"],
            r["gt_dir"],
            r["pred_key"],
            r["gt_key"],
            r["pred_text"],
            r["gt_text"],
            flat,
            gt_box_offsets=offsets,
            mode=mode or self.mode,  # type: ignore[arg-type]  # reason: validated against the mode names above
        )

    def steps(self) -> tuple[np.ndarray, np.ndarray]:
        res = self.results()
        return res.type_match, res.exact_match

    def score(self, split_file: str | None = None) -> dict[str, Any]:
        full = self.results()
        keep = np.asarray(self.scored, dtype=bool)
        res = agentcpm.StepResults(*(np.asarray(a)[keep] for a in full))
        ids = np.asarray(self.episode, dtype=object)[keep]
        tm, em = res.type_match, res.exact_match
        at = agentcpm.atomic(res)
        out: dict[str, Any] = {
            "metric_family": "AgentCPM-GUI static evaluator",
            "mode": self.mode,
            **agentcpm.score(tm, em, ids),
            "per_type": at["per_type"],
            "hit_rate": at["hit_rate"],
            "text_dist_avg": at["text_similarity_avg"],
            "point_dist_avg": at["point_distance_avg"],
            "point_dist_median": at["point_distance_median"],
            "official_summary": agentcpm.official_summary(res, ids),
            "steps_without_box_size": self.boxes_unavailable,
        }
        for key in ("category", "lang", "subset"):
            if key in self.groups:
                lab = np.asarray([str(v) for v in self.groups[key]], dtype=object)[keep]
                out[f"per_{key}"] = {
                    g: agentcpm.score(tm[lab == g], em[lab == g], ids[lab == g]) for g in sorted(set(lab.tolist()))
                }
        return out
