"""Settle detection: after an action, wait until the screen stops changing.

Two strategies (`SettleConfig.strategy`): "idle" (default) asks uiautomator2's `waitForIdle` (UiAutomation
waits until the accessibility event stream is quiet: no hierarchy dump is spent on settling, so one step costs
one dump, the next observation's); "poll", and "idle" on a device without uiautomator2, polls the cheapest
hierarchy path as below, and the last (stable) poll becomes the next observation's tree.

Rule: the screen has settled when two consecutive polls give the same `UITree.signature()` (the status bar is
ignored: its clock changes on its own), or give up at `timeout` seconds (`settled=False`). There is no fixed
sleep: each poll is a hierarchy dump, which already takes a device round trip; `min_interval` (default 0) can
rate-limit polls on very fast devices. A poll whose XML is malformed (a half-drawn transition) counts as a
change. The pauses between polls pass on the device's time (`sleep`: a virtual-clock device's own,
harness.device.devicetime); the deadline stays on the host's clock (`clock`).
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import dataclass

from harness.errors import HierarchyError
from harness.hierarchy import UITree


@dataclass(frozen=True)
class SettleConfig:
    strategy: str = "idle"  # "idle": uiautomator2's waitForIdle where available, else "poll"; "poll": always poll
    timeout: float = 3.0  # give up after this many seconds
    stable_polls: int = 2  # this many consecutive equal signatures = settled
    min_interval: float = 0.0  # minimum seconds between the starts of two polls (0 = back to back)


@dataclass(frozen=True)
class SettleResult:
    settled: bool
    seconds: float
    polls: int
    tree: UITree | None  # the last tree polled (None if every poll failed to parse)


def wait_until_settled(
    poll: Callable[[], UITree],
    config: SettleConfig | None = None,
    clock: Callable[[], float] = time.monotonic,
    sleep: Callable[[float], object] | None = None,
) -> SettleResult:
    """Poll `poll()` until `config.stable_polls` consecutive signatures are equal or `config.timeout` passes
    (on `clock`). `sleep(s)` makes the pauses between polls (default: a wait on the host). Device errors from
    `poll` propagate (they are typed `DeviceError`s already)."""
    cfg = config or SettleConfig()
    if cfg.stable_polls < 2:
        raise ValueError(f"stable_polls must be >= 2, got {cfg.stable_polls}")
    start = clock()
    deadline = start + cfg.timeout
    last_sig: str | None = None
    run = 0
    polls = 0
    tree: UITree | None = None
    pause = sleep or threading.Event().wait
    while True:
        t_poll = clock()
        try:
            tree = poll()
            sig: str | None = tree.signature()
        except HierarchyError:
            sig = None
        polls += 1
        if sig is not None and sig == last_sig:
            run += 1
        else:
            run = 1 if sig is not None else 0
        last_sig = sig
        now = clock()
        if run >= cfg.stable_polls:
            return SettleResult(True, now - start, polls, tree)
        if now >= deadline:
            return SettleResult(False, now - start, polls, tree)
        wait = min(cfg.min_interval - (now - t_poll), deadline - now)
        if wait > 0:
            pause(wait)
