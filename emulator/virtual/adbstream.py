"""One adb stream (OPEN ... CLSE) on the device side: an inbox with deferred OKAYs for backpressure, and one WRTE
in flight toward the host. Implements `streams.Stream`; created by `transport.Connection`."""

from __future__ import annotations

import threading
import time
from typing import TYPE_CHECKING

from . import protocol as p
from .streams import StreamClosed

if TYPE_CHECKING:  # pragma: no cover
    from .transport import Connection

INBOX_LIMIT = 1024 * 1024  # unread host bytes per stream before we stop acknowledging


class AdbStream:
    """One open adb stream as a byte pipe (implements `streams.Stream`)."""

    def __init__(self, conn: Connection, local_id: int, remote_id: int, service: str) -> None:
        self.conn = conn
        self.local_id = local_id
        self.remote_id = remote_id
        self.service = service
        self._cond = threading.Condition(threading.Lock())
        self._inbox = bytearray()
        self._owed_okays = 0
        self._can_send = True  # no WRTE in flight
        self._closed = False
        self._host_closed = False
        self.opened = threading.Event()  # device-opened streams (adb reverse): set on the host's answer

    # --- properties ------------------------------------------------------------------------------
    @property
    def max_payload(self) -> int:
        return self.conn.max_payload

    @property
    def closed(self) -> bool:
        return self._closed

    @property
    def host_closed(self) -> bool:
        return self._host_closed

    def __repr__(self) -> str:
        return f"AdbStream({self.service!r}, local={self.local_id}, remote={self.remote_id})"

    # --- called by the connection's reader thread ---------------------------------------------------
    def _on_write(self, data: bytes | bytearray) -> None:
        with self._cond:
            if self._closed:
                return
            self._inbox += data
            defer = len(self._inbox) > INBOX_LIMIT
            if defer:
                self._owed_okays += 1
            self._cond.notify_all()
        if not defer:
            self.conn.send_packet(p.A_OKAY, self.local_id, self.remote_id)

    def _on_okay(self) -> None:
        with self._cond:
            self._can_send = True
            self._cond.notify_all()

    def _on_close(self, by_host: bool) -> None:
        with self._cond:
            self._closed = True
            self._host_closed = self._host_closed or by_host
            self._cond.notify_all()

    # --- Stream protocol ---------------------------------------------------------------------------
    def read(self, n: int = -1, timeout: float | None = None) -> bytes:
        """Up to n bytes (n < 0: all that is buffered), waiting for at least one byte; b"" once the stream is
        closed and drained. Raises TimeoutError when `timeout` passes with nothing to read."""
        deadline = None if timeout is None else time.monotonic() + timeout
        with self._cond:
            while not self._inbox and not self._closed:
                remaining = None if deadline is None else deadline - time.monotonic()
                if remaining is not None and remaining <= 0:
                    raise TimeoutError(f"no data on {self.service!r} within {timeout} s")
                self._cond.wait(remaining)
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
                self.conn.send_packet(p.A_OKAY, self.local_id, self.remote_id)
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
        view = memoryview(data).cast("B") if not isinstance(data, bytes) else memoryview(data)
        total = len(view)
        offset = 0
        while offset < total:
            size = min(self.conn.max_payload, total - offset)
            with self._cond:
                while not self._can_send and not self._closed:
                    self._cond.wait()
                if self._closed:
                    raise StreamClosed(f"{self.service!r} is closed")
                self._can_send = False
            self.conn.send_packet(p.A_WRTE, self.local_id, self.remote_id, view[offset : offset + size])
            offset += size

    def close(self) -> None:
        with self._cond:
            if self._closed:
                return
            self._closed = True
            self._cond.notify_all()
        self.conn.stream_closed_by_device(self)

    def wait_closed(self, timeout: float | None = None) -> bool:
        with self._cond:
            return self._cond.wait_for(lambda: self._closed, timeout)
