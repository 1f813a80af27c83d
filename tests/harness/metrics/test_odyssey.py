"""Hand-checked cases of GUI Odyssey AMS / SR / action-type and text accuracy (docs/datasets.md, GUI Odyssey)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from harness.metrics import odyssey as o
from harness.metrics.reference import levenshtein, odyssey_match_step, odyssey_text_match

NAN2 = (math.nan, math.nan)


def one(ptype, pp, pe, gtype, gp, ge, box=None, ptext="", gtext="", rule="box_or_distance"):
    ref = odyssey_match_step(
        o.TYPES[o.type_code(ptype)], pp, pe, o.TYPES[o.type_code(gtype)], gp, ge, box, ptext, gtext, rule
    )
    vec = o.match_actions(
        [ptype],
        [pp or NAN2],
        [pe or NAN2],
        [gtype],
        [gp or NAN2],
        [ge or NAN2],
        gt_box=[box or (math.nan,) * 4],
        pred_text=[ptext],
        gt_text=[gtext],
        rule=rule,
    )
    assert bool(vec[0]) == ref
    return ref


def test_vocabularies():
    assert o.type_code("TEXT") == o.type_code("TYPE") == o.TYPE
    assert o.type_code("INCOMPLETE") == o.type_code("IMPOSSIBLE") == o.IMPOSSIBLE
    assert o.type_code("CLICK", "KEY_APPSELECT") == o.type_code("CLICK", "KEY_RECENT") == o.RECENT
    assert o.type_code("CLICK", "KEY_HOME") == o.HOME and o.type_code("CLICK", "KEY_BACK") == o.BACK
    assert o.type_code("CLICK", [[1, 2], [1, 2]]) == o.CLICK
    assert o.type_code("FLY") == o.INVALID


def test_click_distance_014_divided_before_subtracting():
    assert one("CLICK", (500, 140), None, "CLICK", (500, 280), None)  # 0.28 - 0.14 == 0.14 exactly -> match
    assert one("CLICK", (640, 77), None, "CLICK", (500, 77), None)  # 0.64 - 0.5 == 0.14 -> match
    # 281 and 141 are 140 apart, but 0.281 - 0.141 = 0.14000000000000004 > 0.14: the official code (dividing
    # first) says no; (281 - 141) / 1000 would have said yes
    assert not one("CLICK", (281, 500), None, "CLICK", (141, 500), None)
    assert not one("CLICK", (500, 281), None, "CLICK", (500, 141), None)
    assert not one("CLICK", (500, 500), None, "CLICK", (600, 600), None)  # sqrt(0.02) = 0.1414 > 0.14
    assert one("CLICK", (500, 500), None, "CLICK", (600, 590), None)  # 0.1345
    assert o.within_distance([(281, 0), (280, 0)], [(141, 0), (140, 0)]).tolist() == [False, True]


def test_click_vs_long_press_type_mismatch():
    assert not one("LONG_PRESS", (500, 500), None, "CLICK", (500, 500), None)
    assert one("LONG_PRESS", (500, 500), None, "LONG_PRESS", (510, 510), None)


def test_sam2_bbox_or_distance():
    box = (100, 100, 200, 200)
    # outside the box but 0.06 from the GT point: the distance rule still applies (box OR distance)
    assert one("CLICK", (210, 150), None, "CLICK", (150, 150), None, box)
    assert one("CLICK", (200, 200), None, "CLICK", (900, 900), None, box)  # on the box corner, GT far: box
    assert one("CLICK", (100, 150), None, "CLICK", (900, 900), None, box)  # on the left edge
    assert not one("CLICK", (201, 150), None, "CLICK", (900, 900), None, box)  # just outside, far
    assert one("LONG_PRESS", (150, 100), None, "LONG_PRESS", (900, 900), None, box)  # top edge
    assert not one("CLICK", (300, 300), None, "CLICK", (150, 150), None, box)  # outside and 0.21 away


def test_earlier_release_rule_is_distance_only():
    box = (100, 100, 200, 200)
    assert not one("CLICK", (200, 200), None, "CLICK", (900, 900), None, box, rule="distance_only")
    assert one("CLICK", (210, 150), None, "CLICK", (150, 150), None, box, rule="distance_only")
    with pytest.raises(ValueError, match="rule"):
        o.match_actions([0], [(0, 0)], [(0, 0)], [0], [(0, 0)], [(0, 0)], rule="box")


def test_scroll_direction_ties_and_zero_length():
    assert one("SCROLL", (500, 800), (500, 200), "SCROLL", (300, 900), (310, 100))  # both UP
    assert not one("SCROLL", (500, 800), (500, 200), "SCROLL", (500, 200), (500, 800))  # UP vs DOWN
    # tie |dx| == |dy| -> vertical: (100,100)->(200,200) is DOWN, (200,200)->(100,100) UP
    assert one("SCROLL", (100, 100), (200, 200), "SCROLL", (500, 100), (500, 900))
    assert not one("SCROLL", (100, 100), (200, 200), "SCROLL", (100, 500), (900, 500))
    assert one("SCROLL", (200, 200), (100, 100), "SCROLL", (500, 900), (500, 100))
    # a zero-length scroll is DOWN, as the official converter names it
    assert one("SCROLL", (400, 400), (400, 400), "SCROLL", (500, 100), (500, 900))
    assert not one("SCROLL", (400, 400), (400, 400), "SCROLL", (500, 900), (500, 100))
    assert one("SCROLL", (7, 7), (7, 7), "SCROLL", (3, 3), (3, 3))
    codes = o.scroll_direction(
        [[0, 0], [0, 0], [0, 0], [0, 0], [0, 0], [0, 0]], [[0, -5], [0, 5], [-5, 0], [5, 0], [0, 0], [-5, -5]]
    )
    assert [o.DIRECTIONS[c] for c in codes] == ["UP", "DOWN", "LEFT", "RIGHT", "DOWN", "UP"]


def test_type_similarity_threshold():
    assert levenshtein("abcd", "abxy") == 2 and o.levenshtein("abcd", "abxy") == 2
    assert o.levenshtein_batch(["abcd", "", "kitten"], ["abxy", "ab", "sitting"]).tolist() == [2, 2, 3]
    assert odyssey_text_match("abxy", "abcd")  # 1 - 2/4 = 0.5 -> match
    assert one("TEXT", None, None, "TYPE", None, None, ptext="abxy", gtext="abcd")
    assert not one("TEXT", None, None, "TEXT", None, None, ptext="abxyz", gtext="abcde")  # 1 - 3/5 = 0.4
    assert one("TEXT", None, None, "TEXT", None, None, ptext="abcxyz", gtext="abcdef")  # 1 - 3/6 = 0.5
    assert not one("TEXT", None, None, "TEXT", None, None, ptext="abxyzw", gtext="abcdef")  # 1 - 4/6 < 0.5


def test_type_containment_and_strip():
    assert one("TEXT", None, None, "TEXT", None, None, ptext="  hello world ", gtext="hello")
    assert one("TEXT", None, None, "TEXT", None, None, ptext="he", gtext="hello world")
    assert not one("TEXT", None, None, "TEXT", None, None, ptext="Hello", gtext="hello there friend")


def test_keys_and_status_by_type():
    for t in ("HOME", "BACK", "RECENT", "COMPLETE", "IMPOSSIBLE"):
        assert one(t, None, None, t, None, None)
    assert not one("HOME", None, None, "BACK", None, None)
    assert one("KEY_APPSELECT", None, None, "KEY_RECENT", None, None)


def test_aggregations_named():
    m = [1, 1, 1, 0, 1, 1, 0, 1]
    eps = ["a", "a", "b", "b", "c", "c", "d", "d"]
    cats = ["Social", "Social", "Social", "Social", "Social", "Social", "Media", "Media"]
    pooled = o.score(m, eps, aggregate="pooled")
    assert pooled["AMS"] == pytest.approx(6 / 8) and pooled["SR"] == pytest.approx(2 / 4)
    per = o.score(m, eps, cats, aggregate="per_category_mean")
    # Social: AMS 5/6, SR 2/3; Media: AMS 1/2, SR 0
    assert per["AMS"] == pytest.approx((5 / 6 + 1 / 2) / 2) and per["SR"] == pytest.approx((2 / 3 + 0) / 2)
    both = o.score_both(m, eps, cats)
    assert both["pooled"]["AMS"] == pooled["AMS"] and both["per_category_mean"]["SR"] == per["SR"]
    with pytest.raises(ValueError):
        o.score(m, eps, aggregate="mean")


def test_sr_leaves_out_episodes_with_an_unpredicted_step():
    m = [1, 1, 0, 1, 1, 1, 1]
    eps = ["a", "a", "b", "b", "c", "c", "c"]
    scored = [1, 1, 1, 1, 1, 0, 1]  # c's second step has no prediction
    f = o.score(m, eps, aggregate="pooled", scored=scored)
    # AMS over the 6 predicted steps: 5 correct; SR over a and b (c left out): a succeeds
    assert f["AMS"] == pytest.approx(5 / 6) and f["SR"] == pytest.approx(1 / 2)
    assert (f["episodes"], f["episodes_scored"], f["episodes_left_out"]) == (3, 2, 1)
    assert (f["steps"], f["steps_scored"]) == (7, 6)
    # per category: X = {a, b}, Y = {c}: Y's only episode is left out -> its SR is 0 (as the official script)
    cats = ["X", "X", "X", "X", "Y", "Y", "Y"]
    pc = o.score(m, eps, cats, aggregate="per_category_mean", scored=scored)
    assert pc["AMS"] == pytest.approx((3 / 4 + 2 / 2) / 2) and pc["SR"] == pytest.approx((1 / 2 + 0) / 2)


def test_action_type_and_text_accuracy_and_official_rounding():
    # steps: CLICK ok, CLICK wrong place, TYPE ok, TYPE wrong text, TYPE vs CLICK (type fail),
    # CLICK predicted without a point (undecodable: the official script counts its type as right), HOME ok
    gt = [o.CLICK, o.CLICK, o.TYPE, o.TYPE, o.TYPE, o.SCROLL, o.HOME]
    pred = [o.CLICK, o.CLICK, o.TYPE, o.TYPE, o.CLICK, o.CLICK, o.HOME]
    pp = [(10, 10), (900, 900), NAN2, NAN2, (1, 1), NAN2, NAN2]
    gp = [(12, 12), (10, 10), NAN2, NAN2, NAN2, (1, 1), NAN2]
    m = o.match_actions(
        pred,
        pp,
        pp,
        gt,
        gp,
        [(1, 2), NAN2, NAN2, NAN2, NAN2, (1, 900), NAN2],
        pred_text=["", "", "hello", "zzz", "", "", ""],
        gt_text=["", "", "hello!", "abc", "", "", ""],
    )
    assert m.tolist() == [True, False, True, False, False, False, True]
    tok = o.type_matches(pred, gt)
    bad = o.undecodable(pred, pp)
    assert bad.tolist() == [False, False, False, False, False, True, False]
    acc = o.accuracies(m, tok, gt, bad)
    # type: 5 matching types + 1 undecodable = 6 / 7; text: 1 right of the 2 TYPE steps whose type matched
    assert acc["action_type_correct"] == 6 and acc["action_type_accuracy"] == pytest.approx(6 / 7)
    assert (acc["text_correct"], acc["text_total"]) == (1, 2)
    eps = ["e"] * 3 + ["f"] * 4
    fig = o.official_figures(m, eps, None, "pooled", acc)
    assert fig["AMS"] == 42.86 and fig["SR"] == 0.0  # round(3 / 7 * 100, 2)
    assert fig["action_type"] == "6 / 7 = 85.71" and fig["text"] == "1 / 2 = 50.00"
    # micro: per-category figures rounded to 2 decimals before the mean: (66.67 + 25.0) / 2 = 45.835 -> 45.84
    fig = o.official_figures(m, eps, ["A"] * 3 + ["B"] * 4, "per_category_mean", acc)
    assert fig["metric"] == "micro" and fig["AMS"] == pytest.approx(45.84)


def test_parse_info():
    assert o.parse_info("CLICK", [[10, 20], [10, 20]])["point"] == (10.0, 20.0)
    s = o.parse_info("SCROLL", [[10, 900], [10, 100]])
    assert s["type"] == o.SCROLL and s["end"] == (10.0, 100.0)
    assert o.parse_info("TEXT", "hi")["text"] == "hi"
    assert o.parse_info("CLICK", "KEY_HOME")["type"] == o.HOME
    assert o.parse_info("LONG_PRESS", "KEY_BACK")["type"] == o.BACK
    up = o.parse_info("SCROLL", "UP")
    assert o.DIRECTIONS[o.scroll_direction(up["point"], up["end"])[0]] == "UP"
    assert o.parse_info("CLICK", "garbage")["point"] is None


def test_string_types_in_arrays():
    m = o.match_actions(
        np.array(["CLICK", "TEXT"]),
        [[1, 1], NAN2],
        [[1, 1], NAN2],
        ["CLICK", "TYPE"],
        [[2, 2], NAN2],
        [[2, 2], NAN2],
        pred_text=["", "a"],
        gt_text=["", "a"],
    )
    assert m.tolist() == [True, True]
