"""The device pool's lease (issue 14, item 3): a health check before each episode, a reset by the fastest method
the device has (recorded per episode with its time), and quarantine of a device that fails twice in a row -
replaced when it can be (an embedded device), its slot retired when it cannot (a phone: no more episodes).

Failures are made with the virtual device's fault knobs: in-process devices for the run loop, and an in-thread
virtual device given to the pool by serial (as a phone is) through the real private adb server."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from harness.agent import AgentStep, EpisodeContext, HistoryItem
from harness.device.controller import DeviceConfig
from harness.device.link import LinkConfig
from harness.errors import DeviceError
from harness.plugins import create_agent
from harness.run.fleet.backend import APP_CLEAR, AVD_SNAPSHOT_LOAD, STATE_RESTORE
from harness.run.fleet.pool import DevicePool, SlotRetiredError
from harness.run.orchestration.suite import SuiteOptions, run_suite
from harness.trajectory.reader import load_run
from tests.run_util import FAST_WRITER

DARK = "settings-dark-theme"
NOTES = "notes-search-password"
QUICK = DeviceConfig(link=LinkConfig(call_timeout=3.0, reconnect_timeout=1.0))


class KillsOnStep:
    """The reference solution, except that on step 2 of `task` it takes the device offline (an infrastructure
    failure under the episode) the first `times` times it gets there."""

    name = "kills-on-step"

    def __init__(self, pool: DevicePool, task: str, counter: dict[str, int], times: int) -> None:
        self.pool, self.task, self.counter, self.times = pool, task, counter, times
        self.inner = create_agent("reference")
        self.current = ""

    def reset(self, ctx: EpisodeContext) -> None:
        self.current = ctx.task.id
        self.inner.reset(ctx)

    def act(self, obs: Any, history: list[HistoryItem]) -> AgentStep:
        if self.current == self.task and len(history) == 1 and self.counter["n"] < self.times:
            self.counter["n"] += 1
            model = self.pool.model(0)
            assert model is not None
            model.faults.go_offline(True)
        return self.inner.act(obs, history)


def _opts(tmp_path: Path, run_id: str, tasks: tuple[str, ...], **kw: Any) -> SuiteOptions:
    return SuiteOptions(
        writer=FAST_WRITER, task_ids=tasks, langs=("en",), agent="reference", out=tmp_path, run_id=run_id, **kw
    )


def test_each_episode_records_its_reset_method_and_time_and_the_report_shows_it(tmp_path):
    with DevicePool(1, in_process=True) as pool:
        res = run_suite(_opts(tmp_path, "reset", (DARK, NOTES)), pool=pool)
    assert all(r.reset_method == STATE_RESTORE and r.reset_seconds is not None for r in res.results)
    run = load_run(res.run_dir)
    for ep in run.episodes.values():
        assert ep.meta is not None and ep.meta.reset_method == STATE_RESTORE
        assert isinstance(ep.meta.reset_seconds, float) and ep.meta.reset_seconds >= 0
        assert ep.meta.to_result().reset_method == STATE_RESTORE
    page = (res.run_dir / "report.html").read_text(encoding="utf-8")
    assert "reset state_restore" in page
    summary = json.loads((res.run_dir / "summary.json").read_text())
    assert summary["quarantined"] == []


def test_an_episode_json_without_reset_fields_still_loads(tmp_path):
    with DevicePool(1, in_process=True) as pool:
        res = run_suite(_opts(tmp_path, "old", (DARK,), report=False), pool=pool)
    path = res.run_dir / "episodes" / f"{DARK}__en" / "episode.json"
    data = json.loads(path.read_text())
    del data["reset_method"], data["reset_seconds"]  # as a run written before the pool recorded resets
    path.write_text(json.dumps(data))
    meta = load_run(res.run_dir).episode(DARK, "en").meta
    assert meta is not None and meta.reset_method is None and meta.to_result().success


def test_an_unhealthy_device_is_replaced_before_the_episode_and_the_episode_is_not_charged(tmp_path):
    with DevicePool(1, in_process=True) as pool:
        sick = pool.model(0)
        assert sick is not None and pool.healthy(0) is None
        sick.faults.go_offline(True)  # dies between episodes
        assert "offline" in (pool.healthy(0) or "")
        res = run_suite(_opts(tmp_path, "sick", (DARK,)), pool=pool)
        assert pool.model(0) is not sick, "the health check replaced it before the episode"
        assert pool.quarantined == [], "one failure is not two in a row"
    (r,) = res.results
    assert r.success and r.attempts == 1


def test_an_embedded_device_failing_twice_in_a_row_is_quarantined_and_replaced(tmp_path):
    counter = {"n": 0}
    with DevicePool(1, in_process=True) as pool:
        res = run_suite(
            _opts(tmp_path, "quarantine", (DARK, NOTES)),
            pool=pool,
            agent_factory=lambda: KillsOnStep(pool, DARK, counter, times=2),
        )
        assert len(pool.quarantined) == 1 and pool.usable(0)
        q = pool.quarantined[0]
        assert (q.slot, q.kind, q.failures, q.replaced) == (0, "in-process", 2, True)
        assert "offline" in q.reason
    by = {r.task_id: r for r in res.results}
    assert counter["n"] == 2
    assert by[DARK].success and by[DARK].attempts == 3, "retried on the replacement"
    assert by[NOTES].success and by[NOTES].attempts == 1
    summary = json.loads((res.run_dir / "summary.json").read_text())
    assert [(e["slot"], e["kind"], e["replaced"]) for e in summary["quarantined"]] == [(0, "in-process", True)]
    assert json.loads((res.run_dir / "quarantined.json").read_text()) == summary["quarantined"]


def test_a_success_between_two_failures_breaks_the_run(tmp_path):
    with DevicePool(1, in_process=True) as pool:
        pool.failed(0, "first")
        pool.succeeded(0)
        pool.failed(0, "second, but not in a row")
        assert pool.quarantined == []
        pool.failed(0, "third: two in a row")
        assert [q.reason for q in pool.quarantined] == ["third: two in a row"]


def test_a_phone_that_fails_its_health_check_twice_is_quarantined_and_gets_no_more_episodes(tmp_path, make_vdevice):
    vd = make_vdevice()  # an in-thread virtual device given by serial: the pool treats it as a phone
    with DevicePool(serials=[vd.serial], config=QUICK) as pool:
        assert pool.kind(0) == "phone" and pool.reset_method(0) == APP_CLEAR
        vd.faults.go_offline(True)  # the phone's adbd stops answering, and stays so
        res = run_suite(_opts(tmp_path, "phone", (DARK, NOTES), infra_retries=2), pool=pool)
        assert not pool.usable(0)
        with pytest.raises(SlotRetiredError, match="quarantined"):
            pool.lease(0)
    assert [r.status for r in res.results] == ["infra_error", "infra_error"]
    first, second = sorted(res.results, key=lambda r: r.attempts, reverse=True)
    assert "quarantined after 2 failures in a row" in (first.error or "")
    assert second.attempts == 0 and "no working device left" in (second.error or ""), "no more episodes"
    summary = json.loads((res.run_dir / "summary.json").read_text())
    (q,) = summary["quarantined"]
    assert (q["serial"], q["kind"], q["replaced"]) == (vd.serial, "phone", False)


def test_a_phone_is_reset_by_clearing_the_tasks_apps(make_vdevice):
    vd = make_vdevice()
    with DevicePool(serials=[vd.serial], config=QUICK) as pool:
        dev = pool.slot(0)
        dev.launch("com.droidharness.notes")
        mark = vd.model.events.mark()
        lease = pool.lease(0, ("com.droidharness.notes", "com.android.settings"))
        assert lease.reset.method == APP_CLEAR and lease.reset.seconds >= 0
        cleared = [list(e.data["argv"]) for e in vd.model.events.since(mark, "exec")]
        assert ["pm", "clear", "com.droidharness.notes"] in cleared
        assert ["pm", "clear", "com.android.settings"] in cleared


def test_an_emulator_is_reset_by_loading_a_boot_snapshot_on_its_console(posing_emulator):
    vd, serial = posing_emulator
    with DevicePool(serials=[serial], config=QUICK) as pool:
        assert pool.kind(0) == "emulator" and pool.reset_method(0) == AVD_SNAPSHOT_LOAD
        dev = pool.slot(0)
        dev.put_setting("system", "droidharness_probe", "dirty")
        lease = pool.lease(0)
        assert lease.reset.method == AVD_SNAPSHOT_LOAD
        assert dev.link.shell("read", "settings get system droidharness_probe").text.strip() == "null"
    assert any(e.data.get("command") == "avd snapshot load" for e in vd.model.events.all("console"))


def test_a_device_that_cannot_be_replaced_fails_the_lease_with_a_device_error():
    with DevicePool(1, in_process=True) as pool:
        model = pool.model(0)
        assert model is not None
        model.faults.go_offline(True)

        def broken(i: int) -> Any:
            raise DeviceError(f"could not open a fresh device for slot {i}: no more devices")

        pool._open = broken  # type: ignore[method-assign]
        with pytest.raises(DeviceError, match="no more devices"):
            pool.lease(0)


def test_a_quarantined_embedded_device_whose_replacement_fails_is_listed_as_not_replaced():
    with DevicePool(1, in_process=True) as pool:
        pool.failed(0, "first")

        def broken(i: int) -> Any:
            raise DeviceError(f"could not open a fresh device for slot {i}: out of memory")

        pool._open = broken  # type: ignore[method-assign]
        with pytest.raises(DeviceError, match="out of memory"):
            pool.failed(0, "second")
        (q,) = pool.quarantined
        assert (q.reason, q.replaced, q.serial) == ("second", False, "INPROC0001")
