"""The device pool: it owns the suite's devices and leases them to episodes, over one backend per slot
(`backend.Backend`, one module per kind of device; `kinds` picks them). The pool only orchestrates - it brings the
slots up together, leases, health-checks, quarantines and replaces; what a device is, how it is reset and what
backs it are its backend's.

Kinds of device (`isolation` for the embedded ones):

- `thread` (default, `embedded`): N embedded virtual devices in threads of this process behind one private adb
  server; their models are reachable (`model(i)`: fault knobs, event log) - what device tests use.
- `process` (`processes`): each embedded virtual device is its own child process (`emulator.virtual.procdevice`),
  connected to the private adb server as a TCP serial; this process only runs agents, capture decoding and
  recording - what `droidharness run --devices N` uses. Children are recorded in the state directory and reaped by
  pid. Each may be pinned to a core of its own (`cpu_affinity`, `affinity`: by default a pool of CPU-bound
  `instant` devices with at least one device per core).
- `in_process` (`inprocess`): N virtual device models driven with no adb at all (run-loop tests).
- serials: phones (`phone`), and emulators (`emulator`: `emulator-NNNN`, whose console is used for snapshot resets
  when it answers).

`clock`: the embedded devices' clock, `real` (the host's) or `virtual` (simulated time: a device's waits advance
its clock instead of sleeping; emulator.virtual.clock); phones and emulators keep their own (`virtual` is a
`ConfigError` for them).

`lease(i, apps)` is what a suite worker calls before each episode: a cheap health check (a replacement if it
fails), then a reset by the fastest method the device has (`backend.RESET_METHODS`), timed and returned for the
episode record. `failed(i, reason)` reports an infrastructure failure: the first gets the slot a fresh device
(`replace`), the second in a row quarantines the device - replaced where it can be (an embedded device), the
slot retired where it cannot (a phone gets no more episodes). `quarantined` lists what was quarantined.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from dataclasses import asdict, dataclass, replace
from datetime import datetime, timezone
from functools import partial
from typing import TYPE_CHECKING, Any

from harness.device.controller import AdbDevice, DeviceConfig
from harness.device.devicetime import CLOCKS
from harness.device.preparation import DevicePreparation, PreparationPlan
from harness.device.slotdoors import SlotDoors
from harness.errors import ConfigError, DeviceError
from harness.run.fleet.affinity import CpuAffinity, check_policy, usable_cpus
from harness.run.fleet.backend import IMAGES, Backend, Fleet, FleetSpec, ManifestRow, ResetRecord
from harness.run.fleet.kinds import ISOLATIONS, Isolation, build_fleet

if TYPE_CHECKING:
    from emulator.virtual import VirtualDeviceModel
    from emulator.virtual.adbserver import PrivateAdbServer
    from emulator.virtual.procdevice import DeviceProcess

log = logging.getLogger(__name__)

QUARANTINE_AFTER = 2  # consecutive infrastructure failures of one slot's device


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
        clock: str = "real",
        image: str = "phone",
        apps: Sequence[str] = (),  # the packages the run's tasks use (`FleetSpec.apps`: what a zygote warms up)
    ) -> None:
        if clock not in CLOCKS:
            raise ConfigError(f"unknown clock {clock!r}; choose one of: {', '.join(CLOCKS)}")
        if image not in IMAGES:
            raise ConfigError(f"unknown system image {image!r}; choose one of: {', '.join(IMAGES)}")
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
        self.clock = clock  # the embedded devices' clock (a phone or an emulator refuses `virtual`: ConfigError)
        self.langs = tuple(dict.fromkeys([locale, *langs]))  # the languages the episodes run in (boot locale first)
        self.config = replace(config or DeviceConfig(), clock=clock)
        self.cpu_affinity = check_policy(cpu_affinity)  # which core each device process runs on (`affinity`)
        self.plan = preparation or PreparationPlan()  # applied to each device as it is opened (`prepared`)
        spec = FleetSpec(
            size=self.size,
            serials=tuple(self.serials),
            isolation=iso,
            profile=profile,
            locale=locale,
            latency=latency,
            langs=self.langs,
            config=self.config,
            cpu_affinity=self.cpu_affinity,
            usable_cpus=usable_cpus(),
            clock=clock,
            image=image,
            apps=tuple(dict.fromkeys(apps)),
        )
        self._fleet: Fleet
        self._fleet, self._backends = self.make_fleet(spec)
        self._devices: dict[int, AdbDevice] = {}  # slot -> its device, once up and prepared
        self._failures: dict[int, int] = {}  # slot -> consecutive infrastructure failures
        self._retired: set[int] = set()
        self.quarantined: list[Quarantined] = []
        self._lock = threading.Lock()
        self._pending: dict[int, threading.Event] = {}  # slot -> set once its first device is up (or failed)
        self._start_errors: dict[int, BaseException] = {}  # slot -> why its first device could not be brought up
        self._starters: list[threading.Thread] = []
        self._began = 0.0  # when `start` began (time.perf_counter)
        self._up: dict[int, float] = {}  # slot -> seconds from `start` until its first device was handed out
        self._on_started: list[Callable[[int, dict[str, Any]], None]] = []
        self._closing = threading.Lock()  # one close at a time; a second one, or one after it, finds it closed
        self._closed = False

    def make_fleet(self, spec: FleetSpec) -> tuple[Fleet, list[Backend]]:
        """The fleet and one backend per slot for `spec` (`kinds.build_fleet`); the pool needs nothing else of
        a kind, so a pool over other backends is this method overridden."""
        return build_fleet(spec)

    @property
    def embedded(self) -> bool:
        return not self.serials

    @property
    def backends(self) -> tuple[Backend, ...]:
        """One per slot."""
        return tuple(self._backends)

    @property
    def _server(self) -> PrivateAdbServer | None:
        """The private adb server the pool's devices are reached through, if it started one."""
        return self._fleet.adb_server

    def kind(self, i: int) -> str:
        """`virtual` (thread), `virtual-process`, `in-process`, `emulator` or `phone`."""
        return self._backends[i].kind

    @property
    def replaceable(self) -> bool:
        """Can a quarantined device be swapped for a fresh one? (embedded devices; a phone cannot)"""
        return all(b.replaceable for b in self._backends)

    def start(self, wait: bool = True) -> DevicePool:
        """Bring every slot's device up, all at once: each slot's device in a thread of its own, while the
        fleet's shared pieces start (the private adb server; device processes boot as many at a time as there
        are cores). With `wait` (the default) return when all are up; if one cannot be brought up, close what was
        opened and raise. With `wait=False` return at once: each slot is handed out (`slot(i)`) as soon as its own
        device is up - a run's first episode starts when the first device is - and a slot whose device could not
        be brought up raises `DeviceError` there (the run's driver then gets it a fresh one, as after any
        infrastructure failure)."""
        self._began = time.perf_counter()
        self._closed = False
        try:
            self._fleet.begin()
            for i in range(self.size):
                self._pending[i] = threading.Event()
                th = threading.Thread(target=self._bring_up, args=(i,), name=f"pool-start-{i}", daemon=True)
                self._starters.append(th)
                th.start()
            self._fleet.serve()
            if wait:
                self.wait_started()
        except BaseException:
            self.close()
            raise
        return self

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
        """Slot i's first device (in its own thread): open it, prepare it, announce it."""
        try:
            dev = self._open(i)
            self._backends[i].prepare(self.plan)
            self._up[i] = round(time.perf_counter() - self._began, 4)
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

    def _open(self, i: int) -> AdbDevice:
        """A device for slot i, from its backend (the first, or a fresh one after `_drop`)."""
        return self._backends[i].start()

    def prepared(self, i: int) -> DevicePreparation | None:
        """What preparing slot i's current device set, could not set and why (None before it is up)."""
        return self._backends[i].preparation

    def describe(self, i: int) -> ManifestRow:
        """Slot i's device as a run's manifest lists it: its `DeviceInfo`, its `preparation`, its `startup` (the
        seconds of each phase of its start, `backend.STARTUP_PHASES`, and `up`: when the pool handed the slot's
        first device out, from the pool's start) and, for a device process pinned to cores (`affinity`), the
        `cpus` it runs on."""
        row = self._backends[i].describe()
        up = self._up.get(i)
        if up is not None and isinstance(row.get("startup"), dict):
            row["startup"] = {**row["startup"], "up": up}
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
        return self._backends[i].model

    def process(self, i: int) -> DeviceProcess | None:
        """Slot i's `DeviceProcess` (its pid, its control console) for a process device, else None."""
        return self._backends[i].process

    def profile_of(self, i: int) -> str:
        return self._backends[i].profile

    def serial_of(self, i: int) -> str:
        """The serial of slot i's device (its latest one when the slot has none open)."""
        return self._backends[i].serial

    def usable(self, i: int) -> bool:
        """False once slot i's device was quarantined and could not be replaced."""
        return i not in self._retired

    # --- leasing -----------------------------------------------------------------------------------------------
    def reset_method(self, i: int) -> str:
        return self._backends[i].reset_method

    def healthy(self, i: int) -> str | None:
        """A cheap device call through the same path episodes use; None when healthy, else why not."""
        return self._backends[i].health()

    def lease(
        self, i: int, apps: tuple[str, ...] | list[str] = (), lang: str | None = None, ui: str | None = None
    ) -> Lease:
        """Slot i's device for the next episode: health-checked (a failing device counts as an infrastructure
        failure and is replaced or quarantined, then checked once more), reset (`reset`, timed) and, with `lang`,
        in that language (`ensure_locale`; with `ui`, the system language `ui` over content in `lang`)."""
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
            self.ensure_locale(i, lang, ui)
        return Lease(self._devices[i], record)

    def reset(self, i: int, apps: tuple[str, ...] | list[str] = (), lang: str | None = None) -> ResetRecord:
        """Restore slot i's device to a clean state by the fastest method it has (`reset_method`): the boot state
        of an embedded device (settings, app data, files, rotation; a process device's in `lang`, default its
        current language), a snapshot load on an emulator, the task's apps' data cleared on a phone (`apps`:
        packages). A reset that fails is a `DeviceError` naming the device and the method."""
        return self._backends[i].reset(apps, lang)

    def console(self, i: int, line: str) -> list[str] | None:
        """One command on slot `i`'s emulator console (its reply lines); None: its device has none."""
        return self._backends[i].console(line)

    def rebase(self, i: int) -> bool:
        """Slot `i`'s device state now becomes what its resets restore (False: its kind cannot keep it)."""
        return self._backends[i].rebase()

    def slot_doors(self, i: int) -> SlotDoors:
        """What an outside suite reaches of slot `i` beyond its device: its console, and `rebase`."""
        return SlotDoors(partial(self.console, i), partial(self.rebase, i))

    def ensure_locale(self, i: int, lang: str, ui: str | None = None) -> None:
        """Make slot i's system language `lang` (en | zh) before an episode in that language. An embedded device
        switches (as picking a zh AVD would; a process device loads its boot snapshot in that language); a real
        device must already be set up in that language. With `ui` (the `locale=` perturbation), an embedded
        device's system language becomes `ui` over the content of a device set up in `lang` (a user who switched
        the phone's language); a real device must already run in `ui`."""
        self._backends[i].ensure_locale(lang, ui)

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
        backend = self._backends[i]
        serial, kind = self.serial_of(i), backend.kind
        self._failures[i] = 0
        log.warning(
            "quarantined device %s (slot %d) after %d failures in a row: %s%s",
            serial,
            i,
            n,
            reason,
            "; replacing it" if backend.replaceable else "; the slot gets no more episodes",
        )
        replaced = False
        try:
            if not backend.replaceable:
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
            for attempt in (1, 2):  # what the devices share may die (again) while the fresh device opens
                self._fleet.heal()
                try:
                    dev = self._open(i)
                    self._backends[i].prepare(self.plan)
                    self._devices[i] = dev
                    return dev
                except Exception as e:  # noqa: BLE001 - name the slot in the error
                    self._drop(i)
                    broken = self._fleet.broken()
                    if attempt == 1 and broken is not None:
                        log.warning("slot %d: %s while its fresh device opened", i, broken)
                        continue
                    if isinstance(e, DeviceError):
                        raise
                    raise DeviceError(f"could not open a fresh device for slot {i}: {e}") from e
            raise AssertionError("unreachable")

    def _drop(self, i: int) -> None:
        """Close slot i's device and whatever backs it (its backend's: a thread device, a child process, a
        console)."""
        self._devices.pop(i, None)
        self._up.pop(i, None)  # a fresh device is not the one the pool's start brought up
        self._backends[i].close()

    def close(self) -> None:
        """Close every device: the devices still coming up with the rest; a phone's own settings put back
        first; the devices and what backs them all at once; what they share last. Once: a close while another runs
        (a run closing its devices in the background while a stop closes them too) waits for it."""
        with self._closing:
            if not self._closed:
                self._close()
                self._closed = True

    def _close(self) -> None:
        self._fleet.cancel()  # a start that failed before its shared pieces: nothing will come
        for th in self._starters:
            th.join()
        self._starters.clear()
        for i in sorted(self._devices):
            self._backends[i].restore()
        # each close waits on its device (uiautomator2 stopped, adb disconnect, a child process' exit): all at once
        try:
            with ThreadPoolExecutor(max(1, len(self._backends)), thread_name_prefix="pool-close") as closing:
                list(closing.map(_close_backend, self._backends))
        except RuntimeError:  # closed from an atexit hook (a Gymnasium env): no executor then, so one by one
            for backend in self._backends:
                _close_backend(backend)
        self._devices.clear()
        self._up.clear()
        self._pending.clear()
        self._start_errors.clear()
        self._fleet.close()

    def __enter__(self) -> DevicePool:
        return self if self._pending else self.start()  # a started pool is not started twice

    def __exit__(self, *exc: object) -> None:
        self.close()


def _close_backend(backend: Backend) -> None:
    try:
        backend.close()
    except Exception as e:  # noqa: BLE001 - closing a device that is being thrown away; log and go on
        log.debug("closing %s: %s", backend.serial, e)


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
    clock: str = "real",
    image: str = "phone",
    apps: Sequence[str] = (),
) -> Iterator[DevicePool]:
    """The devices of a run: `pool` when the caller gives a started one (left open), else a pool of `count`
    embedded devices or of the `serials`, started here (all at once; embedded devices unless `wait` each handed
    out as soon as it is up) and closed at the end. `apps`: the packages the run's tasks use (a device zygote warms
    up their first screens)."""
    if pool is not None:
        yield pool
        return
    serials = list(serials)
    # a serial names a device that is there already: connecting is quick, and a wrong one is the user's mistake,
    # said at once; embedded devices take their boot time, and the run starts on the first one up
    own = DevicePool(
        count,
        serials,
        profile=profile,
        latency=latency,
        isolation=isolation,
        langs=langs,
        cpu_affinity=cpu_affinity,
        clock=clock,
        image=image,
        apps=apps,
    ).start(wait=wait or bool(serials))
    try:
        yield own
    finally:
        own.close()
