"""Hand-checked cases of the AitW action-matching rule (docs/datasets.md). on the vectorized matcher and the
plain reference."""

from __future__ import annotations

import numpy as np
import pytest

from harness.metrics import aitw
from harness.metrics.reference import aitw_match_step

T, D, BACK, HOME, ENTER, DONE, IMP = 3, 4, 5, 6, 7, 10, 11


def both(pt, ptouch, plift, gt, gtouch, glift, boxes=()):
    """Verdict of the reference and of the vectorized matcher (asserted equal)."""
    ref = aitw_match_step(pt, ptouch, plift, gt, gtouch, glift, boxes)
    arr = np.asarray(boxes, dtype=float).reshape(1, -1, 4)
    vec = aitw.match_actions([pt], [ptouch], [plift], [gt], [gtouch], [glift], arr, [len(boxes)])
    assert bool(vec[0]) == ref
    return ref


def tap(pt_yx, gt_yx, boxes=()):
    return both(D, pt_yx, pt_yx, D, gt_yx, gt_yx, boxes)


def test_constants_exact():
    assert (aitw.TAP_DISTANCE, aitw.SWIPE_DISTANCE, aitw.BOX_AUGMENT) == (0.14, 0.04, 1.4)


def test_tap_inside_enlarged_box_but_far_matches():
    # box y 0.1..0.2 (h 0.1), x 0.1..0.4 (w 0.3); enlarged: y 0.03..0.27, x 0..0.61 (left clamped at 0)
    box = [0.1, 0.1, 0.1, 0.3]
    assert tap((0.15, 0.02), (0.15, 0.58), [box])  # 0.56 apart, both inside the enlarged box
    assert not tap((0.15, 0.02), (0.15, 0.58), [])  # without the box: too far


def test_tap_outside_every_box_and_far_does_not_match():
    boxes = [[0.1, 0.1, 0.05, 0.05], [0.8, 0.8, 0.05, 0.05]]
    assert not tap((0.5, 0.5), (0.5, 0.2), boxes)


def test_points_in_two_different_boxes_do_not_match():
    boxes = [[0.1, 0.1, 0.05, 0.05], [0.1, 0.6, 0.05, 0.05]]
    assert not tap((0.12, 0.12), (0.12, 0.62), boxes)


def test_tap_exactly_014_matches():
    assert 0.28 - 0.14 == 0.14  # exactly representable difference
    assert tap((0.5, 0.14), (0.5, 0.28))
    assert tap((0.14, 0.5), (0.28, 0.5))
    assert not tap((0.5, 0.14), (0.5, 0.2800001))


def test_enlarged_box_edges_inclusive_and_clamped():
    # y 0.5, h 0.25 -> dh 0.35 -> top 0.325, height 0.6 -> bottom 0.925; x 0, w 0.25 -> left 0 (clamped)
    box = [0.5, 0.0, 0.25, 0.25]
    big = aitw.enlarge_boxes(np.array(box))
    assert big[0] == pytest.approx(0.325) and big[1] == 0.0 and big[2] == pytest.approx(0.6)
    top, left, h, w = big
    # both points exactly on edges of the enlarged box (computed the same way), far apart
    assert tap((top, left), (top + h, left + w), [box])
    # height capped at 1: a full-height box grows to top 0 / height 1
    capped = aitw.enlarge_boxes(np.array([0.0, 0.0, 1.0, 1.0]))
    assert list(capped) == [0.0, 0.0, 1.0, 1.0]


def test_swipe_up_matches_swipe_down():
    up = ((0.8, 0.5), (0.2, 0.5))
    down = ((0.2, 0.5), (0.8, 0.5))
    assert both(D, *up, D, *down)


def test_swipe_horizontal_vs_vertical_no_match():
    assert not both(D, (0.5, 0.2), (0.5, 0.8), D, (0.2, 0.5), (0.8, 0.5))


def test_swipe_tie_goes_to_y_axis():
    tie = ((0.2, 0.2), (0.5, 0.5))  # |dy| == |dx| -> y
    vertical = ((0.2, 0.5), (0.8, 0.5))
    horizontal = ((0.5, 0.2), (0.5, 0.8))
    assert both(D, *tie, D, *vertical)
    assert not both(D, *tie, D, *horizontal)


def test_tap_vs_swipe_no_match():
    assert not both(D, (0.5, 0.5), (0.5, 0.5), D, (0.5, 0.5), (0.5, 0.7))
    # swipe threshold: moved exactly 0.04 is a tap, a hair more is a swipe
    assert 0.54 - 0.5 != 0.04  # (why the test uses 0.0 / 0.04 below)
    assert both(D, (0.5, 0.0), (0.5, 0.04), D, (0.5, 0.0), (0.5, 0.0))
    assert not both(D, (0.5, 0.0), (0.5, 0.0400001), D, (0.5, 0.0), (0.5, 0.0))


def test_non_dual_point_types_compare_by_type_only():
    assert both(T, (-1, -1), (-1, -1), T, (-1, -1), (-1, -1))  # typed text is not even an input
    for a in (BACK, HOME, ENTER, DONE, IMP):
        for b in (BACK, HOME, ENTER, DONE, IMP, T):
            assert both(a, (-1, -1), (-1, -1), b, (-1, -1), (-1, -1)) == (a == b)
    assert not both(T, (-1, -1), (-1, -1), D, (0.5, 0.5), (0.5, 0.5))
    assert not both(D, (0.5, 0.5), (0.5, 0.5), HOME, (-1, -1), (-1, -1))


def test_invalid_prediction_never_matches():
    m = aitw.match_actions(
        [aitw.INVALID] * 3, np.zeros((3, 2)), np.zeros((3, 2)), [D, T, HOME], [[0.5, 0.5]] * 3, [[0.5, 0.5]] * 3
    )
    assert not m.any()


def test_flat_offsets_and_padded_and_nan_padding_agree():
    rng = np.random.default_rng(0)
    n = 200
    ptouch = rng.random((n, 2))
    gtouch = rng.random((n, 2))
    counts = rng.integers(0, 5, n)
    offsets = np.concatenate([[0], np.cumsum(counts)])
    flat = np.column_stack([rng.random((offsets[-1], 2)), rng.random((offsets[-1], 2)) * 0.3])
    types = np.full(n, D)
    a = aitw.match_actions(types, ptouch, ptouch, types, gtouch, gtouch, flat, gt_box_offsets=offsets)
    padded, cnt = aitw.pad_boxes(flat, offsets)
    b = aitw.match_actions(types, ptouch, ptouch, types, gtouch, gtouch, padded, cnt)
    c = aitw.match_actions(types, ptouch, ptouch, types, gtouch, gtouch, padded)  # NaN rows ignored
    ref = [
        aitw_match_step(D, ptouch[i], ptouch[i], D, gtouch[i], gtouch[i], flat[offsets[i] : offsets[i + 1]])
        for i in range(n)
    ]
    assert list(a) == list(b) == list(c) == ref
    assert 0 < sum(ref) < n


def test_float32_inputs_are_compared_in_float64():
    m = aitw.match_actions(
        np.array([D], np.int32),
        np.array([[0.5, 0.14]], np.float32),
        np.array([[0.5, 0.14]], np.float32),
        [D],
        np.array([[0.5, 0.28]], np.float32),
        np.array([[0.5, 0.28]], np.float32),
    )
    ref = aitw_match_step(
        D,
        (np.float32(0.5), np.float32(0.14)),
        (np.float32(0.5), np.float32(0.14)),
        D,
        (np.float32(0.5), np.float32(0.28)),
        (np.float32(0.5), np.float32(0.28)),
    )
    assert bool(m[0]) == ref


def test_episode_partial_accuracy_subsets_and_overall():
    matches = [1, 0, 1, 1, 1, 0, 0, 1]
    eps = ["a", "a", "b", "b", "b", "c", "c", "d"]
    subs = ["GoogleApps", "GoogleApps", "GoogleApps", "GoogleApps", "GoogleApps", "Install", "Install", "Install"]
    ids, acc = aitw.episode_accuracy(matches, eps)
    assert list(ids) == ["a", "b", "c", "d"] and list(acc) == [0.5, 1.0, 0.0, 1.0]
    res = aitw.score(matches, eps, subs)
    assert res["per_subset"]["GoogleApps"]["action_matching_accuracy"] == pytest.approx(0.75)  # (0.5 + 1) / 2
    assert res["per_subset"]["Install"]["action_matching_accuracy"] == pytest.approx(0.5)  # (0 + 1) / 2
    assert res["overall"] == pytest.approx(0.625)  # mean of the subset means, not of episodes
    assert res["step_accuracy"] == pytest.approx(5 / 8)
    assert res["all_five_subsets"] is False
    assert list(res["per_subset"]) == ["GoogleApps", "Install"]


def test_arrays_from_records():
    recs = [
        {
            "results/action_type": 4,
            "results/yx_touch": [0.1, 0.2],
            "results/yx_lift": [0.1, 0.2],
            "image/ui_annotations_positions": [0.0, 0.0, 0.1, 0.1, 0.5, 0.5, 0.1, 0.1],
        },
        {"results/action_type": 3, "results/yx_touch": [-1, -1], "results/yx_lift": [-1, -1]},
    ]
    a = aitw.arrays_from_records(recs)
    assert list(a["type"]) == [4, 3] and list(a["box_offsets"]) == [0, 2, 2]
    assert a["touch"][0].tolist() == [0.1, 0.2]
