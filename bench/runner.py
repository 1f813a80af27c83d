"""Runner throughput: steps per second and harness overhead per step, for 1 and 4 embedded devices.

Harness overhead per step = the step's wall time minus agent time and device time (actuation, settle, capture):
milestone checks, recording hand-off, bookkeeping. Per-episode setup (start state) is reported separately.
Runs the bundled `virtual` suite with the `reference` agent (no model), both languages. Prints figures; no asserts.

    python bench/runner.py [--devices 1 4] [--latency instant]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from rich.console import Console  # noqa: E402
from rich.table import Table  # noqa: E402

from harness.run.orchestration.suite import SuiteOptions, run_suite  # noqa: E402
from harness.trajectory.frames import WriterOptions  # noqa: E402
from harness.trajectory.reader import load_run


def pct(xs: list[float], q: float) -> float:
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(q * len(xs)))] if xs else 0.0


def measure(devices: int, latency: str, out: Path, frames: str) -> dict[str, float]:
    t0 = time.perf_counter()
    res = run_suite(
        SuiteOptions(
            agent="reference",
            devices=devices,
            latency=latency,
            out=out,
            run_id=f"bench-{devices}-{latency}-{frames}",
            report=False,
            writer=WriterOptions(frames=frames),
        )
    )
    wall = time.perf_counter() - t0
    run = load_run(res.run_dir)
    steps = [s for ep in run.episodes.values() for s in ep.steps]
    over = []
    for s in steps:
        t = s.timings
        device = (t.actuation or 0) + (t.settle or 0) + (t.capture or 0)
        over.append(max(0.0, (t.total or 0) - (t.agent or 0) - device))
    ep_wall = [ep.meta.timings.get("wall", 0.0) for ep in run.episodes.values() if ep.meta]
    ep_steps = [sum((s.timings.total or 0) for s in ep.steps) for ep in run.episodes.values()]
    setup = [w - s for w, s in zip(ep_wall, ep_steps, strict=False)]  # unfinished episodes have no wall time
    return {
        "episodes": len(run.episodes),
        "steps": len(steps),
        "wall": wall,
        "steps_per_s": len(steps) / wall,
        "sr": res.sr if res.sr is not None else float("nan"),  # nothing scored
        "overhead_mean_ms": 1000 * statistics.mean(over),
        "overhead_p95_ms": 1000 * pct(over, 0.95),
        "device_ms": 1000
        * statistics.mean(
            (s.timings.actuation or 0) + (s.timings.settle or 0) + (s.timings.capture or 0) for s in steps
        ),
        "step_ms": 1000 * statistics.mean(s.timings.total or 0 for s in steps),
        "setup_ms": 1000 * statistics.mean(setup) if setup else 0.0,
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--devices", type=int, nargs="+", default=[1, 4])
    ap.add_argument("--latency", default="instant", choices=["instant", "pixel"])
    ap.add_argument("--frames", nargs="+", default=["webp", "png"], choices=["webp", "png"])
    args = ap.parse_args()
    console = Console(width=200)
    table = Table(
        "devices",
        "frames",
        "episodes",
        "steps",
        "wall s",
        "steps/s",
        "SR",
        "step ms",
        "device ms",
        "overhead ms (mean)",
        "overhead ms (p95)",
        "overhead %",
        "episode setup ms",
        title=f"runner, reference agent, virtual suite, latency={args.latency}",
    )
    with tempfile.TemporaryDirectory() as tmp:
        for n in args.devices:
            for frames in args.frames:
                m = measure(n, args.latency, Path(tmp), frames)
                table.add_row(
                    str(n),
                    frames,
                    str(m["episodes"]),
                    str(m["steps"]),
                    f"{m['wall']:.1f}",
                    f"{m['steps_per_s']:.1f}",
                    f"{m['sr']:.0%}",
                    f"{m['step_ms']:.1f}",
                    f"{m['device_ms']:.1f}",
                    f"{m['overhead_mean_ms']:.2f}",
                    f"{m['overhead_p95_ms']:.2f}",
                    f"{100 * m['overhead_mean_ms'] / m['step_ms']:.1f}%",
                    f"{m['setup_ms']:.0f}",
                )
    console.print(table)


if __name__ == "__main__":
    main()
