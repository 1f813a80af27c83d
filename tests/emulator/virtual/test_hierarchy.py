"""The hierarchy the device's own dump paths give, through the real adb server and uiautomator2: the app window
(and the IME while it is shown), not the status and navigation bar windows; the bars stay drawn and touchable."""

from __future__ import annotations

import xml.etree.ElementTree as ET

import pytest

from emulator.virtual.ui.keyboard import IME_PACKAGE
from tests.ui_helpers import find

pytestmark = pytest.mark.timeout(90)

SYSTEMUI = "com.android.systemui"


def packages(xml: str) -> list[str]:
    root = ET.fromstring(xml.encode("utf-8"))
    return [n.get("package") for n in root.iter("node")]


def window_packages(xml: str) -> list[str]:
    root = ET.fromstring(xml.encode("utf-8"))
    return [n.get("package") for n in root.findall("node")]


def test_uiautomator_dump_has_the_app_window_only(vdevice, adb_cli):
    adb = vdevice.adb
    adb.shell("am start -n com.android.settings/.Settings")
    r = adb_cli("-s", vdevice.serial, "shell", "uiautomator dump /sdcard/d.xml && cat /sdcard/d.xml")
    assert r.returncode == 0
    xml = r.stdout.decode().split("\n", 1)[1]  # after "UI hierchary dumped to: ..."
    assert window_packages(xml) == ["com.android.settings"]
    assert SYSTEMUI not in packages(xml)
    # adbutils' dump_hierarchy (uiautomator dump + pull) sees the same
    assert SYSTEMUI not in packages(adb.dump_hierarchy())
    # the bars are still on screen: the in-process model shows them, and their pixels are drawn
    assert find(vdevice.model, rid=f"{SYSTEMUI}:id/clock").text


def test_u2_dump_has_the_app_window_and_the_ime_when_shown(vdevice, u2dev):
    m = vdevice.model
    launcher = m.foreground.package
    assert window_packages(u2dev.dump_hierarchy()) == [launcher]
    u2dev(resourceId=f"{launcher}:id/search_container_hotseat").click()  # focuses search: the keyboard shows
    xml = u2dev.dump_hierarchy()
    assert window_packages(xml) == [launcher, IME_PACKAGE]
    assert SYSTEMUI not in packages(xml)
    u2dev.press("back")  # hides the keyboard
    assert window_packages(u2dev.dump_hierarchy()) == [launcher]


def test_navigation_bar_still_takes_taps(vdevice):
    m = vdevice.model
    m.settings["secure"]["navigation_mode"] = "0"  # three-button navigation
    m.start_activity("com.android.settings")
    back = find(m, rid=f"{SYSTEMUI}:id/back")
    vdevice.adb.shell(f"input tap {back.center[0]} {back.center[1]}")
    assert m.foreground.package != "com.android.settings"
    assert SYSTEMUI not in packages(vdevice.adb.dump_hierarchy())
