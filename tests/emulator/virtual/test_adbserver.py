"""The private adb server (emulator.virtual.adbserver): a port it chose that is taken before the server binds it
(another harness starting its own at the same moment) is given up for another, not reported as a failure."""

from __future__ import annotations

import socket

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
