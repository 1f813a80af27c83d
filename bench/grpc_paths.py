"""Capture and step times per screenshot path on a device posing as an emulator with the gRPC door, side by side:
gRPC RGB888 into shared memory, gRPC RGBA8888, gRPC PNG, uiautomator2 (JPEG), raw screencap (no asserts; prints one
table per latency profile).

    python bench/grpc_paths.py [--repeat N] [--latency instant,pixel]

The virtual device (in this process, behind a private real adb server; its discovery file under a temporary
$XDG_RUNTIME_DIR) is opened as `droidharness run --device emulator-NNNN` opens one: `capture` is one screenshot by
the path, decoded as an observation takes it (shared memory's rows are an array as they are); `step` is
`AdbDevice.step(HOME)` with that path taking the screenshot (the key itself goes through gRPC in every row). With
`pixel`, adb's paths cost what a phone's do and the gRPC door nothing more (an emulator's is the host's). Medians
in ms.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from emulator.virtual import VirtualDevice  # noqa: E402
from emulator.virtual.adbserver import PrivateAdbServer  # noqa: E402
from emulator.virtual.ports import UNSCANNED_CONSOLE_PORTS, free_console_port  # noqa: E402
from harness import actions as A  # noqa: E402
from harness.device.capture import SCREENSHOT_CHAIN, screenshot_grpc, screenshot_grpc_shared  # noqa: E402
from harness.device.controller import AdbDevice  # noqa: E402
from harness.device.link import DeviceLink  # noqa: E402
from harness.device.sharedframe import RawFrame  # noqa: E402

PATHS: dict[str, tuple[str, Callable[[DeviceLink], Any]]] = {  # row -> (the capability it needs, the path)
    "grpc shm RGB": ("grpc_shm", screenshot_grpc_shared),
    "grpc RGBA": ("grpc", dict(SCREENSHOT_CHAIN)["grpc"]),
    "grpc PNG": ("grpc", lambda link: screenshot_grpc(link, "png")),
    "u2": ("u2", dict(SCREENSHOT_CHAIN)["u2"]),
    "screencap_raw": ("screencap_raw", dict(SCREENSHOT_CHAIN)["screencap_raw"]),
}


def console_port() -> int:
    """A free console/adb pair no adb server probes (only the one the device announces itself to lists it)."""
    try:
        return free_console_port(ports=UNSCANNED_CONSOLE_PORTS)
    except OSError as e:
        raise SystemExit(str(e)) from None


def median_ms(n: int, fn: Callable[[], Any]) -> float:
    times = []
    for _ in range(n):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return statistics.median(times) * 1000


def capture(link: DeviceLink, fn: Callable[[DeviceLink], Any]) -> None:
    value = fn(link)
    if isinstance(value, RawFrame):
        return  # the rows are the observation's array as they are
    (value[0] if isinstance(value, tuple) else value).load()


def measure(dev: AdbDevice, n: int) -> list[tuple[str, float, float]]:
    rows = []
    obs = dev.observe()
    for name, (capability, fn) in PATHS.items():
        cap = median_ms(n, partial(capture, dev.link, fn))
        dev.screenshots = ((capability, fn),)
        step = median_ms(n, lambda: dev.step(A.Home(), obs))
        rows.append((name, cap, step))
    return rows


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=15)
    ap.add_argument("--latency", default="instant,pixel")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as home, PrivateAdbServer() as server:
        os.environ.update(ANDROID_ADB_SERVER_PORT=str(server.port), HOME=home, XDG_RUNTIME_DIR=home)
        for lat in args.latency.split(","):
            port = console_port()
            with VirtualDevice(
                latency=lat,
                emulator_console=True,
                console_port=port,
                adb_server_port=server.port,
                console_home=home,
                grpc_port=0,
            ):
                serial = f"emulator-{port}"
                deadline = time.monotonic() + 30
                while server.state(serial) != "device" and time.monotonic() < deadline:
                    time.sleep(0.05)
                with AdbDevice.connect(serial) as dev:
                    assert dev.link.has("grpc"), "the gRPC door was not found"
                    w, h = dev.info.size
                    print(f"\nlatency {lat}, {w}x{h}, median of {args.repeat} (ms)")
                    print(f"{'path':<15}{'capture':>10}{'step':>10}")
                    for name, cap, step in measure(dev, args.repeat):
                        print(f"{name:<15}{cap:>10.1f}{step:>10.1f}")


if __name__ == "__main__":
    main()
