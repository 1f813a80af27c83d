"""The `replay` agent: reference solutions with locators resolved on the live (virtual) screen."""

from __future__ import annotations

import pytest

from agents.reference import ReferenceAgent
from harness.actions import Answer, Click, Complete, Home, OpenApp, TypeText
from harness.agent import AgentError
from harness.errors import ConfigError
from harness.plugins import create_agent
from tests.agents_helpers import VirtualDeviceModel, context, make_task, observe, run

BLUETOOTH = {
    "en": [
        {"type": "OPEN_APP", "name": "Settings"},
        {"type": "CLICK", "locate": {"text": "Connected devices"}},
        {"type": "CLICK", "locate": {"resource_id": "bluetooth_row"}},
    ],
    "zh": [
        {"type": "OPEN_APP", "name": "设置"},
        {"type": "CLICK", "locate": {"text": {"en": "Connected devices", "zh": "已连接的设备"}}},
        {"type": "CLICK", "locate": {"resource_id": "com.android.settings:id/bluetooth_row"}},
    ],
}


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_reference_solution_plays_on_the_virtual_device(lang: str) -> None:
    m = VirtualDeviceModel(locale=lang)
    task = make_task({"en": "Turn on Bluetooth", "zh": "开启蓝牙"}, reference=BLUETOOTH)
    steps = run(create_agent("reference"), m, task, lang=lang)
    assert [s.action.type for s in steps] == ["OPEN_APP", "CLICK", "CLICK", "COMPLETE"]
    assert not any(s.invalid for s in steps)
    assert m.settings["global"]["bluetooth_on"] == "1"
    assert steps[1].meta == {"reference_step": 2, "reference_steps": 3}


def test_under_the_other_system_language_a_step_locates_its_element_as_the_other_solution_does() -> None:
    """An en episode on a device whose system language is zh (`locale=zh-CN`): the en solution's "Connected
    devices" is not on the screen, so step 2 locates its element as the zh solution's step 2 does ("已连接的设备");
    a step whose other-language twin finds nothing either stays an invalid step naming the en locator."""
    m = VirtualDeviceModel()
    m.set_locale("zh", content="en")
    reference = {
        "en": [
            {"type": "OPEN_APP", "name": "Settings", "package": "com.android.settings"},
            {"type": "CLICK", "locate": {"text": "Connected devices"}},
            {"type": "CLICK", "locate": {"resource_id": "bluetooth_row"}},
        ],
        "zh": [
            {"type": "OPEN_APP", "name": "设置", "package": "com.android.settings"},
            {"type": "CLICK", "locate": {"text": "已连接的设备"}},
            {"type": "CLICK", "locate": {"resource_id": "bluetooth_row"}},
        ],
    }
    steps = run(create_agent("reference"), m, make_task(reference=reference), lang="en")
    assert [s.action.type for s in steps] == ["OPEN_APP", "CLICK", "CLICK", "COMPLETE"]
    assert not any(s.invalid for s in steps) and m.settings["global"]["bluetooth_on"] == "1"

    lone = {"en": reference["en"][:2], "zh": [reference["zh"][0], {"type": "CLICK", "locate": {"text": "蓝牙"}}]}
    m2 = VirtualDeviceModel()
    m2.set_locale("zh", content="en")
    bad = run(create_agent("reference"), m2, make_task(reference=lone), lang="en", max_steps=3)[1]
    assert bad.invalid and "text='Connected devices'" in (bad.error or "")
    en_device = VirtualDeviceModel()  # the same en episode on an en device never reads the zh solution
    assert not any(s.invalid for s in run(create_agent("reference"), en_device, make_task(reference=reference)))


def test_locator_resolves_to_the_matching_element_index() -> None:
    m = VirtualDeviceModel()
    m.start_activity("com.android.settings")
    obs = observe(m)
    agent = ReferenceAgent(
        actions=[
            {"type": "CLICK", "locate": {"text": "connected", "match": "contains"}},
            {"type": "LONG_PRESS", "locate": {"class_name": "LinearLayout", "nth": 2}},
        ]
    )
    agent.reset(context(make_task()))
    first = agent.act(obs, [])
    el = obs.tree[first.action.element]
    assert el.text == "Connected devices"
    second = agent.act(obs, [])
    rows = [e.index for e in obs.tree.reading_order() if e.class_name.endswith("LinearLayout")]
    assert second.action.type == "LONG_PRESS" and second.action.element == rows[2]


def test_missing_locator_is_an_invalid_step_naming_step_and_locator() -> None:
    m = VirtualDeviceModel()
    agent = ReferenceAgent(
        actions=[
            Home(),
            {"type": "CLICK", "locate": {"resource_id": "no_such_id"}},
            {"type": "TYPE", "text": "hi", "locate": {"text": "Nothing", "nth": 1}},
        ]
    )
    agent.reset(context(make_task()))
    obs = observe(m)
    assert agent.act(obs, []).action == Home()
    bad = agent.act(obs, [])
    assert bad.invalid and bad.action is None
    assert "reference step 2" in bad.error and "resource_id='no_such_id'" in bad.error
    assert "reference step 3" in agent.act(obs, []).error
    assert agent.act(obs, []).action == Complete()  # the list ran out: COMPLETE


def test_type_with_locator_and_answer_at_the_end() -> None:
    m = VirtualDeviceModel()
    m.start_activity("com.droidharness.notes")
    notes = make_task(
        reference={
            "en": [
                {"type": "CLICK", "locate": {"desc": "New note"}},
                {"type": "TYPE", "text": "Groceries", "locate": {"resource_id": "note_title_edit"}},
                {"type": "ANSWER", "text": "done"},
            ]
        }
    )
    steps = run(ReferenceAgent(), m, notes)
    assert isinstance(steps[1].action, TypeText) and steps[1].action.element is not None
    assert steps[-1].action == Answer(text="done") and len(steps) == 3  # ANSWER ends it; no extra COMPLETE
    assert m.focused_text() == "Groceries"


def test_plain_action_list_and_errors() -> None:
    agent = create_agent("reference", actions=[{"type": "OPEN_APP", "name": "Clock"}, Click(point=[0.5, 0.5])])
    agent.reset(context(make_task()))
    obs = observe(VirtualDeviceModel())
    assert agent.act(obs, []).action == OpenApp(name="Clock")
    assert agent.act(obs, []).action == Click(point=[0.5, 0.5])
    with pytest.raises(ConfigError, match="step 1"):
        ReferenceAgent(actions=[{"type": "JUMP"}])
    with pytest.raises(AgentError, match="no reference solution for language 'zh'"):
        ReferenceAgent().reset(context(make_task({"en": "x", "zh": "y"}, reference={"en": BLUETOOTH["en"]}), "zh"))
    bad = ReferenceAgent(actions=[{"type": "HOME", "locate": {"text": "x"}}])
    bad.reset(context(make_task()))
    assert "cannot have 'locate'" in bad.act(obs, []).error
