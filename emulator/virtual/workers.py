"""Threads for adbd's services: each opened stream runs its service on a thread of its own, taken from the
threads that finished a service before (a cached pool) - so the connection's reader thread, which every packet of
the device goes through, never waits for a new thread to be created and scheduled. `threading.Thread.start()`
returns only once the new thread runs: on a busy machine that stalls every stream of the device behind one OPEN.

A thread waits `IDLE_SECONDS` for its next service, then ends. There is no bound on the number of threads: a
service may block for as long as its stream is open (`logcat`, a keep-alive uiautomator2 connection), so a bound
could leave a new stream waiting for an old one to close. All threads are daemons, as the one-thread-per-stream
design had them; `stop()` wakes the idle ones so they end now.

The harness runs its agent calls on one too (`harness.run.loop.calls`): a call per step, and a hung call may keep its
thread for good.
"""

from __future__ import annotations

import logging
import queue
import threading
from collections.abc import Callable

log = logging.getLogger(__name__)

IDLE_SECONDS = 30.0


class ServiceThreads:
    """A cached pool of daemon threads (see the module's docstring)."""

    def __init__(self, name: str, idle_seconds: float = IDLE_SECONDS) -> None:
        self._name = name
        self._idle_seconds = idle_seconds
        self._lock = threading.Lock()
        self._idle: list[queue.SimpleQueue[Callable[[], None] | None]] = []
        self._busy: set[threading.Thread] = set()
        self._count = 0
        self._stopped = False

    @property
    def busy(self) -> list[threading.Thread]:
        """The threads running a service now."""
        with self._lock:
            return list(self._busy)

    def run(self, task: Callable[[], None]) -> None:
        """Run `task` on an idle thread, or on a new one when none is idle. Exceptions end the task only."""
        with self._lock:
            inbox = self._idle.pop() if self._idle else None
            self._count += 1
            n = self._count
        if inbox is not None:
            inbox.put(task)
            return
        mine: queue.SimpleQueue[Callable[[], None] | None] = queue.SimpleQueue()
        mine.put(task)
        threading.Thread(target=self._work, args=(mine,), name=f"{self._name}-{n}", daemon=True).start()

    def stop(self) -> None:
        """End the idle threads now; busy ones end when their service returns."""
        with self._lock:
            self._stopped = True
            idle, self._idle = self._idle, []
        for inbox in idle:
            inbox.put(None)

    def _work(self, inbox: queue.SimpleQueue[Callable[[], None] | None]) -> None:
        me = threading.current_thread()
        task: Callable[[], None] | None = inbox.get()
        while task is not None:
            with self._lock:
                self._busy.add(me)
            try:
                task()
            except Exception:  # noqa: BLE001 - one failing service must not end the thread
                log.exception("%s: a service failed", me.name)
            with self._lock:
                self._busy.discard(me)
                if self._stopped:
                    return
                self._idle.append(inbox)
            try:
                task = inbox.get(timeout=self._idle_seconds)
            except queue.Empty:
                with self._lock:
                    if inbox in self._idle:  # nobody took this thread meanwhile: end it
                        self._idle.remove(inbox)
                        return
                task = inbox.get()  # `run` took it just now: its task is on the way
