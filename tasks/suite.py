"""Task suites: a folder of task JSON files. Bundled suites live in `tasks/suites/<name>/`: `virtual` (the
embedded virtual device's apps) and `portable` (apps by role, checked by state or text: any device with Clock,
Contacts, Messages and Settings - see docs/milestones.md, "Portable tasks")."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

from .families.registry import is_family_spec, spec_tasks
from .schema import Task, TaskError, load_task

SUITES_DIR = Path(__file__).parent / "suites"
PORTABLE_SUITE = "portable"  # every task of this bundled suite must be portable (`tasks.portable`)


def suite_path(name_or_path: str | Path) -> Path:
    """A bundled suite by name (`virtual`) or any folder of task files."""
    p = Path(name_or_path)
    if p.is_dir():
        return p
    bundled = SUITES_DIR / str(name_or_path)
    if bundled.is_dir():
        return bundled
    names = sorted(d.name for d in SUITES_DIR.iterdir() if d.is_dir()) if SUITES_DIR.is_dir() else []
    raise TaskError(
        f"no task suite {str(name_or_path)!r}: not a folder, and not a bundled suite "
        f"({', '.join(names) or 'none bundled'})"
    )


def load_suite(name_or_path: str | Path) -> list[Task]:
    """Every `*.json` task of the suite, sorted by id; ids must be unique. A family spec
    (`family:NAME:seed=S:instances=K`, `tasks.families.registry.family_spec`) is that family's K instances drawn
    with seed S."""
    if is_family_spec(str(name_or_path)):
        return spec_tasks(str(name_or_path))
    folder = suite_path(name_or_path)
    tasks: dict[str, tuple[Task, Path]] = {}
    for f in sorted(folder.glob("*.json")):
        t = load_task(f)
        if t.id in tasks:
            raise TaskError(f"{f}: task id {t.id!r} is already used by {tasks[t.id][1]}")
        tasks[t.id] = (t, f)
    if not tasks:
        raise TaskError(f"{folder}: no task files (*.json)")
    return [tasks[k][0] for k in sorted(tasks)]


def task_packages(tasks: Iterable[Task]) -> tuple[str, ...]:
    """The apps (packages, or roles such as `@clock`) these tasks use, sorted: what a run's devices warm up."""
    return tuple(sorted({a for t in tasks for a in t.apps}))


def suite_packages(name_or_path: str | Path, task_ids: tuple[str, ...] = ()) -> tuple[str, ...]:
    """The apps the suite's tasks use (`task_packages`) - only those of `task_ids` when any are given."""
    wanted = set(task_ids)
    return task_packages(t for t in load_suite(name_or_path) if not wanted or t.id in wanted)


def is_portable_suite(name_or_path: str | Path) -> bool:
    """Whether the suite is the bundled `portable` one (whose tasks `tasks check` requires to be portable)."""
    if is_family_spec(str(name_or_path)):
        return False
    return suite_path(name_or_path).resolve() == (SUITES_DIR / PORTABLE_SUITE).resolve()
