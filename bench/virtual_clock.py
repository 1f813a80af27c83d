"""Faster than real time: the same work on the device's real clock and on its virtual clock, side by side.

    python bench/virtual_clock.py [--envs 1 2 4 8] [--gym-steps 150] [--latency instant pixel] [--no-gym]
                                  [--no-suite] [--no-memory] [--devices-memory 4] [--keep DIR]

1. Gymnasium: a random policy (docs/gym.md's: CLICK an element, SCROLL up or down, BACK) in
   `droidharness/Task-v0` over the bundled suite's English tasks, one env and `AsyncVectorEnv` of 2, 4 and 8
   (each sub-env a process with its own embedded device), `--gym-steps` steps per env. Steps/s
   are timed from before the first env is made (start-up counts) to the last step, and given per core of this
   machine as well.
2. The bundled suite: `droidharness run --agent reference --devices 1` (72 episodes, en and zh) on the `instant`
   and `pixel` latency profiles, each on both clocks; episodes/min timed from the command's start.
   Then, from the same runs, each step's `device` seconds (from its action's start to its observation captured)
   on either clock, step by step: per action type the median on each clock and their ratio, the share of the
   steps that wait at all (the virtual clock counts > 0.01 s) whose virtual seconds are 70%-110% of the real
   ones, and how many steps the virtual clock counts above the real one (the real clock also counts the
   harness's CPU time, so the virtual one should stay below it).
3. Memory per embedded device: PSS (and RSS) of each device process of a pool of `--devices-memory` devices,
   on both clocks, after one episode each.

On `virtual`, a device's waits (gesture durations, the latency profile's delays, WAIT actions, settle pauses)
advance its clock instead of sleeping (emulator/virtual/clock.py). Prints figures and the ratios; no asserts.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
from collections import defaultdict
from functools import partial
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from rich.console import Console  # noqa: E402
from rich.table import Table  # noqa: E402

CLOCKS = ("real", "virtual")
REPO = Path(__file__).resolve().parent.parent
CLI = str(Path(sys.executable).with_name("droidharness"))


# --- 1. the Gymnasium environment ---------------------------------------------------------------------------------
def gym_steps_per_second(envs: int, clock: str, steps: int) -> float:
    """Steps/s of the random policy over `steps` steps of each of `envs` envs (1: a plain env; more:
    AsyncVectorEnv), from the start."""
    import gymnasium

    import harness.gym  # noqa: F401 - registers the id
    from harness.gym.random_policy import random_action as gym_random_action

    rng = random.Random(0)
    t0 = time.perf_counter()
    kw: dict[str, Any] = {"lang": "en", "screen_size": (270, 600), "clock": clock}
    if envs == 1:
        env = gymnasium.make("droidharness/Task-v0", **kw)
        try:
            obs, _ = env.reset(seed=0)
            for _ in range(steps):
                obs, _, terminated, truncated, _ = env.step(gym_random_action(rng, obs["elements"]))
                if terminated or truncated:
                    obs, _ = env.reset()
        finally:
            env.close()
        return steps / (time.perf_counter() - t0)
    make = partial(gymnasium.make, "harness.gym:droidharness/Task-v0", **kw)
    vec = gymnasium.vector.AsyncVectorEnv([make] * envs, context="spawn")
    try:
        obs, _ = vec.reset(seed=list(range(envs)))
        for _ in range(steps):
            obs, *_ = vec.step([gym_random_action(rng, str(e)) for e in obs["elements"]])
    finally:
        vec.close()
    return steps * envs / (time.perf_counter() - t0)


def gym_table(console: Console, env_counts: list[int], steps: int) -> None:
    cores = os.cpu_count() or 1
    t = Table(title=f"Gymnasium, random policy: steps/s from the start ({steps} steps per env; {cores} cores)")
    for col in ("envs", "real", "virtual", "real / core", "virtual / core", "virtual ÷ real"):
        t.add_column(col, justify="right")
    for n in env_counts:
        figures = {c: gym_steps_per_second(n, c, steps) for c in CLOCKS}
        used = min(n, cores)
        t.add_row(
            str(n),
            f"{figures['real']:.1f}",
            f"{figures['virtual']:.1f}",
            f"{figures['real'] / used:.1f}",
            f"{figures['virtual'] / used:.1f}",
            f"{figures['virtual'] / figures['real']:.2f}x",
        )
        console.print(f"  gym {n} env(s): real {figures['real']:.1f}, virtual {figures['virtual']:.1f} steps/s")
    console.print(t)


# --- 2. the bundled suite -----------------------------------------------------------------------------------------
def suite_run(out: Path, clock: str, latency: str) -> tuple[float, int]:
    """(seconds from the command's start, episodes scored) of the reference agent over the bundled suite."""
    run_id = f"suite-{latency}-{clock}"
    cmd = [CLI, "run", "--agent", "reference", "--devices", "1", "--latency", latency, "--clock", clock]
    cmd += ["--no-report", "--out", str(out), "--run-id", run_id]
    t0 = time.perf_counter()
    proc = subprocess.run(cmd, cwd=REPO, capture_output=True, text=True)
    took = time.perf_counter() - t0
    if proc.returncode != 0:
        raise SystemExit(f"{' '.join(cmd)}: exit {proc.returncode}\n{proc.stderr[-2000:]}")
    summary = json.loads((out / run_id / "summary.json").read_text())
    return took, int(summary.get("episodes") or summary.get("scored") or 72)


def step_device_seconds(run_dir: Path) -> dict[tuple[str, str, int], tuple[str, float]]:
    """Per (task, lang, step) of a suite run: the action's type and the step's `device` seconds."""
    from harness.trajectory.reader import load_run

    out = {}
    for ep in load_run(run_dir).episodes.values():
        assert ep.meta is not None, ep.path
        lines = (ep.path / "steps.jsonl").read_text().splitlines()
        for i, step in enumerate(json.loads(line) for line in lines if line):
            out[(ep.meta.task_id, ep.meta.lang, i)] = (step["agent"]["action"]["type"], step["timings"]["device"])
    return out


WAITS = 0.01  # a step whose virtual device seconds are above this waits at all (below: 0.00 or one shell delay)


def device_seconds_rows(real: Path, virtual: Path) -> list[tuple[str, int, float, float, int, int, int]]:
    """Per action type (then `all`): (type, steps, median real s, median virtual s, waiting steps, of them
    within 70%-110%, steps the virtual clock counts above the real one by more than 0.02 s)."""
    r, v = step_device_seconds(real), step_device_seconds(virtual)
    by_type: dict[str, list[tuple[float, float]]] = defaultdict(list)
    for key in sorted(r.keys() & v.keys()):
        by_type[v[key][0]].append((r[key][1], v[key][1]))
        by_type["all"].append((r[key][1], v[key][1]))
    rows = []
    for kind in sorted(by_type, key=lambda k: (k == "all", k)):
        pairs = by_type[kind]
        waiting = [(rd, vd) for rd, vd in pairs if vd > WAITS]
        within = sum(1 for rd, vd in waiting if 0.7 * rd <= vd <= 1.1 * rd)
        above = sum(1 for rd, vd in pairs if round(vd - rd, 2) > 0.02)
        rows.append(
            (
                kind,
                len(pairs),
                statistics.median(rd for rd, _ in pairs),
                statistics.median(vd for _, vd in pairs),
                len(waiting),
                within,
                above,
            )
        )
    return rows


def device_seconds_table(console: Console, runs: dict[str, dict[str, Path]]) -> None:
    t = Table(title="A step's device seconds (action to observation), real clock vs virtual clock, same episodes")
    for col in ("latency", "action", "steps", "real s (median)", "virtual s (median)", "virtual ÷ real"):
        t.add_column(col, justify="right")
    for col in ("waiting steps 70-110%", "virtual > real"):
        t.add_column(col, justify="right")
    for latency, dirs in runs.items():
        for kind, n, rd, vd, waiting, within, above in device_seconds_rows(dirs["real"], dirs["virtual"]):
            ratio = f"{vd / rd:.2f}" if rd > 0 else "-"
            share = f"{within}/{waiting} ({within / waiting:.0%})" if waiting else "-"
            t.add_row(latency, kind, str(n), f"{rd:.2f}", f"{vd:.2f}", ratio, share, str(above))
            if kind == "all":
                console.print(f"  device s {latency}: real {rd:.2f}, virtual {vd:.2f}; within 70-110%: {share}")
    console.print(t)


def suite_table(console: Console, latencies: list[str], out: Path) -> dict[str, dict[str, Path]]:
    """The suite's table; the run directories per latency and clock."""
    t = Table(title="The bundled suite (reference agent, 1 device, en + zh): episodes/min from the command's start")
    for col in ("latency", "real", "virtual", "virtual ÷ real", "real s", "virtual s"):
        t.add_column(col, justify="right")
    dirs: dict[str, dict[str, Path]] = {}
    for latency in latencies:
        runs = {c: suite_run(out, c, latency) for c in CLOCKS}
        dirs[latency] = {c: out / f"suite-{latency}-{c}" for c in CLOCKS}
        rate = {c: runs[c][1] / runs[c][0] * 60 for c in CLOCKS}
        t.add_row(
            latency,
            f"{rate['real']:.0f}",
            f"{rate['virtual']:.0f}",
            f"{rate['virtual'] / rate['real']:.2f}x",
            f"{runs['real'][0]:.1f}",
            f"{runs['virtual'][0]:.1f}",
        )
        console.print(f"  suite {latency}: real {runs['real'][0]:.1f} s, virtual {runs['virtual'][0]:.1f} s")
    console.print(t)
    return dirs


# --- 3. memory per embedded device --------------------------------------------------------------------------------
def memory_kb(pid: int) -> tuple[int, int]:
    """(PSS, RSS) of `pid` in kB (Linux smaps_rollup)."""
    fields: dict[str, int] = {}
    for line in Path(f"/proc/{pid}/smaps_rollup").read_text().splitlines():
        name, _, rest = line.partition(":")
        if name in ("Pss", "Rss"):
            fields[name] = int(rest.split()[0])
    return fields.get("Pss", 0), fields.get("Rss", 0)


def device_memory(clock: str, devices: int) -> list[tuple[int, int]]:
    """(PSS, RSS) kB of each device process of a pool of `devices`, after one episode on each."""
    from harness.run.fleet.pool import DevicePool
    from harness.run.orchestration.suite import SuiteOptions, run_suite

    with tempfile.TemporaryDirectory() as out, DevicePool(devices, isolation="process", clock=clock) as pool:
        ids = ("settings-dark-theme", "notes-search-password", "clock-world-time", "contacts-text-grace")
        opts = SuiteOptions(agent="reference", out=Path(out), task_ids=ids[:devices], langs=("en",), clock=clock)
        run_suite(opts, pool=pool)
        procs = [pool.process(i) for i in range(devices)]
        return [memory_kb(p.pid) for p in procs if p is not None and p.pid]


def memory_table(console: Console, devices: int) -> None:
    t = Table(title=f"Memory per embedded device process ({devices} devices, after an episode each)")
    for col in ("clock", "PSS MB (mean)", "PSS MB (max)", "RSS MB (mean)"):
        t.add_column(col, justify="right")
    for clock in CLOCKS:
        rows = device_memory(clock, devices)
        pss = [p / 1024 for p, _ in rows]
        rss = [r / 1024 for _, r in rows]
        t.add_row(clock, f"{sum(pss) / len(pss):.1f}", f"{max(pss):.1f}", f"{sum(rss) / len(rss):.1f}")
    console.print(t)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--envs", type=int, nargs="+", default=[1, 2, 4, 8])
    ap.add_argument("--gym-steps", type=int, default=150)
    ap.add_argument("--latency", nargs="+", default=["instant", "pixel"])
    ap.add_argument("--devices-memory", type=int, default=4)
    ap.add_argument("--no-gym", action="store_true")
    ap.add_argument("--no-suite", action="store_true")
    ap.add_argument("--no-memory", action="store_true")
    ap.add_argument("--keep", type=Path, help="write the suite's runs here (kept) instead of a temporary folder")
    args = ap.parse_args()
    console = Console(width=max(Console().width, 120))
    with tempfile.TemporaryDirectory(prefix="bench-clock-") as tmp:
        out = args.keep or Path(tmp)
        if not args.no_suite:
            device_seconds_table(console, suite_table(console, args.latency, out))
        if not args.no_gym:
            gym_table(console, args.envs, args.gym_steps)
        if not args.no_memory:
            memory_table(console, args.devices_memory)


if __name__ == "__main__":
    main()
