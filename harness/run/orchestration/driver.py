"""The one run engine: a driver that does work items (agent episodes, screen questions) on the slots of an
executor, whatever holds the devices - a local `DevicePool` (`PoolExecutor`) or Ray actors on a cluster's nodes
(`harness.run.orchestration.distributed.RayExecutor`).

The driver owns the queue, the retries, the quarantine and the failure rules of docs/scoring.md; an executor
only says where a slot runs, and gets a slot a fresh device:
- one thread per slot takes items from one shared queue; `WorkSpec.attempt(slot, item, n)` does attempt n of an
  item on that slot and returns its result (what the agent causes is scored there, never raised);
- any exception out of an attempt is an infrastructure failure: the slot gets a fresh device
  (`Executor.replace`: replaced, or quarantined after two failures in a row) and the item is retried on it,
  `WorkSpec.retries` more times, then recorded with `WorkSpec.give_up`;
- a `ConfigError` is a setup mistake a fresh device would not fix: recorded at once;
- a slot whose device cannot be replaced stops; the other slots take the remaining work;
- items still queued when every slot has stopped are recorded as infrastructure failures (`NO_DEVICE_LEFT`);
- a `DiskFullError` (the run's records do not fit on the disk) stops the run: a fresh device would not make room.
  No slot takes another item, the items in flight end, and `drive` raises it; items not done are not recorded
  (`--resume` does them);
- a stop (SIGINT, SIGTERM, SIGHUP: `harness.stopping`) raises `Stopped` out of `drive` at once, and the caller
  closes the devices. What that closing breaks in the items in flight is not a failure: no slot retries, replaces
  a device, logs or records anything once a stop is requested; its item stays unfinished on disk (interrupted:
  `--resume` does it) and the slot takes no other.
"""

from __future__ import annotations

import logging
import queue
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Generic, Protocol, TypeVar

from harness import stopping
from harness.errors import ConfigError, DiskFullError, describe_failure
from harness.run.fleet.pool import DevicePool, SlotRetiredError
from harness.run.orchestration.live import LiveView
from harness.trajectory.episode_writer import EpisodeWriter

log = logging.getLogger(__name__)

T = TypeVar("T")  # a work item: (task, lang), (question, lang), ...
R = TypeVar("R")  # what doing it returns (and what a failure is recorded as)

NO_DEVICE_LEFT = "no working device left: every device slot failed and could not be replaced"


class Executor(Protocol):
    """Slots that each hold one device: the local pool's, or one Ray actor's each."""

    @property
    def size(self) -> int: ...

    def where(self, slot: int) -> str:
        """Where slot `slot` runs now (the live view and the logs): a serial, a node and pid."""
        ...

    def succeeded(self, slot: int) -> None:
        """Slot `slot` did an item: its run of consecutive failures is over."""
        ...

    def replace(self, slot: int, error: str) -> None:
        """An infrastructure failure on slot `slot`: give it a fresh device (quarantining one that failed twice
        in a row). Raises `SlotRetiredError`, or any exception, when the slot cannot get one: it stops."""
        ...

    def quarantined(self) -> list[dict[str, Any]]:
        """The devices quarantined since this executor was made (quarantined.json rows)."""
        ...


@dataclass
class WorkSpec(Generic[T, R]):
    label: Callable[[T], str]  # "task-id [en]": the live view and the logs
    attempt: Callable[[int, T, int], R]  # (slot, item, attempt number from 1) -> result; raises on infra failure
    give_up: Callable[[T, str, int], R]  # (item, error, attempts) -> the recorded infrastructure failure
    retries: int = 2  # more attempts after the first, each on a fresh device


class PoolExecutor:
    """The local executor: the slots of a started `DevicePool` (embedded devices, phones, emulators)."""

    def __init__(self, pool: DevicePool) -> None:
        self.pool = pool
        self._quarantined_before = len(pool.quarantined)

    @property
    def size(self) -> int:
        return self.pool.size

    def where(self, slot: int) -> str:
        return self.pool.slot(slot).serial

    def succeeded(self, slot: int) -> None:
        self.pool.succeeded(slot)

    def replace(self, slot: int, error: str) -> None:
        self.pool.failed(slot, error)

    def quarantined(self) -> list[dict[str, Any]]:
        return [q.to_json() for q in self.pool.quarantined[self._quarantined_before :]]


def drive(executor: Executor, items: Sequence[T], spec: WorkSpec[T, R], live: LiveView[R]) -> None:
    """Do every item on the executor's slots in parallel (one thread per slot); every result goes to
    `live.done`."""
    work: queue.Queue[T] = queue.Queue()
    for item in items:
        work.put(item)
    halt: list[DiskFullError] = []  # the disk is full: the run stops (the first such error is raised)
    with live:
        threads = [
            threading.Thread(
                target=_slot_loop, args=(i, executor, work, spec, live, halt), name=f"slot-{i}", daemon=True
            )
            for i in range(executor.size)
        ]
        for th in threads:
            th.start()
        try:
            for th in threads:
                th.join()
        except stopping.Stopped as e:  # the last frame of the live view says so; the caller closes the devices
            for slot in range(executor.size):
                live.set(slot, f"[yellow]stopped by {e.name}[/yellow]")
            raise
        if halt:  # the items left are not recorded: the run is resumable
            raise halt[0]
        while True:  # every slot stopped with work left: nothing can do it
            try:
                item = work.get_nowait()
            except queue.Empty:
                break
            live.done(spec.give_up(item, NO_DEVICE_LEFT, 0))


def _slot_loop(
    slot: int,
    executor: Executor,
    work: queue.Queue[T],
    spec: WorkSpec[T, R],
    live: LiveView[R],
    halt: list[DiskFullError],
) -> None:
    """One slot. Never dies silently: any exception is an infrastructure failure of the item it happened in;
    when the slot's device cannot be replaced the slot stops (its item recorded as such); a full disk stops
    every slot (`halt`); a stop ends it quietly (its item stays unfinished)."""
    while not halt and stopping.requested() is None:
        try:
            item = work.get_nowait()
        except queue.Empty:
            live.set(slot, "idle")
            return
        try:
            result, slot_alive = with_retries(slot, executor, item, spec, live)
        except DiskFullError as e:  # its item stays undone (unfinished on disk)
            halt.append(e)
            live.set(slot, "[red]stopped: disk full[/red]")
            return
        except Exception:
            if stopping.requested() is not None:  # what the stop broke: the item stays unfinished (interrupted)
                return
            raise
        live.done(result)
        if not slot_alive:
            live.set(slot, "[red]stopped: no working device[/red]")
            return
    if halt:
        live.set(slot, "[red]stopped: disk full[/red]")


def with_retries(slot: int, executor: Executor, item: T, spec: WorkSpec[T, R], live: LiveView[R]) -> tuple[R, bool]:
    """Attempts of one item on one slot: (result, whether the slot still has a device)."""
    label = spec.label(item)
    last_error = ""
    attempts = 0
    for attempt in range(1, spec.retries + 2):
        attempts = attempt
        where = "?"
        t0 = time.perf_counter()
        try:
            where = executor.where(slot)
            live.set(slot, f"{label} attempt {attempt} on {where}")
            result = spec.attempt(slot, item, attempt)
            executor.succeeded(slot)
            return result, True
        except DiskFullError:  # a fresh device would not make room on the disk: the run stops (`drive`)
            raise
        except Exception as e:  # noqa: BLE001 - infrastructure failure: retry on a fresh device
            if stopping.requested() is not None:  # the run is stopping: not the device's failure, not retried
                raise
            if isinstance(e, ConfigError):  # a setup mistake: a fresh device would not help
                last_error = str(e)
                break
            last_error = describe_failure(e)
            log.warning(
                "%s attempt %d failed after %.1f s on %s: %s",
                label,
                attempt,
                time.perf_counter() - t0,
                where,
                last_error,
            )
            try:
                live.set(slot, f"{label}: getting a fresh device")
                executor.replace(slot, last_error)  # the second failure in a row: quarantine
            except Exception as e2:  # noqa: BLE001 - the slot is dead; the run goes on with the others
                if stopping.requested() is not None:  # the stop closed the pool under the replacement
                    raise
                if isinstance(e2, SlotRetiredError):  # a quarantined device that cannot be replaced (a phone)
                    last_error += f"; {e2}"
                else:
                    last_error += f"; a fresh device could not be brought up: {describe_failure(e2)}"
                return spec.give_up(item, last_error, attempts), False
    return spec.give_up(item, last_error, attempts), True  # giving up may find the disk full too: raised


def close_quietly(writer: EpisodeWriter | None) -> None:
    """Close a failed attempt's episode writer (it stays unfinished), keeping the attempt's first error."""
    if writer is None:
        return
    try:
        writer.close()
    except Exception as e:  # noqa: BLE001 - the attempt failed already; keep its first error
        log.warning("closing the failed attempt's trajectory: %s", e)


__all__ = [
    "Executor",
    "PoolExecutor",
    "WorkSpec",
    "drive",
    "with_retries",
    "close_quietly",
    "NO_DEVICE_LEFT",
]
