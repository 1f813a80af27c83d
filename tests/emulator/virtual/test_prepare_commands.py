"""The virtual device's shell commands and settings that device preparation uses, through the real adb server: the
outputs, exit statuses and stored settings Android's services give (ConnectivityService, UiModeManagerService and
AlarmManagerService shell commands, toybox date, svc power, setprop's SELinux refusal)."""

from __future__ import annotations

import pytest


@pytest.mark.parametrize(
    "line,out,rc",
    [
        ("cmd connectivity airplane-mode", "disabled", 0),
        ("cmd connectivity airplane-mode enable; settings get global airplane_mode_on", "1", 0),
        ("cmd connectivity airplane-mode enable; cmd connectivity airplane-mode", "enabled", 0),
        ("cmd uimode night yes", "Night mode: yes", 0),
        ("cmd uimode night auto; settings get secure ui_night_mode", "Night mode: auto\n0", 0),
        ("cmd uimode night no; settings get secure ui_night_mode", "Night mode: no\n1", 0),
        (
            "cmd uimode night maybe",
            "Error: mode must be 'yes', 'no', or 'auto', or 'custom_schedule', or 'custom_bedtime'",
            255,
        ),
        ("cmd alarm set-timezone Europe/London; getprop persist.sys.timezone", "Europe/London", 0),
        ("cmd alarm set-timezone Nowhere/Atall; getprop persist.sys.timezone", "GMT", 0),
        ("cmd alarm set-time 1700000000000; date -u", "Tue Nov 14 22:13:20 UTC 2023", 0),
        (
            "cmd alarm set-time; echo $?",
            'java.lang.IllegalArgumentException: Argument expected after "set-time"\n255',
            0,
        ),
        ("date 010112002020.00", "date: cannot set date: Operation not permitted", 1),
        (
            "setprop persist.sys.timezone UTC",
            "Failed to set property 'persist.sys.timezone' to 'UTC'.\nSee dmesg for error reason.",
            1,
        ),
        ("svc power stayon usb; settings get global stay_on_while_plugged_in", "2", 0),
        ("svc power stayon false; settings get global stay_on_while_plugged_in", "0", 0),
        ("settings put system time_12_24 24; settings get system time_12_24", "24", 0),
        ("settings put global animator_duration_scale 0; settings get global animator_duration_scale", "0", 0),
    ],
)
def test_virtual_device_commands_print_androids_output(vdevice, adb_cli, line, out, rc):
    r = adb_cli("-s", vdevice.serial, "shell", line)
    assert ((r.stdout + r.stderr).decode().strip(), r.returncode) == (out, rc)


def test_connectivity_help_and_date_in_the_devices_zone(vdevice, adb_cli):
    r = adb_cli("-s", vdevice.serial, "shell", "cmd connectivity airplane-mode toggle")
    assert r.returncode == 255
    assert r.stdout.decode().startswith("Connectivity service commands:\n  help\n")
    r = adb_cli(
        "-s", vdevice.serial, "shell", "cmd alarm set-timezone Asia/Tokyo; cmd alarm set-time 1700000000000; date"
    )
    assert r.stdout.decode() == "Wed Nov 15 07:13:20 JST 2023\n"


def test_dumpsys_power_reports_stay_on_and_the_clock_resyncs_with_auto_time(vdevice, adb_cli):
    def sh(line: str) -> str:
        return adb_cli("-s", vdevice.serial, "shell", line).stdout.decode().strip()

    assert "mStayOn=false" in sh("dumpsys power")
    sh("svc power stayon true")
    assert "mStayOn=true" in sh("dumpsys power") and "mStayOnWhilePluggedInSetting=7" in sh("dumpsys power")
    sh("cmd alarm set-time 1000000000000")
    assert sh("date -u +%Y") == "2001"
    sh("settings put global auto_time 1")  # automatic time again: the clock follows the network's
    assert sh("date -u +%Y") != "2001"
