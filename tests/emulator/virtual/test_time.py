"""Gestures take their time as on a phone, through the real adb server and the real uiautomator2 client: the call
returns when the gesture would have ended (its duration; plus the latency profile's delay), on every profile.
The wall clock checks them from below only (a call cannot return before its gesture has ended, however loaded the
machine); that a gesture takes its time and not more is read from the device's own record of it (the duration it
held, from which the call's wait is computed), not from an upper bound on wall time that a loaded machine breaks."""

from __future__ import annotations

import time

import pytest

pytestmark = pytest.mark.timeout(90)


def timed(fn) -> float:
    t0 = time.monotonic()
    fn()
    return time.monotonic() - t0


def test_input_gestures_return_after_their_duration(vdevice, adb_cli):
    def shell(cmd: str) -> float:
        def run() -> None:
            r = adb_cli("-s", vdevice.serial, "shell", cmd)
            assert r.returncode == 0, r.stderr

        return timed(run)

    mark = vdevice.model.events.mark()
    assert shell("input swipe 540 1600 540 700 600") >= 0.6
    swipes = vdevice.model.events.since(mark, "swipe")
    assert [e.data["duration_ms"] for e in swipes] == [600]  # the UI saw a 600 ms swipe
    assert shell("input draganddrop 300 900 700 900 200") >= 0.6  # the long-press timeout (400 ms), then the move
    assert shell("input keyevent --longpress KEYCODE_A") >= 0.4  # held for the long-press timeout
    assert shell("input keyevent --delay 150 KEYCODE_A KEYCODE_B KEYCODE_C") >= 0.3  # two pauses between three keys
    assert shell("input keycombination -t 300 KEYCODE_CTRL_LEFT KEYCODE_A") >= 0.3


def test_uiautomator2_gestures_return_after_their_duration(u2dev, vdevice):
    d = u2dev
    assert d.info["displayWidth"] > 0  # the server is up before timing anything
    events = vdevice.model.events

    def held(fn, kind: str) -> tuple[float, list[int]]:
        """The call's wall time, and the durations the device held its gestures of `kind` for."""
        mark = events.mark()
        took = timed(fn)
        return took, [e.data["duration_ms"] for e in events.since(mark, kind)]

    took, ms = held(lambda: d.swipe(540, 1600, 540, 700, 0.5), "swipe")
    assert took >= 0.5 and ms == [500]  # 100 steps of 5 ms
    took, ms = held(lambda: d.drag(300, 900, 700, 900, 0.2), "swipe")
    assert took >= 0.6 and ms == [600]  # long-press timeout + 40 steps
    took, ms = held(lambda: d.long_click(540, 1200, 0.45), "long_press")
    assert took >= 0.45 and ms == [450]
    # two segments of 0.3 s each (the client turns the duration into steps per segment)
    took, ms = held(lambda: d.swipe_points([(100, 900), (500, 900), (500, 500)], 0.3), "swipe")
    assert took >= 0.6 and ms == [300, 300]
    mark = events.mark()
    assert timed(lambda: d.click(540, 1200)) >= 0.1  # UiAutomator holds a click 100 ms
    assert len(events.since(mark, "tap")) == 1


def test_a_slow_profile_adds_its_latency_to_the_gesture(make_vdevice, adb_cli):
    vd = make_vdevice(latency="pixel")  # `input` costs 50 ms there, on top of the gesture
    mark = vd.model.events.mark()
    t0 = time.monotonic()
    r = adb_cli("-s", vd.serial, "shell", "input swipe 540 1600 540 700 400")
    took = time.monotonic() - t0
    assert r.returncode == 0
    assert took >= 0.45
    assert [e.data["duration_ms"] for e in vd.model.events.since(mark, "swipe")] == [400]  # the gesture's own time


def test_a_command_line_costs_a_shell_and_each_further_process(vdevice, adb_cli):
    """The latency profile charges a command line's shell (which runs its first command) once, and every further
    command that runs as a process of its own (toybox, cmd, settings: not mksh's builtins such as echo) again: a
    batch of commands in one `sh -c` is cheaper than a round trip each, but not free, as on a phone."""
    from emulator.virtual.latency import Latency

    class Counting(Latency):
        def delay(self, op: str) -> None:
            ops.append(op)

    ops: list[str] = []
    before = vdevice.model.latency
    vdevice.model.latency = Counting()
    try:
        line = "settings get global x; echo a; getprop ro.serialno; toybox true; test -n a && cd /"
        assert adb_cli("-s", vdevice.serial, "shell", line).returncode == 0
        assert ops == ["shell", "exec", "exec"]
        ops.clear()
        assert adb_cli("-s", vdevice.serial, "shell", "(getprop ro.x; getprop ro.y) | cat").returncode == 0
        assert ops == ["shell", "exec", "exec"], "subshells and pipelines count too"
    finally:
        vdevice.model.latency = before
