"""Clock's Stopwatch tab, driven as a client drives it: uiautomator2 through the real adb server (Settings > Display's
brightness slider: test_settings.py)."""

from __future__ import annotations

import re
import time


def _sh(adb_cli, vdevice, line: str) -> str:
    r = adb_cli("-s", vdevice.serial, "shell", line)
    assert r.returncode == 0, r.stderr
    return r.stdout.decode()


def test_stopwatch_start_lap_pause_reset(u2dev, vdevice, adb_cli):
    _sh(adb_cli, vdevice, "am start -n com.google.android.deskclock/com.android.deskclock.DeskClock")
    d = u2dev
    d(resourceId="com.google.android.deskclock:id/tab_menu_stopwatch").click()
    time_view = d(resourceId="com.google.android.deskclock:id/stopwatch_time_text")
    assert time_view.get_text() == "00:00.00"
    d(text="Start").click()
    time.sleep(0.3)
    d(text="Lap").click()
    time.sleep(0.2)
    d(text="Lap").click()
    d(text="Pause").click()
    shown = time_view.get_text()
    m = re.fullmatch(r"00:(\d\d)\.(\d\d)", shown)
    assert m is not None and 0.5 <= int(m.group(1)) + int(m.group(2)) / 100 < 30, shown  # the time that passed
    assert time_view.get_text() == shown  # paused: it stays
    assert d(resourceId="com.google.android.deskclock:id/lap_number").count == 2
    assert d(text="Lap 2").exists and d(text="Lap 1").exists
    d(text="Resume").click()
    d(text="Pause").click()
    d(text="Reset").click()
    assert time_view.get_text() == "00:00.00"
    assert not d(resourceId="com.google.android.deskclock:id/lap_number").exists
    # the other tabs are still there, in their order
    for k, label in (("alarm", "Alarm"), ("clock", "Clock"), ("timer", "Timer"), ("stopwatch", "Stopwatch")):
        assert d(resourceId=f"com.google.android.deskclock:id/tab_menu_{k}").exists
        assert d(resourceId=f"com.google.android.deskclock:id/tab_menu_{k}").child(text=label).exists
