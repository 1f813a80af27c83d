"""Provider lines clients still send, through the real adb server: the legacy `content://contacts/phones/` and
`content://call_log/calls` URIs, `pm clear com.android.providers.contacts` (the contacts provider's data goes),
and `content://sms/sent` newest first, as Android's SmsProvider sorts by default."""

from __future__ import annotations

import re


def _sh(adb_cli, vdevice, line: str) -> str:
    r = adb_cli("-s", vdevice.serial, "shell", line)
    assert r.returncode == 0, r.stderr
    return r.stdout.decode()


def test_legacy_phones_and_call_log_answer(vdevice, adb_cli):
    out = _sh(adb_cli, vdevice, "content query --uri content://contacts/phones/ --projection display_name:number")
    people = re.findall(r"display_name=(.*), number=(.*)", out)  # AndroidWorld's contacts_utils parse
    assert ("Alice Johnson", "+1 650-555-0101") in people and len(people) >= 3
    assert _sh(adb_cli, vdevice, "content query --uri content://call_log/calls") == "No result found.\n"
    assert _sh(adb_cli, vdevice, "content delete --uri content://call_log/calls; echo $?") == "0\n"
    _sh(adb_cli, vdevice, "content insert --uri content://call_log/calls --bind number:s:5551234 --bind date:l:7")
    assert "number=5551234, date=7" in _sh(adb_cli, vdevice, "content query --uri content://call_log/calls")


def test_pm_clear_contacts_provider_empties_contacts_and_calls(vdevice, adb_cli):
    _sh(adb_cli, vdevice, "content insert --uri content://call_log/calls --bind number:s:5551234")
    assert "Row: 0" in _sh(adb_cli, vdevice, "content query --uri content://com.android.contacts/raw_contacts")
    assert _sh(adb_cli, vdevice, "pm clear com.android.providers.contacts") == "Success\n"
    for uri in ("com.android.contacts/raw_contacts", "contacts/phones/", "call_log/calls"):
        assert _sh(adb_cli, vdevice, f"content query --uri content://{uri}") == "No result found.\n"
    # the Contacts app shows the provider's data: nothing, and not seeded again
    _sh(adb_cli, vdevice, "am start -n com.google.android.contacts/com.android.contacts.activities.PeopleActivity")
    screen = _sh(adb_cli, vdevice, "uiautomator dump /dev/tty")
    assert "contact_list" in screen and "Alice Johnson" not in screen


def test_sms_sent_is_newest_first(vdevice, adb_cli):
    for body in ("first", "second"):
        _sh(adb_cli, vdevice, f"content insert --uri content://sms/sent --bind address:s:5550100 --bind body:s:{body}")
    out = _sh(adb_cli, vdevice, "content query --uri content://sms/sent --projection date:body")
    dates = [int(d) for d in re.findall(r"date=(\d+)", out)]
    assert out.startswith("Row: 0 date=") and "body=second" in out.splitlines()[0]
    assert "body=first" in out.splitlines()[1] and dates == sorted(dates, reverse=True)
    inbox = _sh(adb_cli, vdevice, "content query --uri content://sms/inbox --projection date")
    in_dates = [int(d) for d in re.findall(r"date=(\d+)", inbox)]
    assert in_dates == sorted(in_dates, reverse=True) and len(in_dates) > 1
