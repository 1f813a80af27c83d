"""Offline metric families: what `DatasetAdapter.metric` names, as the offline evaluation needs it -- the collector
class, the official rule variants, the renderer, and whether predictions may carry the model's own output.

    metric = metric_for(adapter("aitz"))          # METRICS["agentcpm"]
    col = metric.collector(adapter("aitz"), None)  # an AgentCPMCollector in its default mode

This is the second half of a dataset's description: `tasks/` cannot import the collectors (they live above the
dataset layer), so the adapter names its metric family and this table, keyed by those names, holds the rest.
A family appears here once, whatever the number of datasets scored by it (AndroidLens and AITZ share
"agentcpm"). ScreenQA's family ("screenqa") is scored per question by `harness.eval.qa_offline` instead.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from harness.eval.collect import Collector
from harness.eval.collect_agentcpm import AgentCPMCollector
from harness.eval.collect_aitw import AitwCollector
from harness.eval.collect_odyssey import OdysseyCollector
from harness.eval.errors import EvalError
from harness.eval.render import render_agentcpm, render_aitw, render_odyssey
from harness.metrics import agentcpm, odyssey
from tasks.datasets.adapter import DatasetAdapter
from tasks.datasets.errors import DatasetError
from tasks.datasets.registry import ADAPTERS, adapter


@dataclass(frozen=True)
class OfflineMetric:
    """One official metric family as offline evaluation runs it."""

    name: str  # what `DatasetAdapter.metric` says
    collector: Callable[[DatasetAdapter, str | None], Collector]  # (dataset, rule or None = the default)
    render: Callable[[dict[str, Any], Any], None]  # (report, rich console)
    rules: tuple[str, ...] = ()  # the official variants (`--rule`), the default first; () when there is one
    model_output: bool = False  # a predictions line may carry the model's own output as "pred"


METRICS: dict[str, OfflineMetric] = {
    m.name: m
    for m in (
        OfflineMetric("aitw", AitwCollector, render_aitw),
        OfflineMetric("odyssey", OdysseyCollector, render_odyssey, rules=odyssey.CLICK_RULES),
        OfflineMetric("agentcpm", AgentCPMCollector, render_agentcpm, rules=agentcpm.MODES, model_output=True),
    )
}
# the datasets offline evaluation scores step by step (the registry's episodic datasets with an offline metric)
DATASETS: tuple[str, ...] = tuple(a.name for a in ADAPTERS if a.episodic and a.metric in METRICS)


def metric_for(dataset: DatasetAdapter) -> OfflineMetric:
    """The offline metric family of an episodic dataset; EvalError when offline step scoring does not apply."""
    found = METRICS.get(dataset.metric) if dataset.episodic else None
    if found is None:
        raise EvalError(f"{dataset.name} is not scored step by step offline; expected one of {', '.join(DATASETS)}")
    return found


def offline_dataset(name: str) -> tuple[DatasetAdapter, OfflineMetric]:
    """(adapter, metric family) of a dataset name or alias; EvalError naming the choices otherwise."""
    try:
        ds = adapter(name)
    except DatasetError:
        raise EvalError(f"unknown dataset {name!r}; expected one of {', '.join(DATASETS)}") from None
    return ds, metric_for(ds)
