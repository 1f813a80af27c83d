"""The shell's file descriptors: sinks (host stream, buffers, files, /dev/null), sources, and the `ShellIO` a
command sees (`CmdIO`), plus the control-flow exceptions of the runner."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from ..streams import ShellIO

if TYPE_CHECKING:  # pragma: no cover
    from ..model import VirtualDeviceModel


class ExitShell(Exception):
    def __init__(self, status: int) -> None:
        super().__init__(status)
        self.status = status


class LoopControl(Exception):
    """`break N` / `continue N` unwinding to the N-th enclosing loop."""

    def __init__(self, levels: int, kind: str) -> None:
        super().__init__(kind, levels)
        self.levels, self.kind = levels, kind


class ReturnFunc(Exception):
    def __init__(self, status: int) -> None:
        super().__init__(status)
        self.status = status


class Abort(Exception):
    """The host went away: stop running anything."""


# --- I/O plumbing ------------------------------------------------------------------------------------
class Sink:
    def write(self, data: bytes) -> None:  # pragma: no cover - interface
        raise NotImplementedError


class RootSink(Sink):
    def __init__(self, io: ShellIO, stderr: bool) -> None:
        self.io, self.stderr = io, stderr

    def write(self, data: bytes) -> None:
        (self.io.write_stderr if self.stderr else self.io.write_stdout)(data)


class BufSink(Sink):
    def __init__(self) -> None:
        self.buf = bytearray()

    def write(self, data: bytes) -> None:
        self.buf.extend(data)


class NullSink(Sink):
    def write(self, data: bytes) -> None:
        pass


class FileSink(Sink):
    def __init__(self, model: VirtualDeviceModel, path: str) -> None:
        self.model, self.path = model, path

    def write(self, data: bytes) -> None:
        self.model.fs.write(self.path, data, append=True)


class Source:
    def read(self, n: int = -1, timeout: float | None = None) -> bytes:
        return b""


class RootSource(Source):
    def __init__(self, io: ShellIO) -> None:
        self.io = io

    def read(self, n: int = -1, timeout: float | None = None) -> bytes:
        return self.io.read_stdin(n, timeout)


class BytesSource(Source):
    def __init__(self, data: bytes) -> None:
        self.data, self.pos = bytes(data), 0

    def read(self, n: int = -1, timeout: float | None = None) -> bytes:
        end = len(self.data) if n is None or n < 0 else self.pos + n
        chunk = self.data[self.pos : end]
        self.pos += len(chunk)
        return chunk


@dataclass
class Fds:
    stdin: Source
    stdout: Sink
    stderr: Sink
    extra: dict[int, object] = field(default_factory=dict)

    def copy(self) -> Fds:
        return Fds(self.stdin, self.stdout, self.stderr, dict(self.extra))

    def get(self, fd: int) -> object | None:
        return {0: self.stdin, 1: self.stdout, 2: self.stderr}.get(fd, self.extra.get(fd))

    def set(self, fd: int, obj: object) -> None:
        if fd == 0 and isinstance(obj, Source):
            self.stdin = obj
        elif fd == 1 and isinstance(obj, Sink):
            self.stdout = obj
        elif fd == 2 and isinstance(obj, Sink):
            self.stderr = obj
        elif fd > 2:
            self.extra[fd] = obj


class CmdIO:
    """The `ShellIO` a command sees: its redirected fds, plus the host stream's liveness."""

    def __init__(self, fds: Fds, root: ShellIO) -> None:
        self.fds, self.root = fds, root

    def read_stdin(self, n: int = -1, timeout: float | None = None) -> bytes:
        return self.fds.stdin.read(n, timeout)

    def write_stdout(self, data: bytes) -> None:
        self.fds.stdout.write(data)

    def write_stderr(self, data: bytes) -> None:
        self.fds.stderr.write(data)

    @property
    def closed(self) -> bool:
        return self.root.closed

    def wait_closed(self, timeout: float | None = None) -> bool:
        return self.root.wait_closed(timeout)
