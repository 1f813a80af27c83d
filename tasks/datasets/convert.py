"""Dataset action records <-> the unified action schema, for every episodic dataset.

    to_unified(dataset, raw_step) -> Action | None
    from_unified(dataset, action, template_raw=None) -> dict

`raw_step` is a step's dataset-native record (`DatasetStep.raw`). `from_unified` returns a record: the
template's fields (when given) with the action fields rewritten. When the template already encodes the same
unified action, it is returned unchanged, so details the unified schema cannot carry (a tap's lift drift, a
second CLICK point, a `HOME` action spelled as an action name) survive an edit-free round trip. Without a
template the canonical encoding is written; what it loses is listed in docs/datasets.md ("Lossy cases").
Actions a dataset cannot express (e.g. RECENT in AitW) raise DatasetError.

Field complaints raise DatasetError naming the dataset and the field (`FieldError` inside the loaders, which add
the file and record).
"""

from __future__ import annotations

from typing import Any

from harness.actions import Action

from . import aitw, aitz, androidlens, odyssey
from .base import DatasetError, FieldError

_MODULES = {"aitw": aitw, "aitz": aitz, "androidlens": androidlens, "odyssey": odyssey}
ACTION_FIELDS = {name: mod.ACTION_FIELDS for name, mod in _MODULES.items()}


def _module(dataset: str) -> Any:
    try:
        return _MODULES[dataset]
    except KeyError:
        raise DatasetError(f"unknown dataset {dataset!r}; expected one of {sorted(_MODULES)}") from None


def to_unified(dataset: str, raw_step: dict[str, Any]) -> Action | None:
    """A dataset step record -> unified action (None when the record's action is not representable)."""
    mod = _module(dataset)
    try:
        return mod.to_unified(raw_step)
    except FieldError as exc:
        raise DatasetError(f"{dataset} record: {exc}") from exc
    except ValueError as exc:  # pydantic validation of the built action
        raise DatasetError(f"{dataset} record: {exc}") from exc


def from_unified(
    dataset: str, action: Action, template_raw: dict[str, Any] | None = None, **options: Any
) -> dict[str, Any]:
    """Unified action -> dataset step record (options: odyssey `vocab="v1"|"v2"`)."""
    return _module(dataset).from_unified(action, template_raw, **options)


def action_fields(dataset: str, raw_step: dict[str, Any]) -> dict[str, Any]:
    """The part of a record that encodes the action (what a template-free round trip rewrites)."""
    return {k: raw_step[k] for k in ACTION_FIELDS[dataset] if k in raw_step}
