"""emulator/virtual/protocol.py: `PacketReader` takes what has come in one read and hands out whole packets."""

from __future__ import annotations

import socket
import threading
from collections.abc import Iterator

import pytest

from emulator.virtual.protocol import (
    A_OKAY,
    A_WRTE,
    HEADER_SIZE,
    READ_AHEAD,
    PacketReader,
    ProtocolError,
    pack_header,
)


class CountedSocket:
    """One end of a socket pair whose reads are counted (the first one bounded, when asked)."""

    def __init__(self, sock: socket.socket) -> None:
        self.sock = sock
        self.reads = 0
        self.first_read_at_most: int | None = None  # what the first read may take

    def recv(self, n: int) -> bytes:
        self.reads += 1
        if self.reads == 1 and self.first_read_at_most is not None:
            n = min(n, self.first_read_at_most)
        return self.sock.recv(n)

    def recv_into(self, buf: memoryview, n: int) -> int:
        self.reads += 1
        return self.sock.recv_into(buf, n)


@pytest.fixture
def pair() -> Iterator[tuple[socket.socket, CountedSocket]]:
    a, b = socket.socketpair()
    try:
        yield a, CountedSocket(b)
    finally:
        a.close()
        b.close()


def packet(command: int, arg0: int, arg1: int, data: bytes = b"") -> bytes:
    return pack_header(command, arg0, arg1, len(data)) + data


def test_packets_that_came_together_are_read_at_once(pair) -> None:
    host, dev = pair
    host.sendall(packet(A_OKAY, 7, 3) + packet(A_WRTE, 7, 3, b"echo hi\n") + packet(A_OKAY, 8, 4))
    reader = PacketReader(dev)
    got = [reader.read() for _ in range(3)]
    assert [(p.command, p.arg0, p.arg1, bytes(p.data)) for p in got if p is not None] == [
        (A_OKAY, 7, 3, b""),
        (A_WRTE, 7, 3, b"echo hi\n"),
        (A_OKAY, 8, 4, b""),
    ]
    assert dev.reads == 1  # one read for the three, where a header and a payload each took one


def test_a_payload_longer_than_one_read_comes_whole_and_exact(pair) -> None:
    host, dev = pair
    big = bytes(range(256)) * (3 * READ_AHEAD // 256 + 7)
    whole = packet(A_WRTE, 1, 2, big) + packet(A_OKAY, 1, 2)
    host.sendall(whole[: HEADER_SIZE + 100])  # what the reader's first read finds: the header, the payload's start
    sender = threading.Thread(target=host.sendall, args=(whole[HEADER_SIZE + 100 :],), daemon=True)
    reader = PacketReader(dev)
    dev.first_read_at_most = HEADER_SIZE + 100
    sender.start()  # the rest while the reader reads (more than the pair's buffer holds)
    first = reader.read()
    assert first is not None and (first.command, bytes(first.data)) == (A_WRTE, big)
    second = reader.read()
    assert second is not None and (second.command, bytes(second.data)) == (A_OKAY, b"")
    sender.join(5)
    assert not sender.is_alive()


def test_a_clean_end_is_none_and_an_end_inside_a_header_is_malformed(pair) -> None:
    host, dev = pair
    host.sendall(packet(A_OKAY, 1, 2))
    host.shutdown(socket.SHUT_WR)
    reader = PacketReader(dev)
    assert reader.read() is not None
    assert reader.read() is None
    a, b = socket.socketpair()
    with a, b:
        a.sendall(packet(A_OKAY, 1, 2)[:10])
        a.shutdown(socket.SHUT_WR)
        with pytest.raises(ProtocolError, match="mid-message"):
            PacketReader(b).read()


def test_a_payload_over_the_maximum_is_refused(pair) -> None:
    host, dev = pair
    host.sendall(pack_header(A_WRTE, 1, 2, 5000))
    with pytest.raises(ProtocolError, match="exceeds the maximum"):
        PacketReader(dev, max_payload=4096).read()
