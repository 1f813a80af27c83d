"""The `droidharness replay` command: play a recorded dataset episode on a live device and score its fidelity.

    droidharness replay --dataset aitz --data data/aitz --episode 523638528775825151            # virtual app
    droidharness replay --dataset aitw --data aitw/ --episode 1234 --device R58M123ABC --no-reground

With no `--device` the embedded virtual device is started and (by default, `--virtual-app`) the episode is
installed on it as an episode-backed app (`emulator.virtual.apps.episode_app`) and opened before the replay.
With `--device` the device must already show the episode's start screen. The rules are in
`harness.eval.replay_rules`.
Exit status 0 when the replay ran (whatever its fidelity), 2 on errors.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Optional

import typer
from rich.console import Console
from rich.markup import escape
from rich.table import Table

from harness.cli.defaults import DEFAULT_PROFILE, EPISODIC_DATASETS
from harness.errors import ConfigError, HarnessError

console = Console()


def find_episode(dataset: str, data: Path, episode_id: str) -> Any:
    """The episode `episode_id` of `dataset` under `data` (its id, or the name of its file without suffix)."""
    from tasks.datasets.registry import EPISODIC, adapter

    ds = adapter(dataset)
    if not ds.episodic:
        raise ConfigError(f"{ds.name} has no episodes to replay (choose one of: {', '.join(EPISODIC)})")
    seen = 0
    for ep in ds.open(data):
        seen += 1
        if episode_id in (str(ep.episode_id), Path(str(ep.meta.get("file", ""))).stem):
            return ep
    raise ConfigError(f"{dataset} data {data}: no episode {episode_id!r} (read {seen} episode(s))")


def step_table(report: Any) -> Table:
    t = Table(
        "step",
        "recorded",
        "played",
        "re-grounded",
        "hash dist",
        "elements",
        "match",
        title=f"replay of {report.dataset} episode {report.episode_id}",
    )
    for s in report.steps:
        match = {True: "[green]yes[/green]", False: "[red]NO[/red]", None: "[dim]-[/dim]"}[s.matched]
        t.add_row(
            str(s.index),
            s.recorded,
            s.executed or "[dim]skipped[/dim]",
            "[cyan]yes[/cyan]" if s.regrounded else ("confirmed" if s.grounding.startswith("confirmed") else "-"),
            "-" if s.hash_distance is None else f"{s.hash_distance:.3f}",
            "-" if s.element_overlap is None else f"{s.element_overlap:.2f}",
            match,
        )
    return t


def replay(
    dataset: str = typer.Option(
        ..., "--dataset", help=f"{', '.join(EPISODIC_DATASETS)} (or an alias, e.g. gui-odyssey)."
    ),
    data: Path = typer.Option(..., "--data", help="The dataset's files (a folder or a file)."),
    episode: str = typer.Option(..., "--episode", help="Episode id to replay."),
    device: Optional[str] = typer.Option(
        None, "--device", "-s", help="Serial of a device on the adb server (default: the embedded virtual device)."
    ),
    out: Path = typer.Option(Path("runs"), "--out", help="Where the run directory is created."),
    run_id: Optional[str] = typer.Option(None, help="Name of the run directory (default: time-based)."),
    reground: bool = typer.Option(
        True, "--reground/--no-reground", help="Re-ground taps on the live hierarchy (text / content-desc)."
    ),
    virtual_app: Optional[bool] = typer.Option(
        None,
        "--virtual-app/--no-virtual-app",
        help="Install the episode as an app on the virtual device and replay there (default without --device).",
    ),
    profile: str = typer.Option(DEFAULT_PROFILE, help="Virtual device profile (without --device)."),
    adb_port: Optional[int] = typer.Option(
        None, envvar="ANDROID_ADB_SERVER_PORT", help="adb server port (with --device; default 5037)."
    ),
    stop_at_divergence: bool = typer.Option(False, help="Stop at the first step that diverges."),
) -> None:
    """Replay a dataset episode on a live device: re-grounded actions, per-step screen similarity, the first
    divergence and a fidelity score; writes a normal run directory (trajectory + report.html)."""
    from emulator.virtual.apps.episode_app import install_episode_app
    from emulator.virtual.profiles import PROFILES
    from harness.device.controller import AdbDevice
    from harness.eval.replay import replay_episode, replay_task_id
    from harness.eval.replay_rules import recorded_episode
    from harness.report.render import finish_run
    from harness.trajectory.records import ManifestTask
    from harness.trajectory.writer import RunWriter

    if virtual_app is None:
        virtual_app = device is None
    if virtual_app and device is not None:
        raise typer.BadParameter(
            "an episode app can only be installed on the embedded virtual device: drop "
            "--device or pass --no-virtual-app",
            param_hint="--virtual-app",
        )
    if device is None and profile.replace("-", "_").lower() not in PROFILES:
        raise typer.BadParameter(f"{profile!r} is not one of: {', '.join(PROFILES)}", param_hint="--profile")
    try:
        ep = find_episode(dataset, data, episode)
        with AdbDevice.connect(device, adb_port=adb_port, virtual_profile=profile) as dev:
            if virtual_app:
                pkg = install_episode_app(dev.virtual.model, recorded_episode(ep))
                dev.launch(pkg)
                console.print(f"[dim]episode installed as {pkg} on {dev.info.describe()}[/dim]", highlight=False)
            run = RunWriter.create(
                out,
                run_id,
                devices=[dev.info],
                agent={"name": "replay", "dataset": dataset, "episode": str(ep.episode_id), "regrounding": reground},
                tasks=[ManifestTask(id=replay_task_id(ep), instruction={ep.lang or "en": ep.instruction})],
                suite_name=f"replay:{dataset}",
                languages=[ep.lang or "en"],
            )
            with run:
                report = replay_episode(
                    ep, dev, regrounding=reground, writer=run, stop_at_divergence=stop_at_divergence
                )
            finish_run(run)
    except HarnessError as e:
        console.print(f"[red]error:[/red] {escape(str(e))}", highlight=False, soft_wrap=True)
        raise typer.Exit(2) from None
    console.print(step_table(report))
    div = report.first_divergence
    console.print(
        f"fidelity [bold]{report.fidelity:.1%}[/bold] ({report.matched}/{report.compared} steps match)"
        + (f"; re-grounded steps {report.regrounded_steps}" if report.regrounded_steps else ""),
        highlight=False,
    )
    console.print(f"first divergence: step {div.index}: {div.reason}" if div else "no divergence", highlight=False)
    if report.milestones_total is not None:
        console.print(
            f"milestones {len(report.milestones_hit)}/{report.milestones_total} ({report.milestone_progress:.0%})",
            highlight=False,
        )
    console.print(f"run: {run.path}   report: {run.path / 'report.html'}")


def register(app: typer.Typer) -> None:
    app.command()(replay)
