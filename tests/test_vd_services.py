"""adb services and device files beyond shell and sync, through the real adb server: `adb reverse`, the legacy
`framebuffer:` screenshot, `screenrecord`, `content query`, /proc files and `dumpsys meminfo|gfxinfo PKG`."""

from __future__ import annotations

import socket
import threading

import pytest

pytestmark = pytest.mark.timeout(90)


@pytest.fixture
def echo_server():
    """A host TCP server answering each connection with b"pong:" + what it received (then closing)."""
    srv = socket.socket()
    srv.bind(("127.0.0.1", 0))
    srv.listen(4)
    got: list[bytes] = []

    def loop() -> None:
        while True:
            try:
                c, _ = srv.accept()
            except OSError:
                return
            with c:
                data = c.recv(4096)
                got.append(data)
                c.sendall(b"pong:" + data)

    threading.Thread(target=loop, daemon=True).start()
    yield srv.getsockname()[1], got
    srv.close()


def test_adb_reverse_reaches_the_host(vdevice, adb_cli, echo_server):
    port, got = echo_server
    serial = vdevice.serial
    r = adb_cli("-s", serial, "reverse", "tcp:8123", f"tcp:{port}")
    assert r.returncode == 0, r.stderr
    listing = adb_cli("-s", serial, "reverse", "--list").stdout.decode()
    assert f"tcp:8123 tcp:{port}" in listing
    # a device-side client connecting to tcp:8123 lands on the host's port
    assert vdevice.adb.shell("echo ping | nc localhost 8123") == "pong:ping"
    assert got == [b"ping\n"]
    # norebind refuses an existing socket; --remove takes it away
    r = adb_cli("-s", serial, "reverse", "--no-rebind", "tcp:8123", f"tcp:{port}")
    assert r.returncode != 0 and b"cannot rebind" in r.stderr
    assert adb_cli("-s", serial, "reverse", "--remove", "tcp:8123").returncode == 0
    assert "Connection refused" in vdevice.adb.shell("nc localhost 8123 2>&1")
    r = adb_cli("-s", serial, "reverse", "--remove", "tcp:8123")
    assert r.returncode != 0 and b"not found" in r.stderr
    # tcp:0 picks a port and reports it
    r = adb_cli("-s", serial, "reverse", "tcp:0", f"tcp:{port}")
    chosen = int(r.stdout.decode().strip())
    assert vdevice.adb.shell(f"echo again | nc 127.0.0.1 {chosen}") == "pong:again"
    assert adb_cli("-s", serial, "reverse", "--remove-all").returncode == 0
    assert adb_cli("-s", serial, "reverse", "--list").stdout.decode().strip() == ""


def test_framebuffer_service(vdevice):
    img = vdevice.adb.framebuffer()  # adbutils reads the fbinfo header and the pixels
    assert img.mode == "RGBA" and img.size == vdevice.model.display_size
    expected = vdevice.model.screenshot().convert("RGBA")
    assert img.tobytes() == expected.tobytes()
