"""observe(), device info, connect/close ownership, the client fixes (adbfix), settling and the CLI commands."""

from __future__ import annotations

import socket
import struct
import threading

import pytest

from emulator.virtual import VirtualDevice
from emulator.virtual.adbserver import PrivateAdbServer
from harness import actions as A
from harness.device.capture import parse_focus, parse_raw_screencap
from harness.device.controller import AdbDevice, Device
from harness.device.fastadb import FastAdbDevice, U2Rpc, exec_out, read_to_end, shell_v2
from harness.device.settle import SettleConfig, wait_until_settled
from harness.errors import ConfigError, DeviceError, HierarchyError
from harness.hierarchy import UITree
from tests.device_util import PROFILES, open_device


@pytest.mark.parametrize("profile,rotation", PROFILES)
def test_observe_captures_both_parts_by_the_fastest_path(adb_server, make_vdevice, profile, rotation):
    vd = make_vdevice(profile=profile)
    vd.model.set_rotation(rotation)
    with open_device(adb_server, vd) as dev:
        assert isinstance(dev, Device)
        obs = dev.observe()
        assert obs.size == obs.screenshot.size == vd.model.display_size
        assert obs.rotation == rotation == obs.tree.rotation
        assert obs.paths == {"screenshot": "u2", "hierarchy": "u2", "app": "dumpsys"}
        assert obs.package == "com.google.android.apps.nexuslauncher"
        assert obs.activity == "com.google.android.apps.nexuslauncher.NexusLauncherActivity"
        assert set(obs.timings) == {"screenshot", "hierarchy", "app", "total"}
        assert obs.xml.lstrip().startswith("<?xml") and len(obs.tree) > 5 and obs.fallbacks == ()
        # the JPEG shows the same screen as the device renders (lossy: compare a down-scaled copy)
        mine = obs.screenshot.convert("RGB").resize((27, 60))
        truth = vd.model.screenshot().convert("RGB").resize((27, 60))
        diff = sum(abs(a - b) for a, b in zip(mine.tobytes(), truth.tobytes(), strict=True))
        assert diff / (27 * 60 * 3) < 8


def test_device_info_and_capabilities(adb_server, make_vdevice):
    vd = make_vdevice(profile="pixel_fold", locale="zh")
    with open_device(adb_server, vd) as dev:
        info = dev.info
        assert (info.serial, info.model, info.manufacturer) == (vd.serial, "Pixel Fold", "Google")
        assert info.size == (1840, 2208) and info.density == 420 and info.rotation == 0
        assert info.api_level == 34 and info.release == "14" and info.locale == "zh-CN" and info.state == "device"
        assert (
            info.capabilities
            == dev.capabilities
            == {"u2", "screencap_raw", "screencap_png", "uiautomator_dump", "shell_v2", "kept_shell"}
        )
        vd.model.set_rotation(1)
        assert dev.display_size() == (2208, 1840)


def test_connect_without_serial_owns_a_virtual_device_and_close_stops_it():
    dev = AdbDevice.connect(virtual_profile="small_phone", virtual_locale="zh")
    vd = dev.virtual
    try:
        assert vd is not None and dev.info.size == (720, 1280) and dev.info.locale == "zh-CN"
        assert dev.observe().size == (720, 1280)
    finally:
        dev.close()
    assert vd.wait(0), "close() stops the virtual device it started"
    with pytest.raises(DeviceError, match="closed"):
        dev.observe()


def test_connect_picks_the_only_device_or_says_why_not():
    with PrivateAdbServer() as srv:
        with pytest.raises(DeviceError, match=f"no device is connected to the adb server at 127.0.0.1:{srv.port}"):
            AdbDevice.connect(start_virtual=False, adb_port=srv.port)
        with VirtualDevice() as a, VirtualDevice() as b:
            a.connect(srv)
            with AdbDevice.connect(start_virtual=False, adb_port=srv.port) as dev:
                assert dev.serial == a.serial and dev.virtual is None
            b.connect(srv)
            with pytest.raises(ConfigError, match="several devices"):
                AdbDevice.connect(start_virtual=False, adb_port=srv.port)
            srv.disconnect(a.address)
            srv.disconnect(b.address)
    with pytest.raises(DeviceError, match="no adb server is running"):
        AdbDevice.connect("127.0.0.1:1", adb_port=srv.port)


def test_tcp_serial_not_yet_connected_is_adb_connected(adb_server):
    with VirtualDevice() as vd:
        with AdbDevice.connect(vd.serial, adb_port=adb_server.port) as dev:
            assert dev.observe().tree.find(text="Notes")
        adb_server.disconnect(vd.address)


# --- client fixes ---------------------------------------------------------------------------------------------
def test_streamed_reads_match_adbutils_and_u2_sockets_have_nodelay(adb_server, vdevice):
    fast = FastAdbDevice(adb_server.client, vdevice.serial)
    raw = exec_out(fast, "screencap")
    assert raw == vdevice.adb.shell("screencap", encoding=None)
    img = parse_raw_screencap(raw)
    assert img.size == vdevice.model.display_size and img.mode == "RGB"
    import adbutils

    from harness.device.link import Link

    link = Link(adb_server.client, vdevice.serial).start()
    try:
        s = fast.create_connection(adbutils.Network.TCP, 9008)
        try:
            assert s.getsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY) != 0
        finally:
            s.close()
        assert U2Rpc(fast).call("deviceInfo")["displayWidth"] == vdevice.model.display_size[0]
    finally:
        link.close()
    res = shell_v2(fast, "echo out; echo err >&2; false")
    assert (res.exit_code, res.stdout, res.stderr) == (1, b"out\n", b"err\n")


def test_read_to_end_is_exact_for_large_payloads():
    a, b = socket.socketpair()
    payload = bytes(range(256)) * 40_000 + b"tail"

    def send() -> None:
        a.sendall(payload)
        a.close()

    t = threading.Thread(target=send)
    t.start()
    assert read_to_end(b, size_hint=1000) == payload
    t.join()
    b.close()


def test_raw_screencap_parser_checks_its_input():
    frame = struct.pack("<IIII", 2, 1, 1, 1) + bytes([1, 2, 3, 255, 4, 5, 6, 255])
    assert parse_raw_screencap(frame).tobytes() == bytes([1, 2, 3, 4, 5, 6])
    old = struct.pack("<III", 2, 1, 1) + bytes(8)  # Android < 9: 12-byte header
    assert parse_raw_screencap(old).size == (2, 1)
    with pytest.raises(DeviceError, match="needs"):
        parse_raw_screencap(frame[:-1])
    with pytest.raises(DeviceError, match="not a raw frame"):
        parse_raw_screencap(b"\x89PNG\r\n\x1a\n" + bytes(20))


def test_parse_focus_prefers_the_focused_activity():
    text = (
        "  mCurrentFocus=Window{1 u0 PopupWindow:abc}\n  mCurrentFocus=Window{d u0 com.a/com.a.Dialog}\n"
        "  mFocusedApp=ActivityRecord{8 u0 com.a/.Main t9}"
    )
    assert parse_focus(text) == ("com.a", "com.a.Main")
    assert parse_focus("nothing") == ("", "")


# --- settling ---------------------------------------------------------------------------------------------------
def _tree(label: str) -> UITree:
    return UITree.from_xml(
        f'<hierarchy rotation="0"><node text="{label}" package="p" bounds="[0,0][10,10]"/></hierarchy>'
    )


def test_settle_waits_for_two_equal_consecutive_signatures():
    seq = iter([_tree("a"), _tree("b"), _tree("b"), _tree("c")])
    res = wait_until_settled(lambda: next(seq), SettleConfig(timeout=5))
    assert res.settled and res.polls == 3 and res.tree.find(text="b")


def test_settle_gives_up_at_the_timeout_and_counts_malformed_polls_as_changes():
    now = [0.0]
    n = [0]

    def clock() -> float:
        return now[0]

    def poll() -> UITree:
        n[0] += 1
        now[0] += 0.4
        if n[0] % 2:
            raise HierarchyError("half-drawn")
        return _tree("x")

    res = wait_until_settled(poll, SettleConfig(timeout=3.0), clock=clock)
    assert not res.settled and res.seconds >= 3.0 and res.polls == 8


def test_execute_reports_settling(adb_server, vdevice):
    with open_device(adb_server, vdevice, settle_strategy="poll") as dev:
        res = dev.execute(A.OpenApp(package="com.droidharness.notes"))
        assert res.settled and res.settle_polls >= 2 and set(res.timings) == {"actuation", "settle"}
    with open_device(adb_server, vdevice) as dev:  # "idle": uiautomator2's waitForIdle, no hierarchy poll
        mark = vdevice.model.events.mark()
        res = dev.execute(A.OpenApp(package="com.droidharness.settings"))
        waits = [e for e in vdevice.model.events.since(mark, "u2_rpc") if e.data.get("method") == "waitForIdle"]
        assert res.settled and res.settle_polls == 0 and len(waits) == 1


# --- CLI --------------------------------------------------------------------------------------------------------
def test_cli_devices_and_observe(adb_server, vdevice, tmp_path, monkeypatch):
    from PIL import Image
    from typer.testing import CliRunner

    from harness.cli.main import app

    monkeypatch.setenv("COLUMNS", "200")
    runner = CliRunner()
    res = runner.invoke(app, ["devices"], env={"ANDROID_ADB_SERVER_PORT": str(adb_server.port), "COLUMNS": "200"})
    assert res.exit_code == 0, res.output
    assert vdevice.serial in res.output and "Medium Phone" in res.output and "1080x2400" in res.output
    assert "34" in res.output
    res = runner.invoke(app, ["devices"], env={"ANDROID_ADB_SERVER_PORT": "1", "COLUMNS": "200"})
    assert res.exit_code == 1 and "No adb server is running" in res.output
    out = tmp_path / "obs"
    res = runner.invoke(
        app,
        ["observe", "--device", vdevice.serial, "--out", str(out)],
        env={"ANDROID_ADB_SERVER_PORT": str(adb_server.port), "COLUMNS": "200"},
    )
    assert res.exit_code == 0, res.output
    shot, overlay = Image.open(out / "screen.png"), Image.open(out / "overlay.png")
    assert shot.size == overlay.size == vdevice.model.display_size
    assert shot.convert("RGB").tobytes() != overlay.convert("RGB").tobytes()
    tree = UITree.from_xml((out / "screen.xml").read_text(encoding="utf-8"))
    notes = tree.find(text="Notes")[0]
    assert f"[{notes.index}]" in (out / "elements.txt").read_text(encoding="utf-8")


def test_an_unchanged_screens_dump_is_parsed_once_and_a_changed_one_again():
    from harness.device.capture import TreeMemo

    memo = TreeMemo()
    xml = (
        '<?xml version="1.0"?><hierarchy rotation="0"><node index="0" text="a" class="android.widget.TextView" '
        'package="p" bounds="[0,0][10,10]"/></hierarchy>'
    )
    first = memo.parse(xml, "device X u2 hierarchy")
    assert memo.parse(xml, "device X u2 hierarchy") is first and memo.hits == 1
    other = memo.parse(xml.replace('text="a"', 'text="b"'), "device X u2 hierarchy")
    assert other is not first and other[0].text == "b" and memo.hits == 1
    assert memo.parse(xml, "device Y u2 hierarchy") is not first  # another device's dump: parsed for it
