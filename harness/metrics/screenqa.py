"""ScreenQA metrics (docs/datasets.md).

Official metrics (2025 code, facts reproduced, code written here):

- **SQA-S** (short answers), per question: a prediction equal to the string `"<no answer>"` scores (1, 1) iff
  some ground truth is `"<no answer>"`, else (0, 0). Otherwise the `"<no answer>"` ground truths are dropped
  (none left -> (0, 0)) and SQuAD normalization applies (lower-case, delete every `string.punctuation`
  character, replace the words a / an / the by spaces, collapse whitespace); EM = the normalized prediction
  equals a normalized ground truth; F1 = max over ground truths of the token-multiset F1.
- **SQA-UIC** (lists of UI contents, raw strings): an empty prediction scores (1, 1) iff some ground truth is an
  empty list; empty ground truths are otherwise dropped; EM = the list equals a ground-truth list (order
  counts); F1 = max multiset F1 over whole elements.
- **SQA-UIC-BB** (lists of `(bbox, content)`): same empty-list rule; per ground truth an optimal one-to-one
  assignment (`scipy.optimize.linear_sum_assignment`, maximising the total score) where a pair's score is its
  IoU (BBox-F1@IoU) or its IoU when the contents are equal else 0 (F1@IoU), scores below 0.1 set to 0; matched
  pairs with score >= 0.1 count; F1 from the count; max over ground truths. EM@IoU: same length and, in order,
  every pair has equal content and IoU >= 0.1, for some ground truth. Boxes are `[left, top, right, bottom]`.

Paper metrics (section 2.3): **avg nDCG_v** and **avg F1** over answer items, max over raters, with the answer
matching of section 2.3.3 (`match_items`). Items are tokenized by lower-casing, deleting punctuation and
splitting on whitespace (the paper only says "word token"). Documented choices where the paper is silent:
nDCG_v is capped at 1 (one ground-truth item can mark several predicted items as hits, which would push DCG
above IDCG); an empty ground-truth list (rater says: no answer) scores 1 for an empty prediction and 0
otherwise, on both metrics.
"""

from __future__ import annotations

import math
import re
import string
from collections import Counter
from collections.abc import Sequence
from typing import Any

import numpy as np

from harness.coords import iou_matrix
from harness.qa_agent import NO_ANSWER

IOU_THRESHOLD = 0.1
_PUNCT = frozenset(string.punctuation)
_ARTICLES = re.compile(r"\b(a|an|the)\b")


def normalize_squad(text: str) -> str:
    """Lower-case, delete punctuation, replace the articles a/an/the by spaces, collapse whitespace."""
    text = "".join(ch for ch in text.lower() if ch not in _PUNCT)
    return " ".join(_ARTICLES.sub(" ", text).split())


def multiset_f1(pred: Sequence[Any], gold: Sequence[Any]) -> float:
    """F1 of two multisets (tokens or whole elements); 0 when nothing is shared."""
    same = sum((Counter(pred) & Counter(gold)).values())
    if same == 0:
        return 0.0
    p, r = same / len(pred), same / len(gold)
    return 2 * p * r / (p + r)


# --- SQA-S ------------------------------------------------------------------------------------------------
def sqa_s(prediction: str, ground_truths: Sequence[str]) -> tuple[int, float]:
    """(EM, F1) of one short answer."""
    if prediction == NO_ANSWER:
        return (1, 1.0) if NO_ANSWER in ground_truths else (0, 0.0)
    golds = [normalize_squad(g) for g in ground_truths if g != NO_ANSWER]
    if not golds:
        return 0, 0.0
    pred = normalize_squad(prediction)
    return int(pred in golds), max(multiset_f1(pred.split(), g.split()) for g in golds)


# --- SQA-UIC ----------------------------------------------------------------------------------------------
def sqa_uic(prediction: Sequence[str], ground_truths: Sequence[Sequence[str]]) -> tuple[int, float]:
    """(EM, F1) of one list of UI contents (raw strings, no normalization)."""
    pred = list(prediction)
    if not pred:
        return (1, 1.0) if any(len(g) == 0 for g in ground_truths) else (0, 0.0)
    golds = [list(g) for g in ground_truths if len(g)]
    if not golds:
        return 0, 0.0
    return int(pred in golds), max(multiset_f1(pred, g) for g in golds)


# --- SQA-UIC-BB -------------------------------------------------------------------------------------------
def assignment_f1(scores: np.ndarray, threshold: float = IOU_THRESHOLD) -> float:
    """F1 of the optimal one-to-one assignment on a [P, G] score matrix (pairs >= threshold count).

    With one prediction or one ground truth the optimal assignment is a single pair, the best one, which counts
    when it reaches the threshold: that case (the common one) needs no solver - and no scipy.optimize import, ~0.8 s
    of CPU in the middle of a run."""
    p, g = scores.shape
    if p == 0 and g == 0:
        return 1.0
    if p == 0 or g == 0:
        return 0.0
    s = np.where(scores >= threshold, scores, 0.0)
    if p == 1 or g == 1:
        matches = int(s.max() >= threshold)
    else:
        from scipy.optimize import linear_sum_assignment  # imported on first use: seconds of CPU

        rows, cols = linear_sum_assignment(s, maximize=True)
        matches = int((s[rows, cols] >= threshold).sum())
    if matches == 0:
        return 0.0
    prec, rec = matches / p, matches / g
    return 2 * prec * rec / (prec + rec)


def sqa_uic_bb(
    prediction: Sequence[tuple[Sequence[float], str]],
    ground_truths: Sequence[Sequence[tuple[Sequence[float], str]]],
    iou_threshold: float = IOU_THRESHOLD,
) -> tuple[float, int, float]:
    """(BBox-F1@IoU, EM@IoU, F1@IoU) of one list of `(bbox [l, t, r, b], content)`."""
    pred = list(prediction)
    if not pred:
        return (1.0, 1, 1.0) if any(len(g) == 0 for g in ground_truths) else (0.0, 0, 0.0)
    golds = [list(g) for g in ground_truths if len(g)]
    if not golds:
        return 0.0, 0, 0.0
    pb = [b for b, _ in pred]
    pc = np.array([c for _, c in pred], dtype=object)
    bbox_f1, em, f1 = 0.0, 0, 0.0
    for gold in golds:
        ious = iou_matrix(pb, [b for b, _ in gold])
        same = pc[:, None] == np.array([c for _, c in gold], dtype=object)[None, :]
        bbox_f1 = max(bbox_f1, assignment_f1(ious, iou_threshold))
        f1 = max(f1, assignment_f1(np.where(same, ious, 0.0), iou_threshold))
        if len(gold) == len(pred):
            diag = np.arange(len(pred))
            if bool((same[diag, diag] & (ious[diag, diag] >= iou_threshold)).all()):
                em = 1
    return bbox_f1, em, f1


# --- the paper's avg nDCG_v / avg F1 with the section 2.3.3 answer matching ------------------------------------
def tokenize(item: str) -> list[str]:
    """Word tokens of an answer item: lower-cased, punctuation deleted, split on whitespace (articles are kept:
    they are words of a UI element's text, and the paper's worked example uses "A" as a token)."""
    return "".join(ch for ch in item.lower() if ch not in _PUNCT).split()


def match_items(pred: Sequence[str], gold: Sequence[str], tokenizer: Any = tokenize) -> tuple[list[int], list[int]]:
    """Section 2.3.3: returns (hits of the predicted items, hits of the ground-truth items), 1 = HIT.

    The predicted items are concatenated into one token sequence (one segment). Each ground-truth item in turn
    is looked for as a contiguous token run inside the first segment containing it (first occurrence): if
    found it is a HIT, its tokens are marked, and the segment is replaced by what is left on either side.
    A predicted item is a HIT if any of its tokens was marked.
    """
    owner: list[int] = []  # token position -> predicted item
    tokens: list[str] = []
    for i, item in enumerate(pred):
        t = tokenizer(item)
        tokens.extend(t)
        owner.extend([i] * len(t))
    segments: list[tuple[int, int]] = [(0, len(tokens))] if tokens else []  # [start, end) runs
    marked = [False] * len(tokens)
    gold_hits: list[int] = []
    for g in gold:
        gt = tokenizer(g)
        found = None
        if gt:
            for si, (s, e) in enumerate(segments):
                for k in range(s, e - len(gt) + 1):
                    if tokens[k : k + len(gt)] == gt:
                        found = (si, k)
                        break
                if found:
                    break
        if found is None:
            gold_hits.append(0)
            continue
        si, k = found
        s, e = segments[si]
        for j in range(k, k + len(gt)):
            marked[j] = True
        segments[si : si + 1] = [seg for seg in ((s, k), (k + len(gt), e)) if seg[1] > seg[0]]
        gold_hits.append(1)
    pred_hits = [0] * len(pred)
    for j, m in enumerate(marked):
        if m:
            pred_hits[owner[j]] = 1
    return pred_hits, gold_hits


def ndcg_v(pred_hits: Sequence[int], n_gold: int) -> float:
    """DCG_v / IDCG_v (equations 1-3), capped at 1; no gold items -> 1 iff no prediction."""
    if n_gold == 0:
        return 1.0 if len(pred_hits) == 0 else 0.0
    dcg = sum(r / math.log2(i + 2) for i, r in enumerate(pred_hits))
    idcg = sum(1 / math.log2(i + 2) for i in range(n_gold))
    return min(1.0, dcg / idcg)


def item_f1(pred_hits: Sequence[int], gold_hits: Sequence[int]) -> float:
    """Precision = hit predicted items / predicted items, recall = hit gold items / gold items."""
    if not pred_hits and not gold_hits:
        return 1.0
    if not pred_hits or not gold_hits:
        return 0.0
    p, r = sum(pred_hits) / len(pred_hits), sum(gold_hits) / len(gold_hits)
    return 0.0 if p + r == 0 else 2 * p * r / (p + r)


def question_ndcg_f1(pred: Sequence[str], golds: Sequence[Sequence[str]]) -> tuple[float, float]:
    """(max over raters of nDCG_v, max over raters of F1) for one question."""
    best_n, best_f = 0.0, 0.0
    for gold in golds:
        ph, gh = match_items(pred, gold)
        best_n = max(best_n, ndcg_v(ph, len(gold)))
        best_f = max(best_f, item_f1(ph, gh))
    return best_n, best_f


# --- batches ----------------------------------------------------------------------------------------------
def score_sqa_s(predictions: Sequence[str], ground_truths: Sequence[Sequence[str]]) -> dict[str, float]:
    res = [sqa_s(p, g) for p, g in zip(predictions, ground_truths, strict=True)]
    return {"SQA-S EM": _mean(r[0] for r in res), "SQA-S F1": _mean(r[1] for r in res), "questions": len(res)}


def score_sqa_uic(
    predictions: Sequence[Sequence[str]], ground_truths: Sequence[Sequence[Sequence[str]]]
) -> dict[str, float]:
    res = [sqa_uic(p, g) for p, g in zip(predictions, ground_truths, strict=True)]
    return {"SQA-UIC EM": _mean(r[0] for r in res), "SQA-UIC F1": _mean(r[1] for r in res), "questions": len(res)}


def score_sqa_uic_bb(
    predictions: Sequence[Any], ground_truths: Sequence[Any], iou_threshold: float = IOU_THRESHOLD
) -> dict[str, float]:
    res = [sqa_uic_bb(p, g, iou_threshold) for p, g in zip(predictions, ground_truths, strict=True)]
    return {
        "SQA-UIC-BB BBox-F1@IoU": _mean(r[0] for r in res),
        "SQA-UIC-BB EM@IoU": _mean(r[1] for r in res),
        "SQA-UIC-BB F1@IoU": _mean(r[2] for r in res),
        "questions": len(res),
    }


def score_paper(
    predictions: Sequence[Sequence[str]], ground_truths: Sequence[Sequence[Sequence[str]]]
) -> dict[str, float]:
    """The paper's `avg nDCG_v` and `avg F1` (equations 4 and 5)."""
    res = [question_ndcg_f1(p, g) for p, g in zip(predictions, ground_truths, strict=True)]
    return {"avg nDCG_v": _mean(r[0] for r in res), "avg F1": _mean(r[1] for r in res), "questions": len(res)}


def _mean(values: Any) -> float:
    v = list(values)
    return float(sum(v) / len(v)) if v else float("nan")
