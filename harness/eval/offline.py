"""Offline (static, teacher-forced) evaluation of an agent on a recorded dataset, scored by the dataset's
official metric (`harness.metrics`).

Protocol, the standard one of these datasets: at every recorded step the agent sees the recorded screenshot,
the step's annotated elements as a `UITree` (AitW OCR / icon boxes, AITZ `ui_positions`; none for GUI Odyssey
and AndroidLens) and the GOLD history (the recorded actions of the earlier steps, as `HistoryItem`s whose
`agent_step.action` is the gold action and `result` None). Its predicted unified action is converted to the
dataset's own record format with `tasks.datasets.convert.from_unified` (element-index targets resolve to the
element's centre; ANSWER counts as the dataset's terminate action; an action the dataset cannot express, e.g.
OPEN_APP in AitW, or an invalid output scores as no match) and compared with the recorded step:

| dataset      | metric (names as the papers use them)                                                        |
|--------------|----------------------------------------------------------------------------------------------|
| aitw         | action matching accuracy per episode, mean per subset, `overall` = mean of the subset means  |
| odyssey      | AMS and SR, `pooled` and `per_category_mean` (both reported, named; `official_aggregate`   |
|              | says which one the official code uses for the split: per-category for the random split),   |
|              | action-type and text accuracy, the official printout; click rule of the latest release     |
|              | (box OR distance) or the earlier one (`metric_rule="distance_only"`), the other reported too |
| androidlens  | the AgentCPM-GUI static evaluator: TM, EM (steps), SR, GP goal progress (episodes), TM / EM  |
|              | per action type, hit rate, avg text / point distance; `metric_rule="android_control"`       |
| aitz         | the same AgentCPM-GUI evaluator, EM using the step's `ui_positions` boxes                    |

Predictions made elsewhere (`evaluate(..., predictions=FILE)`) are JSON lines, one per step, `step` 0-based:

    {"episode_id": "123", "step": 0, "action": {"type": "CLICK", "point": [0.5, 0.2]}}    # unified action
    {"episode_id": "123", "step": 1, "results/action_type": 4, "results/yx_touch": [0.2, 0.5],
     "results/yx_lift": [0.2, 0.5]}                                                       # AitW native fields
    {"episode_id": "e1", "step": 0, "action": "CLICK", "info": [[500, 200]]}               # Odyssey native
    {"episode_id": "e1", "step": 0, "result_action_type": 4, "result_touch_yx": "[0.2, 0.5]",
     "result_lift_yx": "[0.2, 0.5]", "result_action_text": ""}                             # AndroidLens / AITZ
    {"episode_id": "e1", "step": 1, "pred": {"POINT": [500, 200], "duration": 1000}}       # AgentCPM-GUI output
    {"episode_id": "e1", "step": 2, "action": null}                                        # no valid output

A unified `action` is an object; Odyssey's native `action` is a string; `pred` (aitz / androidlens) is the
AgentCPM-GUI model's own JSON, read as its evaluator reads it. A step with no line is counted as `missing`; for
AitW it scores as no match, for GUI Odyssey and the AgentCPM-GUI evaluator it is left out as the official scripts
leave it out (Odyssey: out of AMS, and its episode out of SR; AgentCPM: out of every figure). A `"lang"` field
disambiguates AndroidLens episodes present in both languages.

AndroidLens' milestone figures (ATP / SR from milestones) need live screens: use `droidharness run` on a device
for those; the offline figures here are step-level.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

import numpy as np

from harness import coords
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
    parse_action,
)
from harness.errors import ActionValidationError, HarnessError
from harness.metrics import agentcpm, aitw, odyssey

DATASETS = ("aitw", "odyssey", "androidlens", "aitz")


class EvalError(HarnessError):
    """Bad evaluation input (predictions file, options); the message names the file / line / option."""


# --- observations from recorded steps ----------------------------------------------------------------------
def tree_from_elements(elements: Iterable[Any], source: str = "<dataset step>") -> Any:
    """Annotated `UIBox`es -> a flat `UITree` (one window root per box, clickable, in the given order).

    `text` is the box's OCR / UI text; for icon boxes (`kind` ICON_*) without text the icon name
    (e.g. "home" for ICON_HOME) goes into `content_desc`; `class_name` is the annotation kind."""
    from harness.hierarchy import UIElement, UITree

    out = []
    for i, b in enumerate(elements):
        kind = str(getattr(b, "kind", "") or "")
        desc = kind[5:].lower().replace("_", " ") if kind.upper().startswith("ICON_") and not b.text else ""
        l, t, r, bt = (int(v) for v in b.bounds)
        out.append(
            UIElement(
                index=i,
                bounds=(l, t, r, bt),
                text=b.text or "",
                content_desc=desc,
                class_name=kind,
                clickable=True,
                enabled=True,
            )
        )
    return UITree(out, 0, source)


def observation_for(step: Any, episode: Any) -> Any:
    """The `Observation` an agent sees at a recorded step (screenshot decoded now)."""
    from harness.observation import Observation

    img = step.image()
    size = (step.width, step.height) if step.width and step.height else img.size
    activity = str(step.extras.get("current_activity") or "") if isinstance(step.extras, dict) else ""
    return Observation(
        screenshot=img,
        tree=tree_from_elements(step.elements, f"{episode.episode_id}#{step.index}"),
        xml="",
        package=activity.split("/")[0] if "/" in activity else "",
        activity=activity,
        size=tuple(size),
        rotation=0,
        paths={"screenshot": "dataset", "hierarchy": "dataset"},
    )


def task_for(episode: Any) -> Any:
    """A minimal `Task` for `EpisodeContext` (AndroidLens episodes with milestones use their own)."""
    from tasks.schema import LANGS, Milestone, MilestoneGroup, ScreenCheck, Task

    if episode.dataset == "androidlens":
        try:
            t = episode.to_task()
            if t is not None:
                return t
        except HarnessError:
            pass
    lang = episode.lang if episode.lang in LANGS else "en"
    safe = "".join(c if c.isalnum() or c in "_.-" else "_" for c in f"{episode.dataset}-{episode.episode_id}")
    return Task(
        id=safe,
        instruction={lang: episode.instruction},
        category="1-1",
        max_steps=max(1, min(200, len(episode.steps))),
        milestones=MilestoneGroup(
            children=(
                Milestone(
                    id="offline", sub_target="offline evaluation", check=ScreenCheck(package="offline.evaluation")
                ),
            )
        ),
        tags=("offline", episode.dataset),
    )


# --- predicted action -> dataset record ---------------------------------------------------------------------
def resolve_targets(action: Action, step: Any) -> Action:
    """Element-index targets -> the element's centre point (TYPE keeps no target); ANSWER -> COMPLETE(answer).

    Raises ActionValidationError for an element index the step does not have."""
    if isinstance(action, Answer):
        return Complete(answer=action.text)
    el = getattr(action, "element", None)
    if el is None or isinstance(action, Scroll):
        return action
    if el >= len(step.elements):
        raise ActionValidationError(f"element [{el}] does not exist (the step has {len(step.elements)} elements)")
    if isinstance(action, TypeText):
        return action.model_copy(update={"element": None})
    l, t, r, b = step.elements[el].bounds
    w, h = step.width, step.height
    cx = min(max((l + r) // 2, 0), w - 1)
    cy = min(max((t + b) // 2, 0), h - 1)
    x, y = coords.from_pixels((cx, cy), (w, h))
    return action.model_copy(update={"element": None, "point": Point(x=x, y=y)})


def _size_template(dataset: str, step: Any) -> dict[str, Any]:
    w, h = step.width or 1000, step.height or 1000
    if dataset == "aitw":
        return {"image/width": w, "image/height": h}
    if dataset in ("androidlens", "aitz"):
        return {"image_width": w, "image_height": h}
    return {}


def native_prediction(dataset: str, action: Action | None, step: Any) -> dict[str, Any] | None:
    """A predicted unified action as the dataset's record (None = no match: invalid / not expressible)."""
    from tasks.datasets import convert
    from tasks.datasets.base import DatasetError

    if action is None:
        return None
    try:
        act = resolve_targets(action, step)
        if isinstance(act, (Click, LongPress)) and act.point is None:
            return None
        return convert.from_unified(dataset, act, _size_template(dataset, step))
    except (DatasetError, ActionValidationError, ValueError):
        return None


# --- per-dataset collectors: native records -> metric arrays ------------------------------------------------
class _Collector:
    def __init__(self) -> None:
        self.episode: list[str] = []
        self.groups: dict[str, list[Any]] = {}

    def _meta(self, episode: Any, group_values: dict[str, Any]) -> None:
        self.episode.append(
            f"{episode.lang}/{episode.episode_id}" if episode.dataset == "androidlens" else str(episode.episode_id)
        )
        for k, v in group_values.items():
            self.groups.setdefault(k, []).append(v)

    def add(self, episode: Any, step: Any, pred_raw: dict[str, Any] | None) -> None:
        raise NotImplementedError

    def add_missing(self, episode: Any, step: Any) -> None:
        """A step the predictions file has no line for."""
        self.add(episode, step, None)

    def add_action(self, episode: Any, step: Any, action: Action | None, pred_raw: dict[str, Any] | None) -> None:
        """A predicted unified action (None = invalid output) and its dataset record (None = not expressible)."""
        self.add(episode, step, pred_raw)


class AitwCollector(_Collector):
    def __init__(self) -> None:
        super().__init__()
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
        self._meta(episode, {"subset": episode.meta.get("subset") or "unknown", "split": episode.meta.get("split")})
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


class OdysseyCollector(_Collector):
    """GUI Odyssey: the official `src/eval_mm` rules (`harness.metrics.odyssey`); `rule` names the click rule
    whose figures are the headline (both are reported)."""

    def __init__(self, rule: str = "box_or_distance") -> None:
        super().__init__()
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
        self._meta(episode, {"category": episode.meta.get("category") or "unknown", "split": episode.meta.get("split")})
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


def _yxhw_boxes(raw: dict[str, Any], width: int, height: int) -> np.ndarray:
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


class AgentCPMCollector(_Collector):
    """AndroidLens / AITZ scored by the AgentCPM-GUI evaluator (`harness.metrics.agentcpm`): ground-truth records
    read as its `_parse_answer_` reads them; predictions as unified actions, native records, or the model's own
    output (`"pred": {...}`). Steps without a prediction are left out of every figure, as the evaluator never
    sees them."""

    def __init__(self, dataset: str, mode: str = "default") -> None:
        super().__init__()
        if mode not in agentcpm.MODES:
            raise EvalError(f"{dataset} metric mode must be one of {', '.join(agentcpm.MODES)}, got {mode!r}")
        self.dataset = dataset
        self.mode = mode
        self.scored: list[bool] = []
        self.boxes_unavailable = 0
        self.rows: dict[str, list[Any]] = {
            f"{s}_{k}": [] for s in ("gt", "pred") for k in ("type", "point", "dir", "key", "text")
        }
        self.boxes: list[np.ndarray] = []

    def _pred(self, raw: dict[str, Any] | None) -> dict[str, Any]:
        from tasks.datasets import convert
        from tasks.datasets.base import DatasetError

        if raw is None:
            return agentcpm_fields(None)
        if "pred" in raw and "result_action_type" not in raw:
            return _row_dict(agentcpm.pred_from_output(raw["pred"]))
        dialect: Literal["aitz", "androidlens"] = "androidlens" if self.dataset == "androidlens" else "aitz"
        try:
            convert.to_unified(self.dataset, raw)  # validates the record
        except DatasetError:
            return agentcpm_fields(None)
        return _row_dict(agentcpm.gt_from_record(raw, dialect))

    def add(
        self,
        episode: Any,
        step: Any,
        pred_raw: dict[str, Any] | None,
        scored: bool = True,
        action: Action | None = None,
    ) -> None:
        if self.dataset == "androidlens":
            types = [str(t) for t in episode.meta.get("types") or []]
            group = {"category": types[0] if types else "unknown", "lang": episode.lang}
        else:
            group = {"subset": episode.meta.get("subset") or "unknown"}
        self._meta(episode, group)
        self.scored.append(scored)
        dialect: Literal["aitz", "androidlens"] = "androidlens" if self.dataset == "androidlens" else "aitz"
        gt = _row_dict(agentcpm.gt_from_record(step.raw, dialect))
        pred = agentcpm_fields(action) if action is not None else self._pred(pred_raw)
        if action is not None and getattr(action, "point", 0) is None and isinstance(action, (Click, LongPress)):
            pred = agentcpm_fields(None)
        for side, row in (("gt", gt), ("pred", pred)):
            for k, v in row.items():
                self.rows[f"{side}_{k}"].append(v)
        w = step.width or step.raw.get("image_width")
        h = step.height or step.raw.get("image_height")
        boxes = _yxhw_boxes(step.raw, int(w or 0), int(h or 0))
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


def make_collector(dataset: str, metric_rule: str | None = None) -> Any:
    if dataset == "aitw":
        return AitwCollector()
    if dataset == "odyssey":
        return OdysseyCollector(metric_rule or "box_or_distance")
    if dataset in ("androidlens", "aitz"):
        return AgentCPMCollector(dataset, metric_rule or "default")
    raise EvalError(f"unknown dataset {dataset!r}; expected one of {', '.join(DATASETS)}")


# --- predictions files --------------------------------------------------------------------------------------
def _native_fields(dataset: str) -> tuple[str, ...]:
    from tasks.datasets.convert import ACTION_FIELDS

    return tuple(ACTION_FIELDS[dataset])


def iter_jsonl(path: str | Path) -> Iterator[tuple[int, Any]]:
    """(line number, value) of each non-blank line of a JSON-lines file; `EvalError` naming the file (and line)
    when it cannot be read or a line is not JSON."""
    p = Path(path)
    try:
        lines = p.read_text(encoding="utf-8").splitlines()
    except OSError as exc:
        raise EvalError(f"{p}: cannot be read: {exc}") from exc
    for n, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            yield n, json.loads(line)
        except json.JSONDecodeError as exc:
            raise EvalError(f"{p}:{n}: not valid JSON: {exc.msg} (column {exc.colno})") from None


def read_predictions(path: str | Path, dataset: str) -> dict[tuple[str, int], dict[str, Any]]:
    """`{(episode key, step): {"action": Action | None} | {"raw": native dict | None}}` from a JSONL file.

    The episode key is `episode_id` (for AndroidLens `"<lang>/<episode_id>"` when the line has `lang`)."""
    out: dict[tuple[str, int], dict[str, Any]] = {}
    p = Path(path)
    native = _native_fields(dataset)
    for n, rec in iter_jsonl(p):
        if not isinstance(rec, dict) or "episode_id" not in rec or "step" not in rec:
            raise EvalError(f'{p}:{n}: a prediction needs "episode_id" and "step"')
        step = rec["step"]
        if isinstance(step, bool) or not isinstance(step, int) or step < 0:
            raise EvalError(f'{p}:{n}: "step" must be a 0-based integer, got {step!r}')
        key = str(rec["episode_id"])
        if dataset == "androidlens" and rec.get("lang"):
            key = f"{rec['lang']}/{key}"
        act = rec.get("action", "__absent__")
        if isinstance(act, dict):
            try:
                entry: dict[str, Any] = {"action": parse_action(act)}
            except ActionValidationError as exc:
                entry = {"action": None, "error": f"line {n}: {exc}"}
        elif act is None and "pred" not in rec:
            entry = {"action": None}
        elif dataset in ("androidlens", "aitz") and "pred" in rec and act == "__absent__":
            entry = {"raw": {"pred": rec["pred"]}}  # AgentCPM-GUI's own output, read as its evaluator reads it
        elif (dataset == "odyssey" and isinstance(act, str)) or any(k in rec for k in native if k != "action"):
            entry = {"raw": {k: v for k, v in rec.items() if k not in ("episode_id", "step", "lang")}}
        else:
            raise EvalError(
                f'{p}:{n}: expected "action" (a unified action object, or null) or the dataset\'s '
                f"native fields ({', '.join(native)})"
            )
        if (key, step) in out:
            raise EvalError(f"{p}:{n}: a second prediction for episode {key} step {step}")
        out[(key, step)] = entry
    return out


# --- the evaluation -----------------------------------------------------------------------------------------
@dataclass
class EvalOptions:
    dataset: str
    data: str | Path
    split: str | Path | None = None
    split_label: str | None = None
    images: str | Path | None = None  # odyssey screenshots dir / aitz images root
    langs: tuple[str, ...] = ("en", "zh")  # androidlens
    max_episodes: int | None = None
    skip_bad: bool = False
    seed: int = 0
    loader_options: dict[str, Any] = field(default_factory=dict)
    # odyssey: "box_or_distance" (latest release, default) | "distance_only" (earlier release);
    # aitz / androidlens: "default" | "android_control" (the AgentCPM-GUI evaluator's AndroidControl mode)
    metric_rule: str | None = None


def iter_dataset(opts: EvalOptions, need_images: bool) -> Iterator[Any]:
    """The dataset's episodes (`tasks.datasets.open_dataset`) with the split / image options applied."""
    from tasks.datasets import open_dataset

    kw: dict[str, Any] = {"skip_bad": opts.skip_bad, **opts.loader_options}
    if opts.dataset == "aitw":
        if opts.split is not None:
            kw.update(split=str(opts.split), split_label=opts.split_label)
        kw.setdefault("keep_images", need_images)
    elif opts.dataset == "odyssey":
        if opts.split is not None:
            kw.update(split_file=str(opts.split), split=opts.split_label or "test")
        if opts.images is not None:
            kw["images_dir"] = str(opts.images)
    elif opts.dataset == "androidlens":
        kw["langs"] = tuple(opts.langs)
    elif opts.dataset == "aitz":
        if opts.images is not None:
            kw["images_root"] = str(opts.images)
        kw.setdefault("require_images", need_images)
    if opts.split is not None and opts.dataset in ("androidlens", "aitz"):
        raise EvalError(f"--split is not supported for {opts.dataset} (select episodes by folder)")
    it = open_dataset(opts.dataset, str(opts.data), **kw)
    for n, ep in enumerate(it):
        if opts.max_episodes is not None and n >= opts.max_episodes:
            break
        yield ep


def _episode_key(ep: Any) -> str:
    return f"{ep.lang}/{ep.episode_id}" if ep.dataset == "androidlens" else str(ep.episode_id)


def evaluate(
    opts: EvalOptions,
    agent: Any = None,
    predictions: str | Path | None = None,
    progress: Callable[[str], None] | None = None,
) -> dict[str, Any]:
    """Run `agent` teacher-forced over the dataset (or score `predictions`); returns the JSON-ready report."""
    from agents.base import AgentStep, EpisodeContext, HistoryItem

    if opts.dataset not in DATASETS:
        raise EvalError(f"unknown dataset {opts.dataset!r}; expected one of {', '.join(DATASETS)}")
    if (agent is None) == (predictions is None):
        raise EvalError("give exactly one of an agent or a predictions file")
    preds = read_predictions(predictions, opts.dataset) if predictions is not None else None
    col = make_collector(opts.dataset, opts.metric_rule)
    counts = {"episodes": 0, "steps": 0, "invalid": 0, "unexpressible": 0, "missing": 0}
    for ep in iter_dataset(opts, need_images=agent is not None):
        counts["episodes"] += 1
        key = _episode_key(ep)
        if agent is not None:
            agent.reset(
                EpisodeContext(
                    task=task_for(ep), lang=ep.lang, instruction=ep.instruction, seed=opts.seed, max_steps=len(ep.steps)
                )
            )
        history: list[Any] = []
        for step in ep.steps:
            counts["steps"] += 1
            pred_raw: dict[str, Any] | None
            action = None
            native = False
            if agent is not None:
                out = agent.act(observation_for(step, ep), list(history))
                history.append(
                    HistoryItem(
                        step=step.index + 1, agent_step=AgentStep(action=step.action, thought="(recorded step)")
                    )
                )
                action = out.action
                if action is None:
                    counts["invalid"] += 1
                pred_raw = native_prediction(opts.dataset, action, step)
                if action is not None and pred_raw is None:
                    counts["unexpressible"] += 1
            else:
                assert preds is not None
                entry = preds.get((key, step.index)) or (
                    preds.get((str(ep.episode_id), step.index)) if opts.dataset == "androidlens" else None
                )
                if entry is None:
                    counts["missing"] += 1
                    col.add_missing(ep, step)
                    continue
                if "raw" in entry:
                    pred_raw, native = entry["raw"], True
                else:
                    action = entry["action"]
                    if action is None:
                        counts["invalid"] += 1
                    pred_raw = native_prediction(opts.dataset, action, step)
                    if action is not None and pred_raw is None:
                        counts["unexpressible"] += 1
            if native:
                col.add(ep, step, pred_raw)
            else:
                col.add_action(ep, step, action, pred_raw)
        if progress is not None:
            progress(f"{counts['episodes']} episodes, {counts['steps']} steps")
    if counts["steps"] == 0:
        raise EvalError(f"{opts.data}: no steps to evaluate (check --data, --split and --split-label)")
    report = {
        "dataset": opts.dataset,
        "data": str(opts.data),
        "split": str(opts.split) if opts.split else None,
        "split_label": opts.split_label,
        "source": "agent" if agent is not None else str(predictions),
        "agent": getattr(agent, "name", None),
        **counts,
        "metrics": col.score(str(opts.split) if opts.split else None),
    }
    return _jsonable(report)


def _jsonable(x: Any) -> Any:
    if isinstance(x, dict):
        return {str(k): _jsonable(v) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return [_jsonable(v) for v in x]
    if isinstance(x, np.generic):
        return x.item()
    if isinstance(x, float) and math.isnan(x):
        return None
    return x


# --- rendering ----------------------------------------------------------------------------------------------
def _pct(v: Any) -> str:
    return "-" if v is None or (isinstance(v, float) and math.isnan(v)) else f"{100 * v:.2f}"


def render(report: dict[str, Any], console: Any) -> None:
    """Rich tables of a report (figures in %)."""
    from rich.table import Table

    m = report["metrics"]
    ds = report["dataset"]
    head = (
        f"{ds}: {report['episodes']} episodes, {report['steps']} steps; invalid {report['invalid']}, "
        f"not expressible {report['unexpressible']}, missing {report['missing']}"
    )
    console.print(head, highlight=False)
    if ds == "aitw":
        t = Table(
            "subset",
            "episodes",
            "steps",
            "action matching acc. (%)",
            "step acc. (%)",
            title="AitW action matching (per-episode partial accuracy)",
        )
        for sub, v in m["per_subset"].items():
            t.add_row(
                sub, str(v["episodes"]), str(v["steps"]), _pct(v["action_matching_accuracy"]), _pct(v["step_accuracy"])
            )
        t.add_row(
            "[bold]overall[/bold] (mean of subsets)",
            str(m["episodes"]),
            str(m["steps"]),
            f"[bold]{_pct(m['overall'])}[/bold]",
            _pct(m["step_accuracy"]),
        )
        console.print(t)
        for split, v in (m.get("per_split") or {}).items():
            console.print(
                f"split {split}: overall {_pct(v['overall'])}% over {v['episodes']} episodes", highlight=False
            )
    elif ds == "odyssey":
        t = Table(
            "category",
            "episodes (left out)",
            "steps (scored)",
            "AMS (%)",
            "SR (%)",
            title=f"GUI Odyssey, rule {m['rule']}",
        )

        def row(name: str, v: dict[str, Any]) -> None:
            t.add_row(
                name,
                f"{v['episodes']} ({v['episodes_left_out']})",
                f"{v['steps']} ({v['steps_scored']})",
                _pct(v["AMS"]),
                _pct(v["SR"]),
            )

        for cat, v in m["per_category"].items():
            row(cat, v)
        row("[bold]pooled[/bold]", m["pooled"])
        if m.get("per_category_mean"):
            row("[bold]per-category mean[/bold]", m["per_category_mean"])
        console.print(t)
        console.print(
            f"official aggregation for this split: {m['official_aggregate']} -> AMS {_pct(m['AMS'])}%, "
            f"SR {_pct(m['SR'])}% ({m['episodes_left_out']} episodes left out of SR: a step without "
            f"a prediction); action type {_pct(m['action_type_accuracy'])}%, text "
            f"{_pct(m['text_accuracy'])}% ({m['text_correct']} / {m['text_total']})",
            highlight=False,
        )
        o = m["other_rule"]
        console.print(
            f"rule {o['rule']}: pooled AMS {_pct(o['pooled']['AMS'])}%, SR {_pct(o['pooled']['SR'])}%", highlight=False
        )
    else:
        group = "category" if "per_category" in m else "subset"
        t = Table(
            group,
            "episodes",
            "steps",
            "TM (%)",
            "EM (%)",
            "SR (%)",
            "GP (%)",
            title=f"{ds}: AgentCPM-GUI static evaluator",
        )
        for g, v in (m.get(f"per_{group}") or {}).items():
            t.add_row(
                g, str(v["episodes"]), str(v["steps"]), _pct(v["TM"]), _pct(v["EM"]), _pct(v["SR"]), _pct(v["GP"])
            )
        t.add_row(
            "[bold]all[/bold]",
            str(m["episodes"]),
            str(m["steps"]),
            _pct(m["TM"]),
            _pct(m["EM"]),
            _pct(m["SR"]),
            _pct(m["GP"]),
        )
        console.print(t)
        pt = Table("GT action type", "steps", "TM (%)", "EM (%)", title=f"per action type (mode {m['mode']})")
        for name, v in m["per_type"].items():
            pt.add_row(name, str(v["count"]), _pct(v["TM"]), _pct(v["EM"]))
        console.print(pt)
        pd = m["point_dist_avg"]
        td = m["text_dist_avg"]
        console.print(
            f"hit rate {_pct(m['hit_rate'])}%, avg text distance (Levenshtein ratio) "
            f"{'-' if td is None else f'{td:.4f}'}, avg point distance "
            f"{'-' if pd is None else f'{pd:.1f}'} (of 1000); steps without a prediction are left out",
            highlight=False,
        )
        if len(m.get("per_lang") or {}) > 1:
            for lang, v in m["per_lang"].items():
                console.print(f"{lang}: EM {_pct(v['EM'])}%  SR {_pct(v['SR'])}%", highlight=False)
