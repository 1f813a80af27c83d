"""ScreenQA loader: the REAL short-answer samples (tests/fixtures/screenqa) and generated answers_and_bboxes."""

from __future__ import annotations

import json

import pytest

from tasks.datasets import DatasetError, LoadStats, open_dataset, screenqa
from tasks.datasets.base import iter_json_array
from tests import dataset_fixtures as F


def test_real_short_answers():
    qs = list(screenqa.iter_questions(F.SCREENQA_SHORT))
    assert len(qs) == 300 and all(q.kind == "short_answers" for q in qs)
    q0 = qs[0]
    assert q0.image_id == "5" and q0.question == "How many exercises in total are there to do?"
    assert q0.short_answers == ("a total of 12 exercises", "12", "12 exercises", "12 exercises in total")
    assert q0.answerable and q0.index == 0 and q0.source == str(F.SCREENQA_SHORT)
    assert [q.question for q in qs] == [r["question"] for r in json.loads(F.SCREENQA_SHORT.read_text())]


def test_real_no_answer_cases():
    qs = list(screenqa.iter_questions(F.SCREENQA_NO_ANSWER))
    assert len(qs) == 50
    assert all(screenqa.NO_ANSWER in q.short_answers for q in qs)
    assert not qs[0].answerable  # ground truth is only "<no answer>"
    assert qs[1].answerable  # "<no answer>" among real answers


def test_directory_and_dispatcher():
    stats = LoadStats()
    assert len(list(open_dataset("screenqa", F.SCREENQA_DIR, stats=stats))) == 350
    assert stats.files == 2 and stats.records == 350


def test_answers_and_bboxes(tmp_path):
    p = F.write_screenqa_bboxes(tmp_path / "test.json")
    q, q2 = screenqa.iter_questions(p, images_dir=tmp_path)
    assert q.kind == "answers_and_bboxes" and (q.image_width, q.image_height) == (1080, 1920)
    assert len(q.answers) == 3 and q.answers[0].full_answer == "There are 12 exercises."
    el = q.answers[0].elements[0]
    assert el.text == "12 exercises" and el.bounds == (40, 300, 520, 360) and el.vh_index == 17
    assert el.bbox((1080, 1920)) == (40 / 1080, 300 / 1920, 520 / 1080, 360 / 1920)
    assert q.answers[1].elements[0].vh_index == -1 and q.answers[2].elements == ()
    assert q.answerable and not q2.answerable
    assert q.image_path == str(tmp_path / "5.jpg")


def test_bad_records(tmp_path):
    recs = F.screenqa_bboxes_records()
    recs[1]["ground_truth"][0]["ui_elements"] = [{"text": "x", "bounds": [10, 10, 5, 20], "vh_index": 1}]
    p = tmp_path / "bad.json"
    p.write_text(json.dumps(recs))
    with pytest.raises(DatasetError) as ei:
        list(screenqa.iter_questions(p))
    msg = str(ei.value)
    assert str(p) in msg and "record 1" in msg and "'ground_truth[0].ui_elements[0].bounds'" in msg
    stats = LoadStats()
    assert len(list(screenqa.iter_questions(p, skip_bad=True, stats=stats))) == 1
    assert stats.bad_records == 1 and stats.records == 1
    p.write_text(json.dumps(recs)[:-40])
    with pytest.raises(DatasetError, match="record 1"):
        list(screenqa.iter_questions(p))


@pytest.mark.parametrize("chunk", [1, 7, 64, 1 << 16])
def test_streaming_json_array_matches_json_load(chunk, tmp_path):
    expected = json.loads(F.SCREENQA_NO_ANSWER.read_text())
    got = [item for _, item in iter_json_array(F.SCREENQA_NO_ANSWER, chunk_size=chunk)]
    assert got == expected
    p = tmp_path / "nums.json"
    p.write_text('[12345, 6789 ,\n {"a": [1,2]}, "s]"]')
    assert [v for _, v in iter_json_array(p, chunk_size=2)] == [12345, 6789, {"a": [1, 2]}, "s]"]
    (tmp_path / "empty.json").write_text(" [ ] ")
    assert list(iter_json_array(tmp_path / "empty.json", chunk_size=1)) == []
    (tmp_path / "obj.json").write_text("{}")
    with pytest.raises(DatasetError, match="JSON array"):
        list(iter_json_array(tmp_path / "obj.json"))
