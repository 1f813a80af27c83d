"""GUI Odyssey: AMS (action matching score), SR, action-type and text accuracy, vectorized with numpy.

The rules are those of the official evaluator (`src/eval_mm`, GUI Odyssey's GitHub repository); docs/datasets.md
has the table of rule / official behaviour / ours / how it was checked.

Representation (the dataset's own; x FIRST, [0, 1000]):

- `pred_type`, `gt_type`: int[N] codes of `TYPES` (CLICK 0, LONG_PRESS 1, SCROLL 2, TYPE 3, HOME 4, BACK 5,
  RECENT 6, COMPLETE 7, IMPOSSIBLE 8; `INVALID = -1` matches nothing). `type_code(action, info)` maps both
  vocabularies (v1 TYPE / IMPOSSIBLE / KEY_RECENT, v2 TEXT / INCOMPLETE / KEY_APPSELECT, and `CLICK` /
  `LONG_PRESS` with a `KEY_*` info string) to a code; strings in the arrays are mapped too.
- `pred_point`, `gt_point`: float[N, 2] `(x, y)` in [0, 1000] (the first point of `info`; NaN = none);
  `pred_end`, `gt_end`: float[N, 2], the second point (read for SCROLL rows only).
- `gt_box`: float[N, 4] v2 `sam2_bbox` `[x1, y1, x2, y2]` in [0, 1000], with `gt_has_box` bool[N] (rows without
  a box may hold anything; with `gt_has_box=None`, rows holding NaN have no box).
- `pred_text`, `gt_text`: sequences of str (only the rows where both types are TYPE are read).

Rule (types must be equal first):
- CLICK / LONG_PRESS, `rule="box_or_distance"` (the latest release): correct when the predicted point lies in
  the step's `sam2_bbox` (edges inclusive) OR `||p / 1000 - g / 1000|| <= 0.14` (each coordinate divided by 1000
  before subtracting, the norm as `numpy.linalg.norm` computes it, see `within_distance`); without a box:
  distance only. `rule="distance_only"` (the earlier release, before `sam2_bbox`): distance only.
- SCROLL: same finger direction; `|dx| > |dy|` -> LEFT if dx < 0 else RIGHT, otherwise UP if dy < 0 else DOWN
  (ties are vertical, a zero-length scroll is DOWN), as the official converter names a scroll.
- TYPE: after strip, containment either way, else `1 - lev(g, p) / max(len) >= 0.5` (whole texts).
- HOME, BACK, RECENT, COMPLETE, IMPOSSIBLE: type equality.

Aggregation (`score`), named: `"pooled"` (the official `macro` mode, used for the app / device / task splits) and
`"per_category_mean"` (the official `micro` mode, used for the random split: AMS and SR per `task_info.category`,
then the unweighted mean). Steps without a prediction (`scored=False`) are left out of every figure, as the
official script never sees them; an episode with such a step is left out of SR (counted in
`episodes_left_out`). Action-type accuracy and text accuracy are pooled in both modes, as the official script
prints them. `official_figures` gives the printed figures with the official rounding.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal, TypedDict

import numpy as np
import numpy.typing as npt
from rapidfuzz import process
from rapidfuzz.distance import Levenshtein

TYPES = ("CLICK", "LONG_PRESS", "SCROLL", "TYPE", "HOME", "BACK", "RECENT", "COMPLETE", "IMPOSSIBLE")
CLICK, LONG_PRESS, SCROLL, TYPE, HOME, BACK, RECENT, COMPLETE, IMPOSSIBLE = range(9)
INVALID = -1
DIRECTIONS = ("UP", "DOWN", "LEFT", "RIGHT")
UP, DOWN, LEFT, RIGHT = range(4)

DISTANCE = 0.14  # in [0, 1000] / 1000 space
TEXT_SIMILARITY = 0.5
AGGREGATES = ("pooled", "per_category_mean")
CLICK_RULES = ("box_or_distance", "distance_only")
ClickRule = Literal["box_or_distance", "distance_only"]
Aggregate = Literal["pooled", "per_category_mean"]
ArrayLike = npt.ArrayLike
Info = str | Sequence[object] | None

_ALIASES = {
    "CLICK": CLICK,
    "LONG_PRESS": LONG_PRESS,
    "LONGPRESS": LONG_PRESS,
    "SCROLL": SCROLL,
    "SWIPE": SCROLL,
    "TYPE": TYPE,
    "TEXT": TYPE,
    "HOME": HOME,
    "KEY_HOME": HOME,
    "PRESS_HOME": HOME,
    "BACK": BACK,
    "KEY_BACK": BACK,
    "PRESS_BACK": BACK,
    "RECENT": RECENT,
    "KEY_RECENT": RECENT,
    "KEY_APPSELECT": RECENT,
    "APPSELECT": RECENT,
    "PRESS_RECENT": RECENT,
    "COMPLETE": COMPLETE,
    "IMPOSSIBLE": IMPOSSIBLE,
    "INCOMPLETE": IMPOSSIBLE,
}


def type_code(action: str | int, info: object = None) -> int:
    """A GUI Odyssey `action` (either vocabulary) -> code; `CLICK` whose `info` is a `KEY_*` string is that key."""
    if isinstance(action, (int, np.integer)):
        return int(action)
    a = str(action).strip().upper()
    if isinstance(info, str) and info.strip().upper().startswith("KEY_"):
        return _ALIASES.get(info.strip().upper(), INVALID)
    return _ALIASES.get(a, INVALID)


def _codes(types: ArrayLike) -> np.ndarray:
    arr = np.asarray(types)
    if arr.dtype.kind in "iu":
        return arr.astype(np.int64).ravel()
    return np.array([type_code(t) for t in arr.ravel()], dtype=np.int64)


def scroll_direction(start: ArrayLike, end: ArrayLike) -> np.ndarray:
    """int[N] finger direction codes (UP 0, DOWN 1, LEFT 2, RIGHT 3) of (x, y) start -> end points: horizontal
    when |dx| > |dy| (LEFT if dx < 0 else RIGHT), else vertical (UP if dy < 0 else DOWN; zero length -> DOWN)."""
    s = np.asarray(start, dtype=np.float64).reshape(-1, 2)
    e = np.asarray(end, dtype=np.float64).reshape(-1, 2)
    dx, dy = e[:, 0] - s[:, 0], e[:, 1] - s[:, 1]
    return np.where(np.abs(dx) > np.abs(dy), np.where(dx < 0, LEFT, RIGHT), np.where(dy < 0, UP, DOWN))


# --- distance as numpy.linalg.norm computes it ------------------------------------------------------------
def norm2(dx: np.ndarray, dy: np.ndarray) -> np.ndarray:
    """float[N] `numpy.linalg.norm([dx, dy])` of every row, bit for bit.

    `norm` of a 2-vector is `sqrt(v @ v)`, and the BLAS dot may fuse a multiply-add (this machine's OpenBLAS does:
    `fma(dy, dy, dx * dx)`), which differs from `sqrt(dx*dx + dy*dy)` by at most one unit in the last place. The
    plain formula is used for every row, and the rows within 4 ulps of any threshold that could matter are
    recomputed by `numpy.linalg.norm` itself (`exact_rows`)."""
    return np.sqrt(dx * dx + dy * dy)


def _refine(d: np.ndarray, dx: np.ndarray, dy: np.ndarray, threshold: float) -> np.ndarray:
    close = np.flatnonzero(np.abs(d - threshold) <= 4 * np.spacing(threshold))
    if len(close):
        d = d.copy()
        for i in close:
            d[i] = np.linalg.norm(np.array([dx[i], dy[i]]))
    return d


def within_distance(p: ArrayLike, g: ArrayLike, threshold: float = DISTANCE) -> np.ndarray:
    """bool[N]: `||p / 1000 - g / 1000|| <= threshold` for (x, y) points in [0, 1000], divided before subtracting."""
    pa = np.asarray(p, dtype=np.float64).reshape(-1, 2) / 1000
    ga = np.asarray(g, dtype=np.float64).reshape(-1, 2) / 1000
    dx, dy = pa[:, 0] - ga[:, 0], pa[:, 1] - ga[:, 1]
    return _refine(norm2(dx, dy), dx, dy, threshold) <= threshold


# --- text ----------------------------------------------------------------------------------------------------
def levenshtein(a: str, b: str) -> int:
    """Edit distance (rapidfuzz)."""
    return int(Levenshtein.distance(a, b))


def levenshtein_batch(a: Sequence[str], b: Sequence[str]) -> np.ndarray:
    """int[R] edit distances of the pairs (a[r], b[r]) (rapidfuzz `cpdist`, in C++)."""
    if len(a) != len(b):
        raise ValueError(f"{len(a)} texts vs {len(b)}")
    if not len(a):
        return np.zeros(0, dtype=np.int64)
    return np.asarray(process.cpdist(list(a), list(b), scorer=Levenshtein.distance, workers=1), dtype=np.int64)


def text_match(pred: str, gt: str) -> bool:
    """The TYPE rule: after strip, containment either way, or 1 - lev / max(len) >= 0.5."""
    p, g = pred.strip(), gt.strip()
    if p in g or g in p:
        return True
    return 1 - levenshtein(g, p) / max(len(g), len(p)) >= TEXT_SIMILARITY


def text_match_batch(pred: Sequence[str], gt: Sequence[str]) -> np.ndarray:
    """bool[R]: `text_match` of every pair; containment per row, the edit distances in one rapidfuzz call."""
    p = [str(x or "").strip() for x in pred]
    g = [str(x or "").strip() for x in gt]
    out = np.array([x in y or y in x for x, y in zip(p, g, strict=True)], dtype=bool)
    rest = np.flatnonzero(~out)
    if len(rest):
        pa, ga = [p[i] for i in rest], [g[i] for i in rest]
        lev = levenshtein_batch(ga, pa)
        longest = np.array([max(len(x), len(y)) for x, y in zip(pa, ga, strict=True)], dtype=np.float64)
        out[rest] = 1 - lev / longest >= TEXT_SIMILARITY
    return out


# --- step matching -----------------------------------------------------------------------------------------
def match_actions(
    pred_type: ArrayLike,
    pred_point: ArrayLike,
    pred_end: ArrayLike,
    gt_type: ArrayLike,
    gt_point: ArrayLike,
    gt_end: ArrayLike,
    gt_box: ArrayLike | None = None,
    gt_has_box: ArrayLike | None = None,
    pred_text: Sequence[str] | None = None,
    gt_text: Sequence[str] | None = None,
    rule: ClickRule = "box_or_distance",
) -> np.ndarray:
    """bool[N]: the AMS verdict of every step (module docstring)."""
    if rule not in CLICK_RULES:
        raise ValueError(f"rule must be one of {CLICK_RULES}, got {rule!r}")
    pt, gt = _codes(pred_type), _codes(gt_type)
    n = len(gt)
    if len(pt) != n:
        raise ValueError(f"pred_type has {len(pt)} rows, gt_type {n}")
    ok = (pt == gt) & (gt != INVALID)
    out = ok & ~np.isin(gt, (CLICK, LONG_PRESS, SCROLL, TYPE))

    pts = np.flatnonzero(ok & ((gt == CLICK) | (gt == LONG_PRESS)))
    if len(pts):
        p = np.asarray(pred_point, dtype=np.float64).reshape(n, 2)[pts]
        g = np.asarray(gt_point, dtype=np.float64).reshape(n, 2)[pts]
        hit = within_distance(p, g)
        if gt_box is not None and rule == "box_or_distance":
            box = np.asarray(gt_box, dtype=np.float64).reshape(n, 4)[pts]
            has = ~np.isnan(box).any(axis=1) if gt_has_box is None else np.asarray(gt_has_box, dtype=bool).ravel()[pts]
            inside = (box[:, 0] <= p[:, 0]) & (p[:, 0] <= box[:, 2]) & (box[:, 1] <= p[:, 1]) & (p[:, 1] <= box[:, 3])
            hit |= has & inside
        out[pts] = hit

    sc = np.flatnonzero(ok & (gt == SCROLL))
    if len(sc):
        ps = np.asarray(pred_point, dtype=np.float64).reshape(n, 2)[sc]
        pe = np.asarray(pred_end, dtype=np.float64).reshape(n, 2)[sc]
        gs = np.asarray(gt_point, dtype=np.float64).reshape(n, 2)[sc]
        ge = np.asarray(gt_end, dtype=np.float64).reshape(n, 2)[sc]
        out[sc] = scroll_direction(ps, pe) == scroll_direction(gs, ge)

    ty = np.flatnonzero(ok & (gt == TYPE))
    if len(ty):
        if pred_text is None or gt_text is None:
            raise ValueError("TYPE steps need pred_text and gt_text")
        out[ty] = text_match_batch([pred_text[int(i)] for i in ty], [gt_text[int(i)] for i in ty])
    return out


def type_matches(pred_type: ArrayLike, gt_type: ArrayLike) -> np.ndarray:
    """bool[N]: the predicted action type equals the ground truth's (the official action-type criterion)."""
    pt, gt = _codes(pred_type), _codes(gt_type)
    return (pt == gt) & (gt != INVALID)


def undecodable(pred_type: ArrayLike, pred_point: ArrayLike) -> np.ndarray:
    """bool[N]: a CLICK / LONG_PRESS prediction without a point. The official script cannot decode it, files it as
    `invalid` (not correct) and, because it counts every step whose outcome is not `action_fail`, counts it as a
    correct action type."""
    pt = _codes(pred_type)
    p = np.asarray(pred_point, dtype=np.float64).reshape(len(pt), 2)
    return np.isin(pt, (CLICK, LONG_PRESS)) & np.isnan(p).any(axis=1)


# --- aggregation ---------------------------------------------------------------------------------------------
class Figures(TypedDict):
    aggregate: str
    AMS: float
    SR: float
    steps: int
    steps_scored: int
    episodes: int
    episodes_scored: int
    episodes_left_out: int


def _nanmean(x: np.ndarray) -> float:
    return float(x.mean()) if len(x) else float("nan")


def _sr(matches: np.ndarray, ids: np.ndarray, scored: np.ndarray) -> tuple[int, int, int]:
    """(successful, counted, left out) episodes: an episode with an unscored step is left out."""
    if not len(ids):
        return 0, 0, 0
    uniq, inv = np.unique(ids, return_inverse=True)
    k = len(uniq)
    wrong = np.bincount(inv, weights=scored & ~matches, minlength=k)
    missing = np.bincount(inv, weights=~scored, minlength=k)
    counted = missing == 0
    return int((counted & (wrong == 0)).sum()), int(counted.sum()), int((~counted).sum())


def _pooled(m: np.ndarray, ids: np.ndarray, scored: np.ndarray) -> Figures:
    ok, tot, left = _sr(m, ids, scored)
    return {
        "aggregate": "pooled",
        "AMS": _nanmean(m[scored]),
        "SR": ok / tot if tot else float("nan"),
        "steps": len(m),
        "steps_scored": int(scored.sum()),
        "episodes": tot + left,
        "episodes_scored": tot,
        "episodes_left_out": left,
    }


def _arrays(
    matches: ArrayLike, episode_ids: ArrayLike, scored: ArrayLike | None
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    m = np.asarray(matches, dtype=bool).ravel()
    ids = np.asarray(episode_ids).ravel()
    if len(ids) != len(m):
        raise ValueError(f"{len(m)} matches but {len(ids)} episode ids")
    s = np.ones(len(m), dtype=bool) if scored is None else np.asarray(scored, dtype=bool).ravel()
    if len(s) != len(m):
        raise ValueError(f"{len(m)} matches but {len(s)} scored flags")
    return m, ids, s


def per_category(
    matches: ArrayLike, episode_ids: ArrayLike, categories: ArrayLike, scored: ArrayLike | None = None
) -> dict[str, Figures]:
    """{category: pooled figures within it}, for the categories that have at least one scored step."""
    m, ids, s = _arrays(matches, episode_ids, scored)
    cats = np.asarray(categories, dtype=object).ravel()
    if len(cats) != len(m):
        raise ValueError(f"{len(m)} matches but {len(cats)} category labels")
    out: dict[str, Figures] = {}
    for c in sorted(set(cats[s].tolist()), key=str):
        sel = cats == c
        out[str(c)] = _pooled(m[sel], ids[sel], s[sel])
    return out


def score(
    matches: ArrayLike,
    episode_ids: ArrayLike,
    categories: ArrayLike | None = None,
    aggregate: Aggregate = "pooled",
    scored: ArrayLike | None = None,
) -> Figures:
    """AMS and SR under the named aggregation. `categories[N]` is each step's `task_info.category`; `scored[N]`
    says which steps have a prediction (default: all)."""
    if aggregate not in AGGREGATES:
        raise ValueError(f"aggregate must be one of {AGGREGATES}, got {aggregate!r}")
    m, ids, s = _arrays(matches, episode_ids, scored)
    if aggregate == "pooled":
        return _pooled(m, ids, s)
    if categories is None:
        raise ValueError('aggregate="per_category_mean" needs categories')
    per = per_category(m, ids, categories, s)
    whole = _pooled(m, ids, s)
    # a category whose episodes are all left out has SR 0 in the official script (`if tot == 0: SR = 0`)
    srs = [0.0 if v["episodes_scored"] == 0 else v["SR"] for v in per.values()]
    return {
        **whole,
        "aggregate": "per_category_mean",
        "AMS": float(np.mean([v["AMS"] for v in per.values()])) if per else float("nan"),
        "SR": float(np.mean(srs)) if per else float("nan"),
    }


class Accuracies(TypedDict):
    action_type_accuracy: float
    action_type_correct: int
    text_accuracy: float
    text_correct: int
    text_total: int
    steps_scored: int


def accuracies(
    matches: ArrayLike,
    type_ok: ArrayLike,
    gt_type: ArrayLike,
    invalid: ArrayLike | None = None,
    scored: ArrayLike | None = None,
) -> Accuracies:
    """The official script's two extra figures, pooled over the scored steps: action-type accuracy (steps whose
    outcome is not `action_fail`: the type matches, or the prediction is `undecodable`) and text accuracy
    (correct TYPE steps / TYPE steps whose type matched)."""
    m = np.asarray(matches, dtype=bool).ravel()
    t = np.asarray(type_ok, dtype=bool).ravel()
    gt = _codes(gt_type)
    bad = np.zeros(len(m), dtype=bool) if invalid is None else np.asarray(invalid, dtype=bool).ravel()
    s = np.ones(len(m), dtype=bool) if scored is None else np.asarray(scored, dtype=bool).ravel()
    type_count = int((s & (t | bad)).sum())
    text_steps = s & t & ~bad & (gt == TYPE)
    text_ok = int((text_steps & m).sum())
    n_text = int(text_steps.sum())
    n = int(s.sum())
    return {
        "action_type_accuracy": type_count / n if n else float("nan"),
        "action_type_correct": type_count,
        "text_accuracy": text_ok / n_text if n_text else float("nan"),
        "text_correct": text_ok,
        "text_total": n_text,
        "steps_scored": n,
    }


class Official(TypedDict):
    metric: str
    AMS: float
    SR: float
    total: int
    action_type: str
    text: str


def _round2(x: float) -> float:
    return round(x * 100, 2)


def official_figures(
    matches: ArrayLike,
    episode_ids: ArrayLike,
    categories: ArrayLike | None,
    aggregate: Aggregate,
    acc: Accuracies,
    scored: ArrayLike | None = None,
) -> Official:
    """The figures as the official script prints them (percent, its rounding): `macro` = pooled, `micro` =
    per-category mean of per-category figures rounded to 2 decimals, the mean rounded again."""
    m, ids, s = _arrays(matches, episode_ids, scored)
    if aggregate == "pooled":
        f = _pooled(m, ids, s)
        ams, sr = _round2(f["AMS"]), (_round2(f["SR"]) if f["episodes_scored"] else 0.0)
    else:
        if categories is None:
            raise ValueError('aggregate="per_category_mean" needs categories')
        per = per_category(m, ids, categories, s)
        ams = float(np.round(np.mean([_round2(v["AMS"]) for v in per.values()]), 2))
        sr = float(np.round(np.mean([_round2(v["SR"]) if v["episodes_scored"] else 0.0 for v in per.values()]), 2))
    n = acc["steps_scored"]
    tt = acc["text_total"]
    return {
        "metric": "macro" if aggregate == "pooled" else "micro",
        "AMS": ams,
        "SR": sr,
        "total": n,
        "action_type": (
            f"{acc['action_type_correct']} / {n} = {acc['action_type_correct'] / n * 100:.2f}" if n else "-"
        ),
        "text": f"{acc['text_correct']} / {tt} = {acc['text_correct'] / tt * 100:.2f}" if tt else "-",
    }


class Both(TypedDict):
    pooled: Figures
    per_category_mean: Figures | None
    per_category: dict[str, Figures]


def score_both(
    matches: ArrayLike, episode_ids: ArrayLike, categories: ArrayLike | None = None, scored: ArrayLike | None = None
) -> Both:
    """Both aggregations, named: `{"pooled": {...}, "per_category_mean": {...} | None, "per_category": {...}}`."""
    res: Both = {
        "pooled": score(matches, episode_ids, aggregate="pooled", scored=scored),
        "per_category_mean": None,
        "per_category": {},
    }
    if categories is not None:
        res["per_category_mean"] = score(matches, episode_ids, categories, aggregate="per_category_mean", scored=scored)
        res["per_category"] = per_category(matches, episode_ids, categories, scored)
    return res


# --- native records --------------------------------------------------------------------------------------
class Parsed(TypedDict):
    type: int
    point: tuple[float, float] | None
    end: tuple[float, float] | None
    text: str


# a SCROLL given by its direction name: a synthetic finger vector with that direction
_DIR_VECTORS = {
    "UP": ((500.0, 600.0), (500.0, 400.0)),
    "DOWN": ((500.0, 400.0), (500.0, 600.0)),
    "LEFT": ((600.0, 500.0), (400.0, 500.0)),
    "RIGHT": ((400.0, 500.0), (600.0, 500.0)),
}


def _pair(v: object) -> tuple[float, float] | None:
    if (
        isinstance(v, (list, tuple))
        and len(v) == 2
        and all(isinstance(c, (int, float)) and not isinstance(c, bool) for c in v)
    ):
        return float(v[0]), float(v[1])
    return None


def parse_info(action: str, info: object) -> Parsed:
    """A native step's `action` + `info` -> `{"type", "point", "end", "text"}` (points (x, y) [0, 1000]).

    CLICK / LONG_PRESS: `[[x, y], ...]` (the first point) or `[x, y]`; SCROLL: `[[x1, y1], [x2, y2]]` or a
    direction name ("UP", ... as the official command string has it); TEXT / TYPE: the string."""
    code = type_code(action, info)
    point = end = None
    text = ""
    if code in (CLICK, LONG_PRESS, SCROLL) and isinstance(info, (list, tuple)) and info:
        first = _pair(info[0])
        if first is not None:
            point = first
            end = _pair(info[1]) if len(info) > 1 else None
        else:
            point = _pair(info)
    elif code == SCROLL and isinstance(info, str) and info.strip().upper() in _DIR_VECTORS:
        point, end = _DIR_VECTORS[info.strip().upper()]
    elif code == TYPE:
        text = info if isinstance(info, str) else ""
    return {"type": code, "point": point, "end": end if end is not None else point, "text": text}
