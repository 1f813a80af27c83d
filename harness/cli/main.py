"""The `droidharness` command line."""

from __future__ import annotations

from pathlib import Path
from typing import Optional

import typer
from rich.console import Console

from harness.cli.defaults import DEFAULT_PROFILE
from harness.cli.lazy import LazyCommand, LazyGroup
from harness.cli.options import check_choice
from harness.stopping import Stopped, stop_on_signals, stopped

# Every other command, by the module that registers it and the first paragraph of its help (what the list of
# commands shows): a module is imported only when one of its commands runs (harness/cli/lazy.py).
COMMANDS = (
    LazyCommand(
        "run",
        "harness.cli.run",
        "Run an agent over a task suite and score it live (with no options: the virtual suite, heuristic agent,\n"
        "one embedded device, both languages).",
    ),
    LazyCommand(
        "report",
        "harness.cli.run",
        "Write (or rewrite) RUN_DIR/report.html and summary.json from the recorded trajectories.",
    ),
    LazyCommand(
        "eval",
        "harness.cli.evaluate",
        "Score an agent (or a predictions file) offline with the dataset's official metric.",
    ),
    LazyCommand(
        "replay",
        "harness.cli.replay",
        "Replay a dataset episode on a live device: re-grounded actions, per-step screen similarity, the first\n"
        "divergence and a fidelity score; writes a normal run directory (trajectory + report.html).",
    ),
    LazyCommand(
        "doctor",
        "harness.cli.doctor",
        "Check that a run would work here: adb, the adb server and devices, uiautomator2, text input, screen,\n"
        "Android version, locale, the SDK, the emulator and acceleration. Exit 0 when no check fails.",
    ),
    LazyCommand(
        "mcp",
        "harness.cli.mcp",
        "Serve a device as MCP tools: observe, click, long_press, swipe, scroll, type_text, press_key, open_app,\n"
        "list_apps, wait, task_status, complete. Every action is a step recorded in the trajectory format (a run\n"
        "directory under --out) and, with --task, scored live like a run. No shell tool.",
    ),
    LazyCommand(
        "compare",
        "harness.cli.compare",
        "Compare runs on the episodes (task and language) they share: each run's SR / ATP, the episodes that\n"
        "flipped each way, an exact McNemar test on success and a paired bootstrap interval on progress against the\n"
        "first run, breakdowns by category, language and app count, a per-episode table (success, progress, steps,\n"
        "tokens, cost) and a page with every shared episode's steps side by side. Exit code 2 on bad input (a missing\n"
        "run, a run still going, runs sharing no episode).",
    ),
    LazyCommand(
        "export",
        "harness.cli.export",
        "Export an episode as a GIF / MP4, or a run or a dataset as SFT samples (one per step).",
    ),
    LazyCommand("virtual", "harness.cli.virtual", "The embedded virtual Android device."),
    LazyCommand("tasks", "harness.cli.run", "Task suites: list and check them."),
    LazyCommand("qa", "harness.cli.qa", "Screen question answering on live apps (ScreenQA)."),
    LazyCommand("emulator", "harness.cli.emulator", "Android Emulator AVDs: create, start, snapshot, stop, list."),
)


class Commands(LazyGroup):
    lazy = COMMANDS


app = typer.Typer(
    cls=Commands, add_completion=False, no_args_is_help=True, help="Run and score GUI agents on live Android devices."
)
console = Console()


@app.command()
def devices(
    adb_host: Optional[str] = typer.Option(
        None, envvar="ANDROID_ADB_SERVER_HOST", help="adb server host (default 127.0.0.1)."
    ),
    adb_port: Optional[int] = typer.Option(
        None, envvar="ANDROID_ADB_SERVER_PORT", help="adb server port (default 5037)."
    ),
) -> None:
    """List the devices connected to the adb server: serial, state, model, size, API level."""
    from harness.cli.devices import list_devices

    raise typer.Exit(list_devices(console, adb_host, adb_port))


@app.command()
def observe(
    device: Optional[str] = typer.Option(
        None,
        "--device",
        "-s",
        help="Serial of a device on the adb server; without it the embedded virtual device is started.",
    ),
    out: Path = typer.Option(Path("out/observe"), help="Directory for screen.png, screen.xml, overlay.png."),
    adb_port: Optional[int] = typer.Option(
        None, envvar="ANDROID_ADB_SERVER_PORT", help="adb server port (with --device; default 5037)."
    ),
    profile: str = typer.Option(DEFAULT_PROFILE, help="Virtual device profile (without --device)."),
    locale: str = typer.Option("en", help="Virtual device locale en|zh (without --device)."),
) -> None:
    """Capture one observation: screenshot PNG, hierarchy XML and a numbered-element overlay PNG."""
    from emulator.virtual.profiles import PROFILES
    from harness.cli.devices import observe_once

    if device is None:
        check_choice(profile.replace("-", "_").lower(), list(PROFILES), "--profile")
        check_choice(locale, ["en", "zh"], "--locale")
    raise typer.Exit(observe_once(console, device, out, adb_port, profile, locale))


def main() -> None:
    """The console script. A `HarnessError` that escapes a command (bad input it did not name itself) is one
    line and exit code 2, never a traceback. SIGINT, SIGTERM and SIGHUP stop every command the same way
    (`harness.stopping`): what it started is stopped on the way out, its last lines say what was left and which
    signal stopped it (on stderr), and it exits 128 + the signal's number (130, 143, 129)."""
    from rich.markup import escape

    from harness.cli.gcstart import own_process
    from harness.errors import HarnessError

    own_process()

    with stop_on_signals():
        try:
            app()
        except HarnessError as e:
            console.print(f"[red]error:[/red] {escape(str(e))}", highlight=False, soft_wrap=True)
            raise SystemExit(2) from None
        except BaseException as e:
            # a stop, or what it broke on the way out (a write to the terminal a SIGHUP closed): said, and the
            # signal's exit code; anything else, as it was
            stop = e if isinstance(e, Stopped) else stopped()
            if stop is None:
                raise
            say_stopped(stop)
            raise SystemExit(stop.code) from None


def say_stopped(stop: Stopped) -> None:
    """The last lines of a stopped command, on stderr: the notes added on the way out, then the signal. A
    terminal that is gone (SIGHUP) takes nothing, which is no reason to fail."""
    err = Console(stderr=True)
    try:
        for note in stop.notes:
            err.print(note, highlight=False, soft_wrap=True, markup=False)
        err.print(f"{stop}", highlight=False, soft_wrap=True, markup=False)
    except OSError:
        pass


if __name__ == "__main__":
    main()
