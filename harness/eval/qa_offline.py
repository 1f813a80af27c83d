"""Offline ScreenQA evaluation of a QA agent (or of a predictions file) on the ScreenQA dataset files.

Per question (`tasks.datasets.screenqa`): the `Observation` is built from the screenshot `<image_id>.jpg/.png/.jpeg`
in the images folder (resized to the record's `image_width` x `image_height` when it says so, so the agent sees
the frame the ground-truth bounds are in) and, when there is one beside it, the hierarchy `<image_id>.xml` (a
uiautomator dump, what `droidharness qa collect` writes); without one the tree is empty and the agent has the
screenshot alone. The agent's answer becomes predicted `(bounds, text)` items through `harness.qa_agent.predicted_items`
and is scored with the ScreenQA metrics, as `droidharness qa run` scores live screens:

- answers_and_bboxes records: SQA-UIC (EM, F1), SQA-UIC-BB (BBox-F1@IoU, EM@IoU, F1@IoU), the paper's avg nDCG_v
  and avg F1; the raters' `ui_elements` are the ground truth (a rater without elements: "no answer");
- short_answers records: SQA-S (EM, F1) against the accepted strings.

The summary is the mean of every figure over the questions that have it (the score keys of `harness.scoring.questions`),
plus the counts. A question whose screenshot is missing (or whose hierarchy file is broken) is an `EvalError`
naming the file, record and image_id; with `skip_bad` it is skipped and counted (`skipped`), as the loader
counts corrupt records.

Predictions made elsewhere (`predictions=FILE`) are JSON lines, one per question, matched on image_id and
question:

    {"image_id": "5", "question": "How many exercises?", "answer": "12",
     "ui_elements": [{"text": "12 exercises", "bounds": [40, 300, 520, 360]}]}
    {"image_id": "5", "question": "What is the mode?", "answer": null}                 # no answer

A question without a line is counted as `missing` and left out of the figures.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from harness.errors import HarnessError
from harness.eval.errors import EvalError
from harness.eval.predictions import iter_jsonl
from harness.hierarchy import UITree
from harness.metrics.screenqa import NO_ANSWER, question_ndcg_f1, sqa_s, sqa_uic, sqa_uic_bb
from harness.observation import Observation
from harness.qa_agent import QAAgent, QAAnswer, predicted_items
from harness.run.loop.calls import AGENT_TIMEOUT
from harness.run.loop.questions import call_agent
from harness.run.orchestration.qa_run import record_answer
from harness.scoring.questions import METRICS, GroundTruth, QAResult
from harness.scoring.questions import summarize_questions as run_summarize
from harness.trajectory.writer import RunWriter
from tasks.datasets.base import LoadStats
from tasks.datasets.screenqa import ADAPTER as SCREENQA
from tasks.datasets.screenqa import ScreenQAQuestion, iter_questions

Box = tuple[int, int, int, int]
Item = tuple[Box, str]
UIC_KEYS = ("sqa_uic_em", "sqa_uic_f1", "sqa_uic_bb_bbox_f1", "sqa_uic_bb_em", "sqa_uic_bb_f1", "ndcg_v", "f1")
S_KEYS = ("sqa_s_em", "sqa_s_f1")
IMAGE_EXTS = (".jpg", ".png", ".jpeg")
EMPTY_XML = '<?xml version="1.0" encoding="UTF-8"?><hierarchy rotation="0"></hierarchy>'


@dataclass(frozen=True)
class QAEvalOptions:
    data: str | Path | list[str | Path]  # ScreenQA JSON files or folders of them
    images_dir: str | Path | None = None  # screenshots (and hierarchies) named by image_id
    lang: str = "en"
    skip_bad: bool = False
    max_questions: int | None = None
    timeout: float = AGENT_TIMEOUT  # seconds the QA agent may take per question (then "no answer", the error kept)


@dataclass(frozen=True)
class Prediction:
    text: str  # the short answer ("<no answer>")
    items: list[Item]
    unknown: int = 0
    error: str | None = None


# --- observations --------------------------------------------------------------------------------------------
def screenshot_path(q: ScreenQAQuestion, images_dir: Path) -> Path:
    """The question's screenshot in `images_dir`; EvalError naming the file, record and image_id when absent."""
    for ext in IMAGE_EXTS:
        p = images_dir / f"{q.image_id}{ext}"
        if p.is_file():
            return p
    raise EvalError(
        f"{q.source}: record {q.index}: no screenshot for image_id {q.image_id} in {images_dir} "
        f"(looked for {', '.join(q.image_id + e for e in IMAGE_EXTS)})"
    )


def observation_for(q: ScreenQAQuestion, images_dir: Path) -> Observation:
    """The screen of one question: its screenshot (in the record's frame) and the hierarchy beside it, if any."""
    from PIL import Image, UnidentifiedImageError

    path = screenshot_path(q, images_dir)
    try:
        with Image.open(path) as im:
            img = im.convert("RGB")
    except (OSError, UnidentifiedImageError) as exc:
        raise EvalError(f"{path}: record {q.index} (image_id {q.image_id}): not a readable image: {exc}") from None
    if q.image_width and q.image_height and img.size != (q.image_width, q.image_height):
        img = img.resize((q.image_width, q.image_height))
    xml_path = path.with_suffix(".xml")
    xml = xml_path.read_text(encoding="utf-8") if xml_path.is_file() else EMPTY_XML
    tree = UITree.from_xml(xml, str(xml_path) if xml_path.is_file() else f"{path} (no hierarchy)")
    return Observation(
        screenshot=img,
        tree=tree,
        xml=xml,
        package="",
        activity="",
        size=img.size,
        rotation=0,
        paths={"screenshot": "dataset", "hierarchy": "dataset" if xml_path.is_file() else "none"},
    )


# --- ground truth and scores -----------------------------------------------------------------------------------
def ground_truth(q: ScreenQAQuestion) -> GroundTruth:
    """The raters' answer elements (answers_and_bboxes) or accepted strings (short_answers)."""
    if q.kind == "short_answers":
        return GroundTruth([], list(q.short_answers))
    elements = [[(e.bounds, e.text) for e in a.elements] for a in q.answers]
    short = [a.full_answer or ", ".join(e.text for e in a.elements) or NO_ANSWER for a in q.answers]
    return GroundTruth(elements, short)


def score(q: ScreenQAQuestion, pred: Prediction, gt: GroundTruth) -> dict[str, float]:
    """The figures of this question's kind (module docstring)."""
    if q.kind == "short_answers":
        em, f1 = sqa_s(pred.text, gt.short)
        return {"sqa_s_em": float(em), "sqa_s_f1": f1}
    texts = [t for _, t in pred.items]
    golds = [[t for _, t in g] for g in gt.elements]
    em_u, f1_u = sqa_uic(texts, golds)
    bbox_f1, em_bb, f1_iou = sqa_uic_bb(
        [(list(b), t) for b, t in pred.items], [[(list(b), t) for b, t in g] for g in gt.elements]
    )
    ndcg, f1 = question_ndcg_f1(texts, golds)
    return dict(zip(UIC_KEYS, (float(em_u), f1_u, bbox_f1, float(em_bb), f1_iou, ndcg, f1), strict=True))


@dataclass(frozen=True)
class Asked:
    """What a QA agent did with one question: its answer, whether it failed (raised or ran out of time: scored
    as "no answer" with the error kept, as live runs score it) and how long it took."""

    answer: QAAnswer
    failed: bool
    seconds: float


def ask(
    agent: QAAgent, q: ScreenQAQuestion, obs: Observation, lang: str, timeout: float = AGENT_TIMEOUT
) -> tuple[Prediction, Asked]:
    ans, failed, seconds = call_agent(agent, obs, q.question, lang, timeout)
    items, unknown = predicted_items(ans, obs)
    text = NO_ANSWER if ans.no_answer or not (ans.text or items) else (ans.text or items[0][1])
    return Prediction(text, items, unknown, ans.error), Asked(ans, failed, seconds)


# --- predictions files ------------------------------------------------------------------------------------------
def read_predictions(path: str | Path) -> dict[tuple[str, str], Prediction]:
    """`{(image_id, question): Prediction}` from a JSONL file (module docstring); EvalError naming the line."""
    p = Path(path)
    out: dict[tuple[str, str], Prediction] = {}
    for n, rec in iter_jsonl(p):
        if not isinstance(rec, dict) or "image_id" not in rec or not isinstance(rec.get("question"), str):
            raise EvalError(f'{p}:{n}: a prediction needs "image_id" and "question"')
        answer = rec.get("answer")
        if answer is not None and not isinstance(answer, str):
            raise EvalError(f'{p}:{n}: "answer" must be a string or null, got {answer!r:.40}')
        items: list[Item] = []
        for j, e in enumerate(rec.get("ui_elements") or []):
            b = e.get("bounds") if isinstance(e, dict) else None
            if not (
                isinstance(b, list) and len(b) == 4 and all(isinstance(v, int) and not isinstance(v, bool) for v in b)
            ):
                raise EvalError(f'{p}:{n}: "ui_elements[{j}].bounds" must be [left, top, right, bottom] pixels')
            items.append(((b[0], b[1], b[2], b[3]), str(e.get("text", ""))))
        no_answer = answer is None or answer == NO_ANSWER
        text = NO_ANSWER if no_answer and not items else (answer or items[0][1])
        key = (str(rec["image_id"]), rec["question"])
        if key in out:
            raise EvalError(f"{p}:{n}: a second prediction for image_id {key[0]} question {key[1]!r:.60}")
        out[key] = Prediction(text, items)
    return out


# --- the evaluation ----------------------------------------------------------------------------------------------
def _questions(opts: QAEvalOptions, stats: LoadStats) -> Iterator[ScreenQAQuestion]:
    data = opts.data if isinstance(opts.data, list) else [opts.data]
    for n, q in enumerate(iter_questions(data, images_dir=opts.images_dir, skip_bad=opts.skip_bad, stats=stats)):
        if opts.max_questions is not None and n >= opts.max_questions:
            return
        yield q


def evaluate_qa(
    opts: QAEvalOptions,
    agent: QAAgent | None = None,
    predictions: str | Path | None = None,
    progress: Callable[[str], None] | None = None,
    writer: RunWriter | None = None,
) -> dict[str, Any]:
    """Ask `agent` every question (or score `predictions`); returns the JSON-ready report. With a `writer`,
    every question is also recorded as a QA run's episode (the screen, when there is one, and the scored
    answer), so `writer.finish()` gives the same summary.json and report as `droidharness qa run`."""
    if (agent is None) == (predictions is None):
        raise EvalError("give exactly one of a QA agent or a predictions file")
    if agent is not None and opts.images_dir is None:
        raise EvalError("a QA agent needs the screenshots: give --images-dir")
    preds = read_predictions(predictions) if predictions is not None else None
    images = Path(opts.images_dir) if opts.images_dir is not None else None
    stats = LoadStats()
    results: list[QAResult] = []
    seen: set[str] = set()
    counts = {"questions": 0, "skipped": 0, "missing": 0, "unknown_elements": 0, "errors": 0}
    for q in _questions(opts, stats):
        counts["questions"] += 1
        gt = ground_truth(q)
        if preds is not None:
            found = preds.get((q.image_id, q.question))
            if found is None:
                counts["missing"] += 1
                continue
            pred = found
            asked = Asked(QAAnswer(text=pred.text, no_answer=pred.text == NO_ANSWER), False, 0.0)
            obs = None
            if images is not None:
                try:
                    obs = observation_for(q, images)
                except HarnessError:
                    obs = None  # the predictions are scored without their screen
        else:
            assert agent is not None and images is not None
            try:
                obs = observation_for(q, images)
            except HarnessError as exc:
                if not opts.skip_bad:
                    raise EvalError(str(exc)) from None
                counts["skipped"] += 1
                stats.note(exc)
                continue
            pred, asked = ask(agent, q, obs, opts.lang, opts.timeout)
        counts["unknown_elements"] += pred.unknown
        counts["errors"] += pred.error is not None
        qid = f"{q.image_id}#{q.index}"  # image and record; another file's record of the same numbers: named by file
        if qid in seen:
            qid = f"{Path(q.source).parent.name}/{Path(q.source).name}:{qid}"
        seen.add(qid)
        result = QAResult(
            question_id=qid,
            lang=opts.lang,
            question=q.question,
            answer_text=pred.text,
            answer_elements=pred.items,
            ground_truth=gt,
            scores=score(q, pred, gt),
            unknown_elements=pred.unknown,
            error=pred.error,
            app=q.kind,
            no_answer=pred.text == NO_ANSWER,
            raw_output=asked.answer.raw_output or None,
            usage=asked.answer.usage,
            agent_error=asked.failed,
        )
        results.append(result)
        if writer is not None:
            ep = writer.episode(result.question_id, opts.lang, category=q.kind, instruction=q.question)
            record_answer(ep, result, obs, asked.answer, asked.failed, asked.seconds)
        if progress is not None:
            progress(f"{counts['questions']} questions")
    if counts["questions"] == 0:
        raise EvalError(f"{opts.data}: no ScreenQA questions to evaluate")
    return {
        "dataset": SCREENQA.name,
        "data": [str(d) for d in (opts.data if isinstance(opts.data, list) else [opts.data])],
        "source": "agent" if agent is not None else str(predictions),
        "agent": getattr(agent, "name", None),
        **counts,
        "bad_records": stats.bad_records,
        "summary": summarize(results),
        "results": [r.to_json() for r in results],
    }


def summarize(results: list[QAResult]) -> dict[str, float | int]:
    """Mean of every figure over the questions that have it; `scored_uic` / `scored_s` count those questions."""
    figures = run_summarize(results)
    out: dict[str, float | int] = {k: figures[k] for k in S_KEYS + UIC_KEYS if k in figures}
    out["scored"] = len(results)
    out["scored_uic"] = sum(1 for r in results if "sqa_uic_f1" in r.scores)
    out["scored_s"] = sum(1 for r in results if "sqa_s_f1" in r.scores)
    return out


def render(report: dict[str, Any], console: Any) -> None:
    """The summary as a Rich table (figures in %)."""
    from rich.table import Table

    s = report["summary"]
    console.print(
        f"screenqa: {report['questions']} questions, {s['scored']} scored; skipped {report['skipped']} (no "
        f"screenshot), missing {report['missing']} (no prediction), unknown elements {report['unknown_elements']}, "
        f"unusable answers {report['errors']}",
        highlight=False,
    )
    t = Table("metric", "questions", "score (%)", title=f"ScreenQA ({report['agent'] or report['source']})")
    for k, name in METRICS.items():  # the labels every QA surface uses
        if k in s:
            n = s["scored_s"] if k in S_KEYS else s["scored_uic"]
            t.add_row(name, str(n), f"{100 * s[k]:.2f}")
    console.print(t)
