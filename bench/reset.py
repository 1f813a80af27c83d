"""Per-episode device reset time, by method: what `DevicePool.lease` spends before each episode.

- `state_restore`: an embedded device in a thread of this process (the model's boot state restored);
- `snapshot_load`: an embedded device in its own process (`avd snapshot load` on its control console), also
  with a language switch (the other language's boot snapshot);
- `avd_snapshot_load`: a device posing as an emulator (`emulator-NNNN`) reset through its emulator console;
- `app_clear`: a phone (here an embedded device given by serial): `pm clear` of the task's apps + HOME;
- for comparison, a fresh device (`pool.replace`: what a reset by reboot/restart costs at best).

Before each reset the device is dirtied (an app opened, a setting changed; not timed). Each row goes through the
real private adb server. Prints medians and p95; no asserts.

    python bench/reset.py [--n 30] [--latency instant]
"""

from __future__ import annotations

import argparse
import logging
import os
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from functools import partial
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from rich.console import Console  # noqa: E402
from rich.table import Table  # noqa: E402

from emulator.virtual import VirtualDevice  # noqa: E402
from emulator.virtual.adbserver import PrivateAdbServer  # noqa: E402
from emulator.virtual.ports import UNSCANNED_CONSOLE_PORTS, free_console_port  # noqa: E402
from harness.run.fleet.pool import DevicePool  # noqa: E402

APPS = ("com.droidharness.notes", "com.android.settings", "com.google.android.contacts")


def dirty(pool: DevicePool) -> None:
    dev = pool.slot(0)
    dev.launch("com.droidharness.notes")
    dev.put_setting("system", "droidharness_bench", str(time.time()))


def replace_device(pool: DevicePool) -> None:
    """A fresh device in slot 0 (what a quarantine costs)."""
    pool.replace(0)


def lease_seconds(pool: DevicePool, apps: tuple[str, ...]) -> float:
    return pool.lease(0, apps).reset.seconds


def timed(n: int, before: Callable[[], None], fn: Callable[[], float | None]) -> list[float]:
    out = []
    for _ in range(n):
        before()
        t0 = time.perf_counter()
        reported = fn()
        out.append(reported if reported is not None else time.perf_counter() - t0)
    return out


def row(table: Table, name: str, how: str, xs: list[float]) -> None:
    xs = sorted(xs)
    p95 = xs[min(len(xs) - 1, int(0.95 * len(xs)))]
    table.add_row(name, how, str(len(xs)), f"{1000 * statistics.median(xs):.1f}", f"{1000 * p95:.1f}")


def console_port() -> int:
    """A free console/adb pair no adb server probes (only the one the device announces itself to lists it)."""
    try:
        return free_console_port(ports=UNSCANNED_CONSOLE_PORTS)
    except OSError as e:
        raise SystemExit(str(e)) from None


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=30, help="resets per method")
    ap.add_argument("--latency", default="instant", choices=["instant", "pixel"])
    args = ap.parse_args()
    logging.disable(logging.WARNING)
    n, lat = args.n, args.latency
    table = Table("method", "device", "n", "median ms", "p95 ms", title=f"per-episode reset, latency={lat}")

    with DevicePool(1, latency=lat) as pool:
        row(
            table,
            "state_restore",
            "thread (in this process)",
            timed(n, lambda: dirty(pool), lambda: pool.lease(0, lang="en").reset.seconds),
        )
        row(
            table,
            "fresh device",
            "thread: pool.replace",
            timed(max(3, n // 6), lambda: None, partial(replace_device, pool)),
        )

    with DevicePool(1, latency=lat, isolation="process") as pool:
        row(
            table,
            "snapshot_load",
            "process (control console)",
            timed(n, lambda: dirty(pool), lambda: pool.lease(0, lang="en").reset.seconds),
        )
        langs = iter(["zh", "en"] * n)
        row(
            table,
            "snapshot_load",
            "process, language switch",
            timed(n, lambda: dirty(pool), lambda: pool.lease(0, lang=next(langs)).reset.seconds),
        )
        row(
            table,
            "fresh device",
            "process: pool.replace",
            timed(max(3, n // 6), lambda: None, partial(replace_device, pool)),
        )

    with tempfile.TemporaryDirectory() as home, PrivateAdbServer() as server:
        os.environ["ANDROID_ADB_SERVER_PORT"] = str(server.port)
        os.environ["HOME"] = home  # the emulator console's token file lives in $HOME
        port = console_port()
        with VirtualDevice(
            latency=lat, emulator_console=True, console_port=port, adb_server_port=server.port, console_home=home
        ):
            deadline = time.monotonic() + 30
            while server.state(f"emulator-{port}") != "device" and time.monotonic() < deadline:
                time.sleep(0.05)
            with DevicePool(serials=[f"emulator-{port}"]) as pool:
                row(
                    table,
                    "avd_snapshot_load",
                    "emulator console",
                    timed(n, lambda: dirty(pool), lambda: pool.lease(0).reset.seconds),
                )
        with VirtualDevice(latency=lat) as vd:
            server.connect(vd.address)
            with DevicePool(serials=[vd.address]) as pool:
                for k in (1, 3):
                    row(
                        table,
                        "app_clear",
                        f"phone, {k} app(s)",
                        timed(n, lambda: dirty(pool), partial(lease_seconds, pool, APPS[:k])),
                    )
            server.disconnect(vd.address)

    Console(width=160).print(table)


if __name__ == "__main__":
    main()
