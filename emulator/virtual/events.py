"""The device's event log: every command run, every input event and every app transition, for tests to read."""

from __future__ import annotations

import threading
import time
from collections import deque
from dataclasses import dataclass, field
from itertools import islice
from typing import Any

# The events a log keeps (older ones are dropped): ~550 bytes each in memory (10 000 held 5.4 MB of a device's ~55 MB,
# bench/device_memory.py), so ~1.1 MB a device. An episode logs ~100-200 (commands, u2 RPCs, input, activities), so
# a device keeps the last ~10-20 episodes' worth - more than a test reads back - and is full within its first ones
# instead of growing for ~100 (bench/soak.py, docs/caches.md).
LIMIT = 2_000


@dataclass(frozen=True, slots=True)
class Event:
    kind: str  # "shell" | "exec" | "service" | "tap" | "long_press" | "swipe" | "key" | "text" | "activity" | ...
    data: dict[str, Any]
    t: float = field(default_factory=time.time)

    def __getitem__(self, key: str) -> Any:
        return self.data[key]


class EventLog:
    """Thread-safe log of the last `limit` events. `commands()` lists every program the mini shell executed (argv[0]
    and args). `mark()` and `since(mark)` count every event ever logged, so a mark stays good however many events
    were dropped before it; only events dropped after it (more than `limit` since the mark) are missing."""

    def __init__(self, limit: int = LIMIT) -> None:
        self.limit = limit
        self._events: deque[Event] = deque(maxlen=limit)
        self._logged = 0  # events ever logged: the position after the newest
        self._lock = threading.Lock()

    def log(self, kind: str, **data: Any) -> Event:
        ev = Event(kind, data)
        with self._lock:
            self._events.append(ev)
            self._logged += 1
        return ev

    def all(self, kind: str | None = None) -> list[Event]:
        """The events kept (the last `limit`)."""
        with self._lock:
            evs = list(self._events)
        return [e for e in evs if kind is None or e.kind == kind]

    def commands(self) -> list[list[str]]:
        """argv of every program the mini shell executed, in order (of the events kept)."""
        return [list(e.data["argv"]) for e in self.all("exec")]

    def mark(self) -> int:
        """A position to read events after (`since(mark)`): how many events were ever logged."""
        with self._lock:
            return self._logged

    def since(self, mark: int, kind: str | None = None) -> list[Event]:
        with self._lock:
            first = self._logged - len(self._events)  # the position of the oldest event kept
            evs = list(islice(self._events, max(0, mark - first), None))
        return [e for e in evs if kind is None or e.kind == kind]

    def kept(self) -> int:
        """How many events are kept (at most `limit`)."""
        return len(self._events)

    def clear(self) -> None:
        with self._lock:
            self._events.clear()
