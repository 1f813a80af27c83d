"""content://sms's boxes and dates through the real adb server, as an SMS app and AndroidWorld's judges read them:
outgoing messages in the outbox, failed and queued boxes, an app marking one sent, dates on the device's clock, the
seeded messages at the times Messages shows, failed rows through mmssms.db, and who announces an incoming SMS."""

from __future__ import annotations

import re

from emulator.virtual.providers.sms import receive

SMS_DB = "/data/data/com.android.providers.telephony/databases/mmssms.db"


def _sh(adb_cli, vdevice, line: str, code: int = 0) -> str:
    r = adb_cli("-s", vdevice.serial, "shell", line)
    assert r.returncode == code, (r.stdout, r.stderr)
    return r.stdout.decode() + r.stderr.decode()


def _ids(out: str) -> list[int]:
    return [int(i) for i in re.findall(r"_id=(\d+)", out)]


def test_outgoing_boxes_and_an_app_marking_a_message_sent(vdevice, adb_cli):
    for box, body in (("outbox", "going"), ("failed", "lost"), ("queued", "waiting")):
        _sh(adb_cli, vdevice, f"content insert --uri content://sms/{box} --bind address:s:5550100 --bind body:s:{body}")
    out = _sh(
        adb_cli, vdevice, "content query --uri content://sms --projection type:body --where \"address='5550100'\""
    )
    assert out.splitlines() == ["Row: 0 type=6, body=waiting", "Row: 1 type=5, body=lost", "Row: 2 type=4, body=going"]
    [failed] = _ids(_sh(adb_cli, vdevice, "content query --uri content://sms/failed --projection _id"))
    assert "No result found." in _sh(adb_cli, vdevice, "content query --uri content://sms/sent --where \"body='lost'\"")
    _sh(adb_cli, vdevice, f"content update --uri content://sms/{failed} --bind type:i:2")
    assert _ids(_sh(adb_cli, vdevice, "content query --uri content://sms/sent --projection _id"))[0] == failed
    assert _sh(adb_cli, vdevice, "content query --uri content://sms/failed") == "No result found.\n"
    bad = _sh(adb_cli, vdevice, f"content update --uri content://sms/{failed} --bind type:i:3", code=1)
    assert "Error while accessing provider:sms" in bad  # drafts are not kept
    # the Messages app shows an outgoing message whatever its box
    texts = [
        m["text"] for t in vdevice.model.app_data["com.google.android.apps.messaging"]["threads"] for m in t["messages"]
    ]
    assert {"going", "lost", "waiting"} <= set(texts)


def test_a_new_message_is_dated_by_the_device_clock_and_the_seeded_ones_as_shown(vdevice, adb_cli):
    seeded = _sh(adb_cli, vdevice, "content query --uri content://sms --projection date:body")
    dates = {b: int(d) for d, b in re.findall(r"date=(\d+), body=(.*)", seeded)}
    # Messages shows Alice's last message at 11:46 AM and Bob's at 9:15 AM of the device's day (UTC-7), 22000's "Sun"
    assert dates["Perfect, see you there"] - dates["Can you send me the slides from today?"] == (2 * 60 + 31) * 60_000
    assert dates["Can you send me the slides from today?"] == 1717431300000  # 2024-06-03 09:15 -07:00
    assert (
        dates["Your verification code is 482913. Do not share it with anyone."]
        < dates["Can you send me the slides from today?"]
    )
    _sh(adb_cli, vdevice, "content insert --uri content://sms/sent --bind address:s:5550100 --bind body:s:now")
    now_ms = int(_sh(adb_cli, vdevice, "date +%s")) * 1000
    [date] = re.findall(
        r"date=(\d+)", _sh(adb_cli, vdevice, "content query --uri content://sms/sent --projection date")
    )[:1]
    assert abs(int(date) - now_ms) < 60_000


def test_a_failed_row_written_into_mmssms_db_is_in_the_failed_box(vdevice, adb_cli):
    _sh(
        adb_cli,
        vdevice,
        f'sqlite3 {SMS_DB} "insert into sms (thread_id, address, date, read, type, body) values '
        "(2, '+1 650-555-0102', 1800000000000, 1, 5, 'not delivered')\"",
    )
    out = _sh(adb_cli, vdevice, "content query --uri content://sms/failed --projection address:type:body")
    assert out == "Row: 0 address=+1 650-555-0102, type=5, body=not delivered\n"
    back = _sh(adb_cli, vdevice, f"sqlite3 {SMS_DB} \"select type from sms where body = 'not delivered'\"")
    assert back == "5\n"


def test_the_sms_role_holder_announces_an_incoming_sms(vdevice, adb_cli):
    receive(vdevice.model, "5557777", "first")
    assert "pkg=com.google.android.apps.messaging" in _sh(adb_cli, vdevice, "dumpsys notification --noredact")
    _sh(adb_cli, vdevice, "cmd role add-role-holder android.app.role.SMS com.simplemobiletools.smsmessenger")
    receive(vdevice.model, "5558888", "second")
    [n] = [n for n in vdevice.model.notifications.posted if n.text == "second"]
    assert (n.package, n.channel, n.title) == ("com.simplemobiletools.smsmessenger", "simple_sms_messenger", "5558888")
    assert n.intent is not None and n.intent["activity"].endswith(".activities.ThreadActivity")
