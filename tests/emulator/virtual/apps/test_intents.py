"""Implicit intents a phone's stock apps take, sent as clients send them (`am start -a ...` through the real adb
server), each checked on the screen it opens (the uiautomator dump) or the state it changes (providers)."""

from __future__ import annotations

import re

import pytest

from tests.emulator.virtual.apps.devshell import focus, sh


def _texts(adb_cli, vdevice) -> list[str]:
    return re.findall(r' text="([^"]+)"', sh(adb_cli, vdevice.serial, "uiautomator dump /dev/tty"))


def test_insert_contact_opens_the_filled_editor(vdevice, adb_cli):
    out = sh(
        adb_cli,
        vdevice.serial,
        "am start -a android.intent.action.INSERT -t vnd.android.cursor.dir/contact "
        "-e name 'Zoe Park' -e phone 5551234",
    )
    assert "unable to resolve" not in out
    assert focus(adb_cli, vdevice.serial).endswith("/com.android.contacts.activities.ContactEditorActivity")
    texts = _texts(adb_cli, vdevice)
    assert "Create contact" in texts and "5551234" in texts
    assert "Zoe" in texts and "Park" in texts  # the name split into First name and Last name
    dump = sh(adb_cli, vdevice.serial, "uiautomator dump /dev/tty")
    save = re.search(r'editor_menu_save_button"[^>]*bounds="\[(\d+),(\d+)\]\[(\d+),(\d+)\]"', dump)
    assert save is not None
    x1, y1, x2, y2 = map(int, save.groups())
    sh(adb_cli, vdevice.serial, f"input tap {(x1 + x2) // 2} {(y1 + y2) // 2}")
    phones = sh(
        adb_cli, vdevice.serial, "content query --uri content://contacts/phones/ --projection display_name:number"
    )
    assert "display_name=Zoe Park, number=5551234" in phones


def test_sendto_sms_opens_the_conversation_with_the_text(vdevice, adb_cli):
    sh(
        adb_cli,
        vdevice.serial,
        "am start -a android.intent.action.SENDTO -d sms:+16505550102 --es sms_body 'See you at 5'",
    )
    assert focus(adb_cli, vdevice.serial).endswith(
        "/com.google.android.apps.messaging.ui.conversation.ConversationActivity"
    )
    texts = _texts(adb_cli, vdevice)
    assert "Bob Smith" in texts and "See you at 5" in texts  # Bob's thread, the text in the compose field
    sh(adb_cli, vdevice.serial, "am start -a android.intent.action.SENDTO -d sms:5559876 --es sms_body hello")
    texts = _texts(adb_cli, vdevice)
    assert "5559876" in texts and "hello" in texts and "See you at 5" not in texts  # a new conversation


def test_dial_opens_the_dial_pad_with_the_number(vdevice, adb_cli):
    sh(adb_cli, vdevice.serial, "am start -a android.intent.action.DIAL -d tel:5551234")
    assert focus(adb_cli, vdevice.serial).endswith("/com.google.android.dialer.extensions.GoogleDialtactsActivity")
    assert "5551234" in _texts(adb_cli, vdevice)


def test_set_alarm_and_timer(vdevice, adb_cli):
    sh(
        adb_cli,
        vdevice.serial,
        "am start -a android.intent.action.SET_ALARM --ei android.intent.extra.alarm.HOUR 6 "
        "--ei android.intent.extra.alarm.MINUTES 45 -e android.intent.extra.alarm.MESSAGE Run",
    )
    alarms = sh(adb_cli, vdevice.serial, "content query --uri content://com.android.deskclock/alarms")
    assert re.search(r"hour=6, minutes=45, .*enabled=1, .*label=Run", alarms)
    assert "6:45 AM" in _texts(adb_cli, vdevice)
    sh(adb_cli, vdevice.serial, "am start -a android.intent.action.SET_ALARM")  # no time: the editor for a new alarm
    assert focus(adb_cli, vdevice.serial).endswith("/com.android.deskclock.alarms.AlarmEditActivity")
    sh(adb_cli, vdevice.serial, "am start -a android.intent.action.SET_TIMER --ei android.intent.extra.alarm.LENGTH 90")
    texts = _texts(adb_cli, vdevice)
    assert "00:01:30" in texts and "Running" in texts


@pytest.mark.parametrize(
    "action,title",
    [
        ("android.settings.WIFI_SETTINGS", "Network & internet"),
        ("android.settings.DISPLAY_SETTINGS", "Display"),
        ("android.settings.BLUETOOTH_SETTINGS", "Connected devices"),
        ("android.settings.DEVICE_INFO_SETTINGS", "About phone"),
    ],
)
def test_settings_actions_open_their_page(vdevice, adb_cli, action, title):
    out = sh(adb_cli, vdevice.serial, f"am start -a {action}")
    assert out == f"Starting: Intent {{ act={action} }}\n"
    assert focus(adb_cli, vdevice.serial) == "com.android.settings/com.android.settings.SubSettings"
    assert title.replace("&", "&amp;") in _texts(adb_cli, vdevice)


def test_unknown_action_still_unresolved(vdevice, adb_cli):
    out = sh(adb_cli, vdevice.serial, "am start -a com.example.NOTHING")
    assert "Error: Activity not started, unable to resolve Intent { act=com.example.NOTHING flg=0x10000000 }" in out
