"""The private adb server a pool's embedded devices are reached through (devices in threads, device processes):
started by the pool (`serve`), waited for by each device that opens, restarted on the same port when it died
(`heal`: the devices reconnect as their slots are replaced), stopped last (`close`). Once closed nothing starts
again: a slot still replacing its device when a stop closes the pool (`harness.stopping`) gets a `DeviceError`,
never a fresh server that nobody would stop."""

from __future__ import annotations

import logging
import threading

from emulator.virtual.adbserver import PrivateAdbServer, take_prestarted_server
from harness.errors import DeviceError

log = logging.getLogger(__name__)


class PrivateServerFleet:
    """A `Fleet` whose devices share one private adb server."""

    def __init__(self) -> None:
        self.adb_server: PrivateAdbServer | None = None
        self._served = threading.Event()  # set once `serve` tried to start the server (or nothing will come)
        self.closed = False  # `close` was called: nothing is started again
        self._healing = threading.Lock()  # a restart and the close do not overlap: close stops what heal started

    def begin(self) -> None:
        return None

    def serve(self) -> None:
        """Start the private adb server - or take the one started ahead of the pool (`prestart_server`) - however
        that goes, the devices waiting for it are woken."""
        try:
            self.adb_server = take_prestarted_server() or PrivateAdbServer().start()
        finally:
            self._served.set()

    def cancel(self) -> None:
        """The pool is closing (the first thing its close does): the devices waiting for the server are woken,
        and from now on nothing starts - a slot replacing its device while the others close gets a DeviceError."""
        self.closed = True
        self._served.set()

    def server(self, slot: int) -> PrivateAdbServer:
        """The private adb server, once served; a `DeviceError` naming the slot when there is none."""
        self._served.wait()
        if self.adb_server is None:
            raise DeviceError(f"slot {slot}: the pool is not started (no private adb server)")
        return self.adb_server

    def heal(self) -> None:
        """The harness owns its private adb server: if it died (connection refused on its port), start it again
        on the same port."""
        with self._healing:
            server = self.adb_server
            if self.closed:
                raise DeviceError("the device pool is closed")
            if server is None or server.alive():
                return
            log.warning("the private adb server on port %d is gone; restarting it on the same port", server.port)
            try:
                server.restart()
            except Exception as e:  # noqa: BLE001 - name the server in the error the slot reports
                raise DeviceError(
                    f"the private adb server at 127.0.0.1:{server.port} died and could not be restarted: {e}"
                ) from e

    def broken(self) -> str | None:
        server = self.adb_server
        return "the private adb server died" if server is not None and not server.alive() else None

    def close(self) -> None:
        self._served.set()
        with self._healing:
            self.closed = True
            if self.adb_server is not None:
                self.adb_server.stop()
