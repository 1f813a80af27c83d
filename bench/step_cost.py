"""Where one step's time goes on the embedded device: the Gymnasium random policy (docs/gym.md's: CLICK an element,
SCROLL up or down, BACK) over `settings-dark-theme`, `instant`, the virtual clock, one env, timed part by part.

    python bench/step_cost.py [--steps 300] [--isolation thread process] [--profile medium_phone small_phone]
                              [--screenshot pixels jpeg]

`pixels` is the env as it runs when it records nothing (screenshots raw through the gRPC door's shared memory);
`jpeg` as it runs when it records (`record_to`: the device's JPEG over uiautomator2, decoded for the observation,
and written with the trajectory). Each part is the wall time spent in it per step, summed over its calls (parts
that run concurrently - the screenshot, the hierarchy and the focused app of one capture - overlap, so the parts
add up to more than the step); `device:` parts run in the device (only measurable in this process: `thread`),
`harness:` parts in the env's process. `total` is the step's wall time and `cpu` this process's CPU time per step
(with `process` the device's own CPU is in its child). Prints one table; no asserts.
"""

from __future__ import annotations

import argparse
import random
import sys
import tempfile
import time
from collections import defaultdict
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from rich.console import Console  # noqa: E402
from rich.table import Table  # noqa: E402

TASK = "settings-dark-theme"
PARTS = {  # label -> (module, attribute path): what is timed (wall seconds per call, summed)
    "device: build the views": ("emulator.virtual.ui.manager", "UIManager.view_roots"),
    "device: draw a new frame": ("emulator.virtual.ui.manager", "render_roots"),
    "device: encode the JPEG": ("emulator.virtual.ui.frames", "encode_jpeg"),
    "device: pack raw rows": ("emulator.virtual.ui.frames", "pack_rows"),
    "device: hierarchy XML": ("emulator.virtual.model", "VirtualDeviceModel.hierarchy_xml"),
    "harness: action + settle": ("harness.device.controller", "AdbDevice._act"),
    "harness: screenshot (round trip)": ("harness.device.capture", "run_chain@screenshot"),
    "harness: hierarchy (round trip + parse)": ("harness.device.capture", "hierarchy_part"),
    "harness: XML -> UITree": ("harness.hierarchy", "UITree.from_xml"),
    "harness: focused app": ("harness.device.capture", "_timed_app"),
    "harness: device clock reads": ("harness.device.devicetime", "link_time@now"),
    "harness: JPEG decode": ("PIL.ImageFile", "ImageFile.load"),
    "harness: observation (array + elements)": ("harness.gym.env", "TaskEnv._observe"),
    "harness: milestones + record": ("harness.run.loop.session", "EpisodeSession.apply-minus-step"),
}


class Timers:
    def __init__(self) -> None:
        self.seconds: dict[str, float] = defaultdict(float)

    def wrap(self, owner: Any, name: str, label: str, when: Callable[..., bool] | None = None) -> None:
        orig = getattr(owner, name)
        seconds = self.seconds

        def timed(*a: Any, **k: Any) -> Any:
            if when is not None and not when(*a, **k):
                return orig(*a, **k)
            t = time.perf_counter()
            try:
                return orig(*a, **k)
            finally:
                seconds[label] += time.perf_counter() - t

        setattr(owner, name, timed)


def instrument(timers: Timers) -> None:
    import importlib

    import harness.device.capture as cap
    import harness.device.controller as ctl
    import harness.device.devicetime as dt

    for label, (mod, attr) in PARTS.items():
        if "@" in attr or "-minus-" in attr:
            continue
        owner: Any = importlib.import_module(mod)
        *path, name = attr.split(".")
        for p in path:
            owner = getattr(owner, p)
        timers.wrap(owner, name, label)
    # the screenshot's chain (not the hierarchy's): the first argument after the link names the part
    timers.wrap(cap, "run_chain", "harness: screenshot (round trip)", lambda link, part, *a, **k: part == "screenshot")
    ctl.capture_screen = cap.capture_screen  # controller's own name for it (unchanged: timed inside)
    orig_link_time = dt.link_time

    def link_time(*a: Any, **k: Any) -> Any:
        t = orig_link_time(*a, **k)
        now = t.now

        def timed_now() -> float:
            s = time.perf_counter()
            try:
                return now()
            finally:
                timers.seconds["harness: device clock reads"] += time.perf_counter() - s

        return dt.DeviceTime(timed_now, t.wait)

    dt.link_time = link_time


@contextmanager
def make_env(isolation: str, profile: str, record: bool) -> Iterator[Any]:
    import gymnasium

    import harness.gym  # noqa: F401

    with tempfile.TemporaryDirectory() as out:
        env = gymnasium.make(
            "droidharness/Task-v0",
            task=TASK,
            lang="en",
            clock="virtual",
            latency="instant",
            isolation=isolation,
            profile=profile,
            record_to=out if record else None,
        )
        try:
            yield env
        finally:
            env.close()


def measure(isolation: str, profile: str, shot: str, steps: int, timers: Timers) -> dict[str, float]:
    import harness.run.loop.session as ses
    from harness.gym.random_policy import random_action as gym_random_action

    with make_env(isolation, profile, record=shot == "jpeg") as env:
        rng = random.Random(0)
        obs, _ = env.reset(seed=0)
        step_wall = [0.0]

        def run(n: int) -> None:
            nonlocal obs
            for s in range(n):
                obs, _, terminated, truncated, _ = env.step(gym_random_action(rng, obs["elements"]))
                if terminated or truncated:
                    obs, _ = env.reset(seed=s)

        run(20)  # warm: imports, first frames
        timers.seconds.clear()
        apply_s = [0.0]
        orig_apply = ses.EpisodeSession.apply

        def apply(self: Any, *a: Any, **k: Any) -> Any:
            t = time.perf_counter()
            try:
                return orig_apply(self, *a, **k)
            finally:
                apply_s[0] += time.perf_counter() - t

        ses.EpisodeSession.apply = apply  # type: ignore[method-assign]
        t0, c0 = time.perf_counter(), time.process_time()
        run(steps)
        step_wall[0] = time.perf_counter() - t0
        cpu = time.process_time() - c0
        ses.EpisodeSession.apply = orig_apply  # type: ignore[method-assign]
    row = {k: v / steps for k, v in timers.seconds.items()}
    act = timers.seconds.get("harness: action + settle", 0.0)
    shot_s = timers.seconds.get("harness: screenshot (round trip)", 0.0)
    hier = timers.seconds.get("harness: hierarchy (round trip + parse)", 0.0)
    row["harness: milestones + record"] = max(0.0, apply_s[0] - act - max(shot_s, hier)) / steps
    row["total"] = step_wall[0] / steps
    row["cpu"] = cpu / steps
    row["steps/s"] = steps / step_wall[0]
    return row


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--steps", type=int, default=300)
    ap.add_argument("--isolation", nargs="+", default=["thread", "process"])
    ap.add_argument("--profile", nargs="+", default=["medium_phone", "small_phone"])
    ap.add_argument("--screenshot", nargs="+", default=["pixels", "jpeg"])
    args = ap.parse_args()
    timers = Timers()
    instrument(timers)
    columns: list[tuple[str, dict[str, float]]] = []
    for profile in args.profile:
        for isolation in args.isolation:
            for shot in args.screenshot:
                row = measure(isolation, profile, shot, args.steps, timers)
                columns.append((f"{profile}\n{isolation}\n{shot}", row))
    table = Table(title=f"one step of the random policy ({args.steps} steps each; ms per step)")
    table.add_column("part")
    for name, _ in columns:
        table.add_column(name, justify="right")
    for label in [*PARTS, "total", "cpu"]:
        table.add_row(label, *(f"{r.get(label, 0.0) * 1000:.1f}" for _, r in columns))
    table.add_row("steps/s", *(f"{r['steps/s']:.1f}" for _, r in columns))
    Console(width=200).print(table)


if __name__ == "__main__":
    main()
