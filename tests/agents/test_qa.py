"""Screen question answering on live screens (first slice of the ScreenQA use): the QA contract, the lexical
baseline on the virtual device's apps in English and Chinese, "no answer", an empty hierarchy, unknown element
indices, and `droidharness qa` through the real adb server."""

from __future__ import annotations

import pytest
from PIL import Image
from typer.testing import CliRunner

from harness import actions as A
from harness.cli.main import app
from harness.device.inprocess import InProcessDevice
from harness.errors import ConfigError
from harness.hierarchy import UITree
from harness.observation import Observation
from harness.plugins import available_qa_agents, create_qa_agent
from harness.qa_agent import QAAnswer, answer_elements

WEATHER = "com.droidharness.weather"


@pytest.fixture(scope="module")
def weather() -> dict[str, Observation]:
    screens = {}
    for lang in ("en", "zh"):
        with InProcessDevice(locale=lang) as dev:
            _, screens[lang] = dev.step(A.OpenApp(package=WEATHER), dev.observe())
    return screens


@pytest.mark.parametrize(
    ("lang", "question", "value"),
    [
        ("en", "What is the humidity?", "48%"),
        ("en", "How strong is the wind?", "7 mph"),
        ("zh", "湿度是多少？", "48%"),
    ],
)
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
    obs = Observation(
        screenshot=Image.new("RGB", (100, 200)),
        tree=UITree.from_xml(xml),
        xml=xml,
        package="",
        activity="",
        size=(100, 200),
        rotation=0,
    )
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
    r = CliRunner().invoke(
        app,
        ["qa", "--question", "What is the humidity?", "--app", "Weather", "--out", str(out)],
        env={"COLUMNS": "200"},
    )
    assert r.exit_code == 0, r.output
    assert "answer: 48%" in r.output and "com.droidharness.weather" in r.output
    shot, drawn = Image.open(out / "screen.png").convert("RGB"), Image.open(out / "answer.png").convert("RGB")
    row = next(ln for ln in r.output.splitlines() if "│ 1 " in ln)
    l, t, _, _ = (int(v) for v in row.split("[")[1].split("]")[0].split(","))
    assert drawn.getpixel((l + 1, t + 1)) == (230, 30, 60) != shot.getpixel((l + 1, t + 1)), "rank 1 is boxed"
    assert "<hierarchy" in (out / "screen.xml").read_text()
    bad = CliRunner().invoke(app, ["qa", "--question", "x", "--agent", "oracle", "--out", str(tmp_path / "b")])
    assert bad.exit_code == 2 and "unknown QA agent" in bad.output


def _suite(tmp_path, questions):
    import json

    d = tmp_path / "suite"
    d.mkdir()
    (d / "qs.json").write_text(json.dumps(questions, ensure_ascii=False), encoding="utf-8")
    return d


WEATHER_START = {"reset_apps": [WEATHER], "open_app": WEATHER}


def test_qa_run_scores_the_baseline_with_every_screenqa_metric_hand_computed(tmp_path):
    import json

    suite = _suite(
        tmp_path,
        [
            {
                "id": "humidity",
                "question": {"en": "What is the humidity?"},
                "start": WEATHER_START,
                "answers": [{"elements": [{"resource_id": "humidity"}]}],
            },
            {
                "id": "pollen",
                "question": {"en": "What is the pollen count today?"},
                "start": WEATHER_START,
                "answers": [{}],
            },
        ],
    )
    out = tmp_path / "qa.json"
    r = CliRunner().invoke(
        app,
        ["qa", "run", str(suite), "--lang", "en", "--json", str(out), "--out", str(tmp_path / "runs")],
        env={"COLUMNS": "200"},
    )
    assert r.exit_code == 0, r.output
    data = json.loads(out.read_text())
    by_id = {x["question_id"]: x for x in data["results"]}
    # humidity: the baseline answers the one ground-truth element, same text, same box -> 1 on every metric
    assert by_id["humidity"]["answer_text"] == "48%"
    assert set(by_id["humidity"]["scores"].values()) == {1.0}
    # pollen: the screen has no answer, the baseline anchors on "Today" and answers -> 0 on every metric
    assert (
        by_id["pollen"]["ground_truth"]["short"] == ["<no answer>"] and by_id["pollen"]["answer_text"] != "<no answer>"
    )
    assert set(by_id["pollen"]["scores"].values()) == {0.0}
    s = data["summary"]
    assert s["questions"] == 2 and all(s[k] == 0.5 for k in ("sqa_s_em", "sqa_s_f1", "sqa_uic_f1", "ndcg_v", "f1"))
    assert "SQA-S EM 50.0%" in r.output


def test_qa_check_proves_the_bundled_suite_and_names_a_broken_question(tmp_path):
    ok = CliRunner().invoke(app, ["qa", "check", "--lang", "en"], env={"COLUMNS": "200"})
    assert ok.exit_code == 0 and "every question is answerable as written" in ok.output, ok.output
    broken = _suite(
        tmp_path,
        [
            {
                "id": "gone",
                "question": {"en": "What is the UV index?"},
                "start": WEATHER_START,
                "answers": [{"elements": [{"resource_id": "uv_index"}]}],
            }
        ],
    )
    bad = CliRunner().invoke(app, ["qa", "check", str(broken), "--lang", "en"], env={"COLUMNS": "300"})
    assert bad.exit_code == 1 and "gone" in bad.output and "uv_index" in bad.output
    (broken / "qs.json").write_text('[{"id": "x"}]')
    invalid = CliRunner().invoke(app, ["qa", "check", str(broken)], env={"COLUMNS": "300"})
    assert invalid.exit_code == 2 and "qs.json" in invalid.output and "question" in invalid.output


# --- the openai agent in QA mode, with the real openai client against a local stub server -------------------------
def _openai_qa(url: str):
    return create_qa_agent(
        "openai",
        model="stub-vlm",
        base_url=url,
        api_key="sk-test-qa-0123456789abcdef",
        backoff_base=0.001,
        backoff_max=0.01,
        max_repairs=1,
    )


def test_openai_qa_mode_answers_with_validated_element_indices(weather):
    import json

    from tests.openai_stub import OpenAIStub

    obs = weather["en"]
    humidity = obs.tree.find(resource_id=f"{WEATHER}:id/humidity")[0]
    reply = json.dumps({"elements": [humidity.index], "answer": "48%", "no_answer": False})
    with OpenAIStub(["I believe it is 48%.", "```json\n" + reply + "\n```"]) as stub:  # first reply needs repair
        ans = _openai_qa(stub.url).answer(obs, "What is the humidity?", "en")
        sent = stub.requests
    assert ans.elements == (humidity.index,) and ans.text == "48%" and not ans.no_answer and ans.error is None
    assert len(sent) == 2 and "Question: What is the humidity?" in sent[0].body["messages"][1]["content"][0]["text"]
    assert f"[{humidity.index}]" in sent[0].body["messages"][1]["content"][0]["text"], "the numbered element list"
    assert "could not be used" in sent[1].body["messages"][-1]["content"]


def test_openai_qa_mode_counts_unusable_output_and_unknown_elements_as_no_answer(weather):
    import json

    from tests.openai_stub import OpenAIStub

    obs = weather["en"]
    with OpenAIStub([json.dumps({"elements": [9999], "answer": "x"}), "still not JSON"]) as stub:
        ans = _openai_qa(stub.url).answer(obs, "What is the humidity?", "en")
    assert ans.no_answer and ans.elements == () and ans.error and "unusable output" in ans.error
    with OpenAIStub([json.dumps({"elements": [], "answer": None, "no_answer": True})]) as stub:
        none = _openai_qa(stub.url).answer(obs, "What is the pollen count?", "en")
    assert none.no_answer and none.error is None


def test_qa_run_with_the_openai_agent_against_a_stub(tmp_path):
    import json

    from tests.openai_stub import OpenAIStub

    suite = _suite(
        tmp_path,
        [
            {
                "id": "humidity",
                "question": {"en": "What is the humidity?"},
                "start": WEATHER_START,
                "answers": [{"elements": [{"resource_id": "humidity"}]}],
            }
        ],
    )

    def oracle(body):  # answers from the element list it was sent, as a model reading the screen would
        text = body["messages"][1]["content"][0]["text"]
        line = next(ln for ln in text.splitlines() if '"48%"' in ln)
        return json.dumps({"elements": [int(line.split("]")[0].strip("[ "))], "answer": "48%"})

    out = tmp_path / "qa.json"
    with OpenAIStub(handler=oracle) as stub:
        r = CliRunner().invoke(
            app,
            [
                "qa",
                "run",
                str(suite),
                "--lang",
                "en",
                "--agent",
                "openai",
                "--model",
                "stub",
                "--base-url",
                stub.url,
                "--json",
                str(out),
                "--out",
                str(tmp_path / "runs"),
            ],
            env={"COLUMNS": "200", "OPENAI_API_KEY": "sk-test-qa-0123456789abcdef"},
        )
    assert r.exit_code == 0, r.output
    (res,) = json.loads(out.read_text())["results"]
    assert res["answer_text"] == "48%" and set(res["scores"].values()) == {1.0}
