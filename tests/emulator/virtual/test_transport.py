"""The virtual adbd's transport: framing, handshake and AUTH, streams and flow control, faults, robustness.

Everything that matters goes through the REAL adb server (the binary in the adbutils wheel); a few tests speak the
wire protocol directly to the device to check what no adb client would send (bad magic, torn connections).
"""

from __future__ import annotations

import hashlib
import os
import socket
import struct
import threading
import time

import pytest
from adbutils import AdbError, Network

from emulator.virtual import VirtualDeviceModel
from emulator.virtual import protocol as p
from emulator.virtual.adbstream import OUTBOX_LIMIT
from emulator.virtual.streams import StreamClosed
from emulator.virtual.transport import INBOX_LIMIT, AdbdServer

pytestmark = pytest.mark.timeout(60)


def wait_for(predicate, timeout: float = 20.0, interval: float = 0.05):
    """Poll until predicate() is truthy; returns its last value (no timing assertions, just a generous cap)."""
    deadline = time.monotonic() + timeout
    value = predicate()
    while not value and time.monotonic() < deadline:
        time.sleep(interval)
        value = predicate()
    return value


def open_service(adb, name: str):
    """An adbutils connection with `name` opened on the device (raises AdbError when refused)."""
    c = adb.open_transport()
    try:
        c.send_command(name)
        c.check_okay()
    except BaseException:
        c.close()
        raise
    return c


def recv_all(sock: socket.socket) -> bytes:
    buf = bytearray()
    while True:
        chunk = sock.recv(1 << 16)
        if not chunk:
            return bytes(buf)
        buf += chunk


# --- raw wire protocol (no adb server) ------------------------------------------------------------------------
class RawHost:
    """A minimal adb host speaking straight to the device's port."""

    def __init__(self, port: int) -> None:
        self.sock = socket.create_connection(("127.0.0.1", port), timeout=5)
        self.reader = p.PacketReader(self.sock)

    def send(self, command: int, arg0: int, arg1: int, data: bytes = b"") -> None:
        self.sock.sendall(p.encode(command, arg0, arg1, data))

    def recv(self) -> p.Packet | None:
        return self.reader.read()

    def connect(self) -> p.Packet:
        self.send(p.A_CNXN, p.A_VERSION, p.MAX_PAYLOAD, b"host::features=shell_v2,cmd,stat_v2,ls_v2")
        pkt = self.recv()
        assert pkt is not None
        return pkt

    def open(self, local_id: int, service: bytes) -> p.Packet:
        """OPEN `service` as stream `local_id`; the device's OKAY (its stream id is `arg0`)."""
        self.send(p.A_OPEN, local_id, 0, service + b"\0")
        okay = self.recv()
        assert okay is not None and okay.command == p.A_OKAY
        return okay

    def close(self) -> None:
        self.sock.close()


@pytest.fixture
def raw_server():
    model = VirtualDeviceModel()
    srv = AdbdServer(model).start()
    yield srv
    srv.stop()


def test_header_roundtrip_and_bad_magic() -> None:
    raw = p.pack_header(p.A_WRTE, 7, 9, 3)
    assert len(raw) == p.HEADER_SIZE
    assert p.unpack_header(raw)[:4] == (p.A_WRTE, 7, 9, 3)
    assert struct.unpack("<6I", raw)[5] == p.A_WRTE ^ 0xFFFFFFFF
    bad = raw[:20] + struct.pack("<I", 0x12345678)
    with pytest.raises(p.ProtocolError):
        p.unpack_header(bad)
    with pytest.raises(p.ProtocolError):
        p.unpack_header(raw[:10])


def test_banner_lists_props_and_features() -> None:
    banner = p.device_banner({"ro.product.name": "n", "ro.product.model": "m", "ro.product.device": "d"}).decode()
    assert banner == (
        "device::ro.product.name=n;ro.product.model=m;ro.product.device=d;"
        "features=shell_v2,cmd,stat_v2,ls_v2,fixed_push_mkdir,abb,fixed_push_symlink_timestamp,abb_exec,"
        "sendrecv_v2,sendrecv_v2_brotli,sendrecv_v2_lz4,sendrecv_v2_zstd,sendrecv_v2_dry_run_send"
    )
    assert p.parse_host_banner(b"host::features=a,b\0") == {"features": "a,b"}


def test_raw_cnxn_and_refused_open(raw_server: AdbdServer) -> None:
    host = RawHost(raw_server.port)
    try:
        cnxn = host.connect()
        assert cnxn.command == p.A_CNXN
        assert cnxn.arg1 == p.MAX_PAYLOAD
        assert cnxn.data.startswith(b"device::ro.product.name=")
        host.send(p.A_OPEN, 5, 0, b"no-such-service:\0")
        refused = host.recv()
        assert (refused.command, refused.arg0, refused.arg1) == (p.A_CLSE, 0, 5)
    finally:
        host.close()


def test_raw_max_payload_is_the_smaller_of_both(raw_server: AdbdServer) -> None:
    host = RawHost(raw_server.port)
    try:
        host.send(p.A_CNXN, p.A_VERSION, 4096 * 4, b"host::")
        cnxn = host.recv()
        assert cnxn.arg1 == 4096 * 4
        # a 40 KiB reply must arrive split into WRTEs of at most 16 KiB, one in flight at a time
        payload = os.urandom(40 * 1024)

        def blob(stream):
            stream.write(payload)

        raw_server.model.ports[7001] = blob
        host.send(p.A_OPEN, 1, 0, b"tcp:7001\0")
        okay = host.recv()
        assert okay.command == p.A_OKAY and okay.arg1 == 1
        got = bytearray()
        while True:
            pkt = host.recv()
            if pkt.command == p.A_CLSE:
                break
            assert pkt.command == p.A_WRTE and len(pkt.data) <= 4096 * 4
            got += pkt.data
            host.send(p.A_OKAY, 1, okay.arg0)
        assert bytes(got) == payload
    finally:
        host.close()


def test_writes_go_ahead_of_the_hosts_okays_and_leave_in_as_few_packets_as_flow_control_allows(
    raw_server: AdbdServer,
) -> None:
    """A service's writes queue like writes into adbd's pipe: 200 short lines are written without waiting for the
    host (which acknowledges nothing yet); each OKAY then sends everything written meanwhile in one WRTE, in
    order, and the CLSE comes after the last byte. A service writing past OUTBOX_LIMIT does wait for the host."""
    lines = [f"line {i}\n".encode() for i in range(200)]
    written, big_written = threading.Event(), threading.Event()
    blocks = [os.urandom(OUTBOX_LIMIT), os.urandom(OUTBOX_LIMIT)]

    def chatty(stream) -> None:
        for line in lines:
            stream.write(line)
        written.set()

    def flood(stream) -> None:
        stream.write(blocks[0])  # sent at once (one WRTE in flight) ...
        stream.write(blocks[1])  # ... fills the outbox ...
        stream.write(b"more")  # ... so this one waits for the host
        big_written.set()

    raw_server.model.ports[7002] = chatty
    raw_server.model.ports[7003] = flood
    host = RawHost(raw_server.port)
    try:
        host.connect()
        okay = host.open(1, b"tcp:7002")
        assert written.wait(10)  # every line written with no OKAY from the host
        got, packets = bytearray(), 0
        while True:
            pkt = host.recv()
            if pkt.command == p.A_CLSE:
                break
            assert pkt.command == p.A_WRTE
            got += pkt.data
            packets += 1
            host.send(p.A_OKAY, 1, okay.arg0)
        assert bytes(got) == b"".join(lines)
        assert packets <= 3  # the first line, then the rest (at most split once by timing), not 200

        okay = host.open(2, b"tcp:7003")
        first = host.recv()
        assert (first.command, first.data) == (p.A_WRTE, blocks[0])
        assert not big_written.wait(0.5)  # the third write waits: OUTBOX_LIMIT bytes are unsent
        host.send(p.A_OKAY, 2, okay.arg0)
        assert big_written.wait(10)
        second = host.recv()
        assert (second.command, second.data) == (p.A_WRTE, blocks[1])
        host.send(p.A_OKAY, 2, okay.arg0)
        rest = host.recv()
        assert (rest.command, rest.data) == (p.A_WRTE, b"more")
        host.send(p.A_OKAY, 2, okay.arg0)
        assert host.recv().command == p.A_CLSE
    finally:
        host.close()


def test_a_device_close_waits_for_nothing_and_its_clse_follows_the_last_byte(raw_server: AdbdServer) -> None:
    """Closing with output not yet sent (the host acknowledges nothing) returns at once, as a process that exits
    leaves its output in adbd's pipe; the output then arrives, and the CLSE after it."""
    closed = threading.Event()

    def brief(stream) -> None:
        stream.write(b"first")
        stream.write(b"second")  # queued behind the unacknowledged first WRTE
        stream.close()
        closed.set()

    raw_server.model.ports[7004] = brief
    host = RawHost(raw_server.port)
    try:
        host.connect()
        okay = host.open(1, b"tcp:7004")
        assert closed.wait(10)  # no OKAY sent yet
        first = host.recv()
        assert (first.command, first.data) == (p.A_WRTE, b"first")
        host.send(p.A_OKAY, 1, okay.arg0)
        second = host.recv()
        assert (second.command, second.data) == (p.A_WRTE, b"second")
        assert host.recv().command == p.A_CLSE
    finally:
        host.close()


def shell_v2_packets(data: bytes) -> list[tuple[int, bytes]]:
    """Split shell protocol v2 output into its (id, payload) packets."""
    out, i = [], 0
    while i < len(data):
        kind, n = struct.unpack_from("<BI", data, i)
        out.append((kind, data[i + 5 : i + 5 + n]))
        i += 5 + n
    return out


def test_a_commands_output_exit_status_and_close_leave_together(raw_server: AdbdServer) -> None:
    """A line that ends at once (`shell.quick.ends_at_once`): its stdout, stderr and exit status come in ONE WRTE,
    and the CLSE right after it, with no OKAY from the host in between - not the stdout alone, with the exit status
    waiting a round trip for the host's OKAY (as it did when the first write went out at once)."""
    host = RawHost(raw_server.port)
    try:
        host.connect()
        host.open(1, b"shell,v2,raw:echo hello; echo oops >&2")
        first = host.recv()
        assert first is not None and first.command == p.A_WRTE
        assert shell_v2_packets(first.data) == [(1, b"hello\n"), (2, b"oops\n"), (3, b"\x00")]
        closing = host.recv()  # no OKAY sent: it comes anyway
        assert closing is not None and closing.command == p.A_CLSE

        host.open(2, b"exec:echo raw")
        first = host.recv()
        assert first is not None and (first.command, first.data) == (p.A_WRTE, b"raw\n")
        closing = host.recv()
        assert closing is not None and closing.command == p.A_CLSE
    finally:
        host.close()


def test_output_of_a_line_that_does_not_end_at_once_is_not_held(raw_server: AdbdServer) -> None:
    """A line with a `sleep` in it streams: its first line comes while it still runs (the first WRTE carries that
    line only, no exit status), the rest after it."""
    host = RawHost(raw_server.port)
    try:
        host.connect()
        okay = host.open(1, b"shell,v2,raw:echo first; sleep 1; echo second")
        first = host.recv()
        assert first is not None and first.command == p.A_WRTE
        assert shell_v2_packets(first.data) == [(1, b"first\n")]
        got = bytearray()
        while True:
            host.send(p.A_OKAY, 1, okay.arg0)
            pkt = host.recv()
            assert pkt is not None
            if pkt.command == p.A_CLSE:
                break
            got += pkt.data
        assert shell_v2_packets(bytes(got)) == [(1, b"second\n"), (3, b"\x00")]
    finally:
        host.close()


def test_a_held_line_that_reads_the_hosts_stdin_sends_what_it_printed_first(raw_server: AdbdServer) -> None:
    """`echo ready; pm install -S 4` ends at once once it has its input, but the host may wait for "ready" before
    it sends that input: reading stdin releases what the line printed."""
    host = RawHost(raw_server.port)
    try:
        host.connect()
        okay = host.open(1, b"shell,v2,raw:echo ready; pm install -S 4")
        first = host.recv()  # before any stdin is sent
        assert first is not None and first.command == p.A_WRTE
        assert shell_v2_packets(first.data) == [(1, b"ready\n")]
        host.send(p.A_OKAY, 1, okay.arg0)
        host.send(p.A_WRTE, 1, okay.arg0, struct.pack("<BI", 0, 4) + b"junk" + struct.pack("<BI", 4, 0))
        got = bytearray()
        while True:
            pkt = host.recv()
            assert pkt is not None
            if pkt.command == p.A_CLSE:
                break
            if pkt.command == p.A_WRTE:
                got += pkt.data
                host.send(p.A_OKAY, 1, okay.arg0)
        packets = shell_v2_packets(bytes(got))
        assert packets[-1][0] == 3 and packets[-1][1] != b"\x00"  # pm fails on 4 bytes that are no APK
    finally:
        host.close()


def test_an_interactive_sessions_line_that_ends_at_once_comes_as_one_write(raw_server: AdbdServer) -> None:
    """`adb shell -T` with no command (the harness's kept shell), kept open: each line that ends at once sends its
    whole output in one WRTE when it ends (no exit status, no CLSE: the session goes on), the next line likewise."""
    host = RawHost(raw_server.port)
    try:
        host.connect()
        okay = host.open(1, b"shell,raw:")
        for n in (1, 2):
            host.send(p.A_WRTE, 1, okay.arg0, f"echo line{n}; echo end{n}\n".encode())
            ack = host.recv()
            assert ack is not None and ack.command == p.A_OKAY
            out = host.recv()
            assert out is not None and out.command == p.A_WRTE and out.data == f"line{n}\nend{n}\n".encode()
            host.send(p.A_OKAY, 1, okay.arg0)
    finally:
        host.close()


def test_on_a_terminal_a_line_that_ends_at_once_comes_with_the_next_prompt_as_one_write(
    raw_server: AdbdServer,
) -> None:
    """`adb shell` with no command gets a terminal: the prompt comes first, the typed line is echoed as it
    arrives, then its output and the next prompt leave as one WRTE."""
    host = RawHost(raw_server.port)
    try:
        host.connect()
        okay = host.open(1, b"shell:")
        first = host.recv()
        assert first is not None and first.command == p.A_WRTE and first.data.endswith(b":/ $ ")
        host.send(p.A_OKAY, 1, okay.arg0)
        host.send(p.A_WRTE, 1, okay.arg0, b"echo one\r")
        ack = host.recv()
        assert ack is not None and ack.command == p.A_OKAY
        echo = host.recv()
        assert echo is not None and echo.command == p.A_WRTE and echo.data == b"echo one\r\n"
        host.send(p.A_OKAY, 1, okay.arg0)
        out = host.recv()
        assert out is not None and out.command == p.A_WRTE and out.data == b"one\r\n" + first.data
    finally:
        host.close()


@pytest.mark.parametrize(
    "garbage",
    [
        b"\xff" * 24,  # bad magic
        p.pack_header(p.A_WRTE, 1, 1, 0)[:20] + b"\0\0\0\0",  # wrong magic for a known command
        p.pack_header(p.A_OPEN, 1, 0, 100) + b"short",  # torn mid-payload
        b"CNXN",  # torn mid-header
    ],
)
def test_malformed_input_ends_only_that_connection(raw_server: AdbdServer, garbage: bytes) -> None:
    good = RawHost(raw_server.port)
    bad = RawHost(raw_server.port)
    try:
        good.connect()
        bad.connect()
        bad.sock.sendall(garbage)
        bad.sock.shutdown(socket.SHUT_WR)
        assert recv_all(bad.sock) == b""  # the device closed it
        # the other connection and the listener still work
        good.send(p.A_OPEN, 3, 0, b"nope:\0")
        assert good.recv().command == p.A_CLSE
        again = RawHost(raw_server.port)
        assert again.connect().command == p.A_CNXN
        again.close()
    finally:
        good.close()
        bad.close()


def test_stop_closes_connections_and_listener() -> None:
    model = VirtualDeviceModel()
    srv = AdbdServer(model).start()
    host = RawHost(srv.port)
    host.connect()
    port = srv.port
    srv.stop()
    assert recv_all(host.sock) == b""
    host.close()
    with pytest.raises(OSError):
        socket.create_connection(("127.0.0.1", port), timeout=2).close()


# --- through the real adb server ------------------------------------------------------------------------------
def test_devices_l_shows_the_banner(vdevice, adb_cli) -> None:
    out = adb_cli("devices", "-l").stdout.decode()
    line = next(ln for ln in out.splitlines() if ln.startswith(vdevice.serial))
    prof = vdevice.model.profile
    assert " device " in line
    assert f"model:{prof.model.replace(' ', '_')}" in line
    assert f"device:{prof.device}" in line
    assert f"product:{prof.product}" in line
    features = set(vdevice.adb.get_features().split(","))
    assert features == set(p.DEVICE_FEATURES)
    assert any(e.kind == "connect" for e in vdevice.model.events.all())


def test_banner_follows_the_profile(make_vdevice, adb_cli) -> None:
    vd = make_vdevice(profile="pixel_7_pro")
    out = adb_cli("devices", "-l").stdout.decode()
    line = next(ln for ln in out.splitlines() if ln.startswith(vd.serial))
    assert "model:Pixel_7_Pro" in line and "device:cheetah" in line


def test_unknown_service_is_refused(vdevice) -> None:
    with pytest.raises(AdbError):
        open_service(vdevice.adb, "no-such-service:")
    with pytest.raises(AdbError):
        open_service(vdevice.adb, "jdwp:1234")  # not implemented: refused, not hung
    assert vdevice.adb.get_state() == "device"  # the transport survives
    refused = [e["name"] for e in vdevice.model.events.all("service_refused")]
    assert "no-such-service:" in refused


def test_tcp_with_nothing_listening_is_refused(vdevice) -> None:
    with pytest.raises(AdbError):
        vdevice.adb.create_connection(Network.TCP, 9)
    with pytest.raises(AdbError):
        open_service(vdevice.adb, "tcp:example.com:80")


def test_tcp_pipe_to_a_device_port(vdevice) -> None:
    def echo(stream) -> None:
        while True:
            data = stream.read()
            if not data:
                return
            stream.write(data.upper())

    vdevice.model.ports[4321] = echo
    s = vdevice.adb.create_connection(Network.TCP, 4321)
    try:
        s.sendall(b"hello")
        assert s.recv(100) == b"HELLO"
    finally:
        s.close()
    assert {"name": "tcp:4321"} in [e.data for e in vdevice.model.events.all("service")]


def test_many_streams_on_one_connection(vdevice) -> None:
    """Concurrent big writes from several services must not interleave inside a packet."""

    def digest_echo(stream) -> None:
        size = struct.unpack("<I", stream.read_exact(4))[0]
        data = stream.read_exact(size)
        stream.write(hashlib.sha256(data).digest() + data[::-1])

    vdevice.model.ports[5000] = digest_echo
    errors: list[BaseException] = []

    def client(i: int) -> None:
        try:
            data = os.urandom(300_000 + i * 1000)
            s = vdevice.adb.create_connection(Network.TCP, 5000)
            try:
                s.sendall(struct.pack("<I", len(data)) + data)
                out = recv_all(s)
            finally:
                s.close()
            assert out[:32] == hashlib.sha256(data).digest()
            assert out[32:] == data[::-1]
        except BaseException as e:  # noqa: BLE001
            errors.append(e)

    threads = [threading.Thread(target=client, args=(i,)) for i in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(30)
    assert not errors, errors


def test_big_device_output_is_byte_exact(vdevice) -> None:
    blob = os.urandom(3 * 1024 * 1024 + 17)

    def send_blob(stream) -> None:
        stream.write(blob)

    vdevice.model.ports[5001] = send_blob
    s = vdevice.adb.create_connection(Network.TCP, 5001)
    try:
        assert recv_all(s) == blob
    finally:
        s.close()


def test_backpressure_on_a_slow_reader(vdevice) -> None:
    """A service that reads slowly while the host pushes 4 MiB: everything arrives and the unread inbox stays
    bounded (OKAYs are deferred), so a slow device really slows the host down."""
    total = 4 * 1024 * 1024
    data = os.urandom(total)
    peak = [0]

    def slow(stream) -> None:
        h = hashlib.sha256()
        got = 0
        while got < total:
            peak[0] = max(peak[0], len(stream._inbox))
            chunk = stream.read(32 * 1024)
            if not chunk:
                break
            h.update(chunk)
            got += len(chunk)
            time.sleep(0.001)
        stream.write(h.digest())

    vdevice.model.ports[5002] = slow
    s = vdevice.adb.create_connection(Network.TCP, 5002)
    try:
        s.sendall(data)
        assert recv_all(s) == hashlib.sha256(data).digest()
    finally:
        s.close()
    assert peak[0] <= INBOX_LIMIT + p.MAX_PAYLOAD


def test_host_close_reaches_the_service(vdevice) -> None:
    seen = threading.Event()

    def waiter(stream) -> None:
        if stream.read() == b"" or stream.wait_closed(10):
            seen.set()

    vdevice.model.ports[5003] = waiter
    s = vdevice.adb.create_connection(Network.TCP, 5003)
    s.close()
    assert seen.wait(10)


def test_write_after_host_close_raises_stream_closed(vdevice) -> None:
    outcome: list[str] = []
    done = threading.Event()

    def writer(stream) -> None:
        stream.wait_closed(10)
        try:
            stream.write(b"x" * 100)
            outcome.append("wrote")
        except StreamClosed:
            outcome.append("closed")
        done.set()

    vdevice.model.ports[5004] = writer
    s = vdevice.adb.create_connection(Network.TCP, 5004)
    s.close()
    assert done.wait(10)
    assert outcome == ["closed"]


def test_reboot_closes_cleanly(vdevice) -> None:
    c = open_service(vdevice.adb, "reboot:")
    try:
        assert c.read_until_close(encoding=None) == b""
    finally:
        c.close()
    assert [e["target"] for e in vdevice.model.events.all("reboot")] == [""]
    assert vdevice.adb.get_state() == "device"


# --- AUTH and faults -----------------------------------------------------------------------------------------
def test_accept_auth_mode_connects(make_vdevice) -> None:
    vd = make_vdevice(auth="accept")
    assert vd.adb.get_state() == "device"
    assert vd.adb.get_features()


def test_unauthorized_mode(make_vdevice, adb_cli, adb_server) -> None:
    vd = make_vdevice(auth="unauthorized", connect=False)
    out = adb_cli("connect", vd.address).stdout.decode()
    assert "failed to authenticate" in out or "connected" in out
    assert wait_for(lambda: adb_server.state(vd.serial) == "unauthorized")
    line = next(ln for ln in adb_cli("devices").stdout.decode().splitlines() if ln.startswith(vd.serial))
    assert line.split()[1] == "unauthorized"
    r = adb_cli("-s", vd.serial, "shell", "echo", "hi")
    assert r.returncode != 0 and b"unauthorized" in r.stderr
    assert not vd.model.events.all("service")


def test_offline_fault_and_recovery(vdevice, adb_cli, adb_server) -> None:
    vdevice.faults.go_offline(True)
    assert wait_for(lambda: adb_server.state(vdevice.serial) == "offline")
    r = adb_cli("-s", vdevice.serial, "shell", "echo", "hi")
    assert r.returncode != 0 and b"offline" in r.stderr
    vdevice.faults.go_offline(False)
    assert wait_for(lambda: adb_server.state(vdevice.serial) == "device")
    assert vdevice.adb.get_state() == "device"


def test_drop_transport_closes_streams_and_host_reconnects(vdevice, adb_server) -> None:
    in_service = threading.Event()
    ended: list[str] = []

    def blocked(stream) -> None:
        in_service.set()
        data = stream.read()
        ended.append("eof" if data == b"" else "data")

    vdevice.model.ports[5005] = blocked
    s = vdevice.adb.create_connection(Network.TCP, 5005)
    try:
        assert in_service.wait(10)
        vdevice.faults.drop_transport()
        assert recv_all(s) == b""  # the host's end of the stream closes too
    finally:
        s.close()
    assert wait_for(lambda: ended) == ["eof"]
    # the adb server reconnects a dropped TCP transport by itself
    assert wait_for(lambda: adb_server.state(vdevice.serial) == "device")
    assert wait_for(lambda: _features_ok(vdevice.adb))


def _features_ok(adb) -> bool:
    try:
        return bool(adb.get_features())
    except AdbError:
        return False


def test_restart_on_the_same_port_needs_a_reconnect(make_vdevice, adb_server) -> None:
    vd = make_vdevice()
    port = vd.port
    vd.stop()
    assert wait_for(lambda: adb_server.state(vd.serial) != "device")
    vd2 = make_vdevice(port=port, connect=False)
    adb_server.disconnect(vd2.address)
    adb = vd2.connect(adb_server)
    assert adb.get_state() == "device"
    assert vd2.model.events.all("connect")
