"""Embedded virtual devices in threads of this process (`isolation="thread"`, the pool's default): each slot's device
is a `VirtualDevice` behind the pool's private adb server, reached through it as a phone is; its model is
reachable (`model`: fault knobs, event log) - what device tests use. A reset restores the model's boot state
(`state_restore`); a language switch is the model's. `ModelBackend` is what they share with the in-process kind."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from harness.device.controller import AdbDevice
from harness.device.provision import attach_embedded_grpc, link_embedded, start_embedded
from harness.run.fleet.backend import STATE_RESTORE, AdbBackend, Backend, FleetSpec
from harness.run.fleet.server import PrivateServerFleet

if TYPE_CHECKING:
    from emulator.virtual import VirtualDevice, VirtualDeviceModel


class ModelBackend(AdbBackend):
    """A device whose model lives in this process: reset to its boot state, switched to a language by the model.
    A kind sets `_model` and `_baseline` as it opens a device."""

    def __init__(self, slot: int, spec: FleetSpec) -> None:
        super().__init__(slot, replace(spec.config, clock=spec.clock))  # its device's time is its model's clock's
        self.spec = spec
        self._model: VirtualDeviceModel | None = None
        self._baseline: dict[str, Any] = {}  # the model's boot state (restored by resets)

    @property
    def reset_method(self) -> str:
        return STATE_RESTORE

    @property
    def model(self) -> VirtualDeviceModel | None:
        return self._model

    @property
    def profile(self) -> str:
        return self._model.profile.name if self._model is not None else super().profile

    def keep_model(self, model: VirtualDeviceModel) -> None:
        self._model = model
        self._baseline = model.snapshot()

    def reset_now(self, device: AdbDevice, apps: Sequence[str], lang: str | None) -> None:
        """The boot state: settings, app data, files, rotation (the language stays: `ensure_locale`)."""
        if self._model is None:
            raise RuntimeError("no device model")
        self._model.restore(self._baseline)

    def rebase(self) -> bool:
        """The model's state now is its boot state (restored by the next resets)."""
        if self._model is None:
            return False
        self._baseline = self._model.snapshot()
        return True

    def ensure_locale(self, lang: str, ui: str | None = None) -> None:
        """Switch the system language, as picking a zh AVD would; with `ui`, the system language `ui` over the
        content of a device set up in `lang` (as a user switching the phone's language)."""
        m = self._model
        if m is None:
            super().ensure_locale(lang, ui)
        elif (m.content_locale, m.locale) != (lang, ui or lang):
            m.set_locale(ui or lang, content=lang)

    def release(self) -> None:
        self._model = None


class ThreadBackend(ModelBackend):
    """An embedded virtual device in a thread of this process, behind the pool's private adb server."""

    kind = "virtual"

    def __init__(self, slot: int, spec: FleetSpec, fleet: PrivateServerFleet) -> None:
        super().__init__(slot, spec)
        self.fleet = fleet
        self._virtual: VirtualDevice | None = None

    def open_device(self) -> AdbDevice:
        server = self.fleet.server(self.slot)
        s = self.spec
        with self.timing("boot"):
            vd = start_embedded(
                server,
                profile=s.profile,
                locale=s.locale,
                latency=s.latency,
                serial=f"VIRTUAL{self.slot + 1:04d}",
                clock=s.clock,
                image=s.image,
                grpc=self.config.pixels,  # a consumer of pixels: the gRPC door's shared memory screenshots
            )
        try:
            conn = link_embedded(server, vd.address, self.config.link)
            attach_embedded_grpc(conn.link, vd.grpc_address, vd.grpc_token)
            conn.virtual = vd  # the device's `virtual` (stopped by `release`, not by closing the device)
            dev = AdbDevice.over(conn, self.config)
        except BaseException:
            vd.stop()
            raise
        self._virtual = vd
        self.keep_model(vd.model)
        return dev

    def release(self) -> None:
        super().release()
        vd, self._virtual = self._virtual, None
        if vd is not None:
            vd.stop()


def thread_fleet(spec: FleetSpec) -> tuple[PrivateServerFleet, list[Backend]]:
    fleet = PrivateServerFleet()
    return fleet, [ThreadBackend(i, spec, fleet) for i in range(spec.size)]
