"""A user's running emulator, by its `emulator-NNNN` serial: a phone whose console (port NNNN) is used when it
answers - a boot snapshot is saved as the emulator is opened and loaded before each episode (`avd_snapshot_load`,
emulator/avd/console.py). An emulator whose discovery file names a gRPC door that answers (its link has one:
harness.device.provision) saves and loads that snapshot through `SnapshotService` instead (`grpc_snapshot_load`),
and when it is prepared its screenshot paths are timed, the fastest taken first (harness.device.capture_choice;
recorded in its manifest row as `capture`). A gRPC load that fails falls back to the console, for good. One
without a reachable console (or whose auth token file does not open it) is reset as a phone is. AVD copies a run
starts (`avd.py`) are emulators to the pool."""

from __future__ import annotations

import logging
from collections.abc import Sequence
from typing import TYPE_CHECKING

from harness.device.capture_choice import CaptureChoice, choose_screenshot_path
from harness.device.controller import AdbDevice
from harness.device.preparation import DevicePreparation, PreparationPlan
from harness.device.provision import BOOT_SNAPSHOT, emulator_console
from harness.errors import DeviceError
from harness.run.fleet.backend import APP_CLEAR, AVD_SNAPSHOT_LOAD, GRPC_SNAPSHOT_LOAD, ManifestRow
from harness.run.fleet.phone import PhoneBackend

if TYPE_CHECKING:
    from emulator.avd.console import EmulatorConsoleClient
    from harness.device.grpc_link import EmulatorGrpc

log = logging.getLogger(__name__)


class EmulatorBackend(PhoneBackend):
    kind = "emulator"

    _console: EmulatorConsoleClient | None = None
    _grpc: EmulatorGrpc | None = None  # the door the boot snapshot was saved through (None: the console's)
    _capture: CaptureChoice | None = None

    @property
    def reset_method(self) -> str:
        if self._grpc is not None:
            return GRPC_SNAPSHOT_LOAD
        return AVD_SNAPSHOT_LOAD if self._console is not None else APP_CLEAR

    def open_device(self) -> AdbDevice:
        dev = super().open_device()
        self._capture = None
        grpc = dev.link.grpc if dev.link.has("grpc") else None
        if grpc is not None:
            try:
                grpc.save_snapshot(BOOT_SNAPSHOT)
                self._grpc = grpc
                return dev
            except DeviceError as e:
                log.warning("%s: boot snapshot not saved through gRPC (%s); the console's", dev.serial, e)
        self._console = emulator_console(dev.serial, BOOT_SNAPSHOT)
        return dev

    def prepare(self, plan: PreparationPlan) -> DevicePreparation:
        rec = super().prepare(plan)
        dev = self.opened()
        if dev.link.has("grpc"):
            self._capture = choose_screenshot_path(dev.link)
            dev.use_screenshot_paths(self._capture.order)
        return rec

    def extra(self) -> ManifestRow:
        return {"capture": self._capture.to_json()} if self._capture is not None else {}

    def reset_now(self, device: AdbDevice, apps: Sequence[str], lang: str | None) -> None:
        grpc = self._grpc
        if grpc is not None:
            try:
                grpc.load_snapshot(BOOT_SNAPSHOT)
                return
            except DeviceError as e:
                log.warning("%s: gRPC LoadSnapshot failed (%s); loading on the console from now on", self.serial, e)
                self._grpc = None
                self._console = emulator_console(device.serial, None)
        if self._console is None:
            super().reset_now(device, apps, lang)
        else:
            self._console.snapshot_load(BOOT_SNAPSHOT)

    def rebase(self) -> bool:
        """The boot snapshot the resets load is saved again from the emulator's state now (gRPC or console)."""
        if self._grpc is not None:
            self._grpc.save_snapshot(BOOT_SNAPSHOT)
            return True
        if self._console is not None:
            self._console.snapshot_save(BOOT_SNAPSHOT)
            return True
        return False

    def console(self, line: str) -> list[str] | None:
        """The emulator's console (opened now when resets go through gRPC); None when it does not answer."""
        if self._console is None:
            self._console = emulator_console(self.opened().serial, None)
        return self._console.command(line) if self._console is not None else None

    def release(self) -> None:
        self._grpc = None  # closed with the device's link
        console, self._console = self._console, None
        if console is not None:
            console.close()
