"""The same episodes on either clock (issue 39): the bundled suite, en and zh, run on embedded devices on the real
clock and on the virtual one gives identical outcomes, actions and final screens, and the device seconds the
virtual clock records per step are what the real clock measures (the virtual clock counts the device's waits; the
real one counts them too, plus the CPU time the step took, which a loaded machine stretches at will: so the
virtual count is checked against the action's declared waits, never against host seconds).

On the `pixel` latency profile (issue 49) a step's captures overlap on the virtual clock as on the real one: the
latency a step pays is its longest capture's declared cost (the screenshot's, usually), not the sum of its
screenshot's, hierarchy's and focus query's. `bench/virtual_clock.py` prints the ratios to the real clock's."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from emulator.virtual.latency import Latency
from harness.actions import gesture_seconds
from harness.run.fleet.pool import DevicePool
from harness.run.loop.episode import Limits
from harness.run.orchestration.suite import SuiteOptions, run_suite
from harness.trajectory.reader import load_run
from tests.run_util import FAST_WRITER

pytestmark = [pytest.mark.integration, pytest.mark.slow]

# the device waits a step holds beyond its action's own: a tap's hold, settle's pauses (device seconds)
SHORT_WAITS = 0.3
# a random policy's gestures take device time (swipes, long presses, waits): the tasks it is run on (in English:
# the bundled suite's run covers both languages)
RANDOM_TASKS = ("settings-dark-theme", "notes-search-password", "contacts-text-grace", "clock-world-time")
# on `pixel`: every action type of the reference solutions (BACK, SCROLL and TYPE in the first, LONG_PRESS in the
# second, ANSWER in the third) in 21 steps, in English (the real clock sleeps the profile's delays)
PIXEL_TASKS = ("clock-yoga-alarm", "notes-keep-shopping-only", "weather-thursday-high")


def _run(tmp_path: Path, clock: str, agent: str, latency: str = "instant", **kw) -> Path:
    run_id = f"{agent}-{clock}-{latency}"
    with DevicePool(2, clock=clock, latency=latency) as pool:
        opts = SuiteOptions(
            writer=FAST_WRITER, agent=agent, out=tmp_path, run_id=run_id, clock=clock, latency=latency, **kw
        )
        run_suite(opts, pool=pool)
    return tmp_path / run_id


def _episodes(run_dir: Path) -> dict[tuple[str, str], dict]:
    """Per (task, lang): the outcome, the actions, the final screen and each step's device seconds."""
    out = {}
    for ep in load_run(run_dir).episodes.values():
        steps = [json.loads(line) for line in (ep.path / "steps.jsonl").read_text().splitlines() if line]
        meta = ep.meta
        assert meta is not None, ep.path  # every episode finished
        out[(meta.task_id, meta.lang)] = {
            "outcome": (meta.status, meta.success, meta.progress, [m.get("hit_step") for m in meta.milestones]),
            "actions": [s["agent"]["action"] for s in steps],
            "final": meta.final_observation.screenshot if meta.final_observation else None,
            "final_xml": meta.final_observation.xml if meta.final_observation else None,
            "device": [s["timings"].get("device") for s in steps],
            "actuation": [s["timings"].get("actuation") or 0.0 for s in steps],
            # the paths of the observation each step ends with (the next step's, the final one for the last)
            "paths": [s["observation"].get("paths") or {} for s in steps[1:]]
            + [meta.final_observation.paths if meta.final_observation else {}],
        }
    return out


def _same_episodes(real: dict, virtual: dict, latency: str = "instant") -> None:
    assert real.keys() == virtual.keys()
    for key in sorted(real):
        r, v = real[key], virtual[key]
        assert v["outcome"] == r["outcome"], key
        assert v["actions"] == r["actions"], key
        assert (v["final"], v["final_xml"]) == (r["final"], r["final_xml"]), f"{key}: final screens differ"
        for step, (rd, vd, act, action) in enumerate(
            zip(r["device"], v["device"], r["actuation"], r["actions"], strict=True), 1
        ):
            assert rd is not None and vd is not None, (key, step)
            # the real clock waited at least what the virtual one counted, in the step (the virtual count leaves out
            # the clock read's own shell delay, as the host's clock pays none; each side is rounded to 0.01 s:
            # compared in whole centiseconds, as 0.18 + 0.02 is below 0.2 in floating point) ...
            assert round(vd * 100) <= round(rd * 100) + 1, (key, step, rd, vd)
            if latency != "instant":  # the profile's delays: checked against its declared costs (_overlapped_captures)
                continue
            # ... and in its actuation
            assert round(vd * 100) - 2 <= round(act * 100, 6), (key, step, act, vd)
            # ... and the virtual clock counted the action's own waits (its hold, swipe or wait), and beyond them
            # only the device's short waits (a tap's hold, settle's pauses). Both sides are device seconds, not
            # host seconds: how loaded the machine is cannot move them. (A bound on the real run's host seconds
            # failed under CI load: a step's CPU time stretches at will.)
            declared = gesture_seconds(action["type"], action.get("duration"))
            assert declared - 0.02 <= vd <= declared + SHORT_WAITS, (key, step, action, vd)


RESOLUTION = 0.015  # /proc/uptime's 0.01 s, on each of the two readings of a step, rounded to 0.01
ACTION_WAITS = 0.25  # beyond its captures, a step's action and settling make a few calls (RPCs, shell lines)


def _capture_seconds(paths: dict, cost) -> float:
    """The longest declared cost of an observation's captures (made concurrently), by the paths that served it."""
    screenshot = {
        "u2": cost("u2_rpc") + cost("u2_screenshot"),
        "screencap_raw": cost("shell") + cost("screencap_raw"),
        "screencap_png": cost("shell") + cost("screencap_png"),
    }
    hierarchy = {
        "u2": cost("u2_rpc") + cost("u2_hierarchy"),
        "uiautomator_dump": cost("shell") + cost("exec") + cost("uiautomator_dump"),
    }
    app = {"dumpsys": cost("shell") + cost("exec")}  # `dumpsys window | grep ...`
    return max(
        screenshot.get(paths.get("screenshot", ""), 0.0),
        hierarchy.get(paths.get("hierarchy", ""), 0.0),  # "u2 (settle)": settling's poll, reused
        app.get(paths.get("app", ""), 0.0),
    )


def _overlapped_captures(virtual: dict, instant: dict, latency: str) -> None:
    """Per step: the seconds the latency profile added to it on the virtual clock (against the same step without
    latency) are its longest capture's declared cost, plus (for a step that acts) its action's and settling's
    calls - not the clock's read that measured it (`cat /proc/uptime`, a shell line's delay: the host's clock pays
    none); summed, its captures would cost the screenshot's, the hierarchy's and the focus query's (0.345 s on
    `pixel`, 0.165 s above the longest)."""
    cost = Latency(latency).seconds
    for key in sorted(virtual):
        v, i = virtual[key], instant[key]
        assert v["actions"] == i["actions"], key
        for step, (vd, id_, action, paths) in enumerate(
            zip(v["device"], i["device"], v["actions"], v["paths"], strict=True), 1
        ):
            paid = vd - id_
            longest = _capture_seconds(paths, cost)
            assert longest >= cost("u2_rpc") + cost("u2_hierarchy"), (key, step, paths)  # a capture was made
            where = (key, step, action["type"], paths, vd, id_)
            if action["type"] in ("ANSWER", "COMPLETE"):  # no action on the device: its captures alone
                assert abs(paid - longest) <= RESOLUTION, where
            else:
                assert longest - RESOLUTION <= paid <= longest + ACTION_WAITS, where


def test_the_bundled_suite_gives_the_same_episodes_on_both_clocks(tmp_path):
    real = _episodes(_run(tmp_path, "real", "reference"))
    virtual = _episodes(_run(tmp_path, "virtual", "reference"))
    assert len(real) == 72  # 36 tasks, en and zh
    _same_episodes(real, virtual)


def test_a_random_policy_gives_the_same_episodes_on_both_clocks(tmp_path):
    kw: dict[str, Any] = {"task_ids": RANDOM_TASKS, "langs": ("en",), "limits": Limits(max_steps=12), "seed": 7}
    real = _episodes(_run(tmp_path, "real", "random", **kw))
    virtual = _episodes(_run(tmp_path, "virtual", "random", **kw))
    _same_episodes(real, virtual)
    gestures = sum(d for ep in virtual.values() for d in ep["device"])
    assert gestures > 1.0  # its swipes and presses took device time, on both clocks


def test_on_a_phones_latency_a_steps_captures_overlap_on_either_clock(tmp_path):
    kw: dict[str, Any] = {"task_ids": PIXEL_TASKS, "langs": ("en",)}
    real = _episodes(_run(tmp_path, "real", "reference", "pixel", **kw))
    virtual = _episodes(_run(tmp_path, "virtual", "reference", "pixel", **kw))
    assert len(real) == len(PIXEL_TASKS)
    _same_episodes(real, virtual, "pixel")
    instant = _episodes(_run(tmp_path, "virtual", "reference", **kw))  # the same episodes, without latency
    _overlapped_captures(virtual, instant, "pixel")
    kinds = {a["type"] for ep in virtual.values() for a in ep["actions"]}
    assert {"CLICK", "TYPE", "SCROLL", "LONG_PRESS", "BACK", "OPEN_APP", "ANSWER", "COMPLETE"} <= kinds
