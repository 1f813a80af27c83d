"""The `droidharness` command line."""

from __future__ import annotations

from pathlib import Path
from typing import Optional

import typer
from rich.console import Console
from rich.table import Table

from emulator.virtual.latency import LATENCY_PROFILES
from emulator.virtual.profiles import DEFAULT_PROFILE, PROFILES
from emulator.virtual.stopsignal import StopSignals

app = typer.Typer(add_completion=False, no_args_is_help=True, help="Run and score GUI agents on live Android devices.")
virtual_app = typer.Typer(no_args_is_help=True, help="The embedded virtual Android device.")
app.add_typer(virtual_app, name="virtual")
console = Console()


def _check_choice(value: str, choices: list[str], option: str) -> str:
    if value not in choices:
        raise typer.BadParameter(f"{value!r} is not one of: {', '.join(choices)}", param_hint=option)
    return value


@virtual_app.command("start")
def virtual_start(
    port: int = typer.Option(0, help="TCP port for adb hosts (0 = any free port)."),
    profile: str = typer.Option(DEFAULT_PROFILE, help="Hardware profile (see `droidharness virtual profiles`)."),
    locale: str = typer.Option("en", help="System language: en or zh."),
    latency: str = typer.Option("instant", help="Latency profile: instant or pixel."),
    emulator_console: bool = typer.Option(
        False, "--emulator-console", help="Listen on 5555 with an emulator console on 5554 (emulator-5554)."
    ),
    console_port: int = typer.Option(5554, help="Console port with --emulator-console (adb port = +1)."),
    auth: str = typer.Option("none", help="adb authentication: none, accept or unauthorized."),
    adb_server_port: Optional[int] = typer.Option(
        None, envvar="ANDROID_ADB_SERVER_PORT", help="adb server to announce an emulator identity to."
    ),
) -> None:
    """Run a virtual device in the foreground until SIGINT/SIGTERM; prints its serial."""
    from emulator.virtual import VirtualDevice

    _check_choice(profile.replace("-", "_").lower(), list(PROFILES), "--profile")
    _check_choice(locale, ["en", "zh"], "--locale")
    _check_choice(latency, list(LATENCY_PROFILES), "--latency")
    _check_choice(auth, ["none", "accept", "unauthorized"], "--auth")
    vd = VirtualDevice(
        profile=profile,
        locale=locale,
        latency=latency,
        port=port,
        auth=auth,
        emulator_console=emulator_console,
        console_port=console_port,
        adb_server_port=adb_server_port or (5037 if emulator_console else None),
    )
    try:
        vd.start()
    except OSError as e:
        raise typer.BadParameter(
            f"cannot listen on port {vd._requested_port}: {e.strerror}", param_hint="--port"
        ) from None
    stop = StopSignals()
    try:
        print(vd.serial, flush=True)
        console.print(
            f"[dim]{vd.model.profile.model} {vd.model.display_size[0]}x{vd.model.display_size[1]} "
            f"locale={locale} latency={latency}; `adb connect {vd.address}`; Ctrl-C stops[/dim]",
            highlight=False,
        )
        while not vd.wait(0) and not stop.wait(0.2):
            pass
        vd.stop()
    finally:
        stop.close()  # the handlers as they were (this command can run inside another program)


@virtual_app.command("profiles")
def virtual_profiles() -> None:
    """List the hardware profiles."""
    t = Table("name", "model", "size", "density", "API")
    for p in PROFILES.values():
        t.add_row(p.name, p.model, f"{p.width}x{p.height}", str(p.density), str(p.api_level))
    console.print(t)


@virtual_app.command("tour")
def virtual_tour(
    out: Path = typer.Option(Path("out/tour"), help="Where to write the tour's screenshots and XML."),
) -> None:
    """Start a virtual device behind a private adb server and drive it with the real adbutils and uiautomator2."""
    from harness.cli.tour import run_tour

    run_tour(out, console)


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
    from harness.cli.devices import observe_once

    if device is None:
        _check_choice(profile.replace("-", "_").lower(), list(PROFILES), "--profile")
        _check_choice(locale, ["en", "zh"], "--locale")
    raise typer.Exit(observe_once(console, device, out, adb_port, profile, locale))


from harness.cli.run import register as _register_run_commands  # noqa: E402 - after `app` exists

_register_run_commands(app)
from harness.cli.run import tasks_app as _tasks_app  # noqa: E402
from harness.cli.tasks_families import register as _register_task_families  # noqa: E402

_register_task_families(_tasks_app)
from harness.cli.tasks_record import register as _register_task_record  # noqa: E402

_register_task_record(_tasks_app)

from harness.cli.evaluate import register as _register_eval_command  # noqa: E402 - after `app` exists

_register_eval_command(app)
from harness.cli.qa import register as _register_qa_command  # noqa: E402 - after `app` exists

_register_qa_command(app)
from harness.cli.replay import register as _register_replay_command  # noqa: E402 - after `app` exists

_register_replay_command(app)
from harness.cli.emulator import register as _register_emulator_commands  # noqa: E402 - after `app` exists

_register_emulator_commands(app)
from harness.cli.doctor import register as _register_doctor_command  # noqa: E402 - after `app` exists

_register_doctor_command(app)
from harness.cli.mcp import register as _register_mcp_command  # noqa: E402 - after `app` exists

_register_mcp_command(app)
from harness.cli.compare import register as _register_compare_command  # noqa: E402 - after `app` exists

_register_compare_command(app)
from harness.cli.export import register as _register_export_command  # noqa: E402 - after `app` exists

_register_export_command(app)


def main() -> None:
    """The console script. A `HarnessError` that escapes a command (bad input it did not name itself) is one
    line and exit code 2, never a traceback."""
    from rich.markup import escape

    from harness.errors import HarnessError

    try:
        app()
    except HarnessError as e:
        console.print(f"[red]error:[/red] {escape(str(e))}", highlight=False, soft_wrap=True)
        raise SystemExit(2) from None


if __name__ == "__main__":
    main()
