"""Notifications (`emulator/virtual/notifications.py`): posted with `cmd notification post` through the real adb
server, listed by `dumpsys notification` and `cmd notification list`, shown as a heads-up and in the shade
(`cmd statusbar expand-notifications`, `service call statusbar 1`, a swipe down from the status bar) in the hierarchy
`uiautomator dump` gives and in the pixels, cleared with Clear all; in process: keys, replacing, `pm clear`,
snapshots, Chinese labels. The SMS notification through the console is in test_console_commands.py."""

from __future__ import annotations

import io
import re

import pytest
from PIL import Image

from emulator.virtual.apps.common import MESSAGES_PKG
from emulator.virtual.model import VirtualDeviceModel
from emulator.virtual.notifications import Notification
from emulator.virtual.providers.sms import receive

SHELL_KEY = "0|com.android.shell|2020|tag|2000"


def _sh(adb_cli, serial: str, line: str) -> str:
    return adb_cli("-s", serial, "shell", line).stdout.decode()


def _dump(adb_cli, serial: str) -> str:
    return _sh(adb_cli, serial, "uiautomator dump /sdcard/window_dump.xml >/dev/null && cat /sdcard/window_dump.xml")


def _bounds(dump: str, attr: str) -> tuple[int, int, int, int]:
    found = re.search(rf'{attr}[^>]*bounds="\[(\d+),(\d+)\]\[(\d+),(\d+)\]"', dump)
    assert found is not None, attr
    x1, y1, x2, y2 = map(int, found.groups())
    return x1, y1, x2, y2


def _tap(adb_cli, serial: str, attr: str) -> None:
    x1, y1, x2, y2 = _bounds(_dump(adb_cli, serial), attr)
    _sh(adb_cli, serial, f"input tap {(x1 + x2) // 2} {(y1 + y2) // 2}")


@pytest.mark.integration
def test_a_shell_post_is_dumped_peeks_and_is_in_the_shade_until_cleared(vdevice, adb_cli):
    serial = vdevice.serial
    out = _sh(adb_cli, serial, 'cmd notification post -t Hello tag "Body text"')
    assert out.startswith("posting:\n  Notification(channel=shell_cmd ") and "vis=PRIVATE)" in out
    dump = _sh(adb_cli, serial, "dumpsys notification")
    assert dump.startswith("Current Notification Manager state:\n  Notification List:\n")
    record = re.search(r"NotificationRecord\(0x[0-9a-f]{8}: pkg=(\S+) user=UserHandle\{0\} id=(\d+) tag=(\S+) ", dump)
    assert record is not None and record.groups() == ("com.android.shell", "2020", "tag")
    assert f"key={SHELL_KEY}: Notification(channel=shell_cmd" in dump
    assert "android.title=String [length=5]" in dump and "Body text" not in dump  # redacted, as on a phone
    plain = _sh(adb_cli, serial, "dumpsys notification --noredact")
    assert "android.title=String (Hello)" in plain and "android.text=String (Body text)" in plain
    assert _sh(adb_cli, serial, "cmd notification list") == SHELL_KEY + "\n"
    # the heads-up peeks over the launcher, in the dump a client reads
    ui = _dump(adb_cli, serial)
    assert 'resource-id="com.android.systemui:id/notification_stack_scroller"' in ui
    assert re.search(r'text="Hello" resource-id="android:id/title"', ui)
    assert re.search(r'text="Body text" resource-id="android:id/text"', ui)
    # the next input puts it away; it stays posted
    _sh(adb_cli, serial, "input keyevent KEYCODE_HOME")
    assert "Body text" not in _dump(adb_cli, serial) and SHELL_KEY in _sh(adb_cli, serial, "cmd notification list")
    # the shade lists it with the app's name, and Clear all empties the service
    _sh(adb_cli, serial, "cmd statusbar expand-notifications")
    ui = _dump(adb_cli, serial)
    assert 'package="com.android.systemui"' in ui and 'text="Shell" resource-id="android:id/app_name_text"' in ui
    assert 'text="Hello"' in ui and 'text="Body text"' in ui and 'text="Clear all"' in ui
    _tap(adb_cli, serial, 'text="Clear all"')
    assert "NotificationRecord" not in _sh(adb_cli, serial, "dumpsys notification")
    assert _sh(adb_cli, serial, "cmd notification list") == ""
    assert "notification_panel" not in _dump(adb_cli, serial)  # the shade closed with nothing left


@pytest.mark.integration
def test_the_shade_opens_by_swipe_and_service_call_and_closes_with_back(vdevice, adb_cli):
    serial = vdevice.serial
    _sh(adb_cli, serial, "cmd notification post -t Hi a one; cmd notification post b two")
    _sh(adb_cli, serial, "input swipe 500 10 500 1400 200")
    ui = _dump(adb_cli, serial)
    assert ui.count('resource-id="com.android.systemui:id/expandableNotificationRow"') == 2
    # newest first
    assert ui.index('text="two"') < ui.index('text="one"')
    _sh(adb_cli, serial, "input keyevent KEYCODE_BACK")
    assert "expandableNotificationRow" not in _dump(adb_cli, serial)
    assert "Result: Parcel(00000000    '....')" in _sh(adb_cli, serial, "service call statusbar 1")
    assert "expandableNotificationRow" in _dump(adb_cli, serial)
    # the pixels: the rows are drawn where the dump says, light cards over the dark scrim
    png = adb_cli("-s", serial, "exec-out", "screencap -p").stdout
    img = Image.open(io.BytesIO(png)).convert("RGB")
    x1, y1, x2, y2 = _bounds(_dump(adb_cli, serial), 'text="two"')
    card = img.getpixel((x2 - 4, y2 + 4))
    scrim = img.getpixel((img.width // 2, img.height - 300))
    assert sum(card) > 700 and sum(scrim) < 450, (card, scrim)
    _sh(adb_cli, serial, "cmd statusbar collapse")
    assert "expandableNotificationRow" not in _dump(adb_cli, serial)
    _sh(adb_cli, serial, "settings put global heads_up_notifications_enabled 0; cmd notification post c three")
    assert "three" not in _dump(adb_cli, serial)  # no heads-up with the setting off; still posted
    assert "|2020|c|2000" in _sh(adb_cli, serial, "cmd notification list")
    usage = _sh(adb_cli, serial, "cmd notification post -t")
    assert usage == 'Error occurred. Check logcat for details. Argument expected after "-t"\n'
    assert _sh(adb_cli, serial, "cmd notification post onlytag").startswith("usage: cmd notification post")


def test_keys_replacing_and_pm_clear():
    m = VirtualDeviceModel()
    assert "notificationIcons" not in m.hierarchy_xml()
    n = Notification("com.example", 7, None, 10123, "T", "x", "c", 0)
    assert n.key == "0|com.example|7|null|10123"
    m.notifications.post(n)
    m.notifications.post(Notification("com.example", 7, None, 10123, "T2", "y", "c", 0))
    assert [p.title for p in m.notifications.posted] == ["T2"]
    receive(m, "+1 650-555-0102", "Are you there?")  # Bob Smith, a contact: his name is the title
    sms = m.notifications.newest_first()[0]
    assert (sms.package, sms.title, sms.text) == (MESSAGES_PKG, "Bob Smith", "Are you there?")
    icons = [v for r in m.view_roots() for v in r.walk() if v.resource_id.endswith("id/notificationIcons")]
    assert len(icons) == 1 and len(icons[0].children) == 2  # the status bar: an icon per posting app
    m.clear_data(MESSAGES_PKG)
    assert [p.package for p in m.notifications.posted] == ["com.example"]


def test_a_snapshot_restores_the_notifications_and_the_shade_speaks_chinese():
    m = VirtualDeviceModel(locale="zh")
    m.ui.expand_shade()
    texts = {v.text for r in m.view_roots() for v in r.walk() if v.text}
    assert "无通知" in texts and "全部清除" not in texts
    receive(m, "5551234", "你好")
    snap = m.snapshot()
    m.notifications.clear_all()
    m.restore(snap)
    m.ui.expand_shade()
    texts = {v.text for r in m.view_roots() for v in r.walk() if v.text}
    assert {"5551234", "你好", "信息", "全部清除"} <= texts
