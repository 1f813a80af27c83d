"""`droidharness tasks record`: a scripted demonstration becomes a task that the reference agent solves, a
do-nothing agent scores 0 on, and that checks the state the demonstration changed; a demonstration that changes
nothing is rejected with the reason; a person's element-index actions become locators."""

from __future__ import annotations

import io
import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from rich.console import Console
from typer.testing import CliRunner

from agents.human import HumanAgent
from agents.noop import NoOpAgent
from agents.reference import ReferenceAgent
from harness.actions import Click
from harness.cli.main import app
from harness.run.authoring.record_task import (
    RecordError,
    StateSnapshot,
    parse_settings_list,
    propose,
    prove,
    record,
    reference_step,
    state_changes,
    steps_agent,
)
from harness.run.fleet.pool import DevicePool
from harness.run.loop.episode import Limits, run_episode
from tasks.schema import load_task

pytestmark = pytest.mark.integration

runner = CliRunner()
SMS_STEPS = [
    {"type": "OPEN_APP", "name": "Messages"},
    {"type": "CLICK", "locate": {"text": "Allow"}},
    {"type": "CLICK", "locate": {"text": "Start chat"}},
    {"type": "TYPE", "text": "650-555-0177", "locate": {"resource_id": "recipient_text_view"}, "submit": True},
    {"type": "TYPE", "text": "On my way", "locate": {"resource_id": "compose_message_text"}},
    {"type": "CLICK", "locate": {"resource_id": "send_message_button_icon"}},
]

# the same steps located by resource id (the Chinese screens' texts differ; OPEN_APP has no locator)
ZH_IDS = [None, "permission_allow_button", "start_chat_fab", "recipient_text_view", "compose_message_text"]
ZH_IDS += ["send_message_button_icon"]


@pytest.fixture(scope="module")
def pool() -> Iterator[DevicePool]:
    with DevicePool(1, isolation="in_process") as p:
        yield p


def _steps_file(path: Path, steps: list[dict]) -> Path:
    path.write_text("# a scripted demonstration\n" + "".join(json.dumps(s) + "\n" for s in steps), encoding="utf-8")
    return path


def test_a_recorded_demonstration_is_a_sound_task_with_a_state_check(tmp_path: Path, pool: DevicePool) -> None:
    out = tmp_path / "text-bob.json"
    r = runner.invoke(
        app,
        [
            "tasks", "record", "--app", "Messages", "--instruction", "Text 650-555-0177: On my way",
            "--steps", str(_steps_file(tmp_path / "steps.jsonl", SMS_STEPS)), "--out", str(out),
        ],
    )  # fmt: skip
    assert r.exit_code == 0, r.output
    assert "sound" in r.output and "a do-nothing agent 0%" in r.output
    task = load_task(out)
    assert task.instruction == {"en": "Text 650-555-0177: On my way"} and task.apps == ("@messages",)
    states = [c.check.state for c in task.end_state if c.check is not None and c.check.state is not None]
    assert [s.content.uri for s in states if s.content] == ["content://sms/sent"]  # the state that changed
    row = states[0].content.row
    assert row["address"].digits == "6505550177" and row["body"].equals == "On my way"
    leaves = task.milestones.leaves()
    assert len(leaves) >= 3 and all(m.check.element is None or m.check.element.resource_id is None for m in leaves)
    assert [s["type"] for s in task.model_dump()["reference"]["en"]][:2] == ["OPEN_APP", "CLICK"]
    screens = sorted((tmp_path / "text-bob.json.recording").glob("screen-*.png"))
    assert len(screens) == len(SMS_STEPS) + 2  # the start screen, then one per step (and the final COMPLETE)
    state = json.loads((tmp_path / "text-bob.json.recording" / "state.json").read_text())
    assert not any(r["body"] == "On my way" for r in state["before"]["rows"]["content://sms/sent"])
    assert any(r["body"] == "On my way" for r in state["after"]["rows"]["content://sms/sent"])
    # a second demonstration in Chinese adds the language: instruction, reference, milestone texts, state values
    zh_steps = [{**s, "name": "信息"} if s["type"] == "OPEN_APP" else s for s in SMS_STEPS]
    zh_steps = [{**s, "text": "我在路上"} if s.get("text") == "On my way" else s for s in zh_steps]
    zh_steps = [{**s, "locate": {"resource_id": i}} if i else s for s, i in zip(zh_steps, ZH_IDS, strict=True)]
    r = runner.invoke(
        app,
        [
            "tasks", "record", "--app", "信息", "--lang", "zh", "--instruction", "给650-555-0177发短信：我在路上",
            "--steps", str(_steps_file(tmp_path / "zh.jsonl", zh_steps)), "--out", str(out),
        ],
    )  # fmt: skip
    assert r.exit_code == 0, r.output
    assert "sound in en, zh" in r.output
    task = load_task(out)
    assert set(task.languages) == {"en", "zh"} and set(task.reference) == {"en", "zh"}
    body = next(c.check.state.content.row["body"] for c in task.end_state if c.check and c.check.state)
    assert body.equals == {"en": "On my way", "zh": "我在路上"}
    # the written task, run again on a fresh device: the reference solves it, doing nothing scores 0
    for lang in ("en", "zh"):
        pool.reset(0)
        pool.ensure_locale(0, lang)
        done = run_episode(task, ReferenceAgent(), pool.slot(0), lang, Limits(max_steps=len(SMS_STEPS) + 2))
        assert done.success and done.progress == 1.0, (lang, done.error, done.end_state)
    pool.reset(0)
    idle = run_episode(task, NoOpAgent(), pool.slot(0), "en", Limits(max_steps=2))
    assert idle.progress == 0.0 and not idle.success


def test_a_demonstration_that_changes_nothing_is_rejected(tmp_path: Path, pool: DevicePool) -> None:
    pool.reset(0)
    given = [{"type": "OPEN_APP", "name": "Notes"}]
    rec = record(pool.slot(0), steps_agent(given), "Notes", "look", "en", given=given)
    with pytest.raises(RecordError, match="the demonstration changes nothing"):
        propose(rec, "look", "en", "look")
    out = tmp_path / "nothing.json"
    steps = _steps_file(tmp_path / "s.jsonl", [{"type": "OPEN_APP", "name": "Notes"}, {"type": "HOME"}])
    r = runner.invoke(
        app, ["tasks", "record", "--app", "Notes", "--instruction", "x", "--steps", str(steps), "--out", str(out)]
    )
    assert r.exit_code == 2 and "the demonstration changes nothing" in r.output, r.output
    assert not out.exists()
    bad = _steps_file(tmp_path / "bad.jsonl", [{"locate": {"text": "x"}}])
    r = runner.invoke(
        app, ["tasks", "record", "--app", "Notes", "--instruction", "x", "--steps", str(bad), "--out", str(out)]
    )
    assert r.exit_code == 2 and f"{bad}:2: not a reference step" in r.output, r.output


def test_a_demonstration_at_the_human_prompt_becomes_a_proven_task(pool: DevicePool) -> None:
    """A person picks elements by index at the `human` agent's prompt; the task replays them by text."""
    pool.reset(0)
    dev = pool.slot(0)

    def index(**want: str) -> int:
        tree = dev.observe().tree
        return next(e.index for e in tree if all(getattr(e, k) == v for k, v in want.items()))

    script = iter(
        [
            lambda: "open Notes",
            lambda: f"click {index(content_desc='New note')}",
            lambda: f"type {index(resource_id='com.droidharness.notes:id/note_title_edit')} Dentist",
            lambda: f"type {index(resource_id='com.droidharness.notes:id/note_body_edit')} Thursday at 3 PM",
            lambda: f"click {index(content_desc='Navigate up')}",
            lambda: "done",
        ]
    )
    human = HumanAgent(input_fn=lambda prompt: next(script)(), console=Console(file=io.StringIO()))
    rec = record(dev, human, "Notes", "Write a Dentist note", "en")
    refs = [s.reference for s in rec.steps]
    assert refs[1] == {"type": "CLICK", "locate": {"desc": "New note"}}
    assert all("element" not in r for r in refs)
    proposal = propose(rec, "Write a Dentist note", "en", "dentist")
    # two proposals that cannot prove out: a text no screen shows, and a state that already holds at the start
    ghost = {"id": "ghost", "sub_target": "x", "check": {"package": rec.package, "element": {"text": "Never shown"}}}
    wifi = {"check": {"state": {"settings": {"namespace": "global", "key": "wifi_on", "value": {"equals": "1"}}}}}
    proposal.data["milestones"]["children"].append(ghost)
    proposal.data["end_state"].append(wifi)

    def fresh():
        pool.reset(0)
        return pool.slot(0)

    task, result = prove(proposal, "en", fresh)
    assert result.ok and result.progress == 1.0 and result.idle_progress == 0.0
    final = next(m for m in task.milestones.leaves() if m.id == "final")
    assert {e.text for e in final.check.all_elements} == {"Dentist", "Thursday at 3 PM"}
    assert [c.milestones for c in task.end_state] == [("final",)]  # no provider changed: the last screen
    assert "ghost" not in {m.id for m in task.milestones.leaves()}
    assert any(
        d.startswith("milestone ghost (x): not reached when the demonstration is replayed") for d in proposal.dropped
    )
    assert any(d.startswith("end state ") and d.endswith("holds at the start") for d in proposal.dropped), (
        proposal.dropped
    )


def test_a_persons_element_index_becomes_a_locator(pool: DevicePool) -> None:
    pool.reset(0)
    dev = pool.slot(0)
    dev.launch("com.droidharness.notes")
    obs = dev.observe()
    idx = next(e.index for e in obs.tree if e.text == "Shopping list")
    assert reference_step(Click(element=idx), obs, "en") == {"type": "CLICK", "locate": {"text": "Shopping list"}}


def test_state_changes_propose_checks_for_settings_and_rows() -> None:
    assert parse_settings_list("wifi_on=1\nairplane_mode_on=0\n") == {"wifi_on": "1", "airplane_mode_on": "0"}
    before = StateSnapshot({"secure": {"ui_night_mode": "1"}}, {"content://sms/sent": []})
    after = StateSnapshot(
        {"secure": {"ui_night_mode": "2"}}, {"content://sms/sent": [{"address": "+1 650-555-0102", "body": "Hi"}]}
    )
    checks = [c for _, c in state_changes(before, after)]
    assert checks == [
        {"settings": {"namespace": "secure", "key": "ui_night_mode", "value": {"equals": "2"}}},
        {
            "content": {
                "uri": "content://sms/sent",
                "row": {"address": {"digits": "6505550102"}, "body": {"equals": "Hi", "case_sensitive": True}},
            }
        },
    ]
    assert state_changes(before, before) == []
