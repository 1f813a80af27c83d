"""What the suite takes from AndroidWorld's package, in one place: its registry's task classes, its instances (its
own `suite_utils.create_suite`, so the parameters are those its `run.py` draws with the same seed), the package an app
name stands for, its app snapshots, its task metadata. `AwBinding` is the installed package; a test gives the suite
another binding (task classes of its own) to prove the suite's paths without AndroidWorld installed."""

from __future__ import annotations

import json
from dataclasses import dataclass
from importlib import resources
from typing import Any, Protocol

from harness.errors import ConfigError

FAMILY = "android_world"  # the registry family the suite runs (all of AndroidWorld's 116 task classes today)
AW_SEED = 30  # AndroidWorld's run.py default --task_random_seed
DOWNLOADS = ("osmand",)  # apps whose AndroidWorld set-up downloads data (a map): set up here without it
INSTALL_HINT = (
    "--suite androidworld needs AndroidWorld, which is not on PyPI: install its requirements and then the package "
    "from a checkout of github.com/google-research/android_world (`pip install -r requirements.txt && pip install .`), "
    "then this project with its extra (`pip install -e '.[androidworld]'`); see docs/androidworld.md"
)


@dataclass(frozen=True)
class TaskMeta:
    """AndroidWorld's task metadata for a class (task_metadata.json): how it groups results."""

    difficulty: str = ""
    tags: tuple[str, ...] = ()
    optimal_steps: int | None = None


class Binding(Protocol):
    package: str  # the package of the task classes' code (whose own waits pass on a virtual-clock device)

    def classes(self) -> dict[str, type]: ...

    def instances(self, names: list[str], combinations: int, seed: int) -> dict[str, list[Any]]: ...

    def package_of(self, app_name: str) -> str | None: ...

    def has_snapshot(self, app_name: str, controller: Any) -> bool: ...

    def set_up_app(self, app_name: str, env: Any) -> None: ...

    def metadata(self) -> dict[str, TaskMeta]: ...


def available() -> bool:
    """Is AndroidWorld's package importable here?"""
    import importlib.util

    return importlib.util.find_spec("android_world") is not None


class AwBinding:
    """The installed `android_world` package."""

    package = "android_world"

    def __init__(self) -> None:
        if not available():
            raise ConfigError(INSTALL_HINT)

    def classes(self) -> dict[str, type]:
        from android_world import registry

        found: dict[str, type] = registry.TaskRegistry().get_registry(family=FAMILY)
        return found

    def instances(self, names: list[str], combinations: int, seed: int) -> dict[str, list[Any]]:
        from android_world import suite_utils

        made: dict[str, list[Any]] = suite_utils.create_suite(
            self.classes(), n_task_combinations=combinations, seed=seed, tasks=names or None
        )
        return dict(made)

    def package_of(self, app_name: str) -> str | None:
        from android_world.env import adb_utils

        activity = adb_utils.get_adb_activity(app_name)
        return str(adb_utils.extract_package_name(activity)) if activity else None

    def has_snapshot(self, app_name: str, controller: Any) -> bool:
        from android_world.env import device_constants
        from android_world.utils import file_utils

        package = self.package_of(app_name)
        path = file_utils.convert_to_posix_path(device_constants.SNAPSHOT_DATA, package or app_name)
        return bool(file_utils.check_directory_exists(path, controller))

    def set_up_app(self, app_name: str, env: Any) -> None:
        """AndroidWorld's one-time step for an installed app (its `setup.setup_app`: the app's own set-up - first
        launch, permissions, the default SMS app, ... - then its snapshot), never installing anything; an app whose
        set-up downloads data (OsmAnd's map: its MAP_NAMES) gets the rest of it (first launch, SKIP DOWNLOAD,
        permissions)."""
        from android_world.env import adb_utils
        from android_world.env.setup_device import setup
        from android_world.utils import app_snapshot

        adb_utils.set_root_if_needed(env.controller)  # as its setup_apps does before the apps' steps
        app = setup.get_app_mapping(app_name)
        if app is None:
            app_snapshot.save_snapshot(app_name, env.controller)
            return
        if app_name in DOWNLOADS:
            app = type(app.__name__, (app,), {"MAP_NAMES": ()})
        setup.setup_app(app, env)

    def metadata(self) -> dict[str, TaskMeta]:
        text = resources.files("android_world").joinpath("task_metadata.json").read_text()
        out: dict[str, TaskMeta] = {}
        for row in json.loads(text):
            steps = str(row.get("optimal_steps") or "")
            out[str(row["task_name"])] = TaskMeta(
                str(row.get("difficulty") or ""),
                tuple(str(t) for t in row.get("tags") or ()),
                int(steps) if steps.isdigit() else None,
            )
        return out


__all__ = ["AW_SEED", "FAMILY", "INSTALL_HINT", "AwBinding", "Binding", "TaskMeta", "available"]
