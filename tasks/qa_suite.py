"""QA suites: ScreenQA-shaped questions about live app screens (JSON, validated with pydantic).

A question is bound to an app state reached first (the task start-state format, then reference steps with
locators), and carries its ground truth from one or more annotators, each an ordered list of answer elements
(locators, resolved on the live screen at check / run time, so the bounds are right on every display profile)
plus short answers. An annotator with no elements and no short answers says "no answer".

    {"id": "weather-humidity", "question": {"en": "What is the humidity?", "zh": "湿度是多少？"},
     "start": {"reset_apps": ["com.droidharness.weather"], "open_app": "com.droidharness.weather"},
     "answers": [{"elements": [{"resource_id": "humidity"}], "short": ["48%"]}],
     "tags": ["single"]}

A suite is a folder of JSON files, each holding one question or a list of them (`load_qa_suite`).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from tasks.schema import AnnotatorAnswer, ReferenceStep, ScreenQuestion, StartState, TaskError, explain_validation

__all__ = ["AnnotatorAnswer", "QAQuestion", "load_qa_suite"]
BUNDLED_QA = Path(__file__).parent / "qa_suites"


class QAQuestion(ScreenQuestion):
    """A screen question bound to an app state: the start state, then reference steps to the screen."""

    start: StartState = StartState()
    steps: tuple[ReferenceStep, ...] = ()  # from the start state to the screen the question is about
    tags: tuple[str, ...] = ()  # single | multi | scroll | unanswerable | ...


def load_qa_suite(name_or_dir: str | Path) -> list[QAQuestion]:
    """A bundled QA suite by name (`virtual`) or a folder of JSON files; errors name the file and the field."""
    d = Path(name_or_dir)
    if not d.is_dir():
        d = BUNDLED_QA / str(name_or_dir)
    if not d.is_dir():
        bundled = sorted(p.name for p in BUNDLED_QA.iterdir() if p.is_dir())
        raise TaskError(
            f"no QA suite {str(name_or_dir)!r}: not a folder, and not a bundled suite ({', '.join(bundled)})"
        )
    out: list[QAQuestion] = []
    for f in sorted(d.glob("*.json")):
        try:
            data: Any = json.loads(f.read_text(encoding="utf-8"))
        except json.JSONDecodeError as e:
            raise TaskError(f"{f}: not valid JSON (line {e.lineno}, column {e.colno}: {e.msg})") from None
        for i, item in enumerate(data if isinstance(data, list) else [data]):
            try:
                out.append(QAQuestion.model_validate(item))
            except ValidationError as e:
                raise TaskError(f"{f}: question {i}: invalid: {explain_validation(e)}") from None
    if not out:
        raise TaskError(f"{d}: no questions (*.json)")
    ids = [q.id for q in out]
    dup = sorted({i for i in ids if ids.count(i) > 1})
    if dup:
        raise TaskError(f"{d}: question ids must be unique; repeated: {dup}")
    return out
