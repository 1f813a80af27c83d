"""State checks (issue 20, item 4): a check's `state` read through the device's shell (settings, content providers,
system properties, files), the virtual device's providers consistent with its apps' UI in both directions, and
the bundled tasks that are judged by state.

Parsing and value matching are pure; every device test goes through the session's real adb server to a virtual
device (tests/conftest.py)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from harness.actions import Complete, Home, OpenApp, Scroll
from harness.agent import AgentStep, EpisodeContext
from harness.device.controller import AdbDevice
from harness.device.state import DeviceState, parse_rows
from harness.plugins import create_agent
from harness.run.judge.milestones import MilestoneTracker
from harness.run.judge.state_check import evaluate_state, judge_on, value_matches
from harness.run.loop.episode import Limits, run_episode
from tasks.schema import MilestoneGroup, TaskError, parse_task
from tasks.state_checks import StateCheck, ValueMatch
from tasks.suite import load_suite
from tests.device_util import open_device
from tests.paths import REPO

ROOT = REPO
SUITE = load_suite("virtual")
STATE_TASKS = [
    t
    for t in SUITE
    if any(m.check.state for m in t.milestones.leaves()) or any(c.check and c.check.state for c in t.end_state)
]


# --- parsing `content query` ----------------------------------------------------------------------------------
def test_parse_rows_plain_null_and_no_result() -> None:
    assert parse_rows("Row: 0 _id=1, display_name=Ann, data1=NULL\n") == [
        {"_id": "1", "display_name": "Ann", "data1": None}
    ]
    assert parse_rows("No result found.\n") == []
    assert parse_rows("") == []
    assert parse_rows("Row: 0 label=\n", ("label",)) == [{"label": ""}]


def test_parse_rows_values_with_commas_equals_and_newlines_by_projection() -> None:
    text = "Row: 0 _id=7, body=Hi, it's me=Ann, ok, read=0\nRow: 1 _id=8, body=two\nlines, read=NULL\n"
    assert parse_rows(text, ("_id", "body", "read")) == [
        {"_id": "7", "body": "Hi, it's me=Ann, ok", "read": "0"},
        {"_id": "8", "body": "two\nlines", "read": None},
    ]
    # without a projection a value with "=" but no ", name=" still parses
    assert parse_rows("Row: 0 _id=1, body=a=b, read=1\n") == [{"_id": "1", "body": "a=b", "read": "1"}]


def test_parse_rows_refuses_what_is_not_query_output() -> None:
    with pytest.raises(ValueError, match="not content query output"):
        parse_rows("Error while accessing provider:sms\n")
    with pytest.raises(ValueError, match="no column 'body'"):
        parse_rows("Row: 0 _id=1, text=x\n", ("_id", "body"))


def test_value_matches() -> None:
    vm = ValueMatch.model_validate
    assert value_matches("1.0", vm({"equals": "1"}), "en")
    assert not value_matches("1", vm({"equals": "0"}), "en")
    assert value_matches("+1 650-555-0199", vm({"digits": "650 555 0199"}), "en")
    assert not value_matches("+1 650-555-0198", vm({"digits": "6505550199"}), "en")
    assert value_matches(None, vm({"null": True}), "en") and not value_matches("", vm({"null": True}), "en")
    assert value_matches(None, vm({"not_equals": "1"}), "en") and not value_matches(None, vm({"equals": "1"}), "en")
    assert value_matches("34", vm({"ge": 30, "lt": 40}), "en") and not value_matches("abc", vm({"gt": 1}), "en")
    assert value_matches("Dark", vm({"equals": "dark"}), "en")
    assert not value_matches("Dark", vm({"equals": "dark", "case_sensitive": True}), "en")
    assert value_matches("李娜", vm({"equals": {"en": "Bob", "zh": "李娜"}}), "zh")


# --- the task file: one-line typed errors ------------------------------------------------------------------
def _task(check: dict) -> dict:
    return {
        "id": "t",
        "category": "1-1",
        "instruction": {"en": "x"},
        "milestones": {"children": [{"id": "m", "sub_target": "x", "check": check}]},
    }


@pytest.mark.parametrize(
    "state, says",
    [
        ({}, "a state check needs settings, content, prop, file or sqlite"),
        ({"sqlite": {"path": "/data/x.db", "table": "a b"}}, "state.sqlite.table: String should match pattern"),
        ({"settings": {"namespace": "local", "key": "k", "value": 1}}, "state.settings.namespace"),
        ({"content": {"uri": "sms/inbox"}}, "uri must be content://AUTHORITY"),
        ({"content": {"uri": "content://sms", "row": {"body": {"equal": "x"}}}}, "row.body.equal: Extra inputs"),
        (
            {"content": {"uri": "content://sms", "projection": ["a"], "row": {"b": 1}}},
            "the projection ['a'] leaves out",
        ),
        ({"prop": {"name": "ro.x", "value": {}}}, "a value match needs one of"),
        ({"file": {"path": "etc/hosts"}}, "path must be an absolute device path"),
        ({"file": {"path": "/x", "exists": False, "content": "y"}}, "a file that must not exist"),
        ({"content": {"uri": "content://sms", "row": {"body": {"regex": "("}}}}, "bad regex"),
    ],
)
def test_bad_state_fields_are_one_line_typed_errors(state: dict, says: str) -> None:
    with pytest.raises(TaskError) as e:
        parse_task(_task({"state": state}), "suite/t.json")
    assert says in str(e.value) and "\n" not in str(e.value) and str(e.value).startswith("suite/t.json: ")


def test_tasks_check_names_a_bad_state_field_in_one_line(tmp_path: Path) -> None:
    (tmp_path / "t.json").write_text(json.dumps(_task({"state": {"settings": {"namespace": "global"}}})))
    r = subprocess.run(
        [sys.executable, "-m", "harness", "tasks", "check", str(tmp_path)],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=ROOT,
    )
    assert r.returncode == 2, r.stdout + r.stderr
    out = " ".join(r.stdout.split())
    assert "milestones.children.0.milestone.check.state.settings.key: Field required" in out
    assert "Traceback" not in r.stdout + r.stderr


# --- each kind, true and false, through the real adb server ------------------------------------------------
@pytest.fixture
def device(adb_server, vdevice):
    dev = open_device(adb_server, vdevice, use_u2=False)
    yield dev
    dev.close()


def _judge(device: AdbDevice, state: dict, lang: str = "en"):
    return evaluate_state(StateCheck.model_validate(state), DeviceState(device.shell), lang)


def test_settings_state(device: AdbDevice) -> None:
    assert _judge(device, {"settings": {"namespace": "global", "key": "wifi_on", "value": 1}}).held
    no = _judge(device, {"settings": {"namespace": "secure", "key": "ui_night_mode", "value": 2}})
    assert not no.held and no.reason == "settings secure ui_night_mode is '1', expected equals '2'"
    assert _judge(device, {"settings": {"namespace": "system", "key": "no_such_key", "value": {"null": True}}}).held
    device.put_setting("secure", "ui_night_mode", "2")
    assert _judge(device, {"settings": {"namespace": "secure", "key": "ui_night_mode", "value": 2}}).held


def test_content_state(device: AdbDevice) -> None:
    code = {"content": {"uri": "content://sms/inbox", "row": {"address": "22000", "body": {"contains": "482913"}}}}
    assert _judge(device, code).held
    wrong = {"content": {"uri": "content://sms/inbox", "row": {"body": {"contains": "999999"}}}}
    v = _judge(device, wrong)
    assert not v.held and "content content://sms/inbox: no row with body" in (v.reason or "")
    gone = {"content": {"uri": "content://sms/sent", "where": "address LIKE '%0102'", "exists": False}}
    assert _judge(device, gone).held  # nothing was sent to Bob yet
    bob = {"content": {"uri": "content://com.android.contacts/data/phones", "row": {"display_name": "Bob Smith"}}}
    assert _judge(device, bob).held
    assert not _judge(device, {**bob, "content": {**bob["content"], "exists": False}}).held


def test_prop_and_file_state(device: AdbDevice) -> None:
    assert _judge(device, {"prop": {"name": "ro.build.version.sdk", "value": {"ge": 30}}}).held
    assert not _judge(device, {"prop": {"name": "ro.build.version.sdk", "value": {"lt": 10}}}).held
    assert _judge(device, {"prop": {"name": "no.such.prop", "value": {"null": True}}}).held
    device.shell(["sh", "-c", "echo 'guest: sunflower42' > /sdcard/wifi.txt"])
    assert _judge(device, {"file": {"path": "/sdcard/wifi.txt", "content": {"contains": "sunflower42"}}}).held
    v = _judge(device, {"file": {"path": "/sdcard/wifi.txt", "content": {"contains": "tulip"}}})
    assert not v.held and "file /sdcard/wifi.txt is" in (v.reason or "")
    assert _judge(device, {"file": {"path": "/sdcard/none.txt", "exists": False}}).held
    assert _judge(device, {"file": {"path": "/sdcard/none.txt"}}).reason == "file /sdcard/none.txt does not exist"


def test_unreadable_state_does_not_hold_and_says_why(device: AdbDevice) -> None:
    v = _judge(device, {"content": {"uri": "content://no.such.provider/rows"}})
    assert not v.held and v.unreadable
    assert "Unknown URI content://no.such.provider/rows" in (v.reason or "")
    v = _judge(device, {"content": {"uri": "content://sms/inbox", "projection": ["no_column"]}})
    assert not v.held and v.unreadable and "no such column: no_column" in (v.reason or "")
    # a milestone on unreadable state is not hit, and the reason is kept
    group = MilestoneGroup.model_validate(
        {"children": [{"id": "x", "sub_target": "x", "check": {"state": {"content": {"uri": "content://nope/x"}}}}]}
    )
    tracker = MilestoneTracker(group, "en", state=judge_on(device))
    assert tracker.update(device.observe(), 1) == []
    assert "Unknown URI content://nope/x" in tracker.status()[0]["state_error"]


def test_state_milestones_keep_the_hit_rule(device: AdbDevice) -> None:
    """Ordered: a state leaf counts only after its predecessor; hits latch when the state goes back."""
    group = MilestoneGroup.model_validate(
        {
            "order": "ordered",
            "children": [
                {"id": "home", "sub_target": "x", "check": {"package": "com.droidharness.notes"}},
                {
                    "id": "dark",
                    "sub_target": "x",
                    "check": {"state": {"settings": {"namespace": "secure", "key": "ui_night_mode", "value": 2}}},
                },
            ],
        }
    )
    tracker = MilestoneTracker(group, "en", state=judge_on(device))
    device.put_setting("secure", "ui_night_mode", "2")
    assert tracker.update(device.observe(), 1) == []  # "home" not reached: "dark" cannot count yet
    _, obs = device.step(OpenApp(name="com.droidharness.notes"))
    assert tracker.update(obs, 2) == ["home", "dark"]
    device.put_setting("secure", "ui_night_mode", "1")
    assert tracker.update(device.observe(), 3) == [] and tracker.complete


# --- the apps and their providers, both ways ----------------------------------------------------------------
def test_contact_created_in_the_ui_is_a_provider_row(adb_server, vdevice) -> None:
    task = next(t for t in SUITE if t.id == "contacts-create-exact")
    with open_device(adb_server, vdevice) as dev:
        r = run_episode(task, create_agent("reference"), dev, "en", Limits(max_steps=12))
        assert r.success
        rows = DeviceState(dev.shell).query(
            "content://com.android.contacts/data/phones", ("display_name", "data1"), "data1='+1 415-555-0199'"
        )
    assert rows == [{"display_name": "Olga Petrova", "data1": "+1 415-555-0199"}]


def _texts(dev: AdbDevice) -> set[str]:
    return {e.text for e in dev.observe().tree if e.text}


def test_rows_inserted_through_content_show_in_the_apps(adb_server, vdevice) -> None:
    with open_device(adb_server, vdevice) as dev:
        # a contact: a raw contact, then its name and number
        assert (
            dev.shell(
                [
                    "content",
                    "insert",
                    "--uri",
                    "content://com.android.contacts/raw_contacts",
                    "--bind",
                    "account_type:n:",
                ]
            ).exit_code
            == 0
        )
        (row,) = DeviceState(dev.shell).query(
            "content://com.android.contacts/raw_contacts", ("_id",), "display_name IS NULL"
        )
        rid = row["_id"]
        assert rid is not None
        for mime, value in (("name", "Zoe Quinn"), ("phone_v2", "+1 650-555-0142")):
            argv = ["content", "insert", "--uri", "content://com.android.contacts/data"]
            argv += ["--bind", f"raw_contact_id:i:{rid}", "--bind", f"mimetype:s:vnd.android.cursor.item/{mime}"]
            assert dev.shell([*argv, "--bind", f"data1:s:{value}"]).exit_code == 0
        dev.launch("com.google.android.contacts")
        seen = _texts(dev)
        for _ in range(8):  # the list is A-Z: Zoe is near the end
            if "Zoe Quinn" in seen:
                break
            dev.step(Scroll(direction="down"))
            seen |= _texts(dev)
        assert "Zoe Quinn" in seen
        # a received text: the conversation list shows it
        body = "Parcel at the door, code=7, ok?"
        argv = ["content", "insert", "--uri", "content://sms/inbox", "--bind", "address:s:+1 650-555-0142"]
        assert dev.shell([*argv, "--bind", f"body:s:{body}"]).exit_code == 0
        dev.launch("com.google.android.apps.messaging")
        assert any(body in t for t in _texts(dev) | {e.content_desc for e in dev.observe().tree})
        # an alarm switched off through the provider shows off in the Clock
        assert (
            dev.shell(
                [
                    "content",
                    "update",
                    "--uri",
                    "content://com.android.deskclock/alarms",
                    "--bind",
                    "enabled:i:0",
                    "--where",
                    "_id=1",
                ]
            ).exit_code
            == 0
        )
        dev.launch("com.google.android.deskclock")
        switches = [e for e in dev.observe().tree if e.resource_id.endswith(":id/onoff")]
        assert switches and not any(e.checked for e in switches)


# --- bundled tasks judged by state: the reference solves them, doing nothing scores 0 --------------------------
class DoNothing:
    """HOME, then COMPLETE."""

    name = "do-nothing"

    def reset(self, ctx: EpisodeContext) -> None:
        self.steps = 0

    def act(self, observation, history) -> AgentStep:
        self.steps += 1
        return AgentStep(action=Home() if self.steps == 1 else Complete())


def test_at_least_twelve_bundled_tasks_use_state_checks() -> None:
    assert len(STATE_TASKS) >= 12, [t.id for t in STATE_TASKS]
    kinds = {
        k
        for t in STATE_TASKS
        for c in [m.check for m in t.milestones.leaves()] + [e.check for e in t.end_state if e.check]
        if c.state
        for k in ("settings", "content")
        if getattr(c.state, k)
    }
    assert kinds == {"settings", "content"}


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_do_nothing_scores_zero_on_every_state_task(make_vdevice, adb_server, lang: str) -> None:
    vd = make_vdevice(locale=lang)
    with open_device(adb_server, vd, use_u2=False) as dev:
        for task in STATE_TASKS:
            r = run_episode(task, DoNothing(), dev, lang, Limits(max_steps=3))
            assert (r.progress, r.success) == (0.0, False), (task.id, r.milestones)


@pytest.mark.parametrize("task_id", ["settings-dark-theme", "messages-reply-bob", "clock-delete-all-alarms"])
def test_reference_solves_a_state_task(adb_server, vdevice, task_id: str) -> None:
    task = next(t for t in SUITE if t.id == task_id)
    with open_device(adb_server, vdevice) as dev:
        r = run_episode(task, create_agent("reference"), dev, "en", Limits(max_steps=len(task.reference["en"]) + 2))
        assert (r.progress, r.success) == (1.0, True), (r.milestones, r.end_state)
        # the state checks hold on the device as the reference left it
        state_checks = [c.check.state for c in task.end_state if c.check and c.check.state]
        state_checks += [m.check.state for m in task.milestones.leaves() if m.check.state]
        assert state_checks
        assert all(judge_on(dev)(s, "en").held for s in state_checks)
