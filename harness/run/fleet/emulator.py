"""A user's running emulator, by its `emulator-NNNN` serial: a phone whose console (port NNNN) is used when it
answers - a boot snapshot is saved as the emulator is opened and loaded before each episode (`avd_snapshot_load`,
emulator/avd/console.py). One without a reachable console (or whose auth token file does not open it) is reset as
a phone is. AVD copies a run starts (`avd.py`) are emulators to the pool."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from harness.device.controller import AdbDevice
from harness.device.provision import BOOT_SNAPSHOT, emulator_console
from harness.run.fleet.backend import APP_CLEAR, AVD_SNAPSHOT_LOAD
from harness.run.fleet.phone import PhoneBackend

if TYPE_CHECKING:
    from emulator.avd.console import EmulatorConsoleClient


class EmulatorBackend(PhoneBackend):
    kind = "emulator"

    _console: EmulatorConsoleClient | None = None

    @property
    def reset_method(self) -> str:
        return AVD_SNAPSHOT_LOAD if self._console is not None else APP_CLEAR

    def open_device(self) -> AdbDevice:
        dev = super().open_device()
        self._console = emulator_console(dev.serial, BOOT_SNAPSHOT)
        return dev

    def reset_now(self, device: AdbDevice, apps: Sequence[str], lang: str | None) -> None:
        if self._console is None:
            super().reset_now(device, apps, lang)
        else:
            self._console.snapshot_load(BOOT_SNAPSHOT)

    def release(self) -> None:
        console, self._console = self._console, None
        if console is not None:
            console.close()
