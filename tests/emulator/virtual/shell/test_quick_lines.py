"""Which command lines the virtual adbd holds to their end (`emulator.virtual.shell.quick.ends_at_once`): only
lines known to print and end at once; anything that may wait (sleep, a log that follows, a job, a loop, the host's
stdin) streams."""

from __future__ import annotations

import pytest

from emulator.virtual.shell.quick import ends_at_once


@pytest.mark.parametrize(
    "line",
    [
        "dumpsys window | grep -E 'mCurrentFocus|mFocusedApp'",  # the harness's per-step query
        "settings get global airplane_mode_on",
        "pm clear com.android.settings && am force-stop com.android.settings",
        "am start -n com.android.settings/.Settings",
        "cmd package resolve-activity --brief com.android.settings",
        "content query --uri content://sms/inbox --projection body",
        "getprop; echo ==droidharness==; dumpsys window displays",
        "input tap 10 20",
        "sh -c 'input keyevent 4'",
        "X=1 echo $X",
        "if settings get global adb_enabled; then echo on; else echo off; fi",
        "{ echo a; echo b; } | wc -l",
        "echo $(getprop ro.product.model)",
        "echo 'unterminated",  # a syntax error: the shell prints it and ends
        "cat /proc/uptime",  # the harness's device clock read: files, not the host's stdin
        "cat -v /data/local/tmp/a.txt /sdcard/b.txt",
    ],
)
def test_lines_that_end_at_once(line: str) -> None:
    assert ends_at_once(line)


@pytest.mark.parametrize(
    "line",
    [
        "sleep 1",
        "echo a; sleep 1; echo b",
        "logcat",
        "logcat -d",  # logcat is not on the list at all, whatever its flags
        "echo a & echo b",
        "while true; do echo x; done",
        "for i in 1 2; do echo $i; done",
        "am instrument -w com.example.test/androidx.test.runner.AndroidJUnitRunner",
        "am monitor",
        "cmd activity monitor",
        "cat",  # reads the host's stdin: an interactive host waits for each answer
        "cat -",
        "cat /sdcard/a -",
        "cat /dev/input/event0",  # a device node streams
        "cat /proc/kmsg",
        "cat $F",
        "grep x",
        "echo $(sleep 1)",
        "monkey -p com.android.settings 10",
        "screenrecord /sdcard/a.mp4",
        "f() { echo x; }; f",
        "$CMD",
        "sh -c 'sleep 1'",
        "sh",
    ],
)
def test_lines_that_may_wait_are_not_held(line: str) -> None:
    assert not ends_at_once(line)
