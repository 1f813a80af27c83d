"""Minimal HTTP/1.1 over one adb stream, as NanoHTTPD serves it: requests one after another on the same stream
(`RequestReader`) while the client keeps the connection alive (HTTP/1.1's default; `Connection: close` or an
HTTP/1.0 request without `Connection: keep-alive` ends it after the response), closed by the server after
KEEP_ALIVE_IDLE seconds without a request (on the device's clock: `RequestReader(clock=)`). The client
(http.client) may send the headers and the body in separate writes, and may send the next request before it has
read the last response (the bytes are kept)."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from ...httpframing import BodyTooLarge, FramingError, persists, read_chunked

MAX_HEADER_BYTES = 64 * 1024
MAX_BODY_BYTES = 16 * 1024 * 1024
READ_TIMEOUT = 30.0  # seconds of silence before a half-sent request is dropped
KEEP_ALIVE_IDLE = 5.0  # seconds a kept-alive connection may wait for its next request (NanoHTTPD's socket timeout)

REASONS = {
    200: "OK",
    400: "Bad Request",
    404: "Not Found",
    405: "Method Not Allowed",
    411: "Length Required",
    413: "Payload Too Large",
    500: "Internal Server Error",
}


class BadRequest(Exception):
    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status


@dataclass
class Request:
    method: str
    path: str
    version: str
    headers: dict[str, str] = field(default_factory=dict)  # lower-cased names
    body: bytes = b""

    @property
    def keep_alive(self) -> bool:
        """Does the client want the connection kept for another request?"""
        return persists(self.version, self.headers)


def _read_chunk(stream: Any, timeout: float = READ_TIMEOUT) -> bytes:
    """One chunk from the stream; b"" at end of stream (closed, or silent for `timeout` seconds)."""
    try:
        return stream.read(-1, timeout=timeout) or b""
    except Exception:  # noqa: BLE001 - StreamClosed, TimeoutError, transport errors: the request is gone
        return b""


class RequestReader:
    """The requests of one connection, in order: `next()` parses the next one from the bytes left over by the
    last and what the stream sends. The first request may take READ_TIMEOUT to start; a later one
    KEEP_ALIVE_IDLE, measured on `clock`."""

    def __init__(self, stream: Any, clock: Callable[[], float] = time.monotonic) -> None:
        self.stream = stream
        self.clock = clock
        self.buf = bytearray()
        self.served = 0

    def _more(self, idle: bool = False) -> bool:
        """Append what the stream sends next; False at its end. `idle`: waiting between requests, until
        KEEP_ALIVE_IDLE has passed on the clock (each wait is for the time left; the clock decides when it ends)."""
        if not idle:
            chunk = _read_chunk(self.stream, READ_TIMEOUT)
        else:
            since = self.clock()
            while True:
                left = KEEP_ALIVE_IDLE - (self.clock() - since)
                if left <= 0:
                    return False
                try:
                    chunk = self.stream.read(-1, timeout=left) or b""
                    break
                except TimeoutError:
                    continue  # the wait ran out: the clock says whether the idle time has passed
                except Exception:  # noqa: BLE001 - StreamClosed, transport errors: the connection is gone
                    return False
        self.buf += chunk
        return bool(chunk)

    def next(self) -> Request | None:
        """The next request; None when the peer closed (or went quiet) before a full request line and headers.
        Raises BadRequest for malformed input."""
        buf = self.buf
        while b"\r\n\r\n" not in buf:
            if len(buf) > MAX_HEADER_BYTES:
                raise BadRequest(400, "request header too large")
            if not self._more(idle=self.served > 0 and not buf):
                return None
        head_end = buf.index(b"\r\n\r\n")
        lines = bytes(buf[:head_end]).decode("iso-8859-1").split("\r\n")
        del buf[: head_end + 4]
        parts = lines[0].split()
        if len(parts) != 3 or not parts[2].startswith("HTTP/"):
            raise BadRequest(400, f"bad request line {lines[0]!r}")
        method, target, version = parts
        headers: dict[str, str] = {}
        for line in lines[1:]:
            if not line:
                continue
            name, sep, value = line.partition(":")
            if not sep:
                raise BadRequest(400, f"bad header line {line!r}")
            headers[name.strip().lower()] = value.strip()
        path = target.split("?", 1)[0]
        if "chunked" in headers.get("transfer-encoding", "").lower():
            try:
                body = read_chunked(buf, self._more, MAX_BODY_BYTES)
            except EOFError:
                raise BadRequest(400, "stream ended inside a chunked body") from None
            except BodyTooLarge:
                raise BadRequest(413, "body too large") from None
            except FramingError as e:
                raise BadRequest(400, str(e)) from None
        else:
            length_s = headers.get("content-length", "0") or "0"
            try:
                length = int(length_s)
            except ValueError:
                raise BadRequest(400, f"bad Content-Length {length_s!r}") from None
            if length < 0:
                raise BadRequest(400, "negative Content-Length")
            if length > MAX_BODY_BYTES:
                raise BadRequest(413, "body too large")
            while len(buf) < length:
                if not self._more():
                    return None
            body = bytes(buf[:length])
            del buf[:length]
        self.served += 1
        return Request(method.upper(), path, version, headers, body)


def format_response(
    status: int, body: bytes, content_type: str = "application/json; charset=UTF-8", keep_alive: bool = False
) -> bytes:
    head = (
        f"HTTP/1.1 {status} {REASONS.get(status, 'Unknown')}\r\n"
        f"Content-Type: {content_type}\r\n"
        f"Content-Length: {len(body)}\r\n"
        f"Connection: {'keep-alive' if keep_alive else 'close'}\r\n"
        "\r\n"
    )
    return head.encode("ascii") + body
