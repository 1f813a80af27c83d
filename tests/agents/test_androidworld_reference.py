"""The reference agent on AndroidWorld's instances (`Task.outside`), without AndroidWorld: each solver played on the
virtual device from an instance's parameters, and the state read back where AndroidWorld's judge reads it (a
setting, the screen the episode ends on, a contact, a sent SMS, the clipboard) - through the real adb server's shell
where the judge asks the shell."""

from __future__ import annotations

from typing import Any

import pytest

from agents import androidworld_reference as awr
from emulator.virtual.apps.contacts import contacts_of
from emulator.virtual.model import VirtualDeviceModel
from harness.plugins import create_agent
from tests.agents_helpers import make_task, observe, run

CLASSES = {
    # what the reference agent solves on the embedded device (the others end with IMPOSSIBLE)
    "SystemWifiTurnOn",
    "SystemWifiTurnOff",
    "SystemWifiTurnOnVerify",
    "SystemWifiTurnOffVerify",
    "SystemBluetoothTurnOn",
    "SystemBluetoothTurnOff",
    "SystemBluetoothTurnOnVerify",
    "SystemBluetoothTurnOffVerify",
    "SystemBrightnessMin",
    "SystemBrightnessMax",
    "SystemBrightnessMinVerify",
    "SystemBrightnessMaxVerify",
    "TurnOffWifiAndTurnOnBluetooth",
    "TurnOnWifiAndOpenApp",
    "OpenAppTaskEval",
    "ClockStopWatchRunning",
    "ClockStopWatchPausedVerify",
    "ClockTimerEntry",
    "ContactsAddContact",
    "ContactsNewContactDraft",
    "SimpleSmsSend",
    "SimpleSmsReply",
    "SimpleSmsReplyMostRecent",
    "SimpleSmsResend",
    "SimpleSmsSendReceivedAddress",
    "SimpleSmsSendClipboardContent",
    "SystemCopyToClipboard",
}


def aw_task(cls: str, **params: Any) -> Any:
    return make_task(f"AndroidWorld {cls}", outside={"suite": "androidworld", "class": cls, "params": params})


def play(m: VirtualDeviceModel, cls: str, max_steps: int = 10, **params: Any) -> list[Any]:
    """The episode of `cls` on `m` within AndroidWorld's budget (10 steps a unit of complexity); it ends COMPLETE
    with no invalid step."""
    steps = run(create_agent("reference"), m, aw_task(cls, **params), max_steps=max_steps)
    assert steps[-1].action.type == "COMPLETE", [s.action for s in steps]
    assert not any(s.invalid for s in steps), [s.error for s in steps if s.invalid]
    return steps


def test_the_solved_classes_and_a_class_without_a_solver_says_impossible_at_once() -> None:
    assert CLASSES <= set(awr.SOLVERS)  # and each app's module adds its own (tests/agents/test_aw_*.py)
    steps = run(create_agent("reference"), VirtualDeviceModel(), aw_task("BrowserMaze"))
    assert [s.action.type for s in steps] == ["IMPOSSIBLE"]
    assert "BrowserMaze" in (steps[0].action.reason or "")
    assert awr.plan({"suite": "other", "class": "SystemWifiTurnOn"}) is None


@pytest.mark.parametrize(("cls", "start", "want"), [("SystemWifiTurnOn", "0", "1"), ("SystemWifiTurnOff", "1", "0")])
def test_wifi_is_switched_as_asked(cls: str, start: str, want: str) -> None:
    m = VirtualDeviceModel()
    m.settings["global"]["wifi_on"] = start
    play(m, cls, on_or_off="on" if want == "1" else "off")
    assert m.settings["global"]["wifi_on"] == want


@pytest.mark.parametrize("on", [True, False])
def test_a_verify_class_leaves_a_switch_that_is_already_right(on: bool) -> None:
    """Wi-Fi already as asked: the row is not clicked (a click would turn it the wrong way)."""
    m = VirtualDeviceModel()
    m.settings["global"]["wifi_on"] = "1" if on else "0"
    steps = play(m, "SystemWifiTurnOnVerify" if on else "SystemWifiTurnOffVerify", on_or_off="on" if on else "off")
    assert [s.action.type for s in steps] == ["OPEN_APP", "CLICK", "COMPLETE"]
    assert m.settings["global"]["wifi_on"] == ("1" if on else "0")


@pytest.mark.parametrize(
    ("cls", "start", "want"), [("SystemBluetoothTurnOn", "0", "1"), ("SystemBluetoothTurnOff", "1", "0")]
)
def test_bluetooth_is_switched_as_asked(cls: str, start: str, want: str) -> None:
    m = VirtualDeviceModel()
    m.settings["global"]["bluetooth_on"] = start
    play(m, cls, on_or_off="on" if want == "1" else "off")
    assert m.settings["global"]["bluetooth_on"] == want


@pytest.mark.parametrize(
    ("cls", "start", "want"), [("SystemBrightnessMin", "255", "1"), ("SystemBrightnessMax", "1", "255")]
)
def test_brightness_is_dragged_to_the_end_of_the_slider(cls: str, start: str, want: str) -> None:
    m = VirtualDeviceModel()
    m.settings["system"]["screen_brightness"] = start
    steps = play(m, cls, max_or_min="min" if want == "1" else "max")
    assert [s.action.type for s in steps] == ["OPEN_APP", "CLICK", "SWIPE", "COMPLETE"]
    assert m.settings["system"]["screen_brightness"] == want


def test_wifi_off_then_bluetooth_on() -> None:
    m = VirtualDeviceModel()
    m.settings["global"].update(wifi_on="1", bluetooth_on="0")
    play(m, "TurnOffWifiAndTurnOnBluetooth", max_steps=20)
    assert (m.settings["global"]["wifi_on"], m.settings["global"]["bluetooth_on"]) == ("0", "1")


@pytest.mark.parametrize(("app", "package"), [("dialer", "com.google.android.dialer"), ("clock", awr.CLOCK[1])])
def test_wifi_on_then_the_named_app_in_front(app: str, package: str) -> None:
    m = VirtualDeviceModel()
    m.settings["global"]["wifi_on"] = "0"
    play(m, "TurnOnWifiAndOpenApp", max_steps=20, app_name=app)
    assert m.settings["global"]["wifi_on"] == "1" and m.foreground.package == package


@pytest.mark.parametrize("app", ["clock", "contacts", "settings", "dialer"])
def test_open_app_puts_the_drawn_app_in_front(app: str) -> None:
    m = VirtualDeviceModel()
    play(m, "OpenAppTaskEval", app_name=app)
    assert m.foreground.package == awr.APPS[app][1]


def _descs(m: VirtualDeviceModel) -> list[str]:
    return [e.content_desc for e in observe(m).tree.visible()]


def test_the_stopwatch_runs_and_the_episode_ends_on_its_screen() -> None:
    """ClockStopWatchRunning's judge: DeskClock in front, Pause and Lap on its screen."""
    m = VirtualDeviceModel()
    play(m, "ClockStopWatchRunning")
    assert "DeskClock" in m.foreground.activity
    assert {"Pause", "Lap"} <= set(_descs(m))


def test_the_paused_stopwatch_is_shown() -> None:
    """ClockStopWatchPausedVerify's judge: Start, and "Stopwatch" at least twice (text or content description)."""
    m = VirtualDeviceModel()
    play(m, "ClockStopWatchPausedVerify")
    tree = observe(m).tree.visible()
    assert "DeskClock" in m.foreground.activity and "Start" in _descs(m)
    assert sum((e.text == "Stopwatch") + (e.content_desc == "Stopwatch") for e in tree) >= 2


@pytest.mark.parametrize(("h", "mi", "s"), [(0, 16, 35), (23, 59, 59), (0, 0, 7), (5, 0, 0)])
def test_the_timer_shows_the_duration_and_is_not_started(h: int, mi: int, s: int) -> None:
    """ClockTimerEntry's judge: "HHh MMm SSs" on DeskClock's screen; within its 10 steps (23:59:59: 9)."""
    m = VirtualDeviceModel()
    play(m, "ClockTimerEntry", hours=h, minutes=mi, seconds=s)
    texts = [e.text for e in observe(m).tree.visible()]
    assert "DeskClock" in m.foreground.activity and f"{h:02d}h {mi:02d}m {s:02d}s" in texts
    assert "Pause" not in _descs(m)


def _sh(adb_cli: Any, serial: str, line: str) -> str:
    r = adb_cli("-s", serial, "shell", line)
    assert r.returncode == 0, r.stderr
    out = r.stdout
    return out.decode() if isinstance(out, bytes) else str(out)


def _draft_shown(m: VirtualDeviceModel, first: str, last: str, phone: str, label: str) -> bool:
    """ContactsNewContactDraft's judge (`_contact_info_is_entered`) on the screen: the first name with the hint
    "First name", the last name with "Last name", the phone's digits with "Phone", and the label as a text whose
    content description is "<label> Phone" (or, failing that, as a text just below the phone field)."""
    digits = "".join(ch for ch in phone if ch.isdigit())
    tree = observe(m).tree.visible()
    hits = {
        "first": any(e.text == first and e.hint == "First name" for e in tree),
        "last": any(e.text == last and e.hint == "Last name" for e in tree),
        "phone": any("".join(ch for ch in e.text if ch.isdigit()) == digits and e.hint == "Phone" for e in tree),
    }
    phones = [e for e in tree if e.hint == "Phone"]
    described = any(e.text == label and e.content_desc == f"{label} Phone" for e in tree)
    below = any(
        e.text == label and p.bounds[3] <= e.bounds[1] <= p.bounds[3] + (p.bounds[3] - p.bounds[1])
        for e in tree
        for p in phones
    )
    return all(hits.values()) and (described or below)


@pytest.mark.parametrize("label", ["Home", "Work", "Other", "Gym"])
def test_the_new_contact_form_is_filled_with_the_label_and_left_unsaved(label: str) -> None:
    """ContactsNewContactDraft: within its 12 steps, the episode ends on the filled "Create contact" form with the
    phone's label picked from the Spinner's menu (a label it lacks typed as a custom one) - and no contact saved."""
    m = VirtualDeviceModel()
    before = len(contacts_of(m))
    params = {"first": "Hannah", "last": "Clark", "phone": "462-771-3208", "phone_label": label}
    assert not _draft_shown(m, "Hannah", "Clark", "462-771-3208", label)
    steps = play(m, "ContactsNewContactDraft", max_steps=12, **params)
    assert [s.action.type for s in steps][-3:-1] == (["CLICK", "CLICK"] if label != "Gym" else ["TYPE", "CLICK"])
    assert m.foreground.activity.endswith("ContactEditorActivity")
    assert _draft_shown(m, "Hannah", "Clark", "462-771-3208", label)
    assert not _draft_shown(m, "Hannah", "Clark", "462-771-3208", "Mobile")  # the label was changed
    assert len(contacts_of(m)) == before  # not saved


def test_the_noop_agent_leaves_no_draft() -> None:
    m = VirtualDeviceModel()
    run(
        create_agent("noop"),
        m,
        aw_task("ContactsNewContactDraft", first="Eva", last="Lee", phone="1", phone_label="Work"),
    )
    assert not _draft_shown(m, "Eva", "Lee", "1", "Work")


def test_settings_and_a_contact_read_back_through_the_real_adb_server(vdevice: Any, adb_cli: Any) -> None:
    """On the embedded device the harness runs: what AndroidWorld's judges read with `settings get` and the
    contacts provider after the episodes."""
    m = vdevice.model
    m.settings["global"]["wifi_on"] = "0"
    play(m, "SystemWifiTurnOn", on_or_off="on")
    assert _sh(adb_cli, vdevice.serial, "settings get global wifi_on").strip() == "1"
    m.settings["system"]["screen_brightness"] = "255"
    play(m, "SystemBrightnessMin", max_or_min="min")
    assert _sh(adb_cli, vdevice.serial, "settings get system screen_brightness").strip() == "1"
    play(m, "ContactsAddContact", name="Hugo Pereira", number="+13920741751")
    out = _sh(
        adb_cli, vdevice.serial, "content query --uri content://contacts/phones/ --projection display_name:number"
    )
    assert "display_name=Hugo Pereira" in out and "+13920741751" in out.replace("-", "").replace(" ", "")
    name = "content query --uri content://com.android.contacts/data --projection display_name:data2:data3"
    rows = _sh(adb_cli, vdevice.serial, name + " --where \"mimetype='vnd.android.cursor.item/name'\"")
    assert "display_name=Hugo Pereira, data2=Hugo, data3=Pereira" in rows  # typed as First name + Last name


@pytest.mark.parametrize("cls", ["SimpleSmsSend", "SimpleSmsReply", "SimpleSmsSendClipboardContent"])
def test_an_sms_is_sent_to_the_number_with_the_app_in_front(vdevice: Any, adb_cli: Any, cls: str) -> None:
    """The SMS classes' judge: a sent row of the number and body in `content://sms/sent`, Simple SMS Messenger in
    front. The app asks for the SMS role first here (a fresh device): granted on the way. The clipboard class pastes
    what is on the clipboard (not typed from the parameters: a different clipboard would be sent)."""
    m = vdevice.model
    if awr.SMS[1] not in m.packages:  # the twin lands in emulator/virtual/apps (smsmessenger*)
        pytest.skip("Simple SMS Messenger is not installed on the virtual device")
    message = "Inconceivable!"
    if cls == "SimpleSmsSendClipboardContent":
        m.clipboard = message
    steps = play(m, cls, max_steps=12, number="+17620559636", message="typed, not pasted" if m.clipboard else message)
    assert [s.action.type for s in steps][-2:] == ["CLICK", "COMPLETE"]
    assert m.foreground.package == awr.SMS[1]
    sent = _sh(adb_cli, vdevice.serial, "content query --uri content://sms/sent --projection address:body")
    assert "address=+17620559636" in sent and f"body={message}" in sent, sent


def test_a_text_is_copied_to_the_clipboard() -> None:
    m = VirtualDeviceModel()
    m.clipboard = "~~~RESET~~~"
    play(m, "SystemCopyToClipboard", clipboard_content="Tracking #: 5K672F4C")
    assert m.clipboard == "Tracking #: 5K672F4C"
