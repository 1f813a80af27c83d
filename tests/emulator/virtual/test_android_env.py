"""android_env's own `EmulatorSimulator` attaches, unmodified, to a virtual device posing as an emulator and drives
it as it drives an emulator: its AdbController through the session's real adb server (the adbutils wheel's adb),
its gRPC stubs (local channel credentials, as it connects to an emulator's `-grpc` port) for the status,
screenshots, touches, keys and snapshots, and the rest of android_env that works through the simulator - the
coordinator's DeviceSettings (settings put, `dumpsys input` orientation), the AdbCallParser (`am start`, `am stack
list` for the current activity) and the task manager's logcat stream (`logcat -v epoch` parsed by its
LogcatThread). What each call did is read back on the device through adb (`dumpsys window`, `screencap`), the
model, or a fresh gRPC channel.

Nothing of android_env is patched. Only its environment is arranged: HOME and XDG_RUNTIME_DIR are temporary
directories (the console's token file, the gRPC discovery file), and ANDROID_ADB_SERVER_PORT / ANDROID_HOME are
registered with monkeypatch, because android_env's AdbController deletes them from os.environ (it passes `-P PORT`
to every adb command instead) and the session's other tests need ANDROID_ADB_SERVER_PORT back. Attaching needs no
SDK: with adb_port, emulator_console_port and grpc_port all given, EmulatorSimulator launches nothing, so the
`emulator` binary, the SDK root and the AVD home of its launcher config are never looked at (left at their
defaults, which do not exist here); its tmp_dir is a temporary directory all the same.

Every adb command android_env sends must succeed: on a failed one its AdbController runs `adb kill-server` and
`start-server` on the session's server, which the other tests share.
"""

from __future__ import annotations

import io
import logging
import re
import threading
import time

import numpy as np
import pytest

pytest.importorskip("grpc")
pytest.importorskip("immutabledict")  # android_env 1.3.0 imports it without declaring it (the dev extra has it)
config_classes = pytest.importorskip("android_env.components.config_classes")
emulator_simulator = pytest.importorskip("android_env.components.simulators.emulator.emulator_simulator")
import grpc  # noqa: E402
from android_env.components import adb_call_parser, device_settings, logcat_thread  # noqa: E402
from android_env.proto import adb_pb2, emulator_controller_pb2_grpc, state_pb2  # noqa: E402
from google.protobuf import empty_pb2  # noqa: E402
from PIL import Image  # noqa: E402

pytestmark = [pytest.mark.integration, pytest.mark.slow]

XKB_HOMEPAGE = 172 + 8  # evdev KEY_HOMEPAGE as an X keycode: what android_env sends on Linux (KeyCodeType XKB)
LAUNCHER = "com.google.android.apps.nexuslauncher"


@pytest.fixture
def attached(tmp_path, monkeypatch, caplog, make_posing_emulator, adb_server):
    """(device, its serial, an attached and launched EmulatorSimulator) for a virtual device posing as an emulator
    with its console on a free pair, gRPC on a free port, announced to the session's adb server. Afterwards
    android_env has logged no error (a failed adb command, an RpcError it reconnected after, a bad orientation)."""
    caplog.set_level(logging.INFO, logger="absl")
    monkeypatch.setenv("ANDROID_ADB_SERVER_PORT", str(adb_server.port))  # restored after android_env deletes it
    monkeypatch.delenv("ANDROID_HOME", raising=False)
    vd, serial = make_posing_emulator(grpc_port=0)
    port = vd.console_port
    grpc_port = int(vd.grpc_address.rsplit(":", 1)[1])
    config = config_classes.EmulatorConfig(
        emulator_launcher=config_classes.EmulatorLauncherConfig(
            adb_port=port + 1, emulator_console_port=port, grpc_port=grpc_port, tmp_dir=str(tmp_path / "sim")
        ),
        adb_controller=config_classes.AdbControllerConfig(
            adb_path=adb_server.adb, adb_server_port=adb_server.port, default_timeout=30.0
        ),
        logfile_path=str(tmp_path / "emulator.log"),
    )
    sim = emulator_simulator.EmulatorSimulator(config)
    sim.launch()
    yield vd, serial, sim
    sim.close()
    records = [*caplog.get_records("setup"), *caplog.get_records("call"), *caplog.records]  # every phase's
    assert any(r.name == "absl" and "Executing ADB command" in r.getMessage() for r in records)  # it is heard
    errors = [r.getMessage() for r in records if r.name == "absl" and r.levelno >= logging.ERROR]
    assert not errors, errors


def _shell(adb_server, serial: str, *args: str) -> bytes:
    return adb_server.client.device(serial).shell(list(args), encoding=None)


def _focus(adb_server, serial: str) -> str:
    out = _shell(adb_server, serial, "dumpsys", "window").decode()
    return re.search(r"mCurrentFocus=(.*)", out).group(1)


def _center(vd, text: str) -> tuple[int, int]:
    m = re.search(rf'text="{text}"[^>]*bounds="\[(\d+),(\d+)\]\[(\d+),(\d+)\]"', vd.model.hierarchy_xml())
    x1, y1, x2, y2 = map(int, m.groups())
    return (x1 + x2) // 2, (y1 + y2) // 2


def _tap(sim, x: int, y: int) -> None:
    """A tap as android_env's coordinator sends one: the finger down, then up at the same place."""
    sim.send_touch([(x, y, True, 0)])
    sim.send_touch([(x, y, False, 0)])


def _current_activity(parser) -> str:
    reply = parser.parse(adb_pb2.AdbRequest(get_current_activity=adb_pb2.AdbRequest.GetCurrentActivity()))
    assert reply.status == adb_pb2.AdbResponse.Status.OK, reply.error_message
    return reply.get_current_activity.full_activity


def test_attaches_and_its_screenshot_is_the_devices_screen(attached, adb_server):
    vd, serial, sim = attached
    width, height = vd.model.display_size
    pixels = sim.get_screenshot()
    assert pixels.shape == (height, width, 3) and pixels.dtype == np.uint8
    png = _shell(adb_server, serial, "screencap", "-p")
    on_device = np.asarray(Image.open(io.BytesIO(png)).convert("RGB"))
    assert np.array_equal(pixels, on_device)
    assert sim.adb_device_name() == serial


def test_touches_open_an_app_and_an_xkb_key_goes_home(attached, adb_server):
    vd, serial, sim = attached
    parser = adb_call_parser.AdbCallParser(sim.create_adb_controller())
    assert _current_activity(parser).startswith(LAUNCHER)
    _tap(sim, *_center(vd, "Clock"))
    assert "deskclock" in _focus(adb_server, serial)
    assert "deskclock" in _current_activity(parser)
    before = sim.get_screenshot()
    sim.send_key(np.int32(XKB_HOMEPAGE), "keydown")
    sim.send_key(np.int32(XKB_HOMEPAGE), "keyup")
    assert LAUNCHER in _focus(adb_server, serial)
    assert not np.array_equal(before, sim.get_screenshot())


def test_the_coordinators_launch_path_settings_and_orientation(attached, adb_server):
    vd, serial, sim = attached
    settings = device_settings.DeviceSettings(sim)
    settings.update(config_classes.DeviceSettingsConfig(show_touches=True, show_pointer_location=False))
    width, height = vd.model.display_size
    assert (settings.screen_width(), settings.screen_height()) == (width, height)
    assert list(settings.get_orientation()) == [1, 0, 0, 0]
    assert _shell(adb_server, serial, "settings", "get", "system", "show_touches").strip() == b"1"
    assert _shell(adb_server, serial, "settings", "get", "global", "policy_control").strip() == b"immersive.full=*"


def test_reset_by_snapshot_save_and_load_state(attached, adb_server):
    vd, serial, sim = attached
    saved = sim.save_state(state_pb2.SaveStateRequest(args={"snapshot_name": "clean"}))
    assert saved.status == state_pb2.SaveStateResponse.Status.OK
    parser = adb_call_parser.AdbCallParser(sim.create_adb_controller())
    started = parser.parse(
        adb_pb2.AdbRequest(
            start_activity=adb_pb2.AdbRequest.StartActivity(full_activity="com.android.settings/.Settings")
        )
    )
    assert started.status == adb_pb2.AdbResponse.Status.OK, started.error_message
    assert "com.android.settings" in _focus(adb_server, serial)
    loaded = sim.load_state(state_pb2.LoadStateRequest(args={"snapshot_name": "clean"}))
    assert loaded.status == state_pb2.LoadStateResponse.Status.OK
    assert LAUNCHER in _focus(adb_server, serial)
    missing = sim.load_state(state_pb2.LoadStateRequest(args={"snapshot_name": "nope"}))
    assert missing.status == state_pb2.LoadStateResponse.Status.NOT_FOUND


def test_the_task_managers_logcat_thread_hears_the_device(attached, adb_server):
    _, serial, sim = attached
    stream = sim.create_log_stream()
    stream.set_log_filters(["AndroidEnvTest:I"])  # as a task's log_parsing_config.filters
    heard = threading.Event()
    messages: list[str] = []

    def handler(_: re.Pattern, match: re.Match) -> None:
        messages.append(match.group(0))
        heard.set()

    thread = logcat_thread.LogcatThread(stream)
    thread.add_event_listener(logcat_thread.EventListener(regexp=re.compile(r"^reward: (\d+)$"), handler_fn=handler))
    thread.resume()
    try:
        deadline = time.monotonic() + 15
        while not heard.is_set() and time.monotonic() < deadline:  # the stream starts asynchronously
            _shell(adb_server, serial, "log", "-t", "AndroidEnvTest", "reward: 7")
            heard.wait(0.5)
        assert messages and messages[0] == "reward: 7"
    finally:
        thread.kill()


def test_close_leaves_the_device_serving(attached, adb_server):
    vd, serial, sim = attached
    sim.close()
    assert _shell(adb_server, serial, "echo", "still here") == b"still here\n"
    with grpc.insecure_channel(vd.grpc_address) as channel:
        status = emulator_controller_pb2_grpc.EmulatorControllerStub(channel).getStatus(empty_pb2.Empty())
    assert status.booted
