"""`droidharness compare RUN RUN [RUN...] [--out compare.html]`: runs side by side on the episodes they share
(`harness.report.compare`), printed, and as a page with every shared episode's steps side by side
(`harness.report.compare_page`)."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Optional

import typer
from rich.console import Console
from rich.markup import escape
from rich.table import Table

from harness.cli.defaults import RESAMPLES
from harness.cli.failures import fail
from harness.errors import ConfigError, HarnessError

if TYPE_CHECKING:  # pragma: no cover
    from harness.report.compare import Comparison
    from harness.scoring.cost import Price
    from harness.trajectory.reader import Run

console = Console()


def _pct(x: float | None) -> str:
    return "–" if x is None else f"{100 * x:.1f}%"


def _pts(a: float | None, b: float | None) -> str:
    return "–" if a is None or b is None else f"{100 * (b - a):+.1f} pts"


def open_run(path: Path) -> Run:
    """A finished (or killed) run directory, read through the trajectory reader; a missing one, one that is no
    run, and one a run is still writing are ConfigErrors naming it."""
    from harness.run.orchestration.lock import holder
    from harness.trajectory.reader import load_run
    from harness.trajectory.records import MANIFEST_FILE

    if not path.is_dir():
        raise ConfigError(f"{path}: no such run directory")
    if not (path / MANIFEST_FILE).is_file():
        raise ConfigError(f"{path}: not a run directory (no {MANIFEST_FILE})")
    pid = holder(path)
    if pid is not None:
        raise ConfigError(f"{path}: the run is still going (pid {pid} is writing it); compare it once it has finished")
    return load_run(path, skip_bad=True)


def _price(run: Run, spec: str | None) -> Price | None:
    """`--price` (a table looked up by the run's model), else the price the run was made with."""
    from harness.report.summary import run_price
    from harness.scoring.cost import resolve_price

    if spec is None:
        return run_price(run)
    model = run.manifest.agent.get("model") if run.manifest else None
    return resolve_price(spec, str(model) if model else None)


def _print(c: Comparison) -> None:
    from harness.scoring.cost import money
    from harness.scoring.episodes import BREAKDOWNS

    for note in c.notes:
        console.print(f"[yellow]note:[/yellow] {escape(note)}", highlight=False, soft_wrap=True)
    t = Table("run", "agent", "suite", "episodes", "scored", "SR", "ATP", "tokens", "cost", title="shared episodes")
    for i, s in enumerate(c.sides):
        o = c.boards[i].overall
        t.add_row(
            escape(s.label),
            escape(s.agent),
            escape(str(s.suite)),
            str(len(s.run.episodes)),
            str(o.scored),
            _pct(o.sr),
            _pct(o.atp),
            f"{c.tokens(i):,}",
            money(c.cost(i)),
        )
    console.print(t)
    console.print(f"{len(c.shared)} shared episode(s); baseline: {escape(c.sides[0].label)}", highlight=False)
    for p in c.pairings:
        other = c.sides[p.other].label
        ci = p.progress_interval
        interval = f"[{100 * ci[0]:+.1f}, {100 * ci[1]:+.1f}] pts" if ci else "–"
        console.print(
            escape(
                f"{other} vs {c.sides[0].label}: {p.paired} episodes scored in both; SR {_pct(p.sr[0])} -> "
                f"{_pct(p.sr[1])} ({_pts(*p.sr)}), exact McNemar p = {p.mcnemar_p:.4g}; ATP {_pct(p.atp[0])} -> "
                f"{_pct(p.atp[1])} ({_pts(*p.atp)}), 95% paired bootstrap interval {interval}"
            ),
            highlight=False,
            soft_wrap=True,
        )
        console.print(escape(f"  gained ({len(p.gained)}): {', '.join(p.gained) or '-'}"), soft_wrap=True)
        console.print(escape(f"  lost ({len(p.lost)}): {', '.join(p.lost) or '-'}"), soft_wrap=True)
    for g in c.by_perturbation:  # runs made with --perturb: the episodes each perturbation was applied to
        p = g.pairing
        console.print(
            escape(
                f"by perturbation {g.perturbation} ({c.sides[p.other].label} vs {c.sides[0].label}): {p.paired} "
                f"episodes scored in both; SR {_pct(p.sr[0])} -> {_pct(p.sr[1])} ({_pts(*p.sr)}), exact McNemar p = "
                f"{p.mcnemar_p:.4g}; lost ({len(p.lost)}): {', '.join(p.lost) or '-'}; gained ({len(p.gained)}): "
                f"{', '.join(p.gained) or '-'}"
            ),
            highlight=False,
            soft_wrap=True,
        )
    for s, fig in zip(c.sides, c.androidworld(), strict=True):
        if fig is not None:
            console.print(
                escape(f"{s.label}: AndroidWorld's figure {_pct(fig['success_rate'])} over {fig['classes']} classes"),
                highlight=False,
            )
    for name in BREAKDOWNS:
        bt = Table(name.removeprefix("by_"), *(f"{s.label} SR / ATP" for s in c.sides), title=name.replace("_", " "))
        for group, scores in c.breakdown(name).items():
            bt.add_row(escape(group), *(f"{_pct(s.sr)} / {_pct(s.atp)}" if s else "–" for s in scores))
        console.print(bt)
    et = Table("episode", *(s.label for s in c.sides), *(f"Δ progress {c.sides[p.other].label}" for p in c.pairings))
    for k in c.shared:
        cells = c.cells[k]
        et.add_row(
            escape(k),
            *(f"{x.status} {_pct(x.progress)} {x.steps} st {x.tokens:,} tok {money(x.cost)}" for x in cells),
            *(_pts(cells[0].progress, x.progress) if cells[0].scored and x.scored else "–" for x in cells[1:]),
        )
    console.print(et)


def compare(
    runs: list[Path] = typer.Argument(..., help="Run directories (runs/<run_id>); the first is the baseline."),
    out: Path = typer.Option(Path("compare.html"), "--out", help="The page with the steps side by side."),
    price: Optional[str] = typer.Option(
        None,
        "--price",
        help="IN/OUT USD per million input/output tokens, or a price table file by model name (default: each "
        "run's own price, if it was run with --price).",
    ),
    json_out: Optional[Path] = typer.Option(None, "--json", help="Also write the comparison as JSON here."),
    seed: int = typer.Option(0, help="Seed of the paired bootstrap."),
    resamples: int = typer.Option(RESAMPLES, min=100, help="Resamples of the paired bootstrap."),
) -> None:
    """Compare runs on the episodes (task and language) they share: each run's SR / ATP, the episodes that
    flipped each way, an exact McNemar test on success and a paired bootstrap interval on progress against the
    first run, breakdowns by category, language and app count, a per-episode table (success, progress, steps,
    tokens, cost) and a page with every shared episode's steps side by side. Exit code 2 on bad input (a missing
    run, a run still going, runs sharing no episode)."""
    from harness.report.compare import compare_runs
    from harness.report.compare_page import render_compare
    from harness.scrub import redact
    from harness.trajectory.records import atomic_write_bytes, atomic_write_json

    try:
        if len(runs) < 2:
            raise ConfigError("compare needs at least two run directories")
        loaded = [open_run(p) for p in runs]
        c = compare_runs(loaded, [_price(r, price) for r in loaded], resamples=resamples, seed=seed)
        _print(c)
        atomic_write_bytes(out, redact(render_compare(c)).encode("utf-8", "backslashreplace"), fsync=False)
        if json_out is not None:
            atomic_write_json(json_out, c.to_json(), fsync=False)
    except (HarnessError, OSError) as e:
        fail(console, e)
    console.print(f"page: {out}" + (f"   json: {json_out}" if json_out else ""), highlight=False, soft_wrap=True)


def register(app: typer.Typer) -> None:
    app.command()(compare)
