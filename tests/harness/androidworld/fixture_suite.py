"""A binding of the AndroidWorld suite to task classes of the tests' own, shaped as AndroidWorld's `TaskEval`s (the
package is not on PyPI, so CI has none of its classes): they set up and judge through the same adapter AndroidWorld's
code reaches (android_env requests on `env.controller`, `env.get_state()`, `env.interaction_cache`) on a real device,
and stand for the paths a run must take: a task the agent must do, one met at its start (`*Verify`), an app the device
lacks, a set-up that raises, a judge that raises, a judge that launches an app, an answer the judge reads.
(AndroidWorld's own screen converters need its package: `get_state` is proven by bench/androidworld.py.)"""

from __future__ import annotations

import time
from typing import Any

from android_env.proto import adb_pb2

from harness.androidworld.binding import TaskMeta

Req = adb_pb2.AdbRequest
SNAPSHOTS = "/data/local/tmp/aw-fixture-snapshots"


def shell(env: Any, line: str) -> str:
    r = env.controller.execute_adb_call(Req(generic=Req.GenericRequest(args=["shell", *line.split(" ")])))
    return str(r.generic.output.decode().strip())


class FixtureTask:
    complexity: float = 1
    app_names: tuple[str, ...] = ("settings",)
    template = "Turn wifi on."

    def __init__(self, params: dict[str, Any]) -> None:
        self._params = params
        self.initialized = False

    @property
    def name(self) -> str:
        return type(self).__name__

    @property
    def params(self) -> dict[str, Any]:
        return self._params

    @property
    def goal(self) -> str:
        return self.template.format(**self._params)

    @classmethod
    def generate_random_params(cls) -> dict[str, Any]:
        return {}

    def initialize_task(self, env: Any) -> None:
        if self.initialized:
            raise RuntimeError(f"{self.name}.initialize_task() is already called.")
        self.initialized = True
        env.interaction_cache = ""
        shell(env, "settings put global wifi_on 0")
        shell(env, "input keyevent KEYCODE_HOME")

    def is_successful(self, env: Any) -> float:
        return 1.0 if shell(env, "settings get global wifi_on") == "1" else 0.0

    def tear_down(self, env: Any) -> None:
        self.initialized = False


class WifiOnVerify(FixtureTask):
    def initialize_task(self, env: Any) -> None:
        super().initialize_task(env)
        shell(env, "settings put global wifi_on 1")


class NeedsMissingApp(FixtureTask):
    app_names = ("settings", "chrome")


class BrokenSetUp(FixtureTask):
    def initialize_task(self, env: Any) -> None:
        raise ValueError("no such table: events")


class BrokenJudge(FixtureTask):
    def is_successful(self, env: Any) -> float:
        raise KeyError("expected_row")


class JudgeOpensSettings(FixtureTask):
    """Its judge launches an app (as some of AndroidWorld's do): the agent must still start on the home screen."""

    def is_successful(self, env: Any) -> float:
        env.controller.execute_adb_call(
            Req(start_activity=Req.StartActivity(full_activity="com.android.settings/.Settings"))
        )
        return 0.0


class AnswerTheQuestion(FixtureTask):
    template = "What is {a} times {b}? Answer with the number."

    @classmethod
    def generate_random_params(cls) -> dict[str, Any]:
        return {"a": 6, "b": 7}

    def is_successful(self, env: Any) -> float:
        return 1.0 if env.interaction_cache.strip() == str(self._params["a"] * self._params["b"]) else 0.0


class WaitsForTheDevice(FixtureTask):
    """Waits as AndroidWorld's SMS set-up does (5 s after sending, twice), then sets wifi on."""

    def initialize_task(self, env: Any) -> None:
        super().initialize_task(env)
        time.sleep(5.0)
        time.sleep(5.0)
        shell(env, "settings put global wifi_on 1")


CLASSES: dict[str, type[FixtureTask]] = {
    c.__name__: c
    for c in (
        FixtureTask,
        WifiOnVerify,
        NeedsMissingApp,
        BrokenSetUp,
        BrokenJudge,
        JudgeOpensSettings,
        AnswerTheQuestion,
        WaitsForTheDevice,
    )
}
PACKAGES = {"settings": "com.android.settings", "chrome": "com.android.chrome"}  # the device has no Chrome


class FixtureBinding:
    package = __name__  # the fixture classes' own waits are "AndroidWorld's"

    def __init__(self) -> None:
        self.snapshots_saved: list[str] = []

    def classes(self) -> dict[str, type]:
        return dict(CLASSES)

    def instances(self, names: list[str], combinations: int, seed: int) -> dict[str, list[Any]]:
        chosen = names or list(CLASSES)
        return {
            n: [CLASSES[n]({**CLASSES[n].generate_random_params(), "seed": seed + i}) for i in range(combinations)]
            for n in chosen
        }

    def package_of(self, app_name: str) -> str | None:
        return PACKAGES.get(app_name)

    def has_snapshot(self, app_name: str, controller: Any) -> bool:
        r = controller.execute_adb_call(
            Req(generic=Req.GenericRequest(args=["shell", f"if [ -d {SNAPSHOTS}/{app_name} ]; then echo yes; fi"]))
        )
        return bool(r.generic.output.decode().strip() == "yes")

    def set_up_app(self, app_name: str, env: Any) -> None:
        shell(env, f"mkdir -p {SNAPSHOTS}/{app_name}")
        self.snapshots_saved.append(app_name)

    def metadata(self) -> dict[str, TaskMeta]:
        return {n: TaskMeta("easy" if "Verify" in n else "medium", ("fixture",), 3) for n in CLASSES}
