"""AndroidLens folders (en + zh, milestones, PNGs) written by the test; milestones -> Task."""

from __future__ import annotations

import json

import pytest

from harness.actions import Back, Click, Complete, Enter, Home, Impossible, LongPress, Swipe, TypeText, Wait
from tasks.datasets import DatasetError, LoadStats, androidlens, milestones
from tasks.datasets.convert import action_fields, from_unified, to_unified
from tasks.schema import Milestone, MilestoneGroup, parse_task
from tests import dataset_fixtures as F


@pytest.fixture
def root(tmp_path):
    return F.write_androidlens(tmp_path / "AndroidLens")


def _eps(root, **kw):
    return {e.lang: e for e in androidlens.iter_episodes(root, **kw)}


def test_both_languages_and_filter(root):
    eps = _eps(root)
    assert set(eps) == {"en", "zh"}
    assert eps["zh"].instruction == "打开淘宝，搜索“耳机”，并按销量排序"
    assert eps["en"].meta["app"] == ["Google Chrome", "Google Drive"] and eps["en"].meta["types"] == ["1-4"]
    assert set(_eps(root, langs=("zh",))) == {"zh"}
    assert set(_eps(root / "test", langs=("en",))) == {"en"}  # the test/ folder itself works too
    with pytest.raises(DatasetError, match="no language folder"):
        list(androidlens.iter_episodes(root, langs=("fr",)))


def test_steps_images_and_extras(root):
    en = _eps(root)["en"]
    s = en.steps[1]
    assert (s.width, s.height) == (36, 80)
    assert s.image().size == (36, 80) and s.image().getpixel((2, 3)) == F.expected_pixel(2, 3, 1)
    assert s.extras["low_instruction"].startswith("step 1")
    assert s.extras["milestone"]["idx"] == 1


def test_actions(root):
    eps = _eps(root)
    a = [s.action for s in eps["en"].steps]
    assert a[0] == Home()
    assert a[1] == Click(point=(0.31, 0.52))  # "[0.52, 0.31]" is [y, x]
    assert a[2] == TypeText(text="panda") and a[3] == Enter()
    assert a[4] == Swipe(start=(0.5, 0.75), end=(0.5, 0.25), duration=0.4) and a[4].direction == "up"
    assert a[5] == LongPress(point=(0.4, 0.6), duration=1.5)
    assert a[6] == Wait(duration=2.0)
    assert a[7] == Swipe(start=(0.9, 0.1), end=(0.3, 0.1)) and a[7].direction == "left"
    assert a[8] == Back() and a[10] == Complete()
    z = [s.action for s in eps["zh"].steps]
    assert z[0] == LongPress(point=(0.5, 0.4))  # AgentCPM code 0
    assert z[3] == Wait() and z[4] == Impossible(reason="需要登录") and z[5] == Complete(answer="销量最高的是 X")


def test_round_trip_every_record(root):
    for ep in _eps(root).values():
        for s in ep.steps:
            assert to_unified("androidlens", s.raw) == s.action
            assert from_unified("androidlens", s.action, s.raw) == s.raw
            canon = from_unified("androidlens", s.action)
            assert to_unified("androidlens", canon) == s.action
            expected = {k: (v if isinstance(v, list) else [v]) for k, v in action_fields("androidlens", s.raw).items()}
            if ep.lang == "zh" and s.index == 0:  # lossy: AgentCPM code 0 is written as code 4 + 1000 ms
                expected.update(result_action_type=[4], duration=[1000])
            # canonical shape is the card's one-element lists; the zh fixture stores scalars (documented)
            assert canon == expected
            # with a scalar-shaped template the scalar shape is kept even when the action changes
            other = from_unified("androidlens", Home(), s.raw)
            assert isinstance(other["result_action_type"], list) == isinstance(s.raw["result_action_type"], list)


def test_to_task_milestones(root):
    task = _eps(root)["en"].to_task()
    assert task.id == "androidlens-en-en-0001" and task.category == "1-4"
    assert task.instruction == {"en": _eps(root)["en"].instruction}
    root_group = task.milestones
    assert root_group.order == "ordered"
    kids = root_group.children
    assert [k.id for k in kids] == ["m1", "m2", "idx3", "m4"]
    m1, m2, g3, m4 = kids
    assert isinstance(m1, Milestone) and m1.sub_target == {"en": "Open Google Chrome"}
    el = m1.check.element
    assert el is not None
    assert el.text == "Chrome" and el.match == "contains" and not el.case_sensitive
    assert el.bbox == (0.25, 0.45, 0.375, 0.6) and el.bbox_rule == "center"
    assert isinstance(m2, Milestone) and m2.check.element is not None
    assert m2.check.element.states == ("selected",)
    assert isinstance(g3, MilestoneGroup) and g3.order == "unordered"
    assert [m.id for m in g3.children] == ["m3.1", "m3.2"]
    c1, c2 = g3.children
    assert isinstance(c1, Milestone) and c1.check.element is not None and c1.check.element.bbox is None
    assert isinstance(c2, Milestone) and c2.check.element is not None
    assert c2.check.element.states == ("enabled",)  # "sparkly" has no equivalent: dropped...
    assert "unmapped-state:sparkly" in task.tags  # ...and listed
    assert isinstance(m4, Milestone) and m4.check.element is not None
    assert m4.check.element.text is None and m4.check.element.not_states == ("checked",)  # "off"
    # the task is a valid task file
    assert parse_task(json.loads(task.model_dump_json())) == task


def test_to_task_zh(root):
    task = _eps(root)["zh"].to_task()
    assert task.category == "2-2" and set(task.instruction) == {"zh"}
    assert [m.id for m in task.milestones.leaves()] == ["m1", "m2"]
    assert task.milestones.children[1].check.element.states == ("selected",)  # 选中
    assert task.milestones.children[0].sub_target == {"zh": "打开淘宝"}


def test_state_mapping_table():
    pos, neg, unknown = milestones.map_states(["Selected", "long-clickable", "unchecked", "Disabled", "已勾选", "x"])
    assert pos == ("selected", "long_clickable", "checked") and neg == ("checked", "enabled") and unknown == ["x"]


def test_no_milestones_no_task(root):
    p = root / "test" / "en" / "en-0001" / "en-0001.json"
    steps = json.loads(p.read_text())
    for s in steps:
        s["milestone"] = {}
    p.write_text(json.dumps(steps))
    assert _eps(root)["en"].to_task() is None


def test_bad_milestone_and_category(root):
    p = root / "test" / "en" / "en-0001" / "en-0001.json"
    steps = json.loads(p.read_text())
    steps[1]["milestone"]["bbox"] = [0.5, 0.5, 0.4, 0.6]
    p.write_text(json.dumps(steps))
    with pytest.raises(DatasetError, match=r"step 1.*'milestone' \(idx 1\).*bbox"):
        _eps(root)["en"].to_task()
    steps[1]["milestone"]["bbox"] = [0.1, 0.1, 0.4, 0.6]
    for s in steps:
        s["types"] = ["9-9"]
    p.write_text(json.dumps(steps))
    with pytest.raises(DatasetError, match=r"'types'"):
        _eps(root)["en"].to_task()


def test_bad_records_name_file_step_field(root):
    p = root / "test" / "en" / "en-0001" / "en-0001.json"
    steps = json.loads(p.read_text())
    steps[4]["result_touch_yx"] = ["[0.75; 0.5]"]
    p.write_text(json.dumps(steps))
    with pytest.raises(DatasetError) as ei:
        list(androidlens.iter_episodes(root))
    for part in (str(p), "episode en-0001", "step 4", "'result_touch_yx'"):
        assert part in str(ei.value)
    stats = LoadStats()
    assert [e.lang for e in androidlens.iter_episodes(root, skip_bad=True, stats=stats)] == ["zh"]
    assert stats.bad_episodes == 1 and stats.episodes == 1
    steps[4]["result_touch_yx"] = ["[0.75, 0.5]"]
    steps[6]["duration"] = [90000]
    p.write_text(json.dumps(steps))
    with pytest.raises(DatasetError, match=r"step 6.*'duration'.*60 s"):
        list(androidlens.iter_episodes(root))
    steps[6]["duration"] = [2000]
    steps[2]["step_id"] = 7
    p.write_text(json.dumps(steps))
    with pytest.raises(DatasetError, match=r"'step_id'"):
        list(androidlens.iter_episodes(root))
