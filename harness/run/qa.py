"""Screen question answering on live devices: reach each question's app state, resolve its ground truth on the
live screen, ask a QA agent and score the answer with the ScreenQA metrics (harness.eval.metrics.screenqa).

Per question: SQA-S (short answer: EM, F1), SQA-UIC (the answer elements' texts as an ordered list: EM, F1),
SQA-UIC-BB (bounds + content: F1@IoU), and the paper's nDCG_v and F1 with answer matching. An agent's element
index that is not on the screen is dropped and counted (`unknown_elements`); "no answer" is a valid answer.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from statistics import mean

from agents.qa import QAAgent, predicted_items
from harness.device.controller import Device
from harness.eval.metrics.screenqa import NO_ANSWER, question_ndcg_f1, sqa_s, sqa_uic, sqa_uic_bb
from harness.observation import Observation
from harness.run.episode import prepare_start
from harness.run.locate import locate, resolve_step
from tasks.qa import QAQuestion
from tasks.schema import localized

Box = tuple[int, int, int, int]


@dataclass(frozen=True)
class GroundTruth:
    elements: list[list[tuple[Box, str]]]  # per annotator: (bounds, text) in order; [] = no answer
    short: list[str]  # every annotator's short answers (default: the answer elements' texts, joined by ", ";
    # "<no answer>" for a no-answer annotator)


@dataclass
class QAResult:
    question_id: str
    lang: str
    question: str
    answer_text: str  # the short answer ("<no answer>")
    answer_elements: list[tuple[Box, str]]
    ground_truth: GroundTruth
    scores: dict[str, float] = field(default_factory=dict)
    unknown_elements: int = 0
    error: str | None = None

    def to_json(self) -> dict[str, object]:
        return asdict(self)


def reach(question: QAQuestion, device: Device, lang: str) -> Observation:
    """Put the device in the question's state: start state, then the reference steps (locators resolved live)."""
    prepare_start(device, question.start)
    obs = device.observe()
    for n, step in enumerate(question.steps, 1):
        _, obs = device.step(resolve_step(step, obs, lang, n), obs)
    return obs


def ground_truth(question: QAQuestion, obs: Observation, lang: str) -> GroundTruth:
    """Resolve every annotator's answer elements on this screen (a locator that finds nothing raises
    `ActionValidationError`: the question's state or locators are wrong; `qa check` reports it)."""
    elements, short = [], []
    for ann in question.answers:
        els = [obs.tree[locate(loc, obs, lang)] for loc in ann.elements]
        elements.append([(e.bounds, e.text or e.content_desc) for e in els])
        values = [localized(s, lang) or "" for s in ann.short]
        if not values and els:  # the short answer the screen gives: the elements' texts, in order
            values = [", ".join(e.text or e.content_desc for e in els)]
        short += values or [NO_ANSWER]
    return GroundTruth(elements, short)


def score_answer(pred_text: str, pred: list[tuple[Box, str]], gt: GroundTruth) -> dict[str, float]:
    em_s, f1_s = sqa_s(pred_text, gt.short)
    em_u, f1_u = sqa_uic([t for _, t in pred], [[t for _, t in g] for g in gt.elements])
    bbox_f1, em_bb, f1_iou = sqa_uic_bb(
        [(list(b), t) for b, t in pred], [[(list(b), t) for b, t in g] for g in gt.elements]
    )
    ndcg, f1 = question_ndcg_f1([t for _, t in pred], [[t for _, t in g] for g in gt.elements])
    return {
        "sqa_s_em": float(em_s),
        "sqa_s_f1": f1_s,
        "sqa_uic_em": float(em_u),
        "sqa_uic_f1": f1_u,
        "sqa_uic_bb_bbox_f1": bbox_f1,
        "sqa_uic_bb_em": float(em_bb),
        "sqa_uic_bb_f1": f1_iou,
        "ndcg_v": ndcg,
        "f1": f1,
    }


def ask(question: QAQuestion, agent: QAAgent, device: Device, lang: str) -> QAResult:
    obs = reach(question, device, lang)
    gt = ground_truth(question, obs, lang)
    text = question.question[lang]
    ans = agent.answer(obs, text, lang)
    pred, unknown = predicted_items(ans, obs)
    pred_text = NO_ANSWER if ans.no_answer or not (ans.text or pred) else (ans.text or pred[0][1])
    return QAResult(
        question.id,
        lang,
        text,
        pred_text,
        pred,
        gt,
        score_answer(pred_text, pred, gt),
        unknown_elements=unknown,
        error=ans.error,
    )


def summarize(results: list[QAResult]) -> dict[str, float]:
    """Mean of every score over the questions (fractions), and the counts."""
    keys = sorted({k for r in results for k in r.scores})
    out: dict[str, float] = {k: mean(r.scores[k] for r in results) for k in keys} if results else {}
    out["questions"] = len(results)
    out["unknown_elements"] = sum(r.unknown_elements for r in results)
    return out
