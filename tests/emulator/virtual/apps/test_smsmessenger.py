"""Simple SMS Messenger driven as clients drive a phone: the real adb server (the adbutils wheel's adb) for `pm`,
`am`, `monkey`, `settings`, `content query` and `adb emu sms send`, uiautomator2 (unmodified) for the screen. What
the app wrote is read back from the telephony provider (`content query --uri content://sms/...`), as AndroidWorld's
judges read it."""

from __future__ import annotations

import re

import pytest

from tests.emulator.virtual.apps.devshell import focus, sh

pytest.importorskip("uiautomator2")

PKG = "com.simplemobiletools.smsmessenger"
MESSAGES = "com.google.android.apps.messaging"
RID = PKG + ":id/"
ROLE_TITLE = "com.android.permissioncontroller:id/title"


def _rows(adb_cli, serial: str, box: str, where: str = "") -> list[dict[str, str]]:
    """The rows of content://sms/BOX as `content query` prints them (body last: it may hold commas)."""
    line = f"content query --uri content://sms/{box} --projection _id:address:date:read:type:body"
    out = sh(adb_cli, serial, line + (f' --where "{where}"' if where else ""))
    if out.startswith("No result found."):
        return []
    rows = []
    for m in re.finditer(r"Row: \d+ _id=(\d+), address=(.*?), date=(\d+), read=(\d), type=(\d), body=(.*)", out):
        rows.append(dict(zip(("_id", "address", "date", "read", "type", "body"), m.groups(), strict=True)))
    return rows


def _open_as_default(d, adb_cli, serial: str) -> None:
    """Launch the app and take the SMS role through its request dialog, as a user does on first launch."""
    sh(adb_cli, serial, f"monkey -p {PKG} 1")
    assert d(resourceId=ROLE_TITLE, text="Set SMS Messenger as your default SMS app?").wait(timeout=5)
    d(resourceId=ROLE_TITLE, text="SMS Messenger").click()
    d(resourceId="android:id/button1", text="Set as default").click()
    assert d(resourceId=RID + "conversations_fab").wait(timeout=5)


def _compose_and_send(d, text: str) -> None:
    d(resourceId=RID + "thread_type_message").set_text(text)
    send = d(resourceId=RID + "thread_send_message")
    assert send.info["text"] == "SMS" and send.info["contentDescription"] == "OK" and send.info["enabled"]
    send.click()


def test_listed_launchable_and_labelled(vdevice, adb_cli):
    s = vdevice.serial
    packages = sh(adb_cli, s, "pm list packages").split()
    assert f"package:{PKG}" in packages and f"package:{MESSAGES}" in packages
    assert f"package:{PKG}" in sh(adb_cli, s, "pm list packages -3").split()  # installed, not a system app
    dump = sh(adb_cli, s, f"dumpsys package {PKG}")
    assert "versionName=5.19.3" in dump and "versionCode=85" in dump
    resolved = sh(adb_cli, s, f"cmd package resolve-activity --brief -c android.intent.category.LAUNCHER {PKG}")
    assert resolved.strip().splitlines()[-1] == f"{PKG}/.activities.SplashActivity.Orange"
    sh(adb_cli, s, f"monkey -p {PKG} 1")  # the launcher's alias opens MainActivity and goes
    assert focus(adb_cli, s) == f"{PKG}/{PKG}.activities.MainActivity"
    sh(adb_cli, s, "input keyevent KEYCODE_HOME")
    sh(adb_cli, s, f"am start -n {PKG}/{PKG}.activities.MainActivity")  # how AndroidWorld opens it
    assert focus(adb_cli, s) == f"{PKG}/{PKG}.activities.MainActivity"
    sh(adb_cli, s, "input keyevent KEYCODE_HOME")
    home = sh(adb_cli, s, "uiautomator dump /dev/tty")
    assert 'text="SMS Messenger"' in home and 'content-desc="SMS Messenger"' in home


def test_zh_labels_are_the_apps_translations(make_vdevice, adb_cli):
    vd = make_vdevice(locale="zh")
    assert 'text="短信"' in sh(adb_cli, vd.serial, "uiautomator dump /dev/tty")  # app_launcher_name in zh-rCN
    sh(adb_cli, vd.serial, f"monkey -p {PKG} 1")
    screen = sh(adb_cli, vd.serial, "uiautomator dump /dev/tty")
    assert 'text="要将短信设为您的默认短信应用吗？"' in screen and 'text="设为默认应用"' in screen
    assert 'text="当前默认应用"' in screen and 'text="搜索"' in screen  # the holder marked; the search bar behind


def test_the_role_request_cancelled_closes_the_app_and_granted_takes_sendto(d, emu, adb_cli):
    _, s = emu
    intent = "am start -a android.intent.action.SENDTO -d sms:5551234 --es sms_body 'See you'"
    sh(adb_cli, s, intent)  # Messages holds the SMS role: SENDTO is its
    assert focus(adb_cli, s).startswith(MESSAGES + "/")
    sh(adb_cli, s, "input keyevent KEYCODE_HOME")
    sh(adb_cli, s, f"monkey -p {PKG} 1")
    assert d(resourceId=ROLE_TITLE, text="Messages").wait(timeout=5)
    assert not d(resourceId="android:id/button1").info["enabled"]  # the holder is checked: nothing to set yet
    d(resourceId="android:id/button2", text="Cancel").click()
    assert focus(adb_cli, s).startswith("com.google.android.apps.nexuslauncher/")  # MainActivity finished
    assert sh(adb_cli, s, "settings get secure sms_default_application").strip() == MESSAGES
    sh(adb_cli, s, "settings put secure sms_default_application " + PKG)  # the setting is the role's mirror only
    assert sh(adb_cli, s, "cmd role get-role-holders android.app.role.SMS").strip() == MESSAGES
    _open_as_default(d, adb_cli, s)
    assert sh(adb_cli, s, "cmd role get-role-holders android.app.role.SMS").strip() == PKG
    assert sh(adb_cli, s, "settings get secure sms_default_application").strip() == PKG
    sh(adb_cli, s, intent)  # NewConversationActivity hands the number to a conversation and finishes
    assert focus(adb_cli, s) == f"{PKG}/{PKG}.activities.ThreadActivity"
    assert d(resourceId=RID + "thread_type_message").get_text() == "See you"
    d(resourceId=RID + "thread_send_message").click()
    newest = _rows(adb_cli, s, "sent")[0]
    assert (newest["address"], newest["body"]) == ("5551234", "See you")


def test_a_message_sent_through_the_ui_is_a_row_of_sms_sent(d, emu, adb_cli):
    vd, s = emu
    _open_as_default(d, adb_cli, s)
    before = {r["_id"] for r in _rows(adb_cli, s, "sent")}
    d(resourceId=RID + "conversations_fab").click()
    d(resourceId=RID + "new_conversation_address").set_text("+15551230000")
    d(resourceId=RID + "new_conversation_confirm").click()
    _compose_and_send(d, "Running late, start without me ")
    now_ms = int(sh(adb_cli, s, "date +%s")) * 1000
    new = [r for r in _rows(adb_cli, s, "sent") if r["_id"] not in before]
    assert [(r["address"], r["body"], r["type"], r["read"]) for r in new] == [
        ("+15551230000", "Running late, start without me", "2", "1")  # the app sends the trimmed text
    ]
    assert abs(now_ms - int(new[0]["date"])) < 60_000  # dated by the device's clock, as AndroidWorld's judge needs
    assert d(resourceId=RID + "thread_message_body", text="Running late, start without me").exists
    assert d(resourceId=RID + "thread_success").exists  # the last message is sent
    d.press("back")
    d.press("back")
    d.press("back")
    row = d(resourceId=RID + "conversation_address", text="+15551230000")
    assert row.exists and d(resourceId=RID + "conversation_body_short", text="Running late, start without me").exists
    # a contact's number: the conversation is titled with the contact's name (Bob Smith, +1 650-555-0102)
    d(resourceId=RID + "conversations_fab").click()
    d(resourceId=RID + "new_conversation_address").set_text("Bob")
    d(resourceId=RID + "item_contact_name", text="Bob Smith").click()
    assert d(resourceId=RID + "thread_toolbar").child(text="Bob Smith").exists
    _compose_and_send(d, "On my way")
    assert ("+1 650-555-0102", "On my way") in [(r["address"], r["body"]) for r in _rows(adb_cli, s, "sent")]
    assert vd.model.app_data[MESSAGES]["threads"][0]["name"] == "Bob Smith"  # one truth


def test_a_received_sms_shows_is_announced_and_read_when_opened(d, emu, adb_cli):
    _, s = emu
    _open_as_default(d, adb_cli, s)
    r = adb_cli("-s", s, "emu", "sms", "send", "5559876", "Gate code is 4321")
    assert b"OK" in r.stdout
    [row] = _rows(adb_cli, s, "inbox", "address='5559876'")
    assert (row["body"], row["read"], row["type"]) == ("Gate code is 4321", "0", "1")
    notes = sh(adb_cli, s, "dumpsys notification --noredact")
    assert f"pkg={PKG}" in notes and "simple_sms_messenger" in notes  # the SMS role's holder announces it
    assert d(resourceId=RID + "conversation_address", text="5559876").wait(timeout=5)
    assert d(resourceId=RID + "conversation_body_short", text="Gate code is 4321").exists
    assert d(resourceId=RID + "conversation_address").get_text() == "5559876"  # the newest first
    d(resourceId=RID + "conversation_address", text="5559876").click()
    assert d(resourceId=RID + "thread_message_body", text="Gate code is 4321").exists
    assert d(resourceId=RID + "thread_message_sender_photo").exists
    [row] = _rows(adb_cli, s, "inbox", "address='5559876'")
    assert row["read"] == "1"  # opening the conversation read it
    assert f"pkg={PKG}" not in sh(adb_cli, s, "dumpsys notification --noredact")  # and took its notification


def test_a_failed_message_is_resent_as_the_same_row(d, emu, adb_cli):
    _, s = emu
    _open_as_default(d, adb_cli, s)
    sh(adb_cli, s, "settings put global airplane_mode_on 1")  # the radio off: sending fails
    d(resourceId=RID + "conversation_address", text="Alice Johnson").click()
    _compose_and_send(d, "Did you get this?")
    [failed] = _rows(adb_cli, s, "failed")
    assert (failed["address"], failed["body"], failed["type"]) == ("+1 650-555-0101", "Did you get this?", "5")
    assert "Did you get this?" not in [r["body"] for r in _rows(adb_cli, s, "sent")]
    retry = d(resourceId=RID + "thread_error")
    assert retry.get_text() == "Not sent. Touch to retry."
    assert not d(resourceId=RID + "thread_success").exists
    sh(adb_cli, s, "settings put global airplane_mode_on 0")
    retry.click()  # the failed text back in the field, to go as that message
    assert d(resourceId=RID + "thread_type_message").get_text() == "Did you get this?"
    d(resourceId=RID + "thread_send_message").click()
    assert _rows(adb_cli, s, "failed") == []
    sent = [r for r in _rows(adb_cli, s, "sent") if r["body"] == "Did you get this?"]
    assert [r["_id"] for r in sent] == [failed["_id"]]  # resent in place: no second row
    assert not d(resourceId=RID + "thread_error").exists and d(resourceId=RID + "thread_success").exists


def test_a_message_inserted_as_failed_can_be_resent(d, emu, adb_cli):
    _, s = emu
    sh(
        adb_cli,
        s,
        "content insert --uri content://sms --bind address:s:5550001 --bind body:s:'Call me back' --bind type:i:5",
    )
    [failed] = _rows(adb_cli, s, "failed")
    _open_as_default(d, adb_cli, s)
    d(resourceId=RID + "conversation_address", text="5550001").click()
    d(resourceId=RID + "thread_error").click()
    d(resourceId=RID + "thread_send_message").click()
    assert [(r["_id"], r["type"]) for r in _rows(adb_cli, s, "sent", "address='5550001'")] == [(failed["_id"], "2")]


def test_copy_and_forward_a_message(d, emu, adb_cli):
    vd, s = emu
    _open_as_default(d, adb_cli, s)
    d(resourceId=RID + "conversation_address", text="Alice Johnson").click()
    d(resourceId=RID + "thread_message_body", text="Perfect, see you there").long_click()
    assert d(resourceId=RID + "actionbar_title").get_text() == "1 / 3"
    d(description="Copy to clipboard").click()
    assert vd.model.clipboard == "Perfect, see you there"
    d(resourceId=RID + "thread_message_body", text="Are we still on for lunch tomorrow?").long_click()
    d(description="More options").click()
    d(text="Forward").click()
    d(resourceId=RID + "item_contact_name", text="Carlos Diaz").click()
    assert d(resourceId=RID + "thread_type_message").get_text() == "Are we still on for lunch tomorrow?"
    d(resourceId=RID + "thread_send_message").click()
    assert ("+16505550103", "Are we still on for lunch tomorrow?") in [  # the contact's normalized number
        (r["address"], r["body"]) for r in _rows(adb_cli, s, "sent")
    ]


def test_clipper_sets_and_reads_the_clipboard(vdevice, adb_cli):
    s = vdevice.serial
    out = sh(adb_cli, s, "am broadcast -a clipper.set -e text 'Meet at 7'")
    assert 'Broadcast completed: result=-1, data="Text is copied into clipboard."' in out
    assert vdevice.model.clipboard == "Meet at 7"
    assert 'result=0, data=""' in sh(adb_cli, s, "am broadcast -a clipper.get")  # only the app in front reads it
    sh(adb_cli, s, "am start -n ca.zgrs.clipper/ca.zgrs.clipper.Main")
    assert 'Broadcast completed: result=-1, data="Meet at 7"' in sh(adb_cli, s, "am broadcast -a clipper.get")


def test_the_search_bar_finds_titles_and_bodies(d, emu, adb_cli):
    _, s = emu
    _open_as_default(d, adb_cli, s)
    d(resourceId=RID + "top_toolbar_search").click()
    assert d(resourceId=RID + "top_toolbar_search_icon").info["contentDescription"] == "Back"
    d.send_keys("s")
    assert d(resourceId=RID + "search_placeholder_2").get_text() == "Type in at least 2 characters to start the search."
    d.send_keys("lides")  # typed on: "slides"
    assert d(resourceId=RID + "search_result_title").get_text() == "Bob Smith"
    assert d(resourceId=RID + "search_result_snippet").get_text() == "Can you send me the slides from today?"
    d(resourceId=RID + "search_result_title").click()
    assert focus(adb_cli, s) == f"{PKG}/{PKG}.activities.ThreadActivity"
    assert d(resourceId=RID + "thread_message_body", text="Can you send me the slides from today?").exists
