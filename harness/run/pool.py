"""The device pool: it owns the suite's devices and leases them to episodes.

Kinds of device (`isolation` for the embedded ones):

- `thread` (default): N embedded virtual devices in threads of this process behind one private adb server; their
  models are reachable (`model(i)`: fault knobs, event log) - what device tests use.
- `process`: each embedded virtual device is its own child process (`emulator.virtual.procdevice`), connected to
  the private adb server as a TCP serial; this process only runs agents, capture decoding and recording - what
  `droidharness run --devices N` uses. Children are recorded in the state directory and reaped by pid. Each may
  be pinned to a core of its own (`cpu_affinity`, `harness.run.affinity`: by default a pool of CPU-bound
  `instant` devices with at least one device per core).
- `in_process`: N virtual device models driven with no adb at all (run-loop tests).
- serials: phones, and emulators (`emulator-NNNN`, whose console is used for snapshot resets when it answers).

`lease(i, apps)` is what a suite worker calls before each episode: a cheap health check (a replacement if it
fails), then a reset by the fastest method the device has (`RESET_METHODS`), timed and returned for the
episode record. `failed(i, reason)` reports an infrastructure failure: the first gets the slot a fresh device
(`replace`), the second in a row quarantines the device - replaced where it can be (an embedded device), the
slot retired where it cannot (a phone gets no more episodes). `quarantined` lists what was quarantined.
"""

from __future__ import annotations

import logging
import os
import re
import threading
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from dataclasses import asdict, dataclass
from datetime import datetime, timezone
from typing import Any, Literal

from emulator.avd.console import EmulatorConsoleClient
from emulator.avd.errors import AvdError
from emulator.virtual import VirtualDevice, VirtualDeviceModel
from emulator.virtual.adbserver import PrivateAdbServer
from emulator.virtual.procdevice import DeviceProcess, Spawner, boot_snapshot, reap_orphans
from harness.device.controller import AdbDevice, DeviceConfig
from harness.device.inprocess import InProcessDevice
from harness.device.link import Link
from harness.device.preparation import DevicePreparation, PreparationPlan
from harness.device.prepare import prepare, reapply, restore
from harness.errors import ConfigError, DeviceError
from harness.run.affinity import CpuAffinity, check_policy, device_cpus, usable_cpus

log = logging.getLogger(__name__)

Isolation = Literal["thread", "process", "in_process"]
ISOLATIONS: tuple[str, ...] = ("thread", "process", "in_process")

# reset methods, fastest first per kind (recorded per episode as `reset_method`)
STATE_RESTORE = "state_restore"  # embedded device in this process: restore the model's boot state
SNAPSHOT_LOAD = "snapshot_load"  # embedded device in its own process: `avd snapshot load` on its control console
AVD_SNAPSHOT_LOAD = "avd_snapshot_load"  # an emulator: `avd snapshot load` on its console
APP_CLEAR = "app_clear"  # a phone: `pm clear` of the task's apps (the task's start state relaunches them)
RESET_METHODS = (STATE_RESTORE, SNAPSHOT_LOAD, AVD_SNAPSHOT_LOAD, APP_CLEAR)

QUARANTINE_AFTER = 2  # consecutive infrastructure failures of one slot's device
BOOT_SNAPSHOT = "droidharness-boot"
_EMULATOR_SERIAL = re.compile(r"^emulator-(\d+)$")


@dataclass(frozen=True)
class ResetRecord:
    """How a lease reset the device, and how long it took (seconds)."""

    method: str
    seconds: float


@dataclass(frozen=True)
class Lease:
    device: AdbDevice
    reset: ResetRecord


@dataclass(frozen=True)
class Quarantined:
    """A device taken out of service after failing `QUARANTINE_AFTER` times in a row (summary.json `quarantined`)."""

    slot: int
    serial: str
    kind: str
    failures: int
    reason: str
    replaced: bool  # a fresh device took the slot; False: the slot gets no more episodes
    at: str

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


class SlotRetiredError(DeviceError):
    """The slot's device was quarantined and cannot be replaced: no more episodes on it."""


class DevicePool:
    def __init__(
        self,
        count: int = 1,
        serials: list[str] | None = None,
        profile: str = "medium_phone",
        locale: str = "en",
        latency: str = "instant",
        config: DeviceConfig | None = None,
        in_process: bool = False,
        isolation: Isolation | None = None,
        preparation: PreparationPlan | None = None,
        langs: Sequence[str] = (),
        cpu_affinity: CpuAffinity = "auto",
    ) -> None:
        if serials and count not in (1, len(serials)):
            raise ConfigError(f"--devices {count} conflicts with {len(serials)} --device serial(s); give one")
        if count < 1:
            raise ConfigError(f"--devices must be >= 1, got {count}")
        iso = isolation or ("in_process" if in_process else "thread")
        if iso not in ISOLATIONS:
            raise ConfigError(f"unknown device isolation {iso!r}; choose one of {', '.join(ISOLATIONS)}")
        if in_process and iso != "in_process":
            raise ConfigError(f"in_process=True conflicts with isolation={iso!r}")
        if iso != "thread" and serials:
            raise ConfigError(f"{iso} devices are embedded virtual devices: give no serials")
        self.isolation: str = iso
        self.in_process = iso == "in_process"
        self.serials = list(serials or [])
        self.size = len(self.serials) or count
        self.profile, self.locale, self.latency = profile, locale, latency
        self.langs = tuple(dict.fromkeys([locale, *langs]))  # the languages the episodes run in (boot locale first)
        self.config = config or DeviceConfig()
        self.cpu_affinity = check_policy(cpu_affinity)  # which core each device process runs on (`affinity`)
        self._usable_cpus = usable_cpus()
        self.plan = preparation or PreparationPlan()  # applied to each device as it is opened (`prepared`)
        self._prepared: dict[int, DevicePreparation] = {}  # slot -> its current device's preparation
        self._originals: dict[int, DevicePreparation] = {}  # slot -> the first one: a phone's own values (restore)
        self._server: PrivateAdbServer | None = None
        self._server_up = threading.Event()  # set once `start` tried to start the private adb server
        self._virtual: dict[int, VirtualDevice] = {}  # slot -> VirtualDevice (thread) behind the adb server
        self._procs: dict[int, DeviceProcess] = {}  # slot -> DeviceProcess (process) behind the adb server
        self._models: dict[int, VirtualDeviceModel] = {}  # slot -> the embedded device's model (this process)
        self._devices: dict[int, AdbDevice] = {}
        self._baselines: dict[int, dict[str, Any]] = {}  # each embedded device's boot state (restored by resets)
        self._locales: dict[int, str] = {}  # slot -> the locale of a process device's current state
        self._consoles: dict[int, EmulatorConsoleClient] = {}  # slot -> console of an emulator with a boot snapshot
        self._failures: dict[int, int] = {}  # slot -> consecutive infrastructure failures
        self._retired: set[int] = set()
        self._serials: dict[int, str] = {}  # slot -> serial of its latest device (named after it is dropped)
        self.quarantined: list[Quarantined] = []
        self._lock = threading.Lock()
        self._spawner: Spawner | None = None  # process devices are started from one long-lived thread (PDEATHSIG)
        self._pending: dict[int, threading.Event] = {}  # slot -> set once its first device is up (or failed)
        self._start_errors: dict[int, BaseException] = {}  # slot -> why its first device could not be brought up
        self._starters: list[threading.Thread] = []
        self._booting = threading.Semaphore(os.cpu_count() or 1)  # device processes booting at once
        self._on_started: list[Callable[[int, dict[str, Any]], None]] = []

    @property
    def embedded(self) -> bool:
        return not self.serials

    def kind(self, i: int) -> str:
        """`virtual` (thread), `virtual-process`, `in-process`, `emulator` or `phone`."""
        if self.embedded:
            return {"thread": "virtual", "process": "virtual-process", "in_process": "in-process"}[self.isolation]
        return "emulator" if _EMULATOR_SERIAL.match(self.serials[i]) else "phone"

    @property
    def replaceable(self) -> bool:
        """Can a quarantined device be swapped for a fresh one? (embedded devices; a phone cannot)"""
        return self.embedded

    def start(self, wait: bool = True) -> DevicePool:
        """Bring every slot's device up, all at once: the private adb server first, then each slot's device in a
        thread of its own (device processes boot as many at a time as there are cores). With `wait` (the default)
        return when all are up; if one cannot be brought up, close what was opened and raise. With `wait=False`
        return at once: each slot is handed out (`slot(i)`) as soon as its own device is up - a run's first
        episode starts when the first device is - and a slot whose device could not be brought up raises
        `DeviceError` there (the run's driver then gets it a fresh one, as after any infrastructure failure)."""
        try:
            if self.isolation == "process":  # device processes boot while the adb server starts
                reap_orphans()
                self._spawner = self._new_spawner()
            else:
                self._start_server()
            for i in range(self.size):
                self._pending[i] = threading.Event()
                th = threading.Thread(target=self._bring_up, args=(i,), name=f"pool-start-{i}", daemon=True)
                self._starters.append(th)
                th.start()
            if self.isolation == "process":
                self._start_server()
            if wait:
                self.wait_started()
        except BaseException:
            self.close()
            raise
        return self

    def _new_spawner(self) -> Spawner:
        """Where the device processes come from: a pool of several forks them from a device zygote. When every
        device boots at once (no more of them than cores) they are forked at once and the zygote never warms up;
        else the first ones (a core each) are forked at once, and the zygote then draws the apps' first screens in
        the run's languages once, so that the devices after them boot warm."""
        cores = os.cpu_count() or 1
        warm_after = None if self.size <= cores else cores
        return Spawner(zygote=self.size > 1, profile=self.profile, langs=self.langs, warm_after=warm_after)

    def _start_server(self) -> None:
        """The private adb server embedded devices are reached through (set `_server_up` however it went)."""
        try:
            if self.embedded and not self.in_process:
                self._server = PrivateAdbServer().start()
        finally:
            self._server_up.set()

    def wait_started(self) -> None:
        """Wait until every slot's first device is up; raise the first slot's failure (`DeviceError`)."""
        for i in range(self.size):
            self._ready(i)

    def on_started(self, callback: Callable[[int, dict[str, Any]], None]) -> None:
        """Call `callback(slot, row)` once per slot as its first device comes up (at once for those already up;
        `row`: `describe(slot)`, its DeviceInfo and preparation),
        from the thread that brought it up: how a run records its devices in the manifest as they arrive."""
        with self._lock:
            self._on_started.append(callback)
            up = [(i, self.describe(i)) for i in sorted(self._devices)]
        for i, info in up:
            callback(i, info)

    def _bring_up(self, i: int) -> None:
        """Slot i's first device (in its own thread): wait for its process, open it, announce it."""
        try:
            if self.isolation == "process":
                with self._booting:  # as many boots at once as there are cores: the first devices are up soonest
                    (proc,) = self._launch_processes([i])
                    proc.wait_ready()
            dev = self._open(i)
            self._prepare(i, dev)
            with self._lock:
                self._devices[i] = dev
                callbacks = list(self._on_started)
        except BaseException as e:  # noqa: BLE001 - kept for whoever asks for the slot (`slot`, `wait_started`)
            self._start_errors[i] = e
            self._pending[i].set()
            return
        try:
            for cb in callbacks:  # the device is up whatever a listener makes of it
                cb(i, self.describe(i))
        except Exception as e:  # noqa: BLE001 - a listener's failure (the manifest not written) is not the device's
            log.warning("slot %d: announcing its device failed: %s", i, e)
        finally:
            self._pending[i].set()

    def _ready(self, i: int) -> None:
        """Block until slot i's first device is up; its start failure as a `DeviceError` naming the slot."""
        pending = self._pending.get(i)
        if pending is not None:
            pending.wait()
        e = self._start_errors.get(i)
        if e is not None and i not in self._devices:
            if isinstance(e, DeviceError):
                raise e
            raise DeviceError(f"device slot {i} could not be brought up: {type(e).__name__}: {e}") from e

    # --- opening devices ---------------------------------------------------------------------------------------
    def _launch_processes(self, slots: Iterable[int]) -> list[DeviceProcess]:
        """Launch the children of `slots` together (each boots on its own core); they are waited for apart."""
        procs = {
            i: DeviceProcess(
                serial=f"VIRTUAL{i + 1:04d}",
                profile=self.profile,
                locale=self.locale,
                latency=self.latency,
                cpus=device_cpus(i, self.size, self.latency, self.cpu_affinity, self._usable_cpus),
            )
            for i in slots
        }
        if self._spawner is None:
            self._spawner = self._new_spawner()
        for i, p in procs.items():
            self._procs[i] = p
            self._spawner.launch(p)
        return list(procs.values())

    def _start_processes(self, slots: Iterable[int]) -> None:
        """Start the children of `slots` together, then wait for all."""
        for p in self._launch_processes(slots):
            p.wait_ready()

    def _open(self, i: int) -> AdbDevice:
        if not self.embedded:
            dev = AdbDevice.connect(self.serials[i], config=self.config)
            if self.kind(i) == "emulator":
                self._prepare_emulator(i, dev)
            return dev
        if self.in_process:
            idev = InProcessDevice(
                self.profile, self.locale, self.latency, serial=f"INPROC{i + 1:04d}", config=self.config
            )
            self._models[i] = idev.model
            self._baselines[i] = idev.model.snapshot()
            return idev
        self._server_up.wait()
        server = self._server
        if server is None:
            raise DeviceError(f"slot {i}: the pool is not started (no private adb server)")
        if self.isolation == "process":
            proc = self._procs.get(i)
            if proc is None or not proc.alive():
                self._start_processes([i])
                proc = self._procs[i]
            try:
                server.connect(proc.address)
                link = Link(server.client, proc.address, self.config.link).start()
            except BaseException:
                proc.stop()
                raise
            self._locales[i] = self.locale
            address = proc.address
            return AdbDevice(link, self.config, cleanup=[link.close, lambda: server.disconnect(address)])
        vd = VirtualDevice(
            profile=self.profile, locale=self.locale, latency=self.latency, serial=f"VIRTUAL{i + 1:04d}"
        ).start()
        try:
            server.connect(vd.address)
            link = Link(server.client, vd.address, self.config.link).start()
        except BaseException:
            vd.stop()
            raise
        self._virtual[i] = vd
        self._models[i] = vd.model
        self._baselines[i] = vd.model.snapshot()
        return AdbDevice(link, self.config, cleanup=[link.close, lambda: server.disconnect(vd.address)], virtual=vd)

    def _prepare_emulator(self, i: int, dev: AdbDevice) -> None:
        """An emulator whose console answers gets a boot snapshot, loaded before each episode; one without a
        reachable console (or whose token file does not open it) is reset like a phone."""
        m = _EMULATOR_SERIAL.match(dev.serial)
        port = int(m.group(1)) if m else 0
        try:
            console = EmulatorConsoleClient(port, timeout=60.0).connect()
            console.snapshot_save(BOOT_SNAPSHOT)
        except AvdError as e:
            log.warning(
                "%s: no usable emulator console on port %d (%s); resetting by app data clear", dev.serial, port, e
            )
            return
        self._consoles[i] = console

    # --- preparation (harness/device/prepare.py) ----------------------------------------------------------------
    def _prepare(self, i: int, dev: AdbDevice) -> None:
        """Apply the pool's plan to slot i's freshly opened device and keep the record (manifest, `reapply` after
        each reset); the first record of a slot keeps the device's own values, which close puts back on a phone."""
        rec = prepare(dev, self.plan)
        for r in rec.not_set:
            log.warning("%s: preparation could not set %s: %s", dev.serial, r.name, r.reason)
        self._prepared[i] = rec
        self._originals.setdefault(i, rec)

    def _restore(self, i: int) -> None:
        """Put a phone's (or a user's emulator's) own settings back, as they were before the run."""
        rec = self._originals.get(i)
        if rec is None:
            return
        try:
            problems = restore(self._devices[i], rec)
        except Exception as e:  # noqa: BLE001 - a device gone at the end: say so, close the rest
            problems = [str(e)]
        for p in problems:
            log.warning("%s: could not restore its own settings: %s", rec.serial, p)

    def prepared(self, i: int) -> DevicePreparation | None:
        """What preparing slot i's current device set, could not set and why (None before it is up)."""
        return self._prepared.get(i)

    def describe(self, i: int) -> dict[str, Any]:
        """Slot i's device as a run's manifest lists it: its `DeviceInfo`, its `preparation` and, for a device
        process pinned to cores (`affinity`), the `cpus` it runs on."""
        row: dict[str, Any] = asdict(self._devices[i].info)
        proc = self._procs.get(i)
        if proc is not None and "cpus" in proc.info:
            row["cpus"] = proc.info["cpus"]
        rec = self._prepared.get(i)
        if rec is not None:
            row["preparation"] = rec.to_json()
        return row

    # --- access ------------------------------------------------------------------------------------------------
    def slot(self, i: int) -> AdbDevice:
        """Slot i's device (waiting for it while the pool brings it up)."""
        if i not in self._devices:
            self._ready(i)
        return self._devices[i]

    def model(self, i: int) -> VirtualDeviceModel | None:
        """Slot i's embedded virtual device model (fault knobs, event log); None for a device in another process
        or a real device."""
        return self._models.get(i)

    def process(self, i: int) -> DeviceProcess | None:
        """Slot i's `DeviceProcess` (its pid, its control console) for a process device, else None."""
        return self._procs.get(i)

    def profile_of(self, i: int) -> str:
        m = self._models.get(i)
        if m is not None:
            return m.profile.name
        return self.profile if i in self._procs else self._devices[i].info.model

    def serial_of(self, i: int) -> str:
        """The serial of slot i's device (its latest one when the slot has none open)."""
        if i in self._devices:
            return self._devices[i].serial
        return self.serials[i] if self.serials else self._serials.get(i, f"slot {i}")

    def usable(self, i: int) -> bool:
        """False once slot i's device was quarantined and could not be replaced."""
        return i not in self._retired

    # --- leasing -----------------------------------------------------------------------------------------------
    def reset_method(self, i: int) -> str:
        if i in self._models:
            return STATE_RESTORE
        if i in self._procs:
            return SNAPSHOT_LOAD
        if i in self._consoles:
            return AVD_SNAPSHOT_LOAD
        return APP_CLEAR

    def healthy(self, i: int) -> str | None:
        """A cheap device call through the same path episodes use; None when healthy, else why not."""
        proc = self._procs.get(i)
        if proc is not None and not proc.alive():
            return f"device process {proc.serial} (pid {proc.pid}) exited ({proc.exit_description()})"
        try:
            res = self._devices[i].link.shell("health check", "echo droidharness-ok", timeout=10.0)
        except Exception as e:  # noqa: BLE001 - any failure of the call is an unhealthy device
            return f"health check failed: {e}"
        if "droidharness-ok" not in res.text:
            return f"health check answered {res.text.strip()[:80]!r}"
        return None

    def lease(self, i: int, apps: tuple[str, ...] | list[str] = (), lang: str | None = None) -> Lease:
        """Slot i's device for the next episode: health-checked (a failing device counts as an infrastructure
        failure and is replaced or quarantined, then checked once more), reset (`reset`, timed) and, with `lang`,
        in that system language (`ensure_locale`)."""
        if i in self._retired:
            raise SlotRetiredError(f"device slot {i} is quarantined: no more episodes on it")
        if i not in self._devices:
            self._ready(i)  # still coming up: wait for it (or its start failure)
        problem = self.healthy(i)
        if problem is not None:
            serial = self.serial_of(i)
            log.warning("slot %d: device %s is unhealthy: %s", i, serial, problem)
            self.failed(i, f"{serial}: {problem}")
            problem = self.healthy(i)
            if problem is not None:
                raise DeviceError(f"device {self._devices[i].serial} (slot {i}): {problem}")
        record = self.reset(i, apps, lang)
        if lang is not None:
            self.ensure_locale(i, lang)
        return Lease(self._devices[i], record)

    def reset(self, i: int, apps: tuple[str, ...] | list[str] = (), lang: str | None = None) -> ResetRecord:
        """Restore slot i's device to a clean state by the fastest method it has (`reset_method`): the boot state
        of an embedded device (settings, app data, files, rotation; a process device's in `lang`, default its
        current language), a snapshot load on an emulator, the task's apps' data cleared on a phone (`apps`:
        packages). A reset that fails is a `DeviceError` naming the device and the method."""
        method = self.reset_method(i)
        t0 = time.perf_counter()
        try:
            if method == STATE_RESTORE:
                self._models[i].restore(self._baselines[i])
            elif method == SNAPSHOT_LOAD:
                want = lang or self._locales.get(i, self.locale)
                self._procs[i].snapshot_load(boot_snapshot(want))
                self._locales[i] = want
            elif method == AVD_SNAPSHOT_LOAD:
                self._consoles[i].snapshot_load(BOOT_SNAPSHOT)
            else:
                dev = self._devices[i]
                for pkg in apps:
                    dev.clear_app(pkg)
                dev.press_home()
            if i in self._prepared:  # a snapshot or boot state undoes the preparation: set it again (one round trip)
                reapply(self._devices[i], self._prepared[i])
        except DeviceError:
            raise
        except Exception as e:  # noqa: BLE001 - a console or process failure: name the device and the method
            raise DeviceError(f"device {self.serial_of(i)}: reset by {method} failed: {e}") from e
        return ResetRecord(method, round(time.perf_counter() - t0, 4))

    def ensure_locale(self, i: int, lang: str) -> None:
        """Make slot i's system language `lang` (en | zh) before an episode in that language. An embedded device
        switches (as picking a zh AVD would; a process device loads its boot snapshot in that language); a real
        device must already be set up in that language."""
        m = self._models.get(i)
        if m is not None:
            if m.locale != lang:
                m.set_locale(lang)
            return
        proc = self._procs.get(i)
        if proc is not None:
            if self._locales.get(i) != lang:
                proc.snapshot_load(boot_snapshot(lang))
                self._locales[i] = lang
            return
        locale = self._devices[i].info.locale or ""
        if not locale.lower().startswith(lang):
            raise ConfigError(
                f"device {self._devices[i].serial} runs in {locale or 'an unknown locale'}, but this "
                f"episode is in {lang!r}: switch the phone's language or choose --lang"
            )

    # --- failures ----------------------------------------------------------------------------------------------
    def succeeded(self, i: int) -> None:
        """Slot i's device ran an episode: its run of consecutive failures is over."""
        self._failures[i] = 0

    def failed(self, i: int, reason: str) -> AdbDevice:
        """An infrastructure failure on slot i's device. The first of a run gets the slot a fresh device
        (`replace`: a new embedded device, a reconnection to a phone); the `QUARANTINE_AFTER`-th in a row
        quarantines the device (logged, listed in `quarantined`): an embedded device is replaced, a phone's slot
        is retired (`SlotRetiredError`). Raises `DeviceError` when no fresh device can be brought up."""
        n = self._failures.get(i, 0) + 1
        self._failures[i] = n
        if n < QUARANTINE_AFTER:
            return self.replace(i)
        serial, kind = self.serial_of(i), self.kind(i)
        self._failures[i] = 0
        log.warning(
            "quarantined device %s (slot %d) after %d failures in a row: %s%s",
            serial,
            i,
            n,
            reason,
            "; replacing it" if self.replaceable else "; the slot gets no more episodes",
        )
        replaced = False
        try:
            if not self.replaceable:
                self._retired.add(i)
                self._drop(i)
                raise SlotRetiredError(f"device {serial} (slot {i}) quarantined after {n} failures in a row: {reason}")
            dev = self.replace(i)
            replaced = True
            return dev
        finally:
            q = Quarantined(
                slot=i,
                serial=serial,
                kind=kind,
                failures=n,
                reason=reason,
                replaced=replaced,
                at=datetime.now(timezone.utc).isoformat(timespec="seconds"),
            )
            with self._lock:
                self.quarantined.append(q)

    def replace(self, i: int) -> AdbDevice:
        """Close slot i's device and open a fresh one (a new virtual device, or a reconnection)."""
        with self._lock:
            self._drop(i)
            self._start_errors.pop(i, None)
            for attempt in (1, 2):  # the private adb server may die (again) while the fresh device opens
                self._ensure_server()
                try:
                    self._devices[i] = self._open(i)
                    self._prepare(i, self._devices[i])
                    return self._devices[i]
                except Exception as e:  # noqa: BLE001 - name the slot in the error
                    self._drop(i)
                    server_died = self._server is not None and not self._server.alive()
                    if attempt == 1 and server_died:
                        log.warning("slot %d: the private adb server died while its fresh device opened", i)
                        continue
                    if isinstance(e, DeviceError):
                        raise
                    raise DeviceError(f"could not open a fresh device for slot {i}: {e}") from e
            raise AssertionError("unreachable")

    def _drop(self, i: int) -> None:
        """Close slot i's device and whatever backs it (its thread device, its child process, its console)."""
        old = self._devices.pop(i, None)
        if old is not None:
            self._serials[i] = old.serial
            try:
                old.close()
            except Exception as e:  # noqa: BLE001 - the old device is being thrown away
                log.debug("closing %s: %s", old.serial, e)
        self._models.pop(i, None)
        vd = self._virtual.pop(i, None)
        if vd is not None:
            vd.stop()
        proc = self._procs.pop(i, None)
        if proc is not None:
            proc.stop()
        console = self._consoles.pop(i, None)
        if console is not None:
            console.close()

    def _ensure_server(self) -> None:
        """The harness owns its private adb server: if it died (connection refused on its port), start it again
        on the same port; the devices reconnect as their slots are replaced."""
        if self._server is None or self._server.alive():
            return
        log.warning("the private adb server on port %d is gone; restarting it on the same port", self._server.port)
        try:
            self._server.restart()
        except Exception as e:  # noqa: BLE001 - name the server in the error the slot reports
            raise DeviceError(
                f"the private adb server at 127.0.0.1:{self._server.port} died and could not be restarted: {e}"
            ) from e

    def close(self) -> None:
        self._server_up.set()  # a start that failed before the server: nothing will come
        for th in self._starters:  # devices still coming up are closed with the rest
            th.join()
        self._starters.clear()
        for i in list(self._devices) if not self.embedded else []:
            self._restore(i)
        devices = list(self._devices.values())
        # each close waits on its device (uiautomator2 stopped, adb disconnect): all at once
        with ThreadPoolExecutor(max(1, len(devices)), thread_name_prefix="pool-close") as closing:
            list(closing.map(_close_device, devices))
        for vd in self._virtual.values():
            vd.stop()
        for proc in self._procs.values():
            proc.request_stop()  # all at once, then wait for each
        for proc in self._procs.values():
            proc.stop()
        for console in self._consoles.values():
            console.close()
        self._devices.clear()
        self._pending.clear()
        self._start_errors.clear()
        self._virtual.clear()
        self._procs.clear()
        self._consoles.clear()
        if self._spawner is not None:
            self._spawner.close()
            self._spawner = None
        if self._server is not None:
            self._server.stop()

    def __enter__(self) -> DevicePool:
        return self if self._pending else self.start()  # a started pool is not started twice

    def __exit__(self, *exc: object) -> None:
        self.close()


def _close_device(dev: AdbDevice) -> None:
    try:
        dev.close()
    except Exception as e:  # noqa: BLE001 - closing a device that is being thrown away; log and go on
        log.debug("closing %s: %s", dev.serial, e)


@contextmanager
def open_pool(
    pool: DevicePool | None,
    count: int = 1,
    serials: Iterable[str] = (),
    *,
    profile: str = "medium_phone",
    latency: str = "instant",
    isolation: Isolation | None = None,
    wait: bool = False,
    langs: Sequence[str] = (),
    cpu_affinity: CpuAffinity = "auto",
) -> Iterator[DevicePool]:
    """The devices of a run: `pool` when the caller gives a started one (left open), else a pool of `count`
    embedded devices or of the `serials`, started here (all at once; embedded devices unless `wait` each handed
    out as soon as it is up) and closed at the end."""
    if pool is not None:
        yield pool
        return
    serials = list(serials)
    # a serial names a device that is there already: connecting is quick, and a wrong one is the user's mistake,
    # said at once; embedded devices take their boot time, and the run starts on the first one up
    own = DevicePool(
        count, serials, profile=profile, latency=latency, isolation=isolation, langs=langs, cpu_affinity=cpu_affinity
    ).start(wait=wait or bool(serials))
    try:
        yield own
    finally:
        own.close()
