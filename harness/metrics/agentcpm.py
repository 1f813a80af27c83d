"""The AgentCPM-GUI static evaluator (`eval/utils/evaluator.py`, OpenBMB/AgentCPM-GUI): TM / EM per step, SR and
goal progress per episode, and the atomic figures it reports besides (per action type, hit rate, average text
similarity, average / median point distance). Used for AITZ and AndroidLens offline scoring; the rules, what the
official code does and how this was checked are in docs/datasets.md.

Representation (vectorized, N steps):

- `pred_type`, `gt_type`: int[N] codes of `TYPES` (CLICK 0, LONG_PRESS 1, SCROLL 2, TYPE 3, PRESS 4, STOP 5,
  WAIT 6, OPEN_APP 7; `INVALID = -1` = no parsable prediction). WAIT is in the STOP class (the evaluator turns a
  prediction with only a duration, and the ground truth's "no action", into `stop`), so WAIT and STOP match each
  other; COMPLETE and IMPOSSIBLE are both STOP. OPEN_APP is this project's extension (no dataset of this family
  records it, so it never matches).
- `pred_point`, `gt_point`: float[N, 2] `(x, y)` normalized [0, 1] (CLICK / LONG_PRESS rows).
- `pred_dir`, `gt_dir`: int[N] finger directions (UP 0, DOWN 1, LEFT 2, RIGHT 3; `NO_DIRECTION = -1` for a
  zero-length swipe, which matches nothing); see `finger_direction`.
- `pred_key`, `gt_key`: int[N] keys of PRESS (BACK 0, HOME 1, ENTER 2, RECENT 3 = the model's APPSELECT).
- `pred_text`, `gt_text`: str sequences (TYPE rows).
- `gt_boxes`: the step's UI boxes `[y, x, h, w]` normalized (the evaluator's `ui_positions`), ragged: padded
  [N, M, 4] + `gt_box_counts`, or flat [K, 4] + `gt_box_offsets` [N + 1].

Rules (`mode="default"`; `mode="android_control"` is the evaluator's `--eval_android_control`):
- TM: same class. EM: CLICK / LONG_PRESS: every GT box is grown as the evaluator grows it (`grow_boxes`: top
  and left move up / left by 0.1 of the size, clamped at 0; height and width x1.2, capped at 1); the grown boxes
  containing the GT point are kept (android_control: the 5 grown boxes whose centres are nearest the GT point);
  correct if the predicted point is inside a kept box (edges inclusive), else if `||gt - pred|| <= 0.14`
  (android_control: 0.04). SCROLL: same direction. TYPE: lower-cased, stripped containment either way. PRESS:
  same key. STOP: any stop.
- point distance (`pixel_distance`, [0, 1000] units) for type-matched CLICK / LONG_PRESS rows: from the
  predicted point to the centre of the kept box it fell in, else to the GT point. Text similarity for
  type-matched TYPE rows: `Levenshtein.ratio` of the normalized texts (rapidfuzz `Indel.normalized_similarity`).
- Episodes: SR = every step EM; goal progress = consecutive EM steps from the start / episode length. Steps of
  an episode must be given in step order (episodes may interleave).
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Literal, NamedTuple, TypedDict

import numpy as np
import numpy.typing as npt
from rapidfuzz import process
from rapidfuzz.distance import Indel

from harness.metrics.boxes import boxes_for

TYPES = ("CLICK", "LONG_PRESS", "SCROLL", "TYPE", "PRESS", "STOP", "WAIT", "OPEN_APP")
CLICK, LONG_PRESS, SCROLL, TYPE, PRESS, STOP, WAIT, OPEN_APP = range(8)
INVALID = -1
# the evaluator's names of the ground-truth classes it reports per type
OFFICIAL_NAMES = {
    CLICK: "CLICK",
    LONG_PRESS: "LONG_POINT",
    SCROLL: "SCROLL",
    PRESS: "PRESS",
    STOP: "STOP",
    TYPE: "TYPE",
}
KEYS = ("BACK", "HOME", "ENTER", "RECENT")
BACK, HOME, ENTER, RECENT = range(4)
DIRECTIONS = ("UP", "DOWN", "LEFT", "RIGHT")
UP, DOWN, LEFT, RIGHT = range(4)
NO_DIRECTION = -1

BOX_SCALE = 1.2
DISTANCE = 0.14
DISTANCE_ANDROID_CONTROL = 0.04
NEAREST_BOXES_ANDROID_CONTROL = 5
TAP_DISTANCE = 0.04  # a ground-truth DUAL_POINT is a tap when touch and lift are at most this far apart
DEFAULT_DURATION_MS = 200
MODES = ("default", "android_control")
Mode = Literal["default", "android_control"]
# how ground-truth records are read: AITZ's as the evaluator reads them; AndroidLens' adds its own long press
DIALECTS = ("aitz", "androidlens")
Dialect = Literal["aitz", "androidlens"]
ArrayLike = npt.ArrayLike

_CHUNK = 1 << 15


def text_match(pred: str, gt: str) -> bool:
    p, g = (pred or "").lower().strip(), (gt or "").lower().strip()
    return p in g or g in p


def text_similarity(pred: Sequence[str], gt: Sequence[str]) -> np.ndarray:
    """float[R]: `Levenshtein.ratio` (normalized InDel similarity) of the lower-cased, stripped pairs."""
    if not len(pred):
        return np.zeros(0)
    p = [str(x or "").lower().strip() for x in pred]
    g = [str(x or "").lower().strip() for x in gt]
    return np.asarray(process.cpdist(p, g, scorer=Indel.normalized_similarity, dtype=np.float64, workers=1))


# --- directions ------------------------------------------------------------------------------------------
def finger_direction(start: ArrayLike, end: ArrayLike) -> np.ndarray:
    """int[N] direction of the (x, y) start -> end vectors, as the evaluator finds it: the unit vector's cosine
    with up, down, left, right, the first maximum in that order (so ties go vertical); zero length ->
    NO_DIRECTION."""
    s = np.asarray(start, dtype=np.float64).reshape(-1, 2)
    e = np.asarray(end, dtype=np.float64).reshape(-1, 2)
    vx, vy = e[:, 0] - s[:, 0], e[:, 1] - s[:, 1]
    length = np.sqrt(vx * vx + vy * vy)
    zero = length == 0
    with np.errstate(invalid="ignore", divide="ignore"):
        ux, uy = vx / length, vy / length
    best = -uy
    out = np.full(len(vx), UP)
    for code, cos in ((DOWN, uy), (LEFT, -ux), (RIGHT, ux)):
        better = cos > best
        out = np.where(better, code, out)
        best = np.where(better, cos, best)
    return np.where(zero, NO_DIRECTION, out)


# --- boxes -----------------------------------------------------------------------------------------------
def _grown(b: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    hd = (BOX_SCALE - 1) * b[..., 2]
    wd = (BOX_SCALE - 1) * b[..., 3]
    return (
        np.maximum(0, b[..., 0] - hd / 2),
        np.maximum(0, b[..., 1] - wd / 2),
        np.minimum(1, b[..., 2] + hd),
        np.minimum(1, b[..., 3] + wd),
    )


def grow_boxes(boxes: ArrayLike) -> np.ndarray:
    """float[..., 4] `[y, x, h, w]` grown as the evaluator grows them (its arithmetic, in its order): delta =
    (1.2 - 1) * size; top / left = max(0, v - delta / 2); size = min(1, size + delta)."""
    return np.stack(_grown(np.asarray(boxes, dtype=np.float64)), axis=-1)


def _norm(dx: np.ndarray, dy: np.ndarray, threshold: float) -> np.ndarray:
    """`numpy.linalg.norm([dx, dy])` per row; the plain formula, rows near `threshold` by `norm` itself (the BLAS
    dot may fuse a multiply-add: one ulp of difference, which only matters next to a threshold)."""
    d = np.sqrt(dx * dx + dy * dy)
    close = np.flatnonzero(np.abs(d - threshold) <= 4 * np.spacing(threshold))
    for i in close:
        d[i] = np.linalg.norm(np.array([dx[i], dy[i]]))
    return d


def _nearest(key: np.ndarray, k: int) -> np.ndarray:
    """bool[R, M]: the `k` smallest keys of every row, ties broken by position (what a stable sort keeps)."""
    if key.shape[1] <= k:
        return np.ones(key.shape, dtype=bool)
    kth = np.partition(key, k - 1, axis=1)[:, k - 1 : k]
    below = key < kth
    room = k - below.sum(axis=1, keepdims=True)
    at = key == kth
    return below | (at & (np.cumsum(at, axis=1) <= room))


def _click_rows(
    p: np.ndarray,
    g: np.ndarray,
    boxes_of: Callable[[np.ndarray], tuple[np.ndarray, np.ndarray]],
    mode: Mode,
    distances: bool = True,
) -> tuple[np.ndarray, np.ndarray]:
    """(EM bool[R], pixel distance float[R]) of type-matched CLICK / LONG_PRESS rows; `boxes_of(rows)` gives the
    rows' boxes and validity. With `distances=False` the point distances are not computed (NaN) and only the rows
    the distance rule rejects are tested on the boxes."""
    r = len(p)
    threshold = DISTANCE_ANDROID_CONTROL if mode == "android_control" else DISTANCE
    dx, dy = g[:, 0] - p[:, 0], g[:, 1] - p[:, 1]
    near = _norm(dx, dy, threshold) <= threshold
    rows = np.arange(r) if distances else np.flatnonzero(~near)
    in_box = np.zeros(r, dtype=bool)
    ref = g.copy()
    for s in range(0, len(rows), _CHUNK):
        sel = rows[s : s + _CHUNK]
        boxes, ok = boxes_of(sel)
        if not boxes.shape[1]:
            continue
        top, left, h, w = _grown(np.asarray(boxes, dtype=np.float64))
        bottom, right = top + h, left + w
        gx, gy = g[sel, 0:1], g[sel, 1:2]
        px, py = p[sel, 0:1], p[sel, 1:2]
        if mode == "android_control":
            cy, cx = top + h / 2, left + w / 2
            key = np.where(ok, (cy - gy) ** 2 + (cx - gx) ** 2, np.inf)
            if distances:  # the order matters: the first kept box holding the point gives the reference
                order = np.argsort(key, axis=1, kind="stable")[:, :NEAREST_BOXES_ANDROID_CONTROL]
                kept = np.take_along_axis(ok, order, axis=1)
                top, left, bottom, right = (np.take_along_axis(v, order, axis=1) for v in (top, left, bottom, right))
            else:
                kept = ok & _nearest(key, NEAREST_BOXES_ANDROID_CONTROL)
        else:
            kept = ok & (left <= gx) & (gx <= right) & (top <= gy) & (gy <= bottom)
        hit = kept & (top <= py) & (py <= bottom) & (left <= px) & (px <= right)
        any_hit = hit.any(axis=1)
        in_box[sel] = any_hit
        if distances:
            first = np.argmax(hit, axis=1)[:, None]
            cx_hit = ((np.take_along_axis(right, first, 1) + np.take_along_axis(left, first, 1)) / 2)[:, 0]
            cy_hit = ((np.take_along_axis(bottom, first, 1) + np.take_along_axis(top, first, 1)) / 2)[:, 0]
            ref[sel, 0] = np.where(any_hit, cx_hit, g[sel, 0])
            ref[sel, 1] = np.where(any_hit, cy_hit, g[sel, 1])
    em = in_box | near
    if not distances:
        return em, np.full(r, np.nan)
    ddx, ddy = p[:, 0] * 1000 - ref[:, 0] * 1000, p[:, 1] * 1000 - ref[:, 1] * 1000
    return em, np.sqrt(ddx * ddx + ddy * ddy)


# --- steps -----------------------------------------------------------------------------------------------
class StepResults(NamedTuple):
    type_match: np.ndarray  # bool[N]
    exact_match: np.ndarray  # bool[N]
    pixel_distance: np.ndarray  # float[N], NaN where the evaluator has none
    text_similarity: np.ndarray  # float[N], NaN where the evaluator has none
    format_hit: np.ndarray  # bool[N]: the prediction parsed (type is not INVALID)
    gt_class: np.ndarray  # int[N]: the ground truth's class (WAIT folded into STOP)


def _class(t: np.ndarray) -> np.ndarray:
    return np.where(t == WAIT, STOP, t)


def evaluate_steps(
    pred_type: ArrayLike,
    gt_type: ArrayLike,
    pred_point: ArrayLike | None = None,
    gt_point: ArrayLike | None = None,
    pred_dir: ArrayLike | None = None,
    gt_dir: ArrayLike | None = None,
    pred_key: ArrayLike | None = None,
    gt_key: ArrayLike | None = None,
    pred_text: Sequence[str] | None = None,
    gt_text: Sequence[str] | None = None,
    gt_boxes: ArrayLike | None = None,
    gt_box_counts: ArrayLike | None = None,
    gt_box_offsets: ArrayLike | None = None,
    mode: Mode = "default",
    distances: bool = True,
) -> StepResults:
    """Every per-step output of the evaluator (module docstring); `distances=False` skips the point distances and
    text similarities (NaN), which only the atomic figures need."""
    if mode not in MODES:
        raise ValueError(f"mode must be one of {MODES}, got {mode!r}")
    pt = _class(np.asarray(pred_type).astype(np.int64).ravel())
    gt = _class(np.asarray(gt_type).astype(np.int64).ravel())
    n = len(gt)
    if len(pt) != n:
        raise ValueError(f"pred_type has {len(pt)} rows, gt_type {n}")
    tm = (pt == gt) & (gt != INVALID) & (gt != OPEN_APP)
    em = tm & (gt == STOP)
    pix = np.full(n, np.nan)
    sim = np.full(n, np.nan)

    pts = np.flatnonzero(tm & ((gt == CLICK) | (gt == LONG_PRESS)))
    if len(pts):
        p = np.asarray(pred_point, dtype=np.float64).reshape(n, 2)[pts]
        g = np.asarray(gt_point, dtype=np.float64).reshape(n, 2)[pts]

        def boxes_of(rows: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
            if gt_boxes is None:
                return np.zeros((len(rows), 0, 4)), np.zeros((len(rows), 0), dtype=bool)
            return boxes_for(pts[rows], n, gt_boxes, gt_box_counts, gt_box_offsets)

        em[pts], pix[pts] = _click_rows(p, g, boxes_of, mode, distances)

    sc = np.flatnonzero(tm & (gt == SCROLL))
    if len(sc):
        pd = np.asarray(pred_dir).astype(np.int64).ravel()[sc]
        em[sc] = (pd == np.asarray(gt_dir).astype(np.int64).ravel()[sc]) & (pd != NO_DIRECTION)

    pr = np.flatnonzero(tm & (gt == PRESS))
    if len(pr):
        em[pr] = np.asarray(pred_key).ravel()[pr] == np.asarray(gt_key).ravel()[pr]

    tx = np.flatnonzero(tm & (gt == TYPE))
    if len(tx):
        if pred_text is None or gt_text is None:
            raise ValueError("TYPE steps need pred_text and gt_text")
        ptx, gtx = [pred_text[int(i)] or "" for i in tx], [gt_text[int(i)] or "" for i in tx]
        em[tx] = [text_match(a, b) for a, b in zip(ptx, gtx, strict=True)]
        if distances:
            sim[tx] = text_similarity(ptx, gtx)
    return StepResults(tm, em, pix, sim, pt != INVALID, gt)


def match_steps(
    pred_type: ArrayLike,
    gt_type: ArrayLike,
    pred_point: ArrayLike | None = None,
    gt_point: ArrayLike | None = None,
    pred_dir: ArrayLike | None = None,
    gt_dir: ArrayLike | None = None,
    pred_key: ArrayLike | None = None,
    gt_key: ArrayLike | None = None,
    pred_text: Sequence[str] | None = None,
    gt_text: Sequence[str] | None = None,
    gt_boxes: ArrayLike | None = None,
    gt_box_counts: ArrayLike | None = None,
    gt_box_offsets: ArrayLike | None = None,
    mode: Mode = "default",
) -> tuple[np.ndarray, np.ndarray]:
    """(TM bool[N], EM bool[N]) under the rules of the module docstring."""
    r = evaluate_steps(
        pred_type,
        gt_type,
        pred_point,
        gt_point,
        pred_dir,
        gt_dir,
        pred_key,
        gt_key,
        pred_text,
        gt_text,
        gt_boxes,
        gt_box_counts,
        gt_box_offsets,
        mode,
        distances=False,
    )
    return r.type_match, r.exact_match


# --- episodes --------------------------------------------------------------------------------------------
class EpisodeScores(TypedDict):
    episode_id: np.ndarray
    length: np.ndarray
    success: np.ndarray
    goal_progress: np.ndarray


def episode_scores(em: ArrayLike, episode_ids: ArrayLike) -> EpisodeScores:
    """Per episode (first-appearance order): `episode_id`, `length`, `success` (all EM), `goal_progress`."""
    m = np.asarray(em, dtype=bool).ravel()
    ids = np.asarray(episode_ids).ravel()
    if len(ids) != len(m):
        raise ValueError(f"{len(m)} steps but {len(ids)} episode ids")
    uniq, first, inv = np.unique(ids, return_index=True, return_inverse=True)
    k = len(uniq)
    length = np.bincount(inv, minlength=k)
    # position of every step inside its episode (steps of an episode are in order, episodes may interleave)
    order = np.argsort(inv, kind="stable")
    starts = np.concatenate([[0], np.cumsum(length)[:-1]])
    pos = np.empty(len(m), dtype=np.int64)
    pos[order] = np.arange(len(m)) - np.repeat(starts, length)
    first_wrong = length.copy()
    wrong = ~m
    np.minimum.at(first_wrong, inv[wrong], pos[wrong])
    back = np.argsort(first, kind="stable")
    return {
        "episode_id": uniq[back],
        "length": length[back],
        "success": (first_wrong == length)[back],
        "goal_progress": (first_wrong / np.maximum(length, 1))[back],
    }


class Scores(TypedDict):
    TM: float
    EM: float
    SR: float
    GP: float
    steps: int
    episodes: int


def score(tm: ArrayLike, em: ArrayLike, episode_ids: ArrayLike) -> Scores:
    """`{"TM", "EM"}` pooled over steps, `{"SR", "GP"}` (goal progress) averaged over episodes."""
    tm_a, em_a = np.asarray(tm, dtype=bool).ravel(), np.asarray(em, dtype=bool).ravel()
    ep = episode_scores(em_a, episode_ids)
    nan = float("nan")
    return {
        "TM": float(tm_a.mean()) if len(tm_a) else nan,
        "EM": float(em_a.mean()) if len(em_a) else nan,
        "SR": float(ep["success"].mean()) if len(ep["success"]) else nan,
        "GP": float(ep["goal_progress"].mean()) if len(ep["success"]) else nan,
        "steps": len(em_a),
        "episodes": len(ep["success"]),
    }


class TypeFigures(TypedDict):
    count: int
    TM: float
    EM: float


class Atomic(TypedDict):
    per_type: dict[str, TypeFigures]
    hit_rate: float
    text_similarity_avg: float
    point_distance_avg: float
    point_distance_median: float


def atomic(res: StepResults) -> Atomic:
    """The evaluator's atomic figures: TM / EM per ground-truth class (its names: CLICK, LONG_POINT, SCROLL,
    PRESS, STOP, TYPE), hit rate (parsable predictions / steps), average text similarity over type-matched TYPE
    steps, mean and median point distance ([0, 1000] units) over type-matched CLICK / LONG_PRESS steps."""
    per: dict[str, TypeFigures] = {}
    for code, name in OFFICIAL_NAMES.items():
        sel = res.gt_class == code
        c = int(sel.sum())
        per[name] = {
            "count": c,
            "TM": float(res.type_match[sel].mean()) if c else float("nan"),
            "EM": float(res.exact_match[sel].mean()) if c else float("nan"),
        }
    n = len(res.gt_class)
    sims = res.text_similarity[(res.gt_class == TYPE) & ~np.isnan(res.text_similarity)]
    pix = res.pixel_distance[~np.isnan(res.pixel_distance)]
    return {
        "per_type": per,
        "hit_rate": float(res.format_hit.mean()) if n else float("nan"),
        "text_similarity_avg": float(sims.mean()) if len(sims) else float("nan"),
        "point_distance_avg": float(pix[pix < 1e15].mean()) if len(pix[pix < 1e15]) else float("nan"),
        "point_distance_median": float(np.median(pix)) if len(pix) else float("nan"),
    }


def official_summary(res: StepResults, episode_ids: ArrayLike) -> dict[str, object]:
    """The summary as the evaluator writes it (`summary.json`: its keys, fractions rounded to 4 decimals, 0 for an
    empty class, -1 for no point distance)."""
    ep = episode_scores(res.exact_match, episode_ids)
    at = atomic(res)

    def r4(x: float, empty: float = 0) -> float:
        return empty if math.isnan(x) else round(x, 4)

    out: dict[str, object] = {
        "total_episodes": len(ep["success"]),
        "total_steps": len(res.gt_class),
        "num_successes": int(ep["success"].sum()),
        "total_exact_matches": int(np.round(ep["goal_progress"] * ep["length"]).sum()),
        "success_rate": r4(float(ep["success"].mean())) if len(ep["success"]) else 0,
        "goal_progress": r4(float(ep["goal_progress"].mean())) if len(ep["success"]) else 0,
    }
    n = len(res.gt_class)
    out["total"] = {
        "count": n,
        "type_acc": r4(float(res.type_match.mean())) if n else 0,
        "exact_acc": r4(float(res.exact_match.mean())) if n else 0,
        "hit_rate": r4(at["hit_rate"]),
    }
    for name, v in at["per_type"].items():
        out[name] = {"count": v["count"], "type_acc": r4(v["TM"]), "exact_acc": r4(v["EM"])}
    type_entry = out["TYPE"]
    if isinstance(type_entry, dict):
        type_entry["text_dist_avg"] = r4(at["text_similarity_avg"])
    out["mean_pixel_distance"] = r4(at["point_distance_avg"], -1)
    out["median_pixel_distance"] = r4(at["point_distance_median"], -1)
    return out


# --- records -> rows -------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Row:
    """One side of a step as the evaluator sees it."""

    type: int = INVALID
    point: tuple[float, float] = (math.nan, math.nan)  # (x, y) normalized
    dir: int = NO_DIRECTION
    key: int = -1
    text: str = ""


def _unwrap(raw: Mapping[str, object], name: str) -> object:
    """AndroidLens types its fields as one-element lists (`[4]`, `["[y, x]"]`); AITZ as plain values."""
    v = raw.get(name)
    if isinstance(v, list):
        return v[0] if len(v) == 1 else (None if not v else v)
    return v


def _yx(v: object) -> tuple[float, float] | None:
    if isinstance(v, str):
        try:
            v = json.loads(v)
        except json.JSONDecodeError:
            return None
    if isinstance(v, list) and len(v) == 2 and all(isinstance(c, (int, float)) for c in v):
        return float(v[0]), float(v[1])
    return None


def gt_from_record(raw: Mapping[str, object], dialect: Dialect = "aitz") -> Row:
    """A ground-truth step record (AgentCPM family) -> its row, as the evaluator's `_parse_answer_` reads it:
    3 TYPE; 4 DUAL_POINT: a tap (touch and lift at most 0.04 apart, (y, x) Euclidean) is a CLICK, else a SCROLL
    with the direction of touch -> lift; 0 LONG_POINT; 5 / 6 / 7 PRESS back / home / enter; 10 / 11 STOP; 1 "no
    action" -> STOP. `dialect="androidlens"` adds AndroidLens' own convention, which the evaluator does not know:
    a tap with a positive `duration` is a LONG_PRESS. Unknown codes -> INVALID."""
    code = _unwrap(raw, "result_action_type")
    text = _unwrap(raw, "result_action_text")
    text = text if isinstance(text, str) else ""
    if code == 3:
        return Row(TYPE, text=text)
    if code in (4, 0):
        touch = _yx(_unwrap(raw, "result_touch_yx"))
        lift = _yx(_unwrap(raw, "result_lift_yx")) or touch
        if touch is None or lift is None:
            return Row(INVALID)
        point = (touch[1], touch[0])
        if code == 0:
            return Row(LONG_PRESS, point=point)
        dy, dx = touch[0] - lift[0], touch[1] - lift[1]
        d = float(_norm(np.array([dy]), np.array([dx]), TAP_DISTANCE)[0])
        if d <= TAP_DISTANCE:
            dur = _unwrap(raw, "duration")
            if dialect == "androidlens" and isinstance(dur, (int, float)) and not isinstance(dur, bool) and dur > 0:
                return Row(LONG_PRESS, point=point)
            return Row(CLICK, point=point)
        direction = int(finger_direction([touch[1], touch[0]], [lift[1], lift[0]])[0])
        return Row(SCROLL, dir=direction)
    if code in (5, 6, 7):
        return Row(PRESS, key={5: BACK, 6: HOME, 7: ENTER}[int(code)])
    if code in (10, 11, 1):
        return Row(STOP)
    return Row(INVALID)


# --- the model's own output (AgentCPM-GUI's JSON) -------------------------------------------------------------
_STOP_STATUS = ("finish", "satisfied", "impossible", "interrupt", "need_feedback")
_STATUS = ("continue", "start", *_STOP_STATUS)
_PRESS = {"HOME": HOME, "BACK": BACK, "ENTER": ENTER, "APPSELECT": RECENT}
_ACTION_KEYS = ("POINT", "PRESS", "TYPE", "DEEP_LINK", "CLEAR")
_ALLOWED = ("thought", "POINT", "to", "duration", "PRESS", "TYPE", "DEEP_LINK", "CLEAR", "STATUS")


def _is_int(v: object) -> bool:
    return (isinstance(v, int) and not isinstance(v, bool)) or (isinstance(v, float) and v.is_integer())


def _location(v: object) -> bool:
    return isinstance(v, list) and len(v) == 2 and all(_is_int(c) and 0 <= c <= 1000 for c in v)


def output_valid(obj: object) -> bool:
    """The evaluator's schema check (`schema_for_extraction.json`) of one model output."""
    if not isinstance(obj, dict) or any(k not in _ALLOWED for k in obj):
        return False
    checks = {
        "thought": lambda v: isinstance(v, str),
        "POINT": _location,
        "to": lambda v: v in ("up", "down", "left", "right") or _location(v),
        "duration": lambda v: _is_int(v) and v >= 0,
        "PRESS": lambda v: v in _PRESS,
        "TYPE": lambda v: isinstance(v, str),
        "DEEP_LINK": lambda v: v is None,
        "CLEAR": lambda v: v is None,
        "STATUS": lambda v: v in _STATUS,
    }
    if not all(checks[k](v) for k, v in obj.items()):
        return False
    if "to" in obj and "POINT" not in obj:
        return False
    present = [k for k in _ACTION_KEYS if k in obj]
    if len(present) > 1:
        return False
    if obj.get("STATUS", "continue") in ("continue", "start") and not present and "duration" not in obj:
        return False
    return True


def pred_from_output(obj: object) -> Row:
    """An AgentCPM-GUI model output (its JSON object) -> its row, as the evaluator reads it (schema check, then
    in this order: a stop STATUS -> STOP; TYPE; POINT without `to` and duration == 200 (the default) -> CLICK;
    POINT with `to` and duration == 200 -> SCROLL; POINT with duration > 200 -> LONG_PRESS; PRESS; anything
    else (a duration alone = wait, a POINT with a duration under 200, DEEP_LINK, CLEAR) -> STOP). A schema
    failure is INVALID (a format miss)."""
    if not output_valid(obj) or not isinstance(obj, dict):
        return Row(INVALID)
    duration = obj.get("duration", DEFAULT_DURATION_MS)
    if obj.get("STATUS", "continue") in _STOP_STATUS:
        return Row(STOP)
    if "TYPE" in obj:
        return Row(TYPE, text=str(obj["TYPE"]))
    point = obj.get("POINT")
    if isinstance(point, list):
        xy = (float(point[0]) / 1000, float(point[1]) / 1000)
        if "to" not in obj and duration == DEFAULT_DURATION_MS:
            return Row(CLICK, point=xy)
        if "to" in obj and duration == DEFAULT_DURATION_MS:
            to = obj["to"]
            if isinstance(to, str):
                return Row(SCROLL, dir=DIRECTIONS.index(to.upper()))
            assert isinstance(to, list)
            return Row(SCROLL, dir=int(finger_direction([point], [to])[0]))
        if duration > DEFAULT_DURATION_MS:
            return Row(LONG_PRESS, point=xy)
    if "PRESS" in obj:
        return Row(PRESS, key=_PRESS[str(obj["PRESS"])])
    return Row(STOP)
