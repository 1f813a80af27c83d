"""HTTP/1.1 message framing (RFC 9112), shared by the virtual device's uiautomator2 server
(`emulator.virtual.u2.http`) and the harness's uiautomator2 client (`harness.device.fastadb.U2Rpc`): whether a
connection persists after a message, and chunked bodies. The bytes come from the caller: `more()` appends what
arrives to the buffer and says whether anything did. Kept outside `emulator.virtual`, whose package imports the
whole device, so that the client for real phones does not load it."""

from __future__ import annotations

from collections.abc import Callable, Mapping


class FramingError(ValueError):
    """A message that does not follow HTTP/1.1 framing (a bad chunk size)."""


class BodyTooLarge(FramingError):
    """A chunked body longer than the reader's limit."""


def persists(version: str, headers: Mapping[str, str]) -> bool:
    """Does the connection stay open after this message? HTTP/1.1 unless `Connection: close`; HTTP/1.0 only with
    `Connection: keep-alive`. `headers` has lower-cased names."""
    tokens = {t.strip().lower() for t in headers.get("connection", "").split(",")}
    if version.upper() == "HTTP/1.0":
        return "keep-alive" in tokens
    return "close" not in tokens


def read_chunked(buf: bytearray, more: Callable[[], bool], limit: int | None = None) -> bytes:
    """A chunked body from `buf` (the bytes after the header) and what `more()` adds to it, consumed through the
    last chunk's trailer section, so that `buf` keeps only what follows the message. EOFError when `more()` has
    nothing before the body ends; FramingError for a bad chunk size; BodyTooLarge past `limit` bytes."""
    out = bytearray()

    def need(done: Callable[[], bool]) -> None:
        while not done():
            if not more():
                raise EOFError("the stream ended inside a chunked body")

    while True:
        need(lambda: b"\r\n" in buf)
        line_end = buf.index(b"\r\n")
        try:
            size = int(bytes(buf[:line_end]).split(b";", 1)[0].strip() or b"0", 16)
        except ValueError:
            raise FramingError("bad chunk size") from None
        del buf[: line_end + 2]
        if size == 0:  # the last chunk, then optional trailer lines and an empty line
            need(lambda: buf.startswith(b"\r\n") or b"\r\n\r\n" in buf)
            del buf[: 2 if buf.startswith(b"\r\n") else buf.index(b"\r\n\r\n") + 4]
            return bytes(out)
        end = size + 2
        need(lambda: len(buf) >= end)  # noqa: B023 - called at once, inside this iteration
        out += buf[:size]
        del buf[:end]
        if limit is not None and len(out) > limit:
            raise BodyTooLarge(f"chunked body over {limit} bytes")
