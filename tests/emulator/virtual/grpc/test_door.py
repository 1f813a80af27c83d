"""The emulator's gRPC door on a virtual device posing as an emulator, driven by the emulator's own generated
stubs (android_env's) over a real channel; what each call did is read back through the adb door (the session's
adb server), the console, or the device's model."""

from __future__ import annotations

import io
import re
import threading

import pytest

from emulator.avd.console import EmulatorConsoleClient
from emulator.grpcproto import discovery

grpc = pytest.importorskip("grpc")
ec = pytest.importorskip("android_env.proto.emulator_controller_pb2")
ecg = pytest.importorskip("android_env.proto.emulator_controller_pb2_grpc")
ss = pytest.importorskip("android_env.proto.snapshot_service_pb2")
ssg = pytest.importorskip("android_env.proto.snapshot_service_pb2_grpc")
from google.protobuf import empty_pb2  # noqa: E402
from PIL import Image  # noqa: E402

pytestmark = pytest.mark.integration
OPTIONS = [("grpc.max_receive_message_length", 64 << 20)]  # an RGBA frame is larger than gRPC's 4 MB default


@pytest.fixture
def door(make_posing_emulator):
    """(device, its adb serial, an EmulatorController stub, a SnapshotService stub) of a device posing as an
    emulator with its gRPC door on a free port."""
    vd, serial = make_posing_emulator(grpc_port=0)
    channel = grpc.insecure_channel(vd.grpc_address, options=OPTIONS)
    yield vd, serial, ecg.EmulatorControllerStub(channel), ssg.SnapshotServiceStub(channel)
    channel.close()


def _adb(adb_server, serial: str, *args: str) -> bytes:
    return adb_server.client.device(serial).shell(list(args), encoding=None)


def _focus(adb_server, serial: str) -> str:
    out = _adb(adb_server, serial, "dumpsys", "window").decode()
    return re.search(r"mCurrentFocus=(.*)", out).group(1)


def _center(vd, text: str) -> tuple[int, int]:
    m = re.search(rf'text="{text}"[^>]*bounds="\[(\d+),(\d+)\]\[(\d+),(\d+)\]"', vd.model.hierarchy_xml())
    x1, y1, x2, y2 = map(int, m.groups())
    return (x1 + x2) // 2, (y1 + y2) // 2


def test_get_status_reports_a_booted_device_and_its_hardware(door):
    vd, _, stub, _ = door
    st = stub.getStatus(empty_pb2.Empty())
    hw = {e.key: e.value for e in st.hardwareConfig.entry}
    assert st.booted and st.uptime > 0
    assert (hw["hw.lcd.width"], hw["hw.lcd.height"]) == tuple(str(v) for v in vd.model.physical_size)
    assert hw["hw.lcd.density"] == str(vd.model.profile.density)
    assert hw["avd.name"] == vd.avd_name


def test_screenshots_in_each_format_show_what_screencap_shows(door, adb_server):
    vd, serial, stub, _ = door
    w, h = vd.model.display_size
    adb_png = Image.open(io.BytesIO(adb_server.client.device(serial).shell("screencap -p", encoding=None)))
    png = stub.getScreenshot(ec.ImageFormat(format=ec.ImageFormat.PNG))
    img = Image.open(io.BytesIO(png.image))
    assert img.size == (w, h) == (png.format.width, png.format.height)
    assert img.convert("RGB").tobytes() == adb_png.convert("RGB").tobytes()
    rgba = stub.getScreenshot(ec.ImageFormat(format=ec.ImageFormat.RGBA8888))
    assert len(rgba.image) == w * h * 4
    assert rgba.image == adb_png.convert("RGBA").tobytes()
    rgb = stub.getScreenshot(ec.ImageFormat(format=ec.ImageFormat.RGB888))
    assert rgb.image == adb_png.convert("RGB").tobytes()
    small = stub.getScreenshot(ec.ImageFormat(format=ec.ImageFormat.RGB888, width=w // 4))
    assert (small.format.width, small.format.height) == (w // 4, round(h / 4))
    assert len(small.image) == small.format.width * small.format.height * 3
    boxed = stub.getScreenshot(ec.ImageFormat(format=ec.ImageFormat.PNG, width=400, height=400))
    assert max(boxed.format.width, boxed.format.height) == 400  # never larger than asked, aspect kept


def test_a_touch_on_a_launcher_icon_opens_the_app_and_a_lift_with_nothing_down_does_nothing(door, adb_server):
    vd, serial, stub, _ = door
    x, y = _center(vd, "Contacts")
    before = stub.getScreenshot(ec.ImageFormat(format=ec.ImageFormat.PNG)).image
    stub.sendTouch(ec.TouchEvent(touches=[ec.Touch(x=x, y=y, identifier=3, pressure=0)]))  # nothing is down
    assert "nexuslauncher" in _focus(adb_server, serial)
    assert stub.getScreenshot(ec.ImageFormat(format=ec.ImageFormat.PNG)).image == before
    stub.sendTouch(ec.TouchEvent(touches=[ec.Touch(x=x, y=y, identifier=3, pressure=1)]))
    assert "nexuslauncher" in _focus(adb_server, serial)  # down only: nothing opens yet
    stub.sendTouch(ec.TouchEvent(touches=[ec.Touch(x=x, y=y, identifier=3, pressure=0)]))
    assert "com.google.android.contacts" in _focus(adb_server, serial)


def test_the_mouse_clicks_like_a_finger(door, adb_server):
    vd, serial, stub, _ = door
    x, y = _center(vd, "Contacts")
    stub.sendMouse(ec.MouseEvent(x=x, y=y, buttons=1))
    stub.sendMouse(ec.MouseEvent(x=x, y=y, buttons=0))
    assert "com.google.android.contacts" in _focus(adb_server, serial)


def test_keys_go_home_and_back(door, adb_server):
    vd, serial, stub, _ = door
    vd.model.start_activity("com.google.android.contacts")
    assert "com.google.android.contacts" in _focus(adb_server, serial)
    stub.sendKey(ec.KeyboardEvent(key="GoHome"))
    assert "nexuslauncher" in _focus(adb_server, serial)
    vd.model.start_activity("com.google.android.contacts")
    stub.sendKey(ec.KeyboardEvent(codeType=ec.KeyboardEvent.Evdev, keyCode=158, eventType=ec.KeyboardEvent.keydown))
    stub.sendKey(ec.KeyboardEvent(codeType=ec.KeyboardEvent.Evdev, keyCode=158, eventType=ec.KeyboardEvent.keyup))
    assert "nexuslauncher" in _focus(adb_server, serial)  # BACK out of the app's only screen, once


def test_a_screenshot_stream_sends_a_new_frame_when_the_screen_changes(door):
    vd, _, stub, _ = door
    call = stub.streamScreenshot(ec.ImageFormat(format=ec.ImageFormat.RGB888, width=108))
    frames = iter(call)
    first = next(frames)
    got: list = []
    reader = threading.Thread(target=lambda: got.append(next(frames)), daemon=True)
    reader.start()
    reader.join(0.5)
    assert not got  # an unchanged screen sends nothing
    stub.sendKey(ec.KeyboardEvent(key="AppSwitch"))
    reader.join(10)
    call.cancel()
    assert got and got[0].seq > first.seq and got[0].image != first.image


def test_snapshots_are_one_set_with_the_console_and_load_restores_the_state(door):
    vd, _, stub, snaps = door
    assert snaps.SaveSnapshot(ss.SnapshotPackage(snapshot_id="home")).success
    with EmulatorConsoleClient(vd.console_port, home=vd.console_home) as console:
        assert "home" in console.snapshot_list()
        vd.model.start_activity("com.google.android.contacts")
        console.snapshot_save("contacts")
        listed = {
            s.snapshot_id for s in snaps.ListSnapshots(ss.SnapshotFilter(statusFilter=ss.SnapshotFilter.All)).snapshots
        }
        assert {"home", "contacts"} <= listed
        assert snaps.LoadSnapshot(ss.SnapshotPackage(snapshot_id="home")).success
        assert vd.model.foreground.package == "com.google.android.apps.nexuslauncher"
        console.snapshot_load("contacts")
        assert vd.model.foreground.package == "com.google.android.contacts"
        assert snaps.DeleteSnapshot(ss.SnapshotPackage(snapshot_id="contacts")).success
        assert "contacts" not in console.snapshot_list()
    missing = snaps.LoadSnapshot(ss.SnapshotPackage(snapshot_id="nope"))
    assert not missing.success and b"nope" in missing.err


def test_a_snapshot_keeps_the_emulated_hardware(door):
    _, _, stub, snaps = door
    stub.setBattery(ec.BatteryState(hasBattery=True, isPresent=True, chargeLevel=42, charger=ec.BatteryState.AC))
    stub.setGps(ec.GpsState(latitude=48.85, longitude=2.35, altitude=35))
    assert snaps.SaveSnapshot(ss.SnapshotPackage(snapshot_id="hw")).success
    stub.setBattery(ec.BatteryState(hasBattery=True, isPresent=True, chargeLevel=7, charger=ec.BatteryState.AC))
    stub.setGps(ec.GpsState(latitude=1.0, longitude=1.0, altitude=0))
    assert snaps.LoadSnapshot(ss.SnapshotPackage(snapshot_id="hw")).success
    assert stub.getBattery(empty_pb2.Empty()).chargeLevel == 42
    assert (stub.getGps(empty_pb2.Empty()).latitude, stub.getGps(empty_pb2.Empty()).longitude) == (48.85, 2.35)


def test_unmodelled_methods_answer_unimplemented(door):
    vd, _, stub, snaps = door
    with pytest.raises(grpc.RpcError) as e:
        stub.sendFingerprint(ec.Fingerprint(isTouching=True, touchId=1))
    assert e.value.code() == grpc.StatusCode.UNIMPLEMENTED
    with pytest.raises(grpc.RpcError) as e:
        list(snaps.PullSnapshot(ss.SnapshotPackage(snapshot_id="x")))
    assert e.value.code() == grpc.StatusCode.UNIMPLEMENTED


def test_clipboard_battery_gps_rotation_and_sms_reach_the_device(door, adb_server):
    vd, serial, stub, _ = door
    stub.setClipboard(ec.ClipData(text="from grpc"))
    assert vd.model.clipboard == "from grpc" == stub.getClipboard(empty_pb2.Empty()).text
    stub.setBattery(ec.BatteryState(hasBattery=True, isPresent=True, chargeLevel=42, charger=ec.BatteryState.AC))
    battery = _adb(adb_server, serial, "dumpsys", "battery").decode()
    assert "level: 42" in battery and "AC powered: true" in battery
    assert stub.getBattery(empty_pb2.Empty()).chargeLevel == 42
    stub.setGps(ec.GpsState(latitude=48.85, longitude=2.35, altitude=35))
    assert (stub.getGps(empty_pb2.Empty()).latitude, vd.model.hw.fix.longitude) == (48.85, 2.35)
    rotate = ec.PhysicalModelValue(target=ec.PhysicalModelValue.ROTATION, value=ec.ParameterValue(data=[0, 0, 90]))
    stub.setPhysicalModel(rotate)
    w, h = vd.model.physical_size
    shot = stub.getScreenshot(ec.ImageFormat(format=ec.ImageFormat.PNG))
    assert (shot.format.width, shot.format.height) == (h, w)
    assert shot.format.rotation.rotation == ec.Rotation.LANDSCAPE
    assert stub.sendSms(ec.SmsMessage(srcAddress="+15550001111", text="hello over grpc")).response == 0
    rows = _adb(adb_server, serial, "content", "query", "--uri", "content://sms/inbox").decode()
    assert "hello over grpc" in rows
    log = stub.getLogcat(ec.LogMessage())
    assert "ActivityManager" in log.contents and log.next >= len(log.contents.encode())


def test_a_token_is_required_when_asked_and_the_discovery_file_lives_while_the_device_runs(
    tmp_path, monkeypatch, make_vdevice
):
    monkeypatch.setenv("XDG_RUNTIME_DIR", str(tmp_path))
    vd = make_vdevice(connect=False, grpc_port=0, grpc_token=True)
    path = vd.discovery_file
    assert path.parent == tmp_path / "avd" / "running" and path.name.startswith("pid_")
    ini = discovery.read(path)
    assert ini["grpc.port"] == vd.grpc_address.rsplit(":", 1)[1] and ini["port.adb"] == str(vd.port)
    assert ini["grpc.token"] == vd.grpc_token and ini["avd.name"] == vd.avd_name
    channel = grpc.insecure_channel(vd.grpc_address)
    stub = ecg.EmulatorControllerStub(channel)
    with pytest.raises(grpc.RpcError) as e:
        stub.getStatus(empty_pb2.Empty())
    assert e.value.code() == grpc.StatusCode.UNAUTHENTICATED
    with pytest.raises(grpc.RpcError) as e:
        stub.getStatus(empty_pb2.Empty(), metadata=[("authorization", "Bearer wrong")])
    assert e.value.code() == grpc.StatusCode.UNAUTHENTICATED
    assert stub.getStatus(empty_pb2.Empty(), metadata=[("authorization", f"Bearer {vd.grpc_token}")]).booted
    channel.close()
    vd.stop()
    assert not path.exists()


def test_a_device_without_a_grpc_port_does_not_import_grpc():
    import subprocess
    import sys

    code = (
        "import sys; from emulator.virtual import VirtualDevice; vd = VirtualDevice().start(); vd.stop(); "
        "print('grpc' in sys.modules, vd.discovery_file)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=True)
    assert out.stdout.split() == ["False", "None"]


def test_a_device_process_opens_the_grpc_door_over_its_console_snapshots(tmp_path, monkeypatch):
    from emulator.virtual.procdevice import DeviceProcess, boot_snapshot

    monkeypatch.setenv("XDG_RUNTIME_DIR", str(tmp_path))  # the child inherits it: its discovery file goes here
    dp = DeviceProcess("grpc-proc-1", "medium_phone", grpc_port=0).spawn()
    try:
        info = dp.wait_ready()
        channel = grpc.insecure_channel(f"127.0.0.1:{info['grpc_port']}")
        snaps = ssg.SnapshotServiceStub(channel)
        listed = {s.snapshot_id for s in snaps.ListSnapshots(ss.SnapshotFilter()).snapshots}
        assert boot_snapshot("en") in listed  # the control console's boot snapshots are the gRPC door's
        assert boot_snapshot("en", "zh") in listed and boot_snapshot("zh", "en") in listed  # locale= over content
        assert snaps.SaveSnapshot(ss.SnapshotPackage(snapshot_id="over-grpc")).success
        assert any("over-grpc" in line for line in dp.console("avd snapshot list"))
        assert list((tmp_path / "avd" / "running").glob("pid_*.ini"))
        channel.close()
    finally:
        dp.stop()


def test_the_command_line_serves_grpc_with_a_token_and_removes_its_discovery_file_at_stop(tmp_path):
    import json
    import os
    import signal
    import subprocess
    import sys

    env = {**os.environ, "XDG_RUNTIME_DIR": str(tmp_path)}
    proc = subprocess.Popen(
        [sys.executable, "-m", "emulator.virtual", "--grpc", "0", "--grpc-use-token"],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
        env=env,
    )
    try:
        ready = json.loads(proc.stdout.readline())
        (ini,) = (tmp_path / "avd" / "running").glob("pid_*.ini")
        values = discovery.read(ini)
        assert values["grpc.port"] == str(ready["grpc_port"]) and values["grpc.token"]
        channel = grpc.insecure_channel(f"127.0.0.1:{ready['grpc_port']}")
        stub = ecg.EmulatorControllerStub(channel)
        auth = [("authorization", f"Bearer {values['grpc.token']}")]
        assert stub.getStatus(empty_pb2.Empty(), metadata=auth).booted
        channel.close()
    finally:
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(30) == 0
    assert not ini.exists()


def test_xkb_key_codes_are_evdev_codes_plus_8():
    """android_env sends `keyCode`s as KeyCodeType XKB on Linux: an X keycode is the evdev code + 8."""
    from emulator.virtual.grpc.input import EVDEV, XKB, android_keycode

    assert android_keycode(XKB, 158 + 8) == android_keycode(EVDEV, 158) == 4  # KEY_BACK
    assert android_keycode(XKB, 30 + 8) == 29  # KEY_A
    assert android_keycode(XKB, 5) is None


def _call_state(adb_server, serial: str) -> int:
    out = _adb(adb_server, serial, "dumpsys", "telephony.registry").decode()
    return int(re.search(r"mCallState=(\d)", out).group(1))


def test_send_phone_rings_answers_and_ends_a_call_as_the_console_does(door, adb_server):
    vd, serial, stub, _ = door
    op = ec.PhoneCall.Operation
    ok, invalid = ec.PhoneResponse.Response.Value("OK"), ec.PhoneResponse.Response.Value("InvalidAction")
    assert stub.sendPhone(ec.PhoneCall(operation=op.Value("InitCall"), number="5551234")).response == ok
    assert _call_state(adb_server, serial) == 1  # ringing
    assert "InCallActivity" in _focus(adb_server, serial) and "5551234" in vd.model.hierarchy_xml()
    assert stub.sendPhone(ec.PhoneCall(operation=op.Value("AcceptCall"), number="5551234")).response == ok
    assert _call_state(adb_server, serial) == 2  # off hook
    assert stub.sendPhone(ec.PhoneCall(operation=op.Value("DisconnectCall"), number="5551234")).response == ok
    assert _call_state(adb_server, serial) == 0 and "InCallActivity" not in _focus(adb_server, serial)
    # nothing to end, and a number no phone dials
    assert stub.sendPhone(ec.PhoneCall(operation=op.Value("DisconnectCall"), number="5551234")).response == invalid
    bad = stub.sendPhone(ec.PhoneCall(operation=op.Value("InitCall"), number="not a number"))
    assert bad.response == ec.PhoneResponse.Response.Value("BadNumber") and _call_state(adb_server, serial) == 0


def test_stream_clipboard_gives_the_clip_then_each_one_the_guest_makes(door, adb_server):
    """The first message is the clipboard as it is; a clip the guest makes (uiautomator2's setClipboard, as an
    app's copy) follows; one set through setClipboard is no clip event, as on the emulator."""
    import uiautomator2 as u2

    vd, serial, stub, _ = door
    stub.setClipboard(ec.ClipData(text="before"))
    call = stub.streamClipboard(empty_pb2.Empty())
    clips = iter(call)
    assert next(clips).text == "before"
    got: list[str] = []
    reader = threading.Thread(target=lambda: got.extend(next(clips).text for _ in range(1)), daemon=True)
    reader.start()
    stub.setClipboard(ec.ClipData(text="from the host"))
    reader.join(0.5)
    assert not got  # the host's own clip is not an event
    d = u2.connect(adb_server.client.device(serial))
    d.set_clipboard("copied in the guest")
    reader.join(10)
    call.cancel()
    assert got == ["copied in the guest"]
