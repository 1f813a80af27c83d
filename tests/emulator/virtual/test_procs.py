"""Processes as toybox shows them, through the real adb server: pids that change when an app is stopped and started
again, `ps -A -o`, `ps -u`, `ps -p`, `pidof`, and the uiautomator2 server as the `app_process` it is on a device."""

from __future__ import annotations

import re

import pytest

pytestmark = pytest.mark.timeout(90)

PKG = "com.android.settings"


def pid_of(adb, name: str) -> int | None:
    out = adb.shell(f"pidof {name}").strip()
    return int(out) if out else None


def test_app_gets_a_new_pid_after_force_stop_and_relaunch(vdevice):
    adb = vdevice.adb
    assert pid_of(adb, PKG) is None
    adb.shell(f"am start -n {PKG}/.Settings")
    first = pid_of(adb, PKG)
    assert first is not None
    adb.shell("input keyevent HOME")
    adb.shell(f"am start -n {PKG}/.Settings")
    assert pid_of(adb, PKG) == first  # still running: same process
    adb.shell(f"am force-stop {PKG}")  # no ps/pidof in between: the stop itself ends the process
    assert pid_of(adb, PKG) is None
    adb.shell(f"monkey -p {PKG} -c android.intent.category.LAUNCHER 1")
    second = pid_of(adb, PKG)
    assert second is not None and second != first
    ps_line = next(line for line in adb.shell("ps -A").splitlines() if line.split()[-1] == PKG)
    assert int(ps_line.split()[1]) == second


def test_ps_default_columns_and_header_as_toybox_pads_them(vdevice):
    lines = vdevice.adb.shell("ps -A", rstrip=False).splitlines()
    # toybox on Android: -o USER,PID,PPID,VSIZE:10,RSS,WCHAN:10,ADDR:10,S,NAME; the last title is padded too
    assert lines[0] == "USER            PID   PPID        VSZ    RSS WCHAN            ADDR S NAME" + " " * 23
    init = lines[1]
    assert re.fullmatch(r"root {14}1 {6}0 +\d+ +\d+ do_epoll_wait +0 S init", init), init
    # WCHAN overflows its 10 columns by 3: ADDR gives the 3 back, so the S column stays where it was
    assert init.index(" S init") == lines[0].index(" S NAME")


def test_ps_o_fields_u_and_p(vdevice):
    adb = vdevice.adb
    adb.shell(f"am start -n {PKG}/.Settings")
    pid = pid_of(adb, PKG)
    out = adb.shell("ps -A -o PID,USER,NAME").splitlines()
    assert out[0] == "   PID USER         NAME" + " " * 23
    assert f"{pid:>6} system       {PKG}" in out
    assert "     1 root         init" in out
    # -o with =TITLE and :WIDTH, and a field list split over two -o
    assert adb.shell("ps -p 1 -o pid:3=P -o args").splitlines() == ["  P ARGS" + " " * 23, "  1 init second_stage"]
    # -u selects by user name or uid; the adb shell user runs adbd, this sh and ps itself
    shell_names = [line.split()[-1] for line in adb.shell("ps -u shell").splitlines()[1:]]
    assert shell_names[0] == "adbd" and shell_names[-2:] == ["sh", "ps"]
    assert [line.split()[-1] for line in adb.shell("ps -u 1000 -o NAME").splitlines()[1:]] == [
        "servicemanager",
        "surfaceflinger",
        "system_server",
        PKG,
    ]
    assert adb.shell(f"ps -p {pid} -o CMD,%CPU,S").splitlines()[1].split()[0] == PKG[-15:]  # comm: 15 chars
    r = adb.shell2("ps -o NOPE")
    assert r.returncode == 1 and "ps: bad -o NOPE" in r.output
    r = adb.shell2(f"ps {PKG}")  # toybox takes extra arguments as pids
    assert r.returncode == 1 and f"ps: bad {PKG}" in r.output
    assert adb.shell2("ps -p 99999").returncode == 1  # nothing matched


def test_pidof_lists_ascending_and_s_o(vdevice):
    adb = vdevice.adb
    assert adb.shell("pidof zygote64 zygote init") == "1 640 641"
    assert adb.shell("pidof -s zygote64 zygote") == "640"
    assert adb.shell("pidof -o 640 zygote64 zygote") == "641"
    assert adb.shell("pidof /system/bin/surfaceflinger") == "705"  # a path matches the whole argv[0]
    assert adb.shell2("pidof no.such.process").returncode == 1


def test_uiautomator2_server_shows_as_app_process(vdevice, u2dev):
    model = vdevice.model
    assert u2dev.info["displayWidth"] > 0
    adb = vdevice.adb
    rows = [line.split() for line in adb.shell("ps -A -o PID,PPID,USER,NAME,ARGS").splitlines()[1:]]
    server = [r for r in rows if r[3] == "app_process"]
    assert len(server) == 1 and int(server[0][0]) == model.u2_pid
    assert server[0][1] == "802" and server[0][2] == "shell"  # started by adbd's shell, as the shell user
    assert "com.wetest.uia2.Main" in server[0][4:]
    assert adb.shell("pidof app_process") == str(model.u2_pid)
    assert "uiautomator" not in [r[3] for r in rows]
    # the shell user may kill it, as on a device; u2 starts it again on the next call
    adb.shell(f"kill {model.u2_pid}")
    assert not model.u2_running
    assert u2dev.info["displayWidth"] > 0
    assert model.u2_running and adb.shell("pidof app_process") == str(model.u2_pid)
