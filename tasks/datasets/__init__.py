"""Dataset adapters: AitW (TFRecord), GUI Odyssey, AndroidLens, AITZ / AgentCPM step lists, ScreenQA.

    from tasks.datasets import open_dataset
    for episode in open_dataset("aitw", "data/google_apps/", split="splits/standard.json", split_label="test"):
        for step in episode.steps:
            step.action, step.image()

Every loader streams (one episode / question in memory at a time), raises `DatasetError` naming the file,
record and field, or with `skip_bad=True` skips and counts bad records in a `LoadStats`. Each dataset is one
`DatasetAdapter` (its loader, action codec, official metric, prediction-file conventions), listed once in
`tasks.datasets.registry.ADAPTERS`; `adapter(name)` resolves names and aliases. Action converters by name:
`tasks.datasets.convert` (`to_unified`, `from_unified`). Formats and lossy cases: docs/datasets.md.
"""

from __future__ import annotations

from .adapter import DatasetAdapter, LoadRequest
from .base import DatasetEpisode, DatasetStep, LoadStats, UIBox
from .convert import from_unified, to_unified
from .errors import DatasetError, FieldError
from .registry import ADAPTERS, NAMES, adapter, open_dataset

DATASET_NAMES = NAMES  # the registry's list (`tasks.datasets.registry.ADAPTERS`), under its historical name

__all__ = [
    "ADAPTERS",
    "DATASET_NAMES",
    "DatasetAdapter",
    "DatasetEpisode",
    "DatasetError",
    "DatasetStep",
    "FieldError",
    "LoadRequest",
    "LoadStats",
    "UIBox",
    "adapter",
    "from_unified",
    "open_dataset",
    "to_unified",
]
