"""The kept shell session (`fastadb.ShellSession`, `Link.kept_shell`): command lines on one `adb shell` stream
kept open, through the real adb server to the virtual device - and the per-step focused-app query on it."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from harness.device import fastadb
from harness.device.capture import FOCUS_QUERY
from harness.device.fastadb import FastAdbDevice, ShellSession
from tests.device_util import TRICKLE, open_device
from tests.fake_clock import FakeClock


@pytest.fixture
def services(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Every adb service the harness opens from now on, in order."""
    opened: list[str] = []
    original: Callable[..., Any] = fastadb._open_service

    def spy(dev: Any, service: str, deadline: float, clock: Callable[[], float]) -> Any:
        opened.append(service)
        return original(dev, service, deadline, clock)

    monkeypatch.setattr(fastadb, "_open_service", spy)
    return opened


def test_commands_run_on_one_stream_with_their_exit_status(adb_server, vdevice, services) -> None:
    session = ShellSession(FastAdbDevice(adb_server.client, vdevice.serial))
    try:
        assert session.run("echo hello", 5.0) == (0, b"hello\n")
        assert session.run("echo oops >&2; false", 5.0) == (1, b"oops\n")  # stderr merged (v1)
        assert session.run("cd /sdcard", 5.0) == (0, b"")
        assert session.run("pwd", 5.0) == (0, b"/sdcard\n")  # one shell: its state carries over
        # output that looks like an end line, but with another session's token, does not end the call
        fake = b"__droidharness_end_0000000000000000_0"
        assert session.run(f"echo {fake.decode()}; echo after", 5.0) == (0, fake + b"\nafter\n")
        assert session.run("printf no-newline", 5.0) == (0, b"no-newline")
        code, out = session.run(FOCUS_QUERY, 5.0)
        assert code == 0 and out.count(b"mCurrentFocus=") == 1 and out.count(b"mFocusedApp=") == 1
    finally:
        session.close()
    assert services == ["shell,raw:"]


def test_a_command_sends_the_same_line_every_time_so_the_device_parses_it_once(adb_server, vdevice) -> None:
    """The end token is the session's, not the call's: the device's shell keeps the line's tree (issue 49)."""
    from emulator.virtual.shell.parser import parse

    session = ShellSession(FastAdbDevice(adb_server.client, vdevice.serial))
    try:
        first = session.run("cat /proc/uptime", 5.0)
        misses = parse.cache_info().misses
        again = session.run("cat /proc/uptime", 5.0)
        assert parse.cache_info().misses == misses, "the same line again: not parsed again"
        assert first[0] == again[0] == 0 and first[1] != b"" and again[1] != b""
    finally:
        session.close()


def test_a_call_past_its_deadline_closes_the_session_and_the_next_opens_another(adb_server, vdevice, services):
    """The deadline bounds the whole call, not each read: a command printing a line every 0.1 s for 2 s ends at
    it. Measured on a clock the test drives (0.05 s a read: a 0.3 s call sees it pass at its 7th read), so the
    call ends there - the command still printing - however slowly the machine goes."""
    clock = FakeClock(tick=0.05)
    session = ShellSession(FastAdbDevice(adb_server.client, vdevice.serial), clock)
    try:
        with pytest.raises(TimeoutError):
            session.run(f"{TRICKLE}; echo late", 0.3)
        assert clock.reads <= 7  # not one read past the deadline
        clock.tick = 0.0  # from now on no call runs out of time
        assert session.run("echo again", 5.0) == (0, b"again\n")  # not the late output of the abandoned call
    finally:
        session.close()
    assert services == ["shell,raw:", "shell,raw:"]


def test_one_line_at_a_time(adb_server, vdevice) -> None:
    session = ShellSession(FastAdbDevice(adb_server.client, vdevice.serial))
    with pytest.raises(ValueError, match="line break"):
        session.run("echo a\necho b", 5.0)


def test_the_focused_app_query_of_every_step_opens_no_stream(adb_server, make_vdevice, services) -> None:
    """After the link is up, observing opens no adb stream for the focused app: it goes down the kept shell, and
    still names the focused package and activity (the launcher, then Notes); a dropped transport is recovered."""
    vd = make_vdevice()
    with open_device(adb_server, vd) as dev:
        assert dev.link.has("kept_shell")
        services.clear()
        obs = dev.observe()
        assert (obs.package, obs.paths["app"]) == ("com.google.android.apps.nexuslauncher", "dumpsys")
        assert obs.activity == "com.google.android.apps.nexuslauncher.NexusLauncherActivity"
        vd.model.start_activity("com.droidharness.notes")
        assert dev.observe().package == "com.droidharness.notes"
        assert not any("dumpsys" in s for s in services)
        assert dev.link.kept_shell("probe", "echo ok; exit_status_is_kept").exit_code == 127
        vd.faults.drop_transport()
        assert dev.observe().package == "com.droidharness.notes"


def test_where_no_kept_shell_opens_the_query_goes_over_exec_out(adb_server, make_vdevice, services, monkeypatch):
    """A device whose command-less shell cannot be kept (refused, or it answers something else than asked): the
    link says so (no kept_shell capability) and the focused-app query opens an exec-out stream per step."""

    def refused(self: ShellSession, command: str, timeout: float = 30.0) -> tuple[int, bytes]:
        raise ConnectionResetError("closed")

    monkeypatch.setattr(ShellSession, "run", refused)
    vd = make_vdevice()
    with open_device(adb_server, vd) as dev:
        assert not dev.link.has("kept_shell") and dev.link.has("shell_v2")
        services.clear()
        obs = dev.observe()
        assert (obs.package, obs.paths["app"]) == ("com.google.android.apps.nexuslauncher", "dumpsys")
        assert obs.activity == "com.google.android.apps.nexuslauncher.NexusLauncherActivity"
        assert f"exec:{FOCUS_QUERY}" in services


def test_a_quick_command_runs_on_the_kept_shell_and_leaves_the_session_as_it_was(
    adb_server, make_vdevice, services
) -> None:
    """`Link.quick_shell`: no stream opened; stdout and stderr merged with the exit status; what the command does to
    its shell (cd, a variable, exit, reading input) stays in its subshell; a line with a break takes a stream."""
    vd = make_vdevice()
    with open_device(adb_server, vd) as dev:
        link = dev.link
        assert link.has("kept_shell")
        link.kept_shell("where", "cd /sdcard")
        services.clear()
        res = link.quick_shell("probe", "echo out; echo err >&2; exit 3")
        assert (res.exit_code, res.stdout, res.stderr) == (3, b"out\nerr\n", b"")
        assert link.quick_shell("cd", "cd /data/local/tmp; X=1; pwd").text == "/data/local/tmp\n"
        assert link.quick_shell("reads stdin", "cat").exit_code == 0, "reads /dev/null: the session's lines stay"
        assert link.kept_shell("after", 'pwd; echo "X=$X"').text == "/sdcard\nX=\n", "the session is as it was"
        started = link.quick_shell("start", "am start -n com.droidharness.notes/.MainActivity")
        assert started.exit_code == 0 and vd.model.foreground.package == "com.droidharness.notes"
        assert services == []
        assert link.quick_shell("two lines", "echo 'a\nb'").text == "a\nb\n"
        assert services == ["shell,v2,raw:echo 'a\nb'"]
