"""Offline evaluation calls the agent under a live run's deadline and failure rules (issue 19, item 3): an agent that
raises, hangs past the deadline or answers with no valid action fails that step only -- it is scored as an
invalid prediction and counted, the evaluation goes on -- through `evaluate` and through `droidharness eval`."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from harness.actions import Click
from harness.agent import AgentStep
from harness.cli.main import app
from harness.errors import EndpointError
from harness.eval.offline import EvalOptions, evaluate, iter_dataset
from harness.plugins import register_agent
from tests.dataset_fixtures import AITZ_DIR, write_aitw_fixture

RELEASE = threading.Event()  # set at the end of the module: the abandoned calls stop waiting


@pytest.fixture(autouse=True, scope="module")
def _release_hung_calls() -> Iterator[None]:
    yield
    RELEASE.set()


class Gold:
    """Answers every step with the recorded action, except the steps in `fail` (dataset step index): there it
    raises, hangs (`mode="hang"`) or answers with no valid action (`mode="invalid"`)."""

    name = "gold-with-failures"

    def __init__(self, episodes: list[Any], fail: tuple[int, ...] = (), mode: str = "raise", reset: bool = False):
        self.gold = [[s.action for s in ep.steps] for ep in episodes]  # visited in loader order
        self.fail, self.mode, self.fail_reset = set(fail), mode, reset
        self.episode = -1
        self.calls = 0

    def reset(self, ctx: Any) -> None:
        self.episode += 1
        if self.fail_reset:
            raise RuntimeError("cannot start")

    def act(self, obs: Any, history: list[Any]) -> Any:
        self.calls += 1
        k = len(history)  # teacher forcing: the gold history has one item per earlier step
        if k in self.fail:
            if self.mode == "raise":
                raise ValueError(f"bad luck at step {k}")
            if self.mode == "hang":
                RELEASE.wait(30)
            if self.mode == "none":
                return None
            if self.mode == "unvalidated":
                return AgentStep(action=Click.model_construct(point=None, element=None))
            return AgentStep(action=None, invalid=True, error="unparsable")
        return AgentStep(action=self.gold[self.episode][k])


def _aitz(**kw: Any) -> EvalOptions:
    return EvalOptions("aitz", AITZ_DIR, **kw)


def _episodes(opts: EvalOptions) -> list[Any]:
    return list(iter_dataset(opts, need_images=False))


def test_an_agent_that_raises_fails_that_step_only() -> None:
    opts = _aitz()
    agent = Gold(_episodes(opts), fail=(1,))
    rep = evaluate(opts, agent=agent)
    m = rep["metrics"]
    assert agent.calls == 4  # the evaluation went on after the exception
    assert (rep["agent_errors"], rep["agent_timeouts"], rep["invalid"]) == (1, 0, 1)
    assert "ValueError: bad luck at step 1" in rep["agent_failures"][0]
    assert (m["TM"], m["EM"], m["SR"], m["GP"]) == (0.75, 0.75, 0.0, 0.25)  # scored as an invalid prediction


def test_an_agent_that_hangs_times_out_and_the_run_goes_on() -> None:
    opts = _aitz(timeout=0.5)
    agent = Gold(_episodes(opts), fail=(2,), mode="hang")
    rep = evaluate(opts, agent=agent)
    assert agent.calls == 4
    assert (rep["agent_errors"], rep["agent_timeouts"], rep["invalid"]) == (0, 1, 1)
    assert "AgentTimeout" in rep["agent_failures"][0] and "0.5 s" in rep["agent_failures"][0]
    assert rep["metrics"]["EM"] == 0.75 and rep["metrics"]["GP"] == 0.5


@pytest.mark.parametrize("mode", ["invalid", "none", "unvalidated"])
def test_an_answer_without_a_valid_action_is_an_invalid_step(mode: str) -> None:
    opts = _aitz()
    rep = evaluate(opts, agent=Gold(_episodes(opts), fail=(0,), mode=mode))
    assert (rep["agent_errors"], rep["agent_timeouts"], rep["invalid"]) == (0, 0, 1)
    assert rep["metrics"]["EM"] == 0.75 and rep["metrics"]["GP"] == 0.0


def test_a_failed_reset_fails_every_step_of_its_episode() -> None:
    opts = _aitz()
    agent = Gold(_episodes(opts), reset=True)
    rep = evaluate(opts, agent=agent)
    assert agent.calls == 0 and rep["agent_errors"] == 4 and rep["invalid"] == 4
    assert "reset" in rep["agent_failures"][0]
    assert rep["metrics"]["EM"] == 0.0


def test_every_metric_scores_agent_failures_as_wrong(tmp_path: Path) -> None:
    write_aitw_fixture(tmp_path / "google_apps-00000.tfrecord.gz")
    opts = EvalOptions("aitw", tmp_path)
    agent = Gold(_episodes(opts), fail=(0,))  # the first step of each of the 3 episodes
    rep = evaluate(opts, agent=agent)
    assert rep["episodes"] == 3 and rep["agent_errors"] == 3
    # GoogleApps: 1001 9 / 10, 1002 1 / 2, 1003 0 / 1
    assert rep["metrics"]["overall"] == pytest.approx((0.9 + 0.5 + 0) / 3)


def test_an_infrastructure_error_stops_the_evaluation_as_in_a_live_run() -> None:
    class Unreachable(Gold):
        def act(self, obs: Any, history: list[Any]) -> Any:
            raise EndpointError("the endpoint is unusable after 3 retries")

    opts = _aitz()
    with pytest.raises(EndpointError):
        evaluate(opts, agent=Unreachable(_episodes(opts)))


def test_cli_scores_an_agent_that_raises_and_one_that_hangs(tmp_path: Path) -> None:
    episodes = _episodes(_aitz())
    register_agent("test-eval-raises", lambda: Gold(episodes, fail=(1,)))
    register_agent("test-eval-hangs", lambda: Gold(episodes, fail=(3,), mode="hang"))
    out = tmp_path / "raises.json"
    r = CliRunner().invoke(
        app, ["eval", "--dataset", "aitz", "--data", str(AITZ_DIR), "--agent", "test-eval-raises", "--out", str(out)]
    )
    assert r.exit_code == 0, r.output
    text = " ".join(r.output.split())  # rich wraps the header at the terminal width
    assert "Traceback" not in text and "agent errors 1, timeouts 0" in text
    rep = json.loads(out.read_text())
    assert rep["agent_errors"] == 1 and rep["metrics"]["EM"] == 0.75
    out = tmp_path / "hangs.json"
    r = CliRunner().invoke(
        app,
        ["eval", "--dataset", "agentcpm", "--data", str(AITZ_DIR), "--agent", "test-eval-hangs", "--timeout", "0.5"]
        + ["--out", str(out)],
    )
    assert r.exit_code == 0, r.output
    assert "agent errors 0, timeouts 1" in " ".join(r.output.split())
    rep = json.loads(out.read_text())
    assert rep["dataset"] == "aitz" and rep["agent_timeouts"] == 1 and rep["metrics"]["EM"] == 0.75
    assert rep["metrics"]["SR"] == 0.0 and rep["metrics"]["GP"] == 0.75
    r = CliRunner().invoke(
        app, ["eval", "--dataset", "aitz", "--data", str(AITZ_DIR), "--agent", "random", "--timeout", "0"]
    )
    assert r.exit_code == 2 and "timeout" in r.output
