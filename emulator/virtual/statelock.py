"""The device model's lock, which also counts the model's changes: a screen's views are built once per device state.

A step reads the screen several times with nothing changing between (the action's own hit test, the screenshot,
the hierarchy), and building a screen's views from device state is a good part of a step's CPU. The views of a
state are kept (`UIManager.views`) under a key that changes whenever the state may have changed:

- `generation`, bumped on entering and on leaving every section that holds this lock to change something (every
  `with model.lock:` outside a read, so every public model method that acts: a tap, a key, `start_activity`,
  `settings put` through its lock ...), and by `changed()` from the doors that change state without it: a shell
  line that is not a screen observation (`shell.observers`), a uiautomator2 call other than a capture, a sync or
  console request;
- the device's files' version (`FileSystem.version`, bumped by every write, mkdir, remove, chmod, chown, restore);
- the wall clock's offset, and the device's time (`clock.time()`) for views that read it while they were built
  (`time_reads`, counted by `model.now()` and `model.uptime()`: a stopwatch, the status bar once the clock was
  set): those are reused on the virtual clock only at one committed time (observations do not move it, see
  `clock`), never on the real one.

A read (`reading()`: a screenshot, a hierarchy dump, a selector query, the keyboard check) holds the same lock
without bumping (`only_reading()`: a shell line that only reads, without holding it); sections nested in a read do
not bump either (the view building that the read runs calls model methods under the lock). Views are taken from or
kept for later only in a read that is not itself nested in a changing section of the same thread: a change under way
could otherwise be seen half done; and only in a request through the device's doors (`door()`: a shell line, a
uiautomator2 call), so that in-process code that sets the model's fields directly and reads them back in-process
(tests) sees its change without saying so. The one exception is an action's own hit test: `before_change()` gives the
generation the state had when the changing section began, valid while nothing in it changed yet (a tap dispatches
on the views of the state it lands on).
"""

from __future__ import annotations

import itertools
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from types import TracebackType


class _Local(threading.local):
    def __init__(self) -> None:
        self.reading = 0  # depth of reads on this thread
        self.changing = 0  # depth of changing sections on this thread (outside reads)
        self.before = -1  # the generation before the outermost changing section began
        self.entered = -1  # the generation that section's entry made
        self.door = 0  # depth of requests through the device's doors (a shell line, a uiautomator2 call)


class StateLock:
    """A re-entrant lock (as `threading.RLock`) that counts the sections that change state (the module doc)."""

    def __init__(self) -> None:
        self._lock = threading.RLock()
        self._count = itertools.count(1)
        self._generation = 0
        self._local = _Local()
        self.time_reads = 0  # how often the device's time was read (`model.now`, `model.uptime`): views that read it

    @property
    def generation(self) -> int:
        """The state's number: another one after any change (never reused)."""
        return self._generation

    def changed(self) -> None:
        """State changed (or may have) outside a changing section: views built before are not reused."""
        self._generation = next(self._count)

    def __enter__(self) -> bool:
        self._lock.acquire()
        local = self._local
        if not local.reading:
            if not local.changing:
                local.before = self._generation
                self.changed()
                local.entered = self._generation
            else:
                self.changed()
            local.changing += 1
        return True

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        local = self._local
        if not local.reading:
            local.changing -= 1
            self.changed()
        self._lock.release()

    def acquire(self, blocking: bool = True, timeout: float = -1) -> bool:
        """As `RLock.acquire`: a changing section until `release`."""
        if not self._lock.acquire(blocking, timeout):
            return False
        self._lock.release()
        self.__enter__()
        return True

    def release(self) -> None:
        self.__exit__(None, None, None)

    @contextmanager
    def reading(self) -> Iterator[None]:
        """Hold the lock to read the state: no change counted, nested sections included."""
        with self._lock, self.only_reading():
            yield

    @contextmanager
    def only_reading(self) -> Iterator[None]:
        """What this thread does meanwhile only reads (a shell line that observes the screen or reads a file): its
        sections under the lock count no change; the lock is not held for it."""
        self._local.reading += 1
        try:
            yield
        finally:
            self._local.reading -= 1

    @contextmanager
    def door(self) -> Iterator[None]:
        """A request through one of the device's doors (a shell line, a uiautomator2 call) runs meanwhile: only its
        reads reuse views. In-process callers that change the model's state directly (tests set `settings`, ...)
        and read it back in-process always get views built anew."""
        self._local.door += 1
        try:
            yield
        finally:
            self._local.door -= 1

    def reusable(self) -> int | None:
        """The generation views may be taken or kept under now: in a read through a door, outside any changing
        section of this thread; None otherwise."""
        local = self._local
        if local.door and local.reading and not local.changing:
            return self._generation
        return None

    def before_change(self) -> int | None:
        """In a changing section that has changed nothing yet (the caller's word) and that nothing else changed
        since it began: the generation of the state before it; None otherwise."""
        local = self._local
        if local.door and local.changing == 1 and not local.reading and self._generation == local.entered:
            return local.before
        return None
