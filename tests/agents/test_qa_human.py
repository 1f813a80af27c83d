"""The `human` QA agent: a person answers at the terminal (scripted input here), on a live screen of the embedded
virtual device at the `Device` seam, and through `droidharness qa run --agent human` on stdin."""

from __future__ import annotations

import io
import json
from collections.abc import Iterator

import pytest
from rich.console import Console
from typer.testing import CliRunner

from agents.qa_human import HumanQA
from harness.actions import OpenApp
from harness.agent import AgentError
from harness.plugins import create_qa_agent
from harness.qa_agent import parse_answer
from harness.run.fleet.pool import DevicePool


@pytest.fixture(scope="module")
def weather() -> Iterator[object]:
    with DevicePool(1, in_process=True) as pool:
        dev = pool.slot(0)
        _, obs = dev.step(OpenApp(package="com.droidharness.weather"), dev.observe())
        yield obs


def _agent(lines: list[str]) -> tuple[HumanQA, io.StringIO]:
    feed, out = iter(lines), io.StringIO()

    def read(prompt: str) -> str:
        try:
            return next(feed)
        except StopIteration:
            raise EOFError from None

    return HumanQA(input_fn=read, console=Console(file=out, width=200)), out


def test_a_person_picks_elements_in_rank_order_and_keeps_the_default_short_answer(weather):
    humidity = next(e.index for e in weather.tree if e.resource_id.endswith("/humidity"))
    city = next(e.index for e in weather.tree if e.resource_id.endswith("/city_name"))
    agent, out = _agent(["999", "two", f"{humidity}, {city}", ""])
    ans = agent.answer(weather, "What is the humidity, and where?", "en")
    assert ans.elements == (humidity, city) and not ans.no_answer
    assert ans.text == f"{weather.tree[humidity].text}, {weather.tree[city].text}"
    shown = out.getvalue()
    assert "Q: What is the humidity, and where?" in shown and shown.count("give element numbers") == 2


def test_none_is_no_answer_and_end_of_input_is_the_agents_failure(weather):
    agent, _ = _agent(["none", ""])
    assert agent.answer(weather, "What is the pollen count?", "en").no_answer
    typed, _ = _agent(["0", "a typed answer"])
    assert typed.answer(weather, "?", "en").text == "a typed answer"
    closed, _ = _agent([])
    with pytest.raises(AgentError, match="input closed"):
        closed.answer(weather, "?", "en")


def test_parse_answer():
    assert parse_answer(" 3 7 ", 10) == [3, 7] and parse_answer("3,7", 10) == [3, 7] and parse_answer("None", 1) == []
    assert parse_answer("10", 10) is None and parse_answer("-1", 10) is None and parse_answer("x", 10) is None
    assert parse_answer("", 10) is None


def test_the_registry_has_the_human_qa_agent():
    assert create_qa_agent("human").name == "human"


def test_qa_run_with_a_person_on_stdin(tmp_path):
    from harness.cli.main import app

    r = CliRunner().invoke(
        app,
        [
            "qa",
            "run",
            "--agent",
            "human",
            "--id",
            "weather-pollen",
            "--lang",
            "en",
            "--devices",
            "1",
            "--out",
            str(tmp_path),
            "--run-id",
            "human",
        ],
        input="none\n\n",
        env={"COLUMNS": "200"},
    )
    assert r.exit_code == 0, r.output
    meta = json.loads((tmp_path / "human" / "episodes" / "weather-pollen__en" / "episode.json").read_text())
    assert meta["qa"]["no_answer"] and meta["qa"]["scores"]["sqa_s_em"] == 1.0, "no answer, rightly"
