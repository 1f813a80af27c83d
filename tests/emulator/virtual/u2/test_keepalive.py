"""HTTP keep-alive on uiautomator2's `tcp:9008` streams, through the real adb server: the virtual device's server
answers requests one after another on a stream the client keeps (as NanoHTTPD does), and `U2Rpc` reuses its
streams, replacing one that died before any byte of its reply."""

from __future__ import annotations

import socket

import adbutils
import pytest

from emulator.virtual.u2 import http as u2http
from harness.device import fastadb
from harness.device.fastadb import U2Rpc
from tests.fake_clock import FakeClock

u2 = pytest.importorskip("uiautomator2")


def _request(path: str = "/ping", body: bytes = b"", version: str = "HTTP/1.1", connection: str | None = None) -> bytes:
    head = f"{'POST' if body else 'GET'} {path} {version}\r\nHost: 127.0.0.1:9008\r\nContent-Length: {len(body)}\r\n"
    if connection is not None:
        head += f"Connection: {connection}\r\n"
    return (head + "\r\n").encode("ascii") + body


def _responses(sock: socket.socket, count: int) -> list[tuple[dict[str, str], bytes]]:
    """`count` responses read from `sock` (each delimited by its Content-Length)."""
    buf, out = b"", []
    sock.settimeout(10)
    while len(out) < count:
        while b"\r\n\r\n" not in buf:
            chunk = sock.recv(65536)
            assert chunk, f"stream closed after {len(out)} responses"
            buf += chunk
        head, _, buf = buf.partition(b"\r\n\r\n")
        lines = head.decode("iso-8859-1").split("\r\n")
        headers = {k.strip().lower(): v.strip() for k, _, v in (line.partition(":") for line in lines[1:])}
        headers["status"] = lines[0].split()[1]
        n = int(headers["content-length"])
        while len(buf) < n:
            buf += sock.recv(65536)
        out.append((headers, buf[:n]))
        buf = buf[n:]
    assert buf == b""
    return out


def _closed_soon(sock: socket.socket, within: float = 5.0) -> bool:
    sock.settimeout(within)
    try:
        return sock.recv(1) == b""
    except TimeoutError:
        return False


def _tcp_opens(model, mark) -> int:
    return sum(1 for e in model.events.since(mark, "service") if e.data.get("name") == "tcp:9008")


@pytest.fixture
def server(vdevice, u2dev):
    """The virtual device with its uiautomator2 server running (launched by the real client)."""
    assert u2dev.info["displayWidth"] == 1080
    return vdevice


def _connect(vdevice) -> socket.socket:
    return vdevice.adb.create_connection(adbutils.Network.TCP, 9008)


def test_requests_one_after_another_on_one_stream(server):
    sock = _connect(server)
    try:
        rpc = b'{"jsonrpc": "2.0", "id": 1, "method": "deviceInfo", "params": {}}'
        sock.sendall(_request() + _request("/jsonrpc/0", rpc))  # the second sent before the first is answered
        (h1, b1), (h2, b2) = _responses(sock, 2)
        assert (h1["status"], b1, h1["connection"]) == ("200", b"pong", "keep-alive")
        assert h2["status"] == "200" and b'"displayWidth": 1080' in b2.replace(b'":1080', b'": 1080')
        sock.sendall(_request(connection="close"))
        ((h3, b3),) = _responses(sock, 1)
        assert (b3, h3["connection"]) == (b"pong", "close")
        assert _closed_soon(sock)  # the server ends the stream after a `Connection: close` request
    finally:
        sock.close()


def test_http10_is_closed_unless_it_asks_for_keep_alive(server):
    for connection, kept in ((None, False), ("keep-alive", True)):
        sock = _connect(server)
        try:
            sock.sendall(_request(version="HTTP/1.0", connection=connection))
            ((h, body),) = _responses(sock, 1)
            assert body == b"pong" and h["connection"] == ("keep-alive" if kept else "close")
            assert _closed_soon(sock, within=0.5 if kept else 5.0) is not kept
        finally:
            sock.close()


def test_a_killed_server_closes_its_kept_connections(server):
    sock = _connect(server)
    try:
        sock.sendall(_request())
        assert _responses(sock, 1)[0][1] == b"pong"
        server.model.faults.kill_u2()
        assert _closed_soon(sock)  # its process is gone: so is the other end of the stream
    finally:
        sock.close()


def test_an_idle_kept_connection_is_closed_by_the_server(server, monkeypatch):
    """Closed for idleness, measured on the device's clock (which the test drives): kept open however long the
    wall clock runs while the device's stands still, closed once it has moved past the idle time."""
    monkeypatch.setattr(u2http, "KEEP_ALIVE_IDLE", 0.3)  # the wall clock's wait between two looks at the clock
    clock = FakeClock()
    monkeypatch.setattr(server.model, "uptime", clock)
    sock = _connect(server)
    try:
        sock.sendall(_request())
        assert _responses(sock, 1)[0][1] == b"pong"
        assert not _closed_soon(sock, within=1.0)  # three idle times of wall clock: the device's has not moved
        reads = clock.reads
        clock.advance(1.0)  # past the idle time
        assert _closed_soon(sock, within=30.0)  # a bound only a broken server reaches
        assert clock.reads > reads  # the server looked at its clock and closed
    finally:
        sock.close()


def test_u2rpc_reuses_one_stream_for_its_calls(server):
    model = server.model
    rpc = U2Rpc(server.adb)
    mark = model.events.mark()
    try:
        for _ in range(5):
            assert rpc.call("deviceInfo")["displayWidth"] == 1080
        assert rpc.ping()
        assert _tcp_opens(model, mark) == 1
    finally:
        rpc.close()


def test_u2rpc_opens_a_new_stream_once_a_kept_one_is_too_old(server, monkeypatch):
    monkeypatch.setattr(fastadb, "KEEP_ALIVE_REUSE", 0.0)
    model = server.model
    rpc = U2Rpc(server.adb)
    mark = model.events.mark()
    try:
        for _ in range(3):
            assert rpc.ping()
        assert _tcp_opens(model, mark) == 3
    finally:
        rpc.close()


def test_u2rpc_sends_again_on_a_new_stream_when_a_kept_one_died_unnoticed(server, u2dev, monkeypatch):
    """The server closed the kept stream (it was killed and launched again) and the client could not see it at
    checkout: the request, which never reached a server, goes out once more on a new stream."""
    model = server.model
    rpc = U2Rpc(server.adb)
    try:
        assert rpc.ping()
        model.faults.kill_u2()
        assert u2dev.info["displayWidth"] == 1080  # the real client relaunches the server
        monkeypatch.setattr(fastadb, "_dropped", lambda sock: False)  # the closed stream looks alive at checkout
        mark = model.events.mark()
        assert rpc.call("deviceInfo")["displayWidth"] == 1080
        assert _tcp_opens(model, mark) == 1
    finally:
        rpc.close()


def test_u2rpc_without_a_server_is_unreachable_even_with_a_kept_stream(server, monkeypatch):
    rpc = U2Rpc(server.adb)
    try:
        assert rpc.ping()
        server.model.faults.kill_u2()
        monkeypatch.setattr(fastadb, "_dropped", lambda sock: False)
        with pytest.raises(fastadb.U2Unreachable):
            rpc.call("deviceInfo")
        assert not rpc.ping()
    finally:
        rpc.close()


def test_a_chunked_request_leaves_the_stream_ready_for_the_next(server):
    sock = _connect(server)
    try:
        rpc = b'{"jsonrpc": "2.0", "id": 1, "method": "deviceInfo", "params": {}}'
        chunked = (
            b"POST /jsonrpc/0 HTTP/1.1\r\nHost: 127.0.0.1:9008\r\nTransfer-Encoding: chunked\r\n\r\n"
            + f"{len(rpc) - 10:x}\r\n".encode()
            + rpc[:-10]
            + b"\r\n"
            + b"a\r\n"
            + rpc[-10:]
            + b"\r\n0\r\nX-Trailer: 1\r\n\r\n"
        )
        sock.sendall(chunked + _request())
        (h1, b1), (h2, b2) = _responses(sock, 2)
        assert h1["status"] == "200" and b"displayWidth" in b1
        assert (h2["status"], b2) == ("200", b"pong")
    finally:
        sock.close()
