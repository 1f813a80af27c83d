"""Device preparation for reproducible runs (harness/device/prepare.py), through the real adb server to the virtual
device: every setting is set and read back with the device's own commands, refusals are recorded with the
device's words, restore puts a device's own values back, and a run's manifest.json and report.html show it."""

from __future__ import annotations

import json
from datetime import datetime, timezone

import pytest

from emulator.virtual.shell import cmd_system
from harness.device.preparation import KEPT, NOT_SET, SET, DevicePreparation, PreparationPlan
from harness.device.prepare import prepare, reapply, restore, set_airplane
from harness.errors import ConfigError, DeviceError
from harness.report.render import write_report
from harness.run.fleet.pool import DevicePool
from harness.run.loop.start import prepare_start
from harness.run.orchestration.suite import SuiteOptions, run_suite
from harness.trajectory.reader import load_run
from tasks.schema import StartState
from tests.device_util import open_device
from tests.run_util import FAST_WRITER

DATE = datetime(2024, 10, 15, 9, 30, tzinfo=timezone.utc)


@pytest.fixture
def dev(adb_server, vdevice):
    d = open_device(adb_server, vdevice, use_u2=False)
    yield d
    d.close()


def sh(adb_cli, serial: str, line: str) -> str:
    r = adb_cli("-s", serial, "shell", line)
    return (r.stdout + r.stderr).decode().strip()


def test_prepare_sets_every_setting_and_reads_it_back_through_adb(dev, vdevice, adb_cli):
    plan = PreparationPlan(time_zone="Asia/Shanghai", date=DATE, night_mode="yes")
    rec = prepare(dev, plan)
    get = lambda line: sh(adb_cli, vdevice.serial, line)  # noqa: E731 - a short reader
    for key in ("window_animation_scale", "transition_animation_scale", "animator_duration_scale"):
        assert get(f"settings get global {key}") == "0"
        assert rec.setting(f"global:{key}").status == SET
        assert rec.setting(f"global:{key}").previous == "1.0"
    assert get("settings get global stay_on_while_plugged_in") == "7"
    assert "mStayOn=true" in get("dumpsys power")
    assert get("getprop persist.sys.timezone") == "Asia/Shanghai"
    assert get("settings get global auto_time_zone") == "0"
    assert get("settings get system time_12_24") == "24"
    assert get("settings get secure show_ime_with_hard_keyboard") == "1"
    assert get("cmd connectivity airplane-mode") == "disabled"
    assert get("cmd uimode night") == "Night mode: yes"
    assert get("settings get secure ui_night_mode") == "2"
    assert get("settings get global heads_up_notifications_enabled") == "0"
    assert get("settings get system font_scale") == "1.0"
    assert abs(int(get("date +%s")) - DATE.timestamp()) < 10
    assert get("date +%Z") == "CST"  # the clock shown in the device's zone
    assert rec.setting("date").method.startswith("cmd alarm set-time")
    assert rec.setting("time_zone").previous == "America/Los_Angeles"
    assert rec.setting("screen").status == SET
    # what is only recorded
    assert rec.setting("ime").status == KEPT
    assert rec.setting("ime").value == get("settings get secure default_input_method")
    assert rec.setting("locale").status == KEPT and rec.setting("locale").value == "en-US"
    assert not rec.not_set, [(r.name, r.reason) for r in rec.not_set]
    # the record survives JSON
    again = DevicePreparation.from_json(json.loads(json.dumps(rec.to_json())))
    assert again == rec


def test_restore_puts_the_devices_own_values_back(dev, vdevice, adb_cli):
    get = lambda line: sh(adb_cli, vdevice.serial, line)  # noqa: E731
    assert get("settings get system time_12_24") == "null"
    rec = prepare(dev, PreparationPlan(night_mode="yes", date=DATE))
    assert get("settings get global window_animation_scale") == "0"
    problems = restore(dev, rec)
    assert problems == []
    assert get("settings get global window_animation_scale") == "1.0"
    assert get("getprop persist.sys.timezone") == "America/Los_Angeles"
    assert get("settings get global auto_time_zone") == "1"
    assert get("settings get system time_12_24") == "null"  # it was unset: deleted again
    assert get("cmd uimode night") == "Night mode: no"
    assert get("settings get global stay_on_while_plugged_in") == "0"
    assert get("settings get global auto_time") == "1"  # automatic time on again: the clock resyncs
    assert abs(int(get("date +%s")) - datetime.now(timezone.utc).timestamp()) < 10


def test_a_refused_setting_is_recorded_with_the_devices_answer(dev, vdevice, adb_cli):
    """The harness' IME asked for is not installed (uiautomator2's AdbKeyboard without its app): not set, with
    the device's own error; the rest of the plan is still applied."""
    rec = prepare(dev, PreparationPlan(ime="com.github.uiautomator/.AdbKeyboard"))
    ime = rec.setting("ime")
    assert ime.status == NOT_SET
    assert "Unknown input method com.github.uiautomator/.AdbKeyboard cannot be enabled" in ime.reason
    assert ime.value == ime.previous  # the device's own IME stays
    assert rec.setting("global:window_animation_scale").status == SET
    assert restore(dev, rec) == []  # nothing to undo for what was not set


def test_a_date_the_shell_cannot_set_is_recorded_not_set(dev, vdevice, adb_cli):
    """On a device whose shell cannot move the clock (no `cmd alarm set-time`: here the alarm service is
    missing, as on releases before Android 9; not root; no su) the date is recorded as not set with every answer."""
    alarm = cmd_system.SERVICE_SHELLS.pop("alarm")
    try:
        rec = prepare(dev, PreparationPlan(date=DATE, time_zone=None))
    finally:
        cmd_system.SERVICE_SHELLS["alarm"] = alarm
    date = rec.setting("date")
    assert date.status == NOT_SET
    assert "cmd: Can't find service: alarm" in date.reason
    assert "date: cannot set date: Operation not permitted" in date.reason
    assert "su" in date.reason and "not found" in date.reason
    assert abs(datetime.fromisoformat(date.value).timestamp() - datetime.now(timezone.utc).timestamp()) < 10


def test_reapply_after_a_reset_and_airplane_per_task(dev, vdevice, adb_cli):
    get = lambda line: sh(adb_cli, vdevice.serial, line)  # noqa: E731
    baseline = vdevice.model.snapshot()
    rec = prepare(dev, PreparationPlan(date=DATE))
    vdevice.model.restore(baseline)  # a reset to the boot state undoes the settings
    assert get("settings get global window_animation_scale") == "1.0"
    reapply(dev, rec)
    assert get("settings get global window_animation_scale") == "0"
    assert abs(int(get("date +%s")) - DATE.timestamp()) < 10  # each episode starts at the planned instant
    # as the pool reapplies it: on the kept shell, no stream opened
    vdevice.model.restore(baseline)
    dev.link.kept_shell("open it", "true")
    mark = vdevice.model.events.mark()
    reapply(dev, rec, dev.quick_shell)
    assert not vdevice.model.events.since(mark, "service"), "no adb stream"
    assert get("settings get global window_animation_scale") == "0"
    # a task's start state turns airplane mode on through `cmd connectivity airplane-mode`
    prepare_start(dev, StartState(airplane=True))
    assert get("settings get global airplane_mode_on") == "1"
    assert get("cmd connectivity airplane-mode") == "enabled"
    set_airplane(dev, False)
    assert get("settings get global airplane_mode_on") == "0"


def test_airplane_on_a_device_without_the_command_raises_naming_the_device(dev, vdevice):
    conn = cmd_system.SERVICE_SHELLS.pop("connectivity")
    try:
        with pytest.raises(
            DeviceError, match=rf"device {vdevice.serial}: cannot turn airplane mode on: .*connectivity"
        ):
            set_airplane(dev, True)
    finally:
        cmd_system.SERVICE_SHELLS["connectivity"] = conn


def test_bad_plans_are_config_errors():
    with pytest.raises(ConfigError, match="time_zone 'Mars Base'"):
        PreparationPlan(time_zone="Mars Base")
    with pytest.raises(ConfigError, match="has no time zone"):
        PreparationPlan(date=datetime(2024, 1, 1))
    with pytest.raises(ConfigError, match="night_mode"):
        PreparationPlan(night_mode="sometimes")


def test_stored_preparations_that_are_malformed_raise_valueerror():
    with pytest.raises(ValueError, match="settings list"):
        DevicePreparation.from_json({"settings": "x"})
    with pytest.raises(ValueError, match="status"):
        DevicePreparation.from_json({"settings": [{"name": "a", "status": "maybe"}]})


# --- a run: the manifest and the report show each device's preparation ---------------------------------------
def test_a_runs_manifest_and_report_show_each_devices_preparation(tmp_path):
    plan = PreparationPlan(date=DATE)
    with DevicePool(2, isolation="thread", preparation=plan) as pool:
        opts = SuiteOptions(
            writer=FAST_WRITER,
            task_ids=("settings-dark-theme", "clock-world-time"),
            agent="reference",
            langs=("en",),
            devices=2,
            out=tmp_path,
            run_id="prep",
        )
        run_suite(opts, pool=pool)
        serials = [pool.serial_of(i) for i in range(2)]
    run = load_run(tmp_path / "prep")
    preps = run.manifest.preparations()
    assert [p.serial for p in preps if p is not None] == serials
    for p in preps:
        assert p is not None
        assert p.setting("global:window_animation_scale").status == SET
        assert p.setting("date").status == SET
    raw = json.loads((tmp_path / "prep" / "manifest.json").read_text())
    assert raw["devices"][0]["preparation"]["settings"][0]["name"] == "screen"
    html = write_report(tmp_path / "prep").read_text()
    assert "Device preparation" in html
    assert "global:window_animation_scale" in html and "cmd alarm set-time" in html


def test_values_are_read_from_listings_and_key_by_key_when_a_listing_does_not_parse(dev, vdevice, adb_cli):
    """The values before and after come from one `settings list` per namespace and one `getprop`; a listing
    that does not parse (here a global setting whose value holds a newline) is asked key by key instead, and
    the record is the same."""
    get = lambda line: sh(adb_cli, vdevice.serial, line)  # noqa: E731
    assert adb_cli("-s", vdevice.serial, "shell", "settings put global window_animation_scale 0.5").returncode == 0
    calls: list[list[str]] = []
    shell = dev.shell
    dev.shell = lambda argv: calls.append(list(argv)) or shell(argv)  # counts the round trips
    try:
        prepare(dev, PreparationPlan())
        assert len(calls) == 3, "values before, every first way, values after"
        vdevice.model.settings["global"]["droidharness_note"] = "two\nlines"  # as an app can store it
        calls.clear()
        adb_cli("-s", vdevice.serial, "shell", "settings put global window_animation_scale 0.5")
        rec = prepare(dev, PreparationPlan())
        assert len(calls) == 5, "global's values asked key by key, before and after"
    finally:
        vdevice.model.settings["global"].pop("droidharness_note", None)
        dev.shell = shell
    win = rec.setting("global:window_animation_scale")
    assert (win.status, win.previous, win.value) == (SET, "0.5", "0")
    assert rec.setting("secure:show_ime_with_hard_keyboard").status == SET  # secure's listing parsed
    assert rec.setting("time_zone").previous == "UTC"  # from the getprop listing (the first prepare set it)
    assert rec.setting("locale").value == "en-US"
    assert get("settings get global window_animation_scale") == "0"
