"""Offline (static, teacher-forced) evaluation of an agent on a recorded dataset, scored by the dataset's
official metric (`harness.metrics`).

Protocol, the standard one of these datasets: at every recorded step the agent sees the recorded screenshot,
the step's annotated elements as a `UITree` (AitW OCR / icon boxes, AITZ `ui_positions`; none for GUI Odyssey
and AndroidLens) and the GOLD history (the recorded actions of the earlier steps, as `HistoryItem`s whose
`agent_step.action` is the gold action and `result` None). Its predicted unified action is converted to the
dataset's own record format by its adapter (`DatasetAdapter.from_unified`; element-index targets resolve to the
element's centre; ANSWER counts as the dataset's terminate action; an action the dataset cannot express, e.g.
OPEN_APP in AitW, or an invalid output scores as no match) and compared with the recorded step:

| dataset      | metric (names as the papers use them)                                                        |
|--------------|----------------------------------------------------------------------------------------------|
| aitw         | action matching accuracy per episode, mean per subset, `overall` = mean of the subset means  |
| odyssey      | AMS and SR, `pooled` and `per_category_mean` (both reported, named; `official_aggregate`   |
|              | says which one the official code uses for the split: per-category for the random split),   |
|              | action-type and text accuracy, the official printout; click rule of the latest release     |
|              | (box OR distance) or the earlier one (`metric_rule="distance_only"`), the other reported too |
| androidlens  | the AgentCPM-GUI static evaluator: TM, EM (steps), SR, GP goal progress (episodes), TM / EM  |
|              | per action type, hit rate, avg text / point distance; `metric_rule="android_control"`       |
| aitz         | the same AgentCPM-GUI evaluator, EM using the step's `ui_positions` boxes                    |

Predictions made elsewhere (`evaluate(..., predictions=FILE)`) are JSON lines, one per step, `step` 0-based:

    {"episode_id": "123", "step": 0, "action": {"type": "CLICK", "point": [0.5, 0.2]}}    # unified action
    {"episode_id": "123", "step": 1, "results/action_type": 4, "results/yx_touch": [0.2, 0.5],
     "results/yx_lift": [0.2, 0.5]}                                                       # AitW native fields
    {"episode_id": "e1", "step": 0, "action": "CLICK", "info": [[500, 200]]}               # Odyssey native
    {"episode_id": "e1", "step": 0, "result_action_type": 4, "result_touch_yx": "[0.2, 0.5]",
     "result_lift_yx": "[0.2, 0.5]", "result_action_text": ""}                             # AndroidLens / AITZ
    {"episode_id": "e1", "step": 1, "pred": {"POINT": [500, 200], "duration": 1000}}       # AgentCPM-GUI output
    {"episode_id": "e1", "step": 2, "action": null}                                        # no valid output

A unified `action` is an object; Odyssey's native `action` is a string; `pred` (aitz / androidlens) is the
AgentCPM-GUI model's own JSON, read as its evaluator reads it. A step with no line is counted as `missing`; for
AitW it scores as no match, for GUI Odyssey and the AgentCPM-GUI evaluator it is left out as the official scripts
leave it out (Odyssey: out of AMS, and its episode out of SR; AgentCPM: out of every figure). A `"lang"` field
disambiguates AndroidLens episodes present in both languages.

The agent is called under the deadline and failure rules of a live run (`harness.run.loop.calls.call_with_timeout`,
`EvalOptions.timeout`, 180 s by default): an agent that raises in `reset` or `act`, gives no answer within the
deadline, or answers with something that is not a valid action fails that step -- scored as an invalid
prediction (a wrong step for every metric) and counted in `invalid` and, for an exception or a timeout, in
`agent_errors` / `agent_timeouts` with the first messages in `agent_failures` (a failed `reset` fails every step of
its episode) -- and the evaluation goes on with the next step. Only an `InfrastructureError` (e.g. the model
endpoint unusable after its retries) stops it, as it stops a live run. A call abandoned at its deadline keeps
running in its daemon thread.

AndroidLens' milestone figures (ATP / SR from milestones) need live screens: use `droidharness run` on a device
for those; the offline figures here are step-level.

Modules: `steps` (what the agent sees, its answer as a record), `collect*` (one collector per metric family),
`metric_kinds` (family -> collector, rules, renderer), `predictions` (reading the files), `render` (the tables);
this module is the loop. Datasets are told apart only through their adapters (`tasks.datasets.registry`).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import Any

import numpy as np

from harness.actions import Action
from harness.agent import AgentStep, EpisodeContext, HistoryItem
from harness.errors import InfrastructureError
from harness.eval.collect import Collector
from harness.eval.errors import EvalError
from harness.eval.metric_kinds import DATASETS, offline_dataset
from harness.eval.predictions import read_predictions
from harness.eval.render import render_header
from harness.eval.steps import native_prediction, observation_for, predicted_action, task_for
from harness.run.loop.calls import AGENT_TIMEOUT, AgentTimeout, call_with_timeout
from tasks.datasets.adapter import DatasetAdapter, LoadRequest

MAX_FAILURE_NOTES = 20  # agent failures quoted in the report

__all__ = ["AGENT_TIMEOUT", "DATASETS", "EvalError", "EvalOptions", "evaluate", "iter_dataset", "render"]


@dataclass
class EvalOptions:
    dataset: str  # a registry name or alias (`tasks.datasets.registry`) of an episodic dataset
    data: str | Path
    split: str | Path | None = None
    split_label: str | None = None
    images: str | Path | None = None  # odyssey screenshots dir / aitz images root
    langs: tuple[str, ...] = ("en", "zh")  # androidlens
    max_episodes: int | None = None
    skip_bad: bool = False
    seed: int = 0
    loader_options: dict[str, Any] = field(default_factory=dict)
    # odyssey: "box_or_distance" (latest release, default) | "distance_only" (earlier release);
    # aitz / androidlens: "default" | "android_control" (the AgentCPM-GUI evaluator's AndroidControl mode)
    metric_rule: str | None = None
    timeout: float = AGENT_TIMEOUT  # seconds the agent may take per call before the step counts as its failure


def iter_dataset(opts: EvalOptions, need_images: bool) -> Iterator[Any]:
    """The dataset's episodes (its adapter's loader) with the split / image / language options applied."""
    ds, _ = offline_dataset(opts.dataset)
    if opts.split is not None and not ds.supports_split:
        raise EvalError(f"--split is not supported for {ds.name} (select episodes by folder)")
    request = LoadRequest(
        split=str(opts.split) if opts.split is not None else None,
        split_label=opts.split_label,
        images=str(opts.images) if opts.images is not None else None,
        langs=tuple(opts.langs),
        need_images=need_images,
        skip_bad=opts.skip_bad,
    )
    it = ds.open(str(opts.data), **ds.load_kwargs(request, opts.loader_options))
    for n, ep in enumerate(it):
        if opts.max_episodes is not None and n >= opts.max_episodes:
            break
        yield ep


class _Counts:
    """The report's step counts, and the agent's failures (the first `MAX_FAILURE_NOTES` quoted)."""

    def __init__(self) -> None:
        self.n = {"episodes": 0, "steps": 0, "invalid": 0, "unexpressible": 0, "missing": 0}
        self.agent = {"agent_errors": 0, "agent_timeouts": 0}
        self.notes: list[str] = []

    def failed(self, exc: BaseException, where: str, steps: int = 1) -> None:
        """`steps` steps lost to the agent's exception or timeout `exc` (they score as invalid)."""
        self.agent["agent_timeouts" if isinstance(exc, AgentTimeout) else "agent_errors"] += steps
        if len(self.notes) < MAX_FAILURE_NOTES:
            self.notes.append(f"{where}: {type(exc).__name__}: {exc}")

    def report(self, with_agent: bool) -> dict[str, Any]:
        out: dict[str, Any] = dict(self.n)
        if with_agent:
            out.update(self.agent, agent_failures=list(self.notes))
        return out


def _call_agent(fn: Callable[[], Any], timeout: float, what: str) -> tuple[Any, BaseException | None]:
    """(answer, None) or (None, the failure): the agent's call under `timeout` as a live run makes it. An
    exception or a timeout is the agent's failure; an `InfrastructureError` propagates."""
    try:
        return call_with_timeout(fn, timeout, what), None
    except InfrastructureError:
        raise
    except Exception as e:  # noqa: BLE001 - anything the agent raises is the agent's failure, scored
        return None, e


def _agent_episode(agent: Any, ds: DatasetAdapter, ep: Any, col: Collector, counts: _Counts, opts: EvalOptions) -> None:
    """Teacher-forced: the agent sees every recorded screen with the gold history; each step scored on its own."""
    key = ds.episode_key(ep)
    ctx = EpisodeContext(
        task=task_for(ep), lang=ep.lang, instruction=ep.instruction, seed=opts.seed, max_steps=len(ep.steps)
    )
    _, reset_failure = _call_agent(partial(agent.reset, ctx), opts.timeout, f"episode {key}: reset")
    if reset_failure is not None:
        counts.failed(reset_failure, f"episode {key}: reset", steps=len(ep.steps))
    history: list[HistoryItem] = []
    for step in ep.steps:
        counts.n["steps"] += 1
        action = None
        if reset_failure is None:
            what = f"episode {key} step {step.index}"
            answer, failure = _call_agent(
                partial(agent.act, observation_for(step, ep), list(history)), opts.timeout, what
            )
            if failure is not None:
                counts.failed(failure, what)
            else:
                action, _ = predicted_action(answer)
        history.append(
            HistoryItem(step=step.index + 1, agent_step=AgentStep(action=step.action, thought="(recorded step)"))
        )
        _score_action(ds, ep, step, action, col, counts)


def _score_action(
    ds: DatasetAdapter, ep: Any, step: Any, action: Action | None, col: Collector, counts: _Counts
) -> None:
    """One step's unified action (None: no valid one) scored in the dataset's native form; an action the dataset
    cannot express is counted and scored as such."""
    if action is None:
        counts.n["invalid"] += 1
    pred_raw = native_prediction(ds, action, step)
    if action is not None and pred_raw is None:
        counts.n["unexpressible"] += 1
    col.add_action(ep, step, action, pred_raw)


def _predicted_episode(
    preds: dict[tuple[str, int], dict[str, Any]], ds: DatasetAdapter, ep: Any, col: Collector, counts: _Counts
) -> None:
    """Each step scored with its line of the predictions file (native record, unified action, or missing)."""
    keys = ds.lookup_keys(ep)
    for step in ep.steps:
        counts.n["steps"] += 1
        entry = next((e for e in (preds.get((k, step.index)) for k in keys) if e is not None), None)
        if entry is None:
            counts.n["missing"] += 1
            col.add_missing(ep, step)
            continue
        if "raw" in entry:
            col.add(ep, step, entry["raw"])
            continue
        _score_action(ds, ep, step, entry["action"], col, counts)


def evaluate(
    opts: EvalOptions,
    agent: Any = None,
    predictions: str | Path | None = None,
    progress: Callable[[str], None] | None = None,
) -> dict[str, Any]:
    """Run `agent` teacher-forced over the dataset (or score `predictions`); returns the JSON-ready report."""
    ds, metric = offline_dataset(opts.dataset)
    if (agent is None) == (predictions is None):
        raise EvalError("give exactly one of an agent or a predictions file")
    if not opts.timeout > 0:
        raise EvalError(f"the agent timeout must be a positive number of seconds, got {opts.timeout!r}")
    preds = read_predictions(predictions, ds, metric.model_output) if predictions is not None else None
    col = metric.collector(ds, opts.metric_rule)
    counts = _Counts()
    for ep in iter_dataset(opts, need_images=agent is not None):
        counts.n["episodes"] += 1
        if preds is not None:
            _predicted_episode(preds, ds, ep, col, counts)
        else:
            _agent_episode(agent, ds, ep, col, counts, opts)
        if progress is not None:
            progress(f"{counts.n['episodes']} episodes, {counts.n['steps']} steps")
    if counts.n["steps"] == 0:
        raise EvalError(f"{opts.data}: no steps to evaluate (check --data, --split and --split-label)")
    report = {
        "dataset": ds.name,
        "data": str(opts.data),
        "split": str(opts.split) if opts.split else None,
        "split_label": opts.split_label,
        "source": "agent" if agent is not None else str(predictions),
        "agent": getattr(agent, "name", None),
        **counts.report(with_agent=agent is not None),
        "metrics": col.score(str(opts.split) if opts.split else None),
    }
    return _jsonable(report)


def _jsonable(x: Any) -> Any:
    if isinstance(x, dict):
        return {str(k): _jsonable(v) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return [_jsonable(v) for v in x]
    if isinstance(x, np.generic):
        return x.item()
    if isinstance(x, float) and math.isnan(x):
        return None
    return x


def render(report: dict[str, Any], console: Any) -> None:
    """Rich tables of a report (figures in %): the header, then the tables of the dataset's metric family."""
    _, metric = offline_dataset(report["dataset"])
    render_header(report, console)
    metric.render(report, console)
