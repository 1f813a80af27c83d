"""Offline ScreenQA evaluation of a QA agent (issue 15, item 6): `harness.eval.qa_offline` and
`droidharness eval --dataset screenqa`, on small answers_and_bboxes / short_answers files written here (with
screenshots and uiautomator hierarchies) and on the REAL short-answer samples in tests/fixtures/screenqa."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from PIL import Image
from typer.testing import CliRunner

from harness.cli.main import app
from harness.eval.offline import EvalError
from harness.eval.qa_offline import QAEvalOptions, evaluate_qa, observation_for
from harness.plugins import create_qa_agent
from tasks.datasets.screenqa import iter_questions
from tests import dataset_fixtures as F

W, H = 1000, 2000
XML = f"""<?xml version="1.0" encoding="UTF-8"?><hierarchy rotation="0">
<node class="android.widget.FrameLayout" bounds="[0,0][{W},{H}]">
  <node class="android.widget.TextView" text="Humidity" bounds="[0,100][500,200]"/>
  <node class="android.widget.TextView" text="48%" bounds="[500,100][1000,200]"/>
  <node class="android.widget.TextView" text="Wind" bounds="[0,200][500,300]"/>
  <node class="android.widget.TextView" text="7 mph" bounds="[500,200][1000,300]"/>
</node></hierarchy>"""
VALUE = {"text": "48%", "bounds": [500, 100, 1000, 200], "vh_index": 2}
WIND = {"text": "7 mph", "bounds": [500, 200, 1000, 300], "vh_index": 4}


def _dataset(tmp: Path) -> tuple[Path, Path]:
    """Screen 101 (screenshot + hierarchy, the screenshot stored at half size), screen 102 (screenshot only)."""
    images = tmp / "images"
    images.mkdir()
    Image.new("RGB", (W // 2, H // 2), "white").save(images / "101.jpg")
    (images / "101.xml").write_text(XML, encoding="utf-8")
    Image.new("RGB", (W, H), "white").save(images / "102.png")
    bb = [
        {
            "image_id": 101,
            "image_width": W,
            "image_height": H,
            "question": "What is the humidity?",
            "ground_truth": [
                {"full_answer": "48%", "ui_elements": [VALUE]},
                {"full_answer": "It is 48%", "ui_elements": [VALUE]},
            ],
        },
        {
            "image_id": 101,
            "image_width": W,
            "image_height": H,
            "question": "What is the pollen count?",
            "ground_truth": [{"full_answer": "", "ui_elements": []}],
        },
        {
            "image_id": 101,
            "image_width": W,
            "image_height": H,
            "question": "Humidity and wind?",
            "ground_truth": [{"full_answer": "48%, 7 mph", "ui_elements": [VALUE, WIND]}],
        },
        {
            "image_id": 102,
            "image_width": W,
            "image_height": H,
            "question": "What is the humidity?",
            "ground_truth": [{"full_answer": "48%", "ui_elements": [VALUE]}],
        },
    ]
    short = [{"image_id": 101, "question": "How windy is it?", "ground_truth": ["7 mph", "7 miles per hour"]}]
    (tmp / "answers_and_bboxes").mkdir()
    (tmp / "short_answers").mkdir()
    (tmp / "answers_and_bboxes" / "test.json").write_text(json.dumps(bb), encoding="utf-8")
    (tmp / "short_answers" / "test.json").write_text(json.dumps(short), encoding="utf-8")
    return tmp, images


def test_observations_come_from_the_screenshot_in_the_records_frame_and_the_hierarchy_beside_it(tmp_path):
    root, images = _dataset(tmp_path)
    q101, *_, q102 = iter_questions(root / "answers_and_bboxes" / "test.json")
    obs = observation_for(q101, images)
    assert obs.size == (W, H) and obs.screenshot.size == (W, H), "resized to image_width x image_height"
    assert [e.text for e in obs.tree] == ["", "Humidity", "48%", "Wind", "7 mph"]
    bare = observation_for(q102, images)
    assert len(bare.tree) == 0 and bare.paths["hierarchy"] == "none"


def test_the_lexical_baseline_scored_with_every_metric_hand_computed(tmp_path):
    root, images = _dataset(tmp_path)
    rep = evaluate_qa(QAEvalOptions(data=[root], images_dir=images), agent=create_qa_agent("lexical"))
    by_q = {(r["question_id"], r["question"]): r for r in rep["results"]}
    assert rep["questions"] == 5 and rep["summary"]["scored_uic"] == 4 and rep["summary"]["scored_s"] == 1
    hum = by_q[("101#0", "What is the humidity?")]
    assert hum["answer_text"] == "48%" and set(hum["scores"].values()) == {1.0}
    assert set(by_q[("101#1", "What is the pollen count?")]["scores"].values()) == {1.0}, "no answer, rightly"
    # two-element truth [48%, 7 mph]; the baseline answers one: "Humidity" anchors, "48%" beside it
    both = by_q[("101#2", "Humidity and wind?")]["scores"]
    assert both["sqa_uic_em"] == 0 and both["sqa_uic_f1"] == pytest.approx(2 / 3)  # P 1, R 1/2
    assert both["sqa_uic_bb_f1"] == pytest.approx(2 / 3) and both["ndcg_v"] == pytest.approx(1 / (1 + 1 / 1.5849625))
    alone = by_q[("102#3", "What is the humidity?")]  # the screenshot alone: the baseline reads no pixels
    assert alone["answer_text"] == "<no answer>" and set(alone["scores"].values()) == {0.0}
    wind = by_q[("short_answers/test.json:101#0", "How windy is it?")]["scores"]  # 101#0 is taken: named by file
    assert wind == {"sqa_s_em": 0.0, "sqa_s_f1": 0.0}  # "windy" is no word of the screen: no answer
    s = rep["summary"]
    assert s["sqa_uic_f1"] == pytest.approx((1 + 1 + 2 / 3 + 0) / 4) and s["sqa_s_f1"] == 0.0


def test_a_missing_screenshot_names_the_file_record_and_image_id_or_is_skipped_and_counted(tmp_path):
    root, images = _dataset(tmp_path)
    (images / "102.png").unlink()
    data = root / "answers_and_bboxes" / "test.json"
    with pytest.raises(EvalError) as ei:
        evaluate_qa(QAEvalOptions(data=data, images_dir=images), agent=create_qa_agent("lexical"))
    msg = str(ei.value)
    assert str(data) in msg and "record 3" in msg and "image_id 102" in msg and "\n" not in msg
    rep = evaluate_qa(QAEvalOptions(data=data, images_dir=images, skip_bad=True), agent=create_qa_agent("lexical"))
    assert rep["skipped"] == 1 and rep["summary"]["scored"] == 3


def test_real_short_answers_scored_from_a_predictions_file(tmp_path):
    """The 50 real unanswerable validation questions: predicting "<no answer>" scores 1 on each (every one has
    "<no answer>" among its ground truths); predicting a real answer of the other questions' kind scores 0."""
    qs = list(iter_questions(F.SCREENQA_NO_ANSWER))
    preds = tmp_path / "p.jsonl"
    lines = [{"image_id": q.image_id, "question": q.question, "answer": None} for q in qs[:40]]
    lines += [{"image_id": q.image_id, "question": q.question, "answer": "certainly not this"} for q in qs[40:49]]
    preds.write_text("\n".join(json.dumps(x) for x in lines), encoding="utf-8")
    rep = evaluate_qa(QAEvalOptions(data=F.SCREENQA_NO_ANSWER), predictions=preds)
    assert rep["questions"] == 50 and rep["missing"] == 1 and rep["summary"]["scored_s"] == 49
    assert rep["summary"]["sqa_s_em"] == pytest.approx(40 / 49)


def test_predictions_files_are_checked_line_by_line(tmp_path):
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"image_id": 5, "question": "q", "ui_elements": [{"bounds": [1, 2]}]}\n', encoding="utf-8")
    with pytest.raises(EvalError, match=r"bad.jsonl:1: \"ui_elements\[0\].bounds\""):
        evaluate_qa(QAEvalOptions(data=F.SCREENQA_NO_ANSWER), predictions=bad)


def test_the_eval_command_with_the_baseline_and_bad_input(tmp_path):
    root, images = _dataset(tmp_path)
    out = tmp_path / "figures.json"
    r = CliRunner().invoke(
        app,
        [
            "eval",
            "--dataset",
            "screenqa",
            "--data",
            str(root / "answers_and_bboxes"),
            "--data",
            str(root / "short_answers"),
            "--images-dir",
            str(images),
            "--qa-agent",
            "lexical",
            "--json",
            str(out),
        ],
        env={"COLUMNS": "200"},
    )
    assert r.exit_code == 0, r.output
    assert "SQA-UIC-BB F1@IoU" in r.output and "SQA-S F1" in r.output and "5 questions" in r.output
    assert json.loads(out.read_text())["summary"]["scored"] == 5
    (images / "102.png").unlink()
    bad = CliRunner().invoke(
        app,
        [
            "eval",
            "--dataset",
            "screenqa",
            "--data",
            str(root / "answers_and_bboxes"),
            "--images-dir",
            str(images),
            "--qa-agent",
            "lexical",
        ],
        env={"COLUMNS": "400"},
    )
    assert bad.exit_code == 2 and "image_id 102" in bad.output and len(bad.output.strip().splitlines()) == 1
    both = CliRunner().invoke(app, ["eval", "--dataset", "screenqa", "--data", str(root), "--agent", "random"])
    assert both.exit_code == 2 and "--qa-agent" in both.output


def test_the_eval_command_with_the_openai_qa_agent_in_a_location_format(tmp_path):
    from tests.openai_stub import OpenAIStub

    root, images = _dataset(tmp_path)

    def model(body):  # agentcpm-style [0, 1000] boxes: "48%" is (500, 50)-(1000, 100)
        q = body["messages"][1]["content"][0]["text"]
        if "pollen" in q or "windy" in q:
            return '{"thought": "not shown", "STATUS": "impossible"}'
        return '{"thought": "right of Humidity", "answer": "48%", "BOX": [[500, 50, 1000, 100]]}'

    out = tmp_path / "figures.json"
    with OpenAIStub(handler=model) as stub:
        r = CliRunner().invoke(
            app,
            [
                "eval",
                "--dataset",
                "screenqa",
                "--data",
                str(root / "answers_and_bboxes"),
                "--images-dir",
                str(images),
                "--qa-agent",
                "openai",
                "--model",
                "stub",
                "--base-url",
                stub.url,
                "--output-format",
                "agentcpm",
                "--json",
                str(out),
            ],
            env={"COLUMNS": "200", "OPENAI_API_KEY": "sk-test-offline-0123456789abcdef"},
        )
    assert r.exit_code == 0, r.output
    res = {(x["question_id"]): x for x in json.loads(out.read_text())["results"]}
    assert set(res["101#0"]["scores"].values()) == {1.0}
    # the screenshot alone (no hierarchy): the box itself, with the short answer, matches the truth by IoU 1
    assert res["102#3"]["answer_elements"] == [[[500, 100, 1000, 200], "48%"]]
    assert set(res["102#3"]["scores"].values()) == {1.0}
    assert "sk-test-offline" not in out.read_text()


def test_eval_records_a_qa_run_directory_with_the_same_report_as_live_qa(tmp_path):
    from harness.trajectory.reader import load_run

    (tmp_path / "data").mkdir()
    root, images = _dataset(tmp_path / "data")
    run_dir = tmp_path / "runs" / "offline"
    res = CliRunner().invoke(
        app,
        [
            "eval",
            "--dataset",
            "screenqa",
            "--data",
            str(root),
            "--images-dir",
            str(images),
            "--qa-agent",
            "lexical",
            "--run-dir",
            str(run_dir),
        ],
        env={"COLUMNS": "200"},
    )
    assert res.exit_code == 0, res.output
    run = load_run(run_dir)
    assert run.kind == "qa" and len(run.episodes) == 5
    hum = run.episode("101#0", "en")
    assert hum.meta is not None and hum.meta.qa is not None and hum.meta.qa.scores["sqa_uic_f1"] == 1.0
    assert len(hum.steps) == 1 and hum.steps[0].agent.action["type"] == "ANSWER", "the screen asked about"
    wind = run.episode("short_answers/test.json:101#0", "en")
    assert (
        wind.meta is not None
        and wind.meta.status == "failed"
        and wind.meta.qa.scores == {"sqa_s_em": 0.0, "sqa_s_f1": 0.0}
    )
    summary = json.loads((run_dir / "summary.json").read_text())
    assert summary["exit_code"] == 0
    page = (run_dir / "report.html").read_text(encoding="utf-8")
    assert "Humidity and wind?" in page and "data:image/" in page, "the QA section with its screenshots"
    again = CliRunner().invoke(
        app,
        [
            "eval",
            "--dataset",
            "screenqa",
            "--data",
            str(root),
            "--images-dir",
            str(images),
            "--qa-agent",
            "lexical",
            "--run-dir",
            str(run_dir),
        ],
    )
    assert again.exit_code == 2 and "exists" in again.output and "Traceback" not in again.output


def test_a_qa_agent_that_raises_offline_is_scored_as_no_answer_with_its_error(tmp_path):
    root, images = _dataset(tmp_path)

    class Broken:
        name = "broken"

        def answer(self, observation, question, lang):
            raise RuntimeError("model crashed")

    rep = evaluate_qa(QAEvalOptions(data=[root / "answers_and_bboxes"], images_dir=images), agent=Broken())
    assert rep["questions"] == 4 and rep["errors"] == 4
    assert all(r["answer_text"] == "<no answer>" and r["agent_error"] for r in rep["results"])
    assert all("RuntimeError: model crashed" in r["error"] for r in rep["results"])
    pollen = next(r for r in rep["results"] if r["question"] == "What is the pollen count?")
    assert set(pollen["scores"].values()) == {1.0}, "no answer to an unanswerable question is right"
