"""A second language for a recorded task: a second demonstration, in the other language, of the same task.

The second demonstration is recorded and proven on its own (`harness.run.authoring.record_task`), then merged into the
first task: its instruction and reference solution are added; each milestone of the first task takes the text of
the milestone at the same place in the second (both in the order their replays visited them), so a check that
said `{"text": "Dentist"}` says `{"text": {"en": "Dentist", "zh": "看牙"}}`; each state check takes the values of
the second's check of the same setting or provider (`{"equals": {"en": "On my way", "zh": "在路上"}}`), and one
that has no counterpart is dropped with the reason; an expected answer becomes one value per language. The merged
task is proven in both languages (`check_task`). Demonstrations that pass through a different number of
milestones, or of another kind, cannot be paired: the error says so.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from harness.device.controller import Device
from harness.run.authoring.record_task import Proposal, RecordError
from harness.run.authoring.task_check import CheckResult, check_task
from tasks.schema import Task, parse_task

LocalReset = Callable[[str], Device]  # a freshly reset device in that language


def _leaf_dicts(node: dict[str, Any]) -> list[dict[str, Any]]:
    if "children" in node:
        return [leaf for c in node["children"] for leaf in _leaf_dicts(c)]
    return [node]


def _both(a: Any, b: Any, first: str, second: str) -> Any:
    """Two languages' values as one localized value (one value when they are equal)."""
    if isinstance(a, dict) or isinstance(b, dict) or a == b:
        return a
    return {first: a, second: b}


def _merge_element(a: dict[str, Any], b: dict[str, Any], first: str, second: str, where: str) -> dict[str, Any]:
    if set(a) != set(b):
        raise RecordError(f"{where}: the {first} demonstration shows {sorted(a)}, the {second} one {sorted(b)}")
    return {k: _both(a[k], b[k], first, second) if k in ("text", "desc") else a[k] for k in a}


def _merge_check(a: dict[str, Any], b: dict[str, Any], first: str, second: str, where: str) -> dict[str, Any]:
    out = dict(a)
    if "element" in a or "element" in b:
        out["element"] = _merge_element(a.get("element", {}), b.get("element", {}), first, second, where)
    if "all_elements" in a or "all_elements" in b:
        xs, ys = a.get("all_elements", []), b.get("all_elements", [])
        if len(xs) != len(ys):
            raise RecordError(f"{where}: {len(xs)} element(s) in {first}, {len(ys)} in {second}")
        out["all_elements"] = [_merge_element(x, y, first, second, where) for x, y in zip(xs, ys, strict=True)]
    return out


def _merge_value(a: dict[str, Any], b: dict[str, Any], first: str, second: str) -> dict[str, Any] | None:
    if set(a) != set(b):
        return None
    return {k: _both(a[k], b[k], first, second) if k in ("equals", "digits", "contains") else a[k] for k in a}


def _state_key(state: dict[str, Any]) -> tuple[str, ...]:
    if "settings" in state:
        return ("settings", state["settings"]["namespace"], state["settings"]["key"])
    if "content" in state:
        return ("content", state["content"]["uri"], str(state["content"].get("exists", True)))
    return (next(iter(state), "?"),)


def _merge_state(a: dict[str, Any], b: dict[str, Any], first: str, second: str) -> dict[str, Any] | None:
    if "settings" in a:
        value = _merge_value(a["settings"]["value"], b["settings"]["value"], first, second)
        return None if value is None else {"settings": {**a["settings"], "value": value}}
    if "content" in a:
        ra, rb = a["content"].get("row", {}), b["content"].get("row", {})
        row = {c: _merge_value(ra[c], rb[c], first, second) for c in ra if c in rb}
        kept = {c: v for c, v in row.items() if v is not None}
        return {"content": {**a["content"], "row": kept}} if kept else None
    return a if a == b else None


def merge_language(
    existing: Task, second: Proposal, lang: str, fresh: LocalReset
) -> tuple[dict[str, Any], list[str], dict[str, CheckResult]]:
    """`existing` (proven in its language) with `second` (proven in `lang`) merged in: the merged task's JSON,
    what was dropped and why, and `check_task`'s verdict per language. Raises `RecordError`."""
    first = existing.languages[0]
    if lang in existing.instruction:
        raise RecordError(f"task {existing.id} already has a {lang} instruction; record another language")
    data = existing.model_dump(mode="json", exclude_defaults=True)
    new = second.data
    old_leaves, new_leaves = _leaf_dicts(data["milestones"]), _leaf_dicts(new["milestones"])
    if len(old_leaves) != len(new_leaves):
        raise RecordError(
            f"the {lang} demonstration passes through {len(new_leaves)} milestone(s), the {first} one through "
            f"{len(old_leaves)}: demonstrate the same way in both languages"
        )
    for old, nw in zip(old_leaves, new_leaves, strict=True):
        where = f"milestone {old['id']}"
        old["check"] = _merge_check(old["check"], nw["check"], first, lang, where)
        old["sub_target"] = _both(old["sub_target"], nw["sub_target"], first, lang)
    dropped: list[str] = []
    partners = {_state_key(c["check"]["state"]): c for c in new["end_state"] if "state" in c.get("check", {})}
    end = []
    for c in data.get("end_state", []):
        state = c.get("check", {}).get("state")
        if state is None:
            end.append(c)
            continue
        other = partners.get(_state_key(state))
        merged = None if other is None else _merge_state(state, other["check"]["state"], first, lang)
        if merged is None:
            dropped.append(f"end state {_state_key(state)}: no matching change in the {lang} demonstration")
        else:
            end.append({**c, "check": {**c["check"], "state": merged}})
    data["end_state"] = end
    data["instruction"] = {**data["instruction"], **new["instruction"]}
    data["reference"] = {**data["reference"], **new["reference"]}
    if "expected_answer" in data and "expected_answer" in new:
        a, b = data["expected_answer"]["values"][0], new["expected_answer"]["values"][0]
        data["expected_answer"]["values"] = [_both(a, b, first, lang)]
    task = parse_task(data, f"task {existing.id} with {lang}")
    verdicts = {lg: check_task(task, lg, fresh(lg)) for lg in task.languages}
    bad = {lg: r for lg, r in verdicts.items() if not r.ok}
    if bad:
        why = "; ".join(f"{lg}: {r.error or r.start_violations}" for lg, r in bad.items())
        raise RecordError(f"the task with both languages is not sound: {why}")
    return data, dropped, verdicts
