"""Stopping on a signal: SIGINT (Ctrl-C), SIGTERM (schedulers, `timeout`, Docker, CI, systemd) and SIGHUP (a
closed terminal) all stop a command the same way - the one piece every command goes through
(`harness.cli.main.main` installs it; the Gymnasium env installs it for SIGTERM and SIGHUP where nothing else
handles them).

The handler raises `Stopped` in the main thread, wherever it is. `Stopped` is a `SystemExit` whose code is
128 + the signal's number (130, 143, 129, as a shell reports a process a signal ended), so every `with` block and
`finally` on the way out runs - the run's trajectory writers close, its devices, device zygote and private adb
server stop - and a program that lets it through exits with that code after its `atexit` hooks. Code on the way
out may add `notes` (what was left undone, how to resume it); `harness.cli.main` prints them and then says which
signal stopped the command.

`requested()` tells every other thread that a stop is under way, so that what the stop breaks (a device call on a
closed connection, an adb server gone) is not taken for a device failure, retried or recorded as one
(`harness.run.orchestration.driver`); nor is it logged: while `stop_on_signals` holds, what threads other than
the main one log after a stop is dropped (`QuietAfterStop`) - the main thread, which stops everything, still
speaks. A stop is not undone: once requested it stays requested. A second signal
while the first unwinds is noted, not raised, so it cannot cut the clean-up short (SIGKILL still ends the process
at once; what it leaves - the private adb server - is reaped by the next run: `emulator.virtual.adbserver`).

The handler takes no lock (it appends to a list), so a signal that lands while another thread holds one cannot
deadlock it.
"""

from __future__ import annotations

import logging
import signal
import threading
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from types import FrameType

STOP_SIGNALS: tuple[int, ...] = (int(signal.SIGINT), int(signal.SIGTERM), int(signal.SIGHUP))

_received: list[int] = []  # the stop signals that arrived, in order; the first one rules


class Stopped(SystemExit):
    """A stop signal arrived (`signum`); the command exits 128 + signum once everything it started is stopped."""

    def __init__(self, signum: int) -> None:
        super().__init__(128 + signum)
        self.signum = signum
        self.notes: list[str] = []  # lines for the user, added on the way out (what was left, how to resume)

    @property
    def name(self) -> str:
        return signal_name(self.signum)

    def __str__(self) -> str:
        return f"stopped by {self.name}"


def signal_name(signum: int) -> str:
    """The name of signal `signum` (SIGTERM for 15), or its number where the platform has no name for it."""
    try:
        return signal.Signals(signum).name
    except ValueError:
        return f"signal {signum}"


def requested() -> int | None:
    """The stop signal received (the first), or None while no stop was requested."""
    return _received[0] if _received else None


def stopped() -> Stopped | None:
    """A `Stopped` for the signal received, or None while no stop was requested."""
    signum = requested()
    return None if signum is None else Stopped(signum)


def _handle(signum: int, frame: FrameType | None) -> None:
    first = not _received
    _received.append(signum)
    if first:
        raise Stopped(signum)


class QuietAfterStop(logging.Filter):
    """Once a stop is requested, drops the records of every thread but the main one: their work is what the stop
    broke, and what they say about it (a device gone, a health check failed) is no failure to report."""

    def filter(self, record: logging.LogRecord) -> bool:
        return requested() is None or record.thread == threading.main_thread().ident


@contextmanager
def stop_on_signals(signals: Iterable[int] = STOP_SIGNALS) -> Iterator[None]:
    """While the block runs, each of `signals` raises `Stopped` in the main thread, and the log's handlers (the
    root logger's, and Python's last resort that prints warnings when there are none) take `QuietAfterStop`.
    From another thread this does nothing: only the main thread may handle signals. All is put back after."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    before = {sig: signal.signal(sig, _handle) for sig in signals}
    quiet = QuietAfterStop()
    handlers = [h for h in (*logging.getLogger().handlers, logging.lastResort) if h is not None]
    for h in handlers:
        h.addFilter(quiet)
    try:
        yield
    finally:
        for h in handlers:
            h.removeFilter(quiet)
        for sig, handler in before.items():
            signal.signal(sig, handler)


def stop_on_unhandled(signals: Iterable[int] = (int(signal.SIGTERM), int(signal.SIGHUP))) -> list[int]:
    """For a library inside someone else's program (the Gymnasium env): each of `signals` that would end the
    process on the spot (its default action) raises `Stopped` instead, for good, so the program unwinds - as
    on Ctrl-C - and what the library started is stopped on the way out. A signal the program handles itself, or
    ignores, is left alone; nothing is done off the main thread. Returns the signals taken."""
    if threading.current_thread() is not threading.main_thread():
        return []
    taken = []
    for sig in signals:
        if signal.getsignal(sig) is signal.SIG_DFL:
            signal.signal(sig, _handle)
            taken.append(sig)
    return taken


__all__ = [
    "STOP_SIGNALS",
    "QuietAfterStop",
    "Stopped",
    "requested",
    "signal_name",
    "stop_on_signals",
    "stop_on_unhandled",
    "stopped",
]
