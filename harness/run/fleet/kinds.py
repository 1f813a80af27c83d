"""Which backend each slot of a pool gets: serials are the user's devices (an `emulator-NNNN` serial an emulator,
any other a phone); without serials, `isolation` picks the embedded kind. The one place that knows the kinds: a new
kind is its module and an entry here."""

from __future__ import annotations

from collections.abc import Callable
from typing import Literal

from harness.device.provision import emulator_port
from harness.run.fleet.backend import Backend, Fleet, FleetSpec, NothingShared
from harness.run.fleet.embedded import thread_fleet
from harness.run.fleet.emulator import EmulatorBackend
from harness.run.fleet.phone import PhoneBackend
from harness.run.fleet.processes import process_fleet

Isolation = Literal["thread", "process", "in_process"]


def in_process_fleet(spec: FleetSpec) -> tuple[Fleet, list[Backend]]:
    """Devices in this very process: their model (every app, the shell, the uiautomator2 server) is imported only
    for such a pool, not by every run that reaches its devices over adb (~50 ms of a run's start)."""
    from harness.run.fleet.inprocess import in_process_fleet as fleet

    return fleet(spec)


ISOLATIONS: tuple[str, ...] = ("thread", "process", "in_process")

EMBEDDED: dict[str, Callable[[FleetSpec], tuple[Fleet, list[Backend]]]] = {
    "thread": thread_fleet,
    "process": process_fleet,
    "in_process": in_process_fleet,
}


def attached(slot: int, spec: FleetSpec, serial: str) -> Backend:
    """The backend of a device the user gives by serial."""
    if emulator_port(serial) is not None:
        return EmulatorBackend(slot, spec, serial)
    return PhoneBackend(slot, spec, serial)


def build_fleet(spec: FleetSpec) -> tuple[Fleet, list[Backend]]:
    """The pool's fleet and one backend per slot."""
    if spec.serials:
        return NothingShared(), [attached(i, spec, s) for i, s in enumerate(spec.serials)]
    return EMBEDDED[spec.isolation](spec)
