"""One adb stream (OPEN ... CLSE) on the device side: an inbox with deferred OKAYs for backpressure, and an outbox
toward the host with one WRTE in flight. Implements `streams.Stream`; created by `transport.Connection`.

The outbox is what a pipe is to adbd's services: a service writes into it and goes on (up to `OUTBOX_LIMIT`
bytes ahead of the host), and each OKAY sends everything written meanwhile (up to the max payload) as the next
WRTE - so a command printing many short lines, or a shell's output then its exit status, costs a round trip
per packet adbd would send, not one per write. A device-side close waits for nothing either: the CLSE follows
the last byte written.

`hold_output()` (the shell services use it for a command line that ends at once): what the service writes is
kept until it releases it, closes the stream, or a full WRTE is waiting - so the command's output, its exit
status (shell v2) and the CLSE go together, one WRTE and no round trip between them, where sending at the first
write would wait for the host's OKAY before the exit status could follow."""

from __future__ import annotations

import threading
import time
from typing import Protocol

from .protocol import A_OKAY, A_WRTE
from .streams import StreamClosed

INBOX_LIMIT = 1024 * 1024  # unread host bytes per stream before we stop acknowledging
OUTBOX_LIMIT = 64 * 1024  # unsent bytes per stream before a write waits (a pipe's capacity on Linux)


class Link(Protocol):
    """What a stream needs of its connection (`transport.Connection`): the packet size the host accepts, a way to
    send a packet, and to say the device closed the stream."""

    max_payload: int

    def send_packet(self, command: int, arg0: int, arg1: int, data: bytes | memoryview = b"") -> None: ...

    def stream_closed_by_device(self, stream: AdbStream) -> None: ...


class AdbStream:
    """One open adb stream as a byte pipe (implements `streams.Stream`)."""

    def __init__(self, conn: Link, local_id: int, remote_id: int, service: str) -> None:
        self.conn = conn
        self.local_id = local_id
        self.remote_id = remote_id
        self.service = service
        # one lock, a condition per kind of waiter: an event wakes only the threads waiting for it (a reader for
        # bytes, a writer for room, a watcher for the end) - a thread woken for nothing costs a device two context
        # switches, and a kept shell's reader and hang-up watcher would be woken by every OKAY and WRTE otherwise
        self._lock = threading.Lock()
        self._readable = threading.Condition(self._lock)  # bytes in the inbox, or the stream ends
        self._writable = threading.Condition(self._lock)  # room in the outbox, or the stream ends
        self._ended = threading.Condition(self._lock)  # closed by either side
        self._inbox = bytearray()
        self._owed_okays = 0
        self._outbox = bytearray()  # written, not yet sent
        self._can_send = True  # no WRTE in flight
        self._in_transit = 0  # WRTEs taken from the outbox, not yet handed to the connection
        self._closing = False  # closed by the device: CLSE follows the outbox's last byte
        self._closed = False
        self._host_closed = False
        self._held = False  # hold_output: written data waits for release_output / close / a full WRTE
        self.opened = threading.Event()  # device-opened streams (adb reverse): set on the host's answer

    # --- properties ------------------------------------------------------------------------------
    @property
    def max_payload(self) -> int:
        return self.conn.max_payload

    @property
    def closed(self) -> bool:
        return self._closed or self._closing

    @property
    def host_closed(self) -> bool:
        return self._host_closed

    def __repr__(self) -> str:
        return f"AdbStream({self.service!r}, local={self.local_id}, remote={self.remote_id})"

    # --- called by the connection's reader thread ---------------------------------------------------
    def _on_write(self, data: bytes | bytearray) -> None:
        with self._lock:
            if self._closed:
                return
            defer = len(self._inbox) + len(data) > INBOX_LIMIT
            if defer:
                self._owed_okays += 1
        if not defer:  # the OKAY first: the reader woken next finds this thread back in its read of the socket
            self.conn.send_packet(A_OKAY, self.local_id, self.remote_id)  # (not holding the interpreter it needs)
        with self._lock:
            if self._closed:
                return
            self._inbox += data
            self._readable.notify_all()

    def _on_okay(self) -> None:
        with self._lock:
            self._can_send = True
            chunk = self._take()
            if chunk is not None:  # the outbox shrank: a writer waiting for room may go on
                self._writable.notify_all()
        if chunk is not None:
            self._send(chunk)

    def _on_close(self, by_host: bool) -> None:
        with self._lock:
            self._closed = True
            self._outbox.clear()  # nobody to send it to
            self._host_closed = self._host_closed or by_host
            self._wake_all()

    # --- Stream protocol ---------------------------------------------------------------------------
    def read(self, n: int = -1, timeout: float | None = None) -> bytes:
        """Up to n bytes (n < 0: all that is buffered), waiting for at least one byte; b"" once the stream is
        closed and drained. Raises TimeoutError when `timeout` passes with nothing to read."""
        deadline = None if timeout is None else time.monotonic() + timeout
        with self._lock:
            while not self._inbox and not self._closed and not self._closing:
                remaining = None if deadline is None else deadline - time.monotonic()
                if remaining is not None and remaining <= 0:
                    raise TimeoutError(f"no data on {self.service!r} within {timeout} s")
                self._readable.wait(remaining)
            if not self._inbox:
                return b""
            k = len(self._inbox) if n is None or n < 0 else min(n, len(self._inbox))
            out = bytes(self._inbox[:k])
            del self._inbox[:k]  # O(1) amortized at the front of a bytearray
            release = 0
            if self._owed_okays and len(self._inbox) <= INBOX_LIMIT and not self._closed:
                release, self._owed_okays = self._owed_okays, 0
        for _ in range(release):
            try:
                self.conn.send_packet(A_OKAY, self.local_id, self.remote_id)
            except StreamClosed:
                break
        return out

    def read_exact(self, n: int) -> bytes:
        if n <= 0:
            return b""
        parts: list[bytes] = []
        got = 0
        while got < n:
            chunk = self.read(n - got)
            if not chunk:
                raise StreamClosed(f"{self.service!r} closed after {got} of {n} bytes")
            parts.append(chunk)
            got += len(chunk)
        return parts[0] if len(parts) == 1 else b"".join(parts)

    def write(self, data: bytes | bytearray | memoryview) -> None:
        """Queue `data` for the host (sent as WRTEs of at most the max payload, one in flight); waits only while
        `OUTBOX_LIMIT` bytes are already waiting. Raises StreamClosed once the stream is closed."""
        if not len(data):
            return
        with self._lock:
            while len(self._outbox) >= OUTBOX_LIMIT and not self._closed and not self._closing:
                self._writable.wait()
            if self._closed or self._closing:
                raise StreamClosed(f"{self.service!r} is closed")
            self._outbox += data
            chunk = self._take()
        if chunk is not None:
            self._send(chunk)

    def hold_output(self) -> None:
        """Keep what is written until `release_output`, `close` or a full WRTE (see the module's docstring)."""
        with self._lock:
            self._held = True

    def release_output(self) -> None:
        """Send what `hold_output` kept, now; later writes go as they come."""
        with self._lock:
            self._held = False
            chunk = self._take()
        if chunk is not None:
            self._send(chunk)

    def close(self) -> None:
        """Close from the device side without waiting: the CLSE goes now, or right after the last byte written
        (as adbd sends a dead service's remaining output before closing). Idempotent."""
        with self._lock:
            if self._closed or self._closing:
                return
            self._closing = True
            self._held = False
            self._wake_all()  # readers, writers and watchers of this stream stop
            chunk = self._take()
            done = chunk is None and self._finish()
        if chunk is not None:
            self._send(chunk)  # the CLSE follows it (`_send` finishes the stream)
        if done:
            self.conn.stream_closed_by_device(self)

    def _finish(self) -> bool:
        """Mark the stream closed when the device closed it and nothing is left to send (lock held): True when
        the caller is to send the CLSE."""
        if not self._closing or self._closed or self._outbox or self._in_transit:
            return False
        self._closed = True
        self._wake_all()
        return True

    def _wake_all(self) -> None:
        """The stream ends (lock held): every waiter goes on."""
        self._readable.notify_all()
        self._writable.notify_all()
        self._ended.notify_all()

    def _take(self) -> bytes | None:
        """The next WRTE's payload when none is in flight (call with the lock held); None otherwise."""
        if not self._can_send or not self._outbox or self._closed:
            return None
        if self._held and len(self._outbox) < min(self.conn.max_payload, OUTBOX_LIMIT):
            return None  # held: not a full WRTE yet
        size = min(self.conn.max_payload, len(self._outbox))
        chunk = bytes(self._outbox[:size])
        del self._outbox[:size]
        self._can_send = False
        self._in_transit += 1
        return chunk

    def _send(self, chunk: bytes) -> None:
        try:
            self.conn.send_packet(A_WRTE, self.local_id, self.remote_id, chunk)
        except (StreamClosed, OSError):
            pass  # the connection is gone: its close closes this stream too
        finally:
            with self._lock:
                self._in_transit -= 1
                done = self._finish()  # nobody waits for a WRTE to be handed over, only for the end it may make
            if done:
                self.conn.stream_closed_by_device(self)

    def wait_closed(self, timeout: float | None = None) -> bool:
        with self._lock:
            return self._ended.wait_for(lambda: self._closed or self._closing, timeout)
