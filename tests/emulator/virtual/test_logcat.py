"""The device log through the real adb CLI: `adb logcat` runs `exec logcat` in the device shell, so this covers the
shell's `exec`, the log buffer, the threadtime format and `logcat -c`."""

from __future__ import annotations

import re

import pytest

pytestmark = pytest.mark.timeout(90)

# threadtime: "MM-DD HH:MM:SS.mmm  PID  TID L TAG     : message" (logprint.cpp: "%s %5d %5d %c %-8s: ")
THREADTIME = re.compile(r"^(\d\d-\d\d \d\d:\d\d:\d\d\.\d{3}) ([ \d]{5}) ([ \d]{5}) ([VDIWEF]) (.{8,}?): (.*)$")


def parse(text: str) -> list[tuple[str, int, int, str, str, str]]:
    out = []
    for line in text.splitlines():
        if line.startswith("--------- beginning of "):
            continue
        m = THREADTIME.match(line)
        assert m, f"not a threadtime line: {line!r}"
        stamp, pid, tid, level, tag, msg = m.groups()
        out.append((stamp, int(pid), int(tid), level, tag.rstrip(), msg))
    return out


def test_adb_logcat_dump_shows_app_start_and_force_stop(vdevice, adb_cli):
    serial = vdevice.serial
    assert adb_cli("-s", serial, "logcat", "-c").returncode == 0
    adb = vdevice.adb
    adb.shell("am start -n com.android.settings/.Settings")
    pid1 = int(adb.shell("pidof com.android.settings").strip())
    adb.shell("am force-stop com.android.settings")
    adb.shell("log -t DroidTest -p w hello from the shell")

    r = adb_cli("-s", serial, "logcat", "-d")
    assert r.returncode == 0, r.stderr
    text = r.stdout.decode()
    entries = parse(text)
    am = [(pid, level, msg) for _, pid, _, level, tag, msg in entries if tag == "ActivityManager"]
    assert any(m.startswith(f"Start proc {pid1}:com.android.settings/") for _, _, m in am), am
    assert any(m.startswith("Force stopping com.android.settings appid=") for _, _, m in am), am
    assert any(m.startswith(f"Killing {pid1}:com.android.settings/") for _, _, m in am), am
    # system_server writes them, from one of its threads
    system_server = int(
        next(line.split()[1] for line in adb.shell("ps -A").splitlines()[1:] if line.split()[-1] == "system_server")
    )
    assert {pid for pid, _, _ in am} == {system_server}
    starts = [msg for *_, tag, msg in entries if tag == "ActivityTaskManager" and msg.startswith("START u0 ")]
    assert any("cmp=com.android.settings/.Settings" in s for s in starts)
    mine = [(level, tag, msg) for _, _, _, level, tag, msg in entries if tag == "DroidTest"]
    assert mine == [("W", "DroidTest", "hello from the shell")]
    # the tag column is at least 8 wide: "I ActivityManager: " but "W DroidTest: " is padded
    assert any(line.endswith(" W DroidTest: hello from the shell") for line in text.splitlines())
    assert "--------- beginning of system" in text.splitlines()


def test_logcat_clear_returns_and_empties_the_buffer(vdevice, adb_cli):
    adb = vdevice.adb
    adb.shell("log -t Before something")
    r = adb_cli("-s", vdevice.serial, "logcat", "-c")  # returns: it does not stream
    assert r.returncode == 0 and r.stdout == b""
    assert adb.shell("logcat -d -s Before:V") == ""
    adb.shell("log -t After again")
    lines = parse(adb.shell("logcat -d"))  # the device's own chatter goes on; the cleared line is gone
    assert [(tag, msg) for *_, tag, msg in lines if tag in ("Before", "After")] == [("After", "again")]
    assert adb.shell("logcat --clear; echo $?").strip() == "0"


def test_logcat_filters_formats_and_tail(vdevice):
    adb = vdevice.adb
    adb.shell("logcat -c")
    for i in range(5):
        adb.shell(f"log -t Count -p i line{i}")
    adb.shell("log -t Other -p e boom")
    assert [m for *_, m in parse(adb.shell("logcat -d -s Count"))] == [f"line{i}" for i in range(5)]
    assert [m for *_, m in parse(adb.shell("logcat -d -t 2 -s Count"))] == ["line3", "line4"]
    assert [m for *_, m in parse(adb.shell("logcat -d *:E"))] == ["boom"]
    assert (
        adb.shell("logcat -d -v brief -s Other").splitlines()[-1]
        == f"E/Other   ({int(parse(adb.shell('logcat -d -s Other'))[0][1]):5d}): boom"
    )
    assert adb.shell("logcat -d -v raw -s Other").splitlines()[-1] == "boom"
    assert adb.shell("logcat -d -b main -s Count | wc -l").strip() == "6"  # 5 lines + "beginning of main"
    assert "unknown buffer" in adb.shell("logcat -d -b nope 2>&1")


def test_logcat_time_modifiers_epoch_monotonic_year_utc(vdevice):
    """`-v epoch` writes the seconds since 1970 right-aligned in 19 columns (logprint.cpp "%19lld", the lines
    android_env's LogcatThread parses), `monotonic` the seconds since boot in 6, `year` and `UTC` the date."""
    import time

    adb = vdevice.adb
    adb.shell("logcat -c")
    adb.shell("log -t Stamp -p i hello")
    now = time.time()
    epoch = adb.shell("logcat -d -v epoch -s Stamp").splitlines()[-1]
    m = re.match(r"^( +)(\d+)\.(\d{3}) ([ \d]{5}) ([ \d]{5}) I Stamp   : hello$", epoch)
    assert m and len(m.group(1) + m.group(2)) == 19, epoch
    assert abs(int(m.group(2)) - now) < 5
    mono = adb.shell("logcat -d -v threadtime,monotonic -s Stamp").splitlines()[-1]
    assert re.match(r"^ *\d{1,6}\.\d{3} ([ \d]{5}) ([ \d]{5}) I Stamp   : hello$", mono), mono
    year = adb.shell("logcat -d -v year -v UTC -s Stamp").splitlines()[-1]
    assert year.startswith(time.strftime("%Y-%m-%d", time.gmtime(now))), year


def test_logcat_without_dump_follows_new_lines_until_the_host_closes(vdevice):
    adb = vdevice.adb
    adb.shell("logcat -c")
    conn = adb.shell("logcat -s Follow", stream=True)
    sock = conn.conn  # the raw socket: read what has arrived, not a fixed count
    sock.settimeout(30)
    got = bytearray()
    try:
        adb.shell("log -t Follow first")
        while b"first" not in got:
            chunk = sock.recv(4096)
            assert chunk, "logcat ended instead of following"
            got += chunk
        assert b"Follow  : first" in got
        adb.shell("log -t Follow second")
        while b"second" not in got:
            chunk = sock.recv(4096)
            assert chunk, "logcat ended instead of following"
            got += chunk
    finally:
        conn.close()
    # the stream's close ended that logcat: nothing is left waiting on the log
    assert adb.shell("echo still here") == "still here"


def test_exec_replaces_the_shell(vdevice, adb_cli):
    adb = vdevice.adb
    assert adb.shell("echo a; exec echo b; echo c").split() == ["a", "b"]
    # adb shell (v2) reports the exit status of the command that replaced the shell
    assert adb_cli("-s", vdevice.serial, "shell", "exec sh -c 'exit 7'; exit 1").returncode == 7
    assert adb.shell("(exec echo inner); echo outer").split() == ["inner", "outer"]
    assert adb.shell("export X=1; exec printenv X") == "1"
