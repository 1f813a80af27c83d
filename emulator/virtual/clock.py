"""The device's clock: what its timers, gestures, delays, logs and `date` measure.

Two kinds (`--clock`):

- `real`: the host's clocks. A swipe of 300 ms takes 300 ms, the `pixel` latency profile sleeps, `sleep 2` sleeps.
  Waits of concurrent callers overlap as they do on a phone: each caller sleeps its own.
- `virtual`: simulated time, as simulators used for RL run. Nothing on the device sleeps: a wait advances the
  device's clock by its length and returns, so an episode takes the CPU time it needs and no more. Time passes
  only by waits (a gesture's duration, a latency delay, `sleep`, a WAIT the harness asks of the device, a poll's
  pause), never by computing; the same commands give the same device times on every run.

What overlaps on the virtual clock. A phone serves a client's concurrent requests at once: a step's screenshot
and hierarchy, captured concurrently, cost the longer of the two, not their sum. The virtual clock cannot ask
which request came first (that is the host's thread scheduling, different on every run), so it models overlap by
kind of wait, not by arrival:

- An *observation* (`overlapping()`: a wait of an operation that only reads the screen: a uiautomator2
  screenshot or hierarchy, `screencap`, `uiautomator dump`, a shell line that only asks the window manager what is
  focused - the call sites and `shell.observers` decide) does not move the clock at once. It begins at the
  committed time (what `monotonic()` reads) and ends its length later; the clock keeps the latest such end.
- Every other wait (a latency delay of an operation that changes something, `sleep`, a gesture's hold,
  `catch_up`, a WAIT) first commits: the clock moves on to that latest end (if it is ahead), then by the wait's own
  length. Reading the clock through a door (`cat /proc/uptime`, `date`, `uptime`) is a shell command line, whose
  own delay commits. Reading it from inside the device (the status bar's clock, a stopwatch drawn in a screenshot,
  a log line's stamp) commits nothing: it reads the committed time.

So observations between two other events overlap (the step costs its action, then the longest of its
captures), and as `max` does not depend on order, neither do the device times. Not modelled: a client that
observes twice strictly one after the other, with nothing between, also sees the two overlap (less device time
than a phone would take, never more); a wait that is not an observation, made while observations are still in
flight on other threads, commits them at an order-dependent point (an episode's step makes none: it acts, then
captures). Infrastructure deadlines (a transport's timeout, a stream waiting for its peer) stay on the host's
clock.

Both keep the same scales: `monotonic()` (seconds, what timers and uptime measure) and `time()` (seconds since
the epoch: the device's wall clock before `cmd alarm set-time` / `date` move it, see `VirtualDeviceModel.now`).
"""

from __future__ import annotations

import datetime
import threading
import time
import zoneinfo
from collections.abc import Callable
from typing import Protocol

Waiter = Callable[[float], bool]  # blocks up to that many seconds for something; True when it came

CLOCKS = ("real", "virtual")
BOOTED_BEFORE = 3600.0  # seconds: a device's uptime when it is made (it "booted" an hour before)


class Overlap(Protocol):
    """The waits of one observation (`DeviceClock.overlapping`): they follow each other, and together they overlap
    the other observations'."""

    def sleep(self, seconds: float, cancel: threading.Event | None = None) -> bool:
        """Let `seconds` of this observation pass; True (and no time) when `cancel` is set."""


class DeviceClock(Protocol):
    """A device's time and its waits."""

    @property
    def name(self) -> str:
        """`real` or `virtual` (one of CLOCKS)."""

    def monotonic(self) -> float:
        """Seconds on a monotonic scale (timers, uptime, gesture starts)."""

    def time(self) -> float:
        """Seconds since the epoch: the device's own wall clock, before a set-time moves it."""

    def sleep(self, seconds: float, cancel: threading.Event | None = None) -> bool:
        """Let `seconds` of device time pass; returns early (True) when `cancel` is set (a stopping device, a
        hung-up stream). False when the whole wait passed."""

    def wait(self, seconds: float, woken: Waiter) -> bool:
        """`sleep` woken by `woken` (e.g. a shell process's `wait_closed`: a signal, a hang-up)."""

    def catch_up(self, seconds: float) -> None:
        """`seconds` passed on the host while a client timed something itself (it held a touch down between two
        calls): a virtual clock moves on by them; the real one already has."""

    def overlapping(self) -> Overlap:
        """An observation's waits, from now: on the real clock they sleep as any wait does (concurrent callers
        overlap by themselves); on a virtual one they overlap the other observations' (see the module doc)."""


class RealClock:
    """The host's clocks: waits really wait."""

    name = "real"

    def monotonic(self) -> float:
        return time.monotonic()

    def time(self) -> float:
        return time.time()

    def sleep(self, seconds: float, cancel: threading.Event | None = None) -> bool:
        return self.wait(seconds, (cancel or threading.Event()).wait)

    def wait(self, seconds: float, woken: Waiter) -> bool:
        return woken(max(0.0, seconds))

    def catch_up(self, seconds: float) -> None:
        return None

    def overlapping(self) -> Overlap:
        return self  # its waits are this clock's: they really sleep, each caller its own


class VirtualClock:
    """Simulated time: starts at the host's time when the device boots, then moves only by waits; observations
    overlap (the module doc)."""

    name = "virtual"

    def __init__(self, epoch: float | None = None, start: float | None = None) -> None:
        self._lock = threading.Lock()
        self._elapsed = 0.0  # committed: what the clock reads
        self._observed = 0.0  # where the observations since the last commit end (elapsed's scale)
        self._epoch = time.time() if epoch is None else epoch
        self._start = time.monotonic() if start is None else start

    @property
    def elapsed(self) -> float:
        """Device seconds passed since boot (committed: observations still in flight not counted)."""
        return self._elapsed

    @property
    def pending(self) -> float:
        """Seconds the observations made since the last commit reach beyond it (the next wait commits them)."""
        with self._lock:
            return max(0.0, self._observed - self._elapsed)

    def monotonic(self) -> float:
        return self._start + self._elapsed

    def time(self) -> float:
        return self._epoch + self._elapsed

    def sleep(self, seconds: float, cancel: threading.Event | None = None) -> bool:
        return self.wait(seconds, (cancel or threading.Event()).wait)

    def wait(self, seconds: float, woken: Waiter) -> bool:
        if woken(0.0):
            self.catch_up(0.0)  # no time of its own, but the wait comes after the observations made before it
            return True
        self.catch_up(seconds)
        return False

    def catch_up(self, seconds: float) -> None:
        """Commit (the clock moves on to where the observations made since the last commit end), then move on by
        `seconds` (nothing for `seconds <= 0`)."""
        with self._lock:
            self._elapsed = max(self._elapsed, self._observed) + max(0.0, seconds)

    def overlapping(self) -> Overlap:
        with self._lock:
            return _Observation(self, self._elapsed)

    def _observe_until(self, end: float) -> None:
        with self._lock:
            self._observed = max(self._observed, end)


class _Observation:
    """One observation on a virtual clock: it began at the committed time and its waits follow each other; the clock
    keeps where it ends, without moving."""

    def __init__(self, clock: VirtualClock, began: float) -> None:
        self._clock = clock
        self._end = began

    def sleep(self, seconds: float, cancel: threading.Event | None = None) -> bool:
        if cancel is not None and cancel.is_set():
            return True
        if seconds > 0:
            self._end += seconds
            self._clock._observe_until(self._end)
        return False


def monotonic_ns(clock: DeviceClock) -> int:
    """`clock.monotonic()` in whole nanoseconds (System.nanoTime's scale)."""
    return int(clock.monotonic() * 1e9)


def make_clock(name: str) -> DeviceClock:
    """The clock named `name` (one of CLOCKS); ValueError names the choices."""
    if name == "real":
        return RealClock()
    if name == "virtual":
        return VirtualClock()
    raise ValueError(f"unknown clock {name!r}; choose one of: {', '.join(CLOCKS)}")


def zone_named(name: str) -> datetime.tzinfo:
    """The time zone a device's `persist.sys.timezone` names; one the host's database does not know is UTC."""
    try:
        return zoneinfo.ZoneInfo(name)
    except (zoneinfo.ZoneInfoNotFoundError, ValueError):
        return datetime.timezone.utc
