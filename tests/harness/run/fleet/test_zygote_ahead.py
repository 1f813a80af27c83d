"""A device zygote started ahead of its pool (issue 49 item 4, issue 50 item 2): a command starts it before its
heavy imports (`prestart`), it imports and warms up meanwhile, and the pool that opens next forks every device from
it - a single device too - once it has warmed up the pool's apps; a zygote no pool takes (another profile, a run
that failed before its pool) is stopped with its record. Embedded devices behind the real adb server."""

from __future__ import annotations

import json
import logging
import os
import signal
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from emulator.virtual.adbserver import PrivateAdbClient, prestart_server, stop_prestarted_server
from emulator.virtual.procdevice import prestart_warm, prestarted_zygote, stop_prestarted
from harness.run.fleet.pool import DevicePool
from harness.run.fleet.processes import prestart

pytestmark = pytest.mark.integration


@pytest.fixture
def state(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """A private state directory: the records this test's zygotes and devices write are only its own."""
    d = tmp_path / "state"
    monkeypatch.setenv("DROIDHARNESS_STATE_DIR", str(d))
    stop_prestarted()  # one an earlier test of this worker left is not this test's
    yield d
    stop_prestarted()


def _ppid(pid: int) -> int:
    return int(Path(f"/proc/{pid}/stat").read_text().rsplit(") ", 1)[1].split()[1])


def _ahead(state: Path) -> int:
    """The pid of the zygote `prestart` started, from the record it leaves for the reaper (the test's own state
    directory holds no other), checked to be this process's running child running the zygote; its log if not."""
    (record,) = _records(state)
    rec = json.loads(record.read_text())
    pid = int(rec["pid"])
    # Popen returns once exec closed its pipe, which the kernel does before it sets the new image's argument
    # pointers: for a moment the child's /proc/PID/cmdline reads empty (seen in CI on a loaded machine)
    deadline = time.monotonic() + 10.0
    while True:
        try:
            cmdline = Path(f"/proc/{pid}/cmdline").read_bytes()
            ppid = _ppid(pid)
        except OSError:
            cmdline, ppid = b"", -1
        if cmdline or ppid == -1 or time.monotonic() > deadline:
            break
        time.sleep(0.01)
    log = Path(rec["home"]) / "zygote.log"
    assert ppid == os.getpid() and b"emulator.virtual.zygote" in cmdline, (
        f"zygote {pid}: parent {ppid}, command line {cmdline!r}, log: {log.read_text() if log.exists() else None!r}"
    )
    return pid


def _gone(pid: int, timeout: float = 15.0) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            if "\nState:\tZ" in Path(f"/proc/{pid}/status").read_text():
                return True
        except OSError:
            return True
        time.sleep(0.05)
    return False


def _records(state: Path) -> list[Path]:
    return sorted((state / "devices").glob("*.json"))


def test_a_single_device_is_forked_warm_from_the_zygote_started_ahead_of_its_pool(state):
    prestart("medium_phone", ("en",))
    assert prestarted_zygote()
    ahead = _ahead(state)
    apps = ("com.google.android.deskclock",)
    with DevicePool(1, isolation="process", apps=apps) as pool:
        proc = pool.process(0)
        assert proc is not None and proc.pid is not None
        assert _ppid(proc.pid) == ahead, "the device is the prestarted zygote's child, not its own interpreter"
        assert not prestarted_zygote(), "the pool took it"
        assert pool.slot(0).shell(["echo", "up"]).stdout.strip() == b"up"
        log = (Path(os.readlink(f"/proc/{ahead}/cwd")) / "zygote.log").read_text()
        assert "warm:" in log and "of 1 apps" in log, log  # narrowed to the pool's app before the fork
    assert _gone(ahead), "the pool stopped the zygote it took"
    assert _records(state) == []


def _log_line(pid: int, needle: str, timeout: float = 30.0) -> str:
    """The first line of zygote `pid`'s log holding `needle`, waited for; '' when none comes."""
    log = Path(os.readlink(f"/proc/{pid}/cwd")) / "zygote.log"
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        lines = [x for x in log.read_text(errors="replace").splitlines() if needle in x] if log.exists() else []
        if lines:
            return lines[0]
        time.sleep(0.05)
    return ""


def test_the_run_s_apps_told_ahead_are_warmed_before_any_pool_asks(state):
    prestart("medium_phone", ("en",))
    ahead = _ahead(state)
    clock = "com.google.android.deskclock"
    prestart_warm(("en",), (clock,))  # what `droidharness run` does once it has read its suite
    line = _log_line(ahead, f"en:{clock}")
    assert line.split("warmed: ")[-1].startswith("2 screens (en:com.google.android.deskclock, en:home)"), line
    assert prestarted_zygote(), "no pool has asked yet"
    with DevicePool(1, isolation="process", apps=(clock,)) as pool:
        proc = pool.process(0)
        assert proc is not None and proc.pid is not None and _ppid(proc.pid) == ahead
        assert pool.slot(0).shell(["echo", "up"]).stdout.strip() == b"up"
    assert _gone(ahead)


def test_a_zygote_started_ahead_for_another_profile_is_stopped_and_the_pool_starts_its_own_device(state):
    prestart("small_phone", ("en",))
    ahead = _ahead(state)
    with DevicePool(1, isolation="process", profile="medium_phone") as pool:
        proc = pool.process(0)
        assert proc is not None and proc.pid is not None
        assert _ppid(proc.pid) == os.getpid(), "a single device without a zygote ahead: its own interpreter"
        assert _gone(ahead), "the zygote of the other profile was stopped"
    assert _records(state) == []


def test_a_zygote_no_pool_takes_is_stopped_with_its_record(state):
    prestart("medium_phone", ("en",))
    ahead = _ahead(state)  # recorded for the reaper while it waits
    stop_prestarted()
    assert _gone(ahead) and not prestarted_zygote()
    assert _records(state) == []


def test_a_zygote_that_cannot_start_leaves_the_devices_their_own_interpreters_and_says_so(state, monkeypatch, caplog):
    from emulator.virtual.zygote import Zygote

    monkeypatch.setattr(Zygote, "command", lambda self: [sys.executable, "-c", "raise SystemExit(3)"])
    with caplog.at_level(logging.WARNING), DevicePool(2, isolation="process") as pool:
        for i in range(2):
            proc = pool.process(i)
            assert proc is not None and proc.pid is not None and _ppid(proc.pid) == os.getpid()
            assert pool.slot(i).shell(["echo", "up"]).stdout.strip() == b"up"
    assert any("device zygote unavailable" in r.getMessage() for r in caplog.records), caplog.text
    assert _records(state) == []


def test_a_pool_takes_the_adb_server_started_ahead(state):
    stop_prestarted_server()
    prestart_server()  # what `droidharness run` does before its heavy imports
    deadline = time.monotonic() + 30
    while not list((state / "adb-servers").glob("*.json")) and time.monotonic() < deadline:
        time.sleep(0.01)
    (record,) = (state / "adb-servers").glob("*.json")
    with DevicePool(1, isolation="process") as pool:
        listed = [d.serial for d in PrivateAdbClient("127.0.0.1", int(record.stem), socket_timeout=5).list()]
        assert listed == [pool.serial_of(0)], "its device is reached through that server"
        assert pool.slot(0).shell(["echo", "up"]).stdout.strip() == b"up"
    assert not list((state / "adb-servers").glob("*.json")), "stopped with the pool"


def test_devices_forked_from_the_zygote_collect_their_own_garbage(state, tmp_path, monkeypatch):
    """The zygote collects nothing before a fork (what it made lives until then); its children collect theirs."""
    from emulator.virtual import memreport

    reports = tmp_path / "mem"
    reports.mkdir()
    monkeypatch.setenv(memreport.ENV, str(reports))
    with DevicePool(2, isolation="process", apps=("com.google.android.deskclock",)) as pool:
        for i in range(2):
            proc = pool.process(i)
            assert proc is not None and proc.pid is not None and _ppid(proc.pid) != os.getpid(), "forked"
            os.kill(proc.pid, signal.SIGUSR1)
            path = reports / f"{proc.pid}.json"
            deadline = time.monotonic() + 30
            while not path.exists() and time.monotonic() < deadline:
                time.sleep(0.02)
            collector = json.loads(path.read_text())["gc"]
            assert collector["enabled"] is True and collector["frozen"] > 10_000, collector
