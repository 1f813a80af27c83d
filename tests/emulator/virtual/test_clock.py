"""The device's clock (emulator.virtual.clock): on `virtual`, every wait of the device advances its clock instead of
sleeping, and everything that reads time (uptime, date, logcat, the stopwatch) reads that clock. Seen through
the real adb binary and uiautomator2, as a client sees a device."""

from __future__ import annotations

import itertools
import random
import re
import threading

import pytest

from emulator.virtual.clock import BOOTED_BEFORE, RealClock, VirtualClock, make_clock
from emulator.virtual.latency import Latency
from emulator.virtual.shell.observers import observes_only
from emulator.virtual.shell.parser import parse

PKG = "com.google.android.deskclock"


# --- the clocks ------------------------------------------------------------------------------------------------
def test_virtual_clock_moves_only_by_waits():
    c = VirtualClock(epoch=1_700_000_000.0, start=50.0)
    assert (c.time(), c.monotonic()) == (1_700_000_000.0, 50.0)
    assert c.sleep(2.5) is False
    assert c.sleep(-1.0) is False  # a negative wait is no wait
    c.catch_up(0.5)
    assert (c.time(), c.monotonic(), c.elapsed) == (1_700_000_003.0, 53.0, 3.0)


def test_virtual_clock_wait_is_woken_without_time_passing():
    c = VirtualClock(epoch=0.0, start=0.0)
    cancel = threading.Event()
    cancel.set()
    assert c.sleep(10.0, cancel) is True  # a stopping device: the wait ends and no time passes
    assert c.wait(10.0, lambda timeout: timeout == 0.0) is True  # woken: asked without blocking
    assert c.monotonic() == 0.0
    assert c.wait(10.0, lambda timeout: False) is False
    assert c.monotonic() == 10.0


def test_real_clock_waits_for_its_waiter_and_ignores_catch_up():
    c = RealClock()
    asked: list[float] = []

    def waiter(answer: bool):
        def woken(timeout: float) -> bool:
            asked.append(timeout)
            return answer

        return woken

    assert c.wait(0.25, waiter(True)) is True
    assert c.wait(-3.0, waiter(False)) is False
    assert asked == [0.25, 0.0]
    before = c.monotonic()
    c.catch_up(100.0)  # the host's time has passed already
    assert c.monotonic() - before < 50.0


# --- what overlaps: observations (the module doc of emulator.virtual.clock) -----------------------------------------
SCREENSHOT, HIERARCHY, FOCUS = ("u2_rpc", "u2_screenshot"), ("u2_rpc", "u2_hierarchy"), ("shell", "exec")
PIXEL = Latency("pixel").seconds  # the profile's declared costs


def test_observations_overlap_the_longest_counts_at_the_next_wait():
    c = VirtualClock(epoch=0.0, start=0.0)
    shot, tree = c.overlapping(), c.overlapping()
    assert shot.sleep(0.03) is False and shot.sleep(0.15) is False  # one observation's waits follow each other
    assert tree.sleep(0.15) is False
    assert (c.monotonic(), c.time(), c.elapsed) == (0.0, 0.0, 0.0)  # read from inside: the committed time
    assert c.pending == pytest.approx(0.18)  # the longer of the two, not their sum (0.33)
    assert c.sleep(0.01) is False  # the next wait commits them, then waits its own
    assert c.monotonic() == pytest.approx(0.19) and c.pending == 0.0
    late = c.overlapping()  # an observation begins at the committed time
    late.sleep(0.05)
    c.catch_up(0.0)
    assert c.monotonic() == pytest.approx(0.24)


@pytest.mark.parametrize("commit", ["sleep", "wait", "woken", "catch_up", "cancelled"])
def test_every_other_wait_commits_the_observations_first(commit):
    c = VirtualClock(epoch=0.0, start=0.0)
    c.overlapping().sleep(0.5)
    cancel = threading.Event()
    cancel.set()
    {
        "sleep": lambda: c.sleep(1.0),
        "wait": lambda: c.wait(1.0, lambda _t: False),
        "woken": lambda: c.wait(1.0, lambda _t: True),  # woken at once: none of its own, but it comes after
        "catch_up": lambda: c.catch_up(1.0),
        "cancelled": lambda: c.sleep(1.0, cancel),
    }[commit]()
    own = 0.0 if commit in ("woken", "cancelled") else 1.0
    assert c.monotonic() == pytest.approx(0.5 + own)


def test_an_observation_made_after_a_commit_begins_there():
    c = VirtualClock(epoch=0.0, start=0.0)
    early = c.overlapping()
    early.sleep(0.1)
    c.sleep(1.0)  # 0.1 committed, then 1.0: at 1.1
    early.sleep(0.1)  # it began at 0, so it ends at 0.2: long before the committed time, nothing to add
    c.catch_up(0.0)
    assert c.monotonic() == pytest.approx(1.1)
    cancelled = threading.Event()
    cancelled.set()
    assert c.overlapping().sleep(5.0, cancelled) is True  # a stopping device: no time
    c.catch_up(0.0)
    assert c.monotonic() == pytest.approx(1.1)


def _step(latency: Latency, order: list[tuple[str, ...]], threads: bool) -> float:
    """An action (`input`), then the observations in `order` (each in its own thread when `threads`), then a read
    through a door (`shell`): the committed time after it."""
    latency.delay("input")
    if threads:
        go = threading.Barrier(len(order))

        def observe(ops: tuple[str, ...]) -> None:
            go.wait()
            latency.observe(*ops)

        ts = [threading.Thread(target=observe, args=(ops,)) for ops in order]
        for t in ts:
            t.start()
        for t in ts:
            t.join()
    else:
        for ops in order:
            latency.observe(*ops)
    latency.delay("shell")
    return latency.clock.monotonic()


def test_concurrent_observations_give_the_same_times_in_every_order():
    captures = [SCREENSHOT, HIERARCHY, FOCUS]
    longest = max(sum(PIXEL(op) for op in ops) for ops in captures)
    assert longest == pytest.approx(0.18)  # the screenshot's RPC and capture
    expected = PIXEL("input") + longest + PIXEL("shell")
    seen = set()
    for order in itertools.permutations(captures):
        for threads in (False, True):
            clock = VirtualClock(epoch=0.0, start=0.0)
            latency = Latency("pixel", clock=clock)
            times = [_step(latency, list(order), threads) for _ in range(5)]
            seen.add(tuple(round(t, 9) for t in times))
            assert times[0] == pytest.approx(expected)
    assert len(seen) == 1, seen  # step after step, whatever the order the device served them in


def test_interleaved_waits_of_observations_do_not_depend_on_the_order():
    # the waits of three observations, arriving in shuffled order (each observation's own in its order)
    rng = random.Random(7)
    results = set()
    for _ in range(20):
        clock = VirtualClock(epoch=0.0, start=0.0)
        spans = {name: clock.overlapping() for name in ("shot", "tree", "focus")}
        waits = {"shot": [0.03, 0.15], "tree": [0.03, 0.12], "focus": [0.01, 0.005]}
        queue = [name for name, ws in waits.items() for _ in ws]
        rng.shuffle(queue)
        for name in queue:
            spans[name].sleep(waits[name].pop(0))
        clock.sleep(0.01)
        results.add(round(clock.monotonic(), 9))
    assert results == {0.19}


def test_latency_observes_within_a_scope_and_plain_outside():
    clock = VirtualClock(epoch=0.0, start=0.0)
    latency = Latency("pixel", clock=clock)
    with latency.observing():
        latency.delay("shell")
        latency.delay("exec")
        with latency.observing(False):  # inside, the outer kind holds (a capture line's nested `sh -c`)
            latency.delay("exec")
    assert clock.monotonic() == 0.0 and clock.pending == pytest.approx(0.02)
    with latency.observing(False):
        with latency.observing(True):  # a plain line's nested capture: plain
            latency.delay("screencap_raw")
    assert clock.monotonic() == pytest.approx(0.62)
    latency.delay("screencap_raw")  # outside any scope: a plain wait
    assert clock.monotonic() == pytest.approx(1.22)


def test_the_real_clock_sleeps_every_delay_observations_too():
    asked: list[float] = []

    class Recording(RealClock):
        def wait(self, seconds, woken):
            asked.append(seconds)
            return False

    clock = Recording()
    assert clock.overlapping() is clock  # an observation's waits are the clock's own: they really sleep
    latency = Latency("pixel", clock=clock)
    latency.observe(*SCREENSHOT)
    with latency.observing():
        latency.delay("shell")
    latency.delay("input")
    assert asked == [0.03, 0.15, 0.01, 0.05]


@pytest.mark.parametrize(
    ("line", "observes"),
    [
        ("dumpsys window | grep -E 'mCurrentFocus|mFocusedApp'; echo TOKEN$?", True),  # the harness's focus query
        ("uiautomator dump /data/local/tmp/d.xml >/dev/null && cat /data/local/tmp/d.xml", True),
        ("screencap -p", True),
        ("screencap", True),
        ("dumpsys window windows 2>/dev/null", True),
        ("cat /proc/uptime", False),  # doors to the clock
        ("date +%s", False),
        ("uptime", False),
        ("dumpsys alarm", False),
        ("cat /sdcard/../proc/uptime", False),
        ("dumpsys window | grep x /proc/uptime", False),  # grep of a file, not of the pipe
        ("grep mCurrentFocus", False),
        ("echo $(date)", False),
        ("screencap -p &", False),
        ("screencap -p > /sdcard/shot.png", False),
        ("input tap 10 10", False),
        ("dumpsys window; input tap 10 10", False),
        ("A=1 dumpsys window", False),
        ("", False),
    ],
)
def test_which_shell_lines_only_observe(line, observes):
    assert observes_only(parse(line)) is observes


def test_a_shell_function_is_not_the_command_it_shadows():
    assert observes_only(parse("dumpsys window"), functions={"dumpsys"}) is False


def test_make_clock_names_the_choices():
    assert make_clock("virtual").name == "virtual" and make_clock("real").name == "real"
    with pytest.raises(ValueError, match="real, virtual"):
        make_clock("fast")


# --- through the adb door ----------------------------------------------------------------------------------------
def _sh(adb_cli, vd, cmd: str) -> str:
    r = adb_cli("-s", vd.serial, "shell", cmd)
    assert r.returncode == 0, r.stderr
    return r.stdout.decode() if isinstance(r.stdout, bytes) else r.stdout


def _uptime(adb_cli, vd) -> float:
    return float(_sh(adb_cli, vd, "cat /proc/uptime").split()[0])


def test_sleep_and_gestures_advance_a_virtual_clock(make_vdevice, adb_cli):
    vd = make_vdevice(clock="virtual")
    t0 = _uptime(adb_cli, vd)
    assert t0 == pytest.approx(BOOTED_BEFORE, abs=0.02)  # nothing waited yet: no time passed since boot
    _sh(adb_cli, vd, "sleep 3600")  # an hour, at once
    assert _uptime(adb_cli, vd) - t0 == pytest.approx(3600.0, abs=0.02)
    _sh(adb_cli, vd, "input swipe 500 1500 500 500 750")  # a swipe lasts its duration
    assert _uptime(adb_cli, vd) - t0 == pytest.approx(3600.75, abs=0.02)
    # `uptime` and `date` read the same clock
    up = _sh(adb_cli, vd, "uptime")
    assert re.search(r"up\s+2:00,", up), up  # booted an hour before it was made, then the hour slept
    assert abs(int(_sh(adb_cli, vd, "date +%s")) - (vd.model.boot_time + 3600.75)) <= 1


def test_latency_profile_delays_advance_a_virtual_clock(make_vdevice, adb_cli):
    vd = make_vdevice(clock="virtual", latency="pixel")
    t0 = _uptime(adb_cli, vd)
    r = adb_cli("-s", vd.serial, "exec-out", "screencap -p")
    assert r.returncode == 0
    took = _uptime(adb_cli, vd) - t0
    # screencap -p's 1.5 s, plus the delays of starting the shells (the pixel profile's `shell` 10 ms each)
    assert 1.5 <= took <= 1.6, took


FOCUS_QUERY = "dumpsys window | grep -E 'mCurrentFocus|mFocusedApp'"


def test_a_steps_captures_overlap_through_the_doors(make_vdevice):
    """As the harness captures a step: a uiautomator2 screenshot and hierarchy and the focus query over the shell,
    concurrently or one after the other in any order, between two reads of /proc/uptime: the longest of them
    (the screenshot's RPC and capture: 0.18 s on `pixel`) passes, plus the second read's shell (0.01 s)."""
    import uiautomator2 as u2

    vd = make_vdevice(clock="virtual", latency="pixel")
    d = u2.connect(vd.adb)
    calls = {
        "shot": lambda: d.jsonrpc.takeScreenshot(1, 80),
        "tree": lambda: d.jsonrpc.dumpWindowHierarchy(False, 50),
        "focus": lambda: vd.adb.shell(FOCUS_QUERY),
    }
    calls["tree"]()  # the server is up

    def uptime() -> float:
        return float(vd.adb.shell("cat /proc/uptime").split()[0])

    took = []
    for order in (("shot", "tree", "focus"), ("focus", "tree", "shot"), None):
        t0 = uptime()
        if order is None:  # at once, as capture_screen does
            ts = [threading.Thread(target=f) for f in calls.values()]
            for t in ts:
                t.start()
            for t in ts:
                t.join()
        else:
            for name in order:
                calls[name]()
        took.append(round(uptime() - t0, 3))
    expected = round(PIXEL("u2_rpc") + PIXEL("u2_screenshot") + PIXEL("shell"), 3)
    assert took == [expected] * 3
    t0 = uptime()
    vd.adb.shell("input tap 10 10")  # a plain line: its own delays, after the shell's
    assert uptime() - t0 == pytest.approx(PIXEL("shell") + PIXEL("input") + PIXEL("shell"), abs=0.002)


def test_real_clock_is_the_hosts(make_vdevice, adb_cli):
    vd = make_vdevice()
    assert vd.model.clock.name == "real"
    t0 = _uptime(adb_cli, vd)
    _sh(adb_cli, vd, "sleep 0.3")
    assert _uptime(adb_cli, vd) - t0 >= 0.29  # it slept


def test_logcat_stamps_lines_with_the_virtual_clock(make_vdevice, adb_cli):
    vd = make_vdevice(clock="virtual")
    _sh(adb_cli, vd, "log -t ClockTest before; sleep 90; log -t ClockTest after")
    out = _sh(adb_cli, vd, "logcat -d -v monotonic -s ClockTest")
    stamps = [float(m) for m in re.findall(r"^\s*(\d+\.\d+)\s", out, re.M)]
    assert len(stamps) == 2, out
    assert stamps[1] - stamps[0] == pytest.approx(90.0, abs=0.01)


def test_stopwatch_counts_the_virtual_clock(make_vdevice, adb_cli, adb_server):
    import uiautomator2 as u2

    vd = make_vdevice(clock="virtual")
    d = u2.connect(vd.adb)
    _sh(adb_cli, vd, f"am start -n {PKG}/com.android.deskclock.DeskClock")
    d(resourceId=f"{PKG}:id/tab_menu_stopwatch").click()
    d(description="Start").click()  # a click holds the finger down 100 ms after the press that started it
    _sh(adb_cli, vd, "sleep 5")
    d(description="Pause").click()  # pressed at once: the stopwatch stops 5.1 s after it started
    assert d(resourceId=f"{PKG}:id/stopwatch_time_text").get_text() == "00:05.10"
