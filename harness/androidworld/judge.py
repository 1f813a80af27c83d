"""One AndroidWorld task instance on one leased device, set up and judged by AndroidWorld's own code (an
`OutsideJudge`, harness.run.loop.outside):

1. `set_up`: where the device has no app snapshot yet (`/data/data/android_world/snapshots/<package>`: a fresh
   embedded device or emulator), AndroidWorld's one-time step for the instance's apps (its `setup_app`: the app's
   own set-up, then its snapshot; nothing installed or downloaded), kept by the slot's resets from then on
   (`rebase`: the device's state becomes what they restore); then the class's own `initialize_task(env)`.
   AndroidWorld's `initialize_task` reseeds Python's global `random`, so those (and the verdict before, which may
   set the instance up again) take turns in one process (`SETUP_LOCK`); the apps' one-time steps do not.
   Then the verdict before any action (`success_before`: AndroidWorld's `*Verify` classes are met at the start),
   taken without changing what the agent starts from - a judge may launch an app or press BACK: the state
   `initialize_task` left is saved as a snapshot on the device's emulator console and loaded again after the
   verdict; a device without a console is set up once more instead (`tear_down`, then `initialize_task` of the
   same parameters, which reseeds as before). An error there is recorded as null.
   Any exception in AndroidWorld's set-up is an infrastructure failure naming the class (`SetUpError`: retried on
   a fresh device).
2. `judge`: the agent's answer in `env.interaction_cache`, then the class's own `is_successful(env)`. Its score is the
   episode's (1.0 solved; a composite task's share as progress). An exception is recorded (`judge_error`), never
   retried; AndroidWorld's figure leaves the episode out, as its runner does.
3. `tear_down`: the class's own; an exception is recorded.

On a device running on its virtual clock, AndroidWorld's own `time.sleep`s in these pass on the device's clock
(harness.androidworld.sleeps); `device_waits` records how many seconds did.
"""

from __future__ import annotations

import contextlib
import dataclasses
import json
import logging
import threading
import time
import traceback
from collections.abc import Iterator
from typing import Any

from harness.androidworld.binding import Binding, TaskMeta
from harness.androidworld.env import AwEnv
from harness.androidworld.sleeps import device_sleeps
from harness.device.devicetime import DEVICE_CLOCK
from harness.errors import InfrastructureError, describe_error
from harness.run.loop.outside import OutsideVerdict

log = logging.getLogger(__name__)
SETUP_LOCK = threading.Lock()  # AndroidWorld's set-up reseeds the process-wide `random`
START_SNAPSHOT = "droidharness-androidworld-start"
KEY = "androidworld"


class SetUpError(InfrastructureError):
    """AndroidWorld's own set-up of a task failed on a device (names the class, the instance and the device)."""


def _plain(value: Any) -> Any:
    """A value JSON cannot hold as itself: a dataclass row (AndroidWorld's `Expense`, `Recipe`, ...) as its fields,
    anything else (dates, images) as its text."""
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return dataclasses.asdict(value)
    return str(value)


def jsonable(value: Any) -> Any:
    """`value` as JSON can hold it (dataclass rows as their fields; dates and other objects as their text)."""
    return json.loads(json.dumps(value, default=_plain, ensure_ascii=False))


def needed_apps(instance: Any) -> tuple[str, ...]:
    """The apps an instance needs: its class's `app_names`, with the app its parameters drew (`app_name`) in place
    of the many a class may list (`OpenAppTaskEval` draws one of five) or beside them (`TurnOnWifiAndOpenApp`
    names Settings and opens the drawn app)."""
    listed = tuple(a for a in instance.app_names if a)
    drawn = instance.params.get("app_name") if isinstance(instance.params, dict) else None
    if not isinstance(drawn, str) or not drawn:
        return listed
    if drawn in listed:
        return (drawn,)
    return (*listed, drawn)


def _short(e: BaseException) -> str:
    return describe_error(e).strip().splitlines()[0][:500] if str(e).strip() else type(e).__name__


class AwJudge:
    key = KEY

    def __init__(
        self,
        name: str,
        index: int,
        instance: Any,
        env: AwEnv,
        binding: Binding,
        meta: TaskMeta | None = None,
        seed: int | None = None,
    ) -> None:
        self.name, self.index, self.instance, self.env, self.binding = name, index, instance, env, binding
        self.meta = meta or TaskMeta()
        self.seed = seed
        self.serial = env.controller.device.serial
        self.apps_set_up: list[str] = []  # apps given AndroidWorld's one-time step here (no snapshot yet)
        self.rebased: bool | None = None  # whether the slot's resets keep that step (None: none was taken)
        self.before: float | None = None
        self.before_error: str | None = None
        self.verdict: OutsideVerdict | None = None
        self.done = False
        self.tear_down_error: str | None = None
        device = env.controller.device
        self._wait = device.device_time.wait if device.config.clock == DEVICE_CLOCK else None
        self.device_waits: float | None = 0.0 if self._wait is not None else None
        # host seconds of AndroidWorld's own steps: its one-time app step, initialize_task + the verdict before (the
        # lock's wait for another device's set-up left out), is_successful, tear_down
        self.seconds: dict[str, float] = {}

    # --- set-up -----------------------------------------------------------------------------------------------
    def _fail(self, what: str, e: BaseException) -> SetUpError:
        return SetUpError(f"AndroidWorld's {self.name} (instance {self.index}) on {self.serial}: {what}: {_short(e)}")

    @contextlib.contextmanager
    def _device_clock(self) -> Iterator[None]:
        """AndroidWorld's own waits in the block pass on a virtual-clock device's clock; counted in `device_waits`."""
        with device_sleeps(self._wait, self.binding.package) as slept:
            try:
                yield
            finally:
                if self.device_waits is not None:
                    self.device_waits += slept.seconds

    @contextlib.contextmanager
    def _timed(self, what: str) -> Iterator[None]:
        t0 = time.perf_counter()
        try:
            yield
        finally:
            self.seconds[what] = round(self.seconds.get(what, 0.0) + time.perf_counter() - t0, 4)

    def set_up(self) -> None:
        with self._device_clock():
            with self._timed("apps"):
                self._apps()  # on each device at once: nothing of it draws from `random`
            with SETUP_LOCK, self._timed("set_up"):
                self._initialize()
                self._verdict_before()

    def _apps(self) -> None:
        controller = self.env.controller
        try:
            for app in needed_apps(self.instance):
                if app != "clipper" and not self.binding.has_snapshot(app, controller):
                    self.binding.set_up_app(app, self.env)
                    self.apps_set_up.append(app)
        except InfrastructureError:
            raise
        except Exception as e:  # noqa: BLE001 - AndroidWorld's one-time step failed: the device's fault
            raise self._fail("setting up its apps", e) from e
        if self.apps_set_up:  # kept by the slot's resets, as on an emulator AndroidWorld set up once
            self.rebased = self.env.controller.doors.rebase()

    def _initialize(self) -> None:
        self.instance.initialized = False  # a retried attempt sets the same instance up again
        try:
            self.instance.initialize_task(self.env)
        except InfrastructureError:
            raise
        except Exception as e:  # noqa: BLE001 - anything AndroidWorld's set-up raises
            log.debug("%s initialize_task: %s", self.name, traceback.format_exc())
            raise self._fail("initialize_task", e) from e

    def _verdict_before(self) -> None:
        doors = self.env.controller.doors
        saved = doors.console(f"avd snapshot save {START_SNAPSHOT}") is not None
        try:
            self.before = float(self.instance.is_successful(self.env))
        except InfrastructureError:
            raise
        except Exception as e:  # noqa: BLE001 - a judge that cannot judge the start: recorded as null
            self.before, self.before_error = None, _short(e)
        self.env.interaction_cache = ""
        if saved:
            doors.console(f"avd snapshot load {START_SNAPSHOT}")
            return
        try:  # no console: the same parameters set up once more (initialize_task reseeds as before)
            self.instance.tear_down(self.env)
        except Exception as e:  # noqa: BLE001 - AndroidWorld's tear-down is best effort in its own runner too
            log.debug("%s tear_down before re-initializing: %s", self.name, e)
        self._initialize()

    # --- the verdict ------------------------------------------------------------------------------------------
    def judge(self, answer: str | None, done: bool) -> OutsideVerdict:
        self.done = done
        self.env.interaction_cache = answer or ""
        try:
            with self._device_clock(), self._timed("judge"):
                score = float(self.instance.is_successful(self.env))
            self.verdict = OutsideVerdict(max(0.0, min(1.0, score)))
        except InfrastructureError:
            raise
        except Exception as e:  # noqa: BLE001 - the judge's own failure: recorded, left out of its figure
            self.verdict = OutsideVerdict(None, f"{self.name}.is_successful: {_short(e)}")
        return self.verdict

    def tear_down(self) -> None:
        try:
            with self._device_clock(), self._timed("tear_down"):
                self.instance.tear_down(self.env)
        except Exception as e:  # noqa: BLE001 - recorded; the pool resets the device before its next episode
            self.tear_down_error = _short(e)

    # --- the record ---------------------------------------------------------------------------------------------
    @property
    def aw_score(self) -> float | None:
        """The episode's `is_successful` as AndroidWorld's runner records it: the judge's score when the agent
        declared the task done, else 0; None when the judge failed (its runner leaves such episodes out)."""
        v = self.verdict
        if v is None or v.score is None:
            return None
        return v.score if self.done else 0.0

    def record(self) -> dict[str, Any]:
        v = self.verdict
        return {
            "class": self.name,
            "instance": self.index,
            "seed": self.seed,
            "params": jsonable(self.instance.params),
            "goal": str(self.instance.goal),
            "complexity": jsonable(self.instance.complexity),
            "apps": list(needed_apps(self.instance)),
            "difficulty": self.meta.difficulty,
            "tags": list(self.meta.tags),
            "success_before": self.before,
            "success_before_error": self.before_error,
            "score": v.score if v else None,
            "judge_error": v.error if v else None,
            "done": self.done,
            "aw_score": self.aw_score,
            "apps_set_up": self.apps_set_up,
            "rebased": self.rebased,
            "tear_down_error": self.tear_down_error,
            "device_waits": round(self.device_waits, 3) if self.device_waits is not None else None,
            "seconds": dict(self.seconds),
        }


__all__ = ["KEY", "START_SNAPSHOT", "AwJudge", "SetUpError", "jsonable", "needed_apps"]
