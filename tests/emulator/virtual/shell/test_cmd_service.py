"""`service list|check|call` through the real adb server, as frameworks/native/cmds/service prints them: the reply
parcel as libbinder's TextOutput (`Result: Parcel(00000000    '....')`), errors on stderr with exit status 10;
`service call alarm 3 s16 TZ` (AndroidWorld's time zone reset) sets the device's zone."""

from __future__ import annotations

import pytest


def _sh(adb_cli, vdevice, line: str) -> tuple[str, str, int]:
    r = adb_cli("-s", vdevice.serial, "shell", line)
    return r.stdout.decode(), r.stderr.decode(), r.returncode


def test_service_call_alarm_sets_the_time_zone(vdevice, adb_cli):
    out, err, rc = _sh(adb_cli, vdevice, "service call alarm 3 s16 UTC")
    assert (out, err, rc) == ("Result: Parcel(00000000    '....')\n", "", 0)
    assert _sh(adb_cli, vdevice, "getprop persist.sys.timezone")[0] == "UTC\n"
    _sh(adb_cli, vdevice, "service call alarm 3 s16 Asia/Tokyo")
    assert _sh(adb_cli, vdevice, "cmd alarm set-time 1700000000000; date")[0] == "Wed Nov 15 07:13:20 JST 2023\n"


def test_service_call_alarm_set_time_returns_true(vdevice, adb_cli):
    out, _, rc = _sh(adb_cli, vdevice, "service call alarm 2 i64 1700000000000; date -u")
    assert (out, rc) == ("Result: Parcel(00000000 00000001   '........')\nTue Nov 14 22:13:20 UTC 2023\n", 0)


@pytest.mark.parametrize(
    "line,out,err,rc",
    [
        ("service check alarm", "Service alarm: found\n", "", 0),
        ("service check nosuch", "Service nosuch: not found\n", "", 0),
        ("service call nosuch 1", "", "service: Service nosuch does not exist\n", 10),
        ("service call alarm 9999", "Result: Parcel(NULL)\n", "", 0),  # a code the stub does not know
        ("service call statusbar 2", "Result: Parcel(00000000    '....')\n", "", 0),
    ],
)
def test_service_answers_as_android(vdevice, adb_cli, line, out, err, rc):
    assert _sh(adb_cli, vdevice, line) == (out, err, rc)


def test_service_list_and_usage_errors(vdevice, adb_cli):
    out, _, rc = _sh(adb_cli, vdevice, "service list")
    lines = out.splitlines()
    assert rc == 0 and lines[0] == f"Found {len(lines) - 1} services:"
    assert "\talarm: [android.app.IAlarmManager]" in out and lines[1].startswith("0\t")
    out, err, rc = _sh(adb_cli, vdevice, "service call alarm")
    assert (err, rc) == ("service: No code specified for call\n", 10) and out.startswith("Usage: service [-h|-?]\n")
    out, err, rc = _sh(adb_cli, vdevice, "service call alarm 3 s16")
    assert err == "service: no string supplied for 's16'\n" and rc == 10
    assert out.startswith("Result: Parcel(NULL)\nUsage: service")
    assert _sh(adb_cli, vdevice, "service frob")[1:] == ("service: Unknown command frob\n", 10)
