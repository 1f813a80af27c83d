"""The parallel worker machinery of a run, for any kind of work item: one worker thread per device slot of a
`DevicePool`, a shared queue, retries on a fresh device, and the rich live view.

`harness.run.suite` (agent episodes) and `harness.run.qa_run` (screen questions) both run through `run_work`.
A `WorkSpec` says what one item is: `attempt(slot, item, n)` does attempt n on slot `slot`'s device and returns
its result; `give_up(item, error, attempts)` records an item as an infrastructure failure and returns that
result. The rules are docs/scoring.md's: any exception out of `attempt` is an infrastructure failure, retried
on a fresh device (`pool.failed(slot)`: replaced, or quarantined after two failures in a row) `retries` more
times; a `ConfigError` is a setup mistake a fresh device would not fix (recorded at once); when a slot's device
cannot be replaced the slot stops and the other slots take the remaining work; items still queued when every
slot has stopped are recorded as infrastructure failures. What the agent causes never reaches here: `attempt` scores it.
"""

from __future__ import annotations

import logging
import queue
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

from rich.console import Console, Group
from rich.live import Live
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table

from harness.errors import ConfigError, HarnessError
from harness.run.pool import DevicePool, SlotRetiredError

log = logging.getLogger(__name__)

T = TypeVar("T")  # a work item: (task, lang), (question, lang), ...
R = TypeVar("R")  # what doing it returns (and what a failure is recorded as)

NO_DEVICE_LEFT = "no working device left: every device slot failed and could not be replaced"


@dataclass
class WorkSpec(Generic[T, R]):
    label: Callable[[T], str]  # "task-id [en]": the live view and the logs
    attempt: Callable[[int, T, int], R]  # (slot, item, attempt number from 1) -> result; raises on infra failure
    give_up: Callable[[T, str, int], R]  # (item, error, attempts) -> the recorded infrastructure failure
    retries: int = 2  # more attempts after the first, each on a fresh device


class LiveView(Generic[R]):
    """The rich live view: a progress bar, a status line per device slot and a running headline computed by
    `headline(results so far, earlier ones included)`. With no console it only collects the results."""

    def __init__(
        self,
        console: Console | None,
        total: int,
        slots: int,
        headline: Callable[[list[R]], str],
        earlier: Sequence[R] = (),
        unit: str = "episodes",
    ) -> None:
        self.console = console
        self._headline = headline
        self.progress = Progress(
            TextColumn("[bold]{task.description}"),
            BarColumn(),
            MofNCompleteColumn(),
            TimeElapsedColumn(),
            console=console,
            transient=False,
        )
        self.bar = self.progress.add_task(unit, total=total)
        self.status = {i: "starting" for i in range(slots)}
        self.results: list[R] = []  # what this invocation did
        self.outcomes: list[R] = list(earlier)  # ... plus what a resumed run had on disk
        self._lock = threading.Lock()
        self._live = Live(self._render(), console=console, refresh_per_second=4) if console else None

    def headline(self) -> str:
        return self._headline(self.outcomes)

    def _render(self) -> Group:
        t = Table.grid(padding=(0, 2))
        for i, s in sorted(self.status.items()):
            t.add_row(f"device {i}", s)
        return Group(self.progress, t, self.headline())

    def set(self, slot: int, text: str) -> None:
        with self._lock:
            self.status[slot] = text
            if self._live:
                self._live.update(self._render())

    def done(self, r: R) -> None:
        with self._lock:
            self.results.append(r)
            self.outcomes.append(r)
            self.progress.advance(self.bar)
            if self._live:
                self._live.update(self._render())

    def __enter__(self) -> LiveView[R]:
        if self._live:
            self._live.__enter__()
        return self

    def __exit__(self, *exc: Any) -> None:
        if self._live:
            self._live.__exit__(*exc)


def run_work(pool: DevicePool, items: Sequence[T], spec: WorkSpec[T, R], live: LiveView[R]) -> None:
    """Do every item on the pool's slots in parallel (one thread per slot); every result goes to `live.done`."""
    work: queue.Queue[T] = queue.Queue()
    for item in items:
        work.put(item)
    with live:
        threads = [
            threading.Thread(target=_worker, args=(i, pool, work, spec, live), name=f"worker-{i}", daemon=True)
            for i in range(pool.size)
        ]
        for th in threads:
            th.start()
        for th in threads:
            th.join()
        while True:  # every slot stopped with work left: nothing can do it
            try:
                item = work.get_nowait()
            except queue.Empty:
                break
            live.done(spec.give_up(item, NO_DEVICE_LEFT, 0))


def _worker(slot: int, pool: DevicePool, work: queue.Queue[T], spec: WorkSpec[T, R], live: LiveView[R]) -> None:
    """One device slot. Never dies silently: any exception is an infrastructure failure of the item it happened
    in; when the slot's device cannot be replaced the slot stops (its item recorded as such)."""
    while True:
        try:
            item = work.get_nowait()
        except queue.Empty:
            live.set(slot, "idle")
            return
        result, slot_alive = with_retries(slot, pool, item, spec, live)
        live.done(result)
        if not slot_alive:
            live.set(slot, "[red]stopped: no working device[/red]")
            return


def with_retries(slot: int, pool: DevicePool, item: T, spec: WorkSpec[T, R], live: LiveView[R]) -> tuple[R, bool]:
    """(result, whether the slot still has a device)."""
    label = spec.label(item)
    last_error = ""
    attempts = 0
    for attempt in range(1, spec.retries + 2):
        attempts = attempt
        device = None
        t0 = time.perf_counter()
        try:
            device = pool.slot(slot)
            live.set(slot, f"{label} attempt {attempt} on {device.serial}")
            result = spec.attempt(slot, item, attempt)
            pool.succeeded(slot)
            return result, True
        except ConfigError as e:  # a setup mistake: a fresh device would not help
            last_error = str(e)
            break
        except Exception as e:  # noqa: BLE001 - infrastructure failure: retry on a fresh device
            last_error = f"{type(e).__name__}: {e}" if not isinstance(e, HarnessError) else str(e)
            log.warning(
                "%s attempt %d failed after %.1f s on %s: %s",
                label,
                attempt,
                time.perf_counter() - t0,
                getattr(device, "serial", "?"),
                last_error,
            )
            try:
                pool.failed(slot, last_error)  # a fresh device; the second failure in a row: quarantine
            except SlotRetiredError as e2:  # a quarantined device that cannot be replaced (a phone)
                last_error += f"; {e2}"
                return spec.give_up(item, last_error, attempts), False
            except Exception as e2:  # noqa: BLE001 - the slot is dead; the run goes on with the others
                last_error += f"; a fresh device could not be brought up: {e2}"
                return spec.give_up(item, last_error, attempts), False
    return spec.give_up(item, last_error, attempts), True


def close_quietly(writer: Any) -> None:
    """Close a failed attempt's episode writer (it stays unfinished), keeping the attempt's first error."""
    if writer is None:
        return
    try:
        writer.close()
    except Exception as e:  # noqa: BLE001 - the attempt failed already; keep its first error
        log.warning("closing the failed attempt's trajectory: %s", e)


__all__ = ["WorkSpec", "LiveView", "run_work", "with_retries", "close_quietly", "NO_DEVICE_LEFT"]
