"""Fault knobs and latency wiring, through the real adb server."""

from __future__ import annotations

import time

import pytest

from emulator.virtual.latency import LATENCY_PROFILES, Latency


def _wait(pred, timeout=15.0):
    deadline = time.time() + timeout
    while time.time() < deadline:
        if pred():
            return True
        time.sleep(0.05)
    return False


def test_set_unauthorized_at_runtime_then_recover(vdevice, adb_server):
    assert adb_server.state(vdevice.serial) == "device"
    vdevice.faults.set_unauthorized(True)
    assert _wait(lambda: adb_server.state(vdevice.serial) == "unauthorized"), adb_server.run("devices").stdout
    r = adb_server.run("-s", vdevice.serial, "shell", "true")
    assert r.returncode != 0 and b"unauthorized" in r.stderr
    vdevice.faults.set_unauthorized(False)
    vdevice.faults.drop_transport()
    adb_server.disconnect(vdevice.address)
    adb_server.connect(vdevice.address)
    assert adb_server.run("-s", vdevice.serial, "shell", "true").returncode == 0


def test_slow_down_scales_every_delay():
    lat = Latency("pixel")
    base = lat.seconds("input")
    lat.slowdown, lat.extra = 3.0, 0.25
    assert lat.seconds("input") == pytest.approx(base * 3 + 0.25)
    instant = Latency("instant")
    instant.extra = 0.5
    assert instant.seconds("screencap_png") == pytest.approx(0.5)
    with pytest.raises(ValueError, match="unknown latency profile 'slow'"):
        Latency("slow")


def test_pixel_profile_has_the_documented_shape():
    px = LATENCY_PROFILES["pixel"]
    assert px["screencap_png"] > px["screencap_raw"] > px["u2_screenshot"] > px["u2_rpc"]
    assert px["uiautomator_dump"] >= 1.5 and all(v == 0 for v in LATENCY_PROFILES["instant"].values())


def test_each_capture_path_pays_its_own_latency(vdevice, u2dev):
    """Which delay each client path triggers: what makes `pixel` benchmarks show the path a harness takes."""
    seen: list[str] = []
    real = vdevice.model.latency.delay

    def record(op: str) -> None:
        seen.append(op)
        real(op)

    vdevice.model.latency.delay = record  # type: ignore[method-assign]
    adb = vdevice.adb

    def ops(fn) -> list[str]:
        seen.clear()
        fn()
        return list(seen)

    assert "screencap_png" in ops(lambda: adb.shell("screencap -p", encoding=None))
    assert "screencap_raw" in ops(lambda: adb.shell("screencap", encoding=None))
    assert "uiautomator_dump" in ops(lambda: adb.shell("uiautomator dump /sdcard/w.xml"))
    assert "input" in ops(lambda: adb.shell("input tap 10 10"))
    u2_shot = ops(lambda: u2dev.screenshot())
    assert "u2_screenshot" in u2_shot and "u2_rpc" in u2_shot and "screencap_png" not in u2_shot
    assert "u2_hierarchy" in ops(lambda: u2dev.dump_hierarchy())
