"""Perturbations on a device (harness/device/perturb.py, driven by harness/run/loop/perturb.py), through the real adb
server to the embedded virtual device: each screen condition is applied by Android's own shell command and read
back, then put back; an episode runs under all of them and leaves the device as it found it; the notification is
posted before its step's screen, which shows it as a heads-up, and `dumpsys notification` lists it; what a device
refuses - a command it rejects, a value that does not read back - is recorded with its words and the episode still
runs. `size=` / `density=` are checked as commands applied and put back, not as screenshot sizes (the virtual
device renders display overrides in a later change)."""

from __future__ import annotations

from typing import Any

import pytest

from emulator.virtual.shell import cmd_system, registry
from harness.actions import Complete, Wait
from harness.agent import AgentStep, EpisodeContext
from harness.device.perturb import apply_conditions, post_notification, restore_conditions
from harness.device.preparation import PreparationPlan
from harness.device.prepare import prepare
from harness.perturbation import Perturbation, PerturbPlan
from harness.run.loop.episode import run_episode
from harness.run.loop.perturb import NOTIFICATION_TAG, interruption_window, notification_step
from tasks.schema import Task
from tasks.suite import load_suite
from tests.device_util import open_device

TASK = "messages-text-number"  # checks none of the settings a perturbation changes


@pytest.fixture
def dev(adb_server, vdevice):
    d = open_device(adb_server, vdevice, use_u2=False)
    prepare(d, PreparationPlan())  # as the pool prepares every device: animations off, heads-up off, ...
    yield d
    d.close()


def reader(adb_cli, serial: str):
    def get(line: str) -> str:
        r = adb_cli("-s", serial, "shell", line)
        return (r.stdout + r.stderr).decode().strip()

    return get


# condition -> {command read on the device: (while applied, after it is put back)}
CHECKS: dict[str, dict[str, tuple[str, str]]] = {
    "dark": {
        "cmd uimode night": ("Night mode: yes", "Night mode: no"),
        "settings get secure ui_night_mode": ("2", "1"),
    },
    "font=1.3": {"settings get system font_scale": ("1.3", "1.0")},
    "size=720x1600": {"wm size": ("Physical size: 1080x2400\nOverride size: 720x1600", "Physical size: 1080x2400")},
    "density=320": {"wm density": ("Physical density: 420\nOverride density: 320", "Physical density: 420")},
    "landscape": {
        "settings get system accelerometer_rotation": ("0", "null"),
        "settings get system user_rotation": ("1", "null"),
        "wm user-rotation": ("lock 1", "lock 0"),
    },
    "animations": {
        f"settings get global {k}": ("1", "0")
        for k in ("window_animation_scale", "transition_animation_scale", "animator_duration_scale")
    },
    "notification": {"settings get global heads_up_notifications_enabled": ("1", "0")},
}


def _plan(labels: list[str], seed: int = 0) -> PerturbPlan:
    return PerturbPlan.parse(",".join(labels), seed)


@pytest.mark.parametrize("label", list(CHECKS))
def test_each_condition_is_applied_by_the_devices_own_command_read_back_and_put_back(dev, vdevice, adb_cli, label):
    get = reader(adb_cli, vdevice.serial)
    checks = CHECKS[label]
    assert {line: get(line) for line in checks} == {line: after for line, (_, after) in checks.items()}
    (record,), changed = apply_conditions(dev, _plan([label]).perturbations)
    assert record.applied and record.reason == "" and record.step is None, record
    assert {line: get(line) for line in checks} == {line: now for line, (now, _) in checks.items()}
    assert restore_conditions(dev, changed) == []
    assert {line: get(line) for line in checks} == {line: after for line, (_, after) in checks.items()}


class Reading:
    """An agent that waits `steps` steps, reading the device over adb at each (what the screen conditions are
    mid-episode) and keeping each screen's element ids, then completes."""

    name = "reading"

    def __init__(self, get: Any, lines: list[str], steps: int = 3) -> None:
        self.get, self.lines, self.steps = get, lines, steps
        self.read: list[dict[str, str]] = []
        self.ids: list[set[str]] = []

    def reset(self, ctx: EpisodeContext) -> None:
        self.read, self.ids = [], []

    def act(self, observation: Any, history: list) -> AgentStep:
        self.read.append({line: self.get(line) for line in self.lines})
        self.ids.append({el.resource_id for el in observation.tree if el.resource_id})
        if len(history) + 1 >= self.steps:
            return AgentStep(action=Complete())
        return AgentStep(action=Wait(duration=0.1))


def _seed_for_step(task: Task, episode_seed: int, step: int) -> int:
    window = interruption_window(task, "en", task.max_steps)
    return next(s for s in range(1000) if notification_step(s, episode_seed, task.max_steps, window) == step)


def test_an_episode_runs_under_every_condition_and_leaves_the_device_as_it_found_it(dev, vdevice, adb_cli):
    get = reader(adb_cli, vdevice.serial)
    task = next(t for t in load_suite("virtual") if t.id == TASK)
    lines = [line for checks in CHECKS.values() for line in checks]
    before = {line: get(line) for line in lines}
    agent = Reading(get, lines)
    seed = _seed_for_step(task, 11, 2)
    result = run_episode(task, agent, dev, "en", seed=11, perturb=_plan(list(CHECKS), seed))
    assert [(p.label, p.applied, p.step) for p in result.perturbations] == [
        (label, True, 2 if label == "notification" else None) for label in CHECKS
    ]
    during = {line: now for checks in CHECKS.values() for line, (now, _) in checks.items()}
    assert agent.read[0] == during, "every condition holds from the first screen on"
    # the heads-up: posted before the screen of step 2 and on it from there (a WAIT is no input: it stays), listed by
    # the notification service
    heads_up = "com.android.systemui:id/heads_up_notification"
    assert [heads_up in ids for ids in agent.ids] == [False, True, True]
    assert f"tag={NOTIFICATION_TAG}" in get("dumpsys notification")
    assert get("cmd notification list") == f"0|com.android.shell|2020|{NOTIFICATION_TAG}|2000"
    assert {line: get(line) for line in lines} == before, "put back at the episode's end"


def test_a_command_the_device_rejects_is_recorded_with_its_words_and_the_episode_runs(
    dev, vdevice, adb_cli, monkeypatch
):
    """No uimode service (`cmd: Can't find service: uimode`) and a `wm density` the device refuses (a phone that
    does not let the shell change it): not applied, the device's own words as the reason; the other conditions
    are applied and the episode is scored as usual."""
    monkeypatch.delitem(cmd_system.SERVICE_SHELLS, "uimode")
    wm = registry.COMMANDS["wm"]

    def refusing_wm(ctx: Any, argv: list[str]) -> int:
        if argv[1:2] == ["density"] and len(argv) > 2:
            ctx.errln("java.lang.SecurityException: Must have WRITE_SECURE_SETTINGS permission")
            return 255
        return wm(ctx, argv)

    monkeypatch.setitem(registry.COMMANDS, "wm", refusing_wm)
    get = reader(adb_cli, vdevice.serial)
    task = next(t for t in load_suite("virtual") if t.id == TASK)
    result = run_episode(task, Reading(get, [], steps=1), dev, "en", perturb=_plan(["dark", "density=320", "font=1.3"]))
    dark, density, font = result.perturbations
    assert not dark.applied and "Can't find service: uimode" in dark.reason
    assert dark.reason.startswith("the device refused it: night_mode: `cmd uimode night yes`")
    assert not density.applied and "SecurityException: Must have WRITE_SECURE_SETTINGS" in density.reason
    assert font.applied
    assert result.status == "failed" and result.steps == 1  # the episode ran (and the agent did not solve it)
    assert get("settings get system font_scale") == "1.0" and "Override density" not in get("wm density")


def test_a_value_that_does_not_read_back_is_not_applied(dev, vdevice, adb_cli, monkeypatch):
    """A device that answers `wm size WxH` without an error and keeps its size: the read-back says so."""
    wm = registry.COMMANDS["wm"]
    monkeypatch.setitem(
        registry.COMMANDS, "wm", lambda ctx, argv: 0 if argv[1:2] == ["size"] and len(argv) > 2 else wm(ctx, argv)
    )
    (record,), changed = apply_conditions(dev, [Perturbation("size", "720x1600")])
    assert not record.applied
    assert record.reason == "the device refused it: wm:size: `wm size` reads back no override"
    assert restore_conditions(dev, changed) == []


def test_a_notification_the_device_does_not_list_is_refused_with_its_answer(dev, vdevice, monkeypatch):
    """A release whose notification service has no `post` (before Android 10) answers `Unknown command: post`."""
    assert post_notification(dev, "t1", "Title", "Some text") is None
    shell = cmd_system.SERVICE_SHELLS["notification"]

    def old(ctx: Any, argv: list[str]) -> int:
        if argv[2:3] == ["post"]:
            ctx.outln("Unknown command: post")
            return 255
        return shell(ctx, argv)

    monkeypatch.setitem(cmd_system.SERVICE_SHELLS, "notification", old)
    why = post_notification(dev, "t2", "Title", "Some text")
    assert why == (
        "`cmd notification post -S bigtext -t Title t2 'Some text'`: Unknown command: post; "
        "`cmd notification list` does not list it"
    )
