"""The device's own listening sockets made by processes in the shell (`nc -l -p PORT`, `nc -lU -s @NAME`).

A `Listener` is registered under its socket's spec (`tcp:PORT`, `localabstract:NAME`, `localfilesystem:PATH`)
per device; the `tcp:`/`localabstract:` services (a host's `adb forward`) and device-side clients (`nc HOST PORT`)
look it up and hand it their end of the connection (`Listener.handle`, blocking until the listening process is
done with it). The other device-side ends - the uiautomator2 server's ports (`model.ports`) and the sockets
`adb reverse` made - are looked up by the services themselves (`services.tcp_service.device_handler`).

`pipe_pair()` makes the two ends of a connection that stays on the device (a shell's `nc` client to a shell's
`nc -l`): each end is a `Stream` whose writes the other end reads.
"""

from __future__ import annotations

import queue
import threading
import time
import weakref
from collections import deque
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from .streams import Stream, StreamClosed

if TYPE_CHECKING:  # pragma: no cover
    from .model import VirtualDeviceModel

_LOCK = threading.Lock()
_TABLES: weakref.WeakKeyDictionary[VirtualDeviceModel, dict[str, Listener]] = weakref.WeakKeyDictionary()


@dataclass
class Connection:
    """One connection handed to a listener: the stream, and `done` to set when the process is through with it."""

    stream: Stream
    done: threading.Event = field(default_factory=threading.Event)
    accepted: bool = False


class Listener:
    """One listening socket: connections queue up (the backlog) until the listening process accepts them."""

    def __init__(self, spec: str) -> None:
        self.spec = spec
        self._incoming: queue.Queue[Connection] = queue.Queue()
        self.closed = False

    def handle(self, stream: Stream) -> None:
        """Give the listener one connection; returns when the process that accepted it is done (or the listener
        closed, or the peer went away, before it was accepted)."""
        conn = Connection(stream)
        self._incoming.put(conn)
        while not conn.done.wait(0.05):
            if (self.closed or stream.closed) and not conn.accepted:
                return

    def accept(self, timeout: float | None = None) -> Connection | None:
        """The next connection; None when `timeout` passes first."""
        try:
            conn = self._incoming.get(timeout=timeout)
        except queue.Empty:
            return None
        conn.accepted = True
        return conn

    def close(self) -> None:
        """The socket is closed: connections not accepted yet are dropped."""
        self.closed = True
        while True:
            try:
                conn = self._incoming.get_nowait()
            except queue.Empty:
                return
            conn.done.set()


def _table(model: VirtualDeviceModel) -> dict[str, Listener]:
    table = _TABLES.get(model)
    if table is None:
        table = _TABLES[model] = {}
    return table


def listen(model: VirtualDeviceModel, spec: str) -> Listener | None:
    """Bind and listen on `spec`; None when another socket is bound there (EADDRINUSE)."""
    with _LOCK:
        table = _table(model)
        if spec in table or (spec.startswith("tcp:") and spec[4:].isdigit() and int(spec[4:]) in model.ports):
            return None
        found = table[spec] = Listener(spec)
    model.events.log("listen", spec=spec)
    return found


def unlisten(model: VirtualDeviceModel, listener: Listener) -> None:
    with _LOCK:
        table = _table(model)
        if table.get(listener.spec) is listener:
            del table[listener.spec]
    listener.close()


def lookup(model: VirtualDeviceModel, spec: str) -> Listener | None:
    with _LOCK:
        return _table(model).get(spec)


def bound(model: VirtualDeviceModel) -> list[str]:
    """The specs listened on now (what `netstat`/`ss` could show)."""
    with _LOCK:
        return sorted(_table(model))


def free_port(model: VirtualDeviceModel, start: int = 40000) -> int:
    """A TCP port nothing listens on (an ephemeral port for `nc -l` without `-p`)."""
    with _LOCK:
        table = _table(model)
        port = start
        while f"tcp:{port}" in table or port in model.ports:
            port += 1
        return port


# --- a connection inside the device ---------------------------------------------------------------------
class _Half:
    """Bytes one way, with the writer's close as the reader's end of input."""

    def __init__(self) -> None:
        self.cond = threading.Condition()
        self.data: deque[bytes] = deque()
        self.closed = False


class PipeStream:
    """One end of a device-local connection (implements `streams.Stream`)."""

    def __init__(self, inbox: _Half, outbox: _Half) -> None:
        self._in, self._out = inbox, outbox

    def read(self, n: int = -1, timeout: float | None = None) -> bytes:
        deadline = None if timeout is None else time.monotonic() + timeout
        with self._in.cond:
            while not self._in.data:
                if self._in.closed:
                    return b""
                left = None if deadline is None else deadline - time.monotonic()
                if left is not None and left <= 0:
                    raise TimeoutError
                self._in.cond.wait(left)
            chunk = self._in.data.popleft()
            if 0 <= n < len(chunk):
                self._in.data.appendleft(chunk[n:])
                chunk = chunk[:n]
            return chunk

    def read_exact(self, n: int) -> bytes:
        buf = bytearray()
        while len(buf) < n:
            chunk = self.read(n - len(buf))
            if not chunk:
                raise StreamClosed("pipe closed")
            buf += chunk
        return bytes(buf)

    def write(self, data: bytes | bytearray | memoryview) -> None:
        with self._out.cond:
            if self._out.closed:
                raise StreamClosed("pipe closed")
            if data:
                self._out.data.append(bytes(data))
                self._out.cond.notify_all()

    def hold_output(self) -> None:
        return

    def release_output(self) -> None:
        return

    def close(self) -> None:
        for half in (self._in, self._out):
            with half.cond:
                half.closed = True
                half.cond.notify_all()

    @property
    def closed(self) -> bool:
        return self._in.closed and self._out.closed

    def wait_closed(self, timeout: float | None = None) -> bool:
        deadline = None if timeout is None else time.monotonic() + timeout
        with self._in.cond:
            while not self._in.closed:
                left = None if deadline is None else deadline - time.monotonic()
                if left is not None and left <= 0:
                    return False
                self._in.cond.wait(left)
        return True


def pipe_pair() -> tuple[PipeStream, PipeStream]:
    """The two ends of one connection: what one writes the other reads; closing either closes both."""
    a, b = _Half(), _Half()
    return PipeStream(a, b), PipeStream(b, a)


def pump(source: Stream, sink: Stream) -> None:
    """Copy `source` into `sink` until `source` ends or `sink` is gone; then close both (a connection's two
    directions end together, as adbd's socket pairs do)."""
    try:
        while True:
            chunk = source.read(-1)
            if not chunk:
                break
            sink.write(chunk)
    except (StreamClosed, OSError):
        pass
    finally:
        sink.close()
        source.close()


def bridge(a: Stream, b: Stream) -> None:
    """Join two streams both ways; returns when the connection has ended."""
    other = threading.Thread(target=pump, args=(b, a), name="bridge", daemon=True)
    other.start()
    pump(a, b)
    other.join()
