"""The `dialog` and `popup` interruptions on a device (harness/device/perturb.py, driven by
harness/run/loop/perturb.py), through the real adb server to the embedded virtual device: each kind comes before
the screen of its step as its own window (the ANR dialog of package `android`, the permission prompt of the
permission controller, SystemUI's low-battery heads-up after `dumpsys battery unplug` / `set level 4`, the app's
rating prompt or promo), stays on the screens of an agent that does nothing about it, hits no milestone, and is
recorded (name, kind, step, applied); the battery is reset at the episode's end; a device without the receiver
(a phone) refuses with its own answer and the episode runs."""

from __future__ import annotations

from typing import Any

import pytest

from emulator.virtual.shell import cmd_am
from emulator.virtual.sysdialogs import ACTION
from harness.actions import Complete, OpenApp, Wait
from harness.agent import AgentStep, EpisodeContext
from harness.device.perturb import INTERRUPT_ACTION
from harness.device.preparation import PreparationPlan
from harness.device.prepare import prepare
from harness.perturbation import Perturbation, PerturbPlan
from harness.run.loop.episode import run_episode
from harness.run.loop.perturb import interruption_step, interruption_window
from tasks.schema import Task
from tasks.suite import load_suite
from tests.device_util import open_device

TASK = "messages-text-number"
APP = "com.google.android.apps.messaging"
# kind -> (name, what its window shows in the tree: package, resource id)
SHOWS = {
    "anr": ("dialog", ("android", "android:id/aerr_wait")),
    "permission": (
        "dialog",
        ("com.google.android.permissioncontroller", "com.android.permissioncontroller:id/permission_deny_button"),
    ),
    "battery": ("dialog", ("com.android.systemui", "com.android.systemui:id/heads_up_notification")),
    "rate": ("popup", (APP, f"{APP}:id/not_now_button")),
    "promo": ("popup", (APP, f"{APP}:id/promo_close")),
}


@pytest.fixture
def dev(adb_server, vdevice):
    d = open_device(adb_server, vdevice, use_u2=False)
    prepare(d, PreparationPlan())  # heads-up off, as the pool prepares every device
    yield d
    d.close()


class Idle:
    """Opens the task's app, then waits (no input reaches an interruption), then COMPLETE at its last step."""

    name = "idle"

    def __init__(self, steps: int = 4) -> None:
        self.steps = steps
        self.windows: list[set[tuple[str, str]]] = []

    def reset(self, ctx: EpisodeContext) -> None:
        self.windows = []

    def act(self, observation: Any, history: list) -> AgentStep:
        self.windows.append({(el.package, el.resource_id) for el in observation.tree if el.resource_id})
        if not history:
            return AgentStep(action=OpenApp(package=APP))
        if len(history) + 1 >= self.steps:
            return AgentStep(action=Complete())
        return AgentStep(action=Wait(duration=0.1))


def _plan(name: str, kind: str, step: int, task: Task, episode_seed: int) -> PerturbPlan:
    window = interruption_window(task, "en", task.max_steps)
    seed = next(s for s in range(2000) if interruption_step(name, s, episode_seed, task.max_steps, window) == step)
    return PerturbPlan((Perturbation(name, kind),), seed)


def test_the_harness_and_the_device_agree_on_the_broadcast():
    assert INTERRUPT_ACTION == ACTION


@pytest.mark.parametrize("kind", list(SHOWS))
def test_each_kind_comes_before_its_steps_screen_hits_no_milestone_and_is_put_back(dev, vdevice, adb_cli, kind):
    name, window = SHOWS[kind]
    task = next(t for t in load_suite("virtual") if t.id == TASK)
    agent = Idle()
    result = run_episode(task, agent, dev, "en", seed=11, perturb=_plan(name, kind, 2, task, 11))
    (record,) = result.perturbations
    assert (record.name, record.value, record.step, record.applied) == (name, kind, 2, True), record
    assert [window in w for w in agent.windows] == [False, True, True, True], "on every screen from step 2"
    assert result.progress == 0 and not result.success, "the interruption hits no milestone by itself"
    battery = adb_cli("-s", vdevice.serial, "shell", "dumpsys battery").stdout.decode()
    assert "  level: 100\n" in battery and "USB powered: true" in battery, "the battery reset at the end"


def test_a_drawn_kind_is_seeded(dev):
    task = next(t for t in load_suite("virtual") if t.id == TASK)
    kinds = []
    for seed in (1, 2, 3, 4, 5, 6):
        plan = PerturbPlan((Perturbation("dialog"),), seed)
        result = run_episode(task, Idle(steps=1), dev, "en", seed=5, perturb=plan)
        kinds.append(result.perturbations[0].value)
    assert set(kinds) <= {"anr", "battery", "permission"} and len(set(kinds)) > 1


def test_a_device_without_the_receiver_refuses_with_its_answer_and_the_episode_runs(dev, monkeypatch):
    """A phone has no receiver for the broadcast: `Broadcast completed: result=0`, nothing shown."""
    monkeypatch.setattr(cmd_am, "receive", lambda model, action, extras: None)
    task = next(t for t in load_suite("virtual") if t.id == TASK)
    result = run_episode(task, Idle(), dev, "en", seed=11, perturb=_plan("dialog", "anr", 2, task, 11))
    (record,) = result.perturbations
    assert not record.applied and record.step == 2 and record.value == "anr"
    assert record.reason.startswith("the device refused it: no receiver showed it (`am broadcast -a ")
    assert record.reason.endswith("--es kind anr`: result=0); only the embedded virtual device has one")
    assert result.steps == 4
