"""Dataset action records <-> the unified action schema, for every episodic dataset, by dataset name.

    to_unified(dataset, raw_step) -> Action | None
    from_unified(dataset, action, template_raw=None) -> dict

Each call goes to the dataset's adapter (`tasks.datasets.registry.adapter(dataset).to_unified`, ...), which holds
the codec of the dataset's module. `raw_step` is a step's dataset-native record (`DatasetStep.raw`).
`from_unified` returns a record: the template's fields (when given) with the action fields rewritten. When the
template already encodes the same unified action, it is returned unchanged, so details the unified schema cannot
carry (a tap's lift drift, a second CLICK point, a `HOME` action spelled as an action name) survive an edit-free
round trip. Without a template the canonical encoding is written; what it loses is listed in docs/datasets.md
("Lossy cases"). Actions a dataset cannot express (e.g. RECENT in AitW) raise DatasetError.

Field complaints raise DatasetError naming the dataset and the field (`FieldError` inside the loaders, which add
the file and record).
"""

from __future__ import annotations

from typing import Any

from harness.actions import Action

from .registry import ADAPTERS, adapter

ACTION_FIELDS: dict[str, tuple[str, ...]] = {a.name: a.action_fields for a in ADAPTERS if a.episodic}


def to_unified(dataset: str, raw_step: dict[str, Any]) -> Action | None:
    """A dataset step record -> unified action (None when the record's action is not representable)."""
    return adapter(dataset).to_unified(raw_step)


def from_unified(
    dataset: str, action: Action, template_raw: dict[str, Any] | None = None, **options: Any
) -> dict[str, Any]:
    """Unified action -> dataset step record (options: odyssey `vocab="v1"|"v2"`)."""
    return adapter(dataset).from_unified(action, template_raw, **options)


def action_fields(dataset: str, raw_step: dict[str, Any]) -> dict[str, Any]:
    """The part of a record that encodes the action (what a template-free round trip rewrites)."""
    return adapter(dataset).record_action_fields(raw_step)
