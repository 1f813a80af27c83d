"""The app tests' devices: `emu`, a device posing as an emulator; `root_emu`, one with adbd restarted as root (a
module whose tests all want that overrides `emu` with it); `d`, uiautomator2 on `emu`. A vdevice's uiautomator2 is
tests/conftest.py's `u2dev`."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING

import pytest

from emulator.virtual.adbserver import PrivateAdbServer
from tests.emulator.virtual.apps.devshell import AdbCli, Emu, root, uiautomator

if TYPE_CHECKING:
    import uiautomator2


@pytest.fixture
def emu(make_posing_emulator: Callable[..., Emu], adb_server: PrivateAdbServer) -> Emu:
    """A device posing as an emulator whose console takes `adb emu` (its token is the adb server's HOME's) -> (the
    device, its serial)."""
    return make_posing_emulator(console_home=adb_server.home)


@pytest.fixture
def root_emu(make_posing_emulator: Callable[..., Emu], adb_cli: AdbCli) -> Emu:
    """The device posing as AndroidWorld's emulator, adbd restarted as root -> (the device, its serial)."""
    vd, serial = make_posing_emulator()
    assert "restarting adbd as root" in root(adb_cli, serial)
    return vd, serial


@pytest.fixture
def d(emu: Emu, adb_server: PrivateAdbServer) -> Iterator[uiautomator2.Device]:
    """uiautomator2 on `emu`, connected through the session's adb server."""
    with uiautomator(adb_server, emu[1]) as dev:
        yield dev
