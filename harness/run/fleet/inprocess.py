"""Embedded virtual device models driven with no adb at all (`isolation="in_process"`, `InProcessDevice`): the
run-loop tests' devices. Reset and language switch are the model's, as for devices in threads."""

from __future__ import annotations

from harness.device.controller import AdbDevice
from harness.device.inprocess import InProcessDevice
from harness.run.fleet.backend import Backend, FleetSpec, NothingShared
from harness.run.fleet.embedded import ModelBackend


class InProcessBackend(ModelBackend):
    kind = "in-process"

    def open_device(self) -> AdbDevice:
        s = self.spec
        dev = InProcessDevice(
            s.profile, s.locale, s.latency, serial=f"INPROC{self.slot + 1:04d}", config=self.config, clock=s.clock
        )
        self.keep_model(dev.model)
        return dev


def in_process_fleet(spec: FleetSpec) -> tuple[NothingShared, list[Backend]]:
    return NothingShared(), [InProcessBackend(i, spec) for i in range(spec.size)]
