"""Where emulators sit: console port N (even) and adb port N + 1. adb servers probe the adb ports 5555..5585 when
they start, so an emulator on a console port in 5554..5584 is found again by a restarted server;
$DROIDHARNESS_EMULATOR_PORTS ("FIRST-LAST") moves the choice elsewhere (the test suite keeps its emulators at
5600-5680, away from other adb servers' scans)."""

from __future__ import annotations

import os
import socket

CONSOLE_PORT_MIN, CONSOLE_PORT_MAX = 5554, 5682  # what the emulator accepts for -port (even; adb port = +1)
DEFAULT_CONSOLE_PORTS = range(5554, 5585, 2)  # the pairs every adb server probes for emulators (5555..5585)
PORTS_ENV = "DROIDHARNESS_EMULATOR_PORTS"  # "FIRST-LAST": console ports to use instead (e.g. 5600-5680)


def console_ports() -> range:
    """The console ports tried, in order: 5554..5584, or the even ports of $DROIDHARNESS_EMULATOR_PORTS within
    5554..5682. Raises ValueError for a value that is not such a range."""
    spec = os.environ.get(PORTS_ENV, "").strip()
    if not spec:
        return DEFAULT_CONSOLE_PORTS
    first, sep, last = spec.partition("-")
    try:
        lo, hi = int(first), int(last if sep else first)
    except ValueError:
        raise ValueError(f"${PORTS_ENV}={spec!r}: expected FIRST-LAST, e.g. 5600-5680") from None
    if not CONSOLE_PORT_MIN <= lo <= hi <= CONSOLE_PORT_MAX:
        raise ValueError(f"${PORTS_ENV}={spec!r}: ports must lie in {CONSOLE_PORT_MIN}..{CONSOLE_PORT_MAX}")
    return range(lo + lo % 2, hi + 1, 2)


def pair_free(port: int, host: str = "127.0.0.1") -> bool:
    """Nothing listens on the console port nor on its adb port (port + 1). Checked as the device's servers bind
    (SO_REUSEADDR): a port a closed connection leaves in TIME_WAIT is free to them."""
    for p in (port, port + 1):
        with socket.socket() as s:
            s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            try:
                s.bind((host, p))
            except OSError:
                return False
    return True


UNSCANNED_CONSOLE_PORTS = range(5680, 5598, -2)  # pairs no adb server probes: only the one told of it lists it


def free_console_port(host: str = "127.0.0.1", ports: range | None = None) -> int:
    """The first console port of `ports` (default: `console_ports()`) whose pair is free; OSError when none is."""
    ports = console_ports() if ports is None else ports
    for port in ports:
        if pair_free(port, host):
            return port
    raise OSError(f"no free emulator console port pair in {min(ports)}..{max(ports) + 1}")
