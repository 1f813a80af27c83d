"""A task family: a task template with typed parameters (`tasks.families.params`) and a seeded generator.

`instantiate(family, seed, count)` draws `count` DISTINCT parameter sets from one `random.Random` seeded by
(family, seed) and builds each into a task (validated by `tasks.schema`): the same seed gives the same tasks,
byte for byte once written (`task_json`). Instance `i` is `<family>-s<seed>-<i>`; its tags name the family,
the seed and the parameter values (`param:NAME=VALUE`). The build puts everything that depends on the
parameters into the task: the start state (provider rows, contacts), the instruction in en and zh, the
milestones, the end state (state checks where Android keeps the state) and the reference solution.
"""

from __future__ import annotations

import json
import random
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tasks.schema import Task, TaskError, parse_task

from .params import Param, describe

Build = Callable[[Mapping[str, Any]], dict[str, Any]]  # parameter values -> task JSON (no id / tags)
MAX_REDRAWS = 200  # draws tried for one new distinct instance before the family counts as exhausted


@dataclass(frozen=True)
class Family:
    name: str
    description: str  # one line, for `droidharness tasks families`
    params: Mapping[str, Param[Any]]
    build: Build

    def draw(self, rng: random.Random) -> dict[str, Any]:
        return {k: p.draw(rng) for k, p in self.params.items()}


def instance_id(family: str, seed: int, i: int) -> str:
    return f"{family}-s{seed}-{i}"


def make_task(family: Family, values: Mapping[str, Any], seed: int, i: int) -> Task:
    data = family.build(values)
    tags = [f"family:{family.name}", f"seed:{seed}", *(f"param:{k}={describe(v)}" for k, v in values.items())]
    data = {"id": instance_id(family.name, seed, i), **data, "tags": [*data.get("tags", []), *tags]}
    return parse_task(data, source=f"family {family.name} (seed {seed}, instance {i})")


def instantiate(family: Family, seed: int, count: int) -> list[Task]:
    """`count` tasks with distinct parameters, deterministic in (family, seed)."""
    if count < 1:
        raise TaskError(f"family {family.name}: --count must be at least 1, got {count}")
    rng = random.Random(f"{family.name}:{seed}")
    seen: list[dict[str, Any]] = []
    tasks: list[Task] = []
    for i in range(count):
        for _ in range(MAX_REDRAWS):
            values = family.draw(rng)
            if values not in seen:
                break
        else:
            raise TaskError(f"family {family.name} has only {len(seen)} distinct instances; asked for {count}")
        seen.append(values)
        tasks.append(make_task(family, values, seed, i))
    return tasks


def task_json(task: Task) -> str:
    """A task as the file `tasks instantiate` writes (stable: same task, same bytes)."""
    return json.dumps(task.model_dump(mode="json", exclude_defaults=True), ensure_ascii=False, indent=2) + "\n"


def write_tasks(tasks: list[Task], out: Path) -> list[Path]:
    out.mkdir(parents=True, exist_ok=True)
    paths = []
    for t in tasks:
        p = out / f"{t.id}.json"
        p.write_text(task_json(t), encoding="utf-8")
        paths.append(p)
    return paths
