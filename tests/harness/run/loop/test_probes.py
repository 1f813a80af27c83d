"""Probes inside episodes: screen questions a task asks on the live screen when a milestone is hit, scored with
the ScreenQA metrics beside ATP / SR, on every surface. Episodes on in-process embedded virtual devices (the
`Device` seam); the CLI test goes through the real adb server."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from harness.errors import ConfigError, EndpointError
from harness.observation import Observation
from harness.plugins import create_agent
from harness.qa_agent import QAAnswer
from harness.report.summary import run_scoreboard
from harness.run.authoring.task_check import check_task
from harness.run.fleet.pool import DevicePool
from harness.run.loop.episode import run_episode
from harness.run.orchestration.suite import SuiteOptions, probe_agent_factory, run_suite
from harness.scoring.episodes import headline
from harness.scoring.probes import probe_headline, summarize_probes
from harness.trajectory.reader import load_run
from tasks.schema import Task, TaskError, parse_task
from tasks.suite import load_suite
from tests.run_util import FAST_WRITER

pytestmark = pytest.mark.integration

WEATHER = "weather-thursday-high"  # probes at milestone "weather": city, humidity, pollen (no answer)


@pytest.fixture(scope="module")
def pool() -> Iterator[DevicePool]:
    with DevicePool(1, in_process=True) as p:
        yield p


@pytest.fixture(scope="module")
def task() -> Task:
    return next(t for t in load_suite("virtual") if t.id == WEATHER)


class ByResourceId:
    """Answers each question with the element of a scripted resource id, "no answer", or by raising."""

    name = "scripted-qa"

    def __init__(self, script: dict[str, str | None | Exception]) -> None:
        self.script = script
        self.asked: list[tuple[str, str]] = []

    def answer(self, observation: Observation, question: str, lang: str) -> QAAnswer:
        self.asked.append((question, observation.package or ""))
        for key, what in self.script.items():
            if key in question:
                if isinstance(what, Exception):
                    raise what
                if what is None:
                    return QAAnswer(no_answer=True)
                (el,) = [e for e in observation.tree if e.resource_id.endswith(f"/{what}")][:1]
                return QAAnswer(elements=(el.index,), text=el.text)
        return QAAnswer(no_answer=True)


def _episode(pool: DevicePool, task: Task, qa: Any, lang: str = "en") -> Any:
    pool.reset(0)
    return run_episode(task, create_agent("reference"), pool.slot(0), lang, probe_agent=qa)


def test_probes_are_asked_on_the_milestone_screen_and_scored_hand_computed(pool, task):
    qa = ByResourceId({"humidity": "humidity", "pollen": None, "city": RuntimeError("the QA model crashed")})
    r = _episode(pool, task, qa)
    assert r.success and r.status == "success"
    by_id = {p["probe_id"]: p for p in r.probes}
    assert list(by_id) == ["city", "humidity", "pollen"], "task order"
    hit_step = next(m["hit_step"] for m in r.milestones if m["id"] == "weather")
    assert all(p["asked"] and p["reached"] and p["step"] == hit_step for p in r.probes)
    assert [pkg for _, pkg in qa.asked] == ["com.droidharness.weather"] * 3, "asked on the app's screen"
    assert by_id["humidity"]["scores"]["sqa_s_f1"] == 1.0 and by_id["humidity"]["scores"]["sqa_uic_bb_f1"] == 1.0
    assert by_id["pollen"]["answer_text"] == "<no answer>" and by_id["pollen"]["scores"]["sqa_s_em"] == 1.0
    city = by_id["city"]
    assert city["agent_error"] and "RuntimeError: the QA model crashed" in city["error"]
    assert city["scores"]["sqa_s_f1"] == 0.0 and city["ground_truth"]["short"] == ["Mountain View"]
    s = summarize_probes(r.probes)
    assert s is not None and (s["probes"], s["asked"], s["not_reached"]) == (3, 3, 0)
    assert s["sqa_s_f1"] == pytest.approx(2 / 3) and s["sqa_uic_f1"] == pytest.approx(2 / 3)


def test_probes_never_change_the_agents_course(pool, task):
    with_probes = _episode(pool, task, ByResourceId({}))
    without = _episode(pool, task, None)
    assert (with_probes.steps, with_probes.progress, with_probes.success, with_probes.answer) == (
        without.steps,
        without.progress,
        without.success,
        without.answer,
    )
    assert without.probes == [], "no probe agent: probes off, nothing recorded"


def test_a_probe_whose_milestone_is_never_hit_is_listed_not_reached_and_not_scored(pool, task):
    class GivesUp:
        name = "gives-up"

        def reset(self, ctx: Any) -> None:
            pass

        def act(self, obs: Any, history: Any) -> Any:
            from harness.actions import Impossible
            from harness.agent import AgentStep

            return AgentStep(action=Impossible())

    pool.reset(0)
    r = run_episode(task, GivesUp(), pool.slot(0), "en", probe_agent=ByResourceId({}))
    assert [(p["reached"], p["asked"]) for p in r.probes] == [(False, False)] * 3
    s = summarize_probes(r.probes)
    assert s is not None and s["asked"] == 0 and s["not_reached"] == 3 and "sqa_s_f1" not in s
    assert probe_headline(s) == "  probes: none asked of 3"


def test_probe_scores_stand_beside_sr_and_atp_on_every_surface(pool, tmp_path):
    qa = ByResourceId({"humidity": "humidity", "pollen": None, "city": "city_name"})
    res = run_suite(
        SuiteOptions(
            writer=FAST_WRITER,
            task_ids=(WEATHER, "settings-dark-theme"),
            langs=("en",),
            out=tmp_path,
            run_id="probes",
            agent="reference",
        ),
        pool=pool,
    )
    assert res.board.overall.probes is not None and res.board.overall.probes["asked"] == 3, "auto: lexical"
    res = run_suite(
        SuiteOptions(
            writer=FAST_WRITER,
            task_ids=(WEATHER, "settings-dark-theme"),
            langs=("en",),
            out=tmp_path,
            run_id="scripted",
            agent="reference",
        ),
        pool=pool,
        probe_agent=lambda: qa,
    )
    overall = res.board.overall
    assert overall.probes is not None and overall.probes["sqa_s_f1"] == 1.0 and overall.probes["asked"] == 3
    line = headline(overall)
    assert (
        line == "SR 100.0%  ATP 100.0%  over 2 scored episodes  probes: SQA-S F1 100.0%  UIC F1 100.0%  "
        "over 3 asked of 3"
    )
    summary = json.loads((tmp_path / "scripted" / "summary.json").read_text())
    assert summary["headline"] == line and summary["overall"]["probes"]["asked"] == 3
    run = load_run(tmp_path / "scripted")
    assert headline(run_scoreboard(run).overall) == line, "read back from episode.json"
    assert [p["probe_id"] for p in run.episode(WEATHER, "en").meta.to_result().probes] == ["city", "humidity", "pollen"]
    page = (tmp_path / "scripted" / "report.html").read_text(encoding="utf-8")
    assert "<h3>Probes</h3>" in page and "What is the pollen count?" in page and line in page


def test_an_unusable_qa_endpoint_is_an_infrastructure_failure_of_the_episode(pool, tmp_path):
    qa = ByResourceId({"city": EndpointError("openai QA: endpoint http://127.0.0.1:9/v1: connection refused")})
    res = run_suite(
        SuiteOptions(
            writer=FAST_WRITER,
            task_ids=(WEATHER,),
            langs=("en",),
            out=tmp_path,
            run_id="down",
            agent="reference",
            infra_retries=1,
        ),
        pool=pool,
        probe_agent=lambda: qa,
    )
    (r,) = res.results
    assert r.status == "infra_error" and r.attempts == 2 and "connection refused" in (r.error or "")
    assert res.board.overall.scored == 0


def test_tasks_check_fails_a_probe_whose_answer_is_not_on_its_milestone_screen(pool, task):
    data = task.model_dump(mode="json", exclude_none=True)
    data["probes"] = [
        {
            "id": "ghost",
            "at": "weather",
            "question": {"en": "?", "zh": "？"},
            "answers": [{"elements": [{"resource_id": "no_such_view"}]}],
        }
    ]
    bad = parse_task(data)
    pool.reset(0)
    r = check_task(bad, "en", pool.slot(0))
    assert not r.ok and "probe ghost" in (r.error or "") and "no_such_view" in (r.error or "")
    pool.reset(0)
    assert check_task(task, "en", pool.slot(0)).ok


def test_a_probe_at_an_unknown_milestone_or_a_repeated_probe_id_is_refused(task):
    data = task.model_dump(mode="json", exclude_none=True)
    data["probes"][0]["at"] = "nowhere"
    with pytest.raises(TaskError, match="probe 'city' is at unknown milestone 'nowhere'"):
        parse_task(data)
    data = task.model_dump(mode="json", exclude_none=True)
    data["probes"][1]["id"] = "city"
    with pytest.raises(TaskError, match=r"probe ids must be unique; repeated: \['city'\]"):
        parse_task(data)


def test_who_answers_the_probes():
    assert probe_agent_factory(SuiteOptions(agent="heuristic", probe_agent="none")) is None
    made = probe_agent_factory(SuiteOptions(agent="heuristic"))
    assert made is not None and made().name == "lexical", "auto without a QA mode: the lexical baseline"
    with pytest.raises(ConfigError, match="unknown QA agent 'nope'"):
        probe_agent_factory(SuiteOptions(probe_agent="nope"))


def test_cli_run_with_probes_and_a_bad_probe_agent(tmp_path: Path):
    from harness.cli.main import app

    cli = CliRunner().invoke(
        app,
        ["run", "--agent", "reference", "--task", WEATHER, "--lang", "zh", "--out", str(tmp_path), "--run-id", "cli"],
    )
    assert cli.exit_code == 0, cli.output
    assert "probes: SQA-S F1" in cli.output and "over 3 asked of 3" in cli.output
    bad = CliRunner().invoke(app, ["run", "--probe-agent", "nope", "--out", str(tmp_path)])
    assert bad.exit_code == 2 and "unknown QA agent 'nope'" in bad.output and "Traceback" not in bad.output


def test_a_qa_agent_that_hangs_is_abandoned_at_the_timeout_and_scored_as_no_answer(pool, task):
    import time

    from harness.run.loop.episode import Limits

    class Sleepy(ByResourceId):
        def answer(self, observation: Observation, question: str, lang: str) -> QAAnswer:
            if "humidity" in question:
                time.sleep(2.0)
            return super().answer(observation, question, lang)

    pool.reset(0)
    r = run_episode(
        task,
        create_agent("reference"),
        pool.slot(0),
        "en",
        Limits(agent_timeout=0.3),
        probe_agent=Sleepy({"city": "city_name"}),
    )
    by_id = {p["probe_id"]: p for p in r.probes}
    assert by_id["humidity"]["agent_error"] and "no answer within 0.3 s" in by_id["humidity"]["error"]
    assert by_id["humidity"]["answer_text"] == "<no answer>" and by_id["humidity"]["scores"]["sqa_s_f1"] == 0.0
    assert by_id["city"]["scores"]["sqa_s_f1"] == 1.0 and r.success, "the episode went on"
