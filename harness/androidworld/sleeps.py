"""AndroidWorld's own waits on a device's virtual clock.

AndroidWorld's set-up and judges wait with `time.sleep` (5 s after sending an SMS, 3 s after adding a contact, ...)
for a real device to catch up. On an embedded device running on its virtual clock (`--clock virtual`) every request
is done when it returns, and a wait is time that passes on the device, as the harness's own waits are there
(harness.device.devicetime): inside `device_sleeps(wait)`, a `time.sleep(s)` of the calling thread lets `s` seconds
pass on the device (`wait(s)`) instead of on the host - when the sleep is AndroidWorld's own (called from a module of
its package): what the harness or a library sleeps meanwhile (adbutils, uiautomator2, the link's polls) still sleeps
on the host, as does every other thread and every thread outside such a block. `time.sleep` is replaced once by a
dispatcher that does just that. On a real clock nothing changes.
"""

from __future__ import annotations

import sys
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import SupportsIndex

PACKAGE = "android_world"  # whose waits pass on the device
_host_sleep = time.sleep
_local = threading.local()
_install_lock = threading.Lock()


class Slept:
    """The seconds AndroidWorld's code waited in a block, and where they passed."""

    def __init__(self) -> None:
        self.seconds = 0.0


def _dispatch(seconds: float | SupportsIndex) -> None:
    hook: Callable[[float], object] | None = getattr(_local, "hook", None)
    if hook is not None:
        package: str = _local.package
        caller = sys._getframe(1).f_globals.get("__name__", "")
        if caller == package or caller.startswith(package + "."):
            _local.hook = None  # what the device's wait does sleeps the host's way
            try:
                hook(float(seconds))
            finally:
                _local.hook = hook
            return
    _host_sleep(seconds)  # not the outside suite's own wait (the harness's, a library's): the host's, as always


def _install() -> None:
    with _install_lock:
        if time.sleep is not _dispatch:
            time.sleep = _dispatch


@contextmanager
def device_sleeps(wait: Callable[[float], object] | None, package: str = PACKAGE) -> Iterator[Slept]:
    """Within the block, this thread's `time.sleep(s)` called from `package`'s modules is `wait(s)` (None: the
    host's, unchanged); yields what was slept."""
    slept = Slept()
    if wait is None:
        yield slept
        return
    _install()

    def hook(seconds: float) -> None:
        if seconds > 0:
            slept.seconds += seconds
            wait(seconds)

    previous = getattr(_local, "hook", None), getattr(_local, "package", PACKAGE)
    _local.hook, _local.package = hook, package
    try:
        yield slept
    finally:
        _local.hook, _local.package = previous


__all__ = ["Slept", "device_sleeps"]
