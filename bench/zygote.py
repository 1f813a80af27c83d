"""What forking every device from a warm zygote buys (issue 50 item 2, issue 49 item 4): the first episode's start
and the device processes' memory, this checkout against another one (`--against DIR`, e.g. `git archive` of main
before the change), side by side, the runs alternated so that a shared machine's drift falls on both alike.

`start`: `droidharness run --agent reference --lang en --devices N --latency pixel` on 4 tasks, as a user types it
(a fresh interpreter: its imports count), timed from the command's start: when the first episode started (and
each device's first, their mean), when the pool handed the devices out (manifest.json `devices[i].startup.up`,
from the pool's start) and the mean of each start-up phase; medians over `--runs`. With `--whole-suite`, the 36
English tasks (bench/scale.py's workload, but through the command: its imports count) and, per tree, each device
count's speed-up over the first one, run by run.

`memory`: `droidharness run --agent reference --lang en --clock virtual --family clock-alarm --instances E
--devices N`, the device processes read from /proc/PID/smaps_rollup every `--interval` s while it runs. Shown per
device: PSS, RSS, Private_Dirty, Shared_Clean, Shared_Dirty (and the zygote's PSS and RSS), at the first reading
once N episodes are done (each device booted and through about one) and at the last one with every device alive
(after about E episodes), with the episodes done at that moment.

    python bench/zygote.py start  [--against DIR] [--devices 2 8] [--runs 5] [--whole-suite]
    python bench/zygote.py memory [--against DIR] [--devices 2 4] [--episodes 100] [--runs 1]

Prints figures; no asserts.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from datetime import datetime
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from rich.console import Console  # noqa: E402
from rich.table import Table  # noqa: E402
from soak import episodes_done, process_kinds  # noqa: E402

TASKS = ("clock-yoga-alarm", "contacts-create-exact", "messages-reply-bob", "clock-world-time")
PHASES = ("queued", "spawn", "boot", "connect", "prepare")
MEMORY = ("Pss", "Rss", "Private_Dirty", "Shared_Clean", "Shared_Dirty")


def cli(tree: Path, args: list[str]) -> subprocess.Popen[bytes]:
    """`droidharness run ARGS` from checkout `tree` (its packages first on the path), output to a log."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    return subprocess.Popen(
        [sys.executable, "-m", "harness.cli.main", "run", *args],
        cwd=tree,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )


def start_run(tree: Path, n: int, out: Path, whole: bool = False) -> dict[str, float]:
    run_id = f"start-{n}-{time.time_ns()}"
    args = ["--agent", "reference", "--lang", "en", "--devices", str(n), "--latency", "pixel", "--no-report"]
    args += [] if whole else [x for t in TASKS for x in ("--task", t)]
    args += ["--out", str(out), "--run-id", run_id]
    t0 = time.time()
    proc = cli(tree, args)
    proc.wait()
    wall = time.time() - t0
    run = out / run_id
    manifest = json.loads((run / "manifest.json").read_text())
    rows = [d.get("startup") or {} for d in manifest.get("devices", [])]
    first: dict[str, float] = {}
    for ep in (run / "episodes").iterdir():
        meta = json.loads((ep / "episode.json").read_text())
        at = datetime.fromisoformat(meta["started"]).timestamp() - t0
        serial = str((meta.get("device") or {}).get("serial", ""))
        first[serial] = min(at, first.get(serial, at))
    res = {
        "wall": wall,
        "first": min(first.values()),
        "first_mean": statistics.fmean(first.values()),
        "up_mean": statistics.fmean(float(r["up"]) for r in rows),
    }
    for phase in PHASES:
        res[phase] = statistics.fmean(float(r.get(phase, 0.0)) for r in rows)
    return res


def smaps(pid: int) -> dict[str, int] | None:
    try:
        text = Path(f"/proc/{pid}/smaps_rollup").read_text()
    except OSError:
        return None
    fields = dict(line.split(":", 1) for line in text.splitlines() if ":" in line)
    return {k: int(fields[k].split()[0]) for k in MEMORY if k in fields}


def memory_run(tree: Path, n: int, episodes: int, out: Path, interval: float) -> dict[str, Any]:
    run_id = f"memory-{n}-{time.time_ns()}"
    args = ["--agent", "reference", "--lang", "en", "--clock", "virtual", "--family", "clock-alarm"]
    args += ["--instances", str(episodes), "--devices", str(n), "--no-report", "--out", str(out), "--run-id", run_id]
    proc = cli(tree, args)
    first: dict[str, Any] = {}  # the first reading once each device is through about an episode
    last: dict[str, Any] = {}
    seen: set[str] = set()
    while proc.poll() is None:
        kinds = process_kinds(proc.pid)
        devices = sorted(p for p, k in kinds.items() if k == "device")
        zygote = [p for p, k in kinds.items() if k == "zygote"]
        if len(devices) == n:
            read = {p: smaps(p) for p in [*devices, *zygote]}
            if all(v is not None for v in read.values()):
                last = {
                    "devices": [read[p] for p in devices],
                    "zygote": read[zygote[0]] if zygote else None,
                    "episodes": episodes_done(out / run_id, seen),
                }
                if not first and last["episodes"] >= n:  # up and through an episode each, about
                    first = last
        time.sleep(interval)
    return {"first": first or last, "last": last} if last else {}


def median_row(runs: list[dict[str, float]], key: str) -> str:
    vals = sorted(r[key] for r in runs)
    spread = f" ({vals[0]:.2f}-{vals[-1]:.2f})" if len(vals) > 1 else ""
    return f"{statistics.median(vals):.2f}{spread}"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("what", choices=["start", "memory"])
    ap.add_argument("--against", type=Path, help="another checkout to run side by side (e.g. main before)")
    ap.add_argument("--devices", type=int, nargs="+")
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--episodes", type=int, default=100, help="memory: the run's episodes")
    ap.add_argument(
        "--whole-suite",
        action="store_true",
        help="start: the 36 English tasks instead of 4, and each count's speed-up over the first count (walls)",
    )
    ap.add_argument("--interval", type=float, default=0.5, help="memory: seconds between readings")
    args = ap.parse_args()
    trees = {"this": ROOT, **({"against": args.against.resolve()} if args.against else {})}
    console = Console(width=200)
    load0 = os.getloadavg()
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp)
        if args.what == "start":
            got: dict[tuple[str, int], list[dict[str, float]]] = {}
            for _ in range(args.runs):
                for n in args.devices or [2, 8]:
                    for label, tree in trees.items():  # alternated: the drift falls on both
                        got.setdefault((label, n), []).append(start_run(tree, n, out, args.whole_suite))
            table = Table("tree", "devices", "1st episode s", "devices' 1st mean s", "up mean s", *PHASES, "wall s")
            tasks = "the 36 English tasks" if args.whole_suite else f"{len(TASKS)} tasks"
            table.title = f"start-up from the command's start, pixel, {tasks}, medians of {args.runs}"
            for (label, n), runs in got.items():
                keys = ("first", "first_mean", "up_mean", *PHASES, "wall")
                table.add_row(label, str(n), *[median_row(runs, k) for k in keys])
            console.print(table)
            counts = args.devices or [2, 8]
            for label in trees:
                for n in counts[1:]:  # run by run (alternated, so the same drift), then the median
                    ratios = sorted(
                        a["wall"] / b["wall"] for a, b in zip(got[(label, counts[0])], got[(label, n)], strict=True)
                    )
                    console.print(
                        f"{label}: {n} devices against {counts[0]}, walls from the command's start: "
                        f"{statistics.median(ratios):.2f}x (runs: {', '.join(f'{r:.2f}' for r in ratios)})"
                    )
        else:
            table = Table("tree", "devices", "episodes", *[f"device {k} MB" for k in MEMORY], "zygote PSS / RSS MB")
            table.title = "device processes' memory (smaps_rollup) after the episodes, clock-alarm, virtual clock"
            for _ in range(args.runs):
                for n in args.devices or [2, 4]:
                    for label, tree in trees.items():
                        readings = memory_run(tree, n, args.episodes, out, args.interval)
                        if not readings:
                            table.add_row(label, str(n), "no reading")
                            continue
                        for m in (readings["first"], readings["last"]):
                            cols = [" / ".join(f"{d[k] / 1024:.0f}" for d in m["devices"]) for k in MEMORY]
                            z = m["zygote"]
                            zc = f"{z['Pss'] / 1024:.0f} / {z['Rss'] / 1024:.0f}" if z else "-"
                            table.add_row(label, str(n), str(m["episodes"]), *cols, zc)
            console.print(table)
    console.print(
        f"load average at the start {load0[0]:.2f}, at the end {os.getloadavg()[0]:.2f}; {os.cpu_count()} cores"
    )


if __name__ == "__main__":
    main()
