"""One thread that calls functions at given times (`Timers.at`), started on first use: what adbd's event loop
does with its timers, for the device's streams (a held stream's output is released when its time is up:
`adbstream.AdbStream.hold_output`). A callback runs on the timer thread and must not block."""

from __future__ import annotations

import heapq
import itertools
import logging
import threading
import time
from collections.abc import Callable

log = logging.getLogger(__name__)


class Timers:
    def __init__(self, name: str) -> None:
        self._name = name
        self._cond = threading.Condition(threading.Lock())
        self._due: list[tuple[float, int, Callable[[], None]]] = []
        self._seq = itertools.count()
        self._thread: threading.Thread | None = None
        self._stopped = False

    def at(self, when: float, callback: Callable[[], None]) -> None:
        """Call `callback()` at `when` (`time.monotonic()` seconds) or soon after; never after `stop()`."""
        with self._cond:
            if self._stopped:
                return
            heapq.heappush(self._due, (when, next(self._seq), callback))
            if self._thread is None:
                self._thread = threading.Thread(target=self._run, name=self._name, daemon=True)
                self._thread.start()
            elif self._due[0][2] is callback:  # earlier than the time the thread sleeps until
                self._cond.notify()

    def stop(self) -> None:
        with self._cond:
            self._stopped = True
            self._due.clear()
            self._cond.notify()

    def _run(self) -> None:
        while True:
            with self._cond:
                while not self._stopped and (not self._due or self._due[0][0] > time.monotonic()):
                    self._cond.wait(self._due[0][0] - time.monotonic() if self._due else None)
                if self._stopped:
                    return
                _, _, callback = heapq.heappop(self._due)
            try:
                callback()
            except Exception:  # noqa: BLE001 - one failing callback must not stop the others
                log.exception("%s: timer callback failed", self._name)
