"""Trajectory size: bytes per step before (format 1: an RGB PNG, compress_level=1, and the raw XML per step in
each episode directory) and after (format 2: each distinct screen once per run as lossless WebP, hierarchies
gzip'd and content-addressed), for the same episodes, side by side.

Runs the bundled suite with the reference agent (`replay`: deterministic, so both formats record the same
screens) on the embedded virtual device once per format, then prints total run-directory bytes, bytes per step,
distinct screens / screens recorded, encode time per encoded frame and per step (measured on the writer thread;
a repeated screen costs only the hash of its pixels). The run's wall time is shown too: on 2 cores, with an
instant agent, the writer thread's encoding is what the run waits for. Then the
WebP method/quality sweep behind `WriterOptions.webp_method` / `webp_quality` on distinct screens of the run.
`--agent heuristic --lang all` measures the demo (`make demo`). Prints figures; no asserts.

    python bench/trajectory.py [--agent reference] [--lang en] [--sweep-frames 8]
"""

from __future__ import annotations

import argparse
import io
import os
import sys
import tempfile
import time
from pathlib import Path
from typing import Any
from unittest import mock

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from PIL import Image  # noqa: E402
from rich.console import Console  # noqa: E402
from rich.table import Table  # noqa: E402

import harness.run.orchestration.suite as suite_runner  # noqa: E402
from harness.run.orchestration.suite import SuiteOptions, run_suite  # noqa: E402
from harness.trajectory.frames import WriterOptions  # noqa: E402
from harness.trajectory.reader import load_run
from harness.trajectory.records import pixel_digest
from harness.trajectory.writer import RunWriter  # noqa: E402


def dir_bytes(path: Path, suffixes: tuple[str, ...] | None = None) -> int:
    total = 0
    for root, _, files in os.walk(path):
        for f in files:
            if suffixes is None or f.endswith(suffixes):
                total += os.path.getsize(os.path.join(root, f))
    return total


def measure(layout: int, agent: str, langs: tuple[str, ...], out: Path) -> dict[str, Any]:
    writers: list[RunWriter] = []

    class Writer(RunWriter):
        @classmethod
        def create(cls, *args: Any, **kwargs: Any) -> RunWriter:
            kwargs["options"] = WriterOptions(layout=layout)
            w = super().create(*args, **kwargs)
            writers.append(w)
            return w

    t0 = time.perf_counter()
    with mock.patch.object(suite_runner, "RunWriter", Writer):
        res = run_suite(SuiteOptions(agent=agent, langs=langs, out=out, run_id=f"bench-v{layout}"))
    wall = time.perf_counter() - t0
    run = load_run(res.run_dir)
    steps = sum(len(ep.steps) for ep in run.episodes.values())
    shots = [
        ep.frame_path(n)
        for ep in run.episodes.values()
        for n in [s.step for s in ep.steps] + ([ep.final_step] if ep.final_step else [])
    ]
    distinct = set()
    for p in shots:
        if p is not None:
            with Image.open(p) as im:
                distinct.add(pixel_digest(im))
    st = writers[0].frames.stats
    image_suffixes = (".png", ".webp", ".jpg")
    return {
        "layout": layout,
        "run_dir": res.run_dir,
        "episodes": len(run.episodes),
        "steps": steps,
        "screens": len(shots),
        "distinct": len(distinct),
        "files": len(set(shots)),
        "wall": wall,
        "sr": res.sr,
        "total": dir_bytes(res.run_dir),
        "images": dir_bytes(res.run_dir, image_suffixes),
        "xml": dir_bytes(res.run_dir, (".xml", ".xml.gz")),
        "report": (res.run_dir / "report.html").stat().st_size,
        "encoded": st.encoded,
        "encode_ms": 1000 * st.encode_seconds / st.encoded if st.encoded else 0.0,
        "encode_ms_step": 1000 * st.encode_seconds / steps if steps else 0.0,
    }


def sweep(frames_dir: Path, n: int, console: Console) -> None:
    frames = sorted([*frames_dir.glob("*.webp"), *frames_dir.glob("*.jpg")])
    paths = frames[:: max(1, len(frames) // max(1, n))][:n]
    imgs = []
    for p in paths:
        with Image.open(p) as im:
            imgs.append(im.convert("RGB"))
    if not imgs:
        return
    table = Table(
        "encoder",
        "KB / frame",
        "ms / frame",
        title=f"encoders on {len(imgs)} distinct screens ({imgs[0].size[0]}x{imgs[0].size[1]}), one thread",
    )
    configs: list[tuple[str, dict[str, Any]]] = [
        ("PNG compress_level=1 (format 1)", {"format": "PNG", "compress_level": 1}),
        ("PNG compress_level=6", {"format": "PNG", "compress_level": 6}),
    ]
    for m, q in ((0, 100), (1, 0), (1, 50), (2, 0), (4, 0), (4, 50), (6, 0), (6, 100)):
        configs.append(
            (
                f"WebP lossless method={m} quality={q}" + (" (format 2)" if (m, q) == (1, 0) else ""),
                {"format": "WEBP", "lossless": True, "method": m, "quality": q, "exact": True},
            )
        )
    for name, kw in configs:
        t0, size = time.perf_counter(), 0
        for img in imgs:
            buf = io.BytesIO()
            img.save(buf, **kw)
            size += buf.tell()
        dt = time.perf_counter() - t0
        table.add_row(name, f"{size / len(imgs) / 1024:.1f}", f"{1000 * dt / len(imgs):.0f}")
    console.print(table)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument(
        "--agent", default="reference", help="reference (the reference solutions) or heuristic (the demo's)"
    )
    ap.add_argument("--lang", default="en", choices=["en", "zh", "all"])
    ap.add_argument("--sweep-frames", type=int, default=8, help="distinct screens for the encoder sweep (0: skip)")
    args = ap.parse_args()
    langs = ("en", "zh") if args.lang == "all" else (args.lang,)
    console = Console()
    with tempfile.TemporaryDirectory() as tmp:
        rows = [measure(layout, args.agent, langs, Path(tmp) / f"v{layout}") for layout in (1, 2)]
        table = Table(
            "format",
            "episodes",
            "steps",
            "SR",
            "run dir MB",
            "bytes / step",
            "image bytes / step",
            "xml bytes / step",
            "report MB",
            "distinct screens / screens (files)",
            "frames encoded",
            "encode ms / frame",
            "encode ms / step",
            "run wall s",
            title=f"trajectory size, agent {args.agent}, langs {'+'.join(langs)}, bundled suite",
        )
        for r in rows:
            table.add_row(
                f"{r['layout']}",
                str(r["episodes"]),
                str(r["steps"]),
                f"{(r['sr'] or 0):.0%}",
                f"{r['total'] / 1e6:.1f}",
                f"{r['total'] / r['steps']:,.0f}",
                f"{r['images'] / r['steps']:,.0f}",
                f"{r['xml'] / r['steps']:,.0f}",
                f"{r['report'] / 1e6:.1f}",
                f"{r['distinct']} / {r['screens']} ({r['files']})",
                str(r["encoded"]),
                f"{r['encode_ms']:.0f}",
                f"{r['encode_ms_step']:.0f}",
                f"{r['wall']:.1f}",
            )
        console.print(table)
        before, after = rows
        console.print(
            f"format 2 / format 1: run directory {after['total'] / before['total']:.1%}, "
            f"bytes per step {before['total'] / before['steps']:,.0f} -> "
            f"{after['total'] / after['steps']:,.0f}",
            highlight=False,
        )
        if args.sweep_frames:
            sweep(after["run_dir"] / "frames", args.sweep_frames, console)


if __name__ == "__main__":
    main()
