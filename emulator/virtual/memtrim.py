"""Freed heap memory handed back to the system (glibc's `malloc_trim(0)`; nothing elsewhere).

Drawing a frame allocates and frees several full-screen buffers (10 MB each at 1080 x 2400 RGBA): the renderer's
layers, the conversion for the encoder. glibc keeps freed memory in its arenas for reuse, so a device that drew
many different screens keeps the high-water mark of those buffers as resident memory long after (13 MB more on one
device after AndroidWorld's ten apps were each drawn twice: bench/app_memory.py). Trimming after a frame was drawn
costs about 0.1 ms (a frame takes 30-90 ms to draw) and gives that memory back."""

from __future__ import annotations

import ctypes
import ctypes.util
from collections.abc import Callable

_trim: Callable[[int], int] | None = None
_loaded = False


def trim() -> None:
    """Give the heap's free memory back to the system, where the C library can (glibc)."""
    global _trim, _loaded
    if not _loaded:
        _loaded = True
        name = ctypes.util.find_library("c")
        try:
            fn = getattr(ctypes.CDLL(name), "malloc_trim", None) if name else None
        except OSError:
            fn = None
        if fn is not None:
            fn.argtypes, fn.restype = [ctypes.c_size_t], ctypes.c_int
            _trim = fn
    if _trim is not None:
        _trim(0)
