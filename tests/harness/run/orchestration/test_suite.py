"""The main job end to end: suites over embedded devices through the real adb server, recorded and reported."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from harness.agent import AgentStep
from harness.device.controller import DeviceConfig
from harness.device.link import LinkConfig
from harness.plugins import create_agent
from harness.run.fleet.pool import DevicePool
from harness.run.loop.episode import Limits
from harness.run.orchestration.suite import SuiteOptions, run_suite
from harness.trajectory.reader import load_run
from tests.run_util import FAST_WRITER

pytestmark = pytest.mark.integration

SUBSET = (
    "settings-dark-theme",
    "notes-search-password",
    "weather-thursday-high",
    "contacts-text-grace",
    "clock-world-time",
)


def _opts(tmp_path: Path, agent: str, run_id: str, **kw) -> SuiteOptions:
    return SuiteOptions(writer=FAST_WRITER, task_ids=SUBSET, agent=agent, out=tmp_path, run_id=run_id, **kw)


def test_replay_random_heuristic_order_and_recorded_runs(tmp_path):
    # the run loop at the `Device` seam, on in-process devices (the adb path: test_resume, the CLI tests)
    with DevicePool(2, in_process=True) as pool:
        replay = run_suite(_opts(tmp_path, "reference", "reference"), pool=pool)
        rand = run_suite(_opts(tmp_path, "random", "random", limits=Limits(max_steps=8), langs=("en",)), pool=pool)
        heur = run_suite(_opts(tmp_path, "heuristic", "heuristic", langs=("en",)), pool=pool)
    assert len(replay.results) == 2 * len(SUBSET)  # en and zh
    assert replay.sr == 1.0 and replay.atp == 1.0, [(r.task_id, r.lang, r.progress) for r in replay.results]
    assert rand.sr <= 0.2
    assert heur.atp > rand.atp

    run = load_run(tmp_path / "reference")
    assert {(e.meta.task_id, e.meta.lang) for e in run.episodes.values()} == {
        (t, lg) for t in SUBSET for lg in ("en", "zh")
    }
    ep = run.episode("weather-thursday-high", "zh")
    assert ep.meta.success and ep.meta.answer  # the question task was answered in Chinese correctly
    hits = [s.milestones.new_hits for s in ep.steps if s.milestones and s.milestones.new_hits]
    assert hits, "milestones are scored live, step by step"
    summary = json.loads((tmp_path / "reference" / "summary.json").read_text())
    assert summary and (tmp_path / "reference" / "report.html").stat().st_size > 10_000


def test_a_device_that_dies_mid_episode_is_replaced_and_the_episode_retried(tmp_path):
    config = DeviceConfig(link=LinkConfig(call_timeout=3.0, reconnect_timeout=2.0))
    calls = {"n": 0}
    with DevicePool(1, config=config) as pool:
        first_device = pool.slot(0).virtual

        def factory():
            replay = create_agent("reference")

            class Dying:
                name = "replay-with-a-dying-device"

                def reset(self, ctx):
                    replay.reset(ctx)

                def act(self, obs, history) -> AgentStep:
                    calls["n"] += 1
                    if calls["n"] == 2:  # the device dies under the episode's second step
                        first_device.faults.go_offline(True)
                    return replay.act(obs, history)

            return Dying()

        res = run_suite(
            SuiteOptions(
                writer=FAST_WRITER, task_ids=("settings-dark-theme",), langs=("en",), out=tmp_path, run_id="r"
            ),
            agent_factory=factory,
            pool=pool,
        )
        assert pool.slot(0).virtual is not first_device
    (r,) = res.results
    assert r.success and r.attempts == 2, r
    run = load_run(tmp_path / "r")
    assert run.episode("settings-dark-theme", "en").meta.attempts == 2
    assert any((tmp_path / "r" / "stale").iterdir()), "the failed attempt is kept aside, not lost"


def test_unknown_task_id_and_bad_agent_option_are_clear_errors(tmp_path):
    from harness.errors import ConfigError

    with pytest.raises(ConfigError, match="unknown task id"):
        run_suite(SuiteOptions(writer=FAST_WRITER, task_ids=("nope",), out=tmp_path))
    with pytest.raises(ConfigError):
        run_suite(SuiteOptions(writer=FAST_WRITER, agent="reference", agent_options={"bogus": 1}, out=tmp_path))
    assert not any(tmp_path.iterdir()), "nothing is created before the run can start"


def test_a_hung_agent_ends_the_episode_as_agent_error_at_the_timeout():
    import threading

    from harness.run.loop.episode import run_episode
    from tasks.suite import load_suite

    release = threading.Event()

    class Hung:
        name = "hung"

        def reset(self, ctx):
            pass

        def act(self, obs, history):
            release.wait(60)  # would hold the episode for a minute if the timeout did not free it
            raise AssertionError("released")

    task = next(t for t in load_suite("virtual") if t.id == "settings-dark-theme")
    try:
        with DevicePool(1, in_process=True) as pool:
            r = run_episode(task, Hung(), pool.slot(0), "en", Limits(agent_timeout=0.5))
    finally:
        release.set()
    assert r.status == "agent_error" and "no action within" in r.error and r.steps == 0


def test_a_run_on_virtual_clock_devices_records_the_clock_and_each_steps_device_seconds(tmp_path):
    """In-process devices on the virtual clock: a WAIT of 2.5 s is 2.5 device seconds (none of the host's), an
    invalid step none; steps.jsonl has them beside the wall seconds, episode.json sums them, the manifest says the
    clock."""
    from harness.actions import Complete, Wait

    class Waiting:
        name = "waiting"

        def reset(self, ctx):
            self.n = 0

        def act(self, obs, history) -> AgentStep:
            self.n += 1
            if self.n == 1:
                return AgentStep(action=Wait(duration=2.5))
            if self.n == 2:
                return AgentStep(action=None, invalid=True, error="not an action")
            return AgentStep(action=Complete())

    opts = SuiteOptions(
        writer=FAST_WRITER,
        task_ids=("settings-dark-theme",),
        langs=("en",),
        devices=1,
        isolation="in_process",
        clock="virtual",
        out=tmp_path,
        run_id="v",
        report=False,
    )
    res = run_suite(opts, agent_factory=Waiting)
    (r,) = res.results
    assert r.steps == 3 and r.invalid_steps == 1
    run = load_run(tmp_path / "v")
    assert run.manifest.config["clock"] == "virtual" and run.manifest.config["latency"] == "instant"
    ep = run.episode("settings-dark-theme", "en")
    wait, invalid, done = ep.steps
    assert wait.timings.device == pytest.approx(2.5, abs=0.02) and wait.timings.wall is not None
    assert invalid.timings.device == 0.0 and invalid.timings.wall == 0.0
    assert ep.meta.timings["device"] == pytest.approx(sum(s.timings.device for s in ep.steps), abs=0.01)
    assert ep.meta.timings["step_wall"] == pytest.approx(sum(s.timings.wall for s in ep.steps), abs=1e-3)
    assert ep.meta.timings["wall"] >= ep.meta.timings["step_wall"]  # the episode's own wall time, as before
    assert r.timings["device"] == pytest.approx(ep.meta.timings["device"], abs=0.01)
