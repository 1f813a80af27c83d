"""AITZ / AgentCPM step lists, on the REAL sample copied to tests/fixtures/aitz (see tests/fixtures/SOURCES.md)."""

from __future__ import annotations

import json
import shutil

import pytest

from harness.actions import Click, Complete, Home, Swipe
from tasks.datasets import DatasetError, LoadStats, aitz
from tasks.datasets.convert import action_fields, from_unified, to_unified
from tests import dataset_fixtures as F


@pytest.fixture
def episode():
    (ep,) = list(aitz.iter_episodes(F.AITZ_DIR))
    return ep


def test_real_sample_episode(episode):
    assert episode.dataset == "aitz" and episode.episode_id == "523638528775825151"
    assert episode.instruction == 'open app "Clock" (install if not already installed)'
    assert episode.meta["subset"] == "GoogleApps"
    assert len(episode.steps) == 4
    assert all((s.width, s.height) == (270, 600) for s in episode.steps)  # from the PNG headers


def test_real_sample_actions(episode):
    a = [s.action for s in episode.steps]
    assert a[0] == Home() and a[3] == Complete()
    # step 1: touch "[0.541063666343689, 0.5073748230934143]" -> lift "[0.0011156..., 0.5788...]": finger UP
    assert isinstance(a[1], Swipe) and a[1].direction == "up"
    assert a[1].start.x == 0.5073748230934143 and a[1].start.y == 0.541063666343689
    assert a[1].end.y == 0.001115699764341116
    # step 2: touch and lift 0.0017 apart: a tap at the touch point (x first)
    assert a[2] == Click(point=(0.6069772839546204, 0.49836206436157227))


def test_real_sample_ui_boxes_are_pixels(episode):
    s0 = episode.steps[0]
    assert len(s0.elements) == 15
    # ui_positions[0] = [54, 17, 8, 12] is [y, x, h, w] in pixels -> l 17, t 54, r 29, b 62
    assert s0.elements[0].bounds == (17, 54, 29, 62) and s0.elements[0].text == "M" and s0.elements[0].kind == "TEXT"
    assert s0.elements[3].kind == "ICON_GOOGLE"
    assert [len(s.elements) for s in episode.steps] == [
        15,
        14,
        len(json.loads(episode.steps[2].raw["ui_positions"])),
        11,
    ]
    assert all(0 <= e.bounds[2] <= 270 and 0 <= e.bounds[3] <= 600 for s in episode.steps for e in s.elements)


def test_real_sample_images_and_coat_fields(episode):
    img = episode.steps[1].image()
    assert img.size == (270, 600)
    assert episode.steps[0].image_path.endswith("GOOGLE_APPS-523638528775825151_0.png")
    assert episode.steps[0].extras["coat_action_desc"] == "press the home button"
    assert "coat_screen_desc" in episode.steps[0].raw  # kept in raw


def test_round_trip_every_real_record(episode):
    for s in episode.steps:
        assert to_unified("aitz", s.raw) == s.action
        assert from_unified("aitz", s.action, s.raw) == s.raw
        canon = from_unified("aitz", s.action)
        expected = action_fields("aitz", s.raw)
        if s.index == 2:  # the only documented loss: a tap's lift drift
            assert expected["result_lift_yx"] != expected["result_touch_yx"]
            expected["result_lift_yx"] = expected["result_touch_yx"]
        assert canon == expected


# sha256 of the sample as published (tests/fixtures/SOURCES.md): the copy in the repository is unchanged
AITZ_SHA256 = "3b6284d034aacea2f78c5e69286e59d07262bc2373b9840fea372fe0009d8d85"


def test_copied_sample_is_unchanged():
    import hashlib

    assert hashlib.sha256(F.AITZ_JSON.read_bytes()).hexdigest() == AITZ_SHA256


def test_missing_image_and_bad_fields(tmp_path):
    steps = json.loads(F.AITZ_JSON.read_text())
    p = tmp_path / F.AITZ_JSON.name
    p.write_text(json.dumps(steps))
    with pytest.raises(DatasetError, match=r"step 0.*'image_path'.*not found"):
        list(aitz.iter_episodes(p))
    (ep,) = aitz.iter_episodes(p, require_images=False)
    assert ep.steps[0].image_path is None and ep.steps[0].width == 0
    (ep,) = aitz.iter_episodes(p, images_root=tmp_path / "nowhere", require_images=False)
    for k in range(4):
        shutil.copy(F.AITZ_DIR / f"GOOGLE_APPS-523638528775825151_{k}.png", tmp_path)
    steps[2]["ui_positions"] = "[[1, 2, 3]"
    p.write_text(json.dumps(steps))
    with pytest.raises(DatasetError) as ei:
        list(aitz.iter_episodes(p))
    assert str(p) in str(ei.value) and "step 2" in str(ei.value) and "'ui_positions'" in str(ei.value)
    steps[2]["ui_positions"] = "[]"
    steps[2]["ui_text"] = "[]"
    steps[2]["ui_types"] = "[]"
    steps[1]["result_touch_yx"] = "[1.5, 0.2]"
    p.write_text(json.dumps(steps))
    with pytest.raises(DatasetError, match=r"step 1.*'result_touch_yx'"):
        list(aitz.iter_episodes(p))
    stats = LoadStats()
    assert list(aitz.iter_episodes(tmp_path, skip_bad=True, stats=stats)) == []
    assert stats.bad_episodes == 1 and stats.files == 1
