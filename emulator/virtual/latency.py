"""Latency profiles: delays shaped like a real phone, so benchmarks show which capture path a harness takes."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field

from .clock import DeviceClock, Overlap, RealClock

# Seconds per operation. Sources: public real-device measurements (docs/virtual-device.md).
_PIXEL = {
    "screencap_png": 1.5,  # `screencap -p`
    "screencap_raw": 0.6,  # raw `screencap`
    "uiautomator_dump": 2.0,  # `uiautomator dump`
    "u2_rpc": 0.030,  # any uiautomator2 JSON-RPC call
    "u2_screenshot": 0.150,  # takeScreenshot over u2 (on top of u2_rpc)
    "u2_hierarchy": 0.120,  # dumpWindowHierarchy over u2 (on top of u2_rpc)
    "input": 0.050,  # `input tap|swipe|text|keyevent`
    "shell": 0.010,  # any other shell command line (adbd starts the shell, which runs its first command)
    "exec": 0.005,  # each further command of the same line that runs as a process (fork, exec, often a binder call)
}

LATENCY_PROFILES: dict[str, dict[str, float]] = {
    "instant": {k: 0.0 for k in _PIXEL},
    "pixel": dict(_PIXEL),
}


@dataclass
class Latency:
    """Sleeps for the named operation according to the active profile, times a slow-down factor, on the device's
    clock (a virtual clock advances instead of sleeping).

    An operation that only observes the screen (`observe`, `observing`: a uiautomator2 screenshot or hierarchy,
    `screencap`, `uiautomator dump`, a shell line that only asks what is focused) makes its delays as one
    observation: on a virtual clock they overlap the other observations' instead of adding up (a step's screenshot
    and hierarchy, captured concurrently, cost the longer of the two), see emulator/virtual/clock.py. On the real
    clock every delay sleeps, an observation's too."""

    profile: str = "instant"
    slowdown: float = 1.0  # fault knob: multiply every delay
    extra: float = 0.0  # fault knob: seconds added to every delayed operation
    clock: DeviceClock = field(default_factory=RealClock, repr=False)
    _cancel: threading.Event = field(default_factory=threading.Event, repr=False)
    _scope: threading.local = field(default_factory=threading.local, repr=False, compare=False)  # .span: Overlap

    def __post_init__(self) -> None:
        if self.profile not in LATENCY_PROFILES:
            raise ValueError(f"unknown latency profile {self.profile!r}; choose one of: {', '.join(LATENCY_PROFILES)}")

    def seconds(self, op: str) -> float:
        base = LATENCY_PROFILES[self.profile].get(op, 0.0)
        return base * self.slowdown + (self.extra if (base or self.extra) else 0.0)

    def delay(self, op: str) -> None:
        s = self.seconds(op)
        if s > 0:
            span: Overlap = getattr(self._scope, "span", None) or self.clock
            # interruptible so that stopping the device never waits on a fake delay
            span.sleep(s, self._cancel)

    @contextmanager
    def observing(self, observes: bool = True) -> Iterator[None]:
        """The delays this thread makes inside are one observation's when `observes` (they follow each other and
        overlap the other observations', `DeviceClock.overlapping`), plain waits when not. Inside another such
        scope the outer one's kind holds (a shell line's nested `sh -c` is part of it)."""
        if getattr(self._scope, "span", None) is not None:
            yield
            return
        self._scope.span = self.clock.overlapping() if observes else self.clock
        try:
            yield
        finally:
            self._scope.span = None

    def observe(self, *ops: str) -> None:
        """The delays of `ops`, one after the other, as one observation (a uiautomator2 screenshot: its RPC's, then
        the capture's)."""
        with self.observing():
            for op in ops:
                self.delay(op)

    def cancel_all(self) -> None:
        self._cancel.set()
