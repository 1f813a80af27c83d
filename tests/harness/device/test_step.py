"""`Device.step`: the settled screen after an action is the next observation, captured once: one hierarchy dump
per step through the real adb server, and the in-process device at the same seam behaves the same. Each step says
how long it took on the device's clock (`device`) and on the host's (`wall`): on a virtual-clock device, simulated
time that only its waits move."""

from __future__ import annotations

from typing import Any

import pytest

from agents.reference import ReferenceAgent
from harness import actions as A
from harness.device.controller import AdbDevice, Device
from harness.device.inprocess import InProcessDevice
from harness.errors import ConfigError
from harness.run.loop.episode import Limits, run_episode
from tasks.suite import load_suite
from tests.device_util import open_device

NOTES = "com.droidharness.notes"
TEN_STEPS: list[Any] = [
    A.OpenApp(package=NOTES),
    A.Click(point=A.Point(x=0.5, y=0.3)),
    A.Back(),
    A.Scroll(direction="down"),
    A.Home(),
    A.OpenApp(package="com.android.settings"),
    A.Swipe(start=A.Point(x=0.5, y=0.8), end=A.Point(x=0.5, y=0.4)),
    A.Wait(duration=0.1),
    A.Back(),
    A.Complete(),
]


def _dumps(model: Any, mark: int) -> int:
    """Hierarchy dumps the device served since `mark`: uiautomator2 dumpWindowHierarchy + `uiautomator dump`."""
    evs = model.events.since(mark)
    rpc = sum(1 for e in evs if e.kind == "u2_rpc" and e.data.get("method") == "dumpWindowHierarchy")
    shell = sum(1 for e in evs if e.kind == "exec" and list(e.data.get("argv", []))[:2] == ["uiautomator", "dump"])
    return rpc + shell


def _episode(device: Device, model: Any) -> tuple[int, int]:
    task = next(t for t in load_suite("virtual") if t.id == "notes-search-password")
    mark = model.events.mark()
    r = run_episode(task, ReferenceAgent(actions=TEN_STEPS), device, "en", Limits(max_steps=10))
    assert r.steps == 10 and r.terminated_by == "COMPLETE" and r.invalid_steps == 0, r
    return r.steps, _dumps(model, mark)


def test_one_hierarchy_dump_per_step_through_the_real_adb_server(adb_server, make_vdevice):
    vd = make_vdevice()
    with open_device(adb_server, vd) as dev:
        steps, dumps = _episode(dev, vd.model)
    assert dumps == steps + 1, f"{dumps} hierarchy dumps for {steps} steps (+1: the first observation)"


def test_without_idle_settling_the_last_settle_poll_is_the_next_observation(adb_server, make_vdevice):
    vd = make_vdevice()
    with open_device(adb_server, vd, settle_strategy="poll") as dev:
        obs = dev.observe()
        mark = vd.model.events.mark()
        result, after = dev.step(A.OpenApp(package=NOTES), obs)
        polls = result.settle_polls
        assert polls >= 2 and _dumps(vd.model, mark) == polls, "no dump beyond settling's polls"
        assert after.package == NOTES and after.paths["hierarchy"].endswith("(settle)")
        assert after.tree.find(resource_id=f"{NOTES}:id/fab_add"), "the reused tree is the settled screen's"


def test_the_in_process_device_steps_like_the_adb_one(adb_server, make_vdevice):
    vd = make_vdevice()
    with open_device(adb_server, vd) as adb_dev, InProcessDevice() as local:
        assert isinstance(local, Device) and isinstance(adb_dev, Device)
        seen = []
        for dev in (adb_dev, local):
            obs = dev.observe()
            _, obs = dev.step(A.OpenApp(package=NOTES), obs)
            fab = obs.tree.find(resource_id=f"{NOTES}:id/fab_add")[0]
            _, obs = dev.step(A.Click(element=fab.index), obs)
            res, obs = dev.step(A.TypeText(text="你好 world"), obs)
            seen.append(
                (
                    obs.package,
                    obs.size,
                    res.readback,
                    res.readback_matches,
                    [e.resource_id for e in obs.tree if e.resource_id],
                )
            )
        assert seen[0] == seen[1]
        steps, dumps = _episode(local, local.model)
        assert dumps == steps + 1


# --- the device's time ------------------------------------------------------------------------------------------
def _uptime(vd: Any) -> float:
    """The device's /proc/uptime (its clock), read through the adb server as any client reads it."""
    return float(vd.adb.shell("cat /proc/uptime").split()[0])


def test_a_wait_on_a_virtual_clock_device_passes_on_its_clock(adb_server, make_vdevice):
    vd = make_vdevice(clock="virtual")
    with open_device(adb_server, vd, device_clock="virtual") as dev:
        obs = dev.observe()
        before = _uptime(vd)
        result, obs = dev.step(A.Wait(duration=5), obs)
        after = _uptime(vd)
    assert result.ok and result.timings["device"] == pytest.approx(5.0, abs=0.02)
    assert after - before == pytest.approx(result.timings["device"], abs=0.02), "its /proc/uptime moved as much"


def test_a_swipe_takes_its_duration_on_a_virtual_clock_device(adb_server, make_vdevice):
    vd = make_vdevice(clock="virtual")
    with open_device(adb_server, vd, device_clock="virtual") as dev:
        obs = dev.observe()
        swipe = A.Swipe(start=A.Point(x=0.5, y=0.8), end=A.Point(x=0.5, y=0.3), duration=0.4)
        result, _ = dev.step(swipe, obs)
    assert result.ok and result.timings["device"] >= 0.4


def test_a_real_clock_device_lives_the_host_seconds(adb_server, make_vdevice):
    vd = make_vdevice()
    with open_device(adb_server, vd) as dev:
        assert dev.config.clock == "real"
        obs = dev.observe()
        result, _ = dev.step(A.Wait(duration=0.2), obs)
    t = result.timings
    assert t["device"] >= 0.2 and t["device"] == pytest.approx(t["wall"], abs=0.006)  # the same span, rounded


def test_the_in_process_device_waits_on_its_models_clock():
    with InProcessDevice(clock="virtual") as dev:
        assert dev.config.clock == dev.model.clock.name == "virtual"
        obs = dev.observe()
        start = dev.model.clock.monotonic()
        result, _ = dev.step(A.Wait(duration=5), obs)
        assert result.timings["device"] == pytest.approx(5.0, abs=0.02)
        assert dev.model.clock.monotonic() - start == pytest.approx(result.timings["device"], abs=0.01)
    with InProcessDevice() as dev:
        assert dev.config.clock == dev.model.clock.name == "real"


def test_a_device_that_is_not_started_here_refuses_a_virtual_clock():
    with pytest.raises(ConfigError, match="device NOPE123 keeps its own time: clock 'virtual'"):
        AdbDevice.connect("NOPE123", virtual_clock="virtual")  # before any adb server is asked
