"""Minimal HTTP/1.1 over one adb stream: read one request, write one response, close (as NanoHTTPD does with
`Connection: close`). The client (http.client) may send the headers and the body in separate writes."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

MAX_HEADER_BYTES = 64 * 1024
MAX_BODY_BYTES = 16 * 1024 * 1024
READ_TIMEOUT = 30.0  # seconds of silence before a half-sent request is dropped

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


def _read_chunk(stream: Any) -> bytes:
    """One chunk from the stream; b"" at end of stream (closed, or silent for READ_TIMEOUT)."""
    try:
        return stream.read(-1, timeout=READ_TIMEOUT) or b""
    except Exception:  # noqa: BLE001 - StreamClosed, TimeoutError, transport errors: the request is gone
        return b""


def read_request(stream: Any) -> Request | None:
    """Parse one request from `stream`. None when the peer closed before sending a full request line and headers.
    Raises BadRequest for malformed input."""
    buf = bytearray()
    while b"\r\n\r\n" not in buf:
        if len(buf) > MAX_HEADER_BYTES:
            raise BadRequest(400, "request header too large")
        chunk = _read_chunk(stream)
        if not chunk:
            return None
        buf += chunk
    head, _, rest = bytes(buf).partition(b"\r\n\r\n")
    lines = head.decode("iso-8859-1").split("\r\n")
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
        body = _read_chunked(stream, bytearray(rest))
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
        body_buf = bytearray(rest)
        while len(body_buf) < length:
            chunk = _read_chunk(stream)
            if not chunk:
                return None
            body_buf += chunk
        body = bytes(body_buf[:length])
    return Request(method.upper(), path, version, headers, body)


def _read_chunked(stream: Any, buf: bytearray) -> bytes:
    out = bytearray()

    def need(pred: Callable[[], bool]) -> None:
        while not pred():
            chunk = _read_chunk(stream)
            if not chunk:
                raise BadRequest(400, "stream ended inside a chunked body")
            buf.extend(chunk)

    def need_bytes(n: int) -> None:
        need(lambda: len(buf) >= n)

    while True:
        need(lambda: b"\r\n" in buf)
        line, _, remaining = bytes(buf).partition(b"\r\n")
        try:
            size = int(line.split(b";", 1)[0].strip() or b"0", 16)
        except ValueError:
            raise BadRequest(400, "bad chunk size") from None
        buf[:] = remaining
        if size == 0:
            return bytes(out)
        need_bytes(size + 2)
        out += buf[:size]
        del buf[: size + 2]
        if len(out) > MAX_BODY_BYTES:
            raise BadRequest(413, "body too large")


def format_response(status: int, body: bytes, content_type: str = "application/json; charset=UTF-8") -> bytes:
    head = (
        f"HTTP/1.1 {status} {REASONS.get(status, 'Unknown')}\r\n"
        f"Content-Type: {content_type}\r\n"
        f"Content-Length: {len(body)}\r\n"
        "Connection: close\r\n"
        "\r\n"
    )
    return head.encode("ascii") + body
