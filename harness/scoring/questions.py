"""Screen question answering on live devices: reach each question's app state, resolve its ground truth on the
live screen, ask a QA agent and score the answer with the ScreenQA metrics (harness.metrics.screenqa); and
the QA summary of a run (overall, by app, by language) from what is on disk.

Per question: SQA-S (short answer: EM, F1), SQA-UIC (the answer elements' texts as an ordered list: EM, F1),
SQA-UIC-BB (bounds + content: F1@IoU), and the paper's nDCG_v and F1 with answer matching. An agent's element
index that is not on the screen is dropped and counted (`unknown_elements`); "no answer" is a valid answer.

Failures (docs/scoring.md): what the QA agent causes is the agent's and is scored -- unusable output (the agent
reports it as `QAAnswer.error`), unknown element indices, any exception raised inside `answer` (scored as "no
answer", status `agent_error`, the error kept). An `InfrastructureError` (device, adb server, model endpoint)
propagates: the runner (harness/run/orchestration/qa_run.py) retries the question on a fresh device, then lists it
unscored.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from statistics import mean

from harness.agent import Usage
from harness.metrics.screenqa import NO_ANSWER, question_ndcg_f1, sqa_s, sqa_uic, sqa_uic_bb
from harness.observation import Observation
from harness.qa_agent import QAAnswer, answer_elements, predicted_items
from harness.scoring.episodes import EXIT_INFRA, EXIT_NOTHING_SCORED, EXIT_OK
from harness.trajectory.records import QAGroundTruth, QAItem, QARecord
from harness.trajectory.result import AGENT_ERROR, FAILED, SUCCESS
from tasks.locate import locate
from tasks.qa_suite import QAQuestion
from tasks.schema import ScreenQuestion
from tasks.schema_base import localized

Box = tuple[int, int, int, int]

# every per-question score, in the order the tables show them, with the names the ScreenQA papers use
METRICS: dict[str, str] = {
    "sqa_s_em": "SQA-S EM",
    "sqa_s_f1": "SQA-S F1",
    "sqa_uic_em": "SQA-UIC EM",
    "sqa_uic_f1": "SQA-UIC F1",
    "sqa_uic_bb_bbox_f1": "SQA-UIC-BB BBox-F1@IoU",
    "sqa_uic_bb_em": "SQA-UIC-BB EM@IoU",
    "sqa_uic_bb_f1": "SQA-UIC-BB F1@IoU",
    "ndcg_v": "avg nDCG_v",
    "f1": "avg F1",
}


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
    app: str | None = None  # the package the question is about
    tags: list[str] = field(default_factory=list)
    element_indices: list[int] = field(default_factory=list)  # of the leading answer items given by index
    no_answer: bool = False
    raw_output: str | None = None
    usage: Usage = Usage()
    agent_error: bool = False  # the agent raised: scored as "no answer"

    def to_json(self) -> dict[str, object]:
        return asdict(self)

    @property
    def status(self) -> str:
        """`agent_error` when the agent raised; `success` when the answer elements are exactly one annotator's,
        in order (SQA-UIC EM; "no answer" to an unanswerable question counts), else `failed`."""
        if self.agent_error:
            return AGENT_ERROR
        key = "sqa_uic_em" if "sqa_uic_em" in self.scores else "sqa_s_em"  # offline short-answer files: SQA-S only
        return SUCCESS if self.scores.get(key) == 1.0 else FAILED

    def to_record(self) -> QARecord:
        """The `qa` record of the question's episode.json."""
        n = len(self.answer_elements)  # the items given by index come first; regions (boxes, points) have none
        indices: list[int | None] = [*self.element_indices[:n], *[None] * (n - len(self.element_indices[:n]))]
        return QARecord(
            question=self.question,
            app=self.app,
            tags=list(self.tags),
            answer=self.answer_text,
            no_answer=self.no_answer,
            predicted=[
                QAItem(bounds=b, text=t, index=i) for (b, t), i in zip(self.answer_elements, indices, strict=True)
            ],
            ground_truth=QAGroundTruth(
                elements=[[QAItem(bounds=b, text=t) for b, t in g] for g in self.ground_truth.elements],
                short=list(self.ground_truth.short),
            ),
            scores=dict(self.scores),
            unknown_elements=self.unknown_elements,
            raw_output=self.raw_output,
            error=self.error,
            usage=self.usage,
        )

    @classmethod
    def from_record(cls, question_id: str, lang: str, rec: QARecord, status: str) -> QAResult:
        """Read back what `to_record` wrote (the summary and the report work from disk)."""
        return cls(
            question_id,
            lang,
            rec.question,
            rec.answer,
            [(p.bounds, p.text) for p in rec.predicted],
            GroundTruth([[(x.bounds, x.text) for x in g] for g in rec.ground_truth.elements], rec.ground_truth.short),
            dict(rec.scores),
            rec.unknown_elements,
            rec.error,
            app=rec.app,
            tags=list(rec.tags),
            element_indices=[p.index for p in rec.predicted if p.index is not None],
            no_answer=rec.no_answer,
            raw_output=rec.raw_output,
            usage=rec.usage,
            agent_error=status == AGENT_ERROR,
        )


def question_app(question: ScreenQuestion) -> str | None:
    """The app a question is about: the package its start state opens (None: the home screen, or a probe)."""
    return question.start.open_app if isinstance(question, QAQuestion) else None


def ground_truth(question: ScreenQuestion, obs: Observation, lang: str) -> GroundTruth:
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


def score_question(
    question: ScreenQuestion, lang: str, obs: Observation, gt: GroundTruth, ans: QAAnswer, raised: bool
) -> QAResult:
    """Score an answer given on `obs` against the ground truth resolved on the same screen."""
    els = answer_elements(ans, obs)
    pred, unknown = predicted_items(ans, obs)  # element indices, boxes and points -> scored (bounds, text) items
    pred_text = NO_ANSWER if ans.no_answer or not (ans.text or pred) else (ans.text or pred[0][1])
    return QAResult(
        question.id,
        lang,
        question.question[lang],
        pred_text,
        pred,
        gt,
        score_answer(pred_text, pred, gt),
        unknown_elements=unknown,
        error=ans.error,
        app=question_app(question),
        tags=list(question.tags) if isinstance(question, QAQuestion) else [],
        element_indices=[] if ans.no_answer else [e.index for e in els],
        no_answer=pred_text == NO_ANSWER,
        raw_output=ans.raw_output or None,
        usage=ans.usage,
        agent_error=raised,
    )


def summarize_questions(results: list[QAResult]) -> dict[str, float]:
    """Mean of every score over the questions that have it (fractions: live questions have every metric; an
    offline short-answers file only SQA-S, an answers_and_bboxes file all but SQA-S), and the counts."""
    keys = sorted({k for r in results for k in r.scores})
    out: dict[str, float] = {k: mean(r.scores[k] for r in results if k in r.scores) for k in keys}
    out["questions"] = len(results)
    out["unknown_elements"] = sum(r.unknown_elements for r in results)
    out["agent_errors"] = sum(r.agent_error for r in results)
    out["tokens"] = sum(r.usage.total_tokens for r in results)
    return out


def headline(results: list[QAResult], infra_errors: int = 0, unfinished: int = 0) -> str:
    """The one sentence every surface of a QA run prints (live view, final line, summary.json, report)."""
    problems = []
    if infra_errors:
        problems.append(f"{infra_errors} infrastructure failure{'s' if infra_errors != 1 else ''}")
    if unfinished:
        problems.append(f"{unfinished} unfinished")
    tail = f"; {', '.join(problems)} (listed, not scored)" if problems else ""
    if not results:
        return f"no question could be scored (of {infra_errors + unfinished}){tail}"
    s = summarize_questions(results)
    errors = int(s["agent_errors"])
    agent = f", {errors} agent error{'s' if errors != 1 else ''}" if errors else ""
    n = len(results)
    shown = (("SQA-S F1", "sqa_s_f1"), ("SQA-UIC F1", "sqa_uic_f1"), ("F1@IoU", "sqa_uic_bb_f1"),
             ("nDCG_v", "ndcg_v"), ("avg F1", "f1"))  # fmt: skip
    figures = "  ".join(f"{label} {s[k]:.1%}" for label, k in shown if k in s)
    return f"{figures}  over {n} scored question{'s' if n != 1 else ''}{agent}{tail}"


def exit_code(scored: int, unscored: int) -> int:
    """As for agent runs (docs/scoring.md): 0 all scored, 3 some not (listed), 4 none scored."""
    if scored == 0:
        return EXIT_NOTHING_SCORED
    return EXIT_INFRA if unscored else EXIT_OK
