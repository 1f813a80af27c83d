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
                          [--cpu-affinity auto off]
                          [--repeat K]   (K rounds, each running every device count once, so a shared VM's drift
                                        falls on all of them alike: the median run is shown with the range of walls,
                                        the speed-up is the median of the rounds' ratios, with their range)

`--cpu-affinity auto off` also runs every process configuration with its devices left unpinned (`process off`),
side by side in the same rounds: by default (`auto`) a pool with at least one `instant` device per core pins each
device process to a core of its own (harness.run.fleet.affinity).

The machine's own ceiling (instant, unless `--no-ceiling`): as many separate 1-device runs as there are cores,
started at the same moment, each its own process with its own harness, adb server and device (nothing shared but
the machine), gives the most this machine can do for this very workload; `speed-up` on `cores` devices is printed
beside it as a fraction of it. On a shared VM whose second core does not give a full core's work, that ceiling,
not the harness, is what bounds the instant figures. It is a generous ceiling: each separate run does the whole
suite, so its start-up and its last episode weigh on twice the episodes a device of the `cores`-device run does
(~0.8 s of ~10 s on 2 cores).

Start-up is part of every figure: with PYTHONDONTWRITEBYTECODE set (or an unwritable tree) each device process
compiles its modules from source, ~0.5 s more before the first episode; the bench says so when it is set. Where the
start-up goes is printed below the table, for the median run of each configuration, from the run's own records
(manifest.json `devices[i].startup`, episode.json `reset_seconds` and `started`): when the devices were handed out
(`up`, from the pool's start), the mean of each phase of a device's start (waiting for a boot slot, its spawn -
the zygote's start and warm-up, the fork -, its boot, connecting it, its preparation, waiting for uiautomator2
and the kept shell), each device's first reset, when the first episodes started, and the speed-up with each run
timed from its first episode instead (what start-up costs the speed-up is the difference). The CLI's own imports,
which `droidharness run` pays before all of it and the figures leave out, are timed once in a fresh interpreter.
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import subprocess
import sys
import tempfile
import time
from datetime import datetime
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from rich.console import Console  # noqa: E402
from rich.table import Table  # noqa: E402

from harness.run.fleet.affinity import CPU_AFFINITIES, CpuAffinity  # noqa: E402
from harness.run.fleet.kinds import Isolation  # noqa: E402
from harness.run.orchestration.suite import SuiteOptions, run_suite  # noqa: E402
from harness.trajectory.frames import WriterOptions  # noqa: E402
from harness.trajectory.reader import Run, load_run


def busy_cores() -> tuple[float, float]:
    """(busy, total) CPU seconds of the whole machine so far (Linux /proc/stat; (0, 0) elsewhere)."""
    try:
        fields = [float(x) for x in Path("/proc/stat").read_text().split("\n", 1)[0].split()[1:]]
    except (OSError, ValueError):
        return 0.0, 0.0
    hz = os.sysconf("SC_CLK_TCK")
    idle = fields[3] + (fields[4] if len(fields) > 4 else 0.0)  # idle + iowait
    return (sum(fields) - idle) / hz, sum(fields) / hz


def measure(
    n: int, latency: str, isolation: Isolation, out: Path, frames: str, affinity: CpuAffinity = "auto"
) -> dict[str, float]:
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
            cpu_affinity=affinity,
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
        **startup(run, t0_wall),
        "episodes": eps,
        "wall": wall,
        "per_min": 60 * eps / wall,
        "first": (min(starts) - t0_wall) if starts else float("nan"),  # the first episode's start, from the command's
        "sr": res.sr or 0.0,
        "cores_busy": (b1 - b0) / wall,  # machine-wide: the harness, its devices and anything else running
    }


STARTUP_SHOWN = ("queued", "spawn", "boot", "connect", "prepare", "link")  # backend.STARTUP_PHASES but `up`


def startup(run: Run, t0_wall: float) -> dict[str, float]:
    """Where a run's start-up went, from its records: `up_first` / `up_mean` / `up_last` (when the pool handed the
    devices out, from its start), the mean of each phase in `STARTUP_SHOWN` over the devices that went through it,
    `reset` (the mean of each device's first reset) and `first_mean` (each device's first episode's start, from the
    command's start, averaged)."""
    rows = [d.get("startup") or {} for d in run.manifest.devices] if run.manifest else []
    ups = sorted(float(r["up"]) for r in rows if "up" in r)
    out: dict[str, float] = {}
    if ups:
        out.update(up_first=ups[0], up_mean=sum(ups) / len(ups), up_last=ups[-1])
    for phase in STARTUP_SHOWN:
        got = [float(r[phase]) for r in rows if phase in r]
        if got:
            out[phase] = sum(got) / len(got)
    first: dict[str, tuple[float, float]] = {}  # device -> (its first episode's start, that episode's reset)
    for e in run.episodes.values():
        m = e.meta
        if m is None or not m.started:
            continue
        at, serial = datetime.fromisoformat(m.started).timestamp() - t0_wall, str(m.device.get("serial", ""))
        if serial not in first or at < first[serial][0]:
            first[serial] = (at, m.reset_seconds or 0.0)
    if first:
        out["reset"] = sum(r for _, r in first.values()) / len(first)
        out["first_mean"] = sum(a for a, _ in first.values()) / len(first)
    return out


def startup_line(label: str, m: dict[str, float]) -> str:
    """One configuration's start-up (`startup`) on one line."""
    if "up_mean" not in m:
        return f"{label}: no start-up recorded"
    phases = ", ".join(f"{p} {m[p]:.2f}" for p in STARTUP_SHOWN if p in m)
    return (
        f"{label}: devices up at {m['up_first']:.2f}-{m['up_last']:.2f} s (mean {m['up_mean']:.2f}); a device's "
        f"start, mean s: {phases}; first reset {m.get('reset', float('nan')):.2f}; first episodes from "
        f"{m['first']:.2f} s (mean {m.get('first_mean', float('nan')):.2f})"
    )


def cli_imports() -> float:
    """Seconds a fresh interpreter takes to import what `droidharness run` imports before its run starts."""
    code = "import harness.cli.main, harness.run.orchestration.suite"
    t0 = time.perf_counter()
    subprocess.run([sys.executable, "-c", code], check=True, cwd=Path(__file__).resolve().parents[1])
    return time.perf_counter() - t0


def separate_runs(k: int, latency: str, isolation: Isolation, out: Path, frames: str) -> list[float]:
    """The walls of `k` 1-device runs started at the same moment, each in its own process (its own harness, adb
    server and device): each child imports first, then all are told to go at once."""
    cmd = [sys.executable, str(Path(__file__).resolve()), "--solo", latency, "--isolation", isolation]
    cmd += ["--frames", frames, "--out", str(out)]
    kids = [subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True) for _ in range(k)]
    try:
        for kid in kids:
            assert kid.stdout is not None
            if kid.stdout.readline().strip() != "ready":
                raise RuntimeError(f"a separate run did not start: {cmd}")
        for kid in kids:
            assert kid.stdin is not None
            kid.stdin.write("go\n")
            kid.stdin.flush()
        walls = []
        for kid in kids:
            assert kid.stdout is not None
            walls.append(float(json.loads(kid.stdout.readline())["wall"]))
        return walls
    except BaseException:
        for kid in kids:  # the others may still wait for their go: end them rather than wait on them
            kid.terminate()
        raise
    finally:
        for kid in kids:
            kid.wait(timeout=600)


def solo(latency: str, isolation: Isolation, out: Path, frames: str) -> None:
    """One separate 1-device run for `separate_runs`: ready once imported, timed from the parent's go."""
    print("ready", flush=True)
    sys.stdin.readline()
    print(json.dumps(measure(1, latency, isolation, out, frames)), flush=True)


def ceiling_line(
    latency: str, cores: int, rounds: list[dict[tuple[int, str], dict[str, float]]], separate: list[list[float]]
) -> str:
    """The machine's ceiling per round (`cores` x the 1-device wall over the slowest of the separate runs) and
    the `cores`-device process run's speed-up as a fraction of it, medians over the rounds."""
    per_round = [  # (the cores-device speed-up, the ceiling) of each round
        (rd[(1, "process")]["wall"] / rd[(cores, "process")]["wall"], cores * rd[(1, "process")]["wall"] / max(walls))
        for rd, walls in zip(rounds, separate, strict=True)
    ]
    ceil = sorted(c for _, c in per_round)
    frac = sorted(speed / c for speed, c in per_round)
    spread = f" ({ceil[0]:.2f}-{ceil[-1]:.2f})" if len(ceil) > 1 else ""
    return (
        f"machine ceiling, {latency}: {cores} separate whole-suite 1-device runs started at once (each its own "
        f"harness, adb server and device) give {ceil[len(ceil) // 2]:.2f}x{spread} one run's throughput; {cores} "
        f"devices of one harness (process) reach {frac[len(frac) // 2]:.2f} of that"
    )


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--devices", type=int, nargs="+", default=[1, 2, 4, 8])
    ap.add_argument("--latency", nargs="+", default=["pixel", "instant"], choices=["pixel", "instant"])
    ap.add_argument("--isolation", nargs="+", default=["process", "thread"], choices=["process", "thread"])
    ap.add_argument("--frames", default="png", choices=["webp", "png"])
    ap.add_argument(
        "--cpu-affinity",
        nargs="+",
        default=["auto"],
        choices=CPU_AFFINITIES,
        help="process devices pinned to cores (auto, on, off); several: each side by side (`process off`)",
    )
    ap.add_argument(
        "--repeat",
        type=int,
        default=1,
        help="rounds of every configuration; medians shown (a shared VM's speed varies)",
    )
    ap.add_argument(
        "--no-ceiling", action="store_true", help="skip the machine's ceiling (separate 1-device runs at once)"
    )
    ap.add_argument("--solo", choices=["pixel", "instant"], help=argparse.SUPPRESS)  # one of separate_runs' runs
    ap.add_argument("--out", type=Path, help=argparse.SUPPRESS)
    args = ap.parse_args()
    logging.disable(logging.WARNING)
    if args.solo:
        solo(args.solo, args.isolation[0], args.out, args.frames)
        return
    cores = os.cpu_count() or 1
    # the configurations side by side: thread devices, and process devices under each --cpu-affinity
    kinds: dict[str, tuple[Isolation, CpuAffinity]] = {}
    for iso in args.isolation:
        affinities: list[CpuAffinity] = args.cpu_affinity if iso == "process" else ["auto"]
        for aff in affinities:
            kinds[iso if aff == "auto" else f"{iso} {aff}"] = (iso, aff)
    ceilings: list[str] = []
    startups: list[str] = []
    console = Console(width=200)
    table = Table(
        "latency",
        "devices",
        *[
            f"{kind} {col}"
            for kind in kinds
            for col in ("wall s", "eps/min", "speed-up", "x target", "cores busy", "1st episode s")
        ],
        title=f"suite throughput, reference agent, 36 English tasks, frames={args.frames}, {cores} cores",
    )
    with tempfile.TemporaryDirectory() as tmp:
        for latency in args.latency:
            # rounds: every device count once per round, so a shared VM's drift over minutes falls on all of them
            # alike; each speed-up is the median of the per-round ratios against that round's 1-device run
            rounds: list[dict[tuple[int, str], dict[str, float]]] = []
            # the machine's ceiling: `cores` separate 1-device runs at once, against this round's 1-device run
            ceiling = (
                latency == "instant" and not args.no_ceiling and "process" in kinds and {1, cores} <= set(args.devices)
            )
            separate: list[list[float]] = []
            for r in range(max(1, args.repeat)):
                rounds.append(
                    {
                        (n, kind): measure(n, latency, iso, Path(tmp), args.frames, aff)
                        for n in args.devices
                        for kind, (iso, aff) in kinds.items()
                    }
                )
                if ceiling:
                    separate.append(separate_runs(cores, latency, "process", Path(tmp), args.frames))
                console.print(f"{latency} round {r + 1} done", style="dim")
            if ceiling:
                ceilings.append(ceiling_line(latency, cores, rounds, separate))
            base = args.devices[0]
            for n in args.devices:
                row = [latency, str(n)]
                for kind in kinds:
                    runs = sorted((rd[(n, kind)] for rd in rounds), key=lambda m: m["wall"])
                    m = runs[len(runs) // 2]  # the median run by wall time
                    speeds = sorted(rd[(n, kind)]["per_min"] / rd[(base, kind)]["per_min"] for rd in rounds)
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
                    line = startup_line(f"{latency} {n} {kind}", m)
                    if base == 1 and n != base:  # the same rounds' ratio with each run's start-up left out
                        after = sorted(
                            (rd[(base, kind)]["wall"] - rd[(base, kind)]["first"])
                            / (rd[(n, kind)]["wall"] - rd[(n, kind)]["first"])
                            for rd in rounds
                        )
                        line += f"; speed-up from the first episode on {after[len(after) // 2]:.2f}x"
                    startups.append(line)
                table.add_row(*row)
    console.print(table)
    for line in ceilings:
        console.print(line)
    console.print("start-up (the median run of each; seconds from the command's start):")
    for line in startups:
        console.print(f"  {line}", highlight=False, soft_wrap=True)
    imports = cli_imports()
    console.print(f"  the CLI's imports before a run starts (not in the figures): {imports:.2f} s", highlight=False)
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
