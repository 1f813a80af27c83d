"""Shared fixtures: a private, real adb server per test session, and virtual devices connected through it."""

from __future__ import annotations

import os
import subprocess
from collections.abc import Callable, Iterator

import pytest

from emulator.virtual import VirtualDevice
from emulator.virtual.adbserver import PrivateAdbServer

# Emulators started by tests (emulator/avd) use console ports no adb server probes (5555..5585 are), so no other
# test's private adb server ever lists them; they announce themselves to their own test's server.
os.environ["DROIDHARNESS_EMULATOR_PORTS"] = "5600-5680"


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Every test that talks to the session's real adb server (directly or through a device fixture built on it)
    is an integration test; modules that start their own devices or processes say so with `pytestmark`."""
    for item in items:
        if "adb_server" in getattr(item, "fixturenames", ()):
            item.add_marker(pytest.mark.integration)


@pytest.fixture(scope="session")
def adb_server() -> Iterator[PrivateAdbServer]:
    """A private adb server (the binary from the adbutils wheel) on a free port, killed at the end."""
    srv = PrivateAdbServer().start()
    old = os.environ.get("ANDROID_ADB_SERVER_PORT")
    os.environ["ANDROID_ADB_SERVER_PORT"] = str(srv.port)
    try:
        yield srv
    finally:
        srv.stop()
        if old is None:
            os.environ.pop("ANDROID_ADB_SERVER_PORT", None)
        else:
            os.environ["ANDROID_ADB_SERVER_PORT"] = old


@pytest.fixture(scope="session")
def adb_client(adb_server: PrivateAdbServer):
    return adb_server.client


@pytest.fixture
def adb_cli(adb_server: PrivateAdbServer) -> Callable[..., subprocess.CompletedProcess]:
    """Run the adb CLI against the private server: `adb_cli("-s", serial, "shell", "false")`."""
    return adb_server.run


@pytest.fixture
def make_vdevice(adb_server: PrivateAdbServer) -> Iterator[Callable[..., VirtualDevice]]:
    """Factory: `make_vdevice(profile="pixel_fold", locale="zh", connect=True)` -> a started VirtualDevice
    (connected through the private adb server unless connect=False; `.adb` is its adbutils device)."""
    started: list[VirtualDevice] = []

    def make(connect: bool = True, **kwargs) -> VirtualDevice:
        vd = VirtualDevice(**kwargs).start()
        started.append(vd)
        if connect:
            vd.connect(adb_server)
        return vd

    yield make
    for vd in started:
        if not vd.emulator_console:
            adb_server.disconnect(vd.address)
        vd.stop()


@pytest.fixture
def vdevice(make_vdevice) -> VirtualDevice:
    """A fresh virtual device (medium_phone, en, instant latency) connected through the real adb server."""
    return make_vdevice()


@pytest.fixture
def u2dev(vdevice: VirtualDevice):
    """uiautomator2 connected to `vdevice` (u2.jar push is skipped: the device preloads it)."""
    import uiautomator2 as u2

    d = u2.connect(vdevice.adb)
    yield d
    try:
        d.stop_uiautomator(wait=False)
    except Exception:  # noqa: BLE001 - the device may already be gone
        pass
