"""Hand-checked cases of the AgentCPM-GUI static evaluator (TM / EM / SR / goal progress, atomic figures) and
AndroidLens ATP / SR."""

from __future__ import annotations

import math

import numpy as np
import pytest

from harness.metrics import agentcpm as a
from harness.metrics import androidlens as al
from harness.metrics.reference import agentcpm_match_step, episode_goal_progress

NAN2 = (math.nan, math.nan)


def one(
    ptype,
    gtype,
    pp=None,
    gp=None,
    boxes=(),
    pdir=None,
    gdir=None,
    pkey=None,
    gkey=None,
    ptext="",
    gtext="",
    mode="default",
):
    """Vectorized and reference verdicts agree; returns (TM, EM). Points (x, y); boxes [y, x, h, w]."""
    ref = agentcpm_match_step(a.TYPES[ptype], a.TYPES[gtype], pp, gp, pdir, gdir, pkey, gkey, ptext, gtext, boxes, mode)
    d = {None: a.NO_DIRECTION, **{n: i for i, n in enumerate(a.DIRECTIONS)}}
    k = {None: -1, **{n: i for i, n in enumerate(a.KEYS)}}
    tm, em = a.match_steps(
        [ptype],
        [gtype],
        [pp or NAN2],
        [gp or NAN2],
        [d[pdir]],
        [d[gdir]],
        [k[pkey]],
        [k[gkey]],
        [ptext],
        [gtext],
        np.asarray(boxes, float).reshape(1, -1, 4),
        [len(boxes)],
        mode=mode,
    )
    assert (bool(tm[0]), bool(em[0])) == ref
    return ref


def test_grown_box_clamped_at_the_screen_edge():
    # [y, x, h, w] = [0.05, 0.5, 0.6, 0.1]: top 0.05 - 0.06 -> clamped to 0, height 0.72 -> bottom 0.72 (a box
    # grown about its centre without clamping would end at 0.71); left 0.49, width 0.12 -> right 0.61
    box = [0.05, 0.5, 0.6, 0.1]
    top, left, h, w = a.grow_boxes([box])[0]
    assert top == 0.0 and h == pytest.approx(0.72) and left == pytest.approx(0.49) and w == pytest.approx(0.12)
    gt = (0.55, 0.3)
    assert one(a.CLICK, a.CLICK, (0.55, 0.715), gt, [box]) == (True, True)  # 0.415 away, inside the clamped box
    assert one(a.CLICK, a.CLICK, (0.55, 0.725), gt, [box]) == (True, False)  # below it, far
    assert one(a.CLICK, a.CLICK, (0.55, 0.0), gt, [box]) == (True, True)  # on the clamped top edge
    # width capped at 1: [0.2, 0.0, 0.1, 0.95] -> left 0, width min(1, 1.14) = 1 -> right edge x = 1.0
    wide = [0.2, 0.0, 0.1, 0.95]
    assert one(a.CLICK, a.CLICK, (1.0, 0.25), (0.1, 0.25), [wide]) == (True, True)
    assert one(a.CLICK, a.CLICK, (1.0, 0.25), (0.1, 0.25), []) == (True, False)  # no box: 0.9 apart


def test_point_on_a_grown_box_edge():
    # [0, 0, 0.5, 0.5]: top / left clamped at 0, height and width 0.5 + (1.2 - 1) * 0.5 = 0.6 (as the evaluator
    # computes it)
    box = [0.0, 0.0, 0.5, 0.5]
    edge = 0.5 + (1.2 - 1) * 0.5
    gt = (0.3, 0.3)
    assert one(a.CLICK, a.CLICK, (0.0, 0.0), gt, [box]) == (True, True)  # corner (0, 0), 0.42 from the GT point
    assert one(a.CLICK, a.CLICK, (edge, edge), gt, [box]) == (True, True)  # the far corner, edges inclusive
    nxt = np.nextafter(edge, 1.0)
    assert one(a.CLICK, a.CLICK, (nxt, 0.3), (0.0, 0.3), [box]) == (True, False)  # one ulp outside, 0.6 away
    # the box must contain the GT point: a box holding only the predicted point does not count
    assert one(a.CLICK, a.CLICK, (0.1, 0.1), (0.9, 0.9), [box]) == (True, False)
    assert one(a.LONG_PRESS, a.LONG_PRESS, (0.0, 0.0), gt, [box]) == (True, True)


def test_distance_threshold_014_exactly():
    assert one(a.CLICK, a.CLICK, (0.64, 0.5), (0.5, 0.5)) == (True, True)  # 0.64 - 0.5 == 0.14
    assert one(a.CLICK, a.CLICK, (0.5, 0.28), (0.5, 0.14)) == (True, True)
    assert one(a.CLICK, a.CLICK, (0.281, 0.5), (0.141, 0.5)) == (True, False)  # 0.14000000000000004
    assert one(a.CLICK, a.CLICK, (0.25, 0.25), (0.15, 0.15)) == (True, False)  # 0.1414 > 0.14
    assert one(a.LONG_PRESS, a.CLICK, (0.5, 0.5), (0.5, 0.5)) == (False, False)


def test_android_control_mode():
    # two boxes far from the GT point: in default mode neither contains it; android_control keeps the 5 nearest
    boxes = [[0.8, 0.8, 0.1, 0.1], [0.0, 0.0, 0.05, 0.05]]
    gt = (0.5, 0.5)
    assert one(a.CLICK, a.CLICK, (0.85, 0.85), gt, boxes) == (True, False)
    assert one(a.CLICK, a.CLICK, (0.85, 0.85), gt, boxes, mode="android_control") == (True, True)
    # the distance threshold is 0.04 there
    assert one(a.CLICK, a.CLICK, (0.5, 0.04), (0.5, 0.0), mode="android_control") == (True, True)  # 0.04
    assert one(a.CLICK, a.CLICK, (0.5, 0.54), gt, mode="android_control") == (True, False)  # 0.0400000000000000355
    assert one(a.CLICK, a.CLICK, (0.5, 0.56), gt, mode="android_control") == (True, False)
    assert one(a.CLICK, a.CLICK, (0.5, 0.56), gt) == (True, True)
    # only the 5 nearest: the 6th box (the farthest centre) is not kept
    six = [[0.5, 0.5 + 0.05 * i, 0.01, 0.01] for i in range(5)] + [[0.9, 0.9, 0.05, 0.05]]
    assert one(a.CLICK, a.CLICK, (0.92, 0.92), (0.5, 0.5), six, mode="android_control") == (True, False)
    assert one(a.CLICK, a.CLICK, (0.92, 0.92), (0.5, 0.5), six[5:], mode="android_control") == (True, True)
    with pytest.raises(ValueError, match="mode"):
        a.match_steps([0], [0], mode="ac")


def test_scroll_zero_length_and_ties():
    assert one(a.SCROLL, a.SCROLL, pdir="UP", gdir="UP") == (True, True)
    assert one(a.SCROLL, a.SCROLL, pdir="UP", gdir="DOWN") == (True, False)
    assert one(a.SCROLL, a.SCROLL, pdir=None, gdir="DOWN") == (True, False)  # no length: matches nothing
    dirs = a.finger_direction([(0.5, 0.5)] * 5, [(0.5, 0.5), (0.6, 0.6), (0.4, 0.6), (0.6, 0.4), (0.7, 0.59)])
    assert [a.DIRECTIONS[c] if c >= 0 else None for c in dirs] == [None, "DOWN", "DOWN", "UP", "RIGHT"]


def test_type_press_stop_and_wait_class():
    assert one(a.TYPE, a.TYPE, ptext=" Hello ", gtext="hello world") == (True, True)
    assert one(a.TYPE, a.TYPE, ptext="Hello World!", gtext="hello") == (True, True)  # either way
    assert one(a.TYPE, a.TYPE, ptext="bye", gtext="hello") == (True, False)
    assert one(a.PRESS, a.PRESS, pkey="BACK", gkey="BACK") == (True, True)
    assert one(a.PRESS, a.PRESS, pkey="HOME", gkey="BACK") == (True, False)
    assert one(a.PRESS, a.PRESS, pkey="RECENT", gkey="HOME") == (True, False)
    assert one(a.STOP, a.STOP) == (True, True)  # COMPLETE vs IMPOSSIBLE are both STOP
    # a wait (prediction with only a duration) and the GT's "no action" are in the STOP class
    assert one(a.WAIT, a.STOP) == (True, True)
    assert one(a.STOP, a.WAIT) == (True, True)
    assert one(a.WAIT, a.WAIT) == (True, True)
    assert one(a.WAIT, a.CLICK, (0.5, 0.5), (0.5, 0.5)) == (False, False)


def test_model_output_as_the_evaluator_reads_it():
    r = a.pred_from_output
    assert r({"POINT": [500, 250]}) == a.Row(a.CLICK, point=(0.5, 0.25))
    assert r({"POINT": [500, 250], "duration": 200}).type == a.CLICK  # the default duration: a click
    assert r({"POINT": [500, 250], "duration": 201}) == a.Row(a.LONG_PRESS, point=(0.5, 0.25))
    assert r({"POINT": [500, 250], "duration": 150}).type == a.STOP  # under 200: read as a wait -> STOP
    assert r({"POINT": [500, 250], "to": "up"}) == a.Row(a.SCROLL, dir=a.UP)
    assert r({"POINT": [500, 250], "to": [500, 250]}) == a.Row(a.SCROLL, dir=a.NO_DIRECTION)  # zero length
    assert r({"POINT": [500, 250], "to": [600, 150]}).dir == a.UP  # tie -> vertical
    assert r({"POINT": [500, 250], "to": "up", "duration": 1000}).type == a.LONG_PRESS
    assert r({"duration": 1000}).type == a.STOP and r({}).type == a.INVALID  # {} fails the schema
    assert r({"STATUS": "continue", "duration": 0}).type == a.STOP
    assert r({"STATUS": "finish", "POINT": [1, 2]}).type == a.STOP
    assert r({"TYPE": "hi"}) == a.Row(a.TYPE, text="hi")
    assert r({"PRESS": "APPSELECT"}) == a.Row(a.PRESS, key=a.RECENT)
    assert r({"POINT": [1001, 0]}).type == a.INVALID and r({"to": "up"}).type == a.INVALID
    assert r({"TYPE": "x", "PRESS": "HOME"}).type == a.INVALID and r({"foo": 1}).type == a.INVALID


def test_ground_truth_records_as_the_evaluator_reads_them():
    g = a.gt_from_record
    tap = {"result_action_type": 4, "result_touch_yx": "[0.0, 0.25]", "result_lift_yx": "[0.04, 0.25]"}
    assert g(tap) == a.Row(a.CLICK, point=(0.25, 0.0))  # (y, x) -> (x, y); moved 0.04: still a tap
    swipe = dict(tap, result_lift_yx="[0.0401, 0.25]")
    assert g(swipe) == a.Row(a.SCROLL, dir=a.DOWN)
    assert g({"result_action_type": 0, "result_touch_yx": "[0.1, 0.2]"}).type == a.LONG_PRESS
    assert g({"result_action_type": 1, "duration": 500}).type == a.STOP  # no action -> STOP
    assert g({"result_action_type": 11, "result_action_text": "x"}).type == a.STOP
    assert g({"result_action_type": 7}) == a.Row(a.PRESS, key=a.ENTER)
    assert g({"result_action_type": 3, "result_action_text": "abc"}) == a.Row(a.TYPE, text="abc")
    # AndroidLens: one-element lists; a tap with a duration is its long press
    lens = {
        "result_action_type": [4],
        "result_touch_yx": ["[0.6, 0.4]"],
        "result_lift_yx": ["[0.6, 0.4]"],
        "duration": [1500],
    }
    assert g(lens, "androidlens") == a.Row(a.LONG_PRESS, point=(0.4, 0.6))
    assert g(lens, "aitz").type == a.CLICK
    assert g({"result_action_type": 9}).type == a.INVALID


def test_invalid_matches_nothing():
    tm, em = a.match_steps([a.INVALID, a.INVALID], [a.STOP, a.INVALID])
    assert not tm.any() and not em.any()


def test_sr_and_goal_progress():
    em = [1, 1, 0, 1, 1, 1, 0, 1, 1]
    eps = ["a", "a", "a", "a", "b", "b", "c", "c", "c"]
    res = a.episode_scores(em, eps)
    assert list(res["success"]) == [False, True, False]
    assert list(res["goal_progress"]) == [0.5, 1.0, 0.0]
    assert [episode_goal_progress([bool(x) for x in em[:4]])] == [0.5]
    s = a.score(np.ones(9, bool), em, eps)
    assert s["SR"] == pytest.approx(1 / 3) and s["GP"] == pytest.approx(0.5) and s["EM"] == pytest.approx(7 / 9)


def test_atomic_figures_and_official_summary():
    # 4 steps: CLICK hit via box (centre reference), CLICK miss, TYPE (similarity), STOP vs no prediction
    res = a.evaluate_steps(
        [a.CLICK, a.CLICK, a.TYPE, a.INVALID],
        [a.CLICK, a.CLICK, a.TYPE, a.STOP],
        [(0.5, 0.5), (0.9, 0.9), NAN2, NAN2],
        [(0.45, 0.5), (0.1, 0.1), NAN2, NAN2],
        pred_text=["", "", "abcd", ""],
        gt_text=["", "", "ab", ""],
        gt_boxes=np.array([[[0.25, 0.25, 0.5, 0.5]], [[0.0, 0.0, 0.0, 0.0]], [[0, 0, 0, 0]], [[0, 0, 0, 0]]]),
        gt_box_counts=[1, 0, 0, 0],
    )
    assert res.type_match.tolist() == [True, True, True, False]
    assert res.exact_match.tolist() == [True, False, True, False]
    # the grown box [0.2, 0.2, 0.6, 0.6] has its centre at (0.5, 0.5): distance 0; the miss: 0.8 * sqrt(2) * 1000
    assert res.pixel_distance[0] == pytest.approx(0.0, abs=1e-9)
    assert res.pixel_distance[1] == pytest.approx(800 * math.sqrt(2))
    assert res.text_similarity[2] == pytest.approx(1 - 2 / 6)  # InDel: 2 insertions over 6 characters
    at = a.atomic(res)
    assert at["hit_rate"] == 0.75 and at["per_type"]["CLICK"] == {"count": 2, "TM": 1.0, "EM": 0.5}
    assert at["per_type"]["STOP"] == {"count": 1, "TM": 0.0, "EM": 0.0}
    assert math.isnan(at["per_type"]["SCROLL"]["TM"]) and at["text_similarity_avg"] == pytest.approx(2 / 3)
    assert at["point_distance_avg"] == pytest.approx(400 * math.sqrt(2))
    summ = a.official_summary(res, ["e", "e", "f", "f"])
    assert summ["success_rate"] == 0.0 and summ["goal_progress"] == 0.5 and summ["total_exact_matches"] == 2
    assert summ["total"] == {"count": 4, "type_acc": 0.75, "exact_acc": 0.5, "hit_rate": 0.75}
    assert summ["SCROLL"] == {"count": 0, "type_acc": 0, "exact_acc": 0}
    assert summ["TYPE"] == {"count": 1, "type_acc": 1.0, "exact_acc": 1.0, "text_dist_avg": 0.6667}
    assert summ["mean_pixel_distance"] == round(400 * math.sqrt(2), 4)


def test_goal_progress_interleaved_episodes():
    em = [1, 1, 0, 1, 1]
    eps = ["a", "b", "a", "b", "a"]  # a: 1,0,1 -> 1/3; b: 1,1 -> 1
    res = a.episode_scores(em, eps)
    assert list(res["episode_id"]) == ["a", "b"]
    assert res["goal_progress"].tolist() == [pytest.approx(1 / 3), 1.0]


def test_androidlens_atp_sr():
    hits = [[True, True], [True, False, False, True], [False], []]
    res = al.atp_sr(hits, categories=["1-1", "1-1", "2-1", "2-1"])
    assert res["ATP"] == pytest.approx((1 + 0.5 + 0 + 1) / 4)  # a task with no milestones: progress 1
    assert res["SR"] == pytest.approx(2 / 4)
    assert res["per_category"]["1-1"] == {"ATP": 0.75, "SR": 0.5, "tasks": 2}
    flat, off = al.flatten(hits)
    p, s = al.task_progress(flat, off)
    assert p.tolist() == [1.0, 0.5, 0.0, 1.0] and s.tolist() == [True, False, False, True]


def test_androidlens_from_trackers_follows_milestone_tracker():
    from harness.run.judge.milestones import MilestoneTracker
    from tasks.schema import ElementMatch, Milestone, MilestoneGroup, ScreenCheck

    root = MilestoneGroup(
        children=(
            Milestone(id="a", sub_target="a", check=ScreenCheck(package="p")),
            Milestone(id="b", sub_target="b", check=ScreenCheck(element=ElementMatch(text="x"))),
        )
    )
    t = MilestoneTracker(root)
    t.hits["a"] = 1
    res = al.atp_sr(al.from_trackers([t]))
    assert res["ATP"] == t.progress == 0.5 and res["SR"] == 0.0
