"""A screen's views are built once per device state (emulator/virtual/statelock.py): reads of an unchanged state
through the device's doors reuse them, and every kind of change - a model method, a shell line, a file, the clock -
shows up. Each test runs as a request through a door (`StateLock.door`, what a shell line or a uiautomator2 call
opens); in-process reads outside one build anew."""

from __future__ import annotations

import collections

import pytest

from emulator.virtual.model import VirtualDeviceModel
from emulator.virtual.shell.observers import changes_nothing
from emulator.virtual.shell.parser import parse
from emulator.virtual.shell.runner import run
from emulator.virtual.ui import manager
from emulator.virtual.ui.view import View
from tests.emulator.virtual.shell.test_commands import FakeIO

SHOP = "com.droidharness.shop"


@pytest.fixture
def builds(monkeypatch: pytest.MonkeyPatch) -> collections.Counter[str]:
    counts: collections.Counter[str] = collections.Counter()
    build = manager.UIManager.view_roots

    def counted(self: manager.UIManager) -> list[View]:
        counts["views"] += 1
        return build(self)

    monkeypatch.setattr(manager.UIManager, "view_roots", counted)
    return counts


def sh(m: VirtualDeviceModel, line: str) -> str:
    io_ = FakeIO()
    run(m, line, io_)
    return io_.out.decode()


def test_reads_of_one_state_build_its_views_once(builds: collections.Counter[str]) -> None:
    m = VirtualDeviceModel(clock="virtual")
    with m.lock.door():  # as a shell line or a uiautomator2 call reads
        m.start_activity(SHOP)
        builds.clear()
        xml = m.hierarchy_xml()
        m.screenshot_jpeg()
        assert m.hierarchy_xml() == xml
        sh(m, "dumpsys window | grep mInputShown")  # a screen observation: changes nothing
        sh(m, "cat /proc/uptime")  # reads the clock: changes nothing either
        m.screenshot()
        assert builds["views"] == 1
        sh(m, "echo x > /dev/null; am start -n com.android.settings/.Settings")
        m.screenshot()
        assert builds["views"] == 2


def test_an_action_dispatches_on_the_views_just_read(builds: collections.Counter[str]) -> None:
    m = VirtualDeviceModel(clock="virtual")
    with m.lock.door():  # as a shell line or a uiautomator2 call reads
        m.start_activity(SHOP)
        m.hierarchy_xml()
        builds.clear()
        m.tap(10, 10)
        assert builds["views"] == 0
        m.tap(10, 10)  # the tap changed the state: the next one builds again
        assert builds["views"] == 1


def test_every_kind_of_change_shows_up() -> None:
    m = VirtualDeviceModel(clock="virtual")
    with m.lock.door():  # as a shell line or a uiautomator2 call reads
        before = m.hierarchy_xml()
        m.start_activity(SHOP)  # a model method
        shop = m.hierarchy_xml()
        assert shop != before
        m.settings["system"]["font_scale"] = "1.3"  # in-process, no lock: the caller says so
        m.changed()
        assert m.hierarchy_xml() != shop
        sh(m, "settings put system font_scale 1.0")  # a shell line
        assert m.hierarchy_xml() == shop
        roots = m.view_roots()
        assert m.view_roots() is roots
        m.clock.sleep(1.0)  # views that do not read the time are those of any time
        assert m.view_roots() is roots
        with m.lock:
            m.clock_offset = 60.0  # a clock set by hand: the status bar shows it
        roots = m.view_roots()
        assert m.view_roots() is roots
        m.clock.sleep(1.0)  # views that read the time: another time, other views
        assert m.view_roots() is not roots
        roots = m.view_roots()
        m.fs.write("/sdcard/x.txt", b"x")  # a file
        assert m.view_roots() is not roots
        roots = m.view_roots()
        sh(m, "(sleep 0; settings put system font_scale 1.3) &")  # a background job's commands
        sh(m, "wait")
        assert m.view_roots() is not roots


@pytest.mark.parametrize("clock", ["real", "virtual"])
def test_views_that_read_the_time_are_kept_for_that_time_only(builds: collections.Counter[str], clock: str) -> None:
    m = VirtualDeviceModel(clock=clock)
    with m.lock.door():  # as a shell line or a uiautomator2 call reads
        m.view_roots()
        builds.clear()
        m.view_roots()
        assert builds["views"] == 0  # the home screen does not read the time
        with m.lock:
            m.clock_offset = 3600.0  # a clock set by hand: the status bar shows the device's time
        m.view_roots()
        m.view_roots()  # the real clock moved on meanwhile; the virtual one did not
        assert builds["views"] == (2 if clock == "real" else 1)


def test_keyboard_check_without_views(builds: collections.Counter[str]) -> None:
    m = VirtualDeviceModel(clock="virtual")
    with m.lock.door():  # as a shell line or a uiautomator2 call reads
        m.start_activity(SHOP)
        builds.clear()
        assert "mInputShown=false" in sh(m, "dumpsys input_method")
        assert builds["views"] == 0  # no keyboard asked for: answered from the window state
        from tests.ui_helpers import tap

        tap(m, rid="ad_close")
        tap(m, rid="search_box")
        assert "mInputShown=true" in sh(m, "dumpsys input_method")
        m.key(4)  # BACK hides the keyboard
        assert "mInputShown=false" in sh(m, "dumpsys input_method")


def test_in_process_reads_outside_a_door_build_anew(builds: collections.Counter[str]) -> None:
    m = VirtualDeviceModel(clock="virtual")
    # an in-process caller (no door): a test that sets fields and reads them back
    roots = m.view_roots()
    m.settings["secure"]["navigation_mode"] = "0"  # no lock, no word
    assert m.view_roots() is not roots and builds["views"] == 2


@pytest.mark.parametrize(
    ("line", "reads"),
    [
        ("cat /proc/uptime; echo END$?", True),
        ("dumpsys window | grep -E mCurrentFocus", True),
        ("sleep 0.5", True),
        ("sleep $X", False),
        ("settings put system font_scale 1.3", False),
        ("cat /proc/uptime > /sdcard/t", False),
        ("sleep 1 &", False),
    ],
)
def test_which_shell_lines_leave_the_state_as_it_was(line: str, reads: bool) -> None:
    assert changes_nothing(parse(line)) is reads
