"""Fault injection on a virtual device (`model.faults`): the switches tests, the CLI and the emulator console flip
- a dropped transport, a killed uiautomator2 server, a device offline or unauthorized, a slowed-down device - and the
callbacks through which the transport and the uiautomator2 server carry them out."""

from __future__ import annotations

from collections.abc import Callable

from .events import EventLog
from .latency import Latency


class Faults:
    """Fault-injection knobs. The transport registers callbacks; tests and the CLI flip the switches."""

    def __init__(self, events: EventLog, latency: Latency) -> None:
        self._events, self._latency = events, latency
        self.offline = False  # ignore the host: no CNXN answer, existing connections dropped
        self.auth_mode = "none"  # "none" | "accept" | "unauthorized"
        self._drop_hooks: list[Callable[[], None]] = []
        self._u2_kill_hooks: list[Callable[[], None]] = []

    def on_drop(self, hook: Callable[[], None]) -> None:
        self._drop_hooks.append(hook)

    def on_kill_u2(self, hook: Callable[[], None]) -> None:
        self._u2_kill_hooks.append(hook)

    def drop_transport(self) -> None:
        """Close every adb connection at once, as a pulled cable or a dying adbd does."""
        self._events.log("fault", fault="drop_transport")
        for hook in list(self._drop_hooks):
            hook()

    def kill_u2(self) -> None:
        """Kill the uiautomator2 server process (its app_process stream closes, port 9008 stops answering)."""
        self._events.log("fault", fault="kill_u2")
        for hook in list(self._u2_kill_hooks):
            hook()

    def go_offline(self, offline: bool = True) -> None:
        self.offline = offline
        self._events.log("fault", fault="offline", value=offline)
        if offline:
            self.drop_transport()

    def set_unauthorized(self, unauthorized: bool = True) -> None:
        """Refuse the host's key from now on (the device shows as `unauthorized` after it reconnects)."""
        self.auth_mode = "unauthorized" if unauthorized else "none"
        self._events.log("fault", fault="unauthorized", value=unauthorized)
        if unauthorized:
            self.drop_transport()

    def slow_down(self, factor: float = 1.0, extra_seconds: float = 0.0) -> None:
        self._latency.slowdown = factor
        self._latency.extra = extra_seconds
        self._events.log("fault", fault="slow_down", factor=factor, extra=extra_seconds)
