"""Embedded virtual devices in child processes (`isolation="process"`, what `droidharness run` uses): each slot's
device is a `DeviceProcess` (emulator.virtual.procdevice) that the pool's private adb server reaches as a TCP
serial, with a control console holding its boot state as snapshots in both languages: a reset, and a language
switch, is one `avd snapshot load` (`snapshot_load`). The fleet reaps the children of dead harnesses before any
starts, forks a pool's devices from a device zygote (`Spawner`), boots as many at once as there are cores, and
may pin each to a core (`affinity`)."""

from __future__ import annotations

import os
import threading
from collections.abc import Sequence
from dataclasses import replace

from emulator.virtual.procdevice import (
    DeviceProcess,
    Spawner,
    boot_snapshot,
    prestart_zygote,
    prestarted_zygote,
    reap_orphans,
    stop_prestarted,
)
from harness.device.controller import AdbDevice
from harness.device.provision import attach_embedded_grpc, grpc_available, link_embedded
from harness.errors import DeviceError
from harness.run.fleet.affinity import device_cpus
from harness.run.fleet.backend import SNAPSHOT_LOAD, AdbBackend, Backend, FleetSpec, ManifestRow
from harness.run.fleet.server import PrivateServerFleet


class ProcessFleet(PrivateServerFleet):
    """Device processes of one pool: their spawner and boot slots, and the private adb server."""

    def __init__(self, spec: FleetSpec) -> None:
        super().__init__()
        self.spec = spec
        self.booting = threading.Semaphore(os.cpu_count() or 1)  # device processes booting at once
        self._spawner: Spawner | None = None  # started from one long-lived thread (PDEATHSIG)

    def begin(self) -> None:
        """Before the devices boot (and while the adb server starts): reap a dead harness's children, and get
        the spawner going."""
        reap_orphans()
        self.spawner()

    def spawner(self) -> Spawner:
        """Where the device processes come from: a device zygote forks them - for a pool of several, or for any
        pool when one was started ahead of it (`prestart`) - once it has imported everything and drawn the first
        screens of the run's apps (`FleetSpec.apps`; every app's when the run names none) in the run's languages,
        so every device, the first ones included, boots warm in a few tens of ms of CPU and shares those pages
        with the others. A single device with no zygote started ahead is its own interpreter (a zygote started
        now would only add its own start before the device's)."""
        if self.closed:  # a slot replacing its device as a stop closes the pool: no new zygote
            raise DeviceError("the device pool is closed")
        if self._spawner is None:
            ahead = prestarted_zygote(self.spec.profile)
            if not ahead:
                stop_prestarted()  # one started ahead for another profile is of no use to this pool
            self._spawner = Spawner(
                zygote=self.spec.size > 1 or ahead,
                profile=self.spec.profile,
                langs=self.spec.langs,
                warm_after=0,
                packages=self.spec.apps,
            )
        return self._spawner

    def close(self) -> None:
        self.closed = True  # (set by `cancel` already, when a pool closes)
        if self._spawner is not None:
            self._spawner.close()
            self._spawner = None
        super().close()


class ProcessBackend(AdbBackend):
    kind = "virtual-process"

    def __init__(self, slot: int, spec: FleetSpec, fleet: ProcessFleet) -> None:
        super().__init__(slot, replace(spec.config, clock=spec.clock))  # its device's time is the child's clock's
        self.spec, self.fleet = spec, fleet
        self.cpus = device_cpus(slot, spec.size, spec.latency, spec.cpu_affinity, spec.usable_cpus, spec.clock)
        self._proc: DeviceProcess | None = None
        self._locale = (spec.locale, spec.locale)  # the languages of the device's current state: content, system

    @property
    def reset_method(self) -> str:
        return SNAPSHOT_LOAD

    @property
    def process(self) -> DeviceProcess | None:
        return self._proc

    @property
    def profile(self) -> str:
        return self.spec.profile

    def running(self) -> DeviceProcess:
        """The slot's device process, launched (when there is none alive) and waited for: as many boots at once
        as there are cores, so that the first devices are up soonest."""
        proc = self._proc
        if proc is not None and proc.alive():
            return proc
        if proc is not None:
            proc.stop()  # reaped
        s = self.spec
        proc = DeviceProcess(
            serial=f"VIRTUAL{self.slot + 1:04d}",
            profile=s.profile,
            locale=s.locale,
            latency=s.latency,
            cpus=self.cpus,
            clock=s.clock,
            image=s.image,
            grpc_port=0 if self.config.pixels and grpc_available() else None,  # pixels: shared memory screenshots
            grpc_discovery=False,  # its port is read from the ready file: no discovery file for the pool's devices
        )
        with self.timing("queued"):
            self.fleet.booting.acquire()
        try:
            self._proc = proc
            with self.timing("spawn"):
                self.fleet.spawner().launch(proc)
            with self.timing("boot"):
                proc.wait_ready()
        finally:
            self.fleet.booting.release()
        return proc

    def open_device(self) -> AdbDevice:
        proc = self.running()
        server = self.fleet.server(self.slot)
        try:
            server.connect(proc.address)
            conn = link_embedded(server, proc.address, self.config.link)
            grpc_port = proc.info.get("grpc_port")
            attach_embedded_grpc(conn.link, f"127.0.0.1:{grpc_port}" if grpc_port else None, None)
        except BaseException:
            proc.stop()
            raise
        self._locale = (self.spec.locale, self.spec.locale)
        return AdbDevice.over(conn, self.config)

    def health(self) -> str | None:
        proc = self._proc
        if proc is not None and not proc.alive():
            return f"device process {proc.serial} (pid {proc.pid}) exited ({proc.exit_description()})"
        return super().health()

    def reset_now(self, device: AdbDevice, apps: Sequence[str], lang: str | None) -> None:
        """The boot snapshot in `lang` (default: the device's current language)."""
        want = (lang, lang) if lang else self._locale
        self.running_process().snapshot_load(boot_snapshot(*want))
        self._locale = want

    def ensure_locale(self, lang: str, ui: str | None = None) -> None:
        """The boot snapshot in that language (with `ui`: of a device set up in `lang`, its system language then
        switched to `ui`), unless the device is in it already."""
        want = (lang, ui or lang)
        if self._locale != want:
            self.running_process().snapshot_load(boot_snapshot(*want))
            self._locale = want

    def rebase(self) -> bool:
        """The boot snapshot of the device's current languages is saved again from its state now."""
        self.running_process().snapshot_save(boot_snapshot(*self._locale))
        return True

    def console(self, line: str) -> list[str] | None:
        """The device process' control console: the emulator console's protocol (`sms send`, `gsm call`, ...)."""
        return self.running_process().console(line)

    def running_process(self) -> DeviceProcess:
        if self._proc is None:
            raise RuntimeError("no device process")
        return self._proc

    def extra(self) -> ManifestRow:
        """A pinned device process' cores (`devices[i].cpus`)."""
        proc = self._proc
        return {"cpus": proc.info["cpus"]} if proc is not None and "cpus" in proc.info else {}

    def release(self) -> None:
        proc, self._proc = self._proc, None
        if proc is not None:
            proc.stop()


def prestart(profile: str, langs: tuple[str, ...]) -> None:
    """Start the device zygote of a pool of device processes about to be opened in this process (call it from the
    main thread, as early as the profile and languages are known): it imports and warms up while the caller does
    the rest of its start (a command's imports, loading the tasks), and the pool then forks its devices, the first
    one included, warm at once (`ProcessFleet.spawner`)."""
    prestart_zygote(profile, tuple(dict.fromkeys(("en", *langs))))


def cancel_prestart() -> None:
    """Stop the zygote `prestart` started if no pool took it (the run failed before its pool)."""
    stop_prestarted()


def process_fleet(spec: FleetSpec) -> tuple[ProcessFleet, list[Backend]]:
    fleet = ProcessFleet(spec)
    return fleet, [ProcessBackend(i, spec, fleet) for i in range(spec.size)]
