"""Device-side listeners through the real adb binary: a host's `adb forward` reaching an `adb reverse` socket
(host -> device -> host), a shell's `nc -l` (both ways), `localabstract:` names, and nc between two shells."""

from __future__ import annotations

import socket
import time
from collections.abc import Iterator

import pytest

from emulator.virtual.listeners import bound
from tests.device_util import adb_shell, host_echo_server

pytestmark = pytest.mark.timeout(90)


def _forward(adb_cli, serial: str, target: str) -> int:
    """`adb forward tcp:0 TARGET`: the adb server binds a free port itself and prints it. A port found free and
    then handed to adb could be taken between the two (an outgoing connection's ephemeral port, a parallel test)."""
    r = adb_cli("-s", serial, "forward", "tcp:0", target)
    assert r.returncode == 0, r.stderr
    return int(r.stdout.strip())


@pytest.fixture
def host_echo() -> Iterator[tuple[int, list[bytes]]]:
    """A host server that reads each connection to its end and answers b"back:" + what it read."""
    with host_echo_server(b"back:") as server:
        yield server


def _recv_until(sock: socket.socket, want: bytes, deadline: float = 20.0) -> bytes:
    sock.settimeout(deadline)
    data = b""
    while want not in data:
        chunk = sock.recv(4096)
        if not chunk:
            break
        data += chunk
    return data


def _wait_bound(vdevice, spec: str) -> None:
    end = time.monotonic() + 20
    while spec not in bound(vdevice.model):
        assert time.monotonic() < end, f"{spec} never listened"
        time.sleep(0.02)


@pytest.mark.parametrize("device_spec", ["tcp:8231", "localabstract:conn41-reverse"])
def test_forward_reaches_a_reverse_socket(vdevice, adb_cli, host_echo, device_spec):
    port, got = host_echo
    serial = vdevice.serial
    assert adb_cli("-s", serial, "reverse", device_spec, f"tcp:{port}").returncode == 0
    forward_port = _forward(adb_cli, serial, device_spec)
    try:
        with socket.create_connection(("127.0.0.1", forward_port), timeout=20) as c:
            c.sendall(b"hello\n")
            assert _recv_until(c, b"back:hello\n") == b"back:hello\n"
        assert got == [b"hello\n"]
    finally:
        adb_cli("-s", serial, "forward", "--remove", f"tcp:{forward_port}")
        adb_cli("-s", serial, "reverse", "--remove-all")


def test_forward_to_nothing_is_refused(vdevice, adb_cli):
    forward_port = _forward(adb_cli, vdevice.serial, "tcp:8232")
    try:
        with socket.create_connection(("127.0.0.1", forward_port), timeout=20) as c:
            c.settimeout(20)
            assert c.recv(10) == b""  # the device refused the stream: the server closes the connection
    finally:
        adb_cli("-s", vdevice.serial, "forward", "--remove", f"tcp:{forward_port}")


@pytest.mark.parametrize(
    ("listen", "spec", "target"),
    [
        ("nc -l -p 8233", "tcp:8233", "tcp:8233"),
        ("nc -lp 8234 -s 127.0.0.1", "tcp:8234", "tcp:8234"),
        ("nc -lU -s @conn41", "localabstract:conn41", "localabstract:conn41"),
    ],
)
def test_forward_reaches_nc_listen_both_ways(vdevice, adb_server, adb_cli, listen, spec, target):
    serial = vdevice.serial
    with adb_shell(adb_server, serial, listen) as proc:
        _wait_bound(vdevice, spec)
        forward_port = _forward(adb_cli, serial, target)
        try:
            with socket.create_connection(("127.0.0.1", forward_port), timeout=20) as c:
                c.sendall(b"to-device\n")
                assert proc.stdout is not None and proc.stdin is not None
                assert proc.stdout.readline() == b"to-device\n"
                proc.stdin.write(b"to-host\n")
                proc.stdin.flush()
                assert _recv_until(c, b"to-host\n") == b"to-host\n"
            # the peer closed: nc -l ends (one connection) and its socket is gone
            assert proc.wait(timeout=20) == 0
            assert spec not in bound(vdevice.model)
        finally:
            adb_cli("-s", serial, "forward", "--remove", f"tcp:{forward_port}")


def test_nc_between_two_shells(vdevice, adb_server):
    with adb_shell(adb_server, vdevice.serial, "nc -l -p 8235") as server:
        _wait_bound(vdevice, "tcp:8235")
        assert vdevice.adb.shell("echo across | nc -q 1 localhost 8235; echo rc=$?").endswith("rc=0")
        assert server.stdout is not None
        assert server.stdout.readline() == b"across\n"


def test_nc_listen_port_in_use_and_bad_options(vdevice, adb_server):
    with adb_shell(adb_server, vdevice.serial, "nc -l -p 8236"):
        _wait_bound(vdevice, "tcp:8236")
        assert "Address already in use" in vdevice.adb.shell("nc -l -p 8236 2>&1")
        assert "Unknown option" in vdevice.adb.shell("nc -l -X 2>&1")
        assert "Connection refused" in vdevice.adb.shell("nc localhost 8299 2>&1")
