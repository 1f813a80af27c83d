"""`droidharness qa collect` (issue 15, item 7): a scripted session on the embedded virtual device through the
real adb server collects three questions (one element, two ordered elements, no answer); the export loads back
through the ScreenQA loader, scores 1.0 on every metric against itself, and `eval --dataset screenqa` runs the
lexical baseline on it."""

from __future__ import annotations

import json

from PIL import Image
from typer.testing import CliRunner

from harness import actions as A
from harness.cli.main import app
from harness.eval.qa_offline import QAEvalOptions, evaluate_qa
from tasks.datasets.screenqa import iter_questions
from tests.device_util import open_device

WEATHER = "com.droidharness.weather"


def _weather_indices(adb_server, vd) -> dict[str, int]:
    with open_device(adb_server, vd) as dev:
        _, obs = dev.step(A.OpenApp(package=WEATHER), dev.observe())
        rid = {e.resource_id.rsplit("/", 1)[-1]: e.index for e in obs.tree if e.resource_id}
        sat = next(e for e in obs.tree if e.content_desc.startswith("Sat,"))
        high, low = sat.children[-2], sat.children[-1]
        assert obs.tree[rid["humidity"]].text == "48%" and obs.tree[high].text == "68°" and obs.tree[low].text == "54°"
        return {"humidity": rid["humidity"], "sat_high": high, "sat_low": low}


def test_a_scripted_collect_session_exports_a_screenqa_dataset_that_scores_itself_1(adb_server, vdevice, tmp_path):
    idx = _weather_indices(adb_server, vdevice)
    out = tmp_path / "collected"
    script = (
        "\n".join(
            [
                "home",
                "open Weather",
                "tap 9999",  # not on the screen: said, and the session goes on
                "frobnicate",  # not a command
                "q What is the humidity?",
                "999",  # not an element of this screen: asked again
                str(idx["humidity"]),
                "",  # the default short answer: the element's text
                "q What are the high and low on Saturday?",
                f"{idx['sat_high']} {idx['sat_low']}",  # ordered: high first
                "68° and 54°",
                "q What is the pollen count?",
                "none",
                "",
                "done",
            ]
        )
        + "\n"
    )
    r = CliRunner().invoke(
        app, ["qa", "collect", "--device", vdevice.serial, "--out", str(out)], input=script, env={"COLUMNS": "200"}
    )
    assert r.exit_code == 0, r.output
    assert "3 question(s) collected" in r.output
    assert "unknown command" in r.output and "give element numbers of this screen" in r.output
    assert f"│ {idx['humidity']}" in r.output, "the numbered element list"
    assert Image.open(out / "overlay.png").size == Image.open(out / "images" / "1.png").size

    bb = json.loads((out / "answers_and_bboxes" / "test.json").read_text(encoding="utf-8"))
    assert [x["image_id"] for x in bb] == [1, 1, 1], "one screen, three questions"
    two = bb[1]["ground_truth"][0]
    assert [e["text"] for e in two["ui_elements"]] == ["68°", "54°"] and two["full_answer"] == "68° and 54°"
    assert [e["vh_index"] for e in two["ui_elements"]] == [idx["sat_high"], idx["sat_low"]]
    assert bb[2]["ground_truth"] == [{"full_answer": "", "ui_elements": []}]
    short = json.loads((out / "short_answers" / "test.json").read_text(encoding="utf-8"))
    assert [s["ground_truth"] for s in short] == [["48%"], ["68° and 54°"], ["<no answer>"]]
    assert "<hierarchy" in (out / "images" / "1.xml").read_text(encoding="utf-8")

    qs = list(iter_questions(out / "answers_and_bboxes", images_dir=out / "images"))
    assert [q.question for q in qs] == [
        "What is the humidity?",
        "What are the high and low on Saturday?",
        "What is the pollen count?",
    ]
    assert qs[0].image_path == str(out / "images" / "1.png") and not qs[2].answerable
    w, h = Image.open(qs[0].image_path).size
    assert (qs[0].image_width, qs[0].image_height) == (w, h)
    assert qs[1].answers[0].elements[0].bounds == tuple(two["ui_elements"][0]["bounds"])

    # the ground truth as the prediction scores 1.0 on every metric (both kinds of file)
    preds = tmp_path / "self.jsonl"
    lines = [
        {
            "image_id": x["image_id"],
            "question": x["question"],
            "answer": x["ground_truth"][0]["full_answer"] or None,
            "ui_elements": x["ground_truth"][0]["ui_elements"],
        }
        for x in bb
    ]
    preds.write_text("\n".join(json.dumps(x, ensure_ascii=False) for x in lines), encoding="utf-8")
    rep = evaluate_qa(QAEvalOptions(data=[out / "answers_and_bboxes", out / "short_answers"]), predictions=preds)
    s = rep["summary"]
    assert s["scored_uic"] == 3 and s["scored_s"] == 3 and rep["missing"] == 0
    figures = {k: v for k, v in s.items() if not k.startswith("scored")}
    assert len(figures) == 9 and set(figures.values()) == {1.0}, figures

    # and the lexical baseline runs on it offline (screenshots + hierarchies written by collect)
    figs = tmp_path / "lexical.json"
    ev = CliRunner().invoke(
        app,
        [
            "eval",
            "--dataset",
            "screenqa",
            "--data",
            str(out / "answers_and_bboxes"),
            "--data",
            str(out / "short_answers"),
            "--images-dir",
            str(out / "images"),
            "--qa-agent",
            "lexical",
            "--json",
            str(figs),
        ],
        env={"COLUMNS": "200"},
    )
    assert ev.exit_code == 0, ev.output
    res = json.loads(figs.read_text(encoding="utf-8"))["results"]
    assert res[0]["answer_text"] == "48%" and res[0]["scores"]["sqa_uic_bb_f1"] == 1.0
    assert res[2]["answer_text"] == "<no answer>" and res[2]["scores"]["sqa_uic_f1"] == 1.0


def test_collect_appends_to_an_existing_dataset_and_refuses_bad_options(adb_server, vdevice, tmp_path):
    out = tmp_path / "d"
    for n in (1, 2):
        r = CliRunner().invoke(
            app,
            ["qa", "collect", "--device", vdevice.serial, "--out", str(out)],
            input="q Which app is this?\nnone\n\n",
            env={"COLUMNS": "200"},
        )
        assert r.exit_code == 0, r.output
        assert [x["image_id"] for x in json.loads((out / "short_answers" / "test.json").read_text())] == list(
            range(1, n + 1)
        )
    bad = CliRunner().invoke(app, ["qa", "collect", "--out", str(out), "--lang", "fr"])
    assert bad.exit_code == 2 and "fr" in bad.output
