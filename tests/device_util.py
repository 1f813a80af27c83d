"""Helpers for the tests/harness/device/ files: open an `AdbDevice` on a virtual device through the session's
private adb server, and read the virtual device's event log."""

from __future__ import annotations

import contextlib
import functools
import os
import socket
import subprocess
import threading
import time
from collections.abc import Callable, Iterator
from typing import Any

import pytest

from emulator.virtual.ports import UNSCANNED_CONSOLE_PORTS, pair_free
from harness.device.controller import AdbDevice, DeviceConfig
from harness.device.fastadb import END_TOKEN, Clock
from harness.device.link import LinkConfig
from harness.device.settle import SettleConfig

# (profile, rotation): a phone, a foldable, a tablet (landscape natural) and a phone turned to landscape
# 2 s of output, a line every 0.1 s: a command whose output trickles in (the deadline tests)
TRICKLE = "for i in 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20; do echo $i; sleep 0.1; done"
PROFILES = [("medium_phone", 0), ("pixel_fold", 0), ("pixel_tablet", 0), ("pixel_7_pro", 1)]


def open_device(
    adb_server: Any,
    vd: Any,
    use_u2: bool = True,
    reconnect_timeout: float = 10.0,
    call_timeout: float = 20.0,
    settle_timeout: float = 3.0,
    settle_strategy: str = "idle",
    clock: Clock = time.monotonic,
    device_clock: str = "real",
) -> AdbDevice:
    config = DeviceConfig(
        link=LinkConfig(use_u2=use_u2, reconnect_timeout=reconnect_timeout, call_timeout=call_timeout, clock=clock),
        settle=SettleConfig(strategy=settle_strategy, timeout=settle_timeout),
        clock=device_clock,
    )
    return AdbDevice.connect(vd.serial, adb_port=adb_server.port, start_virtual=False, config=config)


@functools.cache
def commands_since(vd: Any, mark: int) -> list[list[str]]:
    """The commands the device ran since `mark`, without the end lines of the harness's kept shell session (`echo
    TOKEN$?` after each of its command lines: the session's own framing, not a command the harness asked for)."""
    argvs = [list(e.data["argv"]) for e in vd.model.events.since(mark, "exec")]
    return [a for a in argvs if not (len(a) == 2 and a[0] == "echo" and a[1].startswith(END_TOKEN))]


def inputs_since(vd: Any, mark: int, kinds: tuple[str, ...] = ("tap", "long_press", "swipe", "key", "text")) -> list:
    return [e for e in vd.model.events.since(mark) if e.kind in kinds]


def inside(x: float, y: float, bounds: tuple[int, int, int, int]) -> bool:
    l, t, r, b = bounds
    return l <= x < r and t <= y < b


def free_console_port(taken: Callable[[int], bool] | None = None) -> int:
    """An even console port whose pair (port, port + 1) is free now, outside the 5554..5585 every adb server probes
    (as the suite's other emulators: DROIDHARNESS_EMULATOR_PORTS in tests/conftest.py). Each pytest-xdist worker
    takes its own share of the pairs, so two workers never pick the same free pair at once. `taken(port)`: a pair
    free on the host that is not to be used all the same (an adb server still lists its emulator)."""
    worker = os.environ.get("PYTEST_XDIST_WORKER", "gw0")
    index = int(worker[2:]) if worker[2:].isdigit() else 0
    workers = max(1, int(os.environ.get("PYTEST_XDIST_WORKER_COUNT", "1")))
    for port in UNSCANNED_CONSOLE_PORTS:
        if (port // 2) % workers == index % workers and pair_free(port) and not (taken and taken(port)):
            return port
    pytest.skip("no free emulator console port pair in 5600..5681")


@contextlib.contextmanager
def host_echo_server(prefix: bytes) -> Iterator[tuple[int, list[bytes]]]:
    """A host TCP server on a free loopback port: it reads each connection up to a newline (or its end), keeps
    what it read in the list it yields beside the port, and answers `prefix` + that."""
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
                data = b""
                while chunk := c.recv(4096):
                    data += chunk
                    if data.endswith(b"\n"):
                        break
                got.append(data)
                c.sendall(prefix + data)

    threading.Thread(target=loop, daemon=True).start()
    try:
        yield srv.getsockname()[1], got
    finally:
        srv.close()


@contextlib.contextmanager
def adb_shell(adb_server: Any, serial: str, *args: str) -> Iterator[subprocess.Popen[bytes]]:
    """`adb -s SERIAL shell ARGS...` through the session's private adb server, its stdin, stdout and stderr piped;
    killed when the block ends (by its own Popen: the test started it), whether or not it ended on its own."""
    proc = subprocess.Popen(
        [adb_server.adb, "-P", str(adb_server.port), "-s", serial, "shell", *args],
        env=adb_server.env,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    try:
        yield proc
    finally:
        with contextlib.suppress(Exception):
            proc.kill()
