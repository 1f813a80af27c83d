"""Reading predictions files: JSON lines, one per step (the format: `harness.eval.offline`'s docstring).

A line is one of the prediction-file dialects the dataset's adapter and its metric accept:
- `"action"`: a unified action object (or null: no valid output);
- the dataset's native record fields (`DatasetAdapter.action_fields`; GUI Odyssey's native `action` is a string);
- `"pred"`: the model's own output, where the metric reads it (`OfflineMetric.model_output`: AgentCPM-GUI).
The episode key is `DatasetAdapter.prediction_key` (AndroidLens: `"<lang>/<episode_id>"` when the line has `lang`).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from harness.actions import parse_action
from harness.errors import ActionValidationError
from harness.eval.errors import EvalError
from tasks.datasets.adapter import DatasetAdapter

ABSENT = object()  # a line without an "action" key


def iter_jsonl(path: str | Path) -> Iterator[tuple[int, Any]]:
    """(line number, value) of each non-blank line of a JSON-lines file; `EvalError` naming the file (and line)
    when it cannot be read or a line is not JSON."""
    p = Path(path)
    try:
        lines = p.read_text(encoding="utf-8").splitlines()
    except OSError as exc:
        raise EvalError(f"{p}: cannot be read: {exc}") from exc
    for n, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            yield n, json.loads(line)
        except json.JSONDecodeError as exc:
            raise EvalError(f"{p}:{n}: not valid JSON: {exc.msg} (column {exc.colno})") from None


def read_predictions(
    path: str | Path, dataset: DatasetAdapter, model_output: bool = False
) -> dict[tuple[str, int], dict[str, Any]]:
    """`{(episode key, step): {"action": Action | None} | {"raw": native dict | None}}` from a JSONL file.

    `model_output`: a `"pred"` line holds the model's own output (kept as `{"raw": {"pred": ...}}`)."""
    out: dict[tuple[str, int], dict[str, Any]] = {}
    p = Path(path)
    native = dataset.action_fields
    for n, rec in iter_jsonl(p):
        if not isinstance(rec, dict) or "episode_id" not in rec or "step" not in rec:
            raise EvalError(f'{p}:{n}: a prediction needs "episode_id" and "step"')
        step = rec["step"]
        if isinstance(step, bool) or not isinstance(step, int) or step < 0:
            raise EvalError(f'{p}:{n}: "step" must be a 0-based integer, got {step!r}')
        key = dataset.prediction_key(rec["episode_id"], rec.get("lang"))
        act = rec.get("action", ABSENT)
        if isinstance(act, dict):
            try:
                entry: dict[str, Any] = {"action": parse_action(act)}
            except ActionValidationError as exc:
                entry = {"action": None, "error": f"line {n}: {exc}"}
        elif act is None and "pred" not in rec:
            entry = {"action": None}
        elif model_output and "pred" in rec and act is ABSENT:
            entry = {"raw": {"pred": rec["pred"]}}  # the model's own output, read as its evaluator reads it
        elif (isinstance(act, str) and "action" in native) or any(k in rec for k in native if k != "action"):
            entry = {"raw": {k: v for k, v in rec.items() if k not in ("episode_id", "step", "lang")}}
        else:
            raise EvalError(
                f'{p}:{n}: expected "action" (a unified action object, or null) or the dataset\'s '
                f"native fields ({', '.join(native)})"
            )
        if (key, step) in out:
            raise EvalError(f"{p}:{n}: a second prediction for episode {key} step {step}")
        out[(key, step)] = entry
    return out
