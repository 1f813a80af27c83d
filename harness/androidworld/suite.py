"""`droidharness run --suite androidworld`: AndroidWorld's own task classes as a DroidHarness suite.

The instances are AndroidWorld's (its `create_suite` under `--aw-seed`, default its 30, `--aw-combinations N` per
class), so their parameters are those its `run.py` draws with the same seed. Each becomes a `Task` of the harness
(id: the class name, `Name_i` with several instances as AndroidWorld's checkpoints name them; its goal as the
instruction, in English; AndroidWorld's step budget `10 x complexity`) with nothing of its own to judge: an episode's
set-up and verdict are the class's own code (`harness.androidworld.judge.AwJudge`) on the leased device, reached
through `harness.androidworld.env.AwEnv`. Embedded devices are started as emulator images (userdebug: `adb root`
works), as AndroidWorld expects. An instance the device cannot host is skipped before it starts, with why: an app
it needs is not installed (`pm list packages`), or adbd cannot run as root (a user build).
"""

from __future__ import annotations

import copy
import re
import threading
from dataclasses import dataclass, field
from typing import Any

from harness.androidworld.binding import AW_SEED, AwBinding, Binding, TaskMeta
from harness.androidworld.doors import LinkDoors
from harness.androidworld.env import AwEnv
from harness.androidworld.judge import AwJudge, jsonable, needed_apps
from harness.device.apps import parse_package_list
from harness.device.controller import AdbDevice
from harness.device.slotdoors import SlotDoors
from harness.errors import ConfigError
from tasks.schema import MilestoneGroup, Task

SUITE = "androidworld"
IMAGE = "emulator"  # embedded devices as the emulator's userdebug image: AndroidWorld's set-up needs root


@dataclass(frozen=True)
class AwInstance:
    task_id: str
    name: str  # the class name
    index: int
    instance: Any  # the class's instance (a TaskEval)
    meta: TaskMeta


def task_of(inst: AwInstance) -> Task:
    """The harness's view of an instance: its id, goal, apps, step budget; AndroidWorld's code judges it."""
    apps = needed_apps(inst.instance)
    budget = max(1, min(200, int(10 * float(inst.instance.complexity))))
    return Task.model_construct(
        id=inst.task_id,
        instruction={"en": str(inst.instance.goal)},
        category="1-1" if len(apps) <= 1 else "2-1",
        apps=(),
        max_steps=budget,
        milestones=MilestoneGroup.model_construct(children=()),
        tags=(SUITE, *(f"aw:{t}" for t in inst.meta.tags if t)),
        outside={"suite": SUITE, "class": inst.name, "params": jsonable(inst.instance.params)},
    )


@dataclass
class AwSuite:
    """AndroidWorld's suite (see the module docstring); `classes` limits it to some class names (`--task`)."""

    seed: int = AW_SEED
    combinations: int = 1
    classes: tuple[str, ...] = ()
    binding: Binding = field(default_factory=AwBinding)
    name: str = SUITE
    image: str = IMAGE
    _instances: dict[str, AwInstance] = field(default_factory=dict, init=False, repr=False)
    _packages: dict[str, frozenset[str]] = field(default_factory=dict, init=False, repr=False)
    _lock: threading.Lock = field(default_factory=threading.Lock, init=False, repr=False)

    def __post_init__(self) -> None:
        if self.combinations < 1:
            raise ConfigError(f"--aw-combinations must be >= 1, got {self.combinations}")

    def __getstate__(self) -> dict[str, Any]:
        """Pickled (a Ray actor's copy): the options and the binding; the instances are drawn again there, from the
        same seed (AndroidWorld's create_suite is deterministic)."""
        return {k: v for k, v in self.__dict__.items() if k not in ("_instances", "_packages", "_lock")}

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)
        self._instances, self._packages, self._lock = {}, {}, threading.Lock()

    def instances(self) -> dict[str, AwInstance]:
        if not self._instances:
            known = self.binding.classes()
            wanted = [c if c in known else re.sub(r"_\d+$", "", c) for c in self.classes]
            unknown = [c for c, w in zip(self.classes, wanted, strict=True) if w not in known]
            if unknown:
                raise ConfigError(f"unknown AndroidWorld task class(es) {unknown}; see `droidharness tasks list`")
            meta = self.binding.metadata()
            made = self.binding.instances(list(dict.fromkeys(wanted)), self.combinations, self.seed)
            for name in sorted(made):
                for i, inst in enumerate(made[name]):
                    tid = name if self.combinations == 1 else f"{name}_{i}"
                    self._instances[tid] = AwInstance(tid, name, i, inst, meta.get(name, TaskMeta()))
        return self._instances

    def tasks(self) -> list[Task]:
        return [task_of(i) for i in self.instances().values()]

    def select(self, task_ids: tuple[str, ...]) -> tuple[str, ...]:
        """`--task` ids: a class name selects all its instances."""
        ids = self.instances()
        out: list[str] = []
        for t in task_ids:
            hits = [k for k, v in ids.items() if k == t or v.name == t]
            out.extend(hits or [t])  # an unknown id: the run's own selection says so
        return tuple(dict.fromkeys(out))

    def _installed(self, device: AdbDevice) -> frozenset[str]:
        with self._lock:
            known = self._packages.get(device.serial)
        if known is None:
            known = frozenset(parse_package_list(device.shell(["pm", "list", "packages"]).text))
            with self._lock:
                self._packages[device.serial] = known
        return known

    def skip_reason(self, task: Task, device: AdbDevice) -> str | None:
        """Why `device` cannot host the instance (None: it can)."""
        inst = self.instances()[task.id]
        installed = self._installed(device)
        missing = []
        for app in needed_apps(inst.instance):
            package = self.binding.package_of(app)
            if package is not None and package not in installed and app != "clipper":
                missing.append(f"{app} ({package})")
            elif package is None and app != "clipper":
                missing.append(f"{app} (no package known to AndroidWorld)")
        if missing:
            return f"not installed on {device.serial}: {', '.join(missing)}"
        if device.shell(["getprop", "ro.debuggable"]).text.strip() != "1":
            who = device.shell(["whoami"]).text.strip()
            if who != "root":
                return f"{device.serial} cannot run adbd as root (a user build): AndroidWorld's set-up needs root"
        return None

    def judge(self, task: Task, device: AdbDevice, slot: SlotDoors) -> AwJudge:
        inst = self.instances()[task.id]
        env = AwEnv(device, LinkDoors(device, slot))
        # each attempt judges a copy of the pristine instance: AndroidWorld's task objects remember being set up
        # (`initialize_task() is already called`), so a retry after a failed set-up needs one never set up
        fresh = copy.deepcopy(inst.instance)
        return AwJudge(inst.name, inst.index, fresh, env, self.binding, inst.meta, self.seed)


__all__ = ["IMAGE", "SUITE", "AwInstance", "AwSuite", "task_of"]
