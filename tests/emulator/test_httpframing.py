"""HTTP/1.1 framing shared by the virtual device's uiautomator2 server and the harness's client
(`emulator/httpframing.py`): when a connection persists, and chunked bodies - consumed through their trailer
section, so that the next message on a kept-alive connection starts where it should."""

from __future__ import annotations

import pytest

from emulator.httpframing import BodyTooLarge, FramingError, persists, read_chunked


@pytest.mark.parametrize(
    ("version", "connection", "kept"),
    [
        ("HTTP/1.1", None, True),
        ("HTTP/1.1", "close", False),
        ("HTTP/1.1", "Keep-Alive, Close", False),
        ("HTTP/1.1", "keep-alive", True),
        ("HTTP/1.0", None, False),
        ("HTTP/1.0", "Keep-Alive", True),
        ("http/1.0", "close", False),
    ],
)
def test_persists(version, connection, kept):
    headers = {} if connection is None else {"connection": connection}
    assert persists(version, headers) is kept


def _feeder(parts: list[bytes], buf: bytearray):
    """`more()` over `parts`, one per call; False once they are used up."""
    it = iter(parts)

    def more() -> bool:
        part = next(it, None)
        if part is None:
            return False
        buf.extend(part)
        return True

    return more


@pytest.mark.parametrize("split", [1, 3, 1000])
def test_chunked_body_is_consumed_through_its_trailers_and_leaves_the_next_message(split):
    message = b"4\r\nWiki\r\n6;ext=1\r\npedia \r\nE\r\nin \r\n\r\nchunks.\r\n0\r\nX-Trailer: 1\r\n\r\nGET /next"
    buf = bytearray()
    more = _feeder([message[i : i + split] for i in range(0, len(message), split)], buf)
    assert read_chunked(buf, more) == b"Wikipedia in \r\n\r\nchunks."
    while more():
        pass
    assert bytes(buf) == b"GET /next"


def test_chunked_body_without_trailers_keeps_what_follows():
    buf = bytearray(b"3\r\nabc\r\n0\r\n\r\nrest")
    assert read_chunked(buf, lambda: False) == b"abc" and bytes(buf) == b"rest"


def test_chunked_body_errors():
    with pytest.raises(FramingError, match="bad chunk size"):
        read_chunked(bytearray(b"zz\r\nabc\r\n"), lambda: False)
    with pytest.raises(EOFError):
        read_chunked(bytearray(b"5\r\nab"), lambda: False)
    with pytest.raises(EOFError):  # the last chunk came, its empty line did not
        read_chunked(bytearray(b"0\r\n"), lambda: False)
    with pytest.raises(BodyTooLarge):
        read_chunked(bytearray(b"3\r\nabc\r\n2\r\nde\r\n0\r\n\r\n"), lambda: False, limit=4)
    assert read_chunked(bytearray(b"3\r\nabc\r\n1\r\nd\r\n0\r\n\r\n"), lambda: False, limit=4) == b"abcd"
