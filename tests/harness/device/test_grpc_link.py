"""An emulator's gRPC door as the device layer uses it (issue 38, item 6): found from the emulator's discovery file,
screenshots (`paths.screenshot` = grpc), taps and keys through it, and adb's paths again - recorded as fallbacks -
when the door dies. Through the session's real adb server and a virtual device posing as an emulator with gRPC."""

from __future__ import annotations

from pathlib import Path

import pytest

from harness import actions as A
from harness.device.capture_choice import choose_screenshot_path
from harness.device.controller import AdbDevice, DeviceConfig
from harness.device.grpc_link import EmulatorGrpc, GrpcEndpoint, GrpcError, discover
from harness.device.link import LinkConfig

pytestmark = pytest.mark.integration
QUICK = DeviceConfig(link=LinkConfig(call_timeout=3.0, reconnect_timeout=1.0))


def test_the_door_is_found_from_the_discovery_file_of_that_serial(grpc_emulator, tmp_path: Path):
    vd, serial = grpc_emulator
    found = discover(serial)
    assert found is not None and found.address == vd.grpc_address and found.token == vd.grpc_token
    assert Path(found.source).name.startswith("pid_")
    assert discover("emulator-5998") is None and discover("R58M123ABC") is None
    assert discover(serial, {"XDG_RUNTIME_DIR": str(tmp_path / "elsewhere")}) is None


def test_a_wrong_token_is_refused_by_name(grpc_emulator):
    vd, serial = grpc_emulator
    port = int(vd.grpc_address.rsplit(":", 1)[1])
    with pytest.raises(GrpcError, match="getStatus .* UNAUTHENTICATED"):
        EmulatorGrpc(GrpcEndpoint(port, "wrong"), serial).open()


def test_screenshots_taps_and_keys_go_through_grpc(grpc_emulator):
    vd, serial = grpc_emulator
    with AdbDevice.connect(serial, config=QUICK) as dev:
        assert "grpc" in dev.capabilities and "u2" in dev.capabilities
        obs = dev.observe()
        assert obs.paths["screenshot"] == "grpc" and obs.fallbacks == ()
        assert obs.size == dev.info.size
        mark = vd.model.events.mark()
        result, obs = dev.step(A.OpenApp(package="com.android.settings"), obs, step=0)
        result, obs = dev.step(
            A.Swipe(start=A.Point(x=0.5, y=0.7), end=A.Point(x=0.5, y=0.3), duration=0.2), obs, step=1
        )
        assert result.path == "grpc" and obs.paths["screenshot"] == "grpc"
        result, obs = dev.step(A.Back(), obs, step=2)
        assert result.path == "grpc"
        grpc_inputs = [e for e in vd.model.events.since(mark) if e.data.get("source") == "grpc"]
        assert grpc_inputs, "the swipe and the key went in through the gRPC door"


def test_the_fastest_capture_path_is_chosen_by_timing(grpc_emulator):
    vd, serial = grpc_emulator
    with AdbDevice.connect(serial, config=QUICK) as dev:
        choice = choose_screenshot_path(dev.link)
        assert set(choice.seconds) == {"grpc_shm", "grpc", "u2", "screencap_raw"}
        assert all(s is not None and s > 0 for s in choice.seconds.values())
        assert choice.order[0] == min(choice.seconds, key=lambda k: choice.seconds[k] or 1e9)
        dev.use_screenshot_paths(choice.order)
        assert dev.observe().paths["screenshot"] == choice.order[0]


def test_a_dead_door_falls_back_to_adb_paths_and_says_so(grpc_emulator):
    vd, serial = grpc_emulator
    with AdbDevice.connect(serial, config=QUICK) as dev:
        obs = dev.observe()
        assert obs.paths["screenshot"] == "grpc"
        vd.stop_grpc()
        obs = dev.observe()
        assert obs.paths["screenshot"] == "u2"
        assert any(f.startswith("screenshot: grpc failed") for f in obs.fallbacks)
        result, obs = dev.step(A.Home(), obs, step=0)
        assert result.path == "u2"
        assert any(f.startswith("press home: grpc failed") for f in obs.fallbacks)
        for _ in range(3):
            obs = dev.observe()
        assert "grpc" not in dev.capabilities and obs.fallbacks == (), "given up after failing in a row"


def test_an_emulator_without_a_discovery_file_has_no_grpc(posing_emulator):
    vd, serial = posing_emulator
    with AdbDevice.connect(serial, config=QUICK) as dev:
        assert "grpc" not in dev.capabilities and dev.link.grpc is None
        assert dev.observe().paths["screenshot"] == "u2"
