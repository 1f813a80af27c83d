"""Dataset adapters: AitW (TFRecord), GUI Odyssey, AndroidLens, AITZ / AgentCPM step lists, ScreenQA.

    from tasks.datasets import open_dataset
    for episode in open_dataset("aitw", "data/google_apps/", split="splits/standard.json", split_label="test"):
        for step in episode.steps:
            step.action, step.image()

Every loader streams (one episode / question in memory at a time), raises `DatasetError` naming the file,
record and field, or with `skip_bad=True` skips and counts bad records in a `LoadStats`. Action converters:
`tasks.datasets.convert` (`to_unified`, `from_unified`). Formats and lossy cases: docs/datasets.md.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

from .base import DatasetEpisode, DatasetError, DatasetStep, FieldError, LoadStats, UIBox
from .convert import from_unified, to_unified

DATASET_NAMES = ("aitw", "odyssey", "androidlens", "aitz", "screenqa")


def open_dataset(name: str, path: str | Path | list[str | Path], **kw: Any) -> Iterator[Any]:
    """Dispatch to a loader: `aitw.iter_episodes`, `odyssey.iter_episodes`, `androidlens.iter_episodes`,
    `aitz.iter_episodes` (yield `DatasetEpisode`) or `screenqa.iter_questions` (yields `ScreenQAQuestion`).
    Keyword options go to the loader."""
    key = name.lower().replace("-", "").replace("_", "")
    aliases = {
        "aitw": "aitw",
        "androidinthewild": "aitw",
        "odyssey": "odyssey",
        "guiodyssey": "odyssey",
        "androidlens": "androidlens",
        "aitz": "aitz",
        "androidinthezoo": "aitz",
        "agentcpm": "aitz",
        "screenqa": "screenqa",
    }
    if key not in aliases:
        raise DatasetError(f"unknown dataset {name!r}; expected one of {list(DATASET_NAMES)}")
    which = aliases[key]
    if which == "aitw":
        from . import aitw

        return aitw.iter_episodes(path, **kw)
    if which == "odyssey":
        from . import odyssey

        return odyssey.iter_episodes(path, **kw)  # type: ignore[arg-type]  # reason: **kw is the shared option set
    if which == "androidlens":
        from . import androidlens

        return androidlens.iter_episodes(path, **kw)  # type: ignore[arg-type]  # reason: **kw is the shared option set
    if which == "aitz":
        from . import aitz

        return aitz.iter_episodes(path, **kw)
    from . import screenqa

    return screenqa.iter_questions(path, **kw)


__all__ = [
    "DATASET_NAMES",
    "DatasetEpisode",
    "DatasetError",
    "DatasetStep",
    "FieldError",
    "LoadStats",
    "UIBox",
    "from_unified",
    "open_dataset",
    "to_unified",
]
