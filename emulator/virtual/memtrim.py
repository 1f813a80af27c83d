"""Freed heap memory handed back to the system (glibc's `malloc_trim(0)`; nothing elsewhere).

Drawing a frame allocates and frees several full-screen buffers (10 MB each at 1080 x 2400 RGBA): the renderer's
layers, the conversion for the encoder. glibc keeps freed memory in its arenas for reuse, so a device that drew
many different screens keeps the high-water mark of those buffers as resident memory long after (13 MB more on one
device after AndroidWorld's ten apps were each drawn twice: bench/app_memory.py).

Trimming after every frame gave that memory back but cost a busy device a fifth of its CPU: the trim itself
(~1 ms with many apps' objects on the heap) and, worse, the page faults of what the next frame allocates again,
for which the kernel hands out and zeroes fresh pages. So a drawn frame only notes that it freed memory
(`frame_drawn`): the heap is trimmed when the process's resident size grew by more than `HEAP_SLACK` since the
last trim (a busy device reuses up to that much from frame to frame, never more), and once the device has drawn
nothing for `IDLE_SECONDS` (`trim_if_idle`, called by `IDLE_TRIMMER`'s thread while a device of the process runs,
in a device process or a harness hosting devices in threads), so a device at rest holds
what it held with a trim after every frame. Over the bundled suite (reference agent, `instant`, virtual clock, one
device) the device's CPU went 12.0 -> 9.4 s (its system time 3.3-3.6 -> 1.2 s). `trim()` trims at once (the
zygote before it forks)."""

from __future__ import annotations

import ctypes
import ctypes.util
import os
import threading
import time
from collections.abc import Callable

HEAP_SLACK = 24 << 20  # resident bytes a busy device may grow by (buffers kept for its next frames) before it trims
_PAGE = os.sysconf("SC_PAGE_SIZE") if hasattr(os, "sysconf") else 4096
IDLE_SECONDS = 0.2  # a device that drew nothing for this long trims what its last frames freed


_trim: Callable[[int], int] | None = None
_loaded = False
_lock = threading.Lock()
_pending = False  # frames were drawn since the last trim
_floor = 0  # resident bytes right after the last trim
_last_drawn = 0.0  # time.monotonic() of the last frame drawn
_last_looked = -1e9  # time.monotonic() when `frame_drawn` last read the resident size
RSS_EVERY = 0.05  # seconds between two reads of the resident size by `frame_drawn`


def _load() -> None:
    global _trim, _loaded
    if _loaded:
        return
    _loaded = True
    name = ctypes.util.find_library("c")
    try:
        libc = ctypes.CDLL(name) if name else None
    except OSError:
        libc = None
    fn = getattr(libc, "malloc_trim", None)
    if fn is not None:
        fn.argtypes, fn.restype = [ctypes.c_size_t], ctypes.c_int
        _trim = fn


def trim() -> None:
    """Give the heap's free memory back to the system, where the C library can (glibc)."""
    global _pending, _floor
    _load()
    _pending = False
    if _trim is not None:
        _trim(0)
    _floor = resident() or 0


def resident() -> int | None:
    """This process's resident bytes (Linux /proc/self/statm), or None where it cannot tell."""
    try:
        with open("/proc/self/statm", "rb") as f:
            return int(f.read().split()[1]) * _PAGE
    except (OSError, ValueError, IndexError):
        return None


def frame_drawn(now: float | None = None) -> None:
    """A frame was drawn or encoded and freed its buffers: trim now if the process grew by more than `HEAP_SLACK`
    since the last trim, else leave them for the next frame (or for `trim_if_idle`). The resident size is read at
    most every `RSS_EVERY` seconds (a read is ~0.07 ms, a busy device draws a frame every ~10 ms); where it cannot
    be read, trim at once. `now`: time.monotonic() unless told."""
    global _pending, _last_drawn, _last_looked
    t = time.monotonic() if now is None else now
    with _lock:
        _pending, _last_drawn = True, t
        if 0 <= t - _last_looked < RSS_EVERY:
            return
        _last_looked = t
    rss = resident()
    if rss is None or rss - _floor > HEAP_SLACK:
        trim()


def trim_if_idle(now: float | None = None) -> bool:
    """Trim when frames were drawn since the last trim and none for `IDLE_SECONDS` (True when it trimmed)."""
    with _lock:
        due = _pending and (time.monotonic() if now is None else now) - _last_drawn >= IDLE_SECONDS
    if due:
        trim()
    return due


M_ARENA_MAX = -8  # mallopt's parameter (glibc malloc.h)


def one_arena() -> bool:
    """Every thread of this process allocates from glibc's main arena (`mallopt(M_ARENA_MAX, 1)`, as
    MALLOC_ARENA_MAX=1 would), where the C library is glibc; call before the process starts its threads. A device's
    threads each took an arena of their own (64 MB reservations), and the frames, masks and encodings they drew left
    each holding freed memory that a trim of the heap did not give back: 41-51 MB of a device's ~80 MB PSS were
    other threads' arenas after ~100 episodes, ~54 MB PSS with one arena (bench/device_memory.py, docs/caches.md).
    The device's threads take turns on the GIL, so they seldom wait for the arena's lock. True when it was set."""
    name = ctypes.util.find_library("c")
    try:
        fn = getattr(ctypes.CDLL(name), "mallopt", None) if name else None
    except OSError:
        fn = None
    if fn is None:
        return False
    fn.argtypes, fn.restype = [ctypes.c_int, ctypes.c_int], ctypes.c_int
    return bool(fn(M_ARENA_MAX, 1))


class IdleTrimmer:
    """A thread that calls `trim_if_idle` every `IDLE_SECONDS` while a device of this process runs: a device hosted
    in a thread of a harness (`--isolation thread`) has no main loop of its own to do it, and its last frames'
    buffers would stay in the harness's heap (up to `HEAP_SLACK` a device). Started by the first running device
    (`hold`), ended with the last (`release`); never in a zygote, whose devices are built but never started."""

    def __init__(self, every: float = IDLE_SECONDS) -> None:
        self.every = every
        self._holders = 0
        self._cond = threading.Condition()
        self._thread: threading.Thread | None = None

    def hold(self) -> None:
        with self._cond:
            self._holders += 1
            if self._thread is None:
                self._thread = threading.Thread(target=self._run, name="heap-trim", daemon=True)
                self._thread.start()

    def release(self) -> None:
        with self._cond:
            self._holders = max(0, self._holders - 1)
            self._cond.notify_all()

    @property
    def running(self) -> bool:
        with self._cond:
            return self._thread is not None

    @property
    def holders(self) -> int:
        """How many running devices hold it."""
        with self._cond:
            return self._holders

    def join(self, timeout: float | None = None) -> None:
        """Wait for the thread to end (once nobody holds it)."""
        with self._cond:
            thread = self._thread
        if thread is not None:
            thread.join(timeout)

    def _run(self) -> None:
        while True:
            with self._cond:
                if self._holders == 0:
                    self._thread = None
                    return
                self._cond.wait(self.every)
                if self._holders == 0:
                    self._thread = None
                    return
            trim_if_idle()


IDLE_TRIMMER = IdleTrimmer()
