"""Plain per-step implementations of the official step-matching rules, written from the facts in
docs/datasets.md (which records what each official evaluator does).

These are the obviously-correct versions: one step at a time, plain Python floats, no numpy. The vectorized
matchers in `aitw.py`, `odyssey.py` and `agentcpm.py` must agree with them on every element (property tests in
`tests/harness/metrics/test_property.py`); `bench/metrics.py` times them against each other.

Arithmetic is written in the same order as the official code (box edges `top + height`, coordinates divided by
1000 before subtracting, distances by `numpy.linalg.norm` where the official code calls it), so that points
exactly on a threshold or on a box edge give the same verdict: IEEE double arithmetic is deterministic.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

# --- AitW (docs/datasets.md) ----------------------------------------------------------------------------------
AITW_TYPE, AITW_DUAL_POINT = 3, 4
AITW_TAP_DISTANCE = 0.14
AITW_SWIPE_DISTANCE = 0.04
AITW_BOX_AUGMENT = 1.4


def _dist(a: Sequence[float], b: Sequence[float]) -> float:
    d0 = float(a[0]) - float(b[0])
    d1 = float(a[1]) - float(b[1])
    return math.sqrt(d0 * d0 + d1 * d1)


def aitw_is_tap(touch: Sequence[float], lift: Sequence[float]) -> bool:
    """A DUAL_POINT is a tap iff the finger moved at most 0.04 (Euclidean, normalized)."""
    return _dist(touch, lift) <= AITW_SWIPE_DISTANCE


def aitw_enlarge_box(box: Sequence[float]) -> tuple[float, float, float, float]:
    """`[y, x, h, w]` -> the box grown by 1.4 h and 1.4 w, recentred, top/left clamped at 0, h/w capped at 1."""
    y, x, h, w = (float(v) for v in box)
    dh = AITW_BOX_AUGMENT * h
    dw = AITW_BOX_AUGMENT * w
    return max(0.0, y - dh / 2), max(0.0, x - dw / 2), min(1.0, h + dh), min(1.0, w + dw)


def aitw_in_box(yx: Sequence[float], box: Sequence[float]) -> bool:
    """Is (y, x) inside the `[y, x, h, w]` box, edges included?"""
    top, left, h, w = box
    y, x = float(yx[0]), float(yx[1])
    return top <= y <= top + h and left <= x <= left + w


def aitw_match_step(
    pred_type: int,
    pred_touch: Sequence[float],
    pred_lift: Sequence[float],
    gt_type: int,
    gt_touch: Sequence[float],
    gt_lift: Sequence[float],
    gt_boxes: Sequence[Sequence[float]] = (),
) -> bool:
    """The AitW action-matching rule for one step. Points are (y, x) normalized; boxes `[y, x, h, w]`."""
    if pred_type != AITW_DUAL_POINT or gt_type != AITW_DUAL_POINT:
        return pred_type == gt_type  # typed text is not compared
    pred_tap = aitw_is_tap(pred_touch, pred_lift)
    gt_tap = aitw_is_tap(gt_touch, gt_lift)
    if pred_tap != gt_tap:
        return False  # tap vs swipe
    if pred_tap:
        for box in gt_boxes:
            big = aitw_enlarge_box(box)
            if aitw_in_box(pred_touch, big) and aitw_in_box(gt_touch, big):
                return True
        return _dist(pred_touch, gt_touch) <= AITW_TAP_DISTANCE

    # two swipes: the main axis (0 = y, 1 = x) must agree; ties go to y; the sign is not compared
    def axis(touch: Sequence[float], lift: Sequence[float]) -> int:
        dy = abs(float(lift[0]) - float(touch[0]))
        dx = abs(float(lift[1]) - float(touch[1]))
        return 1 if dx > dy else 0

    return axis(pred_touch, pred_lift) == axis(gt_touch, gt_lift)


# --- GUI Odyssey (docs/datasets.md, GUI Odyssey) -------------------------------------------------------------
ODYSSEY_TYPES = ("CLICK", "LONG_PRESS", "SCROLL", "TYPE", "HOME", "BACK", "RECENT", "COMPLETE", "IMPOSSIBLE")
ODYSSEY_DISTANCE = 0.14
ODYSSEY_TEXT_SIMILARITY = 0.5


def levenshtein(a: str, b: str) -> int:
    """Edit distance (insertions, deletions, substitutions all cost 1), by the textbook two-row DP: the one plain
    implementation, kept as the independent check of the rapidfuzz path."""
    if len(a) < len(b):
        a, b = b, a
    prev = list(range(len(b) + 1))
    for i, ca in enumerate(a, 1):
        cur = [i]
        for j, cb in enumerate(b, 1):
            cur.append(min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (ca != cb)))
        prev = cur
    return prev[-1]


def odyssey_text_match(pred: str, gt: str) -> bool:
    """TYPE rule: after strip, one contains the other, or 1 - lev / max(len) >= 0.5."""
    p, g = pred.strip(), gt.strip()
    if p in g or g in p:
        return True
    return 1 - levenshtein(g, p) / max(len(g), len(p)) >= ODYSSEY_TEXT_SIMILARITY


def odyssey_direction(start: Sequence[float], end: Sequence[float]) -> str:
    """The official converter's scroll name: |dx| > |dy| -> LEFT if dx < 0 else RIGHT; otherwise UP if dy < 0
    else DOWN (ties vertical, zero length DOWN)."""
    dx = float(end[0]) - float(start[0])
    dy = float(end[1]) - float(start[1])
    if abs(dx) > abs(dy):
        return "LEFT" if dx < 0 else "RIGHT"
    return "UP" if dy < 0 else "DOWN"


def odyssey_match_step(
    pred_type: str,
    pred_point: Sequence[float] | None,
    pred_end: Sequence[float] | None,
    gt_type: str,
    gt_point: Sequence[float] | None,
    gt_end: Sequence[float] | None,
    gt_box: Sequence[float] | None = None,
    pred_text: str = "",
    gt_text: str = "",
    rule: str = "box_or_distance",
) -> bool:
    """The GUI Odyssey AMS rule for one step. Types are canonical names from `ODYSSEY_TYPES`; points (x, y) in
    [0, 1000]; `gt_box` the v2 `sam2_bbox` `[x1, y1, x2, y2]` in [0, 1000] or None. `rule="distance_only"` is the
    earlier release (no box)."""
    if pred_type != gt_type:
        return False
    if gt_type in ("CLICK", "LONG_PRESS"):
        assert pred_point is not None and gt_point is not None
        px, py = float(pred_point[0]), float(pred_point[1])
        if gt_box is not None and rule == "box_or_distance":
            x1, y1, x2, y2 = (float(v) for v in gt_box)
            if x1 <= px <= x2 and y1 <= py <= y2:
                return True
        d = np.array([px / 1000 - float(gt_point[0]) / 1000, py / 1000 - float(gt_point[1]) / 1000])
        return bool(np.linalg.norm(d) <= ODYSSEY_DISTANCE)
    if gt_type == "SCROLL":
        assert pred_point is not None and pred_end is not None and gt_point is not None and gt_end is not None
        return odyssey_direction(pred_point, pred_end) == odyssey_direction(gt_point, gt_end)
    if gt_type == "TYPE":
        return odyssey_text_match(pred_text, gt_text)
    return True


# --- AgentCPM-GUI static evaluator (docs/datasets.md, AgentCPM-GUI) -------------------------------------------
# classes: WAIT is read as STOP by the evaluator (a prediction with only a duration, the GT's "no action")
AGENTCPM_TYPES = ("CLICK", "LONG_PRESS", "SCROLL", "TYPE", "PRESS", "STOP", "WAIT")
AGENTCPM_BOX_SCALE = 1.2
AGENTCPM_DISTANCE = 0.14
AGENTCPM_DISTANCE_AC = 0.04


def agentcpm_text_match(pred: str, gt: str) -> bool:
    p, g = pred.lower().strip(), gt.lower().strip()
    return p in g or g in p


def agentcpm_direction(start: Sequence[float], end: Sequence[float]) -> str | None:
    """The direction among up, down, left, right with the largest cosine to start -> end (x, y), the first in
    that order on ties; None for a zero-length vector."""
    vx = float(end[0]) - float(start[0])
    vy = float(end[1]) - float(start[1])
    length = math.sqrt(vx * vx + vy * vy)
    if length == 0:
        return None
    ux, uy = vx / length, vy / length
    best, name = -math.inf, None
    for n, (dx, dy) in (("UP", (0, -1)), ("DOWN", (0, 1)), ("LEFT", (-1, 0)), ("RIGHT", (1, 0))):
        cos = ux * dx + uy * dy
        if cos > best:
            best, name = cos, n
    return name


def agentcpm_grow_box(box: Sequence[float]) -> tuple[float, float, float, float]:
    """`[y, x, h, w]` grown as the evaluator grows it: delta = (1.2 - 1) * size, top / left minus delta / 2 clamped
    at 0, size plus delta capped at 1."""
    y, x, h, w = (float(v) for v in box)
    hd = (AGENTCPM_BOX_SCALE - 1) * h
    wd = (AGENTCPM_BOX_SCALE - 1) * w
    return max(0.0, y - hd / 2), max(0.0, x - wd / 2), min(1.0, h + hd), min(1.0, w + wd)


def _inside_yxhw(x: float, y: float, box: Sequence[float]) -> bool:
    top, left, h, w = box
    return top <= y <= top + h and left <= x <= left + w


def agentcpm_match_step(
    pred_type: str,
    gt_type: str,
    pred_point: Sequence[float] | None = None,
    gt_point: Sequence[float] | None = None,
    pred_direction: str | None = None,
    gt_direction: str | None = None,
    pred_key: str | None = None,
    gt_key: str | None = None,
    pred_text: str = "",
    gt_text: str = "",
    gt_boxes: Sequence[Sequence[float]] = (),
    mode: str = "default",
) -> tuple[bool, bool]:
    """(type match, exact match) for one step. Points (x, y) normalized; boxes `[y, x, h, w]` normalized; a
    direction None = a zero-length swipe. `mode="android_control"`: the 5 grown boxes nearest the GT point, 0.04."""
    cls = {"WAIT": "STOP"}
    pt, gt = cls.get(pred_type, pred_type), cls.get(gt_type, gt_type)
    if pt != gt:
        return False, False
    if gt in ("CLICK", "LONG_PRESS"):
        assert pred_point is not None and gt_point is not None
        px, py = float(pred_point[0]), float(pred_point[1])
        gx, gy = float(gt_point[0]), float(gt_point[1])
        grown = [agentcpm_grow_box(b) for b in gt_boxes]
        if mode == "android_control":

            def centre_distance(b: tuple[float, float, float, float]) -> float:
                return ((b[0] + b[2] / 2 - gy) ** 2 + (b[1] + b[3] / 2 - gx) ** 2) ** 0.5

            kept = sorted(grown, key=centre_distance)[:5]
            threshold = AGENTCPM_DISTANCE_AC
        else:
            kept = [b for b in grown if _inside_yxhw(gx, gy, b)]
            threshold = AGENTCPM_DISTANCE
        if any(_inside_yxhw(px, py, b) for b in kept):
            return True, True
        return True, bool(np.linalg.norm(np.array([gx, gy]) - np.array([px, py])) <= threshold)
    if gt == "SCROLL":
        return True, pred_direction is not None and pred_direction == gt_direction
    if gt == "TYPE":
        return True, agentcpm_text_match(pred_text, gt_text)
    if gt == "PRESS":
        return True, pred_key == gt_key
    return True, True  # STOP: any stop (COMPLETE, IMPOSSIBLE, wait, no action)


def episode_goal_progress(step_correct: Sequence[bool]) -> float:
    """Consecutive correct steps from the start / episode length."""
    n = 0
    for ok in step_correct:
        if not ok:
            break
        n += 1
    return n / len(step_correct) if step_correct else 0.0
