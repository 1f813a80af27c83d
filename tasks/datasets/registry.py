"""The one list of datasets: every `DatasetAdapter` (`tasks.datasets.adapter`), in the order commands list them.

    from tasks.datasets.registry import ADAPTERS, adapter
    adapter("GUI-Odyssey").name           # "odyssey" (aliases and spellings resolve: case, "-" and "_" ignored)
    adapter("agentcpm").load(path)        # the AITZ / AgentCPM-GUI step-list loader

Every name list (`NAMES`, `EPISODIC`, `tasks.datasets.DATASET_NAMES`, the choices of `droidharness eval` and
`replay`) derives from `ADAPTERS`; a new dataset is one module with its `ADAPTER` plus one entry here
(docs/datasets.md, "Adding a dataset").
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

from .adapter import DatasetAdapter, normalize_name
from .aitw import ADAPTER as AITW
from .aitz import ADAPTER as AITZ
from .androidlens import ADAPTER as ANDROIDLENS
from .errors import DatasetError
from .odyssey import ADAPTER as ODYSSEY
from .screenqa import ADAPTER as SCREENQA

ADAPTERS: tuple[DatasetAdapter, ...] = (AITW, ODYSSEY, ANDROIDLENS, AITZ, SCREENQA)
NAMES: tuple[str, ...] = tuple(a.name for a in ADAPTERS)
EPISODIC: tuple[str, ...] = tuple(a.name for a in ADAPTERS if a.episodic)  # the datasets of recorded episodes


def _index(adapters: tuple[DatasetAdapter, ...]) -> dict[str, DatasetAdapter]:
    """Normalized name / alias -> adapter; two adapters answering to one name is a programming error."""
    out: dict[str, DatasetAdapter] = {}
    for a in adapters:
        for key in a.keys():
            if out.setdefault(key, a) is not a:
                raise DatasetError(f"dataset name {key!r} is claimed by both {out[key].name} and {a.name}")
    return out


_BY_KEY = _index(ADAPTERS)


def adapter(name: str) -> DatasetAdapter:
    """The adapter called `name` or one of its aliases; DatasetError listing the names when there is none."""
    found = _BY_KEY.get(normalize_name(name))
    if found is None:
        raise DatasetError(f"unknown dataset {name!r}; expected one of {list(NAMES)}")
    return found


def open_dataset(name: str, path: str | Path | list[str | Path], **kw: Any) -> Iterator[Any]:
    """Stream dataset `name` at `path`: `DatasetEpisode`s (ScreenQA: `ScreenQAQuestion`s); keyword options go to
    the dataset's loader."""
    return adapter(name).open(path, **kw)
