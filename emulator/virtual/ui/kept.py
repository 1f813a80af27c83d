"""Things made once and kept while there is room: the most recently used kept, bounded by the bytes each costs (as
its owner counts them) and by their number. Decoded pictures (`picture.PictureCache`), bitmaps scaled to their
view (`render.ScaledBitmaps`) and a device's encoded frames (`frames.FrameCache`'s JPEGs) are kept so.

Safe from several threads: the lock guards the store, never a making (two threads missing the same key at once
both make it, and give the same thing).
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable, Hashable
from typing import Generic, TypeVar

K = TypeVar("K", bound=Hashable)
V = TypeVar("V")


class KeptByBytes(Generic[K, V]):
    """Values by key, least recently used out past `max_bytes` (each value's `cost`) or `max_entries`. With
    `keep_one`, the last value made stays even when it alone is past the bytes; without it, such a value is made
    and given, not kept."""

    def __init__(self, max_bytes: int, max_entries: int, cost: Callable[[V], int], keep_one: bool = True) -> None:
        self.max_bytes, self.max_entries = max_bytes, max_entries
        self._cost, self._least = cost, 1 if keep_one else 0
        self._store: OrderedDict[K, V] = OrderedDict()
        self._bytes = 0
        self._lock = threading.Lock()
        self.hits = self.misses = 0

    @property
    def nbytes(self) -> int:
        return self._bytes

    def __len__(self) -> int:
        return len(self._store)

    def get(self, key: K, make: Callable[[], V]) -> V:
        """The value kept under `key`, made by `make()` (and kept) when there is none."""
        with self._lock:
            if key in self._store:
                self._store.move_to_end(key)
                self.hits += 1
                return self._store[key]
            self.misses += 1
        value = make()
        with self._lock:
            if key in self._store:
                self._bytes -= self._cost(self._store.pop(key))
            self._store[key] = value
            self._bytes += self._cost(value)
            while len(self._store) > self._least and (
                self._bytes > self.max_bytes or len(self._store) > self.max_entries
            ):
                _, gone = self._store.popitem(last=False)
                self._bytes -= self._cost(gone)
        return value

    def peek(self, key: K) -> V | None:
        """The value kept under `key`, if any (its place in the order unchanged)."""
        with self._lock:
            return self._store.get(key)

    def clear(self) -> None:
        with self._lock:
            self._store.clear()
            self._bytes = 0


__all__ = ["KeptByBytes"]
