"""`droidharness export`: an episode as a GIF / MP4, or a run (or a dataset) as SFT samples (docs/export.md)."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Optional

import typer
from rich.console import Console

from harness.cli.defaults import ANIMATION_FORMATS, DEFAULT_FRAME_MS, DEFAULT_WIDTH
from harness.cli.failures import fail
from harness.errors import HarnessError

if TYPE_CHECKING:  # pragma: no cover
    from harness.export.sft import SFTOptions

console = Console()
EXPORT_FORMATS = (*ANIMATION_FORMATS, "sft")


def export(
    run_dir: Optional[Path] = typer.Argument(None, help="A run directory (runs/<run_id>)."),
    fmt: str = typer.Option(..., "--format", help="gif or mp4 (one episode), sft (training samples)."),
    episode: Optional[str] = typer.Option(
        None, "--episode", help="gif / mp4: the episode's folder under episodes/, or a task id with one episode."
    ),
    out: Optional[Path] = typer.Option(
        None, help="gif / mp4: the file (default RUN/exports/<episode>.<format>); sft: DIR/data.jsonl."
    ),
    frame_ms: int = typer.Option(DEFAULT_FRAME_MS, help="gif / mp4: how long each frame shows, milliseconds."),
    width: int = typer.Option(DEFAULT_WIDTH, help="gif / mp4: frame width in pixels."),
    output_format: str = typer.Option("json", help="sft: the target's output format: json, agentcpm, uitars, qwen."),
    coordinate_space: str = typer.Option(
        "image_pixels", help="sft, uitars / qwen: image_pixels (of the resized screen) or relative_1000."
    ),
    max_image_side: int = typer.Option(1344, help="sft: the long side of the screen the prompt describes."),
    max_history: int = typer.Option(8, help="sft: earlier steps shown in the history."),
    success_only: bool = typer.Option(False, "--success-only", help="sft: only episodes that succeeded."),
    min_progress: float = typer.Option(0.0, help="sft: only episodes with at least this progress (0..1)."),
    lang: list[str] = typer.Option([], "--lang", help="sft: only this language (repeatable)."),
    dataset: Optional[str] = typer.Option(None, help="sft: a dataset's episodes instead of a run (e.g. aitz)."),
    data: Optional[Path] = typer.Option(None, help="sft with --dataset: the dataset's files."),
    images: Optional[Path] = typer.Option(None, help="sft with --dataset: the screenshots folder, if separate."),
    copy: bool = typer.Option(False, "--copy", help="sft: copy the screenshots instead of hard-linking them."),
    validate: bool = typer.Option(
        False, "--validate", help="sft: check the samples against the schema (alone: check --out's file)."
    ),
) -> None:
    """Export an episode as a GIF / MP4, or a run or a dataset as SFT samples (one per step)."""
    from harness.export.episodes import ExportError
    from harness.export.sft import SFTOptions

    try:
        if fmt not in EXPORT_FORMATS:
            raise ExportError(f"--format {fmt!r} is not one of {', '.join(EXPORT_FORMATS)}")
        if fmt == "sft":
            _sft(
                run_dir,
                out,
                SFTOptions(
                    output_format=output_format,
                    coordinate_space=coordinate_space,
                    max_image_side=max_image_side,
                    max_history=max_history,
                    success_only=success_only,
                    min_progress=min_progress,
                    langs=tuple(lang),
                    link=not copy,
                ),
                dataset,
                data,
                images,
                validate,
            )
        else:
            _animation(run_dir, fmt, episode, out, frame_ms, width)
    except HarnessError as e:
        fail(console, e)


def _animation(
    run_dir: Path | None, fmt: str, episode: str | None, out: Path | None, frame_ms: int, width: int
) -> None:
    from harness.export.animation import export_animation
    from harness.export.episodes import ExportError, find_episode, open_run
    from harness.report.render import write_report
    from harness.trajectory.records import EXPORTS_DIR

    if run_dir is None:
        raise ExportError(f"--format {fmt}: name the run directory (droidharness export RUN --episode ID)")
    if not episode:
        raise ExportError(f"--format {fmt}: name the episode with --episode (its folder under episodes/, or a task id)")
    run = open_run(run_dir)
    ep = find_episode(run, episode)
    target = out if out is not None else run.path / EXPORTS_DIR / f"{ep.key}.{fmt}"
    made = export_animation(run, ep, target, fmt, frame_ms, width)
    shape = f"{made.frames} frames, {made.size[0]}x{made.size[1]}, {frame_ms} ms each"
    console.print(f"{made.path}: {shape}", highlight=False, soft_wrap=True)
    report = run.path / "report.html"
    if out is None and report.is_file():  # the report links what RUN/exports/ holds
        write_report(run.path)
        console.print(f"report: {report} links it", highlight=False, soft_wrap=True)


def _sft(
    run_dir: Path | None,
    out: Path | None,
    options: SFTOptions,
    dataset: str | None,
    data: Path | None,
    images: Path | None,
    validate: bool,
) -> None:
    from harness.export.episodes import ExportError, open_run
    from harness.export.sft import SFTStats, dataset_episodes, dataset_steps, export_sft, run_steps
    from harness.export.sft_schema import validate_file

    if out is None:
        raise ExportError("--format sft: name the samples file with --out DIR/data.jsonl")
    if run_dir is None and dataset is None:
        if not validate:
            raise ExportError("--format sft: name a run directory, or --dataset NAME --data PATH")
        console.print(f"{out}: {validate_file(out)} samples valid", highlight=False, soft_wrap=True)
        return
    if run_dir is not None and dataset is not None:
        raise ExportError("--format sft: a run directory or --dataset, not both")
    stats = SFTStats()
    if dataset is not None:
        if data is None:
            raise ExportError(f"--dataset {dataset}: name its files with --data")
        episodes = dataset_episodes(dataset, data, str(images) if images else None, options)
        steps = dataset_steps(episodes, options, stats)
    else:
        assert run_dir is not None
        steps = run_steps(open_run(run_dir), options, stats)
    export_sft(steps, out, options, stats)
    console.print(f"{out}: {stats.line()}", highlight=False, soft_wrap=True)
    if validate:
        console.print(f"{out}: {validate_file(out)} samples valid", highlight=False, soft_wrap=True)


def register(app: typer.Typer) -> None:
    app.command()(export)
