"""One slot's device, whatever its kind: the `Backend` protocol the pool leases, health-checks, resets and replaces
devices through; `Fleet`, what the backends of one pool share (a private adb server, a device zygote); the
records both use; and `AdbBackend`, what every kind over an `AdbDevice` has in common (preparation, the health
check, the manifest row, closing).

A kind of device is one module of this package: `embedded` (virtual devices in threads of this process),
`processes` (device processes), `inprocess` (no adb), `emulator` (a running emulator by its `emulator-NNNN`
serial), `phone` (any other serial); `kinds` picks them for a pool. A new kind is a new module with a backend
class and, where its devices share something, a fleet - and its entry in `kinds`.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import asdict, dataclass, replace
from typing import TYPE_CHECKING, Any, Protocol

from harness.device.controller import AdbDevice, DeviceConfig
from harness.device.preparation import DevicePreparation, PreparationPlan
from harness.device.prepare import reapply, restore
from harness.device.provision import prepare_device
from harness.errors import ConfigError, DeviceError
from harness.run.fleet.affinity import CpuAffinity

if TYPE_CHECKING:
    from emulator.virtual import VirtualDeviceModel
    from emulator.virtual.adbserver import PrivateAdbServer
    from emulator.virtual.procdevice import DeviceProcess

log = logging.getLogger(__name__)

# reset methods, fastest first per kind (recorded per episode as `reset_method`)
STATE_RESTORE = "state_restore"  # embedded device in this process: restore the model's boot state
SNAPSHOT_LOAD = "snapshot_load"  # embedded device in its own process: `avd snapshot load` on its control console
AVD_SNAPSHOT_LOAD = "avd_snapshot_load"  # an emulator: `avd snapshot load` on its console
GRPC_SNAPSHOT_LOAD = "grpc_snapshot_load"  # an emulator with a gRPC door: SnapshotService.LoadSnapshot
APP_CLEAR = "app_clear"  # a phone: `pm clear` of the task's apps (the task's start state relaunches them)
RESET_METHODS = (STATE_RESTORE, SNAPSHOT_LOAD, GRPC_SNAPSHOT_LOAD, AVD_SNAPSHOT_LOAD, APP_CLEAR)

ManifestRow = dict[str, Any]  # a device as a run's manifest lists it (JSON)
# what a device's start-up is made of, in order (manifest `devices[i].startup`, seconds; a kind has the ones it goes
# through): waiting for a boot slot, its spawn (a device process: the spawner's queue, the zygote's start and warm-up,
# the fork), its boot until it serves, connecting it (adb connect, the link, its info), its preparation, waiting then
# for what its link opens in the background (uiautomator2, the kept shell); and `up`, when the pool handed it out,
# from the pool's start (its first episode can start: the pool's, added to a row that has the others)
STARTUP_PHASES = ("queued", "spawn", "boot", "connect", "prepare", "link", "up")
# an embedded device's system image: a phone's user build, or the emulator's userdebug one (`adb root` works: what
# AndroidWorld's set-up needs)
IMAGES = ("phone", "emulator")


@dataclass(frozen=True)
class ResetRecord:
    """How a lease reset the device, and how long it took (seconds)."""

    method: str
    seconds: float


@dataclass(frozen=True)
class FleetSpec:
    """What a pool asks of its devices: how many, which serials, and how embedded ones are made."""

    size: int
    serials: tuple[str, ...]
    isolation: str
    profile: str
    locale: str
    latency: str
    langs: tuple[str, ...]
    config: DeviceConfig
    cpu_affinity: CpuAffinity
    usable_cpus: tuple[int, ...]
    clock: str = "real"  # embedded devices' clock: real or virtual (simulated time); the others keep their own
    image: str = "phone"  # embedded devices' system image: phone (user build) or emulator (userdebug, `adb root`)
    apps: tuple[str, ...] = ()  # the packages the run's tasks use: what a device zygote warms up (empty: every app)


class Backend(Protocol):
    """One slot's device. `start` opens one (the first, or a fresh one after `close`); the pool then `prepare`s
    it, and before each episode checks its `health` and `reset`s it by the kind's `reset_method`."""

    kind: str  # virtual | virtual-process | in-process | emulator | phone (summary.json `quarantined[].kind`)
    replaceable: bool  # a quarantined device can be swapped for a fresh one (else its slot is retired)

    @property
    def reset_method(self) -> str: ...

    @property
    def device(self) -> AdbDevice | None: ...

    @property
    def serial(self) -> str:
        """Its device's serial; its latest one's (or the slot's name) while none is open."""
        ...

    @property
    def profile(self) -> str: ...

    @property
    def preparation(self) -> DevicePreparation | None: ...

    @property
    def model(self) -> VirtualDeviceModel | None: ...

    @property
    def process(self) -> DeviceProcess | None: ...

    def start(self) -> AdbDevice: ...

    def prepare(self, plan: PreparationPlan) -> DevicePreparation: ...

    def health(self) -> str | None: ...

    def reset(self, apps: Sequence[str] = (), lang: str | None = None) -> ResetRecord: ...

    def ensure_locale(self, lang: str, ui: str | None = None) -> None: ...

    def console(self, line: str) -> list[str] | None:
        """One command on the device's emulator console (its reply lines); None: the device has none."""
        ...

    def rebase(self) -> bool:
        """The device's state now becomes what its resets restore (an outside suite's one-time app set-up);
        False: its kind's resets cannot keep it."""
        ...

    def describe(self) -> ManifestRow: ...

    def restore(self) -> None: ...

    def close(self) -> None: ...


class Fleet(Protocol):
    """What the backends of one pool share and the pool starts, heals and closes with them: `begin` before any
    slot comes up, `serve` while they come up, `heal` before a fresh device opens, `close` after every backend."""

    @property
    def adb_server(self) -> PrivateAdbServer | None: ...

    def begin(self) -> None: ...

    def serve(self) -> None: ...

    def cancel(self) -> None:
        """Nothing more will be served: wake whatever waits for it (a pool closed while it starts)."""
        ...

    def heal(self) -> None: ...

    def broken(self) -> str | None:
        """What shared piece died since it was served (a fresh device may open once more), else None."""
        ...

    def close(self) -> None: ...


class NothingShared:
    """The fleet of devices that share nothing the harness starts (phones and emulators on the user's adb
    server, in-process devices)."""

    adb_server: PrivateAdbServer | None = None

    def begin(self) -> None:
        return None

    def serve(self) -> None:
        return None

    def cancel(self) -> None:
        return None

    def heal(self) -> None:
        return None

    def broken(self) -> str | None:
        return None

    def close(self) -> None:
        return None


class AdbBackend:
    """What every kind over an `AdbDevice` shares. A kind implements `open_device` (a fresh device), `reset_now`
    (its reset, without the preparation) and `release` (what backs its device), and says its `kind`,
    `reset_method` and whether it is `replaceable`."""

    kind = ""
    replaceable = True

    def __init__(self, slot: int, config: DeviceConfig, serial: str | None = None) -> None:
        self.slot = slot
        # its links open their sessions (uiautomator2, the kept shell) while the device is prepared (`prepare`)
        self.config = replace(config, link=replace(config.link, open_in_background=True))
        self._device: AdbDevice | None = None
        self._serial = serial or f"slot {slot}"  # the latest device's serial (named after it is closed)
        self._prepared: DevicePreparation | None = None  # the current device's preparation
        self._original: DevicePreparation | None = None  # the first one: a phone's own values (`restore`)
        self.startup: dict[str, float] = {}  # the current device's start, seconds by phase (`STARTUP_PHASES`)

    # --- what a kind says -------------------------------------------------------------------------------------
    @property
    def reset_method(self) -> str:
        raise NotImplementedError

    def open_device(self) -> AdbDevice:
        raise NotImplementedError

    def reset_now(self, device: AdbDevice, apps: Sequence[str], lang: str | None) -> None:
        raise NotImplementedError

    def release(self) -> None:
        """Stop what backed the device just closed (its thread device, its child process, its console)."""
        return None

    def extra(self) -> ManifestRow:
        """What the manifest row adds to the device's `DeviceInfo` before its preparation."""
        return {}

    # --- the protocol -----------------------------------------------------------------------------------------
    @property
    def device(self) -> AdbDevice | None:
        return self._device

    @property
    def serial(self) -> str:
        return self._device.serial if self._device is not None else self._serial

    @property
    def profile(self) -> str:
        return self.opened().info.model

    @property
    def preparation(self) -> DevicePreparation | None:
        return self._prepared

    @property
    def model(self) -> VirtualDeviceModel | None:
        return None

    @property
    def process(self) -> DeviceProcess | None:
        return None

    def opened(self) -> AdbDevice:
        if self._device is None:
            raise DeviceError(f"device slot {self.slot}: no device is open")
        return self._device

    @contextmanager
    def timing(self, phase: str) -> Iterator[None]:
        """Add the time the block takes to the device's `startup[phase]`."""
        t0 = time.perf_counter()
        try:
            yield
        finally:
            self.startup[phase] = round(self.startup.get(phase, 0.0) + time.perf_counter() - t0, 4)

    def start(self) -> AdbDevice:
        """A fresh device (`open_device`); what opening it took beyond the phases its kind timed is `connect`."""
        self.startup = {}
        t0 = time.perf_counter()
        dev = self.open_device()
        self.startup["connect"] = round(max(0.0, time.perf_counter() - t0 - sum(self.startup.values())), 4)
        self._device = dev
        self._serial = dev.serial
        return dev

    def prepare(self, plan: PreparationPlan) -> DevicePreparation:
        """Apply `plan` to the freshly opened device and keep the record (manifest, `reapply` after each reset);
        the slot's first record keeps the device's own values, which `restore` puts back on a phone. The
        sessions its link opens in the background (uiautomator2, the kept shell) open meanwhile: it returns once
        they are open too."""
        dev = self.opened()
        with self.timing("prepare"):
            rec = prepare_device(dev, plan)
        self._prepared = rec
        if self._original is None:
            self._original = rec
        with self.timing("link"):
            dev.wait_open()
        return rec

    def health(self) -> str | None:
        """A cheap device call through the same path episodes use; None when healthy, else why not."""
        try:
            res = self.opened().link.quick_shell("health check", "echo droidharness-ok", timeout=10.0)
        except Exception as e:  # noqa: BLE001 - any failure of the call is an unhealthy device
            return f"health check failed: {e}"
        if "droidharness-ok" not in res.text:
            return f"health check answered {res.text.strip()[:80]!r}"
        return None

    def reset(self, apps: Sequence[str] = (), lang: str | None = None) -> ResetRecord:
        """A clean device by the kind's `reset_method`, its preparation set again (a snapshot or boot state
        undoes it: one round trip), timed; the method recorded is the one that reset it (a kind may fall back
        to another during the reset). A reset that fails is a `DeviceError` naming the device and method."""
        method = self.reset_method
        t0 = time.perf_counter()
        try:
            dev = self.opened()
            self.reset_now(dev, apps, lang)
            if self._prepared is not None:
                reapply(dev, self._prepared, dev.quick_shell)
        except DeviceError:
            raise
        except Exception as e:  # noqa: BLE001 - a console or process failure: name the device and the method
            raise DeviceError(f"device {self.serial}: reset by {method} failed: {e}") from e
        return ResetRecord(self.reset_method, round(time.perf_counter() - t0, 4))

    def ensure_locale(self, lang: str, ui: str | None = None) -> None:
        """A device the harness does not make must already run in `lang` (en | zh), or in `ui` when the episode
        asks for that system language over content in `lang`: its language is its own."""
        dev = self.opened()
        locale = dev.info.locale or ""
        want = ui or lang
        if not locale.lower().startswith(want):
            what = f"episode is in {lang!r}" if want == lang else f"episode asks for the system language {want!r}"
            raise ConfigError(
                f"device {dev.serial} runs in {locale or 'an unknown locale'}, but this "
                f"{what}: switch the phone's language or choose --lang"
            )

    def console(self, line: str) -> list[str] | None:
        """One command on the device's emulator console (what `adb emu LINE` reaches): its reply lines; None for a
        kind without a console (a phone, a device in a thread)."""
        del line
        return None

    def rebase(self) -> bool:
        """The device's current state becomes what its resets restore; False for a kind whose resets cannot keep
        it (a phone: its apps' data is cleared, and set up again when needed)."""
        return False

    def describe(self) -> ManifestRow:
        """The device as a run's manifest lists it: its `DeviceInfo`, what the kind adds (a pinned device
        process' `cpus`), its `startup` and its `preparation`."""
        row: ManifestRow = asdict(self.opened().info)
        row.update(self.extra())
        if self.startup:
            row["startup"] = {k: self.startup[k] for k in STARTUP_PHASES if k in self.startup}
        if self._prepared is not None:
            row["preparation"] = self._prepared.to_json()
        return row

    def restore(self) -> None:
        """Put the device's own settings back, as they were before the run (phones and user's emulators)."""
        return None

    def restore_own_settings(self) -> None:
        rec, dev = self._original, self._device
        if rec is None or dev is None:
            return
        try:
            problems = restore(dev, rec)
        except Exception as e:  # noqa: BLE001 - a device gone at the end: say so, close the rest
            problems = [str(e)]
        for p in problems:
            log.warning("%s: could not restore its own settings: %s", rec.serial, p)

    def close(self) -> None:
        """Close the device (uiautomator2 stopped, adb disconnected) and what backs it."""
        dev, self._device = self._device, None
        if dev is not None:
            try:
                dev.close()
            except Exception as e:  # noqa: BLE001 - the device is being thrown away
                log.debug("closing %s: %s", dev.serial, e)
        self.release()
