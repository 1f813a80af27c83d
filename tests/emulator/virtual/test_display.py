"""The display's logical size and density (`emulator/virtual/display.py`): `wm size` / `wm density` overrides as
Android keeps and applies them (in process), and, through the real doors, everything a client reads following
them - screenshots (`screencap -p`, raw `screencap`, `framebuffer:`, uiautomator2, the gRPC door), the dumps'
bounds, uiautomator2's `deviceInfo` and `window_size()`, the dumpsys lines, `input tap` - in both rotations;
`reset` brings the panel's back."""

from __future__ import annotations

import io
import re
import struct

import pytest
from PIL import Image

from emulator.virtual.model import VirtualDeviceModel
from tests.emulator.virtual.shell.test_commands import sh

NOTES = "com.droidharness.notes"


# --- in process: what `wm` keeps and what the model derives -----------------------------------------------------
def test_wm_size_and_density_set_the_logical_display():
    m = VirtualDeviceModel()
    assert (m.physical_size, m.base_size, m.display_size, m.density) == ((1080, 2400),) * 3 + (420,)
    assert sh(m, "wm size 720x1600; wm density 320").status == 0
    assert m.settings["global"]["display_size_forced"] == "720,1600"
    assert m.settings["secure"]["display_density_forced"] == "320"
    assert (m.physical_size, m.base_size, m.display_size, m.density, m.scale) == (
        (1080, 2400),
        (720, 1600),
        (720, 1600),
        320,
        2.0,
    )
    m.set_rotation(1)  # the override turns with the display, as the panel does
    assert m.display_size == (1600, 720) and m.base_size == (720, 1600)
    assert m.screenshot().size == (1600, 720)
    m.set_rotation(0)
    # `WdpxHdp` is in dp at the display's (forced) density; `-d 0` names the only display
    assert sh(m, "wm size 360dpx800dp -d 0").status == 0 and m.base_size == (720, 1600)
    assert sh(m, "wm size 500x900px").status == 0 and m.base_size == (500, 900)
    # a snapshot holds the overrides (the settings), as the emulator's snapshot holds the device's
    snap = m.snapshot()
    sh(m, "wm size reset; wm density reset")
    assert (m.display_size, m.density) == ((1080, 2400), 420) and "display_size_forced" not in m.settings["global"]
    m.restore(snap)
    assert (m.display_size, m.density) == ((500, 900), 320)


def test_wm_refuses_and_clamps_as_window_manager_does():
    m = VirtualDeviceModel()
    bad = sh(m, "wm size 720")
    assert (bad.status, bad.err) == (255, "Error: bad size 720\n")
    bad = sh(m, "wm size abcx100")
    assert bad.status == 255
    assert bad.err == 'Error: bad number java.lang.NumberFormatException: For input string: "abc"\n'
    assert sh(m, "wm density 71").err == "Error: density must be >= 72\n"
    assert sh(m, "wm density x").err == 'Error: bad number java.lang.NumberFormatException: For input string: "x"\n'
    assert m.display_size == (1080, 2400) and m.density == 420
    # DisplayContent keeps a forced size within 200 px and three times the panel's longer side
    sh(m, "wm size 10x99999")
    assert sh(m, "wm size").out == "Physical size: 1080x2400\nOverride size: 200x7200\n"
    # the panel's own size and density are no override; a negative size clears it
    sh(m, "wm size 720x1600; wm size 1080x2400; wm density 420")
    assert sh(m, "wm size; wm density").out == "Physical size: 1080x2400\nPhysical density: 420\n"
    sh(m, "wm size 720x1600; wm size -1x5")
    assert sh(m, "wm size").out == "Physical size: 1080x2400\n"
    # a value `settings put` left that the window manager cannot read is no override
    sh(m, "settings put global display_size_forced junk; settings put secure display_density_forced 9")
    assert (m.display_size, m.density) == ((1080, 2400), 420)


# --- through the doors ------------------------------------------------------------------------------------------
def _sh(adb_cli, serial: str, line: str) -> str:
    r = adb_cli("-s", serial, "shell", line)
    assert r.returncode == 0, r.stderr
    return r.stdout.decode()


def _png(adb_cli, serial: str) -> Image.Image:
    return Image.open(io.BytesIO(adb_cli("-s", serial, "exec-out", "screencap", "-p").stdout))


def _dump(adb_cli, serial: str) -> str:
    return _sh(adb_cli, serial, "uiautomator dump /sdcard/ui.xml >/dev/null && cat /sdcard/ui.xml")


def _bounds(xml: str, text: str) -> tuple[int, int, int, int]:
    m = re.search(rf'text="{text}"[^>]*bounds="\[(\d+),(\d+)\]\[(\d+),(\d+)\]"', xml)
    assert m is not None, f"no {text!r} in the dump"
    x1, y1, x2, y2 = map(int, m.groups())
    return x1, y1, x2, y2


def _root_bounds(xml: str) -> str:
    return re.search(r'<node [^>]*bounds="([^"]+)"', xml).group(1)


def test_a_size_override_reaches_every_screenshot_dump_and_tap(vdevice, adb_cli, u2dev):
    serial = vdevice.serial
    home = _bounds(_dump(adb_cli, serial), "Notes")
    _sh(adb_cli, serial, "wm size 720x1600")
    assert _png(adb_cli, serial).size == (720, 1600)
    raw = adb_cli("-s", serial, "exec-out", "screencap").stdout
    w, h, fmt, _ = struct.unpack("<IIII", raw[:16])
    assert (w, h, fmt) == (720, 1600, 1) and len(raw) == 16 + 720 * 1600 * 4
    assert vdevice.adb.framebuffer().size == (720, 1600)
    assert u2dev.window_size() == (720, 1600)
    info = u2dev.info
    assert (info["displayWidth"], info["displayHeight"]) == (720, 1600)
    assert (info["displaySizeDpX"], info["displaySizeDpY"]) == (274, 610)  # at the panel's 420 dpi
    assert u2dev.screenshot().size == (720, 1600)
    xml = _dump(adb_cli, serial)
    assert _root_bounds(xml) == "[0,0][720,1600]" == _root_bounds(u2dev.dump_hierarchy())
    notes = _bounds(xml, "Notes")
    assert notes[2] <= 720 and notes != home  # laid out again in the smaller display
    # a tap at the centre of what the dump shows hits it
    _sh(adb_cli, serial, f"input tap {(notes[0] + notes[2]) // 2} {(notes[1] + notes[3]) // 2}")
    assert NOTES in _sh(adb_cli, serial, "dumpsys window | grep mCurrentFocus")
    assert _root_bounds(_dump(adb_cli, serial)) == "[0,0][720,1600]"
    _sh(adb_cli, serial, "wm size reset")
    assert _png(adb_cli, serial).size == (1080, 2400) == u2dev.window_size()
    assert _root_bounds(_dump(adb_cli, serial)) == "[0,0][1080,2400]"
    assert _sh(adb_cli, serial, "wm size") == "Physical size: 1080x2400\n"


def test_a_density_override_draws_the_same_screen_smaller(vdevice, adb_cli, u2dev):
    serial = vdevice.serial
    before = _bounds(_dump(adb_cli, serial), "Notes")
    shot = _png(adb_cli, serial)
    _sh(adb_cli, serial, "wm density 280")
    after = _bounds(_dump(adb_cli, serial), "Notes")
    assert after[2] - after[0] < before[2] - before[0] and after[3] - after[1] < before[3] - before[1]
    assert _png(adb_cli, serial).size == (1080, 2400)  # the same pixels, smaller things in them
    assert _png(adb_cli, serial).tobytes() != shot.tobytes()
    info = u2dev.info
    assert (info["displaySizeDpX"], info["displaySizeDpY"]) == (617, 1371)  # 1080 / (280 / 160)
    assert _sh(adb_cli, serial, "wm density") == "Physical density: 420\nOverride density: 280\n"
    assert "mGlobalConfiguration={1.0 ?mcc?mnc [en_US] ldltr sw617dp w617dp h1371dp 280dpi" in _sh(
        adb_cli, serial, "dumpsys window windows"
    )
    _sh(adb_cli, serial, "wm density reset")
    assert _bounds(_dump(adb_cli, serial), "Notes") == before
    assert _png(adb_cli, serial).tobytes() == shot.tobytes()


def test_the_overrides_turn_with_the_display(vdevice, adb_cli, u2dev):
    serial = vdevice.serial
    _sh(adb_cli, serial, "wm size 720x1600; wm density 280")
    _sh(adb_cli, serial, "settings put system accelerometer_rotation 0; settings put system user_rotation 1")
    assert _png(adb_cli, serial).size == (1600, 720)
    assert u2dev.window_size() == (1600, 720) and u2dev.screenshot().size == (1600, 720)
    assert _root_bounds(_dump(adb_cli, serial)) == "[0,0][1600,720]"
    displays = _sh(adb_cli, serial, "dumpsys window displays")
    assert "init=1080x2400 420dpi base=720x1600 280dpi cur=1600x720 app=1600x720" in displays
    assert "DisplayFrames w=1600 h=720 r=1" in displays
    viewport = _sh(adb_cli, serial, "dumpsys input | grep 'Viewport INTERNAL'")
    assert "logicalFrame=[0, 0, 1600, 720], physicalFrame=[0, 0, 2400, 1080]" in viewport
    display = _sh(adb_cli, serial, "dumpsys display")
    assert "logicalFrame=Rect(0, 0 - 1600, 720), physicalFrame=Rect(0, 0 - 2400, 1080)" in display
    override = re.search(r"mOverrideDisplayInfo=(.*)", display).group(1)
    assert "real 1600 x 720" in override and "density 280 " in override and "rotation 1" in override
    base = re.search(r"mBaseDisplayInfo=(.*)", display).group(1)
    assert "real 1080 x 2400" in base and "density 420 " in base
    assert "RootTask id=" in _sh(adb_cli, serial, "am stack list") and "bounds=[0,0][1600,720]" in _sh(
        adb_cli, serial, "am stack list"
    )
    # a tap lands where the landscape dump says
    notes = _bounds(_dump(adb_cli, serial), "Notes")
    assert notes[2] <= 1600 and notes[3] <= 720
    _sh(adb_cli, serial, f"input tap {(notes[0] + notes[2]) // 2} {(notes[1] + notes[3]) // 2}")
    assert NOTES in _sh(adb_cli, serial, "dumpsys window | grep mCurrentFocus")


@pytest.mark.integration
def test_the_grpc_door_shows_the_logical_display(make_posing_emulator):
    grpc = pytest.importorskip("grpc")
    ec = pytest.importorskip("android_env.proto.emulator_controller_pb2")
    ecg = pytest.importorskip("android_env.proto.emulator_controller_pb2_grpc")
    from google.protobuf import empty_pb2

    vd, _ = make_posing_emulator(grpc_port=0)
    sh(vd.model, "wm size 720x1600")
    channel = grpc.insecure_channel(vd.grpc_address, options=[("grpc.max_receive_message_length", 64 << 20)])
    try:
        stub = ecg.EmulatorControllerStub(channel)
        png = stub.getScreenshot(ec.ImageFormat(format=ec.ImageFormat.PNG))
        assert Image.open(io.BytesIO(png.image)).size == (720, 1600) == (png.format.width, png.format.height)
        rgb = stub.getScreenshot(ec.ImageFormat(format=ec.ImageFormat.RGB888))
        assert len(rgb.image) == 720 * 1600 * 3
        # the hardware is the panel's
        (display,) = stub.getDisplayConfigurations(empty_pb2.Empty()).displays
        assert (display.width, display.height, display.dpi) == (1080, 2400, 420)
    finally:
        channel.close()
