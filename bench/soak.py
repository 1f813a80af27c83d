"""Long runs leak nothing (issue 39): memory, open files and threads of the harness and of every device process
over thousands of episodes, on each device clock in turn.

For each clock in turn (`--clock real virtual`, passed to the run as `--clock`), one `droidharness run` per
`--families` family (`droidharness tasks families`) with the `reference` agent (no model), both languages,
`--devices K` embedded devices (each its own process, forked by the device zygote), no report: `--episodes` shared
out among the families. A family's run is its instances as `run --family F --instances N` draws them (seed 0's, the
same ids), written as a suite folder by the family generator and continued over the next seeds, since `--family`
can run no more instances than the family has (weather-city-unit has 12, clock-timer 234): a family with fewer
than its share repeats its parameters under the next seed's ids. A run of one family does the same kind of work
all along, so after its warm-up a rise is growth. With `--mixed`, one run of all the families instead (ids
interleaved): one harness process and its devices live through every episode, but several devices take the
longest episodes first (`harness.run.orchestration.suite.longest_first`), which groups the families, so a
family's first screens come late in the run and show as a rise.

While the run goes on, every `--sample-interval` seconds (Linux /proc): RSS and PSS (/proc/PID/smaps_rollup),
open file descriptors (/proc/PID/fd) and threads (/proc/PID/status) of
- the harness (the `droidharness run` process),
- the device zygote and the device processes (the harness's descendants, told apart by their command line: a
  zygote's forked child is a device),
- the run's private adb server (it daemonizes, so it is no descendant: found by its record in the state
  directory, `adb-servers/<port>.json`, whose owner is the harness),
and the episodes finished so far (the run directory's episode.json files). A kind with several processes (the
devices) is summed: PSS adds up to the memory they really take.

After the warm-up (the first `--warmup` fraction of the episodes), and until the last episode finished (then the
run reads itself back for its summary: that peak is shown apart, as the harness's PSS after the episodes), a line is
fitted to each figure against the episodes finished (numpy.polyfit): its slope per 100 episodes. GROWS: RSS or
PSS rising more than 1 MB per 100 episodes; open fds or threads whose floor rises (the fewest seen in the last
quarter of the samples after the warm-up above the fewest in the first quarter: a transient socket or worker comes
and goes, a leak stays). Prints a table per clock side by side (with a run per family, each figure as the run where
it grew most); no asserts. What the processes remember across episodes, and its bounds: docs/caches.md. The run's
devices write how full their caches are (`DROIDHARNESS_CACHE_FILL`, emulator.virtual.cachefill): a last table shows,
per device, those that changed after the warm-up (a bounded cache still filling, against a leak).

    python bench/soak.py [--episodes 2000] [--devices 2] [--clock real virtual] [--families F ...] [--mixed]
                         [--out DIR] [--sample-interval 1.5] [--warmup 0.1] [--latency instant]

`--out DIR` keeps the run directories, each run's output (`<run>.log`) and the samples (`soak.json`); without it
they go to a temporary directory removed at the end. `--clock virtual` needs a `droidharness run` that has
`--clock` (asked of `run --help`); without it the soak says so and runs nothing.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import random
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import numpy as np  # noqa: E402
from rich.console import Console  # noqa: E402
from rich.table import Table  # noqa: E402

from emulator.virtual.cachefill import ENV as FILL_ENV  # noqa: E402
from emulator.virtual.statedir import state_subdir  # noqa: E402
from tasks.families.base import MAX_REDRAWS, make_task, task_json  # noqa: E402
from tasks.families.registry import FAMILIES, get_family  # noqa: E402
from tasks.schema import Task  # noqa: E402

KINDS = ("harness", "zygote", "device", "adb server")
METRICS = ("rss", "pss", "fds", "threads")
MB_PER_100 = 1.0  # tolerance: RSS / PSS rising more than this many MB per 100 episodes GROWS
HARNESS = [sys.executable, "-m", "harness"]  # `droidharness` of this checkout, whatever is on PATH


def run_has_clock() -> bool:
    """Whether `droidharness run` takes `--clock` (asked of its --help, not assumed)."""
    env = {**os.environ, "COLUMNS": "200", "NO_COLOR": "1"}
    out = subprocess.run([*HARNESS, "run", "--help"], capture_output=True, text=True, env=env, timeout=120)
    return "--clock" in out.stdout


def family_instances(name: str, count: int) -> list[Task]:
    """`count` tasks of the family `name`: seed 0's distinct instances, then seed 1's, ... (the family generator's
    own draw, `tasks.families.base.instantiate`, continued over seeds when one seed's are used up)."""
    fam = get_family(name)
    tasks: list[Task] = []
    seed = 0
    while len(tasks) < count:
        rng = random.Random(f"{name}:{seed}")
        seen: list[dict[str, Any]] = []
        while len(tasks) < count:
            for _ in range(MAX_REDRAWS):
                values = fam.draw(rng)
                if values not in seen:
                    break
            else:
                break  # this seed has no new instance left: the next seed's
            seen.append(values)
            tasks.append(make_task(fam, values, seed, len(seen) - 1))
        seed += 1
    return tasks


def write_suites(families: list[str], episodes: int, langs: int, folder: Path, mixed: bool) -> dict[str, Path]:
    """Task files for about `episodes` episodes (`langs` a task) shared out among the families: a suite folder per
    family, or with `mixed` one of them all, interleaved (ids prefixed by their place in a round-robin over the
    families). Returns the suites by name (a family's, or "mixed")."""
    per_family = max(1, math.ceil(episodes / (langs * len(families))))
    queues = {f: family_instances(f, per_family) for f in families}
    suites = {"mixed": folder / "mixed"} if mixed else {f: folder / f for f in families}
    for d in suites.values():
        d.mkdir(parents=True, exist_ok=True)
    n = 0
    for i in range(per_family):
        for f in families:
            task = queues[f][i]
            if mixed:
                task = task.model_copy(update={"id": f"{n:05d}-{task.id}"})
            (suites["mixed" if mixed else f] / f"{task.id}.json").write_text(task_json(task), encoding="utf-8")
            n += 1
    return suites


def proc_table() -> dict[int, tuple[int, list[str]]]:
    """pid -> (parent pid, command line) of every process (Linux /proc)."""
    out: dict[int, tuple[int, list[str]]] = {}
    for d in Path("/proc").iterdir():
        if not d.name.isdigit():
            continue
        try:
            stat = (d / "stat").read_text()
            cmd = (d / "cmdline").read_bytes().decode(errors="replace").split("\0")
        except OSError:
            continue
        out[int(d.name)] = (int(stat.rsplit(")", 1)[1].split()[1]), cmd)
    return out


def descendants(root: int, table: dict[int, tuple[int, list[str]]]) -> Iterator[int]:
    children: dict[int, list[int]] = {}
    for pid, (ppid, _) in table.items():
        children.setdefault(ppid, []).append(pid)
    todo = list(children.get(root, []))
    while todo:
        pid = todo.pop()
        yield pid
        todo += children.get(pid, [])


def adb_servers(owner: int) -> list[int]:
    """The pids of the private adb servers whose records name `owner` (emulator.virtual.adbserver)."""
    pids = []
    for rec in state_subdir("adb-servers").glob("*.json"):
        try:
            data = json.loads(rec.read_text())
        except (OSError, ValueError):
            continue
        if data.get("owner") == owner and isinstance(data.get("pid"), int):
            pids.append(data["pid"])
    return pids


def process_kinds(harness: int) -> dict[int, str]:
    """pid -> kind of the harness, its device processes and its adb server; other descendants (an `adb` command
    the harness runs) are left out."""
    table = proc_table()
    kinds = {harness: "harness"}
    for pid in descendants(harness, table):
        ppid, cmd = table[pid]
        line = " ".join(cmd)
        if "emulator.virtual.zygote" in line:
            parent = " ".join(table.get(ppid, (0, []))[1])
            kinds[pid] = "device" if "emulator.virtual.zygote" in parent else "zygote"
        elif "emulator.virtual" in line:
            kinds[pid] = "device"
    kinds.update({pid: "adb server" for pid in adb_servers(harness) if pid in table})
    return kinds


def measure(pid: int) -> dict[str, int] | None:
    """RSS and PSS (kB), open fds and threads of `pid`; None when it is gone."""
    try:
        fields = dict(
            line.split(":", 1) for line in Path(f"/proc/{pid}/smaps_rollup").read_text().splitlines() if ":" in line
        )
        status = dict(
            line.split(":", 1) for line in Path(f"/proc/{pid}/status").read_text().splitlines() if ":" in line
        )
        fds = len(os.listdir(f"/proc/{pid}/fd"))
    except (OSError, ValueError):
        return None
    return {
        "rss": int(fields["Rss"].split()[0]),
        "pss": int(fields["Pss"].split()[0]),
        "fds": fds,
        "threads": int(status["Threads"]),
    }


def cache_fill(fill_dir: Path, pid: int) -> dict[str, list[int]] | None:
    """The device process `pid`'s latest `{cache: [size, bound]}` (emulator.virtual.cachefill), if it wrote one."""
    try:
        return json.loads((fill_dir / f"{pid}.json").read_text())
    except (OSError, ValueError):
        return None


def episodes_done(run_dir: Path, done: set[str]) -> int:
    """Episodes of `run_dir` with their episode.json (written last); `done` caches those already seen."""
    try:
        names = os.listdir(run_dir / "episodes")
    except OSError:
        return len(done)
    for name in names:
        if name not in done and (run_dir / "episodes" / name / "episode.json").exists():
            done.add(name)
    return len(done)


def soak(
    clock: str, pass_clock: bool, name: str, suite: Path, args: argparse.Namespace, console: Console
) -> dict[str, Any]:
    """One run of the suite `name` on `clock`, sampled until it ends: {clock, suite, command, rc, wall, episodes,
    samples}."""
    run_id = f"soak-{clock}-{name}-{time.strftime('%Y%m%d-%H%M%S')}"
    cmd = [*HARNESS, "run", "--suite", str(suite), "--agent", "reference", "--lang", "all"]
    cmd += ["--devices", str(args.devices), "--latency", args.latency, "--no-report"]
    cmd += ["--out", str(args.out), "--run-id", run_id, *(["--clock", clock] if pass_clock else [])]
    run_dir = args.out / run_id
    fill_dir = args.out / f"{run_id}.caches"  # each device process' cache fill (emulator.virtual.cachefill)
    fill_dir.mkdir()
    samples: list[dict[str, Any]] = []
    done: set[str] = set()
    t0 = last_note = time.monotonic()
    with open(args.out / f"{run_id}.log", "wb") as log:
        env = {**os.environ, FILL_ENV: str(fill_dir)}
        proc = subprocess.Popen(cmd, stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, env=env)
        try:
            while proc.poll() is None:
                procs = []
                for pid, kind in process_kinds(proc.pid).items():
                    m = measure(pid)
                    if m is not None:
                        fill = cache_fill(fill_dir, pid) if kind == "device" else None
                        procs.append({"pid": pid, "kind": kind, **m, **({"caches": fill} if fill else {})})
                eps = episodes_done(run_dir, done)
                samples.append({"t": round(time.monotonic() - t0, 2), "episodes": eps, "procs": procs})
                if time.monotonic() - last_note > 30:
                    console.print(f"{clock} {name}: {eps} episodes, {time.monotonic() - t0:.0f} s", style="dim")
                    last_note = time.monotonic()
                time.sleep(args.sample_interval)
        finally:
            if proc.poll() is None:  # interrupted: the run ends with the soak
                proc.terminate()
            proc.wait()
    wall = time.monotonic() - t0
    return {
        "clock": clock,
        "suite": name,
        "command": cmd,
        "run_dir": str(run_dir),
        "rc": proc.returncode,
        "wall": wall,
        "episodes": episodes_done(run_dir, done),
        "samples": samples,
    }


def series(run: dict[str, Any], kind: str, metric: str, warm: int) -> tuple[list[int], list[float], int]:
    """(episodes, the kind's summed figure) of the samples taken after the warm-up while episodes ran (not once
    the last one finished: the run then reads itself back for its summary) that saw all of the kind's processes
    (the most seen at once), and how many distinct processes of the kind were seen."""
    rows = [[p for p in s["procs"] if p["kind"] == kind] for s in run["samples"]]
    pids = {p["pid"] for r in rows for p in r}
    most = max((len(r) for r in rows), default=0)
    xs, ys = [], []
    for s, r in zip(run["samples"], rows, strict=True):
        if warm <= s["episodes"] < run["episodes"] and r and len(r) == most:
            xs.append(s["episodes"])
            ys.append(float(sum(p[metric] for p in r)))
    return xs, ys, len(pids)


def verdict(metric: str, xs: list[int], ys: list[float]) -> dict[str, Any] | None:
    """start, end, max and slope per 100 episodes of one figure, and whether it grows (None: too few samples)."""
    if len(xs) < 4 or xs[-1] == xs[0]:
        return None
    slope = 100 * float(np.polyfit(np.asarray(xs, float), np.asarray(ys, float), 1)[0])
    if metric in ("rss", "pss"):  # kB
        scale = 1024
        grows = slope / scale > MB_PER_100
    else:  # a count: its floor must not rise
        scale = 1
        q = max(1, len(ys) // 4)
        grows = min(ys[-q:]) > min(ys[:q])
    return {
        "start": ys[0] / scale,
        "end": ys[-1] / scale,
        "max": max(ys) / scale,
        "slope": slope / scale,
        "grows": grows,
    }


def harness_pss(run: dict[str, Any], done: bool) -> float:
    """The harness's largest PSS (MB) while episodes ran (`done` False) or after the last one finished (True)."""
    return max(
        (
            p["pss"] / 1024
            for s in run["samples"]
            if (s["episodes"] >= run["episodes"]) == done
            for p in s["procs"]
            if p["kind"] == "harness"
        ),
        default=float("nan"),
    )


def cache_changes(run: dict[str, Any], warm: int) -> dict[str, list[str]]:
    """The device caches (emulator.virtual.cachefill) that changed after the warm-up while episodes ran: cache ->
    one cell per device process (in the order first seen), "size at the first such sample -> at the last / bound"."""
    first: dict[int, dict[str, list[int]]] = {}
    last: dict[int, dict[str, list[int]]] = {}
    for s in run["samples"]:
        if not warm <= s["episodes"] < run["episodes"]:
            continue
        for p in s["procs"]:
            if p["kind"] == "device" and p.get("caches"):
                first.setdefault(p["pid"], p["caches"])
                last[p["pid"]] = p["caches"]
    names = list(dict.fromkeys(n for fills in last.values() for n in fills))
    out: dict[str, list[str]] = {}
    for name in names:
        ends = [(first[pid].get(name), last[pid].get(name)) for pid in last]
        if all(a == b for a, b in ends):
            continue
        mb = name.endswith("bytes")
        out[name] = [
            "-"
            if a is None or b is None
            else (
                f"{a[0] / 2**20:.1f} -> {b[0] / 2**20:.1f} / {b[1] / 2**20:.1f} MB"
                if mb
                else f"{a[0]} -> {b[0]} / {b[1]}"
            )
            + f" ({100 * b[0] / max(1, b[1]):.0f}%)"
            for a, b in ends
        ]
    return out


def report(runs: list[dict[str, Any]], warmup: float, console: Console) -> None:
    runs_table = Table(
        "clock",
        "suite",
        "exit",
        "episodes",
        "wall s",
        "episodes/min",
        "samples",
        "warm-up episodes",
        "harness PSS MB: episodes / after",
        "run directory",
    )
    for r in runs:
        runs_table.add_row(
            r["clock"],
            r["suite"],
            str(r["rc"]),
            str(r["episodes"]),
            f"{r['wall']:.0f}",
            f"{60 * r['episodes'] / r['wall']:.1f}",
            str(len(r["samples"])),
            str(math.ceil(warmup * r["episodes"])),
            " / ".join("-" if math.isnan(x) else f"{x:.0f}" for x in (harness_pss(r, False), harness_pss(r, True))),
            r["run_dir"],
        )
    console.print(runs_table)
    clocks = list(dict.fromkeys(r["clock"] for r in runs))
    several = len(runs) > len(clocks)  # a run per family: each figure is that of the run where it grew most
    cols = ["process", "figure"]
    for clock in clocks:
        cols += [f"{clock} {c}" for c in ("start", "end", "max", "/100 ep", "")]
    title = "after the warm-up: MB (RSS, PSS) or counts (fds, threads); a kind's processes summed"
    table = Table(*cols, title=title + ("; the run where each grew most" if several else ""))
    for kind in KINDS:
        for metric in METRICS:
            row: list[str] = []
            seen = 0
            for clock in clocks:
                worst: tuple[dict[str, Any], str] | None = None
                for r in (r for r in runs if r["clock"] == clock):
                    xs, ys, n = series(r, kind, metric, math.ceil(warmup * r["episodes"]))
                    seen = max(seen, n)
                    v = verdict(metric, xs, ys)
                    if v is not None and (
                        worst is None or (v["grows"], v["slope"]) > (worst[0]["grows"], worst[0]["slope"])
                    ):
                        worst = (v, r["suite"])
                if worst is None:
                    row += ["-"] * 5
                    continue
                v, suite = worst
                fmt = "{:.1f}" if metric in ("rss", "pss") else "{:.0f}"
                row += [fmt.format(v["start"]), fmt.format(v["end"]), fmt.format(v["max"]), f"{v['slope']:+.2f}"]
                row.append(("[red]GROWS[/red]" if v["grows"] else "ok") + (f" ({suite})" if several else ""))
            if seen:
                table.add_row(kind if seen <= 1 else f"{kind} ({seen} processes)", metric, *row)
    console.print(table)
    console.print(
        f"GROWS: RSS / PSS over {MB_PER_100:g} MB per 100 episodes (the slope of a line fitted after the warm-up); "
        "fds / threads: the floor (fewest seen) of the last quarter of the samples after the warm-up above that of "
        "the first quarter. A kind of several processes is their sum ('N processes': the most distinct pids one run "
        "saw; more than --devices: a device was restarted). A forked device's RSS also counts the zygote's pages it "
        "touches; its PSS is what it costs. Harness PSS MB: its peak while episodes ran / after the last one "
        "finished (the run read back for its summary)."
    )
    rows: list[list[str]] = [
        [r["clock"], r["suite"], name, *cells]
        for r in runs
        for name, cells in cache_changes(r, math.ceil(warmup * r["episodes"])).items()
    ]
    if rows:
        title = "device caches that changed after the warm-up (emulator.virtual.cachefill): size -> size / bound"
        devices = [f"device {i + 1}" for i in range(max(map(len, rows)) - 3)]
        fills = Table("clock", "suite", "cache", *devices, title=title)
        for cells in rows:
            fills.add_row(*cells)
        console.print(fills)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--episodes", type=int, default=2000, help="episodes per clock (tasks x 2 languages)")
    ap.add_argument("--devices", type=int, default=2)
    ap.add_argument("--clock", nargs="+", default=["real", "virtual"], choices=["real", "virtual"])
    ap.add_argument("--families", nargs="+", default=list(FAMILIES), choices=list(FAMILIES))
    ap.add_argument("--latency", default="instant", choices=["instant", "pixel"])
    ap.add_argument("--out", type=Path, help="keep the run directories, their logs and soak.json here")
    ap.add_argument("--sample-interval", type=float, default=1.5, help="seconds between samples")
    ap.add_argument("--warmup", type=float, default=0.1, help="fraction of the episodes left out of the fits")
    ap.add_argument(
        "--mixed",
        action="store_true",
        help="one run of all the families instead of one per family (several devices take the longest first)",
    )
    args = ap.parse_args()
    console = Console(width=240)
    if not Path("/proc/self/smaps_rollup").exists():
        sys.exit("soak: needs Linux /proc (smaps_rollup) to sample the processes")
    has_clock = run_has_clock()
    if "virtual" in args.clock and not has_clock:
        print(
            "soak: --clock virtual needs `droidharness run --clock`, which this checkout's run lacks; use --clock real",
            file=sys.stderr,
        )
        sys.exit(2)
    with tempfile.TemporaryDirectory(prefix="soak-") as tmp:
        keep = args.out is not None
        args.out = (args.out or Path(tmp)).resolve()
        args.out.mkdir(parents=True, exist_ok=True)
        suites = write_suites(args.families, args.episodes, 2, args.out / "suites", args.mixed)
        console.print(
            f"{len(list((args.out / 'suites').rglob('*.json')))} tasks x 2 languages of {len(args.families)} families "
            f"({'one run' if args.mixed else 'a run each'}), {args.devices} devices, clocks {', '.join(args.clock)}, "
            f"a sample every {args.sample_interval:g} s",
            style="dim",
        )
        runs = [
            soak(clock, has_clock, name, suite, args, console) for clock in args.clock for name, suite in suites.items()
        ]
        if keep:
            (args.out / "soak.json").write_text(json.dumps({"warmup": args.warmup, "runs": runs}))
        report(runs, args.warmup, console)
        if keep:
            console.print(f"samples: {args.out / 'soak.json'}")


if __name__ == "__main__":
    main()
