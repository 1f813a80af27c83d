"""Converter round trips (hypothesis) for every dataset, lossy cases, the dispatcher."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from harness import coords
from harness.actions import (
    Answer,
    Back,
    Click,
    Complete,
    Enter,
    Home,
    Impossible,
    LongPress,
    OpenApp,
    Recent,
    Scroll,
    Swipe,
    TypeText,
    Wait,
)
from tasks.datasets import DatasetError, open_dataset
from tasks.datasets.convert import action_fields, from_unified, to_unified

unit = st.floats(0.0, 1.0, allow_nan=False)
f32_unit = unit.map(lambda v: float(np.float32(v)))
# what a device can type (harness.actions.untypeable: no lone surrogates, no control characters but \n and \t)
text = st.text(
    alphabet=st.characters(blacklist_categories=("Cs", "Cc"), whitelist_characters="\n\t"), min_size=1, max_size=30
)


# --- AitW ------------------------------------------------------------------------------------------------
@st.composite
def aitw_records(draw):
    code = draw(st.sampled_from([3, 4, 5, 6, 7, 10, 11]))
    rec = {
        "results/action_type": code,
        "results/yx_touch": [-1.0, -1.0],
        "results/yx_lift": [-1.0, -1.0],
        "results/type_action": "",
    }
    if code == 4:
        rec["results/yx_touch"] = [draw(f32_unit), draw(f32_unit)]
        rec["results/yx_lift"] = [draw(f32_unit), draw(f32_unit)]
    if code == 3:
        rec["results/type_action"] = draw(text)
    return rec


@given(aitw_records())
def test_aitw_record_round_trip(rec):
    action = to_unified("aitw", rec)
    assert from_unified("aitw", action, rec) == rec
    canon = from_unified("aitw", action)
    expected = dict(rec)
    if rec["results/action_type"] == 4:
        touch, lift = rec["results/yx_touch"], rec["results/yx_lift"]
        if math.dist(touch, lift) <= 0.04:
            assert isinstance(action, Click)
            expected["results/yx_lift"] = touch  # documented: a tap's lift drift is lost
        else:
            assert isinstance(action, Swipe)
            # the finger vector is kept, x first in the unified action
            assert (action.start.x, action.start.y, action.end.x, action.end.y) == (
                touch[1],
                touch[0],
                lift[1],
                lift[0],
            )
    assert canon == expected


# --- AgentCPM step family (AndroidLens, AITZ) -------------------------------------------------------------
def _yx(draw):
    return coords.format_yx((draw(unit), draw(unit)))


@st.composite
def agentcpm_records(draw, dialect):
    code = draw(st.sampled_from([0, 1, 3, 4, 5, 6, 7, 10, 11]))
    none = "[-1.0, -1.0]"
    rec = {"result_action_type": code, "result_touch_yx": none, "result_lift_yx": none, "result_action_text": ""}
    if dialect == "androidlens":
        rec["duration"] = None
    if code in (0, 4):
        rec["result_touch_yx"] = _yx(draw)
        rec["result_lift_yx"] = rec["result_touch_yx"] if draw(st.booleans()) else _yx(draw)
    if code in (3,):
        rec["result_action_text"] = draw(text)
    if code in (10, 11):
        rec["result_action_text"] = draw(st.one_of(st.just(""), text))
    if dialect == "androidlens" and code in (1, 4):
        rec["duration"] = draw(st.one_of(st.none(), st.integers(1, 60000)))
    if draw(st.booleans()) and dialect == "androidlens":
        rec = {k: [v] for k, v in rec.items()}  # the card's one-element-list shape
    return rec


@settings(max_examples=300)
@given(agentcpm_records("androidlens"))
def test_androidlens_record_round_trip(rec):
    action = to_unified("androidlens", rec)
    assert from_unified("androidlens", action, rec) == rec
    canon = from_unified("androidlens", action)
    assert to_unified("androidlens", canon) == action
    flat = {k: (v[0] if isinstance(v, list) else v) for k, v in rec.items()}
    got = {k: v[0] for k, v in canon.items()}  # documented: the canonical shape is one-element lists
    if flat["result_action_type"] == 0:  # documented: code 0 -> code 4 with a duration (1000 ms by default)
        assert isinstance(action, LongPress)
        flat.update(result_action_type=4, duration=1000, result_lift_yx=flat["result_touch_yx"])
    elif flat["result_action_type"] == 4 and flat["result_touch_yx"] == flat["result_lift_yx"]:
        assert isinstance(action, LongPress if flat["duration"] is not None else Click)
    elif flat["result_action_type"] == 4:
        assert isinstance(action, Swipe)
    assert got == flat


@settings(max_examples=300)
@given(agentcpm_records("aitz"))
def test_aitz_record_round_trip(rec):
    action = to_unified("aitz", rec)
    assert from_unified("aitz", action, rec) == rec
    canon = from_unified("aitz", action)
    expected = dict(rec)
    if rec["result_action_type"] == 4:
        t, l = coords.parse_yx(rec["result_touch_yx"]), coords.parse_yx(rec["result_lift_yx"])
        if math.dist(t, l) <= 0.04:
            expected["result_lift_yx"] = rec["result_touch_yx"]  # documented tap drift
    if rec["result_action_type"] == 0:
        expected["result_lift_yx"] = rec["result_touch_yx"]  # a long press has one point
    assert canon == expected


# --- Odyssey ---------------------------------------------------------------------------------------------
pt1000 = st.lists(st.integers(0, 1000), min_size=2, max_size=2)


@st.composite
def odyssey_records(draw):
    vocab = draw(st.sampled_from(["v1", "v2"]))
    kind = draw(st.sampled_from(["CLICK", "LONG_PRESS", "SCROLL", "type", "key", "COMPLETE", "impossible"]))
    if kind in ("CLICK", "LONG_PRESS"):
        p = draw(pt1000)
        return vocab, {"action": kind, "info": [p, list(p)]}
    if kind == "SCROLL":
        return vocab, {"action": "SCROLL", "info": [draw(pt1000), draw(pt1000)]}
    if kind == "type":
        return vocab, {"action": "TYPE" if vocab == "v1" else "TEXT", "info": draw(text)}
    if kind == "key":
        keys = ["KEY_HOME", "KEY_BACK", "KEY_RECENT" if vocab == "v1" else "KEY_APPSELECT"]
        return vocab, {"action": "CLICK", "info": draw(st.sampled_from(keys))}
    if kind == "COMPLETE":
        return vocab, {"action": "COMPLETE", "info": ""}
    return vocab, {"action": "IMPOSSIBLE" if vocab == "v1" else "INCOMPLETE", "info": ""}


@given(odyssey_records())
def test_odyssey_record_round_trip(vr):
    vocab, rec = vr
    action = to_unified("odyssey", rec)
    assert from_unified("odyssey", action, rec) == rec
    assert from_unified("odyssey", action, vocab=vocab) == rec  # exact: integer [0, 1000] points


# --- unified -> dataset -> unified -----------------------------------------------------------------------
points = st.builds(lambda x, y: (x, y), unit, unit)


@st.composite
def unified_actions(draw):
    kind = draw(st.sampled_from(["click", "swipe", "type", "keys", "complete", "impossible"]))
    if kind == "click":
        return Click(point=draw(points))
    if kind == "swipe":
        s, e = draw(points), draw(points)
        if math.dist(s, e) <= 0.05:
            e = (1.0 - s[0], 1.0 - s[1]) if math.dist(s, (1.0 - s[0], 1.0 - s[1])) > 0.05 else (0.0, 0.0)
            if math.dist(s, e) <= 0.05:
                e = (1.0, 1.0)
        return Swipe(start=s, end=e)
    if kind == "type":
        return TypeText(text=draw(text))
    if kind == "keys":
        return draw(st.sampled_from([Back(), Home(), Enter()]))
    return Complete() if kind == "complete" else Impossible()


@settings(max_examples=300)
@given(unified_actions())
def test_unified_round_trip_aitw_aitz_androidlens(action):
    for ds in ("aitw", "aitz", "androidlens"):
        assert to_unified(ds, from_unified(ds, action)) == action, ds


@given(st.builds(lambda x, y: (x, y), st.integers(0, 1000), st.integers(0, 1000)))
def test_unified_round_trip_odyssey_on_the_1000_grid(p):
    for action in (Click(point=(p[0] / 1000, p[1] / 1000)), LongPress(point=(p[0] / 1000, p[1] / 1000))):
        assert to_unified("odyssey", from_unified("odyssey", action)) == action


@given(st.floats(0.001, 60.0))
def test_androidlens_durations_survive_within_1e9(seconds):
    for action in (Wait(duration=seconds), LongPress(point=(0.5, 0.5), duration=seconds)):
        back = to_unified("androidlens", from_unified("androidlens", action))
        assert math.isclose(back.duration, action.duration, rel_tol=1e-9, abs_tol=1e-9)


# --- documented lossy and unrepresentable cases ----------------------------------------------------------
def test_aitw_long_press_becomes_a_tap():
    rec = from_unified("aitw", LongPress(point=(0.25, 0.5), duration=2))
    assert action_fields("aitw", rec) == {
        "results/action_type": 4,
        "results/yx_touch": [0.5, 0.25],
        "results/yx_lift": [0.5, 0.25],
        "results/type_action": "",
    }
    assert to_unified("aitw", rec) == Click(point=(0.25, 0.5))


def test_scroll_is_written_as_its_finger_swipe():
    # viewport DOWN = finger UP: touch below lift (y grows downwards)
    rec = from_unified("aitw", Scroll(direction="down"), {"image/width": 100, "image/height": 200})
    assert rec["results/yx_touch"][0] > rec["results/yx_lift"][0]
    assert to_unified("aitw", rec).direction == "up"
    ody = from_unified("odyssey", Scroll(direction="left"))
    assert ody["action"] == "SCROLL" and ody["info"][0][0] < ody["info"][1][0]  # finger moves right


def test_lossy_fields_of_the_unified_side():
    assert to_unified("aitw", from_unified("aitw", Complete(answer="42"))) == Complete()
    assert to_unified("aitw", from_unified("aitw", Swipe(start=(0, 0), end=(1, 1), duration=2))) == Swipe(
        start=(0, 0), end=(1, 1)
    )
    assert to_unified("aitz", from_unified("aitz", Complete(answer="42"))) == Complete(answer="42")
    assert to_unified("androidlens", from_unified("androidlens", TypeText(text="x", submit=True))) == TypeText(text="x")


@pytest.mark.parametrize(
    "ds,action",
    [
        ("aitw", Recent()),
        ("aitw", Wait()),
        ("aitw", OpenApp(name="Clock")),
        ("aitw", Answer(text="x")),
        ("odyssey", Enter()),
        ("odyssey", Wait()),
        ("aitz", Recent()),
        ("androidlens", OpenApp(package="a.b")),
        ("androidlens", Click(element=3)),
    ],
)
def test_unrepresentable_actions_raise(ds, action):
    with pytest.raises(DatasetError):
        from_unified(ds, action)


def test_bad_records_and_names():
    with pytest.raises(DatasetError, match="'results/yx_touch'"):
        to_unified("aitw", {"results/action_type": 4, "results/yx_touch": [2.0, 0.5], "results/yx_lift": [0, 0]})
    with pytest.raises(DatasetError, match="unknown dataset"):
        to_unified("rico", {})
    with pytest.raises(DatasetError, match="unknown dataset"):
        open_dataset("rico", ".")
    assert to_unified("aitw", {"results/action_type": 3, "results/type_action": ""}) is None


def test_open_dataset_dispatches(tmp_path):
    from tests import dataset_fixtures as F

    F.write_aitw_fixture(tmp_path / "s.tfrecord.gz")
    assert [e.episode_id for e in open_dataset("aitw", tmp_path / "s.tfrecord.gz")] == ["1001", "1002", "1003"]
    F.write_odyssey(tmp_path / "ody", "v2")
    assert (
        len(
            list(
                open_dataset(
                    "GUI-Odyssey",
                    tmp_path / "ody" / "annotations",
                    split_file=tmp_path / "ody" / "splits" / "random_split.json",
                )
            )
        )
        == 1
    )
    F.write_androidlens(tmp_path / "lens")
    assert {e.lang for e in open_dataset("androidlens", tmp_path / "lens")} == {"en", "zh"}
    assert len(list(open_dataset("aitz", F.AITZ_DIR))) == 1
