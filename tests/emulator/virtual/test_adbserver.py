"""The private adb server (emulator.virtual.adbserver): a port it chose that is taken before the server binds it
(another harness starting its own at the same moment) is given up for another, not reported as a failure; one
started ahead of its pool (`prestart_server`) is handed over running, once, or stopped with its record."""

from __future__ import annotations

import logging
import socket
import time

import pytest

from emulator.virtual import adbserver
from emulator.virtual.adbserver import AdbServerError, PrivateAdbServer

pytestmark = pytest.mark.integration


def _listener() -> socket.socket:
    """A port bound and not listening (as a socket being set up holds it): the adb client finds no server there,
    and the server it starts cannot bind it."""
    s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    s.bind(("127.0.0.1", adbserver.free_port(listen_later=True)))
    return s


def test_a_chosen_port_taken_before_the_server_binds_it_is_replaced(monkeypatch):
    taken = _listener()
    ports = iter([taken.getsockname()[1], adbserver.free_port(listen_later=True)])
    monkeypatch.setattr(adbserver, "free_port", lambda **kw: next(ports))
    srv = PrivateAdbServer()
    try:
        assert srv.port == taken.getsockname()[1]
        srv.start()
        assert srv.port != taken.getsockname()[1] and srv.alive()
    finally:
        srv.stop()
        taken.close()


def test_a_port_the_caller_gave_is_not_replaced():
    taken = _listener()
    try:
        with pytest.raises(AdbServerError, match=f"(?s)port {taken.getsockname()[1]} failed: .*Address already in use"):
            PrivateAdbServer(port=taken.getsockname()[1]).start()
    finally:
        taken.close()


@pytest.fixture
def state(tmp_path, monkeypatch):
    """A private state directory: the server records this test's servers write are only its own."""
    monkeypatch.setenv("DROIDHARNESS_STATE_DIR", str(tmp_path / "state"))
    adbserver.stop_prestarted_server()  # one an earlier test of this worker left is not this test's
    yield tmp_path / "state"
    adbserver.stop_prestarted_server()


def _recorded_ports(state) -> list[int]:
    return sorted(int(p.stem) for p in (state / "adb-servers").glob("*.json"))


def test_a_server_started_ahead_is_handed_over_running_once(state):
    adbserver.prestart_server()
    srv = adbserver.take_prestarted_server()
    try:
        assert srv is not None and srv.alive() and _recorded_ports(state) == [srv.port]
        assert adbserver.take_prestarted_server() is None, "handed over once"
    finally:
        if srv is not None:
            srv.stop()
    assert _recorded_ports(state) == []


def test_a_server_started_ahead_that_nobody_takes_is_stopped_with_its_record(state):
    adbserver.prestart_server()
    deadline = time.monotonic() + 30
    while not _recorded_ports(state) and time.monotonic() < deadline:
        time.sleep(0.01)
    (port,) = _recorded_ports(state)
    adbserver.stop_prestarted_server()
    assert _recorded_ports(state) == []
    with pytest.raises(Exception):  # noqa: B017 - refused: nothing answers on its port
        adbserver.PrivateAdbClient("127.0.0.1", port, socket_timeout=2).server_version()


def test_a_server_that_could_not_start_ahead_is_said_and_none_is_handed_over(state, monkeypatch, caplog):
    def fail(self):
        raise AdbServerError("no adb here")

    monkeypatch.setattr(PrivateAdbServer, "start", fail)
    adbserver.prestart_server()
    with caplog.at_level(logging.INFO):
        assert adbserver.take_prestarted_server() is None
    assert "no adb here" in caplog.text


def test_a_private_client_s_request_does_not_sleep_on_closing(state, monkeypatch):
    """adbutils sleeps 10 ms after shutting a connection down; the private client reads the server's end instead."""
    import adbutils._adb as adb_module

    with PrivateAdbServer() as srv:

        def no_sleep(seconds: float) -> None:
            raise AssertionError(f"slept {seconds} s closing a connection")

        with monkeypatch.context() as m:  # (the server's own stop may sleep)
            m.setattr(adb_module.time, "sleep", no_sleep)
            assert srv.client.list() == []
            assert srv.client.server_version() > 0


def test_a_connection_the_server_keeps_open_is_closed_all_the_same():
    with socket.socket() as listener:
        listener.bind(("127.0.0.1", 0))
        listener.listen(1)
        client = adbserver.PrivateAdbClient("127.0.0.1", listener.getsockname()[1], socket_timeout=5)
        conn = client.make_connection()
        peer, _ = listener.accept()  # accepts, and never answers nor closes
        try:
            conn.send_command("host:track-devices")
            conn.close()
            assert conn.closed
            assert peer.recv(100).endswith(b"host:track-devices") and peer.recv(100) == b"", "the client ended it"
        finally:
            peer.close()
