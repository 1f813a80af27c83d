"""AndroidWorld's own task classes on embedded devices: `droidharness run --suite androidworld` per agent, on 1 and N
devices, episodes per minute from the command's start, the harness's SR and AndroidWorld's own figure, what was
skipped (the apps the embedded device does not have), the host seconds of AndroidWorld's own set-up per episode
(`initialize_task` and the verdict before; its one-time app steps summed over the run), and the memory of each
embedded device (the largest PSS a device process reached during the run, sampled every half second from /proc;
Linux only).

    python bench/androidworld.py [--agents noop reference] [--devices 1 2] [--clocks real virtual] [--aw-seed 30]
                                 [--aw-combinations 1] [--aw-source PATH] [--task CLASS ...]

Needs AndroidWorld importable (installed from its source: ../shared/tools/aw-venv.sh builds such a venv, with this
project beside it; `--aw-source` adds a source tree whose protos are generated to the path). Prints figures; no
asserts.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.table import Table

CLI = str(Path(sys.executable).with_name("droidharness"))


class DeviceMemory:
    """The largest PSS (kB) each embedded device process under `root` reached: a device process started on its
    own (`emulator.virtual.procdevice`) or forked by the zygote (its children carry its command line)."""

    def __init__(self, root: int) -> None:
        self.root, self._stop = root, threading.Event()
        self.peak: dict[int, int] = {}
        self._thread = threading.Thread(target=self._sample, daemon=True)
        self._thread.start()

    @staticmethod
    def _tree() -> dict[int, tuple[int, str]]:
        out = {}
        for d in Path("/proc").iterdir():
            if not d.name.isdigit():
                continue
            try:
                ppid = int((d / "stat").read_text().rsplit(")", 1)[1].split()[1])
                cmd = (d / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
            except (OSError, IndexError, ValueError):
                continue
            out[int(d.name)] = (ppid, cmd)
        return out

    def _sample(self) -> None:
        while not self._stop.wait(0.5):
            tree = self._tree()
            for pid, (ppid, cmd) in tree.items():
                parent = tree.get(ppid, (0, ""))[1]
                forked = "emulator.virtual.zygote" in cmd and "emulator.virtual.zygote" in parent
                if not forked and "emulator.virtual.procdevice" not in cmd:
                    continue
                up = ppid
                while up and up != self.root:
                    up = tree.get(up, (0, ""))[0]
                if up != self.root:
                    continue
                try:
                    rollup = Path(f"/proc/{pid}/smaps_rollup").read_text()
                except OSError:
                    continue
                for line in rollup.splitlines():
                    if line.startswith("Pss:"):
                        self.peak[pid] = max(self.peak.get(pid, 0), int(line.split()[1]))

    def stop(self) -> list[int]:
        self._stop.set()
        self._thread.join()
        return sorted(self.peak.values())


def run(
    agent: str,
    devices: int,
    clock: str,
    seed: int,
    combinations: int,
    out: Path,
    env: dict[str, str],
    tasks: tuple[str, ...] = (),
) -> dict[str, Any]:
    run_id = f"{agent}-{devices}-{clock}"
    cmd = [CLI, "run", "--suite", "androidworld", "--agent", agent, "--devices", str(devices), "--aw-seed", str(seed)]
    cmd += ["--aw-combinations", str(combinations), "--clock", clock, "--out", str(out), "--run-id", run_id]
    cmd += ["--no-report", *(x for t in tasks for x in ("--task", t))]
    t0 = time.perf_counter()
    with tempfile.TemporaryFile("w+") as log:
        child = subprocess.Popen(cmd, stdout=log, stderr=subprocess.STDOUT, text=True, env=env)
        memory = DeviceMemory(child.pid)
        child.wait()
        seconds = time.perf_counter() - t0
        peaks = memory.stop()
        log.seek(0)
        output = log.read()
    summary_file = out / run_id / "summary.json"
    if not summary_file.exists():
        raise SystemExit(f"{' '.join(cmd)} failed ({child.returncode}):\n{output[-4000:]}")
    s = json.loads(summary_file.read_text())
    set_up, apps = [], 0.0
    for ep in (out / run_id / "episodes").glob("*/episode.json"):
        rec = (json.loads(ep.read_text()).get("extra") or {}).get("androidworld") or {}
        secs = rec.get("seconds") or {}
        if "set_up" in secs:
            set_up.append(secs["set_up"])
        apps += secs.get("apps", 0.0)
    ran = s["overall"]["scored"] + s["overall"]["infra_errors"]
    aw = s.get("androidworld") or {}
    return {
        "agent": agent,
        "devices": devices,
        "clock": clock,
        "seconds": seconds,
        "episodes": ran,
        "per_minute": 60 * ran / seconds if seconds else None,
        "sr": s["overall"]["sr"],
        "aw": aw.get("success_rate"),
        "classes": aw.get("classes"),
        "solved": sorted(k for k, v in (aw.get("by_class") or {}).items() if v["mean_success_rate"] == 1.0),
        "unsolved": sorted(k for k, v in (aw.get("by_class") or {}).items() if v["mean_success_rate"] != 1.0),
        "skipped": len(s.get("skipped") or []),
        "infra": [f["task_id"] for f in s["infra_failures"]],
        "exit": child.returncode,
        "set_up": sum(set_up) / len(set_up) if set_up else None,
        "apps_set_up": apps,
        "pss_mb": [p / 1024 for p in peaks],
    }


def pct(x: float | None) -> str:
    return "-" if x is None else f"{x:.1%}"


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--agents", nargs="+", default=["noop", "reference"])
    p.add_argument("--devices", nargs="+", type=int, default=[1, 2])
    p.add_argument("--clocks", nargs="+", default=["real", "virtual"], choices=["real", "virtual"])
    p.add_argument("--aw-seed", type=int, default=30)
    p.add_argument("--aw-combinations", type=int, default=1)
    p.add_argument("--aw-source", type=Path, default=None, help="an AndroidWorld source tree to import from")
    p.add_argument("--task", action="append", default=[], help="only these classes (repeatable; default: all)")
    a = p.parse_args()
    env = dict(os.environ)
    if a.aw_source is not None:
        env["PYTHONPATH"] = os.pathsep.join([str(a.aw_source), env.get("PYTHONPATH", "")])
    console = Console()
    rows = []
    with tempfile.TemporaryDirectory(prefix="dh-aw-bench-") as tmp:
        for agent in a.agents:
            for clock in a.clocks:
                for n in a.devices:
                    rows.append(run(agent, n, clock, a.aw_seed, a.aw_combinations, Path(tmp), env, tuple(a.task)))
    t = Table(
        "agent",
        "clock",
        "devices",
        "episodes",
        "seconds",
        "episodes/min",
        "SR",
        "AndroidWorld's figure",
        "classes",
        "skipped",
        "set-up s/episode",
        "app set-up s",
        "PSS/device MB (max)",
        title=f"--suite androidworld (--aw-seed {a.aw_seed}, --aw-combinations {a.aw_combinations}), from the "
        "command's start",
    )
    for r in rows:
        t.add_row(
            r["agent"], r["clock"], str(r["devices"]), str(r["episodes"]), f"{r['seconds']:.1f}",
            f"{r['per_minute']:.0f}", pct(r["sr"]), pct(r["aw"]), str(r["classes"]), str(r["skipped"]),
            "-" if r["set_up"] is None else f"{r['set_up']:.2f}", f"{r['apps_set_up']:.1f}",
            f"{max(r['pss_mb']):.0f}" if r["pss_mb"] else "-",
        )  # fmt: skip
    console.print(t)
    base = {(r["agent"], r["clock"]): r for r in rows if r["devices"] == min(a.devices)}
    for r in rows:
        b = base[(r["agent"], r["clock"])]
        if r["devices"] != min(a.devices) and r["per_minute"] and b["per_minute"]:
            ratio = r["per_minute"] / b["per_minute"]
            console.print(
                f"{r['agent']} ({r['clock']} clock): {r['devices']} devices {ratio:.2f}x the episodes/min of "
                f"{min(a.devices)}"
            )
    for r in rows:
        if r["devices"] == max(a.devices) and r["clock"] == a.clocks[-1]:
            console.print(f"{r['agent']}: solved ({len(r['solved'])}): {', '.join(r['solved']) or '-'}")
            console.print(f"{r['agent']}: not solved ({len(r['unsolved'])}): {', '.join(r['unsolved']) or '-'}")
            if r["infra"]:
                console.print(f"{r['agent']}: infrastructure failures: {', '.join(r['infra'])}")


if __name__ == "__main__":
    main()
