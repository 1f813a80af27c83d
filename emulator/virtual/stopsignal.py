"""Waiting for SIGTERM / SIGINT in a process that serves a virtual device until told to stop.

The handlers take no lock: the signal's number reaches the main thread through a pipe (`signal.set_wakeup_fd`),
which `StopSignals.wait` selects on. A handler that set a `threading.Event` could be run again, by a second
signal, while the first was inside that Event's lock, and deadlock the process - a pool that asks every device to
stop and then stops each sends two SIGTERMs in a row, and a user presses Ctrl-C twice.
"""

from __future__ import annotations

import os
import select
import signal

STOP_SIGNALS = frozenset({int(signal.SIGTERM), int(signal.SIGINT)})


class StopSignals:
    """Installs the handlers (call from the main thread); `wait(timeout)` says whether one has arrived."""

    def __init__(self) -> None:
        self._r, self._w = os.pipe()
        os.set_blocking(self._w, False)
        self._before_fd = signal.set_wakeup_fd(self._w)
        self._before = {sig: signal.signal(sig, lambda *_: None) for sig in STOP_SIGNALS}
        self.received = False

    def wait(self, timeout: float) -> bool:
        """True once SIGTERM or SIGINT has arrived (waiting up to `timeout` seconds for one)."""
        if not self.received:
            woken, _, _ = select.select([self._r], [], [], timeout)
            if woken and STOP_SIGNALS & set(os.read(self._r, 64)):
                self.received = True
        return self.received

    def close(self) -> None:
        """Put the handlers and wakeup fd back as they were; close the pipe. (A process that ends after its device
        stops need not: a signal arriving while it shuts down then still does not kill it half-way.)"""
        signal.set_wakeup_fd(self._before_fd)
        for sig, handler in self._before.items():
            signal.signal(sig, handler)
        os.close(self._r)
        os.close(self._w)
