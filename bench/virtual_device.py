"""Benchmark the embedded virtual device through the real adb server (no asserts; prints a table).

    python bench/virtual_device.py [--repeat N] [--profiles instant,pixel]

For each latency profile: shell round trip (`echo hi`) through adbutils and through a raw adb-protocol socket
to the adb server, screenshot throughput (`screencap -p`, raw `screencap`, uiautomator2 `takeScreenshot`), and
uiautomator2 RPC latency (`deviceInfo`). A path whose command the device does not implement yet is skipped with
a note. Starts its own private adb server and virtual devices; touches nothing else.
"""

from __future__ import annotations

import argparse
import logging
import socket
import statistics
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from rich.console import Console  # noqa: E402
from rich.table import Table  # noqa: E402

from emulator.virtual import VirtualDevice  # noqa: E402
from emulator.virtual.adbserver import PrivateAdbServer  # noqa: E402

log = logging.getLogger("bench.virtual_device")


@dataclass
class Row:
    profile: str
    path: str
    samples: list[float]
    size: int | None = None  # bytes per call (screenshots)
    note: str = ""


class Skip(Exception):
    """The path is not available on this device (command not implemented yet, ...)."""


def measure(fn: Callable[[], int | None], repeat: int) -> tuple[list[float], int | None]:
    fn()  # warm-up (first-call costs: connections, server start, caches)
    samples: list[float] = []
    size = None
    for _ in range(repeat):
        t = time.perf_counter()
        size = fn()
        samples.append(time.perf_counter() - t)
    return samples, size


# --- the raw adb smart-socket protocol, to see adbutils' own overhead ------------------------------------------
def _send_request(sock: socket.socket, text: str) -> None:
    data = text.encode()
    sock.sendall(f"{len(data):04x}".encode() + data)


def _expect_okay(sock: socket.socket) -> None:
    status = _recv_exact(sock, 4)
    if status != b"OKAY":
        n = int(_recv_exact(sock, 4), 16)
        raise RuntimeError(f"{status!r}: {_recv_exact(sock, n).decode(errors='replace')}")


def _recv_exact(sock: socket.socket, n: int) -> bytes:
    buf = bytearray()
    while len(buf) < n:
        chunk = sock.recv(n - len(buf))
        if not chunk:
            raise RuntimeError("adb server closed the connection")
        buf += chunk
    return bytes(buf)


def raw_shell(server_port: int, serial: str, command: str) -> bytes:
    """`host:transport:SERIAL` then `shell:COMMAND`, read to the end: one round trip with no client library."""
    with socket.create_connection(("127.0.0.1", server_port)) as sock:
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        _send_request(sock, f"host:transport:{serial}")
        _expect_okay(sock)
        _send_request(sock, f"shell:{command}")
        _expect_okay(sock)
        out = bytearray()
        while True:
            chunk = sock.recv(1 << 16)
            if not chunk:
                return bytes(out)
            out += chunk


# --- the paths -------------------------------------------------------------------------------------------------
def paths(srv: PrivateAdbServer, vd: VirtualDevice) -> dict[str, Callable[[], int | None]]:
    adb = vd.adb
    u2dev: dict[str, Any] = {}

    def shell_adbutils() -> None:
        if adb.shell("echo hi") != "hi":
            raise Skip("`echo` not implemented")

    def shell_raw() -> None:
        if raw_shell(srv.port, vd.serial, "echo hi").strip() != b"hi":
            raise Skip("`echo` not implemented")

    def screencap_png() -> int:
        data = adb.shell("screencap -p", encoding=None)
        if not data.startswith(b"\x89PNG"):
            raise Skip("`screencap -p` not implemented")
        return len(data)

    def screencap_raw() -> int:
        data = adb.shell("screencap", encoding=None)
        w, h = vd.model.display_size
        if len(data) < 16 + w * h * 4:
            raise Skip("raw `screencap` not implemented")
        return len(data)

    def screencap_raw_streamed() -> int:
        # adbutils `shell()` concatenates its reads quadratically; reading the stream ourselves shows the device
        c = adb.shell("screencap", stream=True)
        buf = bytearray()
        try:
            while True:
                chunk = c.conn.recv(1 << 20)
                if not chunk:
                    break
                buf += chunk
        finally:
            c.close()
        data = bytes(buf)
        w, h = vd.model.display_size
        if len(data) < 16 + w * h * 4:
            raise Skip("raw `screencap` not implemented")
        return len(data)

    def u2() -> Any:
        if "error" in u2dev:
            raise Skip(u2dev["error"])
        if "d" not in u2dev:
            try:
                import uiautomator2

                d = uiautomator2.connect(adb)
                d.jsonrpc.deviceInfo()  # starts the server
                u2dev["d"] = d
            except Exception as e:  # noqa: BLE001 - the u2 server may not be implemented yet
                u2dev["error"] = f"uiautomator2 unavailable ({type(e).__name__})"
                log.debug("uiautomator2 unavailable", exc_info=True)
                raise Skip(u2dev["error"]) from e
        return u2dev["d"]

    def u2_screenshot() -> int:
        d = u2()
        try:
            img = d.screenshot()
        except Exception as e:  # noqa: BLE001
            raise Skip(f"takeScreenshot failed: {type(e).__name__}") from e
        return img.width * img.height

    def u2_rpc() -> None:
        d = u2()
        try:
            d.jsonrpc.deviceInfo()
        except Exception as e:  # noqa: BLE001
            raise Skip(f"deviceInfo failed: {type(e).__name__}") from e

    return {
        "shell `echo hi` (adbutils)": shell_adbutils,
        "shell `echo hi` (raw adb socket)": shell_raw,
        "screencap -p (PNG)": screencap_png,
        "screencap (raw RGBA, adbutils shell)": screencap_raw,
        "screencap (raw RGBA, streamed)": screencap_raw_streamed,
        "u2 takeScreenshot (JPEG)": u2_screenshot,
        "u2 RPC deviceInfo": u2_rpc,
    }


def run(profiles: list[str], repeat: int, slow_repeat: int) -> list[Row]:
    rows: list[Row] = []
    with PrivateAdbServer() as srv:
        for profile in profiles:
            vd = VirtualDevice(latency=profile).start()
            try:
                vd.connect(srv)
                for name, fn in paths(srv, vd).items():
                    n = slow_repeat if (profile != "instant" and "screencap" in name) else repeat
                    try:
                        samples, size = measure(fn, n)
                        rows.append(Row(profile, name, samples, size))
                    except Skip as e:
                        rows.append(Row(profile, name, [], note=str(e)))
                    except Exception as e:  # noqa: BLE001 - a benchmark reports, it does not stop
                        log.debug("path %s failed", name, exc_info=True)
                        rows.append(Row(profile, name, [], note=f"error: {type(e).__name__}: {e}"))
            finally:
                srv.disconnect(vd.address)
                vd.stop()
    return rows


def render(rows: list[Row], console: Console) -> None:
    table = Table(title="Virtual device through the real adb server")
    for col, kw in [
        ("profile", {}),
        ("path", {}),
        ("n", {"justify": "right"}),
        ("median ms", {"justify": "right"}),
        ("p90 ms", {"justify": "right"}),
        ("calls/s", {"justify": "right"}),
        ("bytes or px / call", {"justify": "right"}),
        ("note", {}),
    ]:
        table.add_column(col, justify="right" if kw.get("justify") == "right" else "left")
    for r in rows:
        if not r.samples:
            note = (r.note.splitlines() or [""])[0]
            table.add_row(r.profile, r.path, "0", "-", "-", "-", "-", f"skipped: {note[:70]}")
            continue
        s = sorted(r.samples)
        med = statistics.median(s)
        p90 = s[min(len(s) - 1, int(round(0.9 * (len(s) - 1))))]
        table.add_row(
            r.profile,
            r.path,
            str(len(s)),
            f"{med * 1000:.1f}",
            f"{p90 * 1000:.1f}",
            f"{1 / med:.1f}" if med > 0 else "-",
            f"{r.size:,}" if r.size else "",
            r.note,
        )
    console.print(table)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=20, help="calls per path (default 20)")
    ap.add_argument("--slow-repeat", type=int, default=3, help="calls per screencap path on slow profiles")
    ap.add_argument("--profiles", default="instant,pixel", help="comma-separated latency profiles")
    ap.add_argument("-v", "--verbose", action="store_true")
    args = ap.parse_args(argv)
    logging.basicConfig(level=logging.DEBUG if args.verbose else logging.WARNING)
    console = Console(width=None if sys.stdout.isatty() else 160)
    with console.status("benchmarking the virtual device ..."):
        rows = run([p.strip() for p in args.profiles.split(",") if p.strip()], args.repeat, args.slow_repeat)
    render(rows, console)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
