"""The device's clock: what its timers, gestures, delays, logs and `date` measure.

Two kinds (`--clock`):

- `real`: the host's clocks. A swipe of 300 ms takes 300 ms, the `pixel` latency profile sleeps, `sleep 2` sleeps.
- `virtual`: simulated time, as simulators used for RL run. Nothing on the device sleeps: a wait advances the
  device's clock by its length and returns, so an episode takes the CPU time it needs and no more. Time passes
  only by waits (a gesture's duration, a latency delay, `sleep`, a WAIT the harness asks of the device, a poll's
  pause), never by computing; the same commands give the same device times on every run. Waits of concurrent
  callers add up instead of overlapping (a device driven one step at a time, as an episode drives it, has none).

Both keep the same scales: `monotonic()` (seconds, what timers and uptime measure) and `time()` (seconds since
the epoch: the device's wall clock before `cmd alarm set-time` / `date` move it, see `VirtualDeviceModel.now`).
Infrastructure deadlines (a transport's timeout, a stream waiting for its peer) stay on the host's clock.
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


class VirtualClock:
    """Simulated time: starts at the host's time when the device boots, then moves only by `sleep`."""

    name = "virtual"

    def __init__(self, epoch: float | None = None, start: float | None = None) -> None:
        self._lock = threading.Lock()
        self._elapsed = 0.0
        self._epoch = time.time() if epoch is None else epoch
        self._start = time.monotonic() if start is None else start

    @property
    def elapsed(self) -> float:
        """Device seconds passed since boot."""
        return self._elapsed

    def monotonic(self) -> float:
        return self._start + self._elapsed

    def time(self) -> float:
        return self._epoch + self._elapsed

    def sleep(self, seconds: float, cancel: threading.Event | None = None) -> bool:
        return self.wait(seconds, (cancel or threading.Event()).wait)

    def wait(self, seconds: float, woken: Waiter) -> bool:
        if woken(0.0):
            return True
        self.catch_up(seconds)
        return False

    def catch_up(self, seconds: float) -> None:
        if seconds > 0:
            with self._lock:
                self._elapsed += seconds


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
