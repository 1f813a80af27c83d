"""Which of a command's file descriptors is a terminal: what `tty`, `test -t FD` and `[ -t 0 ]` ask.

A descriptor is a terminal when, under its redirections, it still leads to the stream adbd gave the shell and that
stream is a PTY (`services.pty.Pty`: `adb shell` with no command, or `adb shell -t`); a pipe, a file or a shell
without a PTY (`adb shell -T`, `adb shell CMD`) is not. Each PTY gets its /dev/pts number when first asked.
"""

from __future__ import annotations

import itertools
import threading
import weakref

from .plumbing import Fds

_numbers: weakref.WeakKeyDictionary[object, int] = weakref.WeakKeyDictionary()
_next = itertools.count()
_lock = threading.Lock()


def terminal_of(obj: object) -> object | None:
    """The PTY a descriptor's object (a `RootSource`/`RootSink` over the shell process's I/O) leads to, if any: an
    object marked `is_terminal` (the shell cannot import the services package that starts it)."""
    found = None
    for _ in range(16):  # RootSink.io -> ProcIO.stream -> (a subshell's ProcIO.stream ...) -> Pty
        if getattr(obj, "is_terminal", False) is True:
            found = obj  # a ProcIO says so of its stream: the PTY itself is further down
        nxt = getattr(obj, "io", None) or getattr(obj, "stream", None)
        if nxt is None:
            break
        obj = nxt
    return found


def fd_terminal(fds: Fds, fd: int) -> object | None:
    return terminal_of(fds.get(fd))


def pts_name(pty: object) -> str:
    """/dev/pts/N of a PTY: numbered as the shells asking for one were started on this host."""
    with _lock:
        if pty not in _numbers:
            _numbers[pty] = next(_next)
        return f"/dev/pts/{_numbers[pty]}"
