"""The device's clock (emulator.virtual.clock): on `virtual`, every wait of the device advances its clock instead of
sleeping, and everything that reads time (uptime, date, logcat, the stopwatch) reads that clock. Seen through
the real adb binary and uiautomator2, as a client sees a device."""

from __future__ import annotations

import re
import threading

import pytest

from emulator.virtual.clock import BOOTED_BEFORE, RealClock, VirtualClock, make_clock

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
