"""Devices start together and a run starts on the first one up (issue 20, item 2): `DevicePool.start(wait=False)`
brings every slot's device up in a thread of its own, hands each slot out as soon as its device is up, and a run
records each device in its manifest as it arrives. Devices are embedded virtual devices behind the pool's private
real adb server."""

from __future__ import annotations

import threading

import pytest

from harness.device.controller import AdbDevice
from harness.errors import DeviceError
from harness.plugins import create_agent
from harness.run.fleet.pool import DevicePool
from harness.run.orchestration.suite import SuiteOptions, run_suite
from harness.trajectory.reader import load_run
from tests.run_util import FAST_WRITER

TASKS = ("clock-world-time", "settings-dark-theme")


class SecondSlotWaits(DevicePool):
    """A pool whose slot 1 comes up only when `gate` is set (or after 30 s): a slow device of the run."""

    def __init__(self, *a, **kw) -> None:
        super().__init__(*a, **kw)
        self.gate = threading.Event()
        self.events: list[str] = []

    def _open(self, i: int) -> AdbDevice:
        if i == 1 and not self.gate.is_set():
            self.gate.wait(30)
            self.events.append("slot 1 up")
        return super()._open(i)


def test_a_run_starts_on_the_first_device_up_and_records_each_device_as_it_arrives(tmp_path):
    pool = SecondSlotWaits(2, isolation="thread").start(wait=False)
    try:

        def agent():
            inner = create_agent("reference")

            class FirstActOpensTheGate:
                name = "reference"

                def reset(self, ctx):
                    inner.reset(ctx)

                def act(self, obs, history):
                    if not pool.gate.is_set():
                        pool.events.append("episode acting")
                        pool.gate.set()
                    return inner.act(obs, history)

            return FirstActOpensTheGate()

        opts = SuiteOptions(writer=FAST_WRITER, task_ids=TASKS, langs=("en",), out=tmp_path, run_id="r", report=False)
        res = run_suite(opts, agent_factory=agent, pool=pool)
        assert pool.events[0] == "episode acting"  # an episode ran while slot 1 was still coming up
        assert "slot 1 up" in pool.events
        assert res.sr == 1.0 and len(res.results) == 2
        run = load_run(res.run_dir)
        assert [d["serial"] for d in run.manifest.devices] == [pool.slot(0).serial, pool.slot(1).serial]
    finally:
        pool.close()


class FailsOnce(DevicePool):
    """A pool whose slot `failing` cannot bring its first device up (its port taken, say); a fresh one works."""

    failing = 1

    def _open(self, i: int) -> AdbDevice:
        if i == self.failing and not getattr(self, "failed_once", False):
            self.failed_once = True
            raise OSError("the device's port is taken")
        return super()._open(i)


def test_a_slot_whose_device_fails_to_come_up_says_so_and_the_run_gets_it_a_fresh_one(tmp_path):
    with FailsOnce(2, isolation="thread").start(wait=False) as pool:
        with pytest.raises(DeviceError, match=r"slot 1 could not be brought up: OSError: the device's port is taken"):
            pool.slot(1)
        assert pool.slot(0).serial  # the other slot is unaffected
    pool = FailsOnce(1, isolation="thread")
    pool.failing = 0
    pool.start(wait=False)
    try:
        opts = SuiteOptions(
            writer=FAST_WRITER, task_ids=TASKS[:1], langs=("en",), out=tmp_path, run_id="r", agent="reference"
        )
        res = run_suite(opts, pool=pool)
        # the slot's start failure was an infrastructure failure of the first attempt: a fresh device, a retry
        assert [(r.status, r.attempts) for r in res.results] == [("success", 2)] and res.exit_code == 0
    finally:
        pool.close()


def test_start_with_wait_raises_the_first_failure_and_leaves_nothing_open():
    pool = FailsOnce(2, isolation="thread")
    # start() returns, raising (no wall-clock bound: a start that hung on the failed slot would not return at all,
    # and the test's own timeout - pyproject's 120 s - reports that however loaded the machine)
    with pytest.raises(DeviceError, match="slot 1 could not be brought up"):
        pool.start()
    assert pool._server is None or not pool._server.alive()  # closed: its private adb server stopped


def test_the_private_adb_server_port_is_never_one_a_booting_device_can_be_given():
    """Device processes boot while the adb server starts, binding port 0: the server's port is picked outside
    the kernel's ephemeral range (and the emulator ports), so no device socket can take it in the meantime."""
    from emulator.virtual.adbserver import ephemeral_range, free_port

    lo, hi = ephemeral_range()
    ports = {free_port(listen_later=True) for _ in range(20)}
    assert all(not lo <= p <= hi and not 5554 <= p <= 5585 and p != 5037 for p in ports), ports
    assert len(ports) > 1, "picked at random, not one fixed port every pool would share"


def test_a_pool_is_closed_once_whoever_closes_it_and_however_often():
    pool = DevicePool(1, isolation="in_process").start()
    backend = pool.backends[0]
    closes: list[str] = []
    real_close = backend.close

    def close() -> None:
        closes.append(threading.current_thread().name)
        real_close()

    backend.close = close  # type: ignore[method-assign]
    both = [threading.Thread(target=pool.close) for _ in range(2)]
    for th in both:
        th.start()
    for th in both:
        th.join(30)
    pool.close()
    assert len(closes) == 1, closes


def test_a_run_s_own_pool_is_closed_while_its_summary_is_written(tmp_path, monkeypatch):
    """The devices of the pool a run opens itself go while the run writes its summary, not after it."""
    from harness.run.orchestration import lifecycle

    closing_began = threading.Event()
    seen: list[bool] = []
    finish, close = lifecycle.RunLifecycle.finish, DevicePool.close

    def finishing(self, *a, **kw):
        seen.append(closing_began.wait(20))  # the devices close meanwhile
        return finish(self, *a, **kw)

    def closing(self) -> None:
        closing_began.set()
        close(self)

    monkeypatch.setattr(lifecycle.RunLifecycle, "finish", finishing)
    monkeypatch.setattr(DevicePool, "close", closing)
    opts = SuiteOptions(
        task_ids=(TASKS[0],),
        langs=("en",),
        agent="reference",
        devices=1,
        isolation="in_process",
        out=tmp_path,
        run_id="r",
        writer=FAST_WRITER,
        report=False,
    )
    res = run_suite(opts)
    assert seen == [True]
    assert (res.run_dir / "summary.json").is_file()
