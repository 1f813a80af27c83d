"""`droidharness emulator`: the AVD lifecycle (emulator/avd) on the command line.

    droidharness emulator create NAME [--profile pixel_7_pro] [--image PKG] [--no-install]
    droidharness emulator start NAME [--port 5554] [--read-only] [--adb-port N] [--no-wait] [--timeout S]
    droidharness emulator snapshot save|load|delete SNAPSHOT [--device emulator-5554]
    droidharness emulator snapshot list [--device emulator-5554]
    droidharness emulator stop DEVICE|--all
    droidharness emulator list

Errors are one line (a boot that fails adds the emulator log's tail): exit 2 for bad input or setup (no SDK:
what to set; an unknown AVD: the ones there are; a wrong console token), 1 when the emulator itself fails.
`start` waits for the boot through your adb server when one answers (or the one `--adb-port` names), else through
a private one it starts and stops (`emulator.avd.server`). `harness.run.fleet.avd.as_harness_error` is the one mapping
of the AVD lifecycle's errors onto the harness's taxonomy.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Optional

import typer
from rich.console import Console
from rich.markup import escape
from rich.table import Table

from harness.cli.defaults import AVD_PROFILES

if TYPE_CHECKING:  # pragma: no cover
    from emulator.avd import RunningEmulator, Sdk

console = Console()

emulator_app = typer.Typer(no_args_is_help=True, help="Android Emulator AVDs: create, start, snapshot, stop, list.")
snapshot_app = typer.Typer(no_args_is_help=True, help="Snapshots of a running emulator, through its console.")
emulator_app.add_typer(snapshot_app, name="snapshot")

DEVICE = typer.Option(
    None, "--device", "-s", help="Serial (emulator-5554), console port or AVD name; default: the only one running."
)


@contextmanager
def _answers() -> Iterator[None]:
    """One line for an AvdError (plus the log's tail it carries), exit 2 for bad input, 1 otherwise."""
    from emulator.avd import AvdError

    try:
        yield
    except AvdError as e:
        first, _, rest = str(e).partition("\n")
        console.print(f"[red]error:[/red] {escape(first)}", highlight=False, soft_wrap=True)
        if rest:
            console.print(f"[dim]{escape(rest)}[/dim]", highlight=False, soft_wrap=True)
        raise typer.Exit(2 if e.bad_input else 1) from None


def _sdk(*tools: str) -> Sdk:
    from emulator.avd import find_sdk
    from emulator.avd.errors import SdkNotFoundError

    sdk = find_sdk()
    if not sdk.found:
        raise SdkNotFoundError(
            f"no Android SDK found: {sdk.problems.get('emulator', 'not found')}; set ANDROID_HOME "
            "to your Android SDK (or put its emulator/ and cmdline-tools/latest/bin/ on PATH)"
        )
    for tool in tools:
        sdk.require(tool)
    return sdk


def _image_installed(sdk: Sdk, package: str) -> bool:
    return sdk.root is not None and sdk.root.joinpath(*package.split(";")).is_dir()


@emulator_app.command("create")
def emulator_create(
    name: str = typer.Argument(..., help="AVD name (letters, digits, . _ -)."),
    profile: str = typer.Option("medium_phone", help="Device profile: " + ", ".join(AVD_PROFILES) + "."),
    image: Optional[str] = typer.Option(
        None, help="System image package (default: Google APIs of the profile's API level for this CPU)."
    ),
    install: bool = typer.Option(True, help="Install the system image with sdkmanager if it is missing."),
) -> None:
    """Create an AVD for one of the virtual device's profiles (`avdmanager create avd ... --force`)."""
    from emulator.avd import create_avd, default_image, install_image

    with _answers():
        sdk = _sdk("avdmanager")
        package = image or default_image(profile)
        if install and not _image_installed(sdk, package):
            console.print(f"installing {escape(package)} (licenses accepted) ...", highlight=False)
            install_image(sdk, package)
        create_avd(sdk, name, package, profile)
    console.print(f"created AVD [bold]{escape(name)}[/bold] ({escape(profile)}, {escape(package)})", highlight=False)


@emulator_app.command("start")
def emulator_start(
    name: str = typer.Argument(..., help="The AVD to start."),
    port: Optional[int] = typer.Option(
        None,
        help="Console port (even, 5554..5682; default: the first free pair in 5554..5584, "
        "or in $DROIDHARNESS_EMULATOR_PORTS).",
    ),
    read_only: bool = typer.Option(False, "--read-only", help="A read-only copy (several can run at once)."),
    adb_port: Optional[int] = typer.Option(
        None,
        "--adb-port",
        min=1,
        max=65535,
        help="The adb server to announce it to (it must answer). Default: yours on $ANDROID_ADB_SERVER_PORT or "
        "5037 when it answers, else a private one for the boot wait, stopped after it.",
    ),
    wait: bool = typer.Option(True, help="Wait for a full boot (boot_completed, package manager, uiautomator2)."),
    timeout: float = typer.Option(300.0, help="Seconds to wait for the boot."),
) -> None:
    """Start an AVD headless in the background; prints its serial. Stop it with `droidharness emulator stop`."""
    from emulator.avd import AvdError, require_avd, start_emulator, stop_emulator, wait_for_boot
    from emulator.avd.server import adb_server_for, default_adb_server_port

    note = ""
    with _answers():
        sdk = _sdk("emulator")
        require_avd(sdk, name)
        if not wait:  # nothing to ask an adb server: the emulator announces itself to the one there is, if any
            announce = adb_port if adb_port is not None else default_adb_server_port(sdk.env)
            emu = start_emulator(sdk, name, console_port=port, read_only=read_only, adb_server_port=announce)
        else:
            with adb_server_for(sdk, adb_port) as server:
                emu = start_emulator(sdk, name, console_port=port, read_only=read_only, adb_server_port=server.port)
                try:
                    wait_for_boot(emu, server.client, timeout=timeout)
                except AvdError:
                    stop_emulator(emu, timeout=5, keep_log=True)
                    raise
                if server.private is not None:
                    note = _after_private_server(emu, server.describe())
    console.print(
        f"{emu.serial}  [dim]AVD {escape(name)}, pid {emu.pid}, console {emu.console_port}, log {emu.log_path}"
        f"{', read-only' if read_only else ''}{'' if wait else ', booting'}[/dim]",
        highlight=False,
    )
    if note:
        console.print(f"[dim]{escape(note)}[/dim]", highlight=False, soft_wrap=True)


def _after_private_server(emu: RunningEmulator, server: str) -> str:
    """What to tell the user about an emulator booted through a private adb server that is now stopped."""
    from emulator.avd.launch import DEFAULT_CONSOLE_PORTS

    found = (
        "your adb server finds it on its port scan (`adb devices`)"
        if emu.console_port in DEFAULT_CONSOLE_PORTS
        else f"reach it with `adb connect 127.0.0.1:{emu.adb_port}`"
    )
    return f"no adb server answered, so it booted through {server}, now stopped; {found}"


def _the_emulator(device: Optional[str]) -> RunningEmulator:
    from emulator.avd import find_running, running_emulators
    from emulator.avd.errors import AvdConfigError

    if device is not None:
        return find_running(device)
    running = running_emulators()
    if len(running) != 1:
        have = ", ".join(e.serial for e in running) or "none"
        raise AvdConfigError(f"{len(running)} emulators running ({have}): name one with --device")
    return running[0]


@emulator_app.command("stop")
def emulator_stop(
    device: Optional[str] = typer.Argument(None, help="Serial, console port or AVD name of a running emulator."),
    all_: bool = typer.Option(False, "--all", help="Stop every emulator droidharness started."),
    timeout: float = typer.Option(20.0, help="Seconds to wait after the console's kill before terminating it."),
) -> None:
    """Stop an emulator: the console's `kill`, then its process (by pid) if it does not exit."""
    from emulator.avd import running_emulators, stop_emulator
    from emulator.avd.errors import AvdConfigError

    with _answers():
        if all_ and device is not None:
            raise AvdConfigError("give a device or --all, not both")
        targets = running_emulators() if all_ else [_the_emulator(device)]
        for emu in targets:
            stop_emulator(emu, timeout=timeout)
            console.print(f"stopped {emu.serial} [dim](AVD {escape(emu.name)}, pid {emu.pid})[/dim]", highlight=False)


def _snapshot(device: Optional[str], verb: str, snapshot: str) -> None:
    from emulator.avd import EmulatorConsoleClient

    with _answers():
        emu = _the_emulator(device)
        with EmulatorConsoleClient(emu.console_port) as c:
            getattr(c, f"snapshot_{verb}")(snapshot)
    console.print(f"{verb} snapshot [bold]{escape(snapshot)}[/bold] on {emu.serial}: OK", highlight=False)


@snapshot_app.command("save")
def snapshot_save(snapshot: str = typer.Argument(..., help="Snapshot name."), device: Optional[str] = DEVICE) -> None:
    """Save the emulator's state as SNAPSHOT (`avd snapshot save`)."""
    _snapshot(device, "save", snapshot)


@snapshot_app.command("load")
def snapshot_load(snapshot: str = typer.Argument(..., help="Snapshot name."), device: Optional[str] = DEVICE) -> None:
    """Restore SNAPSHOT (`avd snapshot load`): the fast reset between episodes."""
    _snapshot(device, "load", snapshot)


@snapshot_app.command("delete")
def snapshot_delete(snapshot: str = typer.Argument(..., help="Snapshot name."), device: Optional[str] = DEVICE) -> None:
    """Delete SNAPSHOT (`avd snapshot delete`)."""
    _snapshot(device, "delete", snapshot)


@snapshot_app.command("list")
def snapshot_list(device: Optional[str] = DEVICE) -> None:
    """The emulator's snapshots."""
    from emulator.avd import EmulatorConsoleClient

    with _answers():
        emu = _the_emulator(device)
        with EmulatorConsoleClient(emu.console_port) as c:
            names = c.snapshot_list()
    table = Table("snapshot", title=f"snapshots of {emu.serial} (AVD {escape(emu.name)})")
    for n in names:
        table.add_row(escape(n))
    console.print(table)


@emulator_app.command("list")
def emulator_list() -> None:
    """The SDK's AVDs and the emulators droidharness started (serial, pid, console port, read-only)."""
    from emulator.avd import list_avds, running_emulators

    with _answers():
        sdk = _sdk()
        names = list_avds(sdk)
        running = running_emulators()
    table = Table("AVD", "running", "pid", "console", "log", title="AVDs")
    for name in sorted(set(names) | {e.name for e in running}):
        mine = [e for e in running if e.name == name]
        if not mine:
            table.add_row(escape(name), "-", "", "", "")
        for e in mine:
            flags = " (read-only)" if e.read_only else ""
            table.add_row(
                escape(name), e.serial + flags, str(e.pid), str(e.console_port), escape(Path(e.log_path).name)
            )
    console.print(table)
    console.print(f"[dim]SDK: {escape(sdk.describe())}[/dim]", highlight=False, soft_wrap=True)
    if not names:
        console.print("[dim]no AVDs yet: `droidharness emulator create NAME --profile pixel_7_pro`[/dim]")


def register(app: typer.Typer) -> None:
    app.add_typer(emulator_app, name="emulator")
