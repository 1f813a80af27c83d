"""Clock's Stopwatch tab as DeskClock's: its buttons are image buttons known by their content descriptions (Start /
Pause on the `fab`, Reset on `left_button`, Lap on `right_button`; in zh-CN 开始 / 暂停 / 重置 / 一圈, AOSP's
translations), the tab's name shows at least twice on the screen (the title, the tab), and the activity resumed is
`com.android.deskclock.DeskClock` - what AndroidWorld's clock judges look for. Driven through the real adb server
with uiautomator2 and `input tap`, read back in the uiautomator2 hierarchy and `dumpsys activity`."""

from __future__ import annotations

import re
import time
import xml.etree.ElementTree as ET

import pytest

from tests.emulator.virtual.apps.devshell import sh, u2_connect

PKG = "com.google.android.deskclock"
ACTIVITY = "com.android.deskclock.DeskClock"
LABELS = {
    "en": {"start": "Start", "pause": "Pause", "reset": "Reset", "lap": "Lap", "title": "Stopwatch"},
    "zh": {"start": "开始", "pause": "暂停", "reset": "重置", "lap": "一圈", "title": "秒表"},
}


def _open_stopwatch(d, adb_cli, vdevice) -> None:
    sh(adb_cli, vdevice.serial, f"am start -n {PKG}/{ACTIVITY}")
    d(resourceId=f"{PKG}:id/tab_menu_stopwatch").click()


def _buttons(d) -> dict[str, tuple[str, str, str]]:
    """The clock's buttons in uiautomator2's hierarchy: content-desc -> (resource id, class, text)."""
    root = ET.fromstring(d.dump_hierarchy())
    return {
        n.get("content-desc", ""): (n.get("resource-id", "").split("/")[-1], n.get("class", ""), n.get("text", ""))
        for n in root.iter("node")
        if n.get("resource-id", "").split("/")[-1] in ("fab", "left_button", "right_button")
    }


def _named(d, label: str) -> int:
    """How many nodes have `label` as their text or content-desc (AndroidWorld's count of `Stopwatch`)."""
    root = ET.fromstring(d.dump_hierarchy())
    return sum(1 for n in root.iter("node") if label in (n.get("text"), n.get("content-desc")))


@pytest.mark.parametrize("locale", ["en", "zh"])
def test_image_buttons_known_by_their_descriptions(make_vdevice, adb_server, adb_cli, locale):
    vd = make_vdevice(locale=locale)
    d = u2_connect(adb_server, vd.serial)
    t = LABELS[locale]
    _open_stopwatch(d, adb_cli, vd)
    button = "android.widget.ImageButton"
    assert _buttons(d) == {t["start"]: ("fab", button, "")}  # reset: Start alone
    assert _named(d, t["title"]) >= 2  # the title and the tab
    d(description=t["start"]).click()
    assert _buttons(d) == {
        t["reset"]: ("left_button", button, ""),
        t["pause"]: ("fab", button, ""),
        t["lap"]: ("right_button", button, ""),
    }
    assert not d(text=t["pause"]).exists and not d(text=t["lap"]).exists  # no text buttons
    d(description=t["pause"]).click()
    assert _buttons(d) == {t["reset"]: ("left_button", button, ""), t["start"]: ("fab", button, "")}  # paused
    assert _named(d, t["title"]) >= 2
    d(description=t["reset"]).click()
    assert _buttons(d) == {t["start"]: ("fab", button, "")}


def test_the_resumed_activity_is_deskclock(u2dev, vdevice, adb_cli):
    _open_stopwatch(u2dev, adb_cli, vdevice)
    u2dev(description="Start").click()
    resumed = sh(adb_cli, vdevice.serial, "dumpsys activity activities | grep mResumedActivity", stderr=False)
    assert f"{PKG}/{ACTIVITY}" in resumed, resumed
    assert "DeskClock" in u2dev.app_current()["activity"]
    focus = sh(adb_cli, vdevice.serial, "dumpsys window | grep mCurrentFocus", stderr=False)
    assert f"{PKG}/{ACTIVITY}" in focus


def test_buttons_tapped_with_input_tap(vdevice, adb_cli):
    """Found by content-desc in `uiautomator dump` and tapped with `input tap`, as an agent reading the screen does."""
    sh(adb_cli, vdevice.serial, f"am start -n {PKG}/{ACTIVITY}")

    def tap(attr: str, value: str) -> None:
        dump = sh(adb_cli, vdevice.serial, "uiautomator dump /dev/tty", stderr=False)
        m = re.search(rf'{attr}="{value}"[^>]*bounds="\[(\d+),(\d+)\]\[(\d+),(\d+)\]"', dump)
        assert m is not None, (attr, value)
        l, t, r, b = map(int, m.groups())
        sh(adb_cli, vdevice.serial, f"input tap {(l + r) // 2} {(t + b) // 2}")

    tap("resource-id", f"{PKG}:id/tab_menu_stopwatch")
    tap("content-desc", "Start")
    dump = sh(adb_cli, vdevice.serial, "uiautomator dump /dev/tty", stderr=False)
    assert 'content-desc="Pause"' in dump and 'content-desc="Lap"' in dump  # AndroidWorld's "running"
    tap("content-desc", "Pause")
    dump = sh(adb_cli, vdevice.serial, "uiautomator dump /dev/tty", stderr=False)
    assert 'content-desc="Start"' in dump and 'content-desc="Pause"' not in dump  # AndroidWorld's "paused"


def test_stopwatch_start_lap_pause_reset(u2dev, vdevice, adb_cli):
    _open_stopwatch(u2dev, adb_cli, vdevice)
    d = u2dev
    time_view = d(resourceId=f"{PKG}:id/stopwatch_time_text")
    assert time_view.get_text() == "00:00.00"
    d(description="Start").click()
    time.sleep(0.3)
    d(description="Lap").click()
    time.sleep(0.2)
    d(description="Lap").click()
    d(description="Pause").click()
    shown = time_view.get_text()
    m = re.fullmatch(r"00:(\d\d)\.(\d\d)", shown)
    assert m is not None and 0.5 <= int(m.group(1)) + int(m.group(2)) / 100 < 30, shown  # the time that passed
    assert time_view.get_text() == shown  # paused: it stays
    assert d(resourceId=f"{PKG}:id/lap_number").count == 2
    assert d(text="Lap 2").exists and d(text="Lap 1").exists
    assert not d(description="Lap").exists  # no Lap while paused
    d(description="Start").click()  # resumed: the same button, still "Start" when paused (sw_start_button)
    d(description="Pause").click()
    assert time_view.get_text() != shown
    d(description="Reset").click()
    assert time_view.get_text() == "00:00.00"
    assert not d(resourceId=f"{PKG}:id/lap_number").exists
    assert not d(description="Reset").exists
    # the other tabs are still there, in their order
    for k, label in (("alarm", "Alarm"), ("clock", "Clock"), ("timer", "Timer"), ("stopwatch", "Stopwatch")):
        assert d(resourceId=f"{PKG}:id/tab_menu_{k}").exists
        assert d(resourceId=f"{PKG}:id/tab_menu_{k}").child(text=label).exists


def test_reset_while_running_stops_it(u2dev, vdevice, adb_cli):
    """DeskClock shows Reset beside Pause while it runs; it stops the stopwatch at zero and drops the laps."""
    _open_stopwatch(u2dev, adb_cli, vdevice)
    d = u2dev
    d(description="Start").click()
    d(description="Lap").click()
    d(description="Reset").click()
    assert d(resourceId=f"{PKG}:id/stopwatch_time_text").get_text() == "00:00.00"
    assert _buttons(d) == {"Start": ("fab", "android.widget.ImageButton", "")}
    assert not d(resourceId=f"{PKG}:id/lap_number").exists
