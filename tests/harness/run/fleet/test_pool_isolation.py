"""Embedded devices in their own processes (issue 14, item 4): the pool starts each virtual device as a child
process, connected to the private (real) adb server as a TCP serial; the harness runs agents, capture and
recording. Same results as in-thread devices, resets through the child's control console, a child killed by pid
is an infrastructure failure (replaced, the episode retried), and no child of ours outlives its pool - after
close(), and after the harness is SIGKILLed (PDEATHSIG, and the next pool's reaper by recorded pid)."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from emulator.virtual import procdevice
from harness.agent import AgentStep, EpisodeContext, HistoryItem
from harness.plugins import create_agent
from harness.run.fleet.backend import SNAPSHOT_LOAD, STATE_RESTORE
from harness.run.fleet.pool import DevicePool
from harness.run.orchestration.suite import SuiteOptions, run_suite
from tests.paths import REPO
from tests.run_util import FAST_WRITER

pytestmark = pytest.mark.integration

ROOT = REPO
TASKS = ("settings-dark-theme", "notes-search-password", "weather-thursday-high")


@pytest.fixture
def state(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A private state directory: the records this test's pools write (and reap) are only its own."""
    d = tmp_path / "state"
    monkeypatch.setenv("DROIDHARNESS_STATE_DIR", str(d))
    return d


def _alive(pid: int) -> bool:
    """Running (not a zombie) - a child reaped by its parent is gone from /proc."""
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return False
    return "\nState:\tZ" not in status


def _wait_gone(pids: list[int], timeout: float = 15.0) -> list[int]:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline and any(_alive(p) for p in pids):
        time.sleep(0.05)
    return [p for p in pids if _alive(p)]


def _ppid(pid: int) -> int:
    return int(Path(f"/proc/{pid}/stat").read_text().rsplit(") ", 1)[1].split()[1])


def _zygote_of(pids: list[int]) -> int:
    """The one device zygote that forked every process of `pids` (asserted)."""
    parents = {_ppid(p) for p in pids}
    assert len(parents) == 1 and os.getpid() not in parents, f"forked by one zygote, not by us: {parents}"
    (zygote,) = parents
    assert b"emulator.virtual.zygote" in Path(f"/proc/{zygote}/cmdline").read_bytes()
    return zygote


def _cmdline(pid: int) -> list[str]:
    return Path(f"/proc/{pid}/cmdline").read_bytes().decode().split("\0")


def test_a_pool_larger_than_the_cores_warms_up_its_zygote_then_forks_every_device_warm(state):
    """More devices than cores: the zygote draws the first screens of the run's languages once, before it forks any
    device (`--warm-after 0`), then forks them all warm; every device works."""
    cores = os.cpu_count() or 1
    with DevicePool(cores + 1, isolation="process", langs=("zh",)) as pool:
        pids = [pool.process(i).pid for i in range(pool.size)]
        cmd = _cmdline(_zygote_of(pids))
        assert cmd[cmd.index("--warm-after") + 1] == "0"
        assert cmd[cmd.index("--langs") + 1] == "en,zh", "the boot locale first, then the run's other languages"
        for i in range(pool.size):
            assert pool.slot(i).shell(["echo", "up"]).stdout.strip() == b"up"


def _opts(tmp_path: Path, run_id: str, **kw: Any) -> SuiteOptions:
    return SuiteOptions(
        writer=FAST_WRITER, task_ids=TASKS, agent="reference", out=tmp_path, run_id=run_id, report=False, **kw
    )


def _key(r: Any) -> tuple[Any, ...]:
    return (
        r.task_id,
        r.lang,
        r.status,
        r.success,
        round(r.progress, 6),
        r.steps,
        r.answer,
        [m["hit_step"] for m in r.milestones],
    )


def test_process_devices_give_the_same_results_as_thread_devices(tmp_path, state):
    with DevicePool(2, isolation="process") as pool:
        pids = [pool.process(i).pid for i in range(2)]
        assert all(_alive(p) for p in pids) and len(set(pids)) == 2 and os.getpid() not in pids
        zygote = _zygote_of(pids)  # several devices: forked from one interpreter
        cmd = _cmdline(zygote)  # warmed up before its first fork, the first devices included (issue 50)
        assert "--no-warm" not in cmd and cmd[cmd.index("--warm-after") + 1] == "0"
        assert pool.model(0) is None, "the model lives in the child"
        assert [pool.kind(i) for i in range(2)] == ["virtual-process"] * 2
        by_process = run_suite(_opts(tmp_path, "process"), pool=pool)
    with DevicePool(2) as pool:
        by_thread = run_suite(_opts(tmp_path, "thread"), pool=pool)
    assert len(by_process.results) == 2 * len(TASKS)
    assert sorted(map(_key, by_process.results)) == sorted(map(_key, by_thread.results))
    assert by_process.sr == 1.0
    assert {r.reset_method for r in by_process.results} == {SNAPSHOT_LOAD}
    assert {r.reset_method for r in by_thread.results} == {STATE_RESTORE}
    assert _wait_gone([*pids, zygote]) == [], "close() stopped every child and the zygote"
    assert list((state / "devices").glob("*.json")) == [], "and removed their records"


def test_a_reset_restores_the_boot_state_in_the_child_and_switches_its_language(state):
    with DevicePool(1, isolation="process") as pool:
        dev = pool.slot(0)

        def sh(cmd: str) -> str:
            return dev.link.shell("test", cmd).text.strip()

        dev.put_setting("system", "droidharness_probe", "dirty")
        dev.launch("com.droidharness.notes")
        assert sh("settings get system droidharness_probe") == "dirty"
        lease = pool.lease(0, lang="zh")
        assert lease.device is dev and lease.reset.method == SNAPSHOT_LOAD
        assert sh("settings get system droidharness_probe") == "null", "the boot state is back"
        assert sh("getprop persist.sys.locale") == "zh-CN"
        assert "笔记" in dev.observe().tree.to_prompt(), "the launcher speaks Chinese"
        pool.lease(0, lang="en")
        assert sh("getprop persist.sys.locale") == "en-US"
        assert "Notes" in dev.observe().tree.to_prompt()
        pool.lease(0, lang="en", ui="zh")  # locale=zh-CN: a device set up in en, its system language switched
        assert sh("getprop persist.sys.locale") == "zh-CN"
        assert "display_name=Alice Johnson" in sh(
            "content query --uri content://com.android.contacts/contacts --projection display_name"
        )
        dev.launch("com.google.android.contacts")
        shown = dev.observe().tree.to_prompt()
        assert "搜索联系人" in shown and "Alice Johnson" in shown, shown


class KillsTheChild:
    """The reference solution; on step 2 of the first task's first attempt it SIGKILLs slot 0's device process."""

    name = "kills-the-child"

    def __init__(self, pool: DevicePool, killed: list[int]) -> None:
        self.pool, self.killed = pool, killed
        self.inner = create_agent("reference")
        self.task = ""

    def reset(self, ctx: EpisodeContext) -> None:
        self.task = ctx.task.id
        self.inner.reset(ctx)

    def act(self, obs: Any, history: list[HistoryItem]) -> AgentStep:
        if self.task == TASKS[0] and len(history) == 1 and not self.killed:
            pid = self.pool.process(0).pid
            self.killed.append(pid)
            os.kill(pid, signal.SIGKILL)  # the child this test's pool started, by its pid
        return self.inner.act(obs, history)


def test_a_child_killed_mid_episode_is_an_infrastructure_failure_replaced_and_retried(tmp_path, state):
    killed: list[int] = []
    from harness.device.controller import DeviceConfig
    from harness.device.link import LinkConfig

    config = DeviceConfig(link=LinkConfig(call_timeout=3.0, reconnect_timeout=1.0))
    with DevicePool(1, isolation="process", config=config) as pool:
        res = run_suite(
            _opts(tmp_path, "killed", langs=("en",)), pool=pool, agent_factory=lambda: KillsTheChild(pool, killed)
        )
        fresh = pool.process(0).pid
        assert killed and fresh != killed[0] and _alive(fresh)
    by = {r.task_id: r for r in res.results}
    assert by[TASKS[0]].success and by[TASKS[0]].attempts == 2, "retried on a fresh device process"
    assert all(r.success for r in res.results)
    assert not _alive(killed[0])


HARNESS = (
    "from harness.run.fleet.pool import DevicePool\n"
    "pool = DevicePool(2, isolation='process').start()\n"
    "print(' '.join(str(pool.process(i).pid) for i in range(2)), flush=True)\n"
    "import time; time.sleep(120)\n"
)


def test_a_sigkilled_harness_leaves_no_device_process(tmp_path, state):
    env = {**os.environ, "DROIDHARNESS_STATE_DIR": str(state), "PYTHONPATH": str(ROOT)}
    proc = subprocess.Popen([sys.executable, "-c", HARNESS], env=env, stdout=subprocess.PIPE, text=True)
    try:
        pids = [int(p) for p in proc.stdout.readline().split()]  # type: ignore[union-attr]
    finally:
        proc.send_signal(signal.SIGKILL)  # the harness this test started, by its pid
        proc.wait(10)
    assert len(pids) == 2
    records = {json.loads(p.read_text())["pid"] for p in (state / "devices").glob("*.json")}
    assert records > set(pids) and len(records) == 3, "each child, and the zygote that forked them, by pid"
    assert _wait_gone(sorted(records)) == [], "the zygote died with its harness, the children with it"
    with DevicePool(1, isolation="process") as pool:  # a new pool start reaps what the dead harness left
        own = pool.process(0).pid
        left = {json.loads(p.read_text())["pid"] for p in (state / "devices").glob("*.json")}
        assert left == {own}
    assert list((state / "devices").iterdir()) == []
    assert list((state / "adb-servers").glob("*.json")) == [], "the dead harness' adb server was reaped too"


def test_the_reaper_kills_a_dead_owners_child_by_its_recorded_pid_and_nothing_else(state):
    """The fallback for when PDEATHSIG did not fire: a recorded child whose owner is gone is killed, by pid, only
    if its command line is still that child's."""
    child = procdevice.DeviceProcess("VIRTUAL0009", "medium_phone")
    child.spawn()  # started by this (live) process, but recorded as a dead owner's
    bystander = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    dead = subprocess.Popen([sys.executable, "-c", "pass"])
    dead.wait(10)
    try:
        child.wait_ready()
        assert child.pid is not None and child._record is not None
        rec = json.loads(child._record.read_text())
        child._record.write_text(json.dumps({**rec, "owner": dead.pid}))
        (state / "devices" / f"{bystander.pid}.json").write_text(
            json.dumps({"pid": bystander.pid, "owner": dead.pid, "home": str(state / "devices" / "elsewhere")})
        )
        assert sorted(procdevice.reap_orphans()) == [child.pid]
        child.proc.wait(10)  # type: ignore[union-attr]
        assert child.exit_description() == "killed by SIGKILL"
        assert bystander.poll() is None, "a recorded pid that is not our device process is left alone"
        assert list((state / "devices").glob("*.json")) == []
    finally:
        child.stop()
        bystander.send_signal(signal.SIGKILL)
        bystander.wait(10)


def test_a_child_that_cannot_start_is_a_device_process_error_with_its_log(state):
    child = procdevice.DeviceProcess("VIRTUAL0009", "no_such_profile")
    try:
        child.spawn()
        with pytest.raises(procdevice.DeviceProcessError, match="exited before it was ready"):
            child.wait_ready()
    finally:
        child.stop()


class KillsTheZygote(KillsTheChild):
    """The reference solution; on step 2 of the first task's first attempt it SIGKILLs the device zygote."""

    name = "kills-the-zygote"

    def act(self, obs: Any, history: list[HistoryItem]) -> AgentStep:
        if self.task == TASKS[0] and len(history) == 1 and not self.killed:
            zygote = _zygote_of([self.pool.process(i).pid for i in range(2)])
            self.killed.append(zygote)
            os.kill(zygote, signal.SIGKILL)  # the zygote this test's pool started, by its pid
        return self.inner.act(obs, history)


def test_a_killed_zygote_takes_its_devices_along_and_a_new_one_forks_their_replacements(tmp_path, state):
    """Devices die with the zygote that forked them (PDEATHSIG): an infrastructure failure like any lost device;
    the pool's replacements come from a fresh zygote and every episode still succeeds."""
    killed: list[int] = []
    from harness.device.controller import DeviceConfig
    from harness.device.link import LinkConfig

    config = DeviceConfig(link=LinkConfig(call_timeout=3.0, reconnect_timeout=1.0))
    with DevicePool(2, isolation="process", config=config) as pool:
        before = [pool.process(i).pid for i in range(2)]
        res = run_suite(
            _opts(tmp_path, "zygote", langs=("en",)), pool=pool, agent_factory=lambda: KillsTheZygote(pool, killed)
        )
        assert killed and _wait_gone([killed[0], *before]) == [], "the zygote and its devices are gone"
        replaced = [pool.process(i).pid for i in range(2) if pool.process(i).pid not in before]
        assert replaced, "at least the device that ran the first task was replaced"
        assert killed[0] not in {_ppid(p) for p in replaced}
    assert all(r.success for r in res.results) and len(res.results) == len(TASKS)
    assert max(r.attempts for r in res.results) == 2, "the interrupted episode was retried on a fresh device"


def test_a_device_process_told_to_stop_many_times_at_once_exits_cleanly(state):
    """A pool asks all its devices to stop, then stops each: SIGTERMs arrive in bursts. The device exits on the
    first however many follow - its handler takes no lock a second signal could find held (it used to set a
    threading.Event, and a burst deadlocked it inside that Event until the pool's SIGKILL). One arriving while the
    interpreter finalizes (handlers back to the default) ends it as SIGTERM does: still not a hang."""
    with DevicePool(1, isolation="process") as pool:
        proc = pool.process(0)
        assert proc is not None and proc.proc is not None
        for _ in range(300):
            try:
                os.kill(proc.pid, signal.SIGTERM)  # the device this test's pool started, by its pid
            except ProcessLookupError:
                break
        assert proc.proc.wait(30) in (0, -signal.SIGTERM), "it exited, without waiting for a SIGKILL"
