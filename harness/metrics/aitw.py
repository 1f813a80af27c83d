"""Android in the Wild: the official action-matching metric, vectorized with numpy (docs/datasets.md).

Representation (the dataset's own; y FIRST, normalized [0, 1]):

- `pred_type`, `gt_type`: int[N] action codes (3 TYPE, 4 DUAL_POINT, 5 PRESS_BACK, 6 PRESS_HOME, 7 PRESS_ENTER,
  10 STATUS_TASK_COMPLETE, 11 STATUS_TASK_IMPOSSIBLE; any other int, e.g. `INVALID = -1` for an unparseable
  prediction, only matches the same int).
- `pred_touch`, `pred_lift`, `gt_touch`, `gt_lift`: float[N, 2] `(y, x)`; ignored unless both types are 4.
- `gt_boxes`: the ground-truth step's `image/ui_annotations_positions`, `[y, x, h, w]` normalized, ragged.
  Pass either a padded float[N, M, 4] array with `gt_box_counts` int[N] (rows past the count are ignored; with
  no counts every row is used, and all-NaN rows are ignored), or a flat float[K, 4] array with
  `gt_box_offsets` int[N + 1] (`boxes of step i = flat[offsets[i]:offsets[i + 1]]`).

Rule (constants exact): non-DUAL_POINT on either side -> types equal (typed text NOT compared); a DUAL_POINT is a
tap iff `||touch - lift|| <= 0.04`; tap vs swipe -> no match; two taps -> both touch points inside the same
annotation box enlarged by 1.4 h and 1.4 w (recentred, top/left clamped at 0, h/w capped at 1, edges
inclusive) OR `||touch1 - touch2|| <= 0.14`; two swipes -> same main axis `argmax(|lift - touch|)` over (y, x),
ties -> y, sign not compared.

Arithmetic is float64 whatever the input dtype (float32 -> float64 is exact), so a verdict on a threshold does
not depend on how the caller stored the numbers.

Aggregation (the published figure): per episode, matched steps / episode length (the steps given for it),
averaged over the episodes of a subset; "overall" = the mean of the subset means.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from harness.metrics.boxes import boxes_for

TYPE = 3
DUAL_POINT = 4
PRESS_BACK = 5
PRESS_HOME = 6
PRESS_ENTER = 7
STATUS_TASK_COMPLETE = 10
STATUS_TASK_IMPOSSIBLE = 11
INVALID = -1  # a prediction with no AitW equivalent: matches nothing in the dataset

TAP_DISTANCE = 0.14
SWIPE_DISTANCE = 0.04
BOX_AUGMENT = 1.4  # both height and width

SUBSETS = ("GoogleApps", "Install", "WebShopping", "General", "Single")
METRIC = "action_matching_accuracy"  # the AitW paper's "partial" per-episode action matching accuracy

_CHUNK = 1 << 16  # rows per block of the box test: bounds temporary memory on millions of steps


def _as_points(a: Any, n: int, name: str) -> np.ndarray:
    arr = np.asarray(a, dtype=np.float64)
    if arr.shape != (n, 2):
        raise ValueError(f"{name} must have shape ({n}, 2), got {arr.shape}")
    return arr


def _norm(d: np.ndarray) -> np.ndarray:
    return np.sqrt(d[:, 0] * d[:, 0] + d[:, 1] * d[:, 1])


def pad_boxes(flat: Any, offsets: Any) -> tuple[np.ndarray, np.ndarray]:
    """Flat float[K, 4] + offsets int[N + 1] -> padded float[N, M, 4] (NaN padding) + counts int[N]."""
    flat = np.asarray(flat, dtype=np.float64).reshape(-1, 4)
    offsets = np.asarray(offsets, dtype=np.int64)
    counts = np.diff(offsets)
    if (counts < 0).any() or offsets[0] != 0 or offsets[-1] != len(flat):
        raise ValueError("gt_box_offsets must be non-decreasing, start at 0 and end at len(flat)")
    n, m = len(counts), int(counts.max(initial=0))
    out = np.full((n, m, 4), np.nan)
    if len(flat):
        rows = np.repeat(np.arange(n), counts)
        cols = np.arange(len(flat)) - np.repeat(offsets[:-1], counts)
        out[rows, cols] = flat
    return out, counts


def enlarge_boxes(boxes: Any) -> np.ndarray:
    """`[..., 4]` `[y, x, h, w]` -> the enlarged boxes `[top, left, height, width]` of the matching rule."""
    b = np.asarray(boxes, dtype=np.float64)
    y, x, h, w = b[..., 0], b[..., 1], b[..., 2], b[..., 3]
    dh = BOX_AUGMENT * h
    dw = BOX_AUGMENT * w
    return np.stack(
        [np.maximum(0.0, y - dh / 2), np.maximum(0.0, x - dw / 2), np.minimum(1.0, h + dh), np.minimum(1.0, w + dw)],
        axis=-1,
    )


def _in_same_box(p: np.ndarray, g: np.ndarray, boxes: np.ndarray, valid: np.ndarray) -> np.ndarray:
    """p, g: [n, 2] (y, x); boxes [n, M, 4]; valid [n, M] -> bool[n]: both points in one enlarged box."""
    out = np.zeros(len(p), dtype=bool)
    for s in range(0, len(p), _CHUNK):
        e = min(s + _CHUNK, len(p))
        bb = enlarge_boxes(boxes[s:e])
        top, left = bb[..., 0], bb[..., 1]
        bottom, right = top + bb[..., 2], left + bb[..., 3]
        py, px = p[s:e, 0:1], p[s:e, 1:2]
        gy, gx = g[s:e, 0:1], g[s:e, 1:2]
        inside = (
            (top <= py)
            & (py <= bottom)
            & (left <= px)
            & (px <= right)
            & (top <= gy)
            & (gy <= bottom)
            & (left <= gx)
            & (gx <= right)
            & valid[s:e]
        )
        out[s:e] = inside.any(axis=1)
    return out


def match_actions(
    pred_type: Any,
    pred_touch: Any,
    pred_lift: Any,
    gt_type: Any,
    gt_touch: Any,
    gt_lift: Any,
    gt_boxes: Any = None,
    gt_box_counts: Any = None,
    gt_box_offsets: Any = None,
) -> np.ndarray:
    """bool[N]: does each predicted action match the ground truth under the AitW rule (module docstring)?"""
    pt = np.asarray(pred_type).astype(np.int64).ravel()
    gt = np.asarray(gt_type).astype(np.int64).ravel()
    n = len(gt)
    if len(pt) != n:
        raise ValueError(f"pred_type has {len(pt)} rows, gt_type {n}")
    match = pt == gt
    dual = np.flatnonzero((pt == DUAL_POINT) & (gt == DUAL_POINT))
    if len(dual) == 0:
        return match
    p_t = _as_points(pred_touch, n, "pred_touch")[dual]
    p_l = _as_points(pred_lift, n, "pred_lift")[dual]
    g_t = _as_points(gt_touch, n, "gt_touch")[dual]
    g_l = _as_points(gt_lift, n, "gt_lift")[dual]
    p_move, g_move = p_l - p_t, g_l - g_t
    p_tap = _norm(p_move) <= SWIPE_DISTANCE
    g_tap = _norm(g_move) <= SWIPE_DISTANCE
    result = np.zeros(len(dual), dtype=bool)

    # two swipes: main axis (argmax over (y, x) takes the first on ties -> y)
    sw = ~p_tap & ~g_tap
    p_axis = np.abs(p_move[:, 1]) > np.abs(p_move[:, 0])
    g_axis = np.abs(g_move[:, 1]) > np.abs(g_move[:, 0])
    result[sw] = p_axis[sw] == g_axis[sw]

    # two taps: distance, else the same enlarged box
    tt = np.flatnonzero(p_tap & g_tap)
    if len(tt):
        ok = _norm(p_t[tt] - g_t[tt]) <= TAP_DISTANCE
        need = tt[~ok]
        hit = np.zeros(len(tt), dtype=bool)
        rows = dual[need]  # indices into the full N
        if len(rows) and (gt_boxes is not None):
            boxes, valid = boxes_for(rows, n, gt_boxes, gt_box_counts, gt_box_offsets)
            if boxes.shape[1]:
                hit[~ok] = _in_same_box(p_t[need], g_t[need], boxes, valid)
        result[tt] = ok | hit
    match[dual] = result
    return match


# --- aggregation ---------------------------------------------------------------------------------------------
def episode_accuracy(matches: Any, episode_ids: Any) -> tuple[np.ndarray, np.ndarray]:
    """Per episode: matched steps / steps. Returns (episode ids in first-appearance order, accuracy)."""
    m = np.asarray(matches, dtype=bool).ravel()
    ids = np.asarray(episode_ids).ravel()
    if len(ids) != len(m):
        raise ValueError(f"{len(m)} matches but {len(ids)} episode ids")
    if not len(m):
        return ids[:0], np.zeros(0)
    uniq, first, inv = np.unique(ids, return_index=True, return_inverse=True)
    acc = np.bincount(inv, weights=m, minlength=len(uniq)) / np.bincount(inv, minlength=len(uniq))
    order = np.argsort(first, kind="stable")
    return uniq[order], acc[order]


def score(matches: Any, episode_ids: Any, subsets: Any = None) -> dict[str, Any]:
    """The AitW figures. `subsets[N]` names each step's subset (GoogleApps, Install, ...); without it one group.

    Returns `{"metric": "action_matching_accuracy", "per_subset": {subset: {"action_matching_accuracy",
    "episodes", "steps", "step_accuracy"}}, "overall": mean of subset means, "overall_subsets": [...],
    "all_five_subsets": bool, "episodes", "steps", "step_accuracy" (pooled over steps, for reference)}`.
    """
    m = np.asarray(matches, dtype=bool).ravel()
    ids = np.asarray(episode_ids).ravel()
    subs = np.full(len(m), "all", dtype=object) if subsets is None else np.asarray(subsets, dtype=object).ravel()
    if len(subs) != len(m):
        raise ValueError(f"{len(m)} matches but {len(subs)} subset labels")
    per: dict[str, dict[str, float]] = {}
    for sub in sorted(set(subs.tolist()), key=lambda s: (SUBSETS.index(s) if s in SUBSETS else 99, str(s))):
        sel = subs == sub
        _, acc = episode_accuracy(m[sel], ids[sel])
        per[str(sub)] = {
            METRIC: float(acc.mean()),
            "episodes": len(acc),
            "steps": int(sel.sum()),
            "step_accuracy": float(m[sel].mean()),
        }
    means = [v[METRIC] for v in per.values()]
    _, all_acc = episode_accuracy(m, ids)
    return {
        "metric": METRIC,
        "per_subset": per,
        "overall": float(np.mean(means)) if means else float("nan"),
        "overall_subsets": list(per),
        "all_five_subsets": set(per) >= set(SUBSETS),
        "episodes": len(all_acc),
        "steps": len(m),
        "step_accuracy": float(m.mean()) if len(m) else float("nan"),
    }


def arrays_from_records(records: Sequence[dict[str, Any]]) -> dict[str, np.ndarray]:
    """Native AitW step records (TFRecord feature names) -> the arrays `match_actions` takes (gt side).

    Reads `results/action_type`, `results/yx_touch`, `results/yx_lift` and `image/ui_annotations_positions`
    (flattened `[y, x, h, w] * K`). Returns `type`, `touch`, `lift`, `boxes` (flat [K, 4]), `box_offsets`.
    """
    n = len(records)
    types = np.empty(n, dtype=np.int64)
    touch = np.full((n, 2), -1.0)
    lift = np.full((n, 2), -1.0)
    flat: list[np.ndarray] = []
    offsets = np.zeros(n + 1, dtype=np.int64)
    for i, r in enumerate(records):
        types[i] = int(_scalar(r.get("results/action_type", INVALID)))
        t, l = r.get("results/yx_touch"), r.get("results/yx_lift")
        if t is not None and len(t) == 2:
            touch[i] = [float(t[0]), float(t[1])]
        if l is not None and len(l) == 2:
            lift[i] = [float(l[0]), float(l[1])]
        pos = np.asarray(r.get("image/ui_annotations_positions", ()), dtype=np.float64).reshape(-1, 4)
        flat.append(pos)
        offsets[i + 1] = offsets[i] + len(pos)
    boxes = np.concatenate(flat) if flat else np.zeros((0, 4))
    return {"type": types, "touch": touch, "lift": lift, "boxes": boxes, "box_offsets": offsets}


def _scalar(v: Any) -> Any:
    if isinstance(v, (list, tuple, np.ndarray)):
        return v[0] if len(v) else INVALID
    return v
