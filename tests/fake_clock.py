"""A clock the test drives, for the deadline holders that take one (`clock=`: harness.device.fastadb's calls and
ShellSession, LinkConfig, the virtual uiautomator2 server's idle timer): deadlines are then proven by counting
reads, not by timing the call on a machine that other work may slow down."""

from __future__ import annotations

import threading


class FakeClock:
    """`clock()` returns the time, then moves it on by `tick` (0: it stands still until `advance()`). `reads`
    counts the calls. A call with a deadline `timeout` seconds ahead, ticking `timeout / n` a read, sees its
    deadline pass at its (n + 1)th read - whatever the wall clock does meanwhile."""

    def __init__(self, tick: float = 0.0, start: float = 1000.0) -> None:
        self.tick = tick
        self.now = start
        self.reads = 0
        self._lock = threading.Lock()

    def __call__(self) -> float:
        with self._lock:
            self.reads += 1
            t = self.now
            self.now += self.tick
            return t

    def advance(self, seconds: float) -> None:
        with self._lock:
            self.now += seconds
