"""`droidharness virtual start|profiles|tour`: the embedded virtual Android device on the command line."""

from __future__ import annotations

from pathlib import Path
from typing import Optional

import typer
from rich.console import Console
from rich.table import Table

from harness.cli.defaults import CLOCKS, DEFAULT_PROFILE
from harness.cli.options import check_choice

console = Console()
virtual_app = typer.Typer(no_args_is_help=True, help="The embedded virtual Android device.")


@virtual_app.command("start")
def virtual_start(
    port: int = typer.Option(0, help="TCP port for adb hosts (0 = any free port)."),
    profile: str = typer.Option(DEFAULT_PROFILE, help="Hardware profile (see `droidharness virtual profiles`)."),
    locale: str = typer.Option("en", help="System language: en or zh."),
    latency: str = typer.Option("instant", help="Latency profile: instant or pixel."),
    clock: str = typer.Option(
        "real",
        help="The device's clock: real, or virtual (simulated time: `sleep`, gestures and delays advance it "
        "instead of sleeping; /proc/uptime and logcat read it).",
    ),
    emulator_console: bool = typer.Option(
        False, "--emulator-console", help="Listen on 5555 with an emulator console on 5554 (emulator-5554)."
    ),
    console_port: int = typer.Option(5554, help="Console port with --emulator-console (adb port = +1)."),
    auth: str = typer.Option("none", help="adb authentication: none, accept or unauthorized."),
    adb_server_port: Optional[int] = typer.Option(
        None, envvar="ANDROID_ADB_SERVER_PORT", help="adb server to announce an emulator identity to."
    ),
    grpc_port: Optional[int] = typer.Option(
        None, "--grpc", help="Serve the emulator's gRPC services (EmulatorController, SnapshotService) on this port."
    ),
    grpc_use_token: bool = typer.Option(
        False, "--grpc-use-token", help="gRPC calls must bring the token of the discovery file (Bearer)."
    ),
) -> None:
    """Run a virtual device in the foreground until SIGINT, SIGTERM or SIGHUP (exit 130, 143, 129) or its console's
    `kill` (exit 0); prints its serial."""
    from emulator.virtual import VirtualDevice
    from emulator.virtual.latency import LATENCY_PROFILES
    from emulator.virtual.profiles import PROFILES
    from harness.stopping import stop_on_signals

    check_choice(profile.replace("-", "_").lower(), list(PROFILES), "--profile")
    check_choice(locale, ["en", "zh"], "--locale")
    check_choice(latency, list(LATENCY_PROFILES), "--latency")
    check_choice(clock, list(CLOCKS), "--clock")
    check_choice(auth, ["none", "accept", "unauthorized"], "--auth")
    vd = VirtualDevice(
        profile=profile,
        locale=locale,
        latency=latency,
        port=port,
        auth=auth,
        emulator_console=emulator_console,
        console_port=console_port,
        adb_server_port=adb_server_port or (5037 if emulator_console else None),
        grpc_port=grpc_port,
        grpc_token=grpc_use_token,
        clock=clock,
    )
    if grpc_use_token and grpc_port is None:
        raise typer.BadParameter("--grpc-use-token needs --grpc PORT", param_hint="--grpc-use-token")
    try:
        vd.start()
    except OSError as e:
        raise typer.BadParameter(
            f"cannot listen on port {vd._requested_port}: {e.strerror or e}", param_hint="--port"
        ) from None
    # a stop signal raises `Stopped` (harness.stopping, as for every command; installed here too for a caller
    # other than the console script): the device stops on the way out
    with stop_on_signals():
        try:
            print(vd.serial, flush=True)
            console.print(
                f"[dim]{vd.model.profile.model} {vd.model.display_size[0]}x{vd.model.display_size[1]} "
                f"locale={locale} latency={latency} clock={clock}; `adb connect {vd.address}`"
                + (f"; gRPC on {vd.grpc_address} (discovery: {vd.discovery_file})" if vd.grpc_address else "")
                + "; Ctrl-C stops[/dim]",
                highlight=False,
            )
            while not vd.wait(0.5):
                pass
        finally:
            vd.stop()


@virtual_app.command("profiles")
def virtual_profiles() -> None:
    """List the hardware profiles."""
    from emulator.virtual.profiles import PROFILES

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


def register(app: typer.Typer) -> None:
    app.add_typer(virtual_app, name="virtual")
