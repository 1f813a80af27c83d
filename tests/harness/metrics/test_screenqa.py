"""Hand-checked ScreenQA metrics: SQA-S, SQA-UIC, SQA-UIC-BB and the paper's nDCG_v / F1 with 2.3.3 matching."""

from __future__ import annotations

import math

import pytest

from harness.metrics import screenqa as s


def test_squad_normalization():
    assert s.normalize_squad("The  Quick, brown fox!") == "quick brown fox"
    assert s.normalize_squad("An apple a day") == "apple day"
    assert s.normalize_squad("  $12.50 ") == "1250"
    assert s.normalize_squad("theatre") == "theatre"  # articles only as whole words


def test_sqa_s_em_f1():
    assert s.sqa_s("the Quick brown fox.", ["quick brown fox"]) == (1, 1.0)
    em, f1 = s.sqa_s("quick fox", ["quick brown fox", "slow"])
    assert em == 0 and f1 == pytest.approx(2 * 1 * (2 / 3) / (1 + 2 / 3))
    assert s.sqa_s("nothing shared", ["quick brown fox"]) == (0, 0.0)


def test_sqa_s_no_answer_rule():
    assert s.sqa_s("<no answer>", ["<no answer>", "x"]) == (1, 1.0)
    assert s.sqa_s("<no answer>", ["x"]) == (0, 0.0)
    # a normal prediction: the <no answer> ground truths are dropped
    assert s.sqa_s("x", ["<no answer>", "x"]) == (1, 1.0)
    assert s.sqa_s("x", ["<no answer>"]) == (0, 0.0)
    # only the exact string counts as the no-answer prediction
    assert s.sqa_s("no answer", ["<no answer>"]) == (0, 0.0)


def test_sqa_uic():
    assert s.sqa_uic(["A", "B"], [["A", "B"]]) == (1, 1.0)
    em, f1 = s.sqa_uic(["B", "A"], [["A", "B"]])
    assert em == 0 and f1 == 1.0  # order matters for EM, not for the multiset F1
    em, f1 = s.sqa_uic(["A", "A", "C"], [["A", "B"]])
    assert em == 0 and f1 == pytest.approx(2 * (1 / 3) * (1 / 2) / (1 / 3 + 1 / 2))
    assert s.sqa_uic(["a"], [["A"]]) == (0, 0.0)  # raw strings: no normalization
    assert s.sqa_uic([], [[], ["A"]]) == (1, 1.0)
    assert s.sqa_uic([], [["A"]]) == (0, 0.0)
    assert s.sqa_uic(["A"], [[]]) == (0, 0.0)


def test_iou_threshold_edge_01():
    a = [0, 0, 10, 10]
    b = [0, 0, 1, 10]  # IoU = 10 / 100 = 0.1 exactly
    c = [0, 0, 1, 9.99]
    assert s.iou_matrix([a], [b])[0, 0] == 0.1
    assert s.sqa_uic_bb([(a, "x")], [[(b, "x")]]) == (1.0, 1, 1.0)
    bb_f1, em, f1 = s.sqa_uic_bb([(a, "x")], [[(c, "x")]])
    assert (bb_f1, em, f1) == (0.0, 0, 0.0)


def test_uic_bb_assignment_and_content():
    g = [([0, 0, 10, 10], "A"), ([20, 0, 30, 10], "B")]
    p = [([20, 0, 30, 10], "B"), ([0, 0, 10, 10], "A")]  # swapped order
    bb_f1, em, f1 = s.sqa_uic_bb(p, [g])
    assert bb_f1 == 1.0 and f1 == 1.0 and em == 0  # EM@IoU compares in order
    # one content wrong: BBox-F1 still 1, F1@IoU counts one pair
    bb_f1, em, f1 = s.sqa_uic_bb([([0, 0, 10, 10], "A"), ([20, 0, 30, 10], "C")], [g])
    assert bb_f1 == 1.0 and em == 0 and f1 == pytest.approx(0.5)
    # the optimal assignment beats a greedy one: p0 overlaps both, p1 only g0
    g2 = [([0, 0, 10, 10], "A"), ([5, 0, 15, 10], "A")]
    p2 = [([3, 0, 13, 10], "A"), ([0, 0, 9, 10], "A")]
    assert s.sqa_uic_bb(p2, [g2])[0] == 1.0
    assert s.sqa_uic_bb([], [[]]) == (1.0, 1, 1.0)
    assert s.sqa_uic_bb([], [g]) == (0.0, 0, 0.0)


def test_paper_worked_example():
    A = ["A B", "B", "B B", "C B A"]
    Ag = ["A B", "B C", "A B"]
    pred_hits, gold_hits = s.match_items(A, Ag)
    assert gold_hits == [1, 1, 0]
    assert pred_hits == [1, 0, 1, 1]
    # nDCG_v = (1 + 0 + 1/log2(4) + 1/log2(5)) / (1 + 1/log2(3) + 1/log2(4))
    dcg = 1 + 1 / math.log2(4) + 1 / math.log2(5)
    idcg = 1 + 1 / math.log2(3) + 1 / math.log2(4)
    assert s.ndcg_v(pred_hits, len(Ag)) == pytest.approx(dcg / idcg)
    # F1: precision 3/4, recall 2/3
    assert s.item_f1(pred_hits, gold_hits) == pytest.approx(2 * 0.75 * (2 / 3) / (0.75 + 2 / 3))


def test_ndcg_rank_discount_and_cap():
    assert s.ndcg_v([0, 0, 1], 1) == pytest.approx(0.5)  # wrong first -> third: 1.0 -> 0.5 (paper)
    ph, gh = s.match_items(["A", "B"], ["A B"])  # one gold item spans two predicted items
    assert ph == [1, 1] and gh == [1]
    assert s.ndcg_v(ph, 1) == 1.0  # capped
    assert s.ndcg_v([], 0) == 1.0 and s.ndcg_v([0], 0) == 0.0


def test_paper_metrics_max_over_raters():
    res = s.score_paper([["Deep Squat", "3 sets"]], [[["Lunge"], ["Deep Squat", "3 sets"]]])
    assert res["avg nDCG_v"] == 1.0 and res["avg F1"] == 1.0
    res = s.score_paper([[]], [[["x"]]])
    assert res["avg nDCG_v"] == 0.0 and res["avg F1"] == 0.0


def test_batch_names():
    assert set(s.score_sqa_s(["a"], [["a"]])) == {"SQA-S EM", "SQA-S F1", "questions"}
    assert s.score_sqa_uic([["a", "b"]], [[["a", "b"]]]) == {"SQA-UIC EM": 1.0, "SQA-UIC F1": 1.0, "questions": 1}
    assert set(s.score_sqa_uic_bb([[]], [[[]]])) == {
        "SQA-UIC-BB BBox-F1@IoU",
        "SQA-UIC-BB EM@IoU",
        "SQA-UIC-BB F1@IoU",
        "questions",
    }
