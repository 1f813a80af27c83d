"""A phone: a device on the adb server by its serial (any serial but an emulator's). The harness does not make it:
a reset clears the task's apps' data and goes home (`app_clear`; the task's start state relaunches them), the
language is the phone's own (an episode in another one is a `ConfigError`), a quarantined phone retires its slot
(`replaceable=False`: a fresh device would be the same phone), and its own settings are put back at the end. It
keeps its own time: a pool on the virtual clock cannot use it (`ConfigError`)."""

from __future__ import annotations

from collections.abc import Sequence

from harness.device.controller import AdbDevice
from harness.device.provision import connect_serial
from harness.errors import ConfigError
from harness.run.fleet.backend import APP_CLEAR, AdbBackend, FleetSpec


class PhoneBackend(AdbBackend):
    kind = "phone"
    replaceable = False

    def __init__(self, slot: int, spec: FleetSpec, serial: str) -> None:
        clock = spec.clock if spec.clock != "real" else spec.config.clock
        if clock != "real":
            raise ConfigError(refuse_clock(f"device {serial} ({self.kind}) keeps its", clock))
        super().__init__(slot, spec.config, serial)
        self.given_serial = serial

    @property
    def reset_method(self) -> str:
        return APP_CLEAR

    def open_device(self) -> AdbDevice:
        """A connection to the serial on the adb server the environment names (a TCP serial `adb connect`ed)."""
        return AdbDevice.over(connect_serial(self.given_serial, self.config.link), self.config)

    def reset_now(self, device: AdbDevice, apps: Sequence[str], lang: str | None) -> None:
        for pkg in apps:
            device.clear_app(pkg)
        device.press_home()

    def restore(self) -> None:
        self.restore_own_settings()


def refuse_clock(who_keeps: str, clock: str) -> str:
    """Why a phone, a user's emulator or AVD copies (`who_keeps`: "device X (phone) keeps its") cannot run on
    `clock`: they keep their own time."""
    return f"{who_keeps} own time: clock {clock!r} (simulated time) is for embedded virtual devices only"
