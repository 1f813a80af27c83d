"""Latency profiles: delays shaped like a real phone, so benchmarks show which capture path a harness takes."""

from __future__ import annotations

import threading
from dataclasses import dataclass, field

from .clock import DeviceClock, RealClock

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
    clock (a virtual clock advances instead of sleeping)."""

    profile: str = "instant"
    slowdown: float = 1.0  # fault knob: multiply every delay
    extra: float = 0.0  # fault knob: seconds added to every delayed operation
    clock: DeviceClock = field(default_factory=RealClock, repr=False)
    _cancel: threading.Event = field(default_factory=threading.Event, repr=False)

    def __post_init__(self) -> None:
        if self.profile not in LATENCY_PROFILES:
            raise ValueError(f"unknown latency profile {self.profile!r}; choose one of: {', '.join(LATENCY_PROFILES)}")

    def seconds(self, op: str) -> float:
        base = LATENCY_PROFILES[self.profile].get(op, 0.0)
        return base * self.slowdown + (self.extra if (base or self.extra) else 0.0)

    def delay(self, op: str) -> None:
        s = self.seconds(op)
        if s > 0:
            # interruptible so that stopping the device never waits on a fake delay
            self.clock.sleep(s, self._cancel)

    def cancel_all(self) -> None:
        self._cancel.set()
