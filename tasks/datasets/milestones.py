"""Milestones recorded in a dataset episode -> a `tasks.schema.Task` scored by them (AndroidLens records them).

Every step's `milestone` field (a dict, or a list of dicts; empty / null = none) is collected, duplicates dropped;
an episode that records none has no task (`episode_to_task` returns None, so does `DatasetEpisode.to_task()`).
The mapping, documented in docs/datasets.md ("AndroidLens milestones -> Task"):
- the task's root `MilestoneGroup` is ordered by `idx`; several milestones with the same `idx` form an
  `unordered` sub-group at that position;
- each milestone becomes `Milestone(id="m<idx>" or "m<idx>.<k>", sub_target={lang: sub-target}, check=
  ScreenCheck(element=ElementMatch(text=<text>, match="contains", case_sensitive=False, bbox=<bbox>,
  bbox_rule="center", states=..., not_states=...)))`; empty text / absent bbox are left out;
- `state` names map onto `tasks.schema.STATES` through `STATE_MAP` (e.g. "selected" -> selected, "on" ->
  checked, "off" / "unchecked" -> not_states checked, "disabled" -> not_states enabled, 选中 -> selected);
  unknown names are dropped with a warning and listed in the task's tags as `unmapped-state:<name>`.

This module sits below the data model (`tasks.datasets.base` imports it for `DatasetEpisode.to_task`), so it takes
any episode-shaped object (`dataset`, `episode_id`, `instruction`, `lang`, `steps` with `raw` / `index`, `meta`).
Replay (`harness.eval.replay_rules`) marks the milestones' regions with `map_states` too.
"""

from __future__ import annotations

import json
import logging
import re
from typing import Any

from pydantic import ValidationError

from tasks.schema import CATEGORIES, ElementMatch, Milestone, MilestoneGroup, ScreenCheck, Task

from .errors import DatasetError

log = logging.getLogger(__name__)


# state word (normalized: lower case, '-' / ' ' -> '_') -> (STATES name, required value)
STATE_MAP: dict[str, tuple[str, bool]] = {
    "selected": ("selected", True),
    "select": ("selected", True),
    "is_selected": ("selected", True),
    "unselected": ("selected", False),
    "not_selected": ("selected", False),
    "checked": ("checked", True),
    "check": ("checked", True),
    "is_checked": ("checked", True),
    "on": ("checked", True),
    "enabled_on": ("checked", True),
    "toggled": ("checked", True),
    "unchecked": ("checked", False),
    "not_checked": ("checked", False),
    "off": ("checked", False),
    "focused": ("focused", True),
    "focus": ("focused", True),
    "enabled": ("enabled", True),
    "enable": ("enabled", True),
    "disabled": ("enabled", False),
    "clickable": ("clickable", True),
    "long_clickable": ("long_clickable", True),
    "longclickable": ("long_clickable", True),
    "checkable": ("checkable", True),
    "scrollable": ("scrollable", True),
    "password": ("password", True),
    "focusable": ("focusable", True),
    "选中": ("selected", True),
    "已选中": ("selected", True),
    "未选中": ("selected", False),
    "勾选": ("checked", True),
    "已勾选": ("checked", True),
    "未勾选": ("checked", False),
    "开启": ("checked", True),
    "打开": ("checked", True),
    "已开启": ("checked", True),
    "关闭": ("checked", False),
    "已关闭": ("checked", False),
}


def map_states(states: list[str]) -> tuple[tuple[str, ...], tuple[str, ...], list[str]]:
    """Milestone `state` words -> (states, not_states, unknown words)."""
    pos: list[str] = []
    neg: list[str] = []
    unknown: list[str] = []
    for s in states:
        key = re.sub(r"[\s\-]+", "_", str(s).strip().lower())
        if not key:
            continue
        if key in STATE_MAP:
            name, want = STATE_MAP[key]
            (pos if want else neg).append(name)
        else:
            unknown.append(str(s))
    return tuple(dict.fromkeys(pos)), tuple(dict.fromkeys(neg)), unknown


def milestones_of(ep: Any) -> list[tuple[int, dict[str, Any], int]]:
    seen: set[str] = set()
    out = []
    for step in ep.steps:
        m = step.raw.get("milestone")
        items = m if isinstance(m, list) else [m]
        for item in items:
            if not item:
                continue
            if not isinstance(item, dict):
                raise DatasetError(
                    f"{ep.meta.get('file', ep.episode_id)}: step {step.index}: field 'milestone': "
                    f"expected an object, got {type(item).__name__}"
                )
            key = json.dumps(item, sort_keys=True, ensure_ascii=False)
            if key in seen:
                continue
            seen.add(key)
            raw_idx = item.get("idx")
            try:
                if raw_idx is None or isinstance(raw_idx, bool):
                    raise TypeError
                idx = int(raw_idx)
            except (TypeError, ValueError):
                raise DatasetError(
                    f"{ep.meta.get('file', ep.episode_id)}: step {step.index}: field "
                    f"'milestone.idx': expected an integer, got {item.get('idx')!r}"
                ) from None
            out.append((idx, item, step.index))
    return out


def task_id(ep: Any) -> str:
    """`<dataset>-<lang>-<episode_id>`, characters outside `[A-Za-z0-9_.-]` as `_`."""
    return re.sub(r"[^A-Za-z0-9_.-]", "_", f"{ep.dataset}-{ep.lang}-{ep.episode_id}")


def episode_to_task(ep: Any) -> Task | None:
    """A dataset episode -> `tasks.schema.Task` scored by its recorded milestones (None when it records none).
    Mapping: module docstring."""
    where = ep.meta.get("file", ep.episode_id)
    found = milestones_of(ep)
    if not found:
        return None
    types = [str(t) for t in ep.meta.get("types") or []]
    category = next((t for t in types if t in CATEGORIES), None)
    if category is None:
        raise DatasetError(
            f"{where}: field 'types': no AndroidLens category among {types!r} (expected one of {list(CATEGORIES)})"
        )
    tags = [str(ep.dataset), *(f"type:{t}" for t in types), *(f"app:{a}" for a in ep.meta.get("app", []))]
    by_idx: dict[int, list[tuple[dict[str, Any], int]]] = {}
    for idx, item, step in found:
        by_idx.setdefault(idx, []).append((item, step))
    children: list[Any] = []
    for idx in sorted(by_idx):
        group = by_idx[idx]
        leaves = []
        for k, (item, step) in enumerate(group):
            mid = f"m{idx}" if len(group) == 1 else f"m{idx}.{k + 1}"
            states = item.get("state") or []
            states = states if isinstance(states, list) else [states]
            pos, neg, unknown = map_states(states)
            for u in unknown:
                log.warning(
                    "%s: milestone %s: state %r has no equivalent in tasks.schema.STATES; dropped", where, mid, u
                )
                tags.append(f"unmapped-state:{u}")
            text = item.get("text") or ""
            bbox = item.get("bbox") or None
            sub = item.get("sub-target") or item.get("sub_target") or text or f"milestone {idx}"
            try:
                match = ElementMatch(
                    text=text or None,
                    match="contains",
                    case_sensitive=False,
                    bbox=tuple(bbox) if bbox else None,
                    bbox_rule="center",
                    states=pos,
                    not_states=neg,
                )
                leaves.append(Milestone(id=mid, sub_target={ep.lang: str(sub)}, check=ScreenCheck(element=match)))
            except (ValidationError, TypeError) as exc:
                msg = "; ".join(e["msg"] for e in exc.errors()) if isinstance(exc, ValidationError) else str(exc)
                raise DatasetError(f"{where}: step {step}: field 'milestone' (idx {idx}): {msg}") from exc
        children.append(
            leaves[0] if len(leaves) == 1 else MilestoneGroup(id=f"idx{idx}", order="unordered", children=tuple(leaves))
        )
    try:
        return Task(
            id=task_id(ep),
            instruction={ep.lang: ep.instruction},
            category=category,
            max_steps=min(200, max(20, 2 * len(ep.steps))),
            milestones=MilestoneGroup(id="root", order="ordered", children=tuple(children)),
            tags=tuple(dict.fromkeys(tags)),
        )
    except ValidationError as exc:
        raise DatasetError(f"{where}: cannot build a task: {exc.errors()[0]['msg']}") from exc
