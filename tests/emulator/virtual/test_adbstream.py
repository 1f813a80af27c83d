"""emulator/virtual/adbstream.py: an event on a stream wakes only the threads waiting for it."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable

from emulator.virtual.adbstream import OUTBOX_LIMIT, AdbStream
from emulator.virtual.protocol import A_OKAY, A_WRTE
from emulator.virtual.streams import StreamClosed


class FakeConnection:
    """What a stream needs of its connection: the packets it sends are kept."""

    max_payload = 4096

    def __init__(self) -> None:
        self.sent: list[tuple[int, bytes]] = []
        self.closed: list[AdbStream] = []

    def send_packet(self, command: int, arg0: int, arg1: int, data: bytes | memoryview = b"") -> None:
        self.sent.append((command, bytes(data)))

    def stream_closed_by_device(self, stream: AdbStream) -> None:
        self.closed.append(stream)


class CountingCondition(threading.Condition):
    """A condition that counts how often a waiter on it returned from a wait."""

    def __init__(self, lock: threading.Lock) -> None:
        super().__init__(lock)
        self.woken = 0

    def wait(self, timeout: float | None = None) -> bool:
        got = super().wait(timeout)
        self.woken += 1
        return got


def counted(stream: AdbStream, name: str) -> CountingCondition:
    cond = CountingCondition(stream._lock)
    setattr(stream, name, cond)
    return cond


def waiting(cond: threading.Condition, deadline: float = 5.0) -> None:
    """Until a thread waits on `cond`."""
    end = time.monotonic() + deadline
    while not cond._waiters:  # type: ignore[attr-defined]
        assert time.monotonic() < end, "nobody waits"
        time.sleep(0.001)


def in_thread(fn: Callable[[], object]) -> tuple[threading.Thread, list[object]]:
    """`fn` run in a thread; what it returned (or raised) is appended to the list."""
    out: list[object] = []

    def run() -> None:
        try:
            out.append(fn())
        except Exception as e:  # noqa: BLE001 - kept for the test to check
            out.append(e)

    th = threading.Thread(target=run, daemon=True)
    th.start()
    return th, out


def test_a_reader_and_a_watcher_sleep_through_the_replies_going_out() -> None:
    conn = FakeConnection()
    stream = AdbStream(conn, 1, 2, "shell:")
    readable, ended = counted(stream, "_readable"), counted(stream, "_ended")
    reader, got = in_thread(lambda: stream.read())
    watcher, closed = in_thread(lambda: stream.wait_closed(None))
    waiting(readable)
    waiting(ended)
    for i in range(50):  # what a kept shell does between two command lines: its output out, the host's OKAY in
        stream.write(b"line %d\n" % i)
        stream._on_okay()
    assert readable.woken == 0 and ended.woken == 0
    assert [c for c, _ in conn.sent].count(A_WRTE) == 50
    stream._on_write(b"true\n")  # the next command line wakes the reader, once, and not the watcher
    reader.join(5)
    assert got == [b"true\n"] and readable.woken == 1 and ended.woken == 0
    assert conn.sent[-1] == (A_OKAY, b"")
    stream._on_close(by_host=True)
    watcher.join(5)
    assert closed == [True] and ended.woken == 1


def test_a_writer_waiting_for_room_goes_on_when_an_okay_takes_from_the_outbox() -> None:
    conn = FakeConnection()
    stream = AdbStream(conn, 1, 2, "exec:")
    writable = counted(stream, "_writable")
    stream.write(b"x" * conn.max_payload)  # in flight: the rest waits for its OKAY
    stream.write(b"y" * OUTBOX_LIMIT)
    writer, done = in_thread(lambda: stream.write(b"z"))
    waiting(writable)
    stream._on_write(b"stdin")  # the host's bytes are for a reader, not for a writer waiting for room
    assert writable.woken == 0
    stream._on_okay()
    writer.join(5)
    assert done == [None] and writable.woken == 1


def test_the_end_wakes_every_waiter() -> None:
    conn = FakeConnection()
    stream = AdbStream(conn, 1, 2, "shell:")
    stream.write(b"x" * conn.max_payload)
    stream.write(b"y" * OUTBOX_LIMIT)
    reader, got = in_thread(lambda: stream.read())
    writer, wrote = in_thread(lambda: stream.write(b"z"))
    watcher, closed = in_thread(lambda: stream.wait_closed(None))
    for cond in (stream._readable, stream._writable, stream._ended):
        waiting(cond)
    stream.close()
    for th in (reader, writer, watcher):
        th.join(5)
        assert not th.is_alive()
    assert got == [b""] and closed == [True]
    assert len(wrote) == 1 and isinstance(wrote[0], StreamClosed)  # a writer the end stops is told so
