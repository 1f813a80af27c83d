"""Benchmark the vectorized official matchers against the plain per-step reference, and AitW TFRecord streaming
(no asserts; prints rich tables).

    python bench/metrics.py [--steps 1000000] [--ref-steps 100000] [--shard-steps 5000] [--repeat 3]

1. Steps / second of `harness.metrics.{aitw,odyssey,agentcpm}` on `--steps` synthetic steps with a realistic
   mix (AitW: 60 % DUAL_POINT, half taps, 12 annotation boxes per screen on average; Odyssey: 10 % TYPE rows
   with short texts (edit distance by rapidfuzz), half the clicks carrying a sam2_bbox; AgentCPM: 8 [y, x, h, w]
   boxes per step, a third of the GT points inside one, in the default and the AndroidControl mode, plus the path
   that also computes point distances and text similarities) against `harness.metrics.reference` on the first
   `--ref-steps` of them (its rate is per step, so the subsample gives the same figure faster). Every run also
   checks that both verdicts agree on the subsample. Target: >= 1M steps/s vectorized.
2. AitW TFRecord streaming: a GZIP shard of `--shard-steps` steps with small screenshots (96 x 160 RGB, 12 boxes)
   written with `tasks.datasets.aitw.write_tfrecord`, then read back with `aitw.iter_episodes`: steps/s and peak
   Python memory (tracemalloc, a separate pass) with and without keeping the images, plus the process max RSS.
"""

from __future__ import annotations

import argparse
import math
import resource
import sys
import tempfile
import time
import tracemalloc
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import numpy as np  # noqa: E402
from rich.console import Console  # noqa: E402
from rich.table import Table  # noqa: E402

from harness.metrics import agentcpm, aitw, odyssey, reference  # noqa: E402

console = Console()


def best_of(fn: Callable[[], Any], repeat: int) -> tuple[float, Any]:
    best, out = float("inf"), None
    for _ in range(repeat):
        t = time.perf_counter()
        out = fn()
        best = min(best, time.perf_counter() - t)
    return best, out


# --- synthetic data ------------------------------------------------------------------------------------------
def aitw_data(n: int, rng: np.random.Generator, boxes_mean: int = 12) -> dict[str, Any]:
    others = np.array([3, 5, 6, 7, 10, 11])

    def types() -> np.ndarray:
        t = rng.choice(others, n)
        t[rng.random(n) < 0.6] = aitw.DUAL_POINT
        return t

    def gesture() -> tuple[np.ndarray, np.ndarray]:
        touch = rng.random((n, 2))
        lift = touch.copy()
        swipe = rng.random(n) < 0.5
        lift[swipe] = rng.random((int(swipe.sum()), 2))
        return touch, lift

    pt, gt = types(), types()
    same = rng.random(n) < 0.5  # half the predictions copy the ground-truth type
    pt[same] = gt[same]
    ptouch, plift = gesture()
    gtouch, glift = gesture()
    near = rng.random(n) < 0.4  # some predictions land near the ground truth
    ptouch[near] = np.clip(gtouch[near] + rng.normal(0, 0.08, (int(near.sum()), 2)), 0, 1)
    plift[near] = ptouch[near]
    counts = np.minimum(rng.poisson(boxes_mean, n), 2 * boxes_mean)
    m = int(counts.max())
    boxes = np.empty((n, m, 4), dtype=np.float32)
    boxes[..., :2] = rng.random((n, m, 2), dtype=np.float32) * 0.9
    boxes[..., 2:] = rng.random((n, m, 2), dtype=np.float32) * 0.1
    return {
        "pt": pt,
        "ptouch": ptouch,
        "plift": plift,
        "gt": gt,
        "gtouch": gtouch,
        "glift": glift,
        "boxes": boxes,
        "counts": counts,
    }


def odyssey_data(n: int, rng: np.random.Generator) -> dict[str, Any]:
    weights = np.array([0.45, 0.05, 0.15, 0.10, 0.05, 0.05, 0.03, 0.10, 0.02])
    gt = rng.choice(9, n, p=weights)
    pt = gt.copy()
    wrong = rng.random(n) < 0.3
    pt[wrong] = rng.choice(9, int(wrong.sum()), p=weights)
    gp, ge = rng.integers(0, 1001, (n, 2)).astype(float), rng.integers(0, 1001, (n, 2)).astype(float)
    pp = np.clip(gp + rng.normal(0, 120, (n, 2)), 0, 1000)
    pe = rng.integers(0, 1001, (n, 2)).astype(float)
    has = rng.random(n) < 0.5
    box = np.column_stack([np.clip(gp - 60, 0, 1000), np.clip(gp + 60, 0, 1000)])[:, [0, 1, 2, 3]]
    words = ["new", "york", "fashion", "week", "reminder", "coffee", "maker", "panda", "weather"]
    texts_g = [" ".join(rng.choice(words, 2)) for _ in range(4096)]
    texts_p = [" ".join(rng.choice(words, 2)) for _ in range(4096)]
    idx = rng.integers(0, 4096, n)
    gtext = np.array(texts_g, dtype=object)[idx]
    ptext = np.array(texts_p, dtype=object)[idx]
    return {
        "pt": pt,
        "pp": pp,
        "pe": pe,
        "gt": gt,
        "gp": gp,
        "ge": ge,
        "box": box,
        "has": has,
        "ptext": ptext,
        "gtext": gtext,
    }


def agentcpm_data(n: int, rng: np.random.Generator) -> dict[str, Any]:
    gt = rng.choice(7, n, p=[0.5, 0.05, 0.15, 0.1, 0.1, 0.08, 0.02])
    pt = gt.copy()
    wrong = rng.random(n) < 0.3
    pt[wrong] = rng.choice(7, int(wrong.sum()))
    gp = rng.random((n, 2))
    pp = np.clip(gp + rng.normal(0, 0.1, (n, 2)), 0, 1)
    counts = np.minimum(rng.poisson(8, n), 16)
    m = int(counts.max())
    # [y, x, h, w] normalized, as the evaluator stores them; a third of the GT points inside their first box
    boxes = np.concatenate([rng.random((n, m, 2)) * 0.9, rng.random((n, m, 2)) * 0.1], axis=2)
    inside = (rng.random(n) < 0.33) & (counts > 0)
    first = boxes[inside, 0]
    gp[inside] = first[:, [1, 0]] + first[:, [3, 2]] * rng.random((int(inside.sum()), 2))
    pp[inside] = np.clip(gp[inside] + rng.normal(0, 0.05, (int(inside.sum()), 2)), 0, 1)
    return {
        "pt": pt,
        "gt": gt,
        "pp": pp,
        "gp": gp,
        "pdir": rng.integers(0, 4, n),
        "gdir": rng.integers(0, 4, n),
        "pkey": rng.integers(0, 3, n),
        "gkey": rng.integers(0, 3, n),
        "ptext": np.array(["hello"] * n, dtype=object),
        "gtext": np.array(["hello world"] * n, dtype=object),
        "boxes": boxes,
        "counts": counts,
    }


# --- matchers ------------------------------------------------------------------------------------------------
def bench_matchers(n: int, n_ref: int, repeat: int) -> None:
    rng = np.random.default_rng(0)
    rows: list[tuple[str, int, float, float, str]] = []

    d = aitw_data(n, rng)
    t_vec, vec = best_of(
        lambda: aitw.match_actions(
            d["pt"], d["ptouch"], d["plift"], d["gt"], d["gtouch"], d["glift"], d["boxes"], d["counts"]
        ),
        repeat,
    )
    k = n_ref

    def aitw_ref() -> list[bool]:
        out = []
        for i in range(k):
            bx = d["boxes"][i, : d["counts"][i]].tolist()
            out.append(
                reference.aitw_match_step(
                    int(d["pt"][i]),
                    d["ptouch"][i].tolist(),
                    d["plift"][i].tolist(),
                    int(d["gt"][i]),
                    d["gtouch"][i].tolist(),
                    d["glift"][i].tolist(),
                    bx,
                )
            )
        return out

    t_ref, ref = best_of(aitw_ref, 1)
    agree = "yes" if vec[:k].tolist() == ref else "NO"
    rows.append(("AitW action matching", n, n / t_vec, k / t_ref, agree))

    d = odyssey_data(n, rng)
    names = reference.ODYSSEY_TYPES

    def ody(with_text: bool) -> Callable[[], np.ndarray]:
        gt = d["gt"] if with_text else np.where(d["gt"] == odyssey.TYPE, odyssey.HOME, d["gt"])
        pt = d["pt"] if with_text else np.where(d["pt"] == odyssey.TYPE, odyssey.HOME, d["pt"])
        return lambda: odyssey.match_actions(
            pt, d["pp"], d["pe"], gt, d["gp"], d["ge"], d["box"], d["has"], d["ptext"], d["gtext"]
        )

    t_vec, vec = best_of(ody(True), repeat)
    t_vec_nt, _ = best_of(ody(False), repeat)

    def ody_ref() -> list[bool]:
        out = []
        for i in range(k):
            box = d["box"][i].tolist() if d["has"][i] else None
            out.append(
                reference.odyssey_match_step(
                    names[d["pt"][i]],
                    d["pp"][i].tolist(),
                    d["pe"][i].tolist(),
                    names[d["gt"][i]],
                    d["gp"][i].tolist(),
                    d["ge"][i].tolist(),
                    box,
                    d["ptext"][i],
                    d["gtext"][i],
                )
            )
        return out

    t_ref, ref = best_of(ody_ref, 1)
    agree = "yes" if vec[:k].tolist() == ref else "NO"
    rows.append(("GUI Odyssey AMS (10 % TYPE rows)", n, n / t_vec, k / t_ref, agree))
    rows.append(("GUI Odyssey AMS (TYPE rows -> HOME)", n, n / t_vec_nt, float("nan"), "-"))

    d = agentcpm_data(n, rng)
    t_vec, (tm, em) = best_of(
        lambda: agentcpm.match_steps(
            d["pt"],
            d["gt"],
            d["pp"],
            d["gp"],
            d["pdir"],
            d["gdir"],
            d["pkey"],
            d["gkey"],
            d["ptext"],
            d["gtext"],
            d["boxes"],
            d["counts"],
        ),
        repeat,
    )
    a_names = reference.AGENTCPM_TYPES
    dirs, keys = agentcpm.DIRECTIONS, agentcpm.KEYS

    def cpm_ref() -> list[tuple[bool, bool]]:
        return [
            reference.agentcpm_match_step(
                a_names[d["pt"][i]],
                a_names[d["gt"][i]],
                d["pp"][i].tolist(),
                d["gp"][i].tolist(),
                dirs[d["pdir"][i]],
                dirs[d["gdir"][i]],
                keys[d["pkey"][i]],
                keys[d["gkey"][i]],
                d["ptext"][i],
                d["gtext"][i],
                d["boxes"][i, : d["counts"][i]].tolist(),
            )
            for i in range(k)
        ]

    t_ref, ref = best_of(cpm_ref, 1)
    agree = "yes" if list(zip(tm[:k].tolist(), em[:k].tolist(), strict=True)) == ref else "NO"
    rows.append(("AgentCPM TM/EM (8 boxes/step)", n, n / t_vec, k / t_ref, agree))
    t_ac, (tm_ac, em_ac) = best_of(
        lambda: agentcpm.match_steps(
            d["pt"],
            d["gt"],
            d["pp"],
            d["gp"],
            d["pdir"],
            d["gdir"],
            d["pkey"],
            d["gkey"],
            d["ptext"],
            d["gtext"],
            d["boxes"],
            d["counts"],
            mode="android_control",
        ),
        repeat,
    )

    def cpm_ref_ac() -> list[tuple[bool, bool]]:
        return [
            reference.agentcpm_match_step(
                a_names[d["pt"][i]],
                a_names[d["gt"][i]],
                d["pp"][i].tolist(),
                d["gp"][i].tolist(),
                dirs[d["pdir"][i]],
                dirs[d["gdir"][i]],
                keys[d["pkey"][i]],
                keys[d["gkey"][i]],
                d["ptext"][i],
                d["gtext"][i],
                d["boxes"][i, : d["counts"][i]].tolist(),
                "android_control",
            )
            for i in range(k)
        ]

    t_ref, ref = best_of(cpm_ref_ac, 1)
    agree = "yes" if list(zip(tm_ac[:k].tolist(), em_ac[:k].tolist(), strict=True)) == ref else "NO"
    rows.append(("AgentCPM TM/EM, AndroidControl mode", n, n / t_ac, k / t_ref, agree))
    t_full, _ = best_of(
        lambda: agentcpm.evaluate_steps(
            d["pt"],
            d["gt"],
            d["pp"],
            d["gp"],
            d["pdir"],
            d["gdir"],
            d["pkey"],
            d["gkey"],
            d["ptext"],
            d["gtext"],
            d["boxes"],
            d["counts"],
        ),
        repeat,
    )
    rows.append(("AgentCPM all step outputs (+ distances)", n, n / t_full, float("nan"), "-"))

    ids = np.repeat(np.arange(n // 10), 10)[:n]
    t_agg, _ = best_of(lambda: aitw.score(vec if len(vec) == n else np.ones(n, bool), ids), repeat)
    t_gp, _ = best_of(lambda: agentcpm.episode_scores(em, ids), repeat)

    t = Table(
        "matcher",
        "steps",
        "vectorized steps/s",
        "reference steps/s",
        "speed-up",
        "agree",
        title=f"official matchers, best of {repeat} (reference timed on {n_ref:,} steps)",
    )
    for name, steps, v, r, ok in rows:
        no_ref = math.isnan(r)
        t.add_row(
            name, f"{steps:,}", f"{v:,.0f}", "-" if no_ref else f"{r:,.0f}", "-" if no_ref else f"{v / r:,.0f}x", ok
        )
    console.print(t)
    console.print(
        f"aggregation on {n:,} steps / {n // 10:,} episodes: AitW per-episode + overall "
        f"{t_agg * 1000:.0f} ms, AgentCPM SR + goal progress {t_gp * 1000:.0f} ms",
        highlight=False,
    )


# --- TFRecord streaming --------------------------------------------------------------------------------------
def shard_steps(n: int, w: int = 96, h: int = 160, per_episode: int = 10):
    rng = np.random.default_rng(1)
    base = np.full((h, w, 3), 245, dtype=np.uint8)  # a screen-like picture: flat background, coloured bars, text
    for _ in range(14):
        y, x = int(rng.integers(0, h - 12)), int(rng.integers(0, w - 20))
        base[y : y + int(rng.integers(4, 12)), x : x + int(rng.integers(10, 40))] = rng.integers(0, 256, 3)
    base[::9, ::3] = rng.integers(0, 256, (len(range(0, h, 9)), len(range(0, w, 3)), 3))  # some "glyph" noise
    boxes = [float(v) for v in rng.random(48).astype(np.float32)]
    for i in range(n):
        ep, k = divmod(i, per_episode)
        yield {
            "android_api_level": 30,
            "current_activity": "com.example/.Main",
            "device_type": "PIXEL_4_XL",
            "episode_id": str(10_000 + ep),
            "episode_length": per_episode,
            "step_id": k,
            "goal_info": f"goal {ep}",
            "image/height": h,
            "image/width": w,
            "image/channels": 3,
            "image/ui_annotations_positions": boxes,
            "image/ui_annotations_text": [f"t{j}" for j in range(12)],
            "image/ui_annotations_ui_types": ["TEXT"] * 12,
            "results/action_type": 4,
            "results/type_action": "",
            "results/yx_touch": [0.5, 0.5],
            "results/yx_lift": [0.5, 0.5],
            "image/encoded": np.roll(base, i % 7, axis=0),
        }


def bench_tfrecord(n: int) -> None:
    try:
        from tasks.datasets import aitw as aitw_ds
    except ImportError as exc:  # pragma: no cover - the loader is another engineer's module
        console.print(f"[yellow]TFRecord streaming skipped: tasks.datasets.aitw is not available ({exc})[/yellow]")
        return
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "google_apps-00000-of-00001.tfrecord.gz"
        t0 = time.perf_counter()
        aitw_ds.write_tfrecord(path, shard_steps(n))
        t_write = time.perf_counter() - t0
        size = path.stat().st_size

        def stream(keep: bool, decode: bool = False) -> int:
            count = 0
            for ep in aitw_ds.iter_episodes(path, keep_images=keep):
                for s in ep.steps:
                    count += 1
                    if decode:
                        s.image()
            return count

        t = Table(
            "read",
            "steps",
            "steps/s",
            "peak Python memory (tracemalloc)",
            title=f"AitW TFRecord streaming: "
            f"{n:,} steps, 96x160 RGB, 12 boxes; shard {size / 1e6:.1f} MB gzip, written at "
            f"{n / t_write:,.0f} steps/s",
        )
        for label, keep, decode in (
            ("keep_images=False", False, False),
            ("keep_images=True", True, False),
            ("keep_images=True + decode every image", True, True),
        ):
            t0 = time.perf_counter()
            steps = stream(keep, decode)
            dt = time.perf_counter() - t0
            tracemalloc.start()
            stream(keep, decode)
            _, peak = tracemalloc.get_traced_memory()
            tracemalloc.stop()
            t.add_row(label, f"{steps:,}", f"{steps / dt:,.0f}", f"{peak / 1e6:.1f} MB")
        console.print(t)
        rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
        console.print(
            f"process max RSS so far (includes the 1M-step matcher arrays): {rss:,.0f} MB; raw pixels "
            f"of the whole shard would be {n * 96 * 160 * 3 / 1e6:.0f} MB",
            highlight=False,
        )


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--steps", type=int, default=1_000_000)
    ap.add_argument("--ref-steps", type=int, default=100_000)
    ap.add_argument("--shard-steps", type=int, default=5_000)
    ap.add_argument("--repeat", type=int, default=3)
    a = ap.parse_args()
    bench_matchers(a.steps, min(a.ref_steps, a.steps), a.repeat)
    bench_tfrecord(a.shard_steps)


if __name__ == "__main__":
    main()
