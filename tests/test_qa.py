"""Screen question answering on live screens (first slice of the ScreenQA use): the QA contract, the lexical
baseline on the virtual device's apps in English and Chinese, "no answer", an empty hierarchy, unknown element
indices, and `droidharness qa` through the real adb server."""

from __future__ import annotations

import pytest
from PIL import Image
from typer.testing import CliRunner

from agents.qa import QAAnswer, answer_elements
from agents.registry import available_qa_agents, create_qa_agent
from harness import actions as A
from harness.cli.main import app
from harness.device.inprocess import InProcessDevice
from harness.errors import ConfigError
from harness.hierarchy import UITree
from harness.observation import Observation

WEATHER = "com.droidharness.weather"


@pytest.fixture(scope="module")
def weather() -> dict[str, Observation]:
    screens = {}
    for lang in ("en", "zh"):
        with InProcessDevice(locale=lang) as dev:
            _, screens[lang] = dev.step(A.OpenApp(package=WEATHER), dev.observe())
    return screens


@pytest.mark.parametrize(("lang", "question", "value"), [
    ("en", "What is the humidity?", "48%"), ("en", "How strong is the wind?", "7 mph"),
    ("zh", "湿度是多少？", "48%"),
])
def test_the_lexical_baseline_answers_with_the_value_next_to_the_label(weather, lang, question, value):
    obs = weather[lang]
    ans = create_qa_agent("lexical").answer(obs, question, lang)
    assert not ans.no_answer and ans.text == value
    first = answer_elements(ans, obs)[0]
    assert first.text == value and first.index == ans.elements[0]


def test_a_question_the_screen_does_not_answer_gets_no_answer(weather):
    ans = create_qa_agent("lexical").answer(weather["en"], "What is the battery level of the moon?", "en")
    assert ans.no_answer and ans.elements == () and ans.text is None


def test_an_empty_hierarchy_is_no_answer_not_a_crash():
    xml = '<?xml version="1.0" encoding="UTF-8"?><hierarchy rotation="0"></hierarchy>'
    obs = Observation(screenshot=Image.new("RGB", (100, 200)), tree=UITree.from_xml(xml), xml=xml, package="",
                      activity="", size=(100, 200), rotation=0)
    assert create_qa_agent("lexical").answer(obs, "What is the humidity?", "en").no_answer


def test_answer_elements_drops_indices_that_are_not_on_the_screen(weather):
    obs = weather["en"]
    got = answer_elements(QAAnswer(elements=(999, 16, -1)), obs)
    assert [e.index for e in got] == [16]


def test_qa_agents_are_found_by_name():
    assert "lexical" in available_qa_agents()
    with pytest.raises(ConfigError, match="unknown QA agent 'oracle'"):
        create_qa_agent("oracle")
    with pytest.raises(ConfigError, match="unknown option"):
        create_qa_agent("lexical", temperature=0.2)


def test_the_qa_command_answers_on_the_virtual_device_and_draws_the_answer(tmp_path):
    out = tmp_path / "qa"
    r = CliRunner().invoke(app, ["qa", "--question", "What is the humidity?", "--app", "Weather", "--out", str(out)],
                           env={"COLUMNS": "200"})
    assert r.exit_code == 0, r.output
    assert "answer: 48%" in r.output and "com.droidharness.weather" in r.output
    shot, drawn = Image.open(out / "screen.png").convert("RGB"), Image.open(out / "answer.png").convert("RGB")
    row = next(ln for ln in r.output.splitlines() if "│ 1 " in ln)
    l, t, _, _ = (int(v) for v in row.split("[")[1].split("]")[0].split(","))
    assert drawn.getpixel((l + 1, t + 1)) == (230, 30, 60) != shot.getpixel((l + 1, t + 1)), "rank 1 is boxed"
    assert "<hierarchy" in (out / "screen.xml").read_text()
    bad = CliRunner().invoke(app, ["qa", "--question", "x", "--agent", "oracle", "--out", str(tmp_path / "b")])
    assert bad.exit_code == 2 and "unknown QA agent" in bad.output
