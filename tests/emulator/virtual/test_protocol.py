"""emulator/virtual/protocol.py: `PacketReader` takes what has come in one read and hands out whole packets."""

from __future__ import annotations

import socket
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
    """One end of a socket pair whose reads are counted."""

    def __init__(self, sock: socket.socket) -> None:
        self.sock = sock
        self.reads = 0

    def recv(self, n: int) -> bytes:
        self.reads += 1
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
    reader = PacketReader(dev)
    host.sendall(packet(A_WRTE, 1, 2, big)[: HEADER_SIZE + 100])  # the header and the payload's start first
    sent = HEADER_SIZE + 100
    whole = packet(A_WRTE, 1, 2, big) + packet(A_OKAY, 1, 2)
    host.setblocking(False)
    try:
        while sent < len(whole):  # the rest while the reader reads (the pair's buffer is smaller than it)
            try:
                sent += host.send(whole[sent:])
            except BlockingIOError:
                first = reader.read()
                assert first is not None and bytes(first.data) == big
                break
        host.setblocking(True)
        host.sendall(whole[sent:])
    finally:
        host.setblocking(True)
    if sent == len(whole):  # all of it fit in the pair's buffer at once
        first = reader.read()
        assert first is not None and bytes(first.data) == big
    second = reader.read()
    assert second is not None and (second.command, bytes(second.data)) == (A_OKAY, b"")


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
