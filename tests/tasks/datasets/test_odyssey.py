"""GUI Odyssey loader in both vocabularies, written by the test."""

from __future__ import annotations

import json

import pytest

from harness.actions import Back, Click, Complete, Enter, Home, Impossible, LongPress, Recent, Swipe, TypeText, Wait
from tasks.datasets import DatasetError, LoadStats, odyssey
from tasks.datasets.convert import action_fields, from_unified, to_unified
from tests import dataset_fixtures as F


@pytest.fixture(params=["v1", "v2"])
def root(request, tmp_path):
    return F.write_odyssey(tmp_path / request.param, request.param), request.param


def _load(root, **kw):
    r, _vocab = root
    return list(odyssey.iter_episodes(r / "annotations", split_file=r / "splits" / "random_split.json", **kw))


def test_episode_and_split(root):
    (ep,) = _load(root)
    vocab = root[1]
    assert ep.episode_id == f"odyssey_{vocab}_ep" and ep.meta["split"] == "test" and ep.meta["vocab"] == vocab
    assert ep.instruction.startswith("Use DuckDuckGo") and ep.meta["category"] == "Multi_Apps"
    assert ep.meta["device_info"]["device_name"] == "Pixel 8 Pro"
    assert all((s.width, s.height) == (27, 60) for s in ep.steps)
    assert ep.steps[4].image().size == (27, 60)
    train = list(
        odyssey.iter_episodes(
            root[0] / "annotations", split_file=root[0] / "splits" / "random_split.json", split="train"
        )
    )
    assert [e.episode_id for e in train] == [f"odyssey_{vocab}_ep_train"]
    assert len(list(odyssey.iter_episodes(root[0] / "annotations"))) == 2


def test_actions_both_vocabularies(root):
    (ep,) = _load(root)
    a = [s.action for s in ep.steps]
    # [0, 1000] x first -> normalized
    assert a[0] == Click(point=(0.54, 1.0)) and a[1] == Click(point=(0.12, 0.333))
    assert a[2] == Click(point=(0.01, 0.02))  # first point of the pair
    assert a[3] == LongPress(point=(0.0, 0.999))
    assert isinstance(a[4], Swipe) and a[4].direction == "up" and (a[4].start.y, a[4].end.y) == (0.8, 0.2)
    assert a[5].direction == "left"
    assert a[6] == TypeText(text="New York Fashion Week 日程")
    assert a[7:] == [Home(), Back(), Recent(), Home(), Impossible(), Complete()]


def test_v2_fields_in_extras(root):
    (ep,) = _load(root)
    s = ep.steps[0]
    if root[1] == "v1":
        assert "sam2_bbox" not in s.extras and "low_level_instruction" not in s.extras
        return
    assert s.extras["low_level_instruction"] == "do step 0"
    assert s.extras["sam2_bbox"] == [490, 960, 590, 1000]
    # [490, 960, 590, 1000] / 1000 on 27 x 60: l round(13.23)=13, t round(57.6)=58, r round(15.93)=16, b 60
    assert s.extras["sam2_bbox_px"] == (13, 58, 16, 60)
    assert ep.steps[4].extras["ps"].startswith("[[500, 800]")


def test_round_trip_every_record(root):
    (ep,) = _load(root)
    vocab = root[1]
    lossy = {
        1: "single CLICK point written as a pair",
        2: "second CLICK point differs",
        10: "HOME action name written as CLICK KEY_HOME",
    }
    for s in ep.steps:
        assert to_unified("odyssey", s.raw) == s.action
        assert from_unified("odyssey", s.action, s.raw) == s.raw
        canon = from_unified("odyssey", s.action, vocab=vocab)
        assert to_unified("odyssey", canon) == s.action
        if s.index in lossy:
            assert canon != action_fields("odyssey", s.raw), lossy[s.index]
        else:
            assert canon == action_fields("odyssey", s.raw)
    # the vocabulary is detected from a template
    # a v1 CLICK step does not reveal its vocabulary (v2 default); a v2 one does (its v2-only fields)
    assert from_unified("odyssey", TypeText(text="x"), ep.steps[0].raw)["action"] == "TEXT"
    assert from_unified("odyssey", TypeText(text="x"), ep.steps[6].raw)["action"] == (
        "TEXT" if vocab == "v2" else "TYPE"
    )


@pytest.mark.parametrize("action", [Enter(), Wait(duration=2)])
def test_unrepresentable(action):
    with pytest.raises(DatasetError, match=action.type):
        from_unified("odyssey", action)


def test_errors_name_file_episode_step_field(tmp_path):
    r = F.write_odyssey(tmp_path, "v2")
    path = r / "annotations" / "odyssey_v2_ep.json"
    data = json.loads(path.read_text())
    data["steps"][3]["info"] = [[1200, 5]]
    path.write_text(json.dumps(data))
    with pytest.raises(DatasetError) as ei:
        list(odyssey.iter_episodes(r / "annotations"))
    msg = str(ei.value)
    for part in (str(path), "episode odyssey_v2_ep", "step 3", "'info[0]'", "1000"):
        assert part in msg
    stats = LoadStats()
    assert [e.episode_id for e in odyssey.iter_episodes(r / "annotations", skip_bad=True, stats=stats)] == [
        "odyssey_v2_ep_train"
    ]
    assert stats.bad_episodes == 1
    data["steps"][3]["info"] = [[10, 5]]
    data["steps"][5]["action"] = "FLING"
    path.write_text(json.dumps(data))
    with pytest.raises(DatasetError, match=r"step 5.*'action'.*FLING"):
        list(odyssey.iter_episodes(r / "annotations"))
    del data["device_info"]["w"]
    path.write_text(json.dumps(data))
    with pytest.raises(DatasetError, match=r"device_info"):
        list(odyssey.iter_episodes(r / "annotations"))


def test_load_stats_count_each_yielded_episode_once(root):
    stats = LoadStats()
    eps = list(_load(root, stats=stats))
    assert stats.episodes == len(eps) and stats.records == sum(len(e.steps) for e in eps)
    assert stats.files == len(eps) and stats.bad_episodes == 0
