"""Benchmark `AdbDevice.observe()` against the best raw client calls (no asserts; prints rich tables).

    python bench/observe.py [--repeat N] [--latency instant,pixel] [--profile medium_phone]

For each latency profile of the embedded virtual device (started here, behind a private real adb server):

- observe() vs the raw uiautomator2 JSON-RPC calls for the same data (takeScreenshot + dumpWindowHierarchy over
  `FastAdbDevice`, i.e. with TCP_NODELAY), made sequentially and concurrently, with and without the client work
  observe() also does (base64 + JPEG header, XML parse into a UITree);
- harness overhead per step = observe minus the concurrent raw capture of the same data (and as a %), the
  concurrent / sequential ratio, and which path served each part;
- uiautomator2 RPC latency (deviceInfo) through stock adbutils (no TCP_NODELAY), through `FastAdbDevice`, and
  through the harness's direct `U2Rpc`;
- raw screencap through adbutils `shell()` (quadratic read) vs the harness's streamed `exec_out()`.

Targets (issue 3): overhead <= 5 % over the fastest raw path; concurrent capture <= 0.6x sequential on `pixel`.
The virtual device runs in a child process by default (it is pure Python: in this process its rendering would
compete for the GIL with the client being measured); `--in-process` keeps it here.
"""

from __future__ import annotations

import argparse
import base64
import contextlib
import io
import logging
import multiprocessing
import statistics
import sys
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from PIL import Image  # noqa: E402
from rich.console import Console  # noqa: E402
from rich.table import Table  # noqa: E402

from emulator.virtual import VirtualDevice  # noqa: E402
from emulator.virtual.adbserver import PrivateAdbServer  # noqa: E402
from harness.device.controller import AdbDevice  # noqa: E402
from harness.device.fastadb import FastAdbDevice, U2Rpc, exec_out  # noqa: E402
from harness.device.link import Link  # noqa: E402
from harness.hierarchy import UITree  # noqa: E402


def median_time(fn: Callable[[], object], repeat: int, warmup: int = 1) -> float:
    for _ in range(warmup):
        fn()
    samples = []
    for _ in range(repeat):
        t = time.perf_counter()
        fn()
        samples.append(time.perf_counter() - t)
    return statistics.median(samples)


def ms(s: float) -> str:
    return f"{s * 1000:.1f}"


def _serve_device(profile: str, latency: str, addresses: multiprocessing.Queue[str], stop: object) -> None:
    with VirtualDevice(profile=profile, latency=latency) as vd:
        addresses.put(vd.address)
        stop.wait()  # type: ignore[attr-defined]


@contextlib.contextmanager
def device_address(profile: str, latency: str, in_process: bool):
    """The address of a virtual device, in this process or in a child process."""
    if in_process:
        with VirtualDevice(profile=profile, latency=latency) as vd:
            yield vd.address
        return
    ctx = multiprocessing.get_context("spawn")
    q, stop = ctx.Queue(), ctx.Event()
    proc = ctx.Process(target=_serve_device, args=(profile, latency, q, stop), daemon=True)
    proc.start()
    try:
        yield q.get(timeout=60)
    finally:
        stop.set()
        proc.join(10)


def bench_profile(latency: str, profile: str, repeat: int, console: Console, in_process: bool) -> dict[str, object]:
    with PrivateAdbServer() as srv, device_address(profile, latency, in_process) as address:
        adb = srv.connect(address)
        serial = adb.serial
        fast = FastAdbDevice(srv.client, serial)
        rpc = U2Rpc(fast)
        link = Link(srv.client, serial).start()
        dev = AdbDevice(link)
        pool = ThreadPoolExecutor(2)

        def shot() -> Any:
            return rpc.call("takeScreenshot", [1, 80])

        def hier() -> Any:
            return rpc.call("dumpWindowHierarchy", [False, 50])

        def shot_decoded() -> object:
            return Image.open(io.BytesIO(base64.b64decode(shot())))

        def hier_parsed() -> object:
            return UITree.from_xml(hier())

        def seq(a: Callable, b: Callable) -> Callable[[], object]:
            return lambda: (a(), b())

        def conc(a: Callable, b: Callable) -> Callable[[], None]:
            def run() -> None:
                fa, fb = pool.submit(a), pool.submit(b)
                fa.result(), fb.result()

            return run

        r: dict[str, object] = {"latency": latency}
        r["shot"] = median_time(shot, repeat)
        r["hier"] = median_time(hier, repeat)
        r["seq"] = median_time(seq(shot, hier), repeat)
        r["conc"] = median_time(conc(shot, hier), repeat)
        r["seq_same"] = median_time(seq(shot_decoded, hier_parsed), repeat)
        r["conc_same"] = median_time(conc(shot_decoded, hier_parsed), repeat)
        obs_box: list = []
        r["observe"] = median_time(lambda: obs_box.append(dev.observe()), repeat)
        obs = obs_box[-1]
        r["paths"] = obs.paths
        t = time.perf_counter()
        obs.screenshot.load()
        r["decode"] = time.perf_counter() - t

        # u2 RPC latency: stock adbutils device vs FastAdbDevice (both through uiautomator2), and direct U2Rpc
        import uiautomator2 as u2

        d_plain = u2.connect(adb)
        r["rpc_plain"] = median_time(lambda: d_plain.jsonrpc.deviceInfo(), repeat)
        d_fast = u2.connect(fast)
        r["rpc_fast"] = median_time(lambda: d_fast.jsonrpc.deviceInfo(), repeat)
        r["rpc_direct"] = median_time(lambda: rpc.call("deviceInfo"), repeat)

        # raw screencap: adbutils shell() (quadratic) vs the streamed read
        n = max(2, repeat // 3)
        r["screencap_adbutils"] = median_time(lambda: adb.shell("screencap", encoding=None), n)
        r["screencap_streamed"] = median_time(lambda: exec_out(fast, "screencap"), n)
        r["frame_mb"] = len(exec_out(fast, "screencap")) / 1e6
        r["observe_no_app"] = median_time(lambda: dev.link and _observe_without_app(dev), repeat)
        dev.close()
        pool.shutdown()
        srv.disconnect(address)
        return r


def _observe_without_app(dev: AdbDevice) -> object:
    from harness.device.capture import capture_screen

    return capture_screen(dev.link, with_app=False)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--repeat", type=int, default=10)
    ap.add_argument("--latency", default="instant,pixel")
    ap.add_argument("--profile", default="medium_phone")
    ap.add_argument("--in-process", action="store_true", help="run the virtual device in this process")
    args = ap.parse_args()
    logging.basicConfig(level=logging.WARNING)
    console = Console()
    results = []
    for lat in args.latency.split(","):
        where = "in this process" if args.in_process else "in a child process"
        console.print(f"[dim]latency profile {lat} (device {where}): {args.repeat} runs per figure ...[/dim]")
        results.append(bench_profile(lat.strip(), args.profile, args.repeat, console, args.in_process))

    lats = [r["latency"] for r in results]
    t = Table(title=f"observe() vs raw uiautomator2 calls for the same data ({args.profile}; median ms)")
    t.add_column("figure")
    for lat in lats:
        t.add_column(str(lat), justify="right")
    rows: list[tuple[str, Callable[[dict], str]]] = [
        ("raw takeScreenshot", lambda r: ms(r["shot"])),
        ("raw dumpWindowHierarchy", lambda r: ms(r["hier"])),
        ("raw sequential (shot then hierarchy)", lambda r: ms(r["seq"])),
        ("raw concurrent (two threads)", lambda r: ms(r["conc"])),
        ("concurrent / sequential", lambda r: f"{r['conc'] / r['seq']:.2f}x"),
        ("raw sequential + decode/parse", lambda r: ms(r["seq_same"])),
        ("raw concurrent + decode/parse", lambda r: ms(r["conc_same"])),
        ("observe()", lambda r: ms(r["observe"])),
        ("harness overhead (observe - raw concurrent)", lambda r: ms(r["observe"] - r["conc_same"])),
        ("harness overhead %", lambda r: f"{100 * (r['observe'] - r['conc_same']) / r['conc_same']:+.1f}%"),
        ("observe() / raw sequential", lambda r: f"{r['observe'] / r['seq_same']:.2f}x"),
        ("observe() without the focused-activity part", lambda r: ms(r["observe_no_app"])),
        ("paths served", lambda r: ", ".join(f"{k}={v}" for k, v in r["paths"].items())),
        ("JPEG decode on first use", lambda r: ms(r["decode"])),
    ]
    for name, fn in rows:
        t.add_row(name, *(fn(r) for r in results))
    console.print(t)
    console.print(
        "[dim]observe() returns a lazily decoded screenshot (JPEG header parsed, pixels decoded on first "
        "use), as the raw + decode/parse figures do (base64 + header + UITree parse).[/dim]"
    )

    t2 = Table(title="client fixes (median ms)")
    t2.add_column("figure")
    for lat in lats:
        t2.add_column(str(lat), justify="right")
    rows = [
        ("u2 RPC deviceInfo, stock adbutils device (no TCP_NODELAY)", lambda r: ms(r["rpc_plain"])),
        ("u2 RPC deviceInfo, FastAdbDevice (TCP_NODELAY)", lambda r: ms(r["rpc_fast"])),
        ("u2 RPC deviceInfo, harness U2Rpc (one write)", lambda r: ms(r["rpc_direct"])),
        ("raw screencap frame size (MB)", lambda r: f"{r['frame_mb']:.1f}"),
        ("raw screencap via adbutils shell() (quadratic read)", lambda r: ms(r["screencap_adbutils"])),
        ("raw screencap via exec_out() (streamed, linear)", lambda r: ms(r["screencap_streamed"])),
    ]
    for name, fn in rows:
        t2.add_row(name, *(fn(r) for r in results))
    console.print(t2)


if __name__ == "__main__":
    main()
