"""CLI commands of the main job: `run`, `report`, `tasks list|check`."""

from __future__ import annotations

import json
import sys
from contextlib import ExitStack
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Optional

import typer
from rich.console import Console
from rich.markup import escape
from rich.table import Table

from harness.cli import options as cli_options
from harness.cli.defaults import CLOCK_HELP, DEFAULT_PROFILE
from harness.cli.failures import fail
from harness.cli.gcstart import heavy_imports
from harness.cli.tasks_families import register as register_task_families
from harness.cli.tasks_record import register as register_task_record
from harness.errors import ConfigError, HarnessError

if TYPE_CHECKING:  # pragma: no cover
    from harness.run.fleet.kinds import Isolation
    from harness.run.orchestration.suite import SuiteOptions, SuiteResult
    from harness.scoring.episodes import Scoreboard

console = Console()
tasks_app = typer.Typer(no_args_is_help=True, help="Task suites: list and check them.")


def _fail(e: Exception) -> None:
    fail(console, e)


def _warm_ahead(langs: tuple[str, ...], suite: str, task_ids: tuple[str, ...]) -> None:
    """The zygote started ahead is told the suite's apps now, so that it draws their first screens while this
    process imports the rest (~0.4 s); a suite that does not load is said so later, where the run loads it."""
    from emulator.virtual.procdevice import prestart_warm
    from tasks.roles import is_role
    from tasks.suite import suite_packages

    try:
        packages = suite_packages(suite, task_ids)
    except Exception:  # noqa: BLE001 - only a hint: plan_run loads the suite again and names what is wrong
        return
    prestart_warm(langs, tuple(p for p in packages if not is_role(p)))


def _langs(lang: str) -> tuple[str, ...]:
    if lang == "all":
        return ("en", "zh")
    if lang not in ("en", "zh"):
        raise typer.BadParameter(f"{lang!r} is not one of: en, zh, all", param_hint="--lang")
    return (lang,)


def run(
    ctx: typer.Context,
    suite: str = typer.Option(
        "virtual",
        help="A bundled suite name, a folder of task JSON files, or `androidworld` (AndroidWorld's own task classes, "
        "when it is installed: docs/androidworld.md).",
    ),
    agent: str = typer.Option("heuristic", help="Agent: heuristic, reference, random, openai, human, or a plug-in."),
    family: Optional[str] = typer.Option(
        None, help="Run fresh instances of this task family (`tasks families`) instead of a suite; see --instances."
    ),
    instances: int = typer.Option(1, min=1, help="With --family: how many instances, drawn with --seed."),
    devices: int = typer.Option(1, help="Number of embedded virtual devices to run in parallel."),
    isolation: Optional[str] = typer.Option(
        None,
        help="Embedded devices: process (each its own child process, as N emulators; the default) or thread "
        "(threads of this process). Under --ray: where each actor's device runs (default thread: the actor is a "
        "process of its own already; process gives it a child process of the actor).",
    ),
    cpu_affinity: str = typer.Option(
        "auto",
        help="Embedded device processes pinned to cores: auto (each CPU-bound device - --latency instant, or "
        "--clock virtual - on a core of its own when there are at least as many devices as cores), on (any "
        "latency), off.",
    ),
    device: list[str] = typer.Option([], "--device", "-s", help="Serial of a real device (repeatable)."),
    lang: str = typer.Option("all", help="en, zh or all."),
    task: list[str] = typer.Option([], "--task", "-t", help="Run only this task id (repeatable)."),
    out: Path = typer.Option(Path("runs"), help="Where run directories are created."),
    run_id: Optional[str] = typer.Option(None, help="Name of the run directory (default: time-based)."),
    resume: Optional[Path] = typer.Option(None, help="Resume RUN_DIR: run only the missing episodes."),
    model: Optional[str] = cli_options.MODEL,
    base_url: Optional[str] = cli_options.BASE_URL,
    output_format: Optional[str] = cli_options.OUTPUT_FORMAT,
    cassette: Optional[Path] = cli_options.CASSETTE,
    cassette_mode: Optional[str] = cli_options.CASSETTE_MODE,
    max_steps: Optional[int] = typer.Option(None, help="Override every task's max_steps."),
    profile: str = typer.Option(DEFAULT_PROFILE, help="Virtual device profile."),
    latency: str = typer.Option("instant", help="Virtual device latency profile: instant or pixel."),
    clock: str = typer.Option("real", help=CLOCK_HELP),
    seed: int = typer.Option(0, help="Base seed (per-episode seeds derive from it and are recorded)."),
    report: bool = typer.Option(True, help="Write report.html at the end."),
    frames: str = typer.Option(
        "webp",
        help="How screenshots that come as pixels are stored: webp (lossless, smallest) or png (lossless, "
        "~4x less CPU to write, ~2x the bytes). A device's own JPEG / PNG screenshot is kept as sent.",
    ),
    probe_agent: str = typer.Option(
        "auto",
        help="Who answers the tasks' probe questions: auto (the agent's own QA mode if it has one, else "
        "lexical), none, or a QA agent (lexical, openai, a plug-in).",
    ),
    ray: bool = typer.Option(
        False,
        "--ray",
        help="Run the episodes as Ray actors, each owning one embedded device (docs/ray.md): alone, on a local "
        "Ray instance started for the run; with --ray-address, on that cluster's nodes.",
    ),
    ray_address: Optional[str] = typer.Option(
        None, help="The Ray cluster to run on: HOST:PORT of its head, ray://HOST:PORT or auto (implies --ray)."
    ),
    avd: Optional[str] = typer.Option(
        None,
        help="Run on --devices N read-only copies of this AVD, started headless for the run and stopped after "
        "(docs/emulators.md); reset between episodes by a boot snapshot.",
    ),
    avd_boot_timeout: float = typer.Option(300.0, help="Seconds each AVD copy may take to boot."),
    adb_port: Optional[int] = typer.Option(
        None,
        "--adb-port",
        min=1,
        max=65535,
        help="With --avd: the adb server the copies announce themselves to (it must answer). Default: yours on "
        "$ANDROID_ADB_SERVER_PORT or 5037 when it answers, else a private one started and stopped with the run.",
    ),
    price: Optional[str] = typer.Option(
        None,
        "--price",
        help="IN/OUT: USD per million input/output tokens (e.g. 2.5/10), or a JSON price table file by model "
        "name: the cost per step, episode and run in the live view, summary.json and the report.",
    ),
    perturb: Optional[str] = typer.Option(
        None,
        "--perturb",
        help="Run every episode under these perturbations, comma-separated (docs/robustness.md): dark, "
        "font=SCALE, size=WxH, density=DPI, landscape, locale=TAG, animations, notification, "
        "dialog[=anr|battery|permission], popup[=rate|promo]. A perturbation a task "
        "checks is not applied to it; what each episode got is in its episode.json.",
    ),
    perturb_seed: int = typer.Option(
        0, "--perturb-seed", help="Seed of the interruptions' steps (drawn with each episode's seed)."
    ),
    aw_seed: int = typer.Option(
        30, "--aw-seed", help="--suite androidworld: the seed of its task parameters (its run.py's --task_random_seed)."
    ),
    aw_combinations: int = typer.Option(
        1, "--aw-combinations", min=1, help="--suite androidworld: instances per task class (its n_task_combinations)."
    ),
    like: Optional[Path] = typer.Option(
        None,
        "--like",
        help="Run again with the settings RUN_DIR was made with (its manifest); options given here override. "
        "Secrets come from the environment.",
    ),
) -> None:
    """Run an agent over a task suite and score it live (with no options: the virtual suite, heuristic agent,
    one embedded device, both languages).

    Exit codes: 0 every episode scored; 2 bad input (nothing ran); 3 finished, but some episodes are
    infrastructure failures or unfinished (listed, not scored), or stopped because the disk is full (one line:
    what to free; `--resume` completes it); 4 no episode could be scored; 130 / 143 / 129 stopped by SIGINT /
    SIGTERM / SIGHUP (the episodes in flight left unfinished, the devices stopped; `--resume` completes it)."""
    with heavy_imports():  # no collection while they run, then frozen out of every later one
        if like is None and not device and avd is None and not (ray or ray_address) and isolation in (None, "process"):
            # before the heavy imports below: the device zygote imports and warms up meanwhile, on another core
            from emulator.virtual.procdevice import prestart_zygote, stop_prestarted

            ahead = ("en", *_langs(lang)) if lang in ("en", "zh", "all") else ("en",)
            if prestart_zygote(profile, ahead):
                ctx.call_on_close(stop_prestarted)  # the run took it, or it failed before its pool
                if not family and suite != OUTSIDE_SUITE:
                    _warm_ahead(ahead, suite, tuple(task))
                from emulator.virtual.adbserver import prestart_server, stop_prestarted_server

                prestart_server()  # the pool's adb server, started meanwhile too
                ctx.call_on_close(stop_prestarted_server)
        from emulator.virtual.latency import LATENCY_PROFILES
        from harness.cli.rerun import like_options, priced_model, recorded_options, run_cost_line
        from harness.perturbation import parse_perturbations
        from harness.run.fleet.affinity import check_policy
        from harness.run.loop.episode import Limits
        from harness.run.orchestration.suite import SuiteOptions
        from harness.scoring.cost import resolve_price
        from harness.trajectory.diskfull import is_disk_full
        from harness.trajectory.frames import WriterOptions
        from tasks.families.registry import family_spec

    if like is not None:  # the recorded options, overridden by those given here; recorded again as this run's
        try:
            ctx.params = like_options(ctx, like)
        except HarnessError as e:
            _fail(e)
        if ctx.command.callback is not None:
            ctx.invoke(ctx.command.callback, **ctx.params)
        return
    if latency not in LATENCY_PROFILES:
        raise typer.BadParameter(f"{latency!r} is not one of: {', '.join(LATENCY_PROFILES)}", param_hint="--latency")
    cli_options.check_clock(clock, device, avd)
    if frames not in ("webp", "png"):
        raise typer.BadParameter(f"{frames!r} is not one of: webp, png", param_hint="--frames")
    try:
        affinity = check_policy(cpu_affinity)
    except ConfigError as err:
        raise typer.BadParameter(str(err)) from None
    if isolation not in (None, "process", "thread"):
        raise typer.BadParameter(f"{isolation!r} is not one of: process, thread", param_hint="--isolation")
    # unset: a child process per device locally; under Ray the actor's choice (harness.run.orchestration.distributed)
    chosen: Isolation | None = "thread" if isolation == "thread" else "process" if isolation else None
    if chosen is None and not (ray or ray_address):
        chosen = "process"
    probe_options: dict[str, object] = {}
    if probe_agent == "openai" and agent != "openai":  # the model options are the probe agent's
        probe_options = cli_options.agent_options(probe_agent, model, base_url, output_format, cassette, cassette_mode)
        model = base_url = output_format = cassette_mode = None
        cassette = None
    options = cli_options.agent_options(agent, model, base_url, output_format, cassette, cassette_mode)
    try:
        perturbations = parse_perturbations(perturb or "")
    except ConfigError as err:
        _fail(err)
    opts = SuiteOptions(
        suite=family_spec(family, seed, instances) if family else suite,
        langs=_langs(lang),
        task_ids=tuple(task),
        agent=agent,
        agent_options=options,
        devices=devices,
        isolation=chosen,
        cpu_affinity=affinity,
        serials=tuple(device),
        profile=profile,
        latency=latency,
        clock=clock,
        out=out,
        run_id=run_id,
        resume=resume,
        limits=Limits(max_steps=max_steps),
        seed=seed,
        report=report,
        writer=WriterOptions(frames=frames),
        probe_agent=probe_agent,
        probe_agent_options=probe_options,
        rerun=recorded_options(ctx),
        final_line=True,  # _print_board
        perturb=perturbations,
        perturb_seed=perturb_seed,
    )
    if suite == OUTSIDE_SUITE and not family:
        opts = _androidworld(opts, aw_seed, aw_combinations, lang)
    if avd is not None and (device or ray or ray_address):
        raise typer.BadParameter("--avd starts its own emulators: give no --device or --ray", param_hint="--avd")
    if adb_port is not None and avd is None:
        raise typer.BadParameter("the adb server of --avd's emulators: give --avd NAME too", param_hint="--adb-port")
    try:
        if price is not None:  # a price table is looked up by the agent's model
            opts = replace(opts, price=resolve_price(price, priced_model(agent, options)))
        with ExitStack() as stack:
            if avd is not None:
                from harness.run.fleet.avd import avd_copies

                serials = stack.enter_context(avd_copies(avd, devices, adb_port=adb_port, timeout=avd_boot_timeout))
                opts = replace(opts, serials=tuple(serials))
            res = _run(opts, ray, ray_address)
    except (HarnessError, OSError) as e:  # bad input: exit 2; a full disk (said by the writers, or not): exit 3
        if isinstance(e, HarnessError) or is_disk_full(e):
            fail(console, e)
        raise
    _print_board(res.board)
    if opts.outside is not None:
        _print_androidworld(res.run_dir)
    if opts.price is not None:
        console.print(f"cost {run_cost_line(res.run_dir)} at {opts.price}", highlight=False, soft_wrap=True)
    if res.skipped:
        console.print(f"{len(res.results)} episode(s) run now, {res.skipped} already done", highlight=False)
    console.print(f"run: {res.run_dir}" + (f"   report: {res.run_dir / 'report.html'}" if report else ""))
    raise typer.Exit(res.exit_code)


OUTSIDE_SUITE = "androidworld"


def _androidworld(opts: SuiteOptions, seed: int, combinations: int, lang: str) -> SuiteOptions:
    """AndroidWorld's suite (harness.androidworld): its task classes, in English; one line and exit 2 when it is
    not installed."""
    from harness.androidworld.binding import INSTALL_HINT, available

    if not available():
        _fail(ConfigError(INSTALL_HINT))
    if lang == "zh":
        _fail(ConfigError("--suite androidworld: AndroidWorld's goals are in English; use --lang en"))
    from harness.androidworld.suite import AwSuite

    try:
        outside = AwSuite(seed=seed, combinations=combinations, classes=opts.task_ids)
        outside.instances()
    except HarnessError as e:
        _fail(e)
    return replace(opts, langs=("en",), outside=outside)


def _run(opts: SuiteOptions, ray: bool, ray_address: str | None) -> SuiteResult:
    from harness.run.orchestration.suite import run_suite

    if ray or ray_address:  # Ray is imported only here, and only by harness.run.orchestration.distributed
        from harness.run.orchestration.distributed import RayTarget, run_suite_ray

        return run_suite_ray(opts, RayTarget(ray_address), console)
    return run_suite(opts, console)


def _print_board(board: Scoreboard) -> None:
    """The final line every run prints (the same `harness.scoring.episodes.headline` as summary.json and the report),
    then the episodes that were not scored, each with its reason."""
    from harness.scoring.episodes import EXIT_OK, headline

    style = "bold" if board.exit_code == EXIT_OK else "bold yellow"
    console.print(f"[{style}]{escape(headline(board.overall))}[/{style}]", highlight=False, soft_wrap=True)
    for o in board.infra_failures:
        console.print(
            escape(f"  not scored: {o.task_id} [{o.lang}] {o.status} after {o.attempts} attempt(s): {o.error or ''}"),
            highlight=False,
            soft_wrap=True,
        )
    for o in board.skipped:
        console.print(escape(f"  skipped: {o.task_id} [{o.lang}]: {o.error or ''}"), highlight=False, soft_wrap=True)


def _print_androidworld(run_dir: Path) -> None:
    """AndroidWorld's own figure of the run (summary.json `androidworld`), beside the harness's SR."""
    try:
        fig = json.loads((run_dir / "summary.json").read_text()).get("androidworld") or {}
    except (OSError, ValueError):
        return
    rate = fig.get("success_rate")
    if rate is not None:
        console.print(f"AndroidWorld's figure (its runner's mean over {fig.get('classes')} classes): {rate:.1%}")


def report(run_dir: Path = typer.Argument(..., help="A run directory (runs/<run_id>).")) -> None:
    """Write (or rewrite) RUN_DIR/report.html and summary.json from the recorded trajectories."""
    from harness.report.render import finish_run
    from harness.report.summary import run_scoreboard
    from harness.trajectory.reader import load_run
    from harness.trajectory.writer import RunWriter

    try:
        w = RunWriter.resume(run_dir)
        finish_run(w, report=True)
        run = load_run(run_dir, skip_bad=True)
        board = run_scoreboard(run)
    except HarnessError as e:
        _fail(e)
        return
    if run.kind == "qa":  # a `qa run` directory: its QA summary (harness.report.summary.run_summary)
        from harness.cli.qa import print_qa_summary
        from harness.report.summary import summarize

        print_qa_summary(summarize(run))
    else:
        _print_board(board)
        _print_androidworld(run_dir)
    console.print(f"report: {run_dir / 'report.html'}")


@tasks_app.command("list")
def tasks_list(
    suite: str = typer.Argument("virtual", help="Suite name or folder."),
    as_json: bool = typer.Option(False, "--json", help="Print JSON instead of a table."),
    ids: Optional[bool] = typer.Option(
        None, "--ids/--table", help="One task id per line (default when piped) or a table."
    ),
) -> None:
    """List the tasks of a suite (`droidharness tasks list | droidharness tasks check --task -` checks them)."""
    from tasks.schema import CATEGORY_NAMES
    from tasks.suite import load_suite

    try:
        if suite == OUTSIDE_SUITE:  # AndroidWorld's instances under its default seed (docs/androidworld.md)
            from harness.androidworld.binding import INSTALL_HINT, available
            from harness.androidworld.suite import AwSuite

            if not available():
                raise ConfigError(INSTALL_HINT)
            tasks = AwSuite().tasks()
        else:
            tasks = load_suite(suite)
    except HarnessError as e:
        _fail(e)
        return
    if as_json:
        print(
            json.dumps(
                [
                    {
                        "id": t.id,
                        "category": t.category,
                        "apps": list(t.apps),
                        "instruction": t.instruction,
                        "milestones": len(t.milestones.leaves()),
                    }
                    for t in tasks
                ],
                ensure_ascii=False,
                indent=1,
            )
        )
        return
    if ids or (ids is None and not sys.stdout.isatty()):
        print("\n".join(t.id for t in tasks))
        return
    table = Table("id", "category", "apps", "milestones", "instruction (en)", title=f"suite {suite}")
    for t in tasks:
        table.add_row(
            t.id,
            f"{t.category} {CATEGORY_NAMES[t.category]}",
            str(len(t.apps)),
            str(len(t.milestones.leaves())),
            t.instruction.get("en", next(iter(t.instruction.values()))),
        )
    console.print(table)


@tasks_app.command("check")
def tasks_check(
    suite: str = typer.Argument("virtual", help="Suite name or folder."),
    lang: str = typer.Option("all", help="en, zh or all."),
    profile: str = typer.Option(DEFAULT_PROFILE, help="Virtual device profile."),
    device: Optional[str] = typer.Option(None, "--device", "-s", help="Check on this real device."),
    in_process: bool = typer.Option(
        False,
        "--in-process",
        help="Check on a virtual device in this process, driven with no adb server (the fastest check of a suite "
        "for the embedded device; what the tests use).",
    ),
    task: list[str] = typer.Option(
        [], "--task", "-t", help="Check only this task id (repeatable); '-' reads ids from stdin, one per line."
    ),
    portable: bool = typer.Option(
        False,
        "--portable",
        help="A task that is not portable (apps by role, checks by state or text, steps located by text) is "
        "unsound; always on for the bundled 'portable' suite.",
    ),
) -> None:
    """Prove every task sound: no final milestone holds and the end state does not hold at the start, a
    do-nothing agent (HOME, then COMPLETE) scores 0, and the reference solution reaches 100% with the end state
    holding; with --portable (always for the bundled 'portable' suite) also that the task runs on other devices
    (apps by role, checks by state or text, steps located by text), the verdict saying why not. Exit code 1 when a
    task is unsound."""
    from harness.run.authoring.task_check import check_task
    from harness.run.fleet.pool import DevicePool
    from harness.run.orchestration.suite import select_tasks
    from tasks.suite import is_portable_suite, load_suite

    try:
        tasks = load_suite(suite)
        portable = portable or is_portable_suite(suite)
        wanted = [w for t in task for w in (sys.stdin.read().split() if t == "-" else [t])]
        tasks = select_tasks(tasks, tuple(dict.fromkeys(wanted)))
    except HarnessError as e:
        _fail(e)
        return
    langs = _langs(lang)
    columns = ["task", "lang", "start ok", "do-nothing", "reference progress", "steps", "verdict"]
    table = Table(title=f"tasks check {suite}")
    for name in columns[:-1] + ["portable"] + columns[-1:] if portable else columns:
        # a task id is never cut (it is what a user greps for and pipes on); the verdict wraps instead
        wide = name == "task"
        table.add_column(name, no_wrap=wide, min_width=max((len(t.id) for t in tasks), default=4) if wide else None)
    bad = 0
    try:
        if in_process and device:
            raise ConfigError("--in-process checks on the embedded virtual device: give no --device")
        pool = DevicePool(
            1, [device] if device else [], profile=profile, isolation="in_process" if in_process else None
        ).start()
    except HarnessError as e:
        _fail(e)
        return
    try:  # the pool is started: close it (its __enter__ would start it again)
        for t in tasks:
            for lg in [x for x in langs if x in t.languages]:
                try:
                    pool.reset(0)
                    pool.ensure_locale(0, lg)
                    r = check_task(t, lg, pool.slot(0), portable=portable)
                except HarnessError as e:
                    bad += 1
                    table.add_row(t.id, lg, *["?"] * (len(table.columns) - 3), f"[red]error: {escape(str(e))}[/red]")
                    pool.replace(0)
                    continue
                bad += not r.ok
                start = "yes" if not r.start_violations else f"[red]no: {', '.join(r.start_violations)}[/red]"
                verdict = (
                    "[green]sound[/green]" if r.ok else f"[red]unsound{': ' + escape(r.error) if r.error else ''}[/red]"
                )
                idle = f"{r.idle_progress:.0%}" if r.idle_ok else f"[red]{r.idle_progress:.0%}[/red]"
                port = ["yes" if not r.not_portable else "[red]no[/red]"] if portable else []  # why not: the verdict
                table.add_row(t.id, lg, start, idle, f"{r.progress:.0%}", str(r.steps), *port, verdict)
    finally:
        pool.close()
    console.print(table)
    console.print(f"{bad} problem(s)" if bad else "[green]every task is sound[/green]")
    raise typer.Exit(1 if bad else 0)


register_task_families(tasks_app)  # `tasks families`, `tasks instantiate`
register_task_record(tasks_app)  # `tasks record`


def register(app: typer.Typer) -> None:
    app.command()(run)
    app.command()(report)
    app.add_typer(tasks_app, name="tasks")
