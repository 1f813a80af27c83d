"""Suite throughput as embedded devices are added: episodes per minute for 1, 2, 4 and 8 devices, each device its
own process (`--devices N`'s default) and, for comparison, threads of the harness process.

The 36 English tasks of the bundled `virtual` suite with the `reference` agent (no model), on the `pixel` latency
profile (device calls take a phone's time, so devices mostly wait) and on `instant` (pure CPU: bounded by the
cores). Timed from the command's start, as `droidharness run --devices N` does it: its own pool, the devices
started together, the first episode on the first device up; the speed-up is against 1 device of the same kind.
Targets (issues 14, 20): >= 0.8 x N on `pixel` up to 8 devices, >= 0.8 x min(N, cores) on `instant`. The
devices' JPEG screenshots are stored as sent (no encoding in the harness); `--frames` only matters for screens
that come as pixels. Prints figures; no asserts.

    python bench/scale.py [--devices 1 2 4 8] [--latency pixel instant] [--isolation process thread] [--frames webp]
                          [--repeat K]   (K rounds, each running every device count once, so a shared VM's drift
                                        falls on all of them alike: the median run is shown with the range of walls,
                                        the speed-up is the median of the rounds' ratios, with their range)

Start-up is part of every figure: with PYTHONDONTWRITEBYTECODE set (or an unwritable tree) each device process
compiles its modules from source, ~0.5 s more before the first episode; the bench says so when it is set.
"""

from __future__ import annotations

import argparse
import logging
import os
import sys
import tempfile
import time
from datetime import datetime
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from rich.console import Console  # noqa: E402
from rich.table import Table  # noqa: E402

from harness.run.pool import Isolation  # noqa: E402
from harness.run.suite import SuiteOptions, run_suite  # noqa: E402
from harness.trajectory.frames import WriterOptions  # noqa: E402
from harness.trajectory.records import load_run  # noqa: E402


def busy_cores() -> tuple[float, float]:
    """(busy, total) CPU seconds of the whole machine so far (Linux /proc/stat; (0, 0) elsewhere)."""
    try:
        fields = [float(x) for x in Path("/proc/stat").read_text().split("\n", 1)[0].split()[1:]]
    except (OSError, ValueError):
        return 0.0, 0.0
    hz = os.sysconf("SC_CLK_TCK")
    idle = fields[3] + (fields[4] if len(fields) > 4 else 0.0)  # idle + iowait
    return (sum(fields) - idle) / hz, sum(fields) / hz


def measure(n: int, latency: str, isolation: Isolation, out: Path, frames: str) -> dict[str, float]:
    """One `droidharness run --devices n` as the command does it (its own pool, devices started together, the
    first episode on the first device up), timed from the command's start."""
    t0_wall, t0 = time.time(), time.perf_counter()
    b0, _ = busy_cores()
    res = run_suite(
        SuiteOptions(
            agent="reference",
            langs=("en",),
            devices=n,
            isolation=isolation,
            latency=latency,
            out=out,
            run_id=f"scale-{latency}-{isolation}-{n}-{time.time_ns()}",
            report=False,
            writer=WriterOptions(frames=frames),
        )
    )
    wall = time.perf_counter() - t0
    b1, _ = busy_cores()
    eps = len(res.results)
    run = load_run(res.run_dir)
    starts = [
        datetime.fromisoformat(e.meta.started).timestamp() for e in run.episodes.values() if e.meta and e.meta.started
    ]
    return {
        "episodes": eps,
        "wall": wall,
        "per_min": 60 * eps / wall,
        "first": (min(starts) - t0_wall) if starts else float("nan"),  # the first episode's start, from the command's
        "sr": res.sr or 0.0,
        "cores_busy": (b1 - b0) / wall,  # machine-wide: the harness, its devices and anything else running
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--devices", type=int, nargs="+", default=[1, 2, 4, 8])
    ap.add_argument("--latency", nargs="+", default=["pixel", "instant"], choices=["pixel", "instant"])
    ap.add_argument("--isolation", nargs="+", default=["process", "thread"], choices=["process", "thread"])
    ap.add_argument("--frames", default="png", choices=["webp", "png"])
    ap.add_argument(
        "--repeat",
        type=int,
        default=1,
        help="rounds of every configuration; medians shown (a shared VM's speed varies)",
    )
    args = ap.parse_args()
    logging.disable(logging.WARNING)
    cores = os.cpu_count() or 1
    console = Console(width=200)
    table = Table(
        "latency",
        "devices",
        *[
            f"{iso} {col}"
            for iso in args.isolation
            for col in ("wall s", "eps/min", "speed-up", "x target", "cores busy", "1st episode s")
        ],
        title=f"suite throughput, reference agent, 36 English tasks, frames={args.frames}, {cores} cores",
    )
    with tempfile.TemporaryDirectory() as tmp:
        for latency in args.latency:
            # rounds: every device count once per round, so a shared VM's drift over minutes falls on all of them
            # alike; each speed-up is the median of the per-round ratios against that round's 1-device run
            rounds: list[dict[tuple[int, str], dict[str, float]]] = []
            for r in range(max(1, args.repeat)):
                rounds.append(
                    {
                        (n, iso): measure(n, latency, iso, Path(tmp), args.frames)
                        for n in args.devices
                        for iso in args.isolation
                    }
                )
                console.print(f"{latency} round {r + 1} done", style="dim")
            base = args.devices[0]
            for n in args.devices:
                row = [latency, str(n)]
                for iso in args.isolation:
                    runs = sorted((rd[(n, iso)] for rd in rounds), key=lambda m: m["wall"])
                    m = runs[len(runs) // 2]  # the median run by wall time
                    speeds = sorted(rd[(n, iso)]["per_min"] / rd[(base, iso)]["per_min"] for rd in rounds)
                    speed = speeds[len(speeds) // 2] if base == 1 else float("nan")
                    target = 0.8 * (n if latency == "pixel" else min(n, cores))
                    spread = f" ({runs[0]['wall']:.1f}-{runs[-1]['wall']:.1f})" if len(runs) > 1 else ""
                    sspread = f" ({speeds[0]:.2f}-{speeds[-1]:.2f})" if len(speeds) > 1 and n != base else ""
                    row += [
                        f"{m['wall']:.1f}{spread}",
                        f"{m['per_min']:.1f}",
                        f"{speed:.2f}x{sspread}",
                        f"{speed / target:.2f}" if target else "-",
                        f"{m['cores_busy']:.2f}",
                        f"{m['first']:.1f}",
                    ]
                    if m["sr"] < 1.0:
                        row[-1] += f" (SR {m['sr']:.0%})"
                table.add_row(*row)
    console.print(table)
    if sys.flags.dont_write_bytecode:
        console.print(
            "note: PYTHONDONTWRITEBYTECODE is set: every device process compiled its modules from source at start-up",
            style="yellow",
        )
    console.print(
        "every figure from the command's start (device start-up counts); 1st episode s: when the first episode "
        "started. speed-up: episodes/min over 1 device of the same kind; x target: speed-up / (0.8 x N) on pixel, "
        "/ (0.8 x min(N, cores)) on instant (>= 1.00 meets it); cores busy: machine-wide CPU seconds per wall "
        "second during the suite (the ceiling is the number of cores)"
    )


if __name__ == "__main__":
    main()
