"""Reading inputs as streams, where the character devices of /dev are endless: /dev/zero gives NULs, /dev/random
and /dev/urandom random bytes (the host's, as a phone's kernel gives its own), /dev/null nothing. Writes to them
are swallowed by the file system (`FileSystem.write` keeps nothing of a character device's data) and by the shell's
redirections. What `dd` and `head -c` read through."""

from __future__ import annotations

import os
import posixpath

from .plumbing import BytesSource, Source
from .registry import Ctx

CHUNK = 64 * 1024  # what an unbounded read of an endless device hands back at once


class DeviceSource(Source):
    """An open /dev/zero, /dev/random, /dev/urandom or /dev/null."""

    def __init__(self, name: str) -> None:
        self.name = name

    def read(self, n: int = -1, timeout: float | None = None) -> bytes:
        size = CHUNK if n is None or n < 0 else n
        if self.name == "zero":
            return bytes(size)
        if self.name in ("random", "urandom"):
            return os.urandom(size)
        return b""


class StdinSource(Source):
    """The command's standard input (what `dd` with no if= and `head -c` of `-` read)."""

    def __init__(self, ctx: Ctx) -> None:
        self.ctx = ctx

    def read(self, n: int = -1, timeout: float | None = None) -> bytes:
        return self.ctx.io.read_stdin(n, timeout)


def open_input(ctx: Ctx, name: str) -> Source:
    """`name` opened for reading as the shell's user; raises `FsError` (no such file, permission denied...)."""
    if name == "-":
        return StdinSource(ctx)
    path = ctx.path(name)
    node = ctx.model.fs.stat(path)
    if node is not None and node.is_chr and posixpath.dirname(path) == "/dev":
        return DeviceSource(posixpath.basename(path))
    return BytesSource(ctx.read_file(path))


def seekable(src: Source) -> bool:
    """Whether skipping input can seek (a file or a device) rather than read and throw away (a pipe)."""
    return isinstance(src, (BytesSource, DeviceSource))
