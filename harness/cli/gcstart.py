"""Garbage collection around a command's start: what a one-shot command process pays for its collector.

A command imports a great deal (typer, rich, pydantic's schemas, the harness) before it does anything, and every
object those imports make lives as long as the process. The collector would walk them over and over: a full
collection in the middle of `droidharness run`'s imports (~50 ms), another near its end, and the interpreter's
own collections as it tears down at exit (~0.1 s). In a process of its own (`own_process`, called by the console
script) what the command imported is frozen out of every later collection (`gc.freeze`), no collection runs while
its heavy imports make their objects (`heavy_imports`), and the heap is frozen at exit. Elsewhere - a test's
`CliRunner`, whose process goes on - nothing changes: a frozen heap is never collected again.
"""

from __future__ import annotations

import atexit
import gc
from collections.abc import Iterator
from contextlib import contextmanager

_own = False  # this process runs one command and ends with it (`own_process`)


def own_process() -> None:
    """This process runs one command and ends with it: what it has imported so far is frozen out of every later
    collection, and at exit the teardown's collections skip the heap (the process's memory goes back at once)."""
    global _own
    _own = True
    gc.freeze()
    atexit.register(gc.freeze)


@contextmanager
def heavy_imports() -> Iterator[None]:
    """A command's heavy imports: in a process of its own, no collection while they run, and what they made is
    frozen out of every later one; elsewhere nothing changes."""
    if not _own or not gc.isenabled():
        yield
        return
    gc.disable()
    try:
        yield
    finally:
        gc.freeze()
        gc.enable()
