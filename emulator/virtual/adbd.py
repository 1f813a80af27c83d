"""adbd's own state: whether it runs as root, and its restarts.

`adb root` / `adb unroot` (the `root:` / `unroot:` services) on a debuggable build make adbd answer, set
`service.adb.root` and restart: every adb connection drops and the host connects again (for an emulator the adb
server retries the emulator's adb port, and the emulator announces itself once more). Shells started after that
run as adbd's uid (root: uid 0, context `su`; else the `shell` user, uid 2000).
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from typing import Protocol

from .events import EventLog
from .statelock import StateLock

RESTART_DELAY = 0.2  # seconds between adbd's answer and its exit (the answer reaches the host first)


class _Transport(Protocol):
    def drop_transport(self) -> None: ...


class AdbdHost(Protocol):
    """What adbd's restart touches of the device (the model, which owns adbd and so is not imported here)."""

    lock: StateLock
    props: dict[str, str]
    events: EventLog

    @property
    def faults(self) -> _Transport: ...


class Adbd:
    def __init__(self) -> None:
        self.root = False
        self.restarts = 0
        self._hooks: list[Callable[[], None]] = []

    def on_restart(self, hook: Callable[[], None]) -> None:
        """Called after each restart, once the connections are gone (the device announces itself again)."""
        self._hooks.append(hook)

    def restart(self, model: AdbdHost, root: bool) -> None:
        """Switch to root or back and restart adbd shortly (in the background: the caller's stream answers first).
        `model` is the `VirtualDeviceModel` (which owns this; not imported: the model imports this module)."""
        with model.lock:
            self.root = root
            model.props["service.adb.root"] = "1" if root else "0"
        model.events.log("adbd", action="restart", root=root)

        def _restart() -> None:
            time.sleep(RESTART_DELAY)
            self.restarts += 1
            model.faults.drop_transport()
            for hook in list(self._hooks):
                hook()

        threading.Thread(target=_restart, name="adbd-restart", daemon=True).start()
