"""`droidharness run --ray` (harness/run/orchestration/distributed.py) on a local Ray instance started by this module:
the same episodes through Ray actors and through the local runner give the same per-episode results and the same step
records and frames; a Ray worker killed mid-episode (by its pid) is an infrastructure failure, retried on a fresh
actor or recorded as infra_error; the CLI's one-line errors. Every actor's device is an embedded virtual device
behind the actor's own private adb server (real adb, adbutils, uiautomator2)."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from dataclasses import replace
from pathlib import Path

import pytest
import ray
from typer.testing import CliRunner

from harness.cli.main import app
from harness.run.loop.episode import Limits
from harness.run.orchestration.distributed import RayEvent, RayTarget, placements, run_suite_ray
from harness.run.orchestration.suite import SuiteOptions, SuiteResult, run_suite
from harness.scoring.episodes import EXIT_INFRA, EXIT_OK
from harness.trajectory.reader import load_run
from tests.run_util import FAST_WRITER

pytestmark = [pytest.mark.ray, pytest.mark.slow, pytest.mark.integration]

REFERENCE_TASKS = ("clock-alarm-off-and-timer", "clock-world-time", "contacts-create-exact", "clock-yoga-alarm")


def _opts(tmp_path: Path, name: str, **kw) -> SuiteOptions:
    base = {"langs": ("en",), "devices": 2, "out": tmp_path / name, "writer": FAST_WRITER, "isolation": "thread"}
    return SuiteOptions(**{**base, **kw})


def _episodes(res: SuiteResult) -> dict[str, dict]:
    """Per episode: what must not depend on where it ran (timings, times and device addresses may)."""
    run = load_run(res.run_dir)
    out = {}
    for key, ep in run.episodes.items():
        assert ep.meta is not None, f"{key} is unfinished"
        out[key] = {
            "status": ep.meta.status,
            "success": ep.meta.success,
            "progress": ep.meta.progress,
            "steps": ep.meta.steps,
            "answer": ep.meta.answer,
            "attempts": ep.meta.attempts,
            "milestones": ep.meta.milestones,
            "reset_method": ep.meta.reset_method,
            "actions": [s.agent.action for s in ep.steps],
            "hits": [s.milestones.model_dump() if s.milestones else None for s in ep.steps],
            "frames": [(s.observation.screenshot, s.observation.xml) for s in ep.steps],
            "final": (ep.meta.final_observation.screenshot, ep.meta.final_observation.xml)
            if ep.meta.final_observation
            else None,
        }
    return out


def _assert_same_run(ray_res: SuiteResult, local_res: SuiteResult) -> None:
    ours, theirs = _episodes(ray_res), _episodes(local_res)
    assert sorted(ours) == sorted(theirs)
    for key in theirs:
        assert ours[key] == theirs[key], key
    assert (ray_res.run_dir / "report.html").is_file() and (ray_res.run_dir / "summary.json").is_file()
    assert ray_res.board.overall.sr == local_res.board.overall.sr
    assert ray_res.board.overall.atp == local_res.board.overall.atp
    assert ray_res.exit_code == local_res.exit_code
    ours_s, theirs_s = (json.loads((r.run_dir / "summary.json").read_text()) for r in (ray_res, local_res))
    for s in (ours_s, theirs_s):
        s["overall"].pop("timings")
    assert ours_s["overall"] == theirs_s["overall"] and ours_s["headline"] == theirs_s["headline"]
    manifest = load_run(ray_res.run_dir).manifest
    assert manifest is not None and manifest.config["ray"]["address"] == "local"
    assert len(manifest.devices) == 2


def test_reference_agent_through_ray_matches_the_local_runner(ray_instance, tmp_path):
    opts = _opts(tmp_path, "ray", agent="reference", task_ids=REFERENCE_TASKS)
    ray_res = run_suite_ray(opts, RayTarget())
    local_res = run_suite(replace(opts, out=tmp_path / "local"))
    assert [r.status for r in ray_res.results] == ["success"] * 4
    assert ray_res.exit_code == EXIT_OK
    _assert_same_run(ray_res, local_res)
    # episode.json `node`: the Ray node that ran the episode (this instance's one node); a local run has none
    node = ray.get_runtime_context().get_node_id()
    assert {ep.meta.node for ep in load_run(ray_res.run_dir).episodes.values()} == {node}
    assert {r.node for r in ray_res.results} == {node}
    assert {ep.meta.node for ep in load_run(local_res.run_dir).episodes.values()} == {None}
    assert [n["id"] for n in load_run(ray_res.run_dir).manifest.config["ray"]["nodes"]] == [node]


def test_seeded_heuristic_agent_through_ray_matches_the_local_runner(ray_instance, tmp_path):
    opts = _opts(
        tmp_path,
        "ray",
        agent="heuristic",
        seed=7,
        langs=("en", "zh"),
        task_ids=("clock-world-time", "contacts-create-exact"),
        limits=Limits(max_steps=5),
    )
    ray_res = run_suite_ray(opts, RayTarget())
    local_res = run_suite(replace(opts, out=tmp_path / "local"))
    assert len(ray_res.results) == 4 and all(r.attempts == 1 for r in ray_res.results)
    assert any(len(e["actions"]) > 1 for e in _episodes(ray_res).values())
    _assert_same_run(ray_res, local_res)


def _slow_reference_factory():
    """The reference agent, pausing 3 s before its second action (so a worker killed after step 1 dies in the
    middle of its episode). Built inside the test module's function: cloudpickle ships it by value."""

    def make():
        import time

        from harness.plugins import create_agent

        inner = create_agent("reference")

        class SlowReference:
            name = "slow-reference"

            def reset(self, ctx):
                inner.reset(ctx)

            def act(self, obs, history):
                if len(history) == 1:
                    time.sleep(3.0)
                return inner.act(obs, history)

        return SlowReference()

    return make


def test_a_worker_killed_mid_episode_is_retried_on_a_fresh_actor_or_recorded_as_infra_error(ray_instance, tmp_path):
    survives, dies = "clock-world-time", "clock-alarm-off-and-timer"
    killed: list[tuple[str, int, int]] = []  # (label, attempt, pid)

    def on_event(ev: RayEvent) -> None:
        # after the first step of: every attempt of `dies`, the first attempt of `survives`
        if ev.kind == "step" and ev.step == 1 and (dies in ev.label or (survives in ev.label and ev.attempt == 1)):
            killed.append((ev.label, ev.attempt, ev.pid))
            os.kill(ev.pid, signal.SIGKILL)

    opts = _opts(tmp_path, "ray", agent="reference", task_ids=(survives, dies), devices=1, infra_retries=1)
    res = run_suite_ray(opts, RayTarget(), agent_factory=_slow_reference_factory(), on_event=on_event)
    by_task = {r.task_id: r for r in res.results}
    assert by_task[survives].status == "success" and by_task[survives].attempts == 2
    assert by_task[dies].status == "infra_error" and by_task[dies].attempts == 2
    assert "Ray worker died" in (by_task[dies].error or "")
    assert len(killed) == 3 and len({pid for _, _, pid in killed}) == 3  # each kill hit a fresh actor
    assert res.exit_code == EXIT_INFRA
    run = load_run(res.run_dir)
    assert run.episode(survives, "en").meta.attempts == 2 and run.episode(survives, "en").meta.success
    assert run.episode(dies, "en").status == "infra_error"
    stale = sorted(p.name for p in (res.run_dir / "stale").iterdir())
    # the killed attempts' trajectories, kept aside (as a local run keeps its failed attempts')
    assert stale == [f"{dies}__en.1", f"{dies}__en.2", f"{survives}__en.1"]
    assert (res.run_dir / "report.html").is_file()
    summary = json.loads((res.run_dir / "summary.json").read_text())
    assert summary["overall"]["infra_errors"] == 1 and summary["exit_code"] == EXIT_INFRA
    assert [f["task_id"] for f in summary["infra_failures"]] == [dies]


@pytest.mark.parametrize(("isolation", "reset"), [(None, "state_restore"), ("process", "snapshot_load")])
def test_isolation_applies_under_ray(ray_instance, tmp_path, isolation, reset):
    """`--isolation` is not ignored under Ray: unset, an actor's device runs in the actor (its state restored in
    place); `process` gives it a child process of the actor (a snapshot loaded into it), as locally."""
    opts = _opts(tmp_path, "ray", agent="reference", task_ids=("clock-world-time",), devices=1, isolation=isolation)
    res = run_suite_ray(opts, RayTarget())
    run = load_run(res.run_dir)
    ep = run.episode("clock-world-time", "en")
    assert ep.meta.success and ep.meta.reset_method == reset
    assert run.manifest.config["ray"]["isolation"] == (isolation or "thread")


def test_cli_run_ray_on_the_running_instance(ray_instance, tmp_path):
    r = CliRunner().invoke(
        app,
        ["run", "--ray", "--agent", "reference", "--lang", "en", "--task", "clock-world-time", "--out", str(tmp_path)],
    )
    assert r.exit_code == 0, r.output
    (run_dir,) = tmp_path.iterdir()
    assert load_run(run_dir).episode("clock-world-time", "en").meta.success


def test_cli_ray_errors_are_one_line_exit_2(tmp_path):
    runner = CliRunner()
    r = runner.invoke(app, ["run", "--ray-address", "127.0.0.1:1", "--out", str(tmp_path)])
    assert r.exit_code == 2 and "--ray-address 127.0.0.1:1" in r.output and "Traceback" not in r.output
    assert len(r.output.strip().splitlines()) == 1
    r = runner.invoke(app, ["run", "--ray-address", "not an address", "--out", str(tmp_path)])
    assert r.exit_code == 2 and "not HOST:PORT" in r.output and len(r.output.strip().splitlines()) == 1
    r = runner.invoke(app, ["run", "--ray", "--device", "emulator-5554", "--out", str(tmp_path)])
    assert r.exit_code == 2 and "--device" in r.output and len(r.output.strip().splitlines()) == 1
    assert not any(tmp_path.iterdir())


def test_actors_are_placed_round_robin_over_the_alive_nodes_least_used_first():
    """Ray's "SPREAD" is best effort (two actors on one node of two happen); the run places them itself."""

    def node(nid: str, alive: bool = True, cpus: float = 4.0) -> dict:
        return {"NodeID": nid, "Alive": alive, "Resources": {"CPU": cpus} if cpus else {}}

    nodes = [node("a"), node("b"), node("dead", alive=False), node("head-only", cpus=0), node("c")]
    assert placements(nodes, 5) == ["a", "b", "c", "a", "b"]
    assert placements(nodes, 2, taken=["a", "a", "b"]) == ["c", "b"]
    assert placements(nodes, 1, taken=["a", "c"], avoid="b") == ["a"]  # a dead actor's node: not while others exist
    assert placements([node("b")], 1, avoid="b") == ["b"]  # the only node
    assert placements([node("x", alive=False)], 2) == [None, None]  # nothing known: Ray chooses


def test_nothing_but_the_ray_runner_imports_ray():
    code = (
        "import sys, harness.cli.main, harness.run.orchestration.suite, harness.run.orchestration.distributed; "
        "print('ray' in sys.modules)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "False"
