"""`run --suite androidworld`'s paths, through the real run loop on embedded devices started as emulator images (the
real adb server), with the tests' own AndroidWorld-shaped task classes (tests/harness/androidworld/fixture_suite.py):
a do-nothing agent solves only what is met at the start, the verdict before any action is recorded and does not
change what the agent starts from, an instance whose app is missing is skipped and listed, a set-up that raises is
an infrastructure failure naming the class, a judge that raises is recorded and never retried, the agent's answer
reaches the judge, and summary.json carries AndroidWorld's own figure."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("android_env.proto.adb_pb2")

from harness.actions import Answer  # noqa: E402
from harness.agent import AgentStep  # noqa: E402
from harness.androidworld.suite import AwSuite  # noqa: E402
from harness.run.orchestration.suite import SuiteOptions, run_suite  # noqa: E402
from harness.scoring.episodes import EXIT_INFRA  # noqa: E402
from harness.trajectory.reader import load_run  # noqa: E402
from tests.harness.androidworld.fixture_suite import FixtureBinding  # noqa: E402
from tests.run_util import FAST_WRITER  # noqa: E402

pytestmark = [pytest.mark.integration]


def _run(tmp_path: Path, classes: tuple[str, ...], isolation: str = "thread", agent: Any = None, **kw: Any):
    binding = FixtureBinding()
    suite = AwSuite(binding=binding, classes=classes)
    opts = SuiteOptions(
        suite="androidworld",
        outside=suite,
        langs=("en",),
        agent="noop",
        isolation=isolation,  # type: ignore[arg-type]
        out=tmp_path,
        run_id="aw",
        writer=FAST_WRITER,
        **{"report": False, **kw},
    )
    res = run_suite(opts, agent_factory=agent)
    return res, binding, json.loads((res.run_dir / "summary.json").read_text())


def _records(run_dir: Path) -> dict[str, Any]:
    return {ep.task_id: ep.meta for ep in load_run(run_dir).episodes.values()}


def test_noop_gets_only_what_is_met_at_the_start_and_the_records_say_so(tmp_path):
    res, binding, summary = _run(tmp_path, ("FixtureTask", "WifiOnVerify", "NeedsMissingApp"), report=True)
    metas = _records(res.run_dir)
    todo, verify = metas["FixtureTask"].extra["androidworld"], metas["WifiOnVerify"].extra["androidworld"]
    assert metas["FixtureTask"].status == "failed" and todo["success_before"] == 0.0 and todo["score"] == 0.0
    assert metas["WifiOnVerify"].status == "success" and verify["success_before"] == 1.0
    assert todo["class"] == "FixtureTask" and todo["goal"] == "Turn wifi on." and todo["params"] == {"seed": 30}
    assert todo["done"] is True and todo["aw_score"] == 0.0 and verify["aw_score"] == 1.0
    # AndroidWorld's one-time step for Settings, on the first episode only: the slot's resets keep it (rebased)
    assert binding.snapshots_saved == ["settings"]
    firsts = [r for r in (todo, verify) if r["apps_set_up"]]
    assert len(firsts) == 1 and firsts[0]["apps_set_up"] == ["settings"] and firsts[0]["rebased"] is True
    # the host seconds of AndroidWorld's own steps, each episode
    assert set(todo["seconds"]) == {"apps", "set_up", "judge", "tear_down"}
    assert all(v >= 0 for v in todo["seconds"].values())
    skipped = metas["NeedsMissingApp"]
    assert skipped.status == "skipped" and "com.android.chrome" in (skipped.error or "")
    assert summary["skipped"] == [{"task_id": "NeedsMissingApp", "lang": "en", "reason": skipped.error}]
    assert summary["overall"]["scored"] == 2 and summary["overall"]["sr"] == 0.5 and summary["exit_code"] == 0
    fig = summary["androidworld"]
    assert fig["success_rate"] == 0.5 and fig["classes"] == 2
    assert fig["by_difficulty"] == {"easy": 1.0, "medium": 0.0} and fig["by_app"] == {"settings": 0.5}
    html = (res.run_dir / "report.html").read_text()
    assert "AndroidWorld&#x27;s figure 50.0%" in html or "AndroidWorld's figure 50.0%" in html
    assert "Skipped (1): instances the devices cannot host" in html and "com.android.chrome" in html


def test_a_set_up_that_raises_is_an_infrastructure_failure_naming_the_class(tmp_path):
    res, _, summary = _run(tmp_path, ("BrokenSetUp",), infra_retries=1)
    [failure] = summary["infra_failures"]
    assert failure["task_id"] == "BrokenSetUp" and failure["attempts"] == 2
    assert "AndroidWorld's BrokenSetUp (instance 0)" in failure["error"] and "no such table" in failure["error"]
    assert res.exit_code != 0 and "androidworld" not in summary or summary["androidworld"] is None


def test_a_judge_that_raises_is_recorded_never_retried_and_left_out_of_androidworlds_figure(tmp_path):
    res, _, summary = _run(tmp_path, ("BrokenJudge", "FixtureTask"), infra_retries=2)
    meta = _records(res.run_dir)["BrokenJudge"]
    rec = meta.extra["androidworld"]
    assert meta.status == "failed" and meta.attempts == 1
    assert rec["score"] is None and "BrokenJudge.is_successful: KeyError" in rec["judge_error"]
    assert rec["success_before"] is None and "KeyError" in rec["success_before_error"]
    fig = summary["androidworld"]
    assert fig["by_class"]["BrokenJudge"] == {
        "mean_success_rate": None,
        "trials": 0,
        "left_out": 1,
        "difficulty": "medium",
    }
    assert fig["classes"] == 1 and fig["classes_without_score"] == ["BrokenJudge"]
    assert res.exit_code != EXIT_INFRA


class Answers42:
    name = "answers"

    def reset(self, ctx: Any) -> None:
        self.goal = ctx.instruction

    def act(self, observation: Any, history: list) -> AgentStep:
        return AgentStep(action=Answer(text="42"))


def test_the_agents_answer_reaches_the_judge_as_the_interaction_cache(tmp_path):
    res, _, summary = _run(tmp_path, ("AnswerTheQuestion",), agent=Answers42)
    meta = _records(res.run_dir)["AnswerTheQuestion"]
    assert meta.instruction == {"en": "What is 6 times 7? Answer with the number."} or "6 times 7" in str(
        meta.instruction
    )
    assert meta.status == "success" and meta.extra["androidworld"]["success_before"] == 0.0
    assert summary["androidworld"]["success_rate"] == 1.0


@pytest.mark.parametrize("isolation", ["thread", pytest.param("process", marks=pytest.mark.slow)])
def test_the_verdict_before_leaves_the_agent_where_the_set_up_did(tmp_path, isolation):
    """A judge that opens Settings, asked before any action: the agent's first screen is still the set-up's (home);
    a device process restores it from a snapshot on its console, a device without a console is set up again."""
    res, _, _ = _run(tmp_path, ("JudgeOpensSettings",), isolation=isolation)
    [ep] = load_run(res.run_dir).episodes.values()
    first = json.loads((ep.path / "steps.jsonl").read_text().splitlines()[0])
    assert first["observation"]["package"] != "com.android.settings"
    assert ep.meta is not None and ep.meta.extra["androidworld"]["success_before"] == 0.0


def test_compare_gives_each_runs_androidworld_figure_on_the_shared_episodes(tmp_path):
    from harness.report.compare import compare_runs
    from harness.report.compare_page import render_compare

    classes = ("AnswerTheQuestion", "WifiOnVerify")
    base, _, _ = _run(tmp_path / "noop", classes)
    other, _, _ = _run(tmp_path / "answers", classes, agent=Answers42)
    c = compare_runs([load_run(base.run_dir), load_run(other.run_dir)], [None, None], resamples=100)
    figs = c.androidworld()
    assert [f["success_rate"] if f else None for f in figs] == [0.5, 1.0]
    assert figs[0] is not None and figs[0]["by_difficulty"] == {"easy": 1.0, "medium": 0.0}
    assert c.to_json()["androidworld"][1]["by_class"]["AnswerTheQuestion"]["mean_success_rate"] == 1.0
    assert "AndroidWorld&#x27;s own figure" in render_compare(c) or "AndroidWorld's own figure" in render_compare(c)


def test_androidworlds_waits_pass_on_a_virtual_clock_devices_clock(tmp_path):
    """Its set-up's 10 s of `time.sleep` pass on the device (the device's `sleep`), not here: twice, as a device
    without a console is set up again after the verdict before (harness/androidworld/test_sleeps.py: not here)."""
    res, _, _ = _run(tmp_path, ("WaitsForTheDevice",), clock="virtual")
    meta = _records(res.run_dir)["WaitsForTheDevice"]
    assert meta.extra["androidworld"]["device_waits"] == 20.0 and meta.status == "success"
    real, _, _ = _run(tmp_path / "real", ("FixtureTask",))
    assert _records(real.run_dir)["FixtureTask"].extra["androidworld"]["device_waits"] is None  # the host's clock
