"""Recovery and fallbacks: a killed uiautomator2 server and a dropped transport are recovered transparently; a
device that stays offline gives a typed DeviceError naming the serial and the operation; without uiautomator2
the capture falls back to raw screencap and `uiautomator dump` with the same content; malformed XML is a
typed error."""

from __future__ import annotations

import threading

import pytest

from harness import actions as A
from harness.device.capture import hierarchy_dump, hierarchy_part
from harness.device.fastadb import FastAdbDevice, exec_out, shell_v2
from harness.device.link import DeviceLostError
from harness.errors import DeviceError, HierarchyError
from tests.device_util import TRICKLE, open_device
from tests.fake_clock import FakeClock

NOTES = "com.droidharness.notes"


@pytest.fixture
def open_dev(adb_server, make_vdevice):
    opened = []

    def make(vd_kwargs: dict | None = None, **cfg):
        vd = make_vdevice(**(vd_kwargs or {}))
        dev = open_device(adb_server, vd, **cfg)
        opened.append(dev)
        return vd, dev

    yield make
    for dev in opened:
        dev.close()


def _u2_starts(vd) -> int:
    return len([e for e in vd.model.events.all("u2_server") if e["action"] == "start"])


def test_killed_u2_server_is_relaunched_by_observe_and_execute(open_dev):
    vd, dev = open_dev()
    starts = _u2_starts(vd)
    vd.faults.kill_u2()
    obs = dev.observe()
    assert obs.paths["screenshot"] == "u2" and obs.paths["hierarchy"] == "u2"
    assert obs.screenshot.size == vd.model.display_size and obs.tree.find(text="Notes")
    assert _u2_starts(vd) == starts + 1 and "u2" in dev.capabilities
    vd.faults.kill_u2()
    notes = obs.tree.find(text="Notes")[0]
    res = dev.execute(A.Click(element=notes.index), observation=obs)
    assert res.ok and res.path == "u2" and vd.model.foreground.package == NOTES
    assert _u2_starts(vd) == starts + 2


def test_dropped_transport_is_reconnected_transparently(open_dev):
    vd, dev = open_dev()
    dev.observe()
    starts = _u2_starts(vd)
    vd.faults.drop_transport()
    # the server died with its terminal at once: a fresh transport's first ping cannot reach it, nor a relaunch
    # find it still registered (the harness then trusted a server about to go and fell back to shell paths)
    assert not vd.model.u2_running and 9008 not in vd.model.ports
    obs = dev.observe()
    assert obs.paths["screenshot"] == "u2" and obs.tree.find(text="Notes")
    assert _u2_starts(vd) == starts + 1  # the server died with the transport and was relaunched
    vd.faults.drop_transport()
    res = dev.execute(A.OpenApp(package=NOTES))
    assert res.ok and vd.model.foreground.package == NOTES
    vd.faults.drop_transport()
    res = dev.execute(A.Home())
    assert res.ok and vd.model.foreground.package == "com.google.android.apps.nexuslauncher"


def test_offline_device_raises_a_typed_error_naming_serial_and_operation(open_dev):
    vd, dev = open_dev(reconnect_timeout=1.0)
    vd.faults.go_offline()
    with pytest.raises(DeviceLostError) as err:
        dev.observe()
    msg = str(err.value)
    assert vd.serial in msg and "observe" in msg and "did not come back" in msg
    assert isinstance(err.value, DeviceError)
    with pytest.raises(DeviceError) as err2:
        dev.execute(A.Back(), step=5)
    assert vd.serial in str(err2.value) and "step 5: BACK" in str(err2.value)


def test_a_call_past_its_deadline_is_a_device_error(open_dev):
    vd, dev = open_dev(call_timeout=0.5)
    vd.faults.slow_down(extra_seconds=1.5)
    try:
        with pytest.raises(DeviceError) as err:
            dev.execute(A.Home(), step=3)
        msg = str(err.value)
        assert vd.serial in msg and "step 3: HOME" in msg and "did not finish within 0.5 s" in msg
    finally:
        vd.faults.slow_down(1.0, 0.0)


@pytest.mark.parametrize("profile,rotation", [("medium_phone", 0), ("pixel_7_pro", 1)])
def test_without_u2_the_capture_falls_back_with_the_same_content(open_dev, profile, rotation):
    vd, dev = open_dev({"profile": profile}, use_u2=False)
    vd.model.set_rotation(rotation)
    assert "u2" not in dev.capabilities and {"screencap_raw", "uiautomator_dump"} <= dev.capabilities
    mark = vd.model.events.mark()
    obs = dev.observe()
    assert obs.paths["screenshot"] == "screencap_raw" and obs.paths["hierarchy"] == "uiautomator_dump"
    assert obs.size == obs.screenshot.size == vd.model.display_size and obs.rotation == rotation
    assert obs.screenshot.tobytes() == vd.model.screenshot().convert("RGB").tobytes()  # raw = lossless
    assert obs.tree.find(text="Notes") and obs.package == "com.google.android.apps.nexuslauncher"
    assert not [e for e in vd.model.events.since(mark, "u2_rpc")]
    notes = obs.tree.find(text="Notes")[0]
    res = dev.execute(A.Click(element=notes.index), observation=obs)
    assert res.ok and res.path == "input" and vd.model.foreground.package == NOTES


def test_u2_that_cannot_be_relaunched_falls_back_and_says_so(open_dev):
    vd, dev = open_dev()
    assert dev.observe().paths["screenshot"] == "u2"
    vd.faults.kill_u2()
    vd.model.ports[9008] = lambda stream: stream.close()  # something else holds the port: relaunch fails
    try:
        obs = dev.observe()
        assert obs.paths["screenshot"] == "screencap_raw" and obs.paths["hierarchy"] == "uiautomator_dump"
        assert "u2" not in dev.capabilities
        assert any("u2 failed" in f for f in obs.fallbacks)
        assert obs.screenshot.size == vd.model.display_size and obs.tree.find(text="Notes")
        res = dev.execute(A.Click(element=obs.tree.find(text="Notes")[0].index), observation=obs)
        assert res.ok and res.path == "input" and vd.model.foreground.package == NOTES
    finally:
        vd.model.ports.pop(9008, None)


def test_malformed_xml_falls_through_then_is_a_typed_error(open_dev):
    vd, dev = open_dev()
    bad = ("u2", lambda link: "<hierarchy rotation='0'><node bounds='[0,0][1,1]'")
    part = hierarchy_part(dev.link, chain=[bad, ("uiautomator_dump", hierarchy_dump)])
    assert part.path == "uiautomator_dump" and part.value[1].find(text="Notes")
    assert part.failures and "not well-formed" in part.failures[0]
    with pytest.raises(HierarchyError) as err:
        hierarchy_part(dev.link, chain=[bad, ("uiautomator_dump", lambda link: "<html/>")])
    msg = str(err.value)
    assert vd.serial in msg and "malformed" in msg and "<html>" in msg


def test_a_command_that_keeps_printing_still_ends_at_its_deadline(adb_server, vdevice):
    """The deadline bounds the whole call, not each read: output that trickles in (a device streaming a log)
    cannot stretch a 0.5 s call to the 2 s the command runs. Measured on a clock the test drives: 0.05 s a read,
    the deadline passes at the 11th; the call reads it before every receive, so it ends there (a TimeoutError,
    the command still printing) - not at the command's end (which would return its output)."""
    fast = FastAdbDevice(adb_server.client, vdevice.serial)
    assert shell_v2(fast, TRICKLE, timeout=5.0).stdout.split()[-1] == b"20"  # the command does run to its end
    for call in (shell_v2, exec_out):
        clock = FakeClock(tick=0.05)
        with pytest.raises(TimeoutError):
            call(fast, TRICKLE, timeout=0.5, clock=clock)
        assert clock.reads <= 11  # it stopped at the first read past its deadline, if not before


def test_a_guarded_call_times_out_in_the_callers_thread(open_dev, monkeypatch):
    """`Link.guard` runs the call where it is made (no worker thread to hand it to and to leave behind): the
    timed-out call is a DeviceError naming the operation and its deadline, and the link keeps working. The link's
    clock stands still while it connects, then moves 0.05 s a read: each 0.5 s attempt ends by its 11th read."""
    clock = FakeClock()
    vd, dev = open_dev(call_timeout=5.0, clock=clock)
    callers: list[str] = []
    original = dev.link.adb.open_transport

    def spy(*args, **kwargs):
        callers.append(threading.current_thread().name)
        return original(*args, **kwargs)

    monkeypatch.setattr(dev.link.adb, "open_transport", spy)
    clock.tick = 0.05
    with pytest.raises(DeviceError) as err:
        dev.link.shell("probe: trickle", TRICKLE, timeout=0.5)
    msg = str(err.value)
    assert "probe: trickle did not finish within 0.5 s" in msg and vd.serial in msg
    assert msg.count("did not finish within 0.5 s") == 2  # both attempts ended at their deadline, the recovery between
    assert callers and set(callers) == {threading.current_thread().name}
    assert dev.link.shell("probe: echo", "echo ok").text == "ok\n"
