"""`adb shell` sessions as processes, through the real adb binary: a session's sh, the command it runs and its
jobs are in ps and /proc (PPID links: adbd -> sh -> command) from another session; `kill` from another session
reaches them; the host hanging up sends SIGHUP (a `trap ... HUP` runs, an untrapped shell dies)."""

from __future__ import annotations

import subprocess
import time
from collections.abc import Callable

import pytest

from emulator.virtual.procs import ADBD_PID
from tests.device_util import adb_shell

pytestmark = pytest.mark.timeout(90)


def _first_line(proc: subprocess.Popen) -> str:
    assert proc.stdout is not None
    return proc.stdout.readline().decode().strip()


def _until(check: Callable[[], bool], what: str, limit: float = 20.0) -> None:
    end = time.monotonic() + limit
    while not check():
        assert time.monotonic() < end, what
        time.sleep(0.05)


def _rows(vdevice) -> dict[int, tuple[int, str]]:
    """pid -> (ppid, name) from `ps -A` run in a session of its own."""
    out = vdevice.adb.shell("ps -A -o PID,PPID,NAME")
    rows = {}
    for line in out.splitlines()[1:]:
        pid, ppid, name = line.split(None, 2)
        rows[int(pid)] = (int(ppid), name)
    return rows


def test_a_session_and_its_command_are_processes(vdevice, adb_server):
    with adb_shell(adb_server, vdevice.serial, "echo $$; sleep 30") as first:
        sh = int(_first_line(first))
        _until(lambda: any(v == (sh, "sleep") for v in _rows(vdevice).values()), "sleep never listed")
        rows = _rows(vdevice)
        assert rows[sh] == (ADBD_PID, "sh")
        assert rows[ADBD_PID][1] == "adbd"
        # ps PID from another session finds it; /proc has it with its parent and command line
        assert vdevice.adb.shell(f"ps {sh} | grep -c {sh}") == "1"
        assert f"PPid:\t{ADBD_PID}" in vdevice.adb.shell(f"cat /proc/{sh}/status")
        cmdline = vdevice.adb.shell(f"tr '\\0' ' ' < /proc/{sh}/cmdline")
        assert cmdline.strip() == "/system/bin/sh -c echo $$; sleep 30"
    first.wait(timeout=20)  # killed as the block ended
    # the host hung up: the session and its sleep are gone
    _until(lambda: sh not in _rows(vdevice), "the session outlived its host")
    assert all(name != "sleep" for _, name in _rows(vdevice).values())


def test_dollar_dollar_is_the_sessions_pid_and_ps_finds_it(vdevice):
    out = vdevice.adb.shell("echo $$; ps -o PID,PPID,NAME $$ | tail -n 1")
    pid, row = out.splitlines()
    assert row.split() == [pid, str(ADBD_PID), "sh"]
    # a child sh and its command have the right parents
    out = vdevice.adb.shell("echo $$; sh -c 'echo $$; ps -o PID,PPID,NAME -p $$'")
    outer, inner, _header, row = out.splitlines()
    assert inner != outer and row.split() == [inner, outer, "sh"]


def test_a_background_job_is_a_child_of_the_session(vdevice):
    out = vdevice.adb.shell("sleep 20 & echo $$ $!; ps -o PID,PPID,NAME -p $!; kill $!")
    sh, job = out.splitlines()[0].split()
    assert out.splitlines()[2].split() == [job, sh, "sleep"]


def test_kill_from_another_session_ends_the_first(vdevice, adb_server):
    with adb_shell(adb_server, vdevice.serial, "echo $$; sleep 30; echo not-reached") as first:
        sh = int(_first_line(first))
        assert vdevice.adb.shell(f"kill {sh}; echo $?") == "0"
        out, _ = first.communicate(timeout=20)
        assert b"not-reached" not in out
        assert first.returncode == 128 + 15  # the shell protocol's exit status: SIGTERM
        assert sh not in _rows(vdevice)


def test_kill_of_the_command_leaves_the_shell_going(vdevice, adb_server):
    with adb_shell(adb_server, vdevice.serial, "echo $$; sleep 30; echo after=$?") as first:
        sh = int(_first_line(first))
        _until(lambda: any(v == (sh, "sleep") for v in _rows(vdevice).values()), "sleep never listed")
        sleep_pid = next(pid for pid, v in _rows(vdevice).items() if v == (sh, "sleep"))
        vdevice.adb.shell(f"kill -9 {sleep_pid}")
        out, _ = first.communicate(timeout=20)
        assert out.decode().splitlines()[-1] == "after=137"
        assert first.returncode == 0


def _file(vdevice, path: str) -> str:
    return vdevice.adb.shell(f"cat {path} 2>/dev/null")


@pytest.mark.parametrize("pty", [False, True])
def test_hang_up_runs_the_sighup_trap(vdevice, adb_server, pty):
    path = f"/data/local/tmp/hup-{int(pty)}"
    args = ["-tt"] if pty else []
    with adb_shell(adb_server, vdevice.serial, *args, f'trap "echo HUP > {path}" HUP; echo ready; read x') as first:
        assert _first_line(first) == "ready"
        first.kill()  # the adb client dies: the server closes the device's stream
        first.wait(timeout=20)
        _until(lambda: _file(vdevice, path) == "HUP", "the SIGHUP trap never ran")


def test_hang_up_of_an_interactive_session(vdevice, adb_server):
    path = "/data/local/tmp/hup-interactive"
    with adb_shell(adb_server, vdevice.serial) as first:
        assert first.stdin is not None
        first.stdin.write(f"trap 'echo HUP > {path}' HUP\necho $$\n".encode())
        first.stdin.flush()
        sh = int(_first_line(first))
        assert _rows(vdevice)[sh] == (ADBD_PID, "sh")
        first.kill()
        first.wait(timeout=20)
        _until(lambda: _file(vdevice, path) == "HUP", "the SIGHUP trap never ran")
        _until(lambda: sh not in _rows(vdevice), "the session outlived its host")


def test_an_untrapped_shell_dies_of_the_hang_up(vdevice, adb_server):
    with adb_shell(adb_server, vdevice.serial, "echo $$; read x; echo survived > /data/local/tmp/nohup") as first:
        sh = int(_first_line(first))
        first.kill()
        first.wait(timeout=20)
        _until(lambda: sh not in _rows(vdevice), "the session outlived its host")
        assert _file(vdevice, "/data/local/tmp/nohup") == ""


def test_an_ignored_hang_up_lets_the_script_go_on(vdevice, adb_server):
    path = "/data/local/tmp/ignored-hup"
    script = f"trap '' HUP; echo ready; sleep 2 && echo survived > {path}"
    with adb_shell(adb_server, vdevice.serial, script) as first:
        assert _first_line(first) == "ready"
        first.kill()
        first.wait(timeout=20)
        _until(lambda: _file(vdevice, path) == "survived", "the script did not outlive the hang-up")


@pytest.mark.parametrize("nohup", [True, False])
def test_a_nohup_job_outlives_the_hang_up(vdevice, adb_server, nohup):
    path = f"/data/local/tmp/nohup-{int(nohup)}"
    job = f"sh -c 'sleep 3; echo kept > {path}' >/dev/null 2>&1 &"
    with adb_shell(adb_server, vdevice.serial, ("nohup " if nohup else "") + job + " echo $!; read x") as first:
        pid = int(_first_line(first))
        assert pid in _rows(vdevice)
        first.kill()
        first.wait(timeout=20)
        _until(lambda: pid not in _rows(vdevice), "the job never ended")
        assert _file(vdevice, path) == ("kept" if nohup else "")


def _wait_listed(vdevice, name: str, parent: int | None = None) -> int:
    found: list[int] = []

    def listed() -> bool:
        found[:] = [p for p, (pp, n) in _rows(vdevice).items() if n == name and parent in (None, pp)]
        return bool(found)

    _until(listed, f"{name} never listed")
    return found[0]


@pytest.mark.parametrize("command", ["sleep 30", "logcat"])
def test_ctrl_c_on_a_terminal_interrupts_the_command(vdevice, adb_server, command):
    # a command with a terminal (adb shell -t): ^C is SIGINT to the command and to the non-interactive sh
    with adb_shell(adb_server, vdevice.serial, "-tt", f"echo $$; {command}; echo after=$?") as first:
        sh = int(_first_line(first))
        _wait_listed(vdevice, command.split()[0], sh)
        assert first.stdin is not None
        first.stdin.write(b"\x03")
        first.stdin.flush()
        out, _ = first.communicate(timeout=20)
        assert b"after=" not in out
        assert first.returncode == 128 + 2


def test_ctrl_c_in_an_interactive_session_leaves_the_shell(vdevice, adb_server):
    with adb_shell(adb_server, vdevice.serial, "-tt") as first:
        assert first.stdin is not None
        first.stdin.write(b"sleep 30\n")
        first.stdin.flush()
        _wait_listed(vdevice, "sleep")
        first.stdin.write(b"\x03")
        first.stdin.flush()
        first.stdin.write(b"echo after=$?\nexit\n")
        first.stdin.flush()
        out, _ = first.communicate(timeout=20)
        assert b"after=130" in out


@pytest.mark.parametrize(
    ("args", "expected"),
    [(["-tt", "[ -t 0 ]"], 0), (["-tt", "[[ -t 1 ]]"], 0), (["-T", "[ -t 0 ]"], 1), (["[ -t 2 ]"], 1)],
)
def test_test_dash_t_sees_the_sessions_terminal(vdevice, adb_cli, args, expected):
    assert adb_cli("-s", vdevice.serial, "shell", *args).returncode == expected
