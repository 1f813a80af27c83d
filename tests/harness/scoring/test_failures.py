"""Scores that cannot be inflated: the failure taxonomy through the run loop, one scoring function on every
surface, success as the end state. Episodes run on in-process embedded virtual devices at the `Device` seam;
the rows of the fault matrix (docs/faults.md: agent raising, hanging, untypeable text, device killed, a worker's
exception) run again through the real adb server and an embedded virtual device (`ADB_TOO`)."""

from __future__ import annotations

import io
import json
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from rich.console import Console
from typer.testing import CliRunner

from harness.actions import Click, Complete, TypeText
from harness.agent import AgentStep, EpisodeContext, HistoryItem, invalid_step
from harness.device.controller import DeviceConfig
from harness.device.link import LinkConfig
from harness.errors import EndpointError
from harness.plugins import create_agent, register_agent, unregister_agent
from harness.report.summary import run_scoreboard
from harness.run.fleet.pool import DevicePool
from harness.run.loop.episode import Limits
from harness.run.orchestration.suite import SuiteOptions, SuiteResult, run_suite
from harness.scoring.episodes import EXIT_INFRA, EXIT_NOTHING_SCORED, headline
from harness.trajectory.reader import load_run
from tests.run_util import FAST_WRITER

pytestmark = pytest.mark.integration

DARK = "settings-dark-theme"  # reference: OPEN_APP, SCROLL, CLICK Display (milestone 1), CLICK dark row (2)


@pytest.fixture(scope="module")
def inproc_pool() -> Iterator[DevicePool]:
    # the run loop at the `Device` seam: in-process virtual devices (the device layer has its own adb tests)
    with DevicePool(1, in_process=True) as p:
        yield p


@pytest.fixture(scope="module")
def adb_pool() -> Iterator[DevicePool]:
    # a private adb server and an embedded virtual device behind it; a lost transport is given 2 s to come back
    # (the default 10 s), as the other tests of lost devices give it: a device killed here never comes back
    with DevicePool(1, config=DeviceConfig(link=LinkConfig(reconnect_timeout=2.0))) as p:
        yield p


@pytest.fixture
def pool(request: pytest.FixtureRequest) -> DevicePool:
    kind = getattr(request, "param", "in_process")
    return request.getfixturevalue("adb_pool" if kind == "adb" else "inproc_pool")


ADB_TOO = pytest.mark.parametrize("pool", ["in_process", "adb"], indirect=True)


class Scripted:
    """Plays the task's reference solution, except at the steps `script` names, where it does what it says."""

    name = "scripted"

    def __init__(self, script: dict[int, Callable[[Any, list[HistoryItem]], AgentStep]]) -> None:
        self.script = script
        self.reference = create_agent("reference")
        self.histories: list[list[HistoryItem]] = []

    def reset(self, ctx: EpisodeContext) -> None:
        self.reference.reset(ctx)

    def act(self, obs: Any, history: list[HistoryItem]) -> AgentStep:
        self.histories.append(history)
        n = len(history) + 1
        if n in self.script:
            return self.script[n](obs, history)
        return self.reference.act(obs, history)


def _run(
    pool: DevicePool,
    tmp_path: Path,
    run_id: str,
    factory: Callable[[], Any],
    task: str = DARK,
    langs: tuple[str, ...] = ("en",),
    **kw: Any,
) -> SuiteResult:
    return run_suite(
        SuiteOptions(writer=FAST_WRITER, task_ids=(task,), langs=langs, out=tmp_path, run_id=run_id, **kw),
        agent_factory=factory,
        pool=pool,
    )


def _boom(obs: Any, history: list[HistoryItem]) -> AgentStep:
    raise RuntimeError("the agent crashed")


@ADB_TOO
def test_an_agent_that_raises_on_step_3_is_scored_with_its_progress_and_not_retried(pool, tmp_path):
    made: list[Scripted] = []

    def factory() -> Scripted:
        made.append(Scripted({3: _boom}))
        return made[-1]

    res = _run(pool, tmp_path, "raise", factory)
    (r,) = res.results
    assert r.status == "agent_error" and r.attempts == 1 and r.steps == 2
    assert "step 3" in r.error and "RuntimeError: the agent crashed" in r.error
    assert r.progress == 0.0 and not r.success  # OPEN_APP and SCROLL: no milestone yet
    assert res.board.overall.scored == 1 and res.sr == 0.0 and res.atp == 0.0
    assert len(made) == 2, "one probe agent + one fresh agent for the single attempt: no retry"
    meta = load_run(tmp_path / "raise").episode(DARK, "en").meta
    assert meta.status == "agent_error" and meta.extra["terminated_by"] == "error"


def test_an_agent_crashing_after_a_milestone_keeps_that_progress(pool, tmp_path):
    res = _run(pool, tmp_path, "late-raise", lambda: Scripted({4: _boom}))
    (r,) = res.results
    assert r.status == "agent_error" and r.progress == 0.5 and res.atp == 0.5 and res.sr == 0.0


def test_an_element_index_not_on_screen_is_an_invalid_step_and_the_episode_goes_on(pool, tmp_path):
    agents: list[Scripted] = []

    def factory() -> Scripted:
        agents.append(Scripted({1: lambda obs, h: AgentStep(action=Click(element=999), thought="try 999")}))
        return agents[-1]

    res = _run(pool, tmp_path, "i999", factory)
    (r,) = res.results
    # the invalid step used one step of the budget; the reference then still reached the goal
    assert r.invalid_steps == 1 and r.attempts == 1 and r.steps == 6
    assert r.status == "success" and res.sr == 1.0
    told = agents[-1].histories[1][0]  # what the agent saw of step 1 when it chose step 2
    assert told.agent_step.invalid and "no element [999]" in (told.agent_step.error or "")
    assert told.result is not None and told.result.ok is False and "999" in (told.result.error or "")
    ep = load_run(tmp_path / "i999").episode(DARK, "en")
    first = ep.steps[0]
    assert first.agent.invalid and first.agent.action == {"type": "CLICK", "element": 999}
    assert "no element [999]" in first.agent.error and first.result.ok is False
    assert ep.meta.invalid_outputs == 1
    page = (tmp_path / "i999" / "report.html").read_text(encoding="utf-8")
    assert "invalid step: step 1" in page and "no element [999]" in page


def test_unparseable_output_forever_runs_out_the_budget_and_scores_zero(pool, tmp_path):
    never = {
        n: (lambda obs, h: invalid_step("no action found in: I think I will tap", raw_output="I think"))
        for n in range(1, 50)
    }
    res = _run(pool, tmp_path, "garbage", lambda: Scripted(never), limits=Limits(max_steps=4))
    (r,) = res.results
    assert r.status == "failed" and r.terminated_by == "max_steps" and r.invalid_steps == 4 and r.steps == 4
    assert r.attempts == 1 and res.board.overall.scored == 1 and res.sr == 0.0 and res.atp == 0.0
    steps = load_run(tmp_path / "garbage").episode(DARK, "en").steps
    assert [s.agent.invalid for s in steps] == [True] * 4 and all(s.result is None for s in steps)


@ADB_TOO
def test_an_agent_that_sleeps_past_its_timeout_fails_and_its_late_answer_is_discarded(pool, tmp_path):
    late: list[tuple[int, float]] = []
    instances: list[Any] = []

    class Sleeper(Scripted):
        def act(self, obs: Any, history: list[HistoryItem]) -> AgentStep:
            if len(history) == 1:
                time.sleep(1.5)  # past the 0.5 s timeout; then answers anyway
                late.append((id(self), time.monotonic()))
                return AgentStep(action=Click(element=0), thought="late")
            return super().act(obs, history)

    def factory() -> Sleeper:
        instances.append(Sleeper({}))
        return instances[-1]

    res = _run(pool, tmp_path, "sleep", factory, langs=("en", "zh"), limits=Limits(agent_timeout=0.5))
    assert [r.status for r in res.results] == ["agent_error", "agent_error"]
    assert all(r.terminated_by == "timeout" and r.steps == 1 and r.attempts == 1 for r in res.results)
    assert all("no action within 0.5 s" in r.error for r in res.results)
    assert res.board.overall.scored == 2 and res.atp == 0.0
    episode_agents = instances[1:]  # instances[0] is the probe made before the run starts
    assert len(episode_agents) == 2 and episode_agents[0] is not episode_agents[1], "a fresh agent per episode"
    deadline = time.monotonic() + 5
    while len(late) < 2 and time.monotonic() < deadline:
        time.sleep(0.05)
    run = load_run(tmp_path / "sleep")
    for lang in ("en", "zh"):
        steps = run.episode(DARK, lang).steps
        assert len(steps) == 1 and all(s.agent.thought != "late" for s in steps), "the late answer never applied"


@ADB_TOO
def test_a_lone_surrogate_to_type_is_an_invalid_step_and_the_device_stays_usable(pool, tmp_path):
    def surrogate(obs: Any, h: list[HistoryItem]) -> AgentStep:
        # built without validation, as a plug-in might: the runner validates before anything reaches a device
        return AgentStep(
            action=TypeText.model_construct(
                text="ab\ud800", clear=False, submit=False, point=None, element=None, type="TYPE"
            ),
            raw_output="ab\ud800",
        )

    res = _run(pool, tmp_path, "surrogate", lambda: Scripted({1: surrogate}))
    (r,) = res.results
    assert r.invalid_steps == 1 and r.status == "success", "the device kept working after the refused text"
    first = load_run(tmp_path / "surrogate").episode(DARK, "en").steps[0]
    assert first.agent.invalid and first.agent.action is None
    assert "lone surrogate U+D800 at position 2" in first.agent.error
    assert first.agent.raw_output == "ab\ud800", "recorded verbatim (as a JSON escape), nothing lost"


@pytest.mark.slow
@ADB_TOO
def test_a_device_killed_on_every_attempt_is_an_infrastructure_failure_on_every_surface(pool, tmp_path):
    kills = {"n": 0}

    class Killer(Scripted):
        def __init__(self) -> None:
            super().__init__({})
            self.task = ""

        def reset(self, ctx: EpisodeContext) -> None:
            super().reset(ctx)
            self.task = ctx.task.id

        def act(self, obs: Any, history: list[HistoryItem]) -> AgentStep:
            if self.task == DARK and len(history) == 1:
                kills["n"] += 1
                pool.model(0).faults.go_offline(True)  # the device dies under this attempt
            return super().act(obs, history)

    out = io.StringIO()
    res = run_suite(
        SuiteOptions(
            writer=FAST_WRITER,
            task_ids=(DARK, "notes-search-password"),
            langs=("en",),
            out=tmp_path,
            run_id="infra",
            infra_retries=1,
        ),
        console=Console(file=out, width=200),
        agent_factory=Killer,
        pool=pool,
    )
    by_task = {r.task_id: r for r in res.results}
    assert by_task[DARK].status == "infra_error" and by_task[DARK].attempts == 2 and kills["n"] == 2
    assert by_task["notes-search-password"].status == "success"
    overall = res.board.overall
    assert (overall.scored, overall.infra_errors, overall.sr) == (1, 1, 1.0)
    assert res.exit_code == EXIT_INFRA
    line = headline(overall)
    assert line == "SR 100.0%  ATP 100.0%  over 1 scored episode; 1 infrastructure failure (listed, not scored)"
    # every surface says the same: the live view, summary.json, the report, `droidharness report`
    assert line in out.getvalue()
    summary = json.loads((tmp_path / "infra" / "summary.json").read_text())
    assert summary["headline"] == line and summary["exit_code"] == EXIT_INFRA
    assert summary["overall"]["infra_errors"] == 1 and summary["overall"]["scored"] == 1
    assert [(f["task_id"], f["attempts"]) for f in summary["infra_failures"]] == [(DARK, 2)]
    page = (tmp_path / "infra" / "report.html").read_text(encoding="utf-8")
    assert line in page and "Not scored (1)" in page and f"{DARK} [en]" in page
    assert headline(run_scoreboard(load_run(tmp_path / "infra")).overall) == line
    from harness.cli.main import app

    cli = CliRunner().invoke(app, ["report", str(tmp_path / "infra")])
    assert cli.exit_code == 0 and line in cli.output and f"not scored: {DARK} [en] infra_error" in cli.output


@ADB_TOO
def test_an_exception_outside_the_agent_is_an_infrastructure_failure_retried_on_a_fresh_device(pool, tmp_path):
    first = pool.slot(0)
    real_observe = first.observe

    def broken_observe() -> Any:
        if pool.slot(0) is first:  # only the device of the first attempt breaks
            raise RuntimeError("a bug in a device driver")
        return real_observe()

    first.observe = broken_observe  # type: ignore[method-assign]  # this instance only; a replacement is clean
    res = _run(pool, tmp_path, "worker", lambda: Scripted({}))
    (r,) = res.results
    assert pool.slot(0) is not first, "the slot's device was replaced"
    assert r.status == "success" and r.attempts == 2 and res.exit_code == 0
    summary = json.loads((tmp_path / "worker" / "summary.json").read_text())
    assert summary["overall"]["infra_errors"] == 0 and summary["overall"]["scored"] == 1


def test_a_run_where_nothing_can_be_scored_exits_4_and_prints_no_sr(tmp_path):
    class EndpointDown:
        name = "endpoint-down"

        def reset(self, ctx: EpisodeContext) -> None:
            pass

        def act(self, obs: Any, history: list[HistoryItem]) -> AgentStep:
            raise EndpointError("openai agent: endpoint http://127.0.0.1:9/v1 (model m), step 1: connection refused")

    register_agent("endpoint-down", EndpointDown)
    try:
        from harness.cli.main import app

        cli = CliRunner().invoke(
            app,
            [
                "run",
                "--agent",
                "endpoint-down",
                "--task",
                DARK,
                "--lang",
                "en",
                "--out",
                str(tmp_path),
                "--run-id",
                "down",
            ],
        )
    finally:
        unregister_agent("endpoint-down")
    assert cli.exit_code == EXIT_NOTHING_SCORED, cli.output
    assert "no episode could be scored (of 1); 1 infrastructure failure" in cli.output
    assert "SR " not in cli.output and "connection refused" in cli.output
    summary = json.loads((tmp_path / "down" / "summary.json").read_text())
    assert summary["overall"]["sr"] is None and summary["exit_code"] == EXIT_NOTHING_SCORED


def _undo_filter(obs: Any, history: list[HistoryItem]) -> AgentStep:
    field = obs.tree.find(resource_id="com.droidharness.notes:id/search_src_text")[0]
    return AgentStep(action=TypeText(element=field.index, text="", clear=True), thought="clear the filter")


def test_reaching_the_goal_then_undoing_it_is_not_success_and_atp_is_unchanged(pool, tmp_path):
    # notes-search-password: OPEN_APP, CLICK search, TYPE password + submit (filter reached), [undo], COMPLETE
    done = _run(pool, tmp_path, "done", lambda: Scripted({}), task="notes-search-password")
    undone = _run(
        pool,
        tmp_path,
        "undone",
        lambda: Scripted({4: _undo_filter, 5: lambda o, h: AgentStep(action=Complete())}),
        task="notes-search-password",
    )
    (ok,), (bad,) = done.results, undone.results
    print("CLOCK", ok.end_state, bad.end_state, bad.progress)
    assert ok.success and ok.end_state == {"held": True, "failed": [], "probes": []}
    assert bad.progress == ok.progress == 1.0, "ATP counts milestones reached (latching)"
    assert not bad.success and bad.status == "failed" and undone.sr == 0.0 and undone.atp == 1.0
    assert bad.end_state is not None and bad.end_state["failed"] == ["filtered"]
    meta = load_run(tmp_path / "undone").episode("notes-search-password", "en").meta
    assert meta.extra["end_state"]["held"] is False


def test_an_end_state_reads_the_setting_and_sees_a_toggle_undone(pool, tmp_path):
    # settings-dark-theme's end state is the setting itself (secure ui_night_mode), read after the episode: no app
    # is reopened, and a toggle undone at the end fails it
    def untoggle(obs: Any, history: list[HistoryItem]) -> AgentStep:
        row = obs.tree.find(resource_id="com.android.settings:id/dark_theme_row")[0]
        return AgentStep(action=Click(element=row.index))

    done = _run(pool, tmp_path, "dark", lambda: Scripted({}))
    undone = _run(
        pool, tmp_path, "undark", lambda: Scripted({5: untoggle, 6: lambda o, h: AgentStep(action=Complete())})
    )
    assert done.results[0].success and done.results[0].end_state == {"held": True, "failed": [], "probes": []}
    (bad,) = undone.results
    assert bad.progress == 1.0 and not bad.success
    assert bad.end_state["failed"] == ["dark (state: settings secure ui_night_mode is '1', expected equals '2')"]


def test_tasks_check_fails_a_task_whose_end_state_already_holds_at_the_start(pool):
    from harness.run.authoring.task_check import check_task
    from tasks.schema import Task
    from tasks.suite import load_suite

    task = next(t for t in load_suite("virtual") if t.id == DARK)
    already_dark = Task.model_validate(
        {**task.model_dump(mode="json", exclude_none=True), "start": {"settings": {"secure:ui_night_mode": "2"}}}
    )
    pool.reset(0)
    r = check_task(already_dark, "en", pool.slot(0))
    assert not r.ok and "end_state" in r.start_violations
    pool.reset(0)
    good = check_task(task, "en", pool.slot(0))
    assert good.ok and good.end_state_held is True


def test_tasks_check_fails_a_task_that_a_do_nothing_agent_scores_on(pool):
    """A milestone that holds on the home screen rewards doing nothing: the do-nothing agent (HOME, COMPLETE)
    played by tasks check scores on it, and the task is unsound though its reference solution works."""
    from harness.run.authoring.task_check import check_task
    from tasks.schema import Task
    from tasks.suite import load_suite

    task = next(t for t in load_suite("virtual") if t.id == DARK)
    data = task.model_dump(mode="json", exclude_none=True)
    data["milestones"]["children"][0]["check"] = {
        "activity": "com.google.android.apps.nexuslauncher.NexusLauncherActivity"
    }
    sloppy = Task.model_validate(data)
    pool.reset(0)
    r = check_task(sloppy, "en", pool.slot(0))
    assert not r.ok and r.idle_progress == 0.5 and not r.idle_success
    assert "a do-nothing agent (HOME, then COMPLETE) scores progress 50% (milestones display)" in (r.error or "")
    pool.reset(0)
    good = check_task(task, "en", pool.slot(0))
    assert good.ok and good.idle_ok and good.idle_progress == 0.0


def test_the_reference_agent_still_reaches_sr_100_on_these_tasks(pool, tmp_path):
    res = run_suite(
        SuiteOptions(
            writer=FAST_WRITER, task_ids=(DARK, "notes-search-password"), out=tmp_path, run_id="ref", agent="reference"
        ),
        pool=pool,
    )
    assert res.sr == 1.0 and res.atp == 1.0 and res.exit_code == 0
    assert threading.active_count() < 50


def test_an_end_state_sees_data_undone_in_the_app_an_alarm_switched_back_on(pool, tmp_path):
    # clock-alarm-off-and-timer: OPEN_APP, CLICK the 7:00 switch (off), Timer tab, 5, 00, Start (both parts
    # reached), then [undo]: back to the Alarm tab and switch 7:00 on again. The end state reads the alarm from the
    # clock's provider (its row enabled again: fails) and reopens Clock for the timer (no shell can read it: still
    # holds).
    clock = "com.google.android.deskclock"

    def tap(rid: str) -> Callable[[Any, list[HistoryItem]], AgentStep]:
        return lambda obs, h: AgentStep(action=Click(element=obs.tree.find(resource_id=f"{clock}:id/{rid}")[0].index))

    task = "clock-alarm-off-and-timer"
    done = _run(pool, tmp_path, "alarm-off", lambda: Scripted({}), task=task)
    undone = _run(
        pool,
        tmp_path,
        "alarm-on-again",
        lambda: Scripted({7: tap("tab_menu_alarm"), 8: tap("onoff"), 9: lambda o, h: AgentStep(action=Complete())}),
        task=task,
    )
    (ok,), (bad,) = done.results, undone.results
    assert ok.success and ok.end_state == {"held": True, "failed": [], "probes": [clock]}
    assert bad.progress == ok.progress == 1.0 and not bad.success and undone.atp == 1.0 and undone.sr == 0.0
    alarms = "content://com.android.deskclock/alarms"
    assert bad.end_state["failed"] == [
        f"check (state: content {alarms}: no row with hour: equals '7', minutes: equals '0', enabled: equals '0'"
        " among 2 row(s))",
        f"check (state: content {alarms}: 1 row(s) that must not exist, e.g. hour=7, minutes=0, enabled=1)",
    ]
