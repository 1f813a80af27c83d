"""What a pool pays before a device's first episode (issue 49, item 4): a link opens its sessions (the kept shell,
uiautomator2) in the background when asked (`LinkConfig.open_in_background`, a pool's links), so a pool prepares
its device meanwhile; a link opened without it is whole when `start` returns; a run records where each device's
start went; a pool's device zygote warms up the apps of its run only. Embedded virtual devices behind the real adb
server, reached with the real adbutils and uiautomator2."""

from __future__ import annotations

import os
import threading
from pathlib import Path
from typing import Any

import pytest

import harness.run.fleet.backend as backend_module
import harness.run.orchestration.suite as suite_module
from harness.device.link import Link, LinkConfig
from harness.plugins import create_agent
from harness.run.fleet.backend import STARTUP_PHASES
from harness.run.fleet.pool import DevicePool
from harness.run.orchestration.suite import SuiteOptions, run_suite
from harness.trajectory.reader import load_run
from tests.run_util import FAST_WRITER

HELD = 30.0  # how long a held launch waits for what the test lets it wait for (a condition, not a timing)


def _u2_starts(vd) -> int:
    return len([e for e in vd.model.events.all("u2_server") if e["action"] == "start"])


@pytest.fixture
def held_launch(monkeypatch):
    """uiautomator2's launch held until `release` is set (or HELD seconds): whether it was released is recorded."""
    release = threading.Event()
    released: list[bool] = []
    launch = Link._launch_u2

    def held(self: Link) -> bool:
        released.append(release.wait(HELD))
        return launch(self)

    monkeypatch.setattr(Link, "_launch_u2", held)
    return release, released


def test_a_link_opened_in_the_foreground_is_whole_when_start_returns(adb_server, vdevice):
    link = Link(adb_server.client, vdevice.serial).start()
    try:
        assert _u2_starts(vdevice) == 1  # its server was launched before `start` returned
        assert {"u2", "kept_shell"} <= link.capabilities
    finally:
        link.close()


def test_a_link_opened_in_the_background_serves_the_shell_while_uiautomator2_starts(adb_server, vdevice, held_launch):
    release, released = held_launch
    link = Link(adb_server.client, vdevice.serial, LinkConfig(open_in_background=True)).start()
    try:
        assert link.shell("probe", "echo ok").text == "ok\n"  # while uiautomator2's launch is held
        assert _u2_starts(vdevice) == 0
        release.set()
        assert link.has("u2") and "kept_shell" in link.capabilities  # asking waits for the sessions
        assert released == [True] and _u2_starts(vdevice) == 1
        assert link.rpc("probe", "deviceInfo")["displayWidth"] > 0
    finally:
        link.close()


def test_a_pool_prepares_its_device_while_uiautomator2_starts(monkeypatch, held_launch):
    """The launch is let go only once the preparation is done: a pool that launched uiautomator2 before preparing
    would hold it for HELD seconds and record that it was not let go."""
    release, released = held_launch
    prepare = backend_module.prepare_device

    def prepare_then_release(device, plan):
        rec = prepare(device, plan)
        release.set()
        return rec

    monkeypatch.setattr(backend_module, "prepare_device", prepare_then_release)
    with DevicePool(1, isolation="thread") as pool:
        assert released == [True]
        dev = pool.slot(0)
        assert "u2" in dev.info.capabilities and "kept_shell" in dev.info.capabilities
        rec = pool.prepared(0)
        assert rec is not None and not rec.not_set
        assert rec.setting("global:window_animation_scale").value == "0"  # type: ignore[union-attr]
        assert dev.observe().paths["screenshot"] == "u2"


def test_a_run_records_where_each_devices_start_went(tmp_path):
    """manifest.json `devices[i].startup`: each phase of a device process' start in seconds, in order, and `up`,
    when the pool handed it out, counted from the pool's start - which came before every phase of it."""
    with DevicePool(2, isolation="process") as pool:
        opts = SuiteOptions(
            writer=FAST_WRITER, task_ids=("clock-world-time",), langs=("en",), out=tmp_path, run_id="r", report=False
        )
        res = run_suite(opts, agent_factory=lambda: create_agent("reference"), pool=pool)
        assert res.sr == 1.0
    manifest = load_run(res.run_dir).manifest
    assert manifest is not None and len(manifest.devices) == 2
    for row in manifest.devices:
        startup = row["startup"]
        assert list(startup) == list(STARTUP_PHASES)  # a device process goes through every phase
        assert all(isinstance(v, float) and v >= 0 for v in startup.values())
        phases = sum(v for k, v in startup.items() if k != "up")
        assert startup["up"] >= phases - 0.01  # the phases follow each other after the pool's start (rounding)
        assert startup["prepare"] >= row["preparation"]["seconds"] - 0.001


def _zygote_cmdline(pool: DevicePool) -> list[str]:
    """The command line of the device zygote that forked the pool's device processes (their parent, by pid)."""
    parents = set()
    for i in range(pool.size):
        proc = pool.process(i)
        assert proc is not None and proc.pid is not None
        parents.add(int(Path(f"/proc/{proc.pid}/stat").read_text().rsplit(") ", 1)[1].split()[1]))
    (zygote,) = parents
    return Path(f"/proc/{zygote}/cmdline").read_bytes().decode().split("\0")


def test_the_zygote_of_a_pool_warms_up_the_apps_of_its_run(monkeypatch, tmp_path):
    """More devices than cores: the zygote warms up before it forks any device - the first screens of the apps the
    run's tasks use (`apps`), which a run passes from its tasks."""
    apps = ("com.droidharness.notes", "com.google.android.deskclock")
    with DevicePool((os.cpu_count() or 1) + 1, isolation="process", apps=apps) as pool:
        cmd = _zygote_cmdline(pool)
        assert cmd[cmd.index("--packages") + 1] == ",".join(apps)
        assert all(pool.slot(i).shell(["echo", "up"]).stdout.strip() == b"up" for i in range(pool.size))

    asked: list[Any] = []
    open_pool = suite_module.open_pool

    def spy(*args: Any, **kwargs: Any) -> Any:
        asked.append(kwargs.get("apps"))
        return open_pool(*args, **kwargs)

    monkeypatch.setattr(suite_module, "open_pool", spy)
    tasks = ("clock-world-time", "notes-search-password")
    opts = SuiteOptions(writer=FAST_WRITER, task_ids=tasks, langs=("en",), out=tmp_path, run_id="r", report=False)
    run_suite(opts, agent_factory=lambda: create_agent("reference"))
    assert asked == [sorted({"com.google.android.deskclock", "com.droidharness.notes"})]
