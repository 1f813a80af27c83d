"""Property tests: every vectorized matcher equals the plain per-step reference on every element, including
points exactly on thresholds and on (enlarged) box edges, boxes at the screen edges, and swipe ties."""

from __future__ import annotations

import itertools
import math

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from harness.metrics import agentcpm, aitw, odyssey, reference, screenqa

# values that sit on or next to the thresholds (0.04, 0.14 apart from each other, screen edges)
EDGE = [0.0, 0.04, 0.0400001, 0.1, 0.14, 0.1399999, 0.14000001, 0.2, 0.28, 0.3, 0.5, 0.54, 0.64, 0.86, 0.96, 1.0]
unit = st.one_of(st.sampled_from(EDGE), st.floats(0, 1, allow_nan=False))
point = st.tuples(unit, unit)
size = st.one_of(st.sampled_from([0.0, 0.1, 0.25, 0.5, 1.0]), st.floats(0, 1, allow_nan=False))
box_yxhw = st.tuples(unit, unit, size, size)


@st.composite
def aitw_step(draw):
    types = [3, 4, 4, 4, 4, 5, 6, 7, 10, 11, -1]
    pt, gt = draw(st.sampled_from(types)), draw(st.sampled_from(types))
    boxes = draw(st.lists(box_yxhw, max_size=4))
    mode = draw(st.sampled_from(["free", "tap", "edge", "tie", "on_threshold"]))
    g_touch = draw(point)
    g_lift = draw(st.one_of(st.just(g_touch), point))
    p_touch = draw(point)
    p_lift = draw(st.one_of(st.just(p_touch), point))
    if mode == "tap":
        g_lift, p_lift = g_touch, p_touch
    elif mode == "edge" and boxes:  # both touches exactly on edges / corners of one enlarged box
        top, left, h, w = reference.aitw_enlarge_box(boxes[0])
        ys, xs = [top, top + h], [left, left + w]
        p_touch = (draw(st.sampled_from(ys)), draw(st.sampled_from(xs)))
        g_touch = (draw(st.sampled_from(ys)), draw(st.sampled_from(xs)))
        p_lift, g_lift = p_touch, g_touch
    elif mode == "on_threshold":  # exactly 0.14 between the touches, exactly 0.04 between touch and lift
        y = draw(unit)
        pair = draw(st.sampled_from([(0.14, 0.28), (0.0, 0.14), (0.28, 0.14), (0.0, 0.0400001), (0.0, 0.04)]))
        if draw(st.booleans()):
            p_touch, g_touch = (y, pair[0]), (y, pair[1])
        else:
            p_touch, g_touch = (pair[0], y), (pair[1], y)
        p_lift = draw(st.sampled_from([p_touch, (p_touch[0], 0.04 if p_touch[1] == 0.0 else p_touch[1])]))
        g_lift = g_touch
        if pair == (0.0, 0.04):  # a swipe of exactly 0.04 is still a tap
            p_lift, p_touch = (y, 0.04), (y, 0.0)
    elif mode == "tie":  # |dy| == |dx| swipes
        d = draw(st.sampled_from([0.1, 0.25, 0.5]))
        p_touch, p_lift = (0.2, 0.2), (0.2 + d, 0.2 + d)
    return pt, p_touch, p_lift, gt, g_touch, g_lift, boxes


@settings(max_examples=300, deadline=None)
@given(st.lists(aitw_step(), min_size=1, max_size=30))
def test_aitw_vectorized_equals_reference(steps):
    n = len(steps)
    counts = [len(s[6]) for s in steps]
    offsets = np.concatenate([[0], np.cumsum(counts)]).astype(int)
    flat = np.array([b for s in steps for b in s[6]], dtype=float).reshape(-1, 4)
    args = (
        [s[0] for s in steps],
        [s[1] for s in steps],
        [s[2] for s in steps],
        [s[3] for s in steps],
        [s[4] for s in steps],
        [s[5] for s in steps],
    )
    vec = aitw.match_actions(*args, flat, gt_box_offsets=offsets)
    padded, cnt = aitw.pad_boxes(flat, offsets)
    vec2 = aitw.match_actions(*args, padded, cnt)
    ref = [reference.aitw_match_step(*s) for s in steps]
    assert vec.tolist() == ref == vec2.tolist()
    assert len(vec) == n


coord = st.one_of(
    st.sampled_from([0, 1, 140, 280, 500, 640, 999, 1000]), st.integers(0, 1000), st.floats(0, 1000, allow_nan=False)
)
xy = st.tuples(coord, coord)
texts = st.text(alphabet="ab c", max_size=6)


@st.composite
def odyssey_step(draw):
    names = list(reference.ODYSSEY_TYPES)
    gt = draw(st.sampled_from(names))
    pt = draw(st.one_of(st.just(gt), st.sampled_from(names)))
    gp, ge, pp, pe = draw(xy), draw(xy), draw(xy), draw(xy)
    shape = draw(st.sampled_from(["free", "tie", "zero"]))
    if shape == "tie":  # scroll ties |dx| == |dy|
        d = draw(st.sampled_from([10, 100]))
        pe = (pp[0] + d if pp[0] <= 500 else pp[0] - d, pp[1] + d if pp[1] <= 500 else pp[1] - d)
    elif shape == "zero":  # zero-length scrolls (DOWN)
        pe = pp
        if draw(st.booleans()):
            ge = gp
    if draw(st.booleans()):  # 140 apart along one axis: 0.14 after dividing by 1000, or just over (141 / 281)
        c = draw(coord)
        a, b = draw(st.sampled_from([(0, 140), (140, 280), (860, 1000), (500, 640), (0, 141), (141, 281), (407, 547)]))
        pp, gp = ((a, c), (b, c)) if draw(st.booleans()) else ((c, a), (c, b))
    box = None
    if draw(st.booleans()):
        x1, x2 = sorted((draw(coord), draw(coord)))
        y1, y2 = sorted((draw(coord), draw(coord)))
        box = (x1, y1, x2, y2)
        if draw(st.booleans()):  # predicted point on the box edge
            pp = (draw(st.sampled_from([x1, x2])), draw(st.sampled_from([y1, y2])))
    return pt, pp, pe, gt, gp, ge, box, draw(texts), draw(texts)


@settings(max_examples=300, deadline=None)
@given(st.lists(odyssey_step(), min_size=1, max_size=30), st.sampled_from(odyssey.CLICK_RULES))
def test_odyssey_vectorized_equals_reference(steps, rule):
    codes = {n: i for i, n in enumerate(odyssey.TYPES)}
    nanbox = (math.nan,) * 4
    vec = odyssey.match_actions(
        [codes[s[0]] for s in steps],
        [s[1] for s in steps],
        [s[2] for s in steps],
        [codes[s[3]] for s in steps],
        [s[4] for s in steps],
        [s[5] for s in steps],
        gt_box=[s[6] or nanbox for s in steps],
        gt_has_box=[s[6] is not None for s in steps],
        pred_text=[s[7] for s in steps],
        gt_text=[s[8] for s in steps],
        rule=rule,
    )
    ref = [reference.odyssey_match_step(*s, rule=rule) for s in steps]
    assert vec.tolist() == ref


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet="abc", max_size=10), st.text(alphabet="abc", max_size=10))
def test_levenshtein_rapidfuzz_equals_reference(a, b):
    assert odyssey.levenshtein(a, b) == reference.levenshtein(a, b)
    assert odyssey.text_match(a, b) == reference.odyssey_text_match(a, b)


@settings(max_examples=200, deadline=None)
@given(
    st.lists(
        st.tuples(st.text(alphabet="ab c\x00日", max_size=12), st.text(alphabet="ab c\x00日", max_size=12)), max_size=20
    )
)
def test_levenshtein_batch_equals_reference(pairs):
    a, b = [x for x, _ in pairs], [y for _, y in pairs]
    assert odyssey.levenshtein_batch(a, b).tolist() == [reference.levenshtein(x, y) for x, y in pairs]
    assert odyssey.text_match_batch(a, b).tolist() == [reference.odyssey_text_match(x, y) for x, y in pairs]


@st.composite
def agentcpm_step(draw):
    names = list(reference.AGENTCPM_TYPES)
    gt = draw(st.sampled_from(names))
    pt = draw(st.one_of(st.just(gt), st.sampled_from(names)))
    boxes = draw(st.lists(box_yxhw, max_size=7))
    gp, pp = draw(point), draw(point)
    if boxes and draw(st.booleans()):  # points on the edges / corners of the first grown box (clamped or not)
        top, left, h, w = reference.agentcpm_grow_box(boxes[0])
        pp = (draw(st.sampled_from([left, left + w])), draw(st.sampled_from([top, top + h])))
        gp = (draw(st.sampled_from([left, left + w / 2, left + w])), draw(st.sampled_from([top, top + h])))
    elif draw(st.booleans()):  # 0.14 / 0.04 apart along one axis, and just over
        c = draw(unit)
        a, b = draw(
            st.sampled_from(
                [(0.0, 0.14), (0.14, 0.28), (0.5, 0.64), (0.141, 0.281), (0.0, 0.04), (0.5, 0.54), (0.0, 0.1400001)]
            )
        )
        pp, gp = ((a, c), (b, c)) if draw(st.booleans()) else ((c, a), (c, b))
    dirs = ["UP", "DOWN", "LEFT", "RIGHT", None]
    keys = ["BACK", "HOME", "ENTER", "RECENT"]
    return dict(
        pred_type=pt,
        gt_type=gt,
        pred_point=pp,
        gt_point=gp,
        pred_direction=draw(st.sampled_from(dirs)),
        gt_direction=draw(st.sampled_from(dirs[:4])),
        pred_key=draw(st.sampled_from(keys)),
        gt_key=draw(st.sampled_from(keys)),
        pred_text=draw(texts),
        gt_text=draw(texts),
        gt_boxes=boxes,
    )


@settings(max_examples=300, deadline=None)
@given(st.lists(agentcpm_step(), min_size=1, max_size=30), st.sampled_from(agentcpm.MODES))
def test_agentcpm_vectorized_equals_reference(steps, mode):
    t = {n: i for i, n in enumerate(agentcpm.TYPES)}
    d = {None: agentcpm.NO_DIRECTION, **{n: i for i, n in enumerate(agentcpm.DIRECTIONS)}}
    k = {n: i for i, n in enumerate(agentcpm.KEYS)}
    counts = [len(s["gt_boxes"]) for s in steps]
    offsets = np.concatenate([[0], np.cumsum(counts)]).astype(int)
    flat = np.array([b for s in steps for b in s["gt_boxes"]], dtype=float).reshape(-1, 4)
    tm, em = agentcpm.match_steps(
        [t[s["pred_type"]] for s in steps],
        [t[s["gt_type"]] for s in steps],
        [s["pred_point"] for s in steps],
        [s["gt_point"] for s in steps],
        [d[s["pred_direction"]] for s in steps],
        [d[s["gt_direction"]] for s in steps],
        [k[s["pred_key"]] for s in steps],
        [k[s["gt_key"]] for s in steps],
        [s["pred_text"] for s in steps],
        [s["gt_text"] for s in steps],
        flat,
        gt_box_offsets=offsets,
        mode=mode,
    )
    ref = [reference.agentcpm_match_step(**s, mode=mode) for s in steps]
    assert list(zip(tm.tolist(), em.tolist(), strict=True)) == ref
    full = agentcpm.evaluate_steps(
        [t[s["pred_type"]] for s in steps],
        [t[s["gt_type"]] for s in steps],
        [s["pred_point"] for s in steps],
        [s["gt_point"] for s in steps],
        [d[s["pred_direction"]] for s in steps],
        [d[s["gt_direction"]] for s in steps],
        [k[s["pred_key"]] for s in steps],
        [k[s["gt_key"]] for s in steps],
        [s["pred_text"] for s in steps],
        [s["gt_text"] for s in steps],
        flat,
        gt_box_offsets=offsets,
        mode=mode,
    )
    assert full.exact_match.tolist() == em.tolist()  # the path with distances decides the same


@settings(max_examples=200, deadline=None)
@given(
    st.lists(st.tuples(st.floats(-1, 1), st.floats(-1, 1)), min_size=1, max_size=20),
    st.sampled_from([(0.0, 0.0), (0.3, -0.3), (1e-9, 1e-9)]),
)
def test_agentcpm_direction_equals_reference(vectors, extra):
    vecs = [*vectors, extra, (0.25, 0.25), (-0.25, 0.25)]
    got = agentcpm.finger_direction([(0.0, 0.0)] * len(vecs), vecs)
    names = {agentcpm.NO_DIRECTION: None, **dict(enumerate(agentcpm.DIRECTIONS))}
    assert [names[int(c)] for c in got] == [reference.agentcpm_direction((0.0, 0.0), v) for v in vecs]


@settings(max_examples=200, deadline=None)
@given(st.lists(st.booleans(), min_size=1, max_size=40), st.integers(1, 6), st.randoms())
def test_goal_progress_equals_reference(em, n_eps, rnd):
    eps = [rnd.randrange(n_eps) for _ in em]
    res = agentcpm.episode_scores(em, eps)
    for eid, gp, ok in zip(res["episode_id"], res["goal_progress"], res["success"], strict=True):
        mine = [e for e, x in zip(em, eps, strict=True) if x == eid]
        assert gp == reference.episode_goal_progress(mine)
        assert ok == all(mine)


# --- ScreenQA: the optimal assignment against brute force -----------------------------------------------------
int_box = st.tuples(st.integers(0, 20), st.integers(0, 20), st.integers(1, 10), st.integers(1, 10)).map(
    lambda b: (b[0], b[1], b[0] + b[2], b[1] + b[3])
)


def brute_force(scores: np.ndarray, thr: float) -> set[int]:
    """Match counts of every assignment with the maximal total (thresholded) score."""
    p, g = scores.shape
    s = np.where(scores >= thr, scores, 0.0)
    best, counts = -1.0, set()
    small, large = (p, g) if p <= g else (g, p)
    for perm in itertools.permutations(range(large), small):
        pairs = [(i, j) if p <= g else (j, i) for i, j in enumerate(perm)]
        total = sum(s[i, j] for i, j in pairs)
        c = sum(s[i, j] >= thr for i, j in pairs)
        if total > best + 1e-12:
            best, counts = total, {c}
        elif abs(total - best) <= 1e-12:
            counts.add(c)
    return counts


@settings(max_examples=200, deadline=None)
@given(st.lists(int_box, min_size=1, max_size=4), st.lists(int_box, min_size=1, max_size=4))
def test_uic_bb_assignment_is_optimal(pred, gold):
    ious = screenqa.iou_matrix(pred, gold)
    f1 = screenqa.assignment_f1(ious)
    counts = brute_force(ious, screenqa.IOU_THRESHOLD)
    possible = {
        0.0 if c == 0 else 2 * (c / len(pred)) * (c / len(gold)) / (c / len(pred) + c / len(gold)) for c in counts
    }
    assert any(math.isclose(f1, v) for v in possible)


@given(
    st.lists(
        st.sampled_from(
            [0.0, screenqa.IOU_THRESHOLD - 1e-9, screenqa.IOU_THRESHOLD, screenqa.IOU_THRESHOLD + 1e-9, 1.0]
        ),
        min_size=1,
        max_size=5,
    ),
    st.booleans(),
)
def test_uic_bb_one_row_or_column_matches_scipys_assignment(values, as_row):
    """One prediction (or one ground truth) is scored without the solver: the same F1 as scipy's
    linear_sum_assignment gives, exactly at and around the IoU threshold too."""
    from scipy.optimize import linear_sum_assignment

    scores = np.array([values]) if as_row else np.array([values]).T
    s = np.where(scores >= screenqa.IOU_THRESHOLD, scores, 0.0)
    rows, cols = linear_sum_assignment(s, maximize=True)
    matches = int((s[rows, cols] >= screenqa.IOU_THRESHOLD).sum())
    p, g = scores.shape
    expected = 0.0 if matches == 0 else 2 * (matches / p) * (matches / g) / (matches / p + matches / g)
    assert screenqa.assignment_f1(scores) == expected
