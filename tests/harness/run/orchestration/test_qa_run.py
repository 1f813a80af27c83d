"""`droidharness qa run` as a real run (issue 15): a run directory in the trajectory format (one kind "qa" episode
per question and language, the screen as a step, the answer as its ANSWER action, the QA result in
episode.json), summary.json by app and language, the QA section of report.html, resume, infrastructure failures
retried on a fresh device and listed, the agent's own failures scored. The run loop on in-process devices; the
CLI through the real adb server with two embedded devices."""

from __future__ import annotations

import base64
import io
import json
import re
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest
from PIL import Image
from rich.console import Console
from typer.testing import CliRunner

from harness.cli.main import app
from harness.errors import EndpointError
from harness.hierarchy import UITree
from harness.plugins import create_qa_agent
from harness.qa_agent import QAAnswer
from harness.run.fleet.pool import DevicePool
from harness.run.orchestration.qa_run import QARunOptions, run_qa
from harness.scoring.episodes import EXIT_INFRA, EXIT_OK
from harness.scoring.questions import METRICS
from harness.trajectory.reader import load_run
from tests.run_util import FAST_WRITER

WEATHER = "com.droidharness.weather"
CLOCK = "com.google.android.deskclock"
WEATHER_START = {"reset_apps": [WEATHER], "open_app": WEATHER}
EVIL = 'How strong is the wind <script>alert("x")</script> & co?'

QUESTIONS = [
    {
        "id": "humidity",
        "question": {"en": "What is the humidity?", "zh": "湿度是多少？"},
        "start": WEATHER_START,
        "answers": [{"elements": [{"resource_id": "humidity"}]}],
    },
    # the baseline answers the wind; the ground truth (on purpose) is the humidity: 0 on every metric, and the
    # drawing has a red box and a green box in different places
    {
        "id": "wind-vs-humidity",
        "question": {"en": EVIL},
        "start": WEATHER_START,
        "answers": [{"elements": [{"resource_id": "humidity"}]}],
    },
    {"id": "pollen", "question": {"en": "What is the pollen count today?"}, "start": WEATHER_START, "answers": [{}]},
    {
        "id": "alarm",
        "question": {"en": "What time is the first alarm set for?"},
        "start": {"reset_apps": [CLOCK], "open_app": CLOCK},
        "answers": [{"elements": [{"resource_id": "digital_clock"}]}],
    },
]


def _suite(tmp_path: Path, questions: list[dict] = QUESTIONS) -> Path:
    d = tmp_path / "suite"
    d.mkdir(exist_ok=True)
    (d / "qs.json").write_text(json.dumps(questions, ensure_ascii=False), encoding="utf-8")
    return d


@pytest.fixture(scope="module")
def inproc_pool() -> Iterator[DevicePool]:
    with DevicePool(1, in_process=True) as p:
        yield p


def _opts(tmp_path: Path, **kw) -> QARunOptions:
    base = dict(suite=str(_suite(tmp_path)), out=tmp_path / "runs", run_id="qa", writer=FAST_WRITER, infra_retries=1)
    return QARunOptions(**{**base, **kw})


@pytest.fixture(scope="module")
def baseline_run(tmp_path_factory, inproc_pool) -> Path:
    tmp = tmp_path_factory.mktemp("qa_run")
    res = run_qa(_opts(tmp), pool=inproc_pool)
    assert res.exit_code == EXIT_OK and res.skipped == 0 and len(res.outcomes) == 5
    return res.run_dir


def test_the_run_directory_is_in_the_trajectory_format(baseline_run):
    run = load_run(baseline_run)
    assert run.kind == "qa" and run.manifest is not None and run.manifest.agent["name"] == "lexical"
    assert sorted(run.episodes) == ["alarm__en", "humidity__en", "humidity__zh", "pollen__en", "wind-vs-humidity__en"]
    ep = run.episode("humidity", "zh")
    assert ep.meta is not None and ep.meta.kind == "qa" and ep.meta.status == "success" and ep.meta.steps == 1
    (step,) = ep.steps
    qa = ep.meta.qa
    assert qa is not None and qa.answer == "48%" and qa.app == WEATHER and qa.question == "湿度是多少？"
    # the screen the question was asked about: a v2 frame pair, and the answer is the step's ANSWER action
    assert ep.frame_path(1).parent.name == "frames" and ep.image(1).size == tuple(step.observation.size)
    tree = UITree.from_xml(ep.xml(1))
    assert step.agent.action == {"type": "ANSWER", "text": "48%", "elements": [qa.predicted[0].index]}
    assert (
        tree[qa.predicted[0].index].text == "48%"
        and tuple(qa.predicted[0].bounds) == tree[qa.predicted[0].index].bounds
    )
    assert qa.ground_truth.elements[0][0].bounds == qa.predicted[0].bounds and qa.ground_truth.short == ["48%"]
    assert set(qa.scores) == set(METRICS) and set(qa.scores.values()) == {1.0}
    pollen = run.episode("pollen", "en").meta
    assert pollen.status == "failed" and pollen.qa.ground_truth.short == ["<no answer>"] and pollen.qa.tags == []


def test_the_summary_by_app_and_language_is_the_mean_of_the_questions(baseline_run):
    s = json.loads((baseline_run / "summary.json").read_text())
    # per question (every metric alike): humidity en 1, humidity zh 1, wind-vs-humidity 0, pollen 0, alarm 1
    expect = {
        "overall": (5, 3 / 5),
        "by_app": {WEATHER: (4, 2 / 4), CLOCK: (1, 1.0)},
        "by_language": {"en": (4, 2 / 4), "zh": (1, 1.0)},
    }
    assert (s["overall"]["questions"], s["overall"]["f1"]) == (5, pytest.approx(0.6))
    for group in ("by_app", "by_language"):
        assert set(s[group]) == set(expect[group])
        for key, (n, value) in expect[group].items():
            row = s[group][key]
            assert row["questions"] == n and all(row[m] == pytest.approx(value) for m in METRICS), (group, key, row)
    assert all(s["overall"][m] == pytest.approx(0.6) for m in METRICS)
    assert s["kind"] == "qa" and s["exit_code"] == EXIT_OK and s["infra_failures"] == []
    assert s["statuses"] == {"failed": 2, "success": 3}
    assert s["headline"].startswith("SQA-S F1 60.0%") and "over 5 scored questions" in s["headline"]


def _images(page: str) -> dict[str, Image.Image]:
    """The annotated screen of each question in the report, by episode key."""
    out = {}
    for key, data in re.findall(
        r'<details class=episode id="ep-([^"]+)">.*?src="data:image/jpeg;base64,([^"]+)"', page, flags=re.S
    ):
        out[key] = Image.open(io.BytesIO(base64.b64decode(data))).convert("RGB")
    return out


def _edge_colour(img: Image.Image, bounds: list[int], device_width: int) -> tuple[int, int, int]:
    """The colour in the middle of the box's left edge, on the downscaled screen."""
    s = img.width / device_width
    l, t, _, b = bounds
    return img.getpixel((round(l * s) + 1, round((t + b) / 2 * s)))


def test_the_report_has_the_qa_section_escaped_with_both_box_kinds(baseline_run):
    page = (baseline_run / "report.html").read_text(encoding="utf-8")
    assert "<h2>Screen question answering</h2>" in page and "<h3>By app</h3>" in page and "<h3>By language</h3>" in page
    assert "Content-Security-Policy" in page
    assert "&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; &amp; co?" in page and '<script>alert("x")' not in page
    assert page.count("<script>") == 1  # the report's own expand/collapse script only
    ep = load_run(baseline_run).episode("wind-vs-humidity", "en")
    qa = ep.meta.qa
    assert qa.predicted and qa.predicted[0].bounds != qa.ground_truth.elements[0][0].bounds
    width = ep.steps[0].observation.size[0]
    img = _images(page)["wind-vs-humidity__en"]
    red = _edge_colour(img, list(qa.predicted[0].bounds), width)
    green = _edge_colour(img, list(qa.ground_truth.elements[0][0].bounds), width)
    assert red[0] > red[1] + 80 and red[0] > red[2] + 60, red  # the answer: red, numbered
    assert green[1] > green[0] + 60 and green[1] > green[2] + 30, green  # the ground truth: green
    assert "annotator 1" in page and "7 mph" in page and "Ground truth:" in page
    # `droidharness report` rewrites a QA run's report and prints its QA summary
    (baseline_run / "report.html").unlink()
    r = CliRunner().invoke(app, ["report", str(baseline_run)], env={"COLUMNS": "250"})
    assert r.exit_code == 0, r.output
    assert "Screen question answering" in (baseline_run / "report.html").read_text(encoding="utf-8")
    assert "SQA-S F1 60.0%" in r.output and "5 questions: SQA-S EM 60.0%" in r.output


class Counting:
    """A QA agent that counts what it is asked (and answers like the baseline)."""

    def __init__(self, log: list[str]) -> None:
        self.name, self.log, self.inner = "lexical", log, create_qa_agent("lexical")

    def answer(self, obs, question, lang):
        self.log.append(f"{question} [{lang}]")
        return self.inner.answer(obs, question, lang)


def test_resume_asks_only_the_question_without_a_record(tmp_path, inproc_pool, baseline_run):
    run_dir = tmp_path / "copy"
    shutil.copytree(baseline_run, run_dir)
    before = json.loads((run_dir / "summary.json").read_text())
    shutil.rmtree(run_dir / "episodes" / "humidity__zh")
    asked: list[str] = []
    res = run_qa(
        _opts(tmp_path, suite="virtual", resume=run_dir), agent_factory=lambda: Counting(asked), pool=inproc_pool
    )  # the suite and languages come from the run's manifest
    assert asked == ["湿度是多少？ [zh]"] and res.skipped == 4 and [o.question_id for o in res.outcomes] == ["humidity"]
    after = json.loads((run_dir / "summary.json").read_text())
    assert after["overall"] == before["overall"] and after["by_app"] == before["by_app"]
    assert load_run(run_dir).episode("humidity", "zh").meta.qa.answer == "48%"


def test_an_endpoint_error_is_retried_on_a_fresh_device_then_listed(tmp_path, inproc_pool):
    calls: list[str] = []

    class Down:
        name = "lexical"

        def answer(self, obs, question, lang):
            calls.append(question)
            if "humidity" in question:
                raise EndpointError("model endpoint http://127.0.0.1:9/v1: 503 after 3 retries")
            return create_qa_agent("lexical").answer(obs, question, lang)

    first = inproc_pool.slot(0)
    out = io.StringIO()
    res = run_qa(
        _opts(tmp_path, langs=("en",), question_ids=("humidity", "alarm")),
        console=Console(file=out, width=200),
        agent_factory=Down,
        pool=inproc_pool,
    )
    assert calls.count("What is the humidity?") == 2 and inproc_pool.slot(0) is not first  # a fresh device
    assert res.exit_code == EXIT_INFRA
    s = res.summary
    assert [(f["task_id"], f["status"], f["attempts"]) for f in s["infra_failures"]] == [("humidity", "infra_error", 2)]
    assert "503 after 3 retries" in s["infra_failures"][0]["error"]
    assert s["overall"]["questions"] == 1 and s["overall"]["f1"] == 1.0  # left out of the scores
    assert "1 infrastructure failure (listed, not scored)" in s["headline"] and s["headline"] in out.getvalue()
    meta = load_run(res.run_dir).episode("humidity", "en").meta
    assert meta.kind == "qa" and meta.status == "infra_error" and meta.qa is None
    assert (res.run_dir / "stale").is_dir()  # the failed attempt's unfinished record is kept aside
    page = (res.run_dir / "report.html").read_text(encoding="utf-8")
    assert "Not scored (1)" in page and "503 after 3 retries" in page


def test_a_device_killed_under_every_attempt_is_an_infrastructure_failure(tmp_path, inproc_pool):
    made = {"n": 0}

    def factory():  # call 1 is the run's probe of the options; calls 2 and 3 (humidity's two attempts) lose
        made["n"] += 1  # their device before the state is reached
        if made["n"] in (2, 3):
            inproc_pool.model(0).faults.go_offline(True)
        return create_qa_agent("lexical")

    res = run_qa(
        _opts(tmp_path, langs=("en",), question_ids=("humidity", "alarm")), agent_factory=factory, pool=inproc_pool
    )
    assert res.exit_code == EXIT_INFRA and made["n"] == 4
    (failure,) = res.summary["infra_failures"]
    assert failure["task_id"] == "humidity" and failure["attempts"] == 2
    assert res.summary["overall"]["questions"] == 1


def test_an_agent_that_raises_is_scored_as_no_answer_with_its_error(tmp_path, inproc_pool):
    class Broken:
        name = "lexical"

        def answer(self, obs, question, lang):
            raise RuntimeError("index out of range in my parser <oops>")

    res = run_qa(
        _opts(tmp_path, langs=("en",), question_ids=("humidity", "pollen")), agent_factory=Broken, pool=inproc_pool
    )
    assert res.exit_code == EXIT_OK  # the agent's failure is scored, not listed
    by_id = {o.question_id: o.result for o in res.outcomes}
    hum, pol = by_id["humidity"], by_id["pollen"]
    assert hum.answer_text == "<no answer>" and hum.agent_error and set(hum.scores.values()) == {0.0}
    assert pol.answer_text == "<no answer>" and set(pol.scores.values()) == {1.0}  # right by luck: no answer
    assert hum.error == "RuntimeError: index out of range in my parser <oops>"
    s = res.summary
    assert s["overall"]["agent_errors"] == 2 and s["statuses"] == {"agent_error": 2}
    assert "2 agent errors" in s["headline"]
    ep = load_run(res.run_dir).episode("humidity", "en")
    assert ep.meta.status == "agent_error" and ep.meta.qa.error == hum.error
    assert ep.steps[0].agent.invalid and ep.steps[0].agent.action is None and ep.steps[0].agent.error == hum.error
    page = (res.run_dir / "report.html").read_text(encoding="utf-8")
    assert "Agent error:" in page and "index out of range in my parser &lt;oops&gt;" in page


def test_a_malformed_answer_is_kept_and_an_unknown_element_counted(tmp_path, inproc_pool):
    class Sloppy:
        name = "lexical"

        def answer(self, obs, question, lang):
            humidity = obs.tree.find(resource_id=f"{WEATHER}:id/humidity")[0].index
            return QAAnswer(elements=(9999, humidity), text="48%", raw_output='{"elements": [9999, ...]}')

    res = run_qa(_opts(tmp_path, langs=("en",), question_ids=("humidity",)), agent_factory=Sloppy, pool=inproc_pool)
    (o,) = res.outcomes
    assert o.result.unknown_elements == 1 and set(o.result.scores.values()) == {1.0}
    ep = load_run(res.run_dir).episode("humidity", "en")
    assert ep.meta.qa.unknown_elements == 1 and ep.meta.qa.raw_output == '{"elements": [9999, ...]}'
    assert ep.steps[0].agent.action["elements"][0] == 9999  # what the agent said, as it said it
    assert res.summary["overall"]["unknown_elements"] == 1


def test_cli_qa_run_on_two_devices_through_the_real_adb_server(tmp_path):
    suite = _suite(tmp_path)
    r = CliRunner().invoke(
        app,
        ["qa", "run", str(suite), "--devices", "2", "--lang", "en", "--out", str(tmp_path / "runs"), "--run-id", "two"],
        env={"COLUMNS": "250"},
    )
    assert r.exit_code == 0, r.output
    assert "summary (means over scored questions" in r.output and "over 4 scored questions" in r.output
    assert "4 questions: SQA-S EM 50.0%" in r.output  # humidity 1, wind-vs-humidity 0, pollen 0, alarm 1
    run = load_run(tmp_path / "runs" / "two")
    serials = {d["serial"] for d in run.manifest.devices}  # devices behind the private adb server: host:port
    assert len(serials) == 2 and all(s.startswith("127.0.0.1:") for s in serials)
    assert {ep.meta.status for ep in run.episodes.values()} == {"success", "failed"}
    assert all(ep.meta.device["serial"] in serials for ep in run.episodes.values())
    again = CliRunner().invoke(app, ["qa", "run", str(suite), "--out", str(tmp_path / "runs"), "--run-id", "two"])
    assert again.exit_code == 2 and "already exists" in again.output


def test_cli_bad_input_is_one_line_and_exit_2(tmp_path):
    r = CliRunner().invoke(app, ["qa", "run", str(tmp_path / "nowhere"), "--out", str(tmp_path)])
    assert r.exit_code == 2 and "no QA suite" in r.output and len(r.output.strip().splitlines()) == 1
    r = CliRunner().invoke(app, ["qa", "run", str(_suite(tmp_path)), "--id", "nope", "--out", str(tmp_path)])
    assert r.exit_code == 2 and "unknown question id(s) ['nope']" in r.output
    task_run = tmp_path / "notqa"
    task_run.mkdir()
    r = CliRunner().invoke(app, ["qa", "run", "--resume", str(task_run)])
    assert r.exit_code == 2 and "not a QA run directory" in r.output


def test_qa_run_on_a_real_device_given_by_serial(adb_server, vdevice, tmp_path):
    """`--device SERIAL`: a phone (here a virtual device reached only by its serial through the adb server)."""
    from typer.testing import CliRunner

    from harness.cli.main import app

    r = CliRunner().invoke(
        app,
        [
            "qa",
            "run",
            "--device",
            vdevice.serial,
            "--lang",
            "en",
            "--id",
            "weather-humidity",
            "--out",
            str(tmp_path),
            "--run-id",
            "phone",
        ],
        env={"COLUMNS": "200"},
    )
    assert r.exit_code == 0, r.output
    meta = json.loads((tmp_path / "phone" / "episodes" / "weather-humidity__en" / "episode.json").read_text())
    assert meta["device"]["serial"] == vdevice.serial and meta["qa"]["scores"]["sqa_uic_f1"] == 1.0
    assert meta["reset_method"] == "app_clear", "a phone is reset by clearing the question's app"
