"""Portable tasks: tasks that run on any Android device that has the apps they need - the embedded virtual
device, an AVD with a stock `google_apis` image (AOSP Clock, Contacts, Messaging), a phone.

A task is portable when
- it names every app by its role (`@clock`, see `tasks.roles`), never by one vendor's package;
- it judges success by device state (`"state"` checks) or by visible text - no resource ids, activity names,
  screen positions (`bbox`) or packages in its checks;
- its reference solutions (and end-state steps, probe answers) find elements by text / content description /
  class, open apps by role, and never tap a screen position.

`portability_issues(task)` lists why a task is not portable (empty: it is); `task_roles` and `resolve_task`
replace a task's roles by the packages a device has (`harness.device.apps.role_packages` asks the device).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from .roles import APP_FIELDS, is_role, role_for_package, role_of
from .schema import ElementMatch, EndCheck, Locator, ReferenceStep, ScreenCheck, Task

_POSITION_KEYS = ("element", "point", "start", "end", "x", "y", "x1", "y1", "x2", "y2")


def _walk(node: Any, key: str | None, fn: Callable[[str], str]) -> Any:
    if isinstance(node, dict):
        return {k: _walk(v, k, fn) for k, v in node.items()}
    if isinstance(node, (list, tuple)):
        return [_walk(v, key, fn) for v in node]
    if isinstance(node, str) and key in APP_FIELDS:
        return fn(node)
    return node


def task_roles(task: Task) -> list[str]:
    """The roles a task names anywhere, in first-use order (`clock`, not `@clock`)."""
    found: list[str] = []

    def note(s: str) -> str:
        if is_role(s):
            found.append(role_of(s))
        return s

    _walk(task.model_dump(exclude_unset=True), None, note)
    return list(dict.fromkeys(found))


def resolve_task(task: Task, packages: Mapping[str, str]) -> Task:
    """The task with every `@role` replaced by `packages[role]` (the package resolved on a device); a task that
    names no role comes back as it is. KeyError names a role `packages` lacks."""
    roles = task_roles(task)
    if not roles:
        return task
    missing = [r for r in roles if r not in packages]
    if missing:
        raise KeyError(f"no package given for role(s) {missing}")
    data = _walk(task.model_dump(exclude_unset=True), None, lambda s: packages[role_of(s)] if is_role(s) else s)
    return Task.model_validate(data)


# --- why a task is not portable ----------------------------------------------------------------------------
def _app(where: str, ref: str | None) -> list[str]:
    if ref is None or is_role(ref):
        return []
    role = role_for_package(ref)
    if role is not None:
        return [f"{where}: package {ref} instead of the role @{role}"]
    return [f"{where}: {ref} is no role's app (a stock device does not have it)"]


def _element(where: str, m: ElementMatch | Locator) -> list[str]:
    out = [f"{where}: resource id {m.resource_id!r}"] if m.resource_id else []
    if isinstance(m, ElementMatch):
        out += _app(f"{where}: element", m.package)
        if m.bbox is not None:
            out.append(f"{where}: a screen position (bbox)")
    return out


def _check(where: str, c: ScreenCheck | None) -> list[str]:
    if c is None:
        return []
    out = _app(where, c.package)
    if c.activity:
        out.append(f"{where}: activity {c.activity!r} (activity names differ between app variants)")
    for m in ([c.element] if c.element else []) + list(c.all_elements) + list(c.absent):
        out += _element(where, m)
    return out


def _steps(where: str, steps: tuple[ReferenceStep, ...]) -> list[str]:
    out: list[str] = []
    for n, s in enumerate(steps, 1):
        at = f"{where} step {n}"
        extra = s.model_extra or {}
        if s.type == "OPEN_APP":
            pkg = extra.get("package")
            if pkg is None:
                out.append(f"{at}: OPEN_APP by label only (labels differ between variants: give the role as package)")
            else:
                out += _app(f"{at}: OPEN_APP", str(pkg))
        if s.locate is not None:
            out += _element(at, s.locate)
        elif any(k in extra for k in _POSITION_KEYS) and s.type != "SCROLL":
            out.append(f"{at}: a {s.type} at a screen position or element index (locate the element by text instead)")
    return out


def _end(n: int, e: EndCheck) -> list[str]:
    where = f"end_state[{n}]"
    return _check(where, e.check) + _app(f"{where}: app", e.app) + _steps(where, e.steps)


def portability_issues(task: Task) -> list[str]:
    """Why `task` is not portable, one reason each (empty: it is portable)."""
    out: list[str] = []
    for a in task.apps:
        out += _app("apps", a)
    for a in task.start.reset_apps:
        out += _app("start.reset_apps", a)
    for a in task.start.stop_apps:
        out += _app("start.stop_apps", a)
    out += _app("start.open_app", task.start.open_app)
    for m in task.milestones.leaves():
        out += _check(f"milestone {m.id}", m.check)
    for i, e in enumerate(task.end_state):
        out += _end(i, e)
    for lang, steps in task.reference.items():
        out += _steps(f"reference {lang}", steps)
    for probe in task.probes:
        for answer in probe.answers:
            for loc in answer.elements:
                out += _element(f"probe {probe.id}", loc)
    return list(dict.fromkeys(out))


def describe_issues(issues: list[str], most: int = 2) -> str:
    """The first reasons in one line (`+N more`)."""
    more = f" (+{len(issues) - most} more)" if len(issues) > most else ""
    return "; ".join(issues[:most]) + more
