"""ScreenQA questions (not episodic): `answers_and_bboxes/*.json` and `short_answers/*.json`, streamed.

- answers_and_bboxes: `{image_id, image_width, image_height, question, ground_truth: [{full_answer,
  ui_elements: [{text, bounds: [left, top, right, bottom] pixels, vh_index}]}]}` -- one ground-truth entry per
  rater; `vh_index = -1` marks a box drawn by hand; a rater entry without elements means "no answer".
- short_answers: `{image_id, question, ground_truth: [str, ...]}` with `"<no answer>"` for unanswerable.

The kind is recognised per record (ground truth of objects vs of strings). Screenshots (RICO, `<image_id>.jpg`)
are not part of ScreenQA; pass `images_dir` to point `image_path` at them.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from harness import coords

from .adapter import DatasetAdapter
from .base import LoadStats, as_paths, iter_json_array
from .errors import DatasetError, FieldError, error

NO_ANSWER = "<no answer>"


@dataclass(frozen=True)
class ScreenQAElement:
    text: str
    bounds: tuple[int, int, int, int]  # l, t, r, b pixels of image_width x image_height
    vh_index: int = -1  # index into the RICO view hierarchy; -1 = drawn by hand

    def bbox(self, size: tuple[int, int]) -> tuple[float, float, float, float]:
        """Normalized [x1, y1, x2, y2] on a `(width, height)` screenshot."""
        return coords.ltrb_to_xyxy_norm(self.bounds, size)


@dataclass(frozen=True)
class ScreenQAAnswer:
    full_answer: str
    elements: tuple[ScreenQAElement, ...] = ()


@dataclass(frozen=True)
class ScreenQAQuestion:
    index: int  # record index in its file
    image_id: str
    question: str
    kind: Literal["answers_and_bboxes", "short_answers"]
    image_width: int | None = None
    image_height: int | None = None
    answers: tuple[ScreenQAAnswer, ...] = ()  # answers_and_bboxes: one per rater
    short_answers: tuple[str, ...] = ()  # short_answers: the accepted strings (may contain NO_ANSWER)
    image_path: str | None = None
    source: str = ""  # the file
    raw: dict[str, Any] = field(default_factory=dict, compare=False, repr=False)

    @property
    def answerable(self) -> bool:
        """False when the ground truth says there is no answer (every rater: no elements / only NO_ANSWER)."""
        if self.kind == "short_answers":
            return any(a != NO_ANSWER for a in self.short_answers)
        return any(a.elements or a.full_answer.strip() for a in self.answers)


def _int(v: Any, name: str) -> int:
    if isinstance(v, bool) or not isinstance(v, int):
        raise FieldError(name, f"expected an integer, got {v!r}")
    return v


def parse_question(rec: Any, index: int, source: str = "", images_dir: Path | None = None) -> ScreenQAQuestion:
    """One record -> ScreenQAQuestion (FieldError naming the field)."""
    if not isinstance(rec, dict):
        raise FieldError("<record>", f"expected an object, got {type(rec).__name__}")
    if "image_id" not in rec:
        raise FieldError("image_id", "missing")
    q = rec.get("question")
    if not isinstance(q, str):
        raise FieldError("question", f"missing or not a string: {q!r}")
    gt = rec.get("ground_truth")
    if not isinstance(gt, list):
        raise FieldError("ground_truth", f"expected a list, got {type(gt).__name__}")
    image_id = str(rec["image_id"])
    image_path = None
    if images_dir is not None:
        cands = [images_dir / f"{image_id}{ext}" for ext in (".jpg", ".png", ".jpeg")]
        image_path = str(next((c for c in cands if c.is_file()), cands[0]))
    if all(isinstance(g, str) for g in gt) and not (gt == [] and "image_width" in rec):
        return ScreenQAQuestion(
            index=index,
            image_id=image_id,
            question=q,
            kind="short_answers",
            short_answers=tuple(gt),
            image_path=image_path,
            source=source,
            raw=rec,
        )
    w = _int(rec.get("image_width"), "image_width")
    h = _int(rec.get("image_height"), "image_height")
    answers = []
    for i, g in enumerate(gt):
        if not isinstance(g, dict):
            raise FieldError(f"ground_truth[{i}]", f"expected an object, got {type(g).__name__}")
        els = []
        for j, e in enumerate(g.get("ui_elements") or []):
            name = f"ground_truth[{i}].ui_elements[{j}]"
            if not isinstance(e, dict):
                raise FieldError(name, "expected an object")
            b = e.get("bounds")
            if (
                not isinstance(b, list)
                or len(b) != 4
                or not all(isinstance(v, int) and not isinstance(v, bool) for v in b)
            ):
                raise FieldError(f"{name}.bounds", f"expected [left, top, right, bottom] pixels, got {b!r}")
            if b[2] < b[0] or b[3] < b[1]:
                raise FieldError(f"{name}.bounds", f"inverted box {b!r}")
            els.append(
                ScreenQAElement(
                    text=str(e.get("text", "")),
                    bounds=(b[0], b[1], b[2], b[3]),
                    vh_index=_int(e.get("vh_index", -1), f"{name}.vh_index"),
                )
            )
        fa = g.get("full_answer", "")
        answers.append(ScreenQAAnswer(full_answer=fa if isinstance(fa, str) else str(fa), elements=tuple(els)))
    return ScreenQAQuestion(
        index=index,
        image_id=image_id,
        question=q,
        kind="answers_and_bboxes",
        image_width=w,
        image_height=h,
        answers=tuple(answers),
        image_path=image_path,
        source=source,
        raw=rec,
    )


def iter_questions(
    path: str | Path | list[str | Path],
    *,
    images_dir: str | Path | None = None,
    skip_bad: bool = False,
    stats: LoadStats | None = None,
) -> Iterator[ScreenQAQuestion]:
    """Stream ScreenQA questions from JSON files (or directories of them), one record in memory at a time."""
    stats = stats if stats is not None else LoadStats()
    imgs = Path(images_dir) if images_dir is not None else None
    for p in as_paths(path, "*.json"):
        stats.files += 1
        try:
            for index, rec in iter_json_array(p):
                try:
                    q = parse_question(rec, index, str(p), imgs)
                except FieldError as exc:
                    fname = None if exc.field == "<record>" else exc.field
                    err = error(p, exc.detail, record=index, field_name=fname)
                    if not skip_bad:
                        raise err from exc
                    stats.bad_records += 1
                    stats.note(err)
                    continue
                stats.records += 1
                yield q
        except DatasetError as exc:
            if not skip_bad:  # (under skip_bad only broken JSON gets here: the rest of the file is lost)
                raise
            stats.bad_files += 1
            stats.note(exc)


# --- the adapter ------------------------------------------------------------------------------------------
ADAPTER = DatasetAdapter(
    name="screenqa",
    title="ScreenQA",
    load=iter_questions,
    metric="screenqa",
    episodic=False,
    images_option="images_dir",
)
