"""Where a device's memory goes in steady state (issue 50): PSS, private and shared memory and the main holders of
every device process after ~100 episodes each.

For each `--devices` count (and each `--isolation`), one `droidharness run` of the `reference` agent on the virtual
clock, both languages, over `--episodes-per-device` x devices episodes of one task family (`--family`; written as a
suite folder the way bench/soak.py makes a family run long enough: seed 0's instances, then seed 1's...). While it
runs, the devices' PSS is sampled from /proc (`smaps_rollup`); once `--at` of the episodes are done (steady state,
all devices still busy), every device process is read in full:
- /proc/PID/smaps_rollup: PSS, RSS, Private_Clean / Private_Dirty, Shared_Clean / Shared_Dirty;
- /proc/PID/smaps per mapping, grouped: the native heap (`[heap]`, glibc's main arena), anonymous memory (Python's
  object arenas, other threads' malloc arenas, large blocks, thread stacks), the interpreter and libraries, fonts
  and other mapped files;
- the device's own report (`emulator/virtual/memreport.py`, asked with SIGUSR1 through
  `DROIDHARNESS_MEMORY_REPORT`): what its bounded holders hold (frames drawn, encoded and raw; glyph masks; logcat;
  event log; boot snapshots), glibc's heap (in use / free inside it / mmapped); with `--trace N`, a second run with
  `tracemalloc` (N frames a trace) started in each device groups its Python heap into holders (interpreter and
  imports, frame buffers and encoded frames, fonts and glyph masks, layouts and view trees, app data and databases,
  logs, device state and snapshots, ...). Tracing costs memory and time of its own, so PSS comes from the untraced run.
With `--isolation thread` the devices are threads of the harness: its PSS against the same run's harness with
process devices is what they add. `--apps` also measures one device that opened AndroidWorld's apps
(bench/app_memory.py's stages, with the same /proc breakdown at each).

    python bench/device_memory.py [--devices 2 4] [--episodes-per-device 100] [--family clock-alarm]
                                  [--isolation process thread] [--trace 8] [--apps] [--out DIR] [--env K=V ...]

`--env K=V` passes an environment variable to the run (e.g. MALLOC_ARENA_MAX=2), to compare choices side by side.
Prints tables; no asserts. Linux only. `--out DIR` keeps the runs, their logs and `device_memory.json`.
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

import numpy as np  # noqa: E402
from rich.console import Console  # noqa: E402
from rich.table import Table  # noqa: E402
from soak import HARNESS, episodes_done, process_kinds, write_suites  # noqa: E402

from emulator.virtual.memreport import ENV as REPORT_ENV  # noqa: E402
from emulator.virtual.memreport import TRACE_ENV  # noqa: E402

TARGET_MB = 64.0
ROLLUP = ("Pss", "Rss", "Private_Clean", "Private_Dirty", "Shared_Clean", "Shared_Dirty", "Swap")
REGIONS = (
    "native heap",
    "thread arenas",
    "thread stacks",
    "anonymous",
    "interpreter",
    "extensions",
    "system libraries",
    "fonts",
    "other files",
    "other",
)
ARENA_ALIGN = 64 << 20  # glibc's heaps for other threads' arenas: 64 MB reservations, aligned to their size (64-bit)
STACK_KB = 8192  # a thread's stack (the default RLIMIT_STACK)


def rollup(pid: int) -> dict[str, int] | None:
    """smaps_rollup's figures (kB) of `pid`; None when it is gone."""
    try:
        lines = Path(f"/proc/{pid}/smaps_rollup").read_text().splitlines()
    except OSError:
        return None
    out = {}
    for line in lines:
        name, _, rest = line.partition(":")
        if name in ROLLUP:
            out[name] = int(rest.split()[0])
    return out


def region(path: str, start: int = 1, size_kb: int = 0) -> str:
    """The kind of memory a mapping of `path` (smaps' pathname column, "" when anonymous) at `start`, `size_kb`
    long, is. Anonymous memory is told apart by its shape: glibc's arenas for other threads are reserved 64 MB at a
    time at addresses aligned to that; a thread's stack is 8 MB (its guard page a mapping of its own); the rest is
    the Python objects' arenas (256 KB each, which the kernel merges when adjacent) and large blocks malloc mapped
    apart (frames, encoded images past glibc's threshold)."""
    if path == "[heap]":
        return "native heap"
    if path == "" or path.startswith("[stack") or path.startswith("[anon"):
        if path == "" and start % ARENA_ALIGN == 0 and 0 < size_kb <= ARENA_ALIGN >> 10:
            return "thread arenas"
        if path.startswith("[stack") or size_kb == STACK_KB:
            return "thread stacks"
        return "anonymous"
    if path.startswith("["):
        return "other"
    name = os.path.basename(path)
    if name.startswith(("python", "libpython")):
        return "interpreter"
    if name.endswith((".ttf", ".otf", ".ttc")):
        return "fonts"
    if ".so" in name:
        return "extensions" if ("site-packages" in path or "lib-dynload" in path) else "system libraries"
    return "other files"


def regions(pid: int) -> dict[str, dict[str, int]]:
    """/proc/PID/smaps summed per `region`: {region: {Pss, Rss, Private_Dirty, ...}} (kB)."""
    out: dict[str, dict[str, int]] = {}
    try:
        text = Path(f"/proc/{pid}/smaps").read_text()
    except OSError:
        return out
    current: dict[str, int] | None = None
    for line in text.splitlines():
        head = line.split(None, 5)
        if head and "-" in head[0] and ":" not in head[0]:  # a mapping's header: address perms offset dev inode path
            lo, hi = (int(a, 16) for a in head[0].split("-"))
            current = out.setdefault(region(head[5].strip() if len(head) > 5 else "", lo, (hi - lo) >> 10), {})
            continue
        name, _, rest = line.partition(":")
        if current is not None and name in ROLLUP:
            current[name] = current.get(name, 0) + int(rest.split()[0])
    return out


def ask_reports(folder: Path, pids: list[int], timeout: float = 30.0) -> dict[int, dict[str, Any]]:
    """SIGUSR1 to each device process, then their reports (emulator.virtual.memreport) as they come."""
    for pid in pids:
        (folder / f"{pid}.json").unlink(missing_ok=True)
        try:
            os.kill(pid, signal.SIGUSR1)
        except OSError:
            pass
    reports: dict[int, dict[str, Any]] = {}
    deadline = time.monotonic() + timeout
    while len(reports) < len(pids) and time.monotonic() < deadline:
        for pid in pids:
            try:
                reports.setdefault(pid, json.loads((folder / f"{pid}.json").read_text()))
            except (OSError, ValueError):
                pass
        time.sleep(0.2)
    return reports


def run_family(devices: int, isolation: str, trace: int, args: argparse.Namespace, console: Console) -> dict[str, Any]:
    """One run; its samples and the steady-state reading of every device process (and the harness)."""
    name = f"mem-{isolation}-{devices}-{'trace' if trace else 'pss'}-{time.strftime('%H%M%S')}"
    suites = write_suites([args.family], devices * args.episodes_per_device, 2, args.out / f"{name}.suite", False)
    suite = suites[args.family]
    total = len(list(suite.glob("*.json"))) * 2
    cmd = [*HARNESS, "run", "--suite", str(suite), "--agent", "reference", "--lang", "all", "--clock", "virtual"]
    cmd += ["--devices", str(devices), "--latency", "instant", "--no-report", "--out", str(args.out), "--run-id", name]
    cmd += ["--isolation", isolation]
    reports_dir = args.out / f"{name}.reports"
    reports_dir.mkdir()
    env = {**os.environ, REPORT_ENV: str(reports_dir), **dict(kv.split("=", 1) for kv in args.env)}
    if trace:
        env[TRACE_ENV] = str(trace)
    samples: list[dict[str, Any]] = []
    readings: list[dict[str, Any]] = []
    done: set[str] = set()
    t0 = time.monotonic()
    with open(args.out / f"{name}.log", "wb") as log:
        proc = subprocess.Popen(cmd, stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, env=env)
        try:
            while proc.poll() is None:
                kinds = process_kinds(proc.pid)
                eps = episodes_done(args.out / name, done)
                pss = {pid: r["Pss"] for pid, k in kinds.items() if k in ("device", "harness") and (r := rollup(pid))}
                samples.append({"t": time.monotonic() - t0, "episodes": eps, "pss": pss, "kinds": kinds})
                if len(readings) < len(args.at) and eps >= args.at[len(readings)] * total:
                    os.kill(proc.pid, signal.SIGSTOP)  # the devices idle while they are read, and live on
                    try:
                        time.sleep(args.settle)  # what the devices were doing ends (and they trim at rest)
                        readings.append(read_steady(kinds, reports_dir, eps))
                    finally:
                        os.kill(proc.pid, signal.SIGCONT)
                    console.print(f"{name}: read at {eps} of {total} episodes", style="dim")
                time.sleep(args.sample_interval)
        finally:
            if proc.poll() is None:
                proc.terminate()
            proc.wait()
    return {
        "name": name,
        "devices": devices,
        "isolation": isolation,
        "trace": trace,
        "command": cmd,
        "env": args.env,
        "rc": proc.returncode,
        "wall": time.monotonic() - t0,
        "episodes": episodes_done(args.out / name, done),
        "total": total,
        "samples": [{**s, "kinds": {str(p): k for p, k in s["kinds"].items()}} for s in samples],
        "steady": readings[-1] if readings else {},
        "readings": readings,
        "loadavg": os.getloadavg(),
    }


def read_steady(kinds: dict[int, str], reports_dir: Path, episodes: int) -> dict[str, Any]:
    """The full reading of every device process and the harness: rollup, regions, the device's own report."""
    devices = [pid for pid, k in kinds.items() if k == "device"]
    harness = [pid for pid, k in kinds.items() if k == "harness"]
    out: dict[str, Any] = {"episodes": episodes, "devices": {}, "harness": {}}
    for pid in devices:
        out["devices"][str(pid)] = {"rollup": rollup(pid), "regions": regions(pid)}
    reports = ask_reports(reports_dir, devices, 120.0) if devices else {}
    for pid in devices:
        out["devices"][str(pid)]["report"] = reports.get(pid)
    for pid in harness:
        out["harness"][str(pid)] = {"rollup": rollup(pid), "regions": regions(pid)}
    return out


def growth(run: dict[str, Any]) -> tuple[float, float, float]:
    """The devices' summed PSS (MB) after the warm-up (10% of the episodes), at the reading, and its slope per 100
    episodes in between (numpy.polyfit); NaN where too few samples."""
    warm = 0.1 * run["total"]
    end = run["steady"].get("episodes", run["total"])
    most = max((sum(1 for k in s["kinds"].values() if k == "device") for s in run["samples"]), default=0)
    xs, ys = [], []
    for s in run["samples"]:
        dev = [v for p, v in s["pss"].items() if s["kinds"].get(str(p)) == "device"]
        if warm <= s["episodes"] <= end and len(dev) == most and most:
            xs.append(s["episodes"])
            ys.append(sum(dev) / 1024)
    if len(xs) < 4 or xs[0] == xs[-1]:
        return float("nan"), float("nan"), float("nan")
    return ys[0], ys[-1], 100 * float(np.polyfit(np.asarray(xs, float), np.asarray(ys, float), 1)[0])


def running(run: dict[str, Any]) -> tuple[float, float]:
    """A device's PSS (MB) while episodes ran, over the last 20% of them before the reading: median and max over
    its samples (every device process's)."""
    end = run["steady"].get("episodes", run["total"])
    vals = [
        v / 1024
        for s in run["samples"]
        if 0.8 * end <= s["episodes"] < end
        for p, v in s["pss"].items()
        if s["kinds"].get(str(p)) == "device"
    ]
    return (float(np.median(vals)), max(vals)) if vals else (float("nan"), float("nan"))


def mb(kb: float) -> str:
    return f"{kb / 1024:.1f}"


def report(runs: list[dict[str, Any]], apps: list[dict[str, Any]], console: Console) -> None:
    table = Table(
        "run",
        "process",
        "PSS",
        "RSS",
        "private clean",
        "private dirty",
        "shared clean",
        "shared dirty",
        *REGIONS,
        title=f"steady state, MB (PSS per region; target {TARGET_MB:g} MB PSS a device)",
    )
    for r in runs:
        label = f"{r['devices']} {r['isolation']}{' traced' if r['trace'] else ''} @{r['steady'].get('episodes')}"
        procs = [("device", p) for p in r["steady"].get("devices", {}).values()]
        procs += [("harness", p) for p in r["steady"].get("harness", {}).values()]
        for kind, p in procs:
            ru = p["rollup"] or {}
            pss = ru.get("Pss", 0) / 1024
            style = "red" if kind == "device" and pss > TARGET_MB else None
            cells = [mb(ru.get(k, 0)) for k in ROLLUP[:6]]
            table.add_row(
                label, kind, *cells, *(mb(p["regions"].get(g, {}).get("Pss", 0)) for g in REGIONS), style=style
            )
    console.print(table)
    grow = Table(
        "run",
        "episodes",
        "wall s",
        "load avg",
        "devices' PSS after warm-up",
        "at reading",
        "MB / 100 ep",
        "a device's PSS running: median / max",
        title="the devices' PSS summed (MB) from the warm-up (10% of the episodes) to the reading; a device's while "
        "it ran the last 20% before the reading",
    )
    for r in runs:
        a, b, slope = growth(r)
        med, top = running(r)
        grow.add_row(
            r["name"],
            f"{r['episodes']}/{r['total']}",
            f"{r['wall']:.0f}",
            " ".join(f"{x:.1f}" for x in r["loadavg"]),
            f"{a:.1f}",
            f"{b:.1f}",
            f"{slope:+.2f}",
            f"{med:.1f} / {top:.1f}",
        )
    console.print(grow)
    held = Table("run", "device", "holder", "held", title="what a device's holders hold (its report), MB or count")
    for r in runs:
        for pid, p in r["steady"].get("devices", {}).items():
            rep = p.get("report") or {}
            figures = {**rep.get("known", {}), **{f"malloc {k}": v for k, v in rep.get("malloc", {}).items()}}
            for k, v in figures.items():
                big = k.endswith("bytes") or k.startswith("malloc") and "blocks" not in k
                held.add_row(r["name"], pid, k, f"{v / 2**20:.1f}" if big else str(v))
            py = rep.get("python") or {}
            for k in ("traced", "tracemalloc_overhead"):
                if k in py:
                    held.add_row(r["name"], pid, f"python {k}", f"{py[k] / 2**20:.1f}")
            for k, v in sorted(py.get("holders", {}).items(), key=lambda kv: -kv[1]):
                held.add_row(r["name"], pid, f"python: {k}", f"{v / 2**20:.2f}")
            break  # one device a run: the others alike
    console.print(held)
    files = Table("run", "file (innermost frame)", "MB", title="a traced device's Python heap by file (top 25)")
    for r in runs:
        for p in r["steady"].get("devices", {}).values():
            for f, v in list(((p.get("report") or {}).get("python") or {}).get("files", {}).items())[:25]:
                files.add_row(r["name"], f, f"{v / 2**20:.2f}")
            break
    if files.row_count:
        console.print(files)
    if apps:
        t = Table("stage", "PSS", "RSS", "private dirty", *REGIONS, title="one device opening AndroidWorld's apps, MB")
        for stage in apps:
            ru = stage["rollup"] or {}
            t.add_row(
                stage["stage"],
                mb(ru.get("Pss", 0)),
                mb(ru.get("Rss", 0)),
                mb(ru.get("Private_Dirty", 0)),
                *(mb(stage["regions"].get(g, {}).get("Pss", 0)) for g in REGIONS),
            )
        console.print(t)


def measure_apps(rounds: int, settle: float) -> list[dict[str, Any]]:
    """bench/app_memory.py's device and stages (this tree only), with the /proc breakdown at each stage, each read
    `settle` seconds after the device's last command."""
    import app_memory

    from emulator.virtual.adbserver import PrivateAdbServer

    stages: list[dict[str, Any]] = []
    plain = app_memory.memory_kb

    def probe(pid: int) -> tuple[int, int]:
        time.sleep(settle)  # the device at rest (it trims what its last frames freed)
        stages.append({"stage": f"stage {len(stages)}", "rollup": rollup(pid), "regions": regions(pid)})
        return plain(pid)

    app_memory.memory_kb = probe
    server = PrivateAdbServer().start()
    try:
        measured = app_memory.measure(app_memory.ROOT, server, rounds)
    finally:
        server.stop()
        app_memory.memory_kb = plain
    for s, name in zip(stages, measured.stages, strict=False):
        s["stage"] = name
    return stages


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--devices", type=int, nargs="+", default=[2, 4])
    ap.add_argument("--episodes-per-device", type=int, default=100)
    ap.add_argument("--family", default="clock-alarm")
    ap.add_argument("--isolation", nargs="+", default=["process"], choices=["process", "thread"])
    ap.add_argument("--trace", type=int, default=0, help="also a traced run (tracemalloc, N frames) per count")
    ap.add_argument(
        "--at",
        type=float,
        nargs="+",
        default=[0.9],
        help="read the processes once these fractions of the episodes are done (the tables show the last reading)",
    )
    ap.add_argument("--settle", type=float, default=1.0, help="seconds between pausing the harness and the reading")
    ap.add_argument("--apps", action="store_true", help="also one device opening AndroidWorld's apps")
    ap.add_argument("--app-rounds", type=int, default=2)
    ap.add_argument("--env", nargs="*", default=[], help="K=V passed to the run's environment")
    ap.add_argument("--sample-interval", type=float, default=0.5)
    ap.add_argument("--out", type=Path, help="keep the runs, their logs and device_memory.json here")
    ap.add_argument("--report", type=Path, help="print the tables of a saved device_memory.json instead of running")
    args = ap.parse_args()
    console = Console(width=260)
    if args.report:
        saved = json.loads(args.report.read_text())
        report(saved["runs"], saved["apps"], console)
        return
    if not Path("/proc/self/smaps_rollup").exists():
        sys.exit("device_memory: needs Linux /proc (smaps_rollup)")
    with tempfile.TemporaryDirectory(prefix="devmem-") as tmp:
        keep = args.out is not None
        args.out = (args.out or Path(tmp)).resolve()
        args.out.mkdir(parents=True, exist_ok=True)
        runs = []
        for isolation in args.isolation:
            for n in args.devices:
                runs.append(run_family(n, isolation, 0, args, console))
                if args.trace and isolation == "process":
                    runs.append(run_family(n, isolation, args.trace, args, console))
        apps = measure_apps(args.app_rounds, args.settle) if args.apps else []
        if keep:
            (args.out / "device_memory.json").write_text(json.dumps({"runs": runs, "apps": apps}))
        report(runs, apps, console)
        if keep:
            console.print(f"samples: {args.out / 'device_memory.json'}")


if __name__ == "__main__":
    main()
