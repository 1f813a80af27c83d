"""Robustness (issue 40): an agent's SR / ATP on the bundled suite, clean and under each single perturbation.

    python bench/robustness.py [--agent heuristic] [--perturb dark font=1.3 ...] [--devices 2] [--clock virtual]
                               [--seed 7] [--out DIR] [--pictures docs/img/perturbations.png]

Each run is the CLI a user types, `droidharness run --agent AGENT --perturb P --perturb-seed SEED` on embedded
devices (en and zh, 72 episodes), timed from the command's start. The table gives SR and ATP per perturbation, the
change from the clean run, the episodes that flipped (success to failure and back), how many episodes got the
perturbation applied and the run's minutes. `--pictures` draws one screen of one episode under each perturbation
(the screen where an interruption was applied, else the first screen of the task's app) into one PNG. Prints
figures; no asserts.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from rich.console import Console  # noqa: E402
from rich.table import Table  # noqa: E402

CLI = str(Path(sys.executable).with_name("droidharness"))
PERTURBATIONS = (
    "dark",
    "font=1.3",
    "size=720x1600",
    "density=320",
    "landscape",
    "locale=zh",
    "animations",
    "notification",
    "dialog",
    "popup",
)
PICTURE_TASK = ("notes-search-password", "en")  # the episode whose screens the pictures show


def run_one(out: Path, run_id: str, agent: str, perturb: str, args: argparse.Namespace) -> tuple[Path, float]:
    """One `droidharness run`; the run directory and its seconds from the command's start."""
    cmd = [CLI, "run", "--agent", agent, "--out", str(out), "--run-id", run_id, "--devices", str(args.devices)]
    cmd += ["--clock", args.clock, "--no-report"]
    if perturb:
        cmd += ["--perturb", perturb, "--perturb-seed", str(args.seed)]
    t0 = time.perf_counter()
    done = subprocess.run(cmd, capture_output=True, text=True)
    took = time.perf_counter() - t0
    if done.returncode not in (0, 1):  # 1: some episode failed, the run itself scored
        raise SystemExit(f"{' '.join(cmd)} exited {done.returncode}:\n{done.stdout[-2000:]}{done.stderr[-2000:]}")
    return out / run_id, took


def outcomes(run_dir: Path) -> dict[str, bool]:
    """Per episode directory: did it succeed."""
    out = {}
    for ep in sorted((run_dir / "episodes").iterdir()):
        meta = json.loads((ep / "episode.json").read_text())
        out[ep.name] = bool(meta.get("success"))
    return out


def applied(run_dir: Path) -> int:
    """How many episodes had every perturbation of their list applied."""
    n = 0
    for ep in (run_dir / "episodes").iterdir():
        recs = json.loads((ep / "episode.json").read_text()).get("perturbations") or []
        n += bool(recs) and all(r.get("applied") for r in recs)
    return n


def picture_frame(run_dir: Path) -> Path | None:
    """The screenshot of PICTURE_TASK's episode at its interruption's step, else its second screen (the app
    open), else its first."""
    ep = run_dir / "episodes" / f"{PICTURE_TASK[0]}__{PICTURE_TASK[1]}"
    if not ep.is_dir():
        return None
    meta = json.loads((ep / "episode.json").read_text())
    steps = [json.loads(line) for line in (ep / "steps.jsonl").read_text().splitlines() if line]
    if not steps:
        return None
    want = 2
    for rec in meta.get("perturbations") or []:
        if rec.get("step") and rec.get("applied"):
            want = int(rec["step"])
    step = next((s for s in steps if s["step"] == want), steps[min(1, len(steps) - 1)])
    return run_dir / "frames" / step["observation"]["screenshot"]


def draw_pictures(frames: dict[str, Path], out: Path, columns: int = 6) -> None:
    """The screens in a grid, each scaled to fit one box (a landscape screen lies across it) and labelled."""
    from PIL import Image, ImageDraw

    box_w, box_h, label_h, gap = 240, 480, 24, 12
    sheet_rows = -(-len(frames) // columns)
    cols = min(columns, len(frames))
    sheet = Image.new("RGB", (cols * (box_w + gap) - gap, sheet_rows * (box_h + label_h + gap) - gap), "white")
    draw = ImageDraw.Draw(sheet)
    for i, (label, path) in enumerate(frames.items()):
        img = Image.open(path).convert("RGB")
        img.thumbnail((box_w, box_h))
        x = (i % columns) * (box_w + gap)
        y = (i // columns) * (box_h + label_h + gap)
        draw.text((x + 2, y + 6), label, fill="black")
        sheet.paste(img, (x + (box_w - img.width) // 2, y + label_h))
    out.parent.mkdir(parents=True, exist_ok=True)
    sheet.save(out, optimize=True)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--agent", default="heuristic")
    ap.add_argument("--perturb", nargs="+", default=list(PERTURBATIONS), help="one run per item")
    ap.add_argument("--devices", type=int, default=2)
    ap.add_argument("--clock", choices=("real", "virtual"), default="virtual")
    ap.add_argument("--seed", type=int, default=7, help="--perturb-seed")
    ap.add_argument("--out", type=Path, default=None, help="keep the runs here")
    ap.add_argument("--pictures", type=Path, default=None, help="draw one screen under each perturbation here")
    args = ap.parse_args()
    out = args.out or Path(tempfile.mkdtemp(prefix="robustness-"))
    console = Console()
    clean_dir, clean_s = run_one(out, "clean", args.agent, "", args)
    clean = outcomes(clean_dir)
    table = Table(title=f"{args.agent} on the bundled suite (en+zh), {args.clock} clock, --perturb-seed {args.seed}")
    for col in ("perturbation", "SR", "ATP", "ΔSR", "lost", "gained", "applied", "minutes"):
        table.add_column(col, justify="left" if col == "perturbation" else "right")
    clean_sum = json.loads((clean_dir / "summary.json").read_text())["overall"]
    table.add_row(
        "(none)",
        f"{clean_sum['sr']:.1%}",
        f"{clean_sum['atp']:.1%}",
        "",
        "",
        "",
        "",
        f"{clean_s / 60:.1f}",
    )
    frames: dict[str, Path] = {}
    first = picture_frame(clean_dir)
    if first is not None:
        frames["clean"] = first
    for p in args.perturb:
        run_dir, took = run_one(out, p.replace("=", "-"), args.agent, p, args)
        s = json.loads((run_dir / "summary.json").read_text())["overall"]
        got = outcomes(run_dir)
        lost = sum(clean[k] and not got.get(k, False) for k in clean)
        gained = sum(not clean[k] and got.get(k, False) for k in clean)
        table.add_row(
            p,
            f"{s['sr']:.1%}",
            f"{s['atp']:.1%}",
            f"{s['sr'] - clean_sum['sr']:+.1%}",
            str(lost),
            str(gained),
            f"{applied(run_dir)}/{len(got)}",
            f"{took / 60:.1f}",
        )
        frame = picture_frame(run_dir)
        if frame is not None:
            frames[p] = frame
    console.print(table)
    console.print(f"runs: {out}")
    if args.pictures:
        draw_pictures(frames, args.pictures)
        console.print(f"pictures: {args.pictures}")


if __name__ == "__main__":
    main()
