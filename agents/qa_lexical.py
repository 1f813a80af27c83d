"""`lexical`: the no-model ScreenQA baseline. It reads the hierarchy only (no pixels).

1. The question's content words: lower-cased word tokens of 2+ characters minus question stopwords; in Chinese,
   every bigram of a run of Han characters.
2. Anchors: visible elements whose text or content-desc shares the most content words with the question (the
   "Saturday" of "temperature on Saturday"). None: "no answer".
3. The answer: the text elements near the best anchor that are not anchors themselves, in tiers: values (text
   with a digit) beside the anchor (same row, to its right) or under it (overlapping its column, within three
   anchor heights); then any text beside it; then any text under it; then the rest; within a tier by the
   distance between centres. The best one's text is the short answer. An anchor that says more than the
   question (two or more words the question does not have) answers by itself and ranks first.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from harness.qa_agent import QAAnswer

if TYPE_CHECKING:  # pragma: no cover - typing only
    from harness.hierarchy import UIElement
    from harness.observation import Observation

_WORD = re.compile(r"[\w']+", re.UNICODE)
_HAN = re.compile(r"[\u4e00-\u9fff]+")
STOPWORDS = frozenset(
    "what which who whom whose when where why how is are was were be been does do did the a an of on in at to for "
    "by with from my me i you your this that these those there it its show shows tell screen app page please many "
    "much name named called any some".split()
)
MAX_ANSWERS = 1  # extra guesses cost precision in every ScreenQA metric


def content_tokens(text: str) -> set[str]:
    low = text.casefold()
    words = {w for w in _WORD.findall(low) if len(w) >= 2 and w not in STOPWORDS and not _HAN.fullmatch(w)}
    for run in _HAN.findall(low):
        words.update(run[i : i + 2] for i in range(max(1, len(run) - 1)))
    return words


def _label(e: UIElement) -> str:
    return e.text or e.content_desc


class LexicalQA:
    """The lexical-overlap baseline (module docstring)."""

    def __init__(self, max_answers: int = MAX_ANSWERS) -> None:
        self.name = "lexical"
        self.max_answers = max_answers

    def answer(self, observation: Observation, question: str, lang: str) -> QAAnswer:
        wanted = content_tokens(question)
        labelled = [e for e in observation.tree.visible() if _label(e).strip()]
        if not wanted or not labelled:
            return QAAnswer(no_answer=True)
        overlap = {e.index: len(wanted & content_tokens(_label(e))) for e in labelled}
        best = max(overlap.values())
        if best == 0:
            return QAAnswer(no_answer=True)
        anchors = [e for e in labelled if overlap[e.index] == best]
        anchor = min(anchors, key=lambda e: (e.bounds[1], e.bounds[0]))
        ranked = [anchor] if len(content_tokens(_label(anchor)) - wanted) >= 2 else []
        others = [e for e in labelled if overlap[e.index] == 0 and e.text.strip()]
        ranked += sorted(others, key=lambda e: _distance(anchor, e))
        chosen = ranked[: self.max_answers]
        return QAAnswer(
            elements=tuple(e.index for e in chosen), text=_label(chosen[0]) if chosen else None, no_answer=not chosen
        )


def _distance(anchor: UIElement, e: UIElement) -> tuple[int, float]:
    """(tier, distance between centres): module docstring, step 3."""
    al, at, ar, ab = anchor.bounds
    l, t, r, b = e.bounds
    (acx, acy), (cx, cy) = ((al + ar) / 2, (at + ab) / 2), ((l + r) / 2, (t + b) / 2)
    height = max(1, ab - at)
    beside = abs(cy - acy) <= height / 2 and l >= ar - height / 4
    under = t >= at + height / 2 and t - ab <= 3 * height and min(r, ar) > max(l, al)
    value = any(ch.isdigit() for ch in e.text)
    tier = 0 if value and (beside or under) else 1 if beside else 2 if under else 3
    return tier, ((cx - acx) ** 2 + (cy - acy) ** 2) ** 0.5
