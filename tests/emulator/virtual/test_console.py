"""Emulator identity: the adb server lists the device as emulator-N and `adb emu` talks to its console."""

from __future__ import annotations

import socket
import threading
from pathlib import Path

import pytest

from emulator.virtual import VirtualDevice
from emulator.virtual.console import auth_token_path, load_or_create_token


def _console_port_free(port: int) -> bool:
    for p in (port, port + 1):
        with socket.socket() as s:
            try:
                s.bind(("127.0.0.1", p))
            except OSError:
                return False
    return True


@pytest.fixture
def emulator(adb_server):
    port = next((p for p in range(5680, 5598, -2) if _console_port_free(p)), None)
    if port is None:
        pytest.skip("no free emulator console port pair in 5600..5681")
    vd = VirtualDevice(
        emulator_console=True, console_port=port, adb_server_port=adb_server.port, console_home=adb_server.home
    ).start()
    yield vd
    vd.stop()


def _wait_listed(adb_server, serial, timeout=10.0):
    import time

    deadline = time.time() + timeout
    while time.time() < deadline:
        if adb_server.state(serial) == "device":
            return True
        time.sleep(0.05)
    return False


def test_adb_server_registers_emulator_identity(adb_server, emulator):
    assert _wait_listed(adb_server, emulator.serial), adb_server.run("devices").stdout
    d = adb_server.client.device(emulator.serial)
    assert d.shell("getprop ro.product.model") == emulator.model.profile.model


def test_adb_emu_console_avd_name_and_snapshots(adb_server, emulator):
    assert _wait_listed(adb_server, emulator.serial)
    s = emulator.serial
    name = adb_server.run("-s", s, "emu", "avd", "name").stdout.decode()
    assert emulator.avd_name in name
    emulator.model.clipboard = "saved state"
    assert b"OK" in adb_server.run("-s", s, "emu", "avd", "snapshot", "save", "clean").stdout
    emulator.model.clipboard = "dirty"
    assert b"clean" in adb_server.run("-s", s, "emu", "avd", "snapshot", "list").stdout
    assert b"OK" in adb_server.run("-s", s, "emu", "avd", "snapshot", "load", "clean").stdout
    assert emulator.model.clipboard == "saved state"
    missing = adb_server.run("-s", s, "emu", "avd", "snapshot", "load", "nope")
    assert b"KO" in missing.stdout + missing.stderr


def test_console_requires_auth_and_kill_stops_device(tmp_path: Path):
    port = next((p for p in range(5680, 5598, -2) if _console_port_free(p)), None)
    if port is None:
        pytest.skip("no free emulator console port pair")
    vd = VirtualDevice(emulator_console=True, console_port=port, console_home=str(tmp_path)).start()
    try:
        token = (tmp_path / ".emulator_console_auth_token").read_text().strip()
        assert token
        with socket.create_connection(("127.0.0.1", port), timeout=5) as c:
            f = c.makefile("rwb", buffering=0)

            def read_until_status() -> str:
                lines = []
                while True:
                    line = f.readline().decode()
                    lines.append(line)
                    if line.startswith(("OK", "KO")):
                        return "".join(lines)

            assert "Authentication required" in read_until_status()
            f.write(b"avd name\r\n")
            assert read_until_status().startswith("KO")
            f.write(b"auth wrong\r\n")
            assert read_until_status().startswith("KO")
            f.write(f"auth {token}\r\n".encode())
            assert read_until_status().rstrip().endswith("OK")
            f.write(b"avd name\r\n")
            assert vd.avd_name in read_until_status()
            f.write(b"kill\r\n")
            assert "bye" in read_until_status()
        assert vd.wait(5), "console kill must stop the virtual device"
    finally:
        vd.stop()


def _start_together(home: Path, count: int) -> list[str]:
    """`count` emulators' token lookups in `home`, all released at the same moment."""
    barrier = threading.Barrier(count)
    tokens: list[str] = []

    def start() -> None:
        barrier.wait()
        tokens.append(load_or_create_token(auth_token_path(str(home))))

    threads = [threading.Thread(target=start) for _ in range(count)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return tokens


def test_emulators_started_together_share_one_console_token(tmp_path: Path):
    """Emulators that start at once in one home all end up with the token the file holds (the first one written
    wins), and nobody reads a half-written file."""
    for round_ in range(20):
        home = tmp_path / str(round_)
        home.mkdir()
        tokens = _start_together(home, 8)
        on_file = auth_token_path(str(home)).read_text()
        assert on_file and set(tokens) == {on_file}
        assert auth_token_path(str(home)).stat().st_mode & 0o777 == 0o600
        assert [p.name for p in home.iterdir()] == [".emulator_console_auth_token"]  # no temporary file left


def test_a_stopped_device_stops_listening_on_its_console_and_adb_ports(tmp_path: Path):
    """Stopping a device posing as an emulator frees its port pair at once (a listener closed while a thread waits
    in accept() would listen on until the process ends, and a suite that starts many would run out of pairs)."""
    from emulator.virtual.ports import pair_free
    from tests.device_util import free_console_port

    port = free_console_port()
    vd = VirtualDevice(emulator_console=True, console_port=port, console_home=str(tmp_path)).start()
    assert not pair_free(port)  # both listen while it runs
    vd.stop()
    assert pair_free(port), f"console {port} or adb {port + 1} still listening after stop()"
