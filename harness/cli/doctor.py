"""`droidharness doctor`: would a run work here? One table row per check (check, status, detail, what to do).

    droidharness doctor                        # the machine + the embedded virtual device (private adb server)
    droidharness doctor --system-adb           # the machine + every device on your own adb server (5037)
    droidharness doctor --device R58M123ABC --system-adb   # one device on it
    droidharness doctor --json                 # the rows as JSON

Exit status 0 when no check failed (a run would work), 1 when one did, 2 on bad input (a --device the adb server
does not list, a server on 5037 without --system-adb). The checks themselves are `harness.device.doctor`;
docs/doctor.md says what each one means.
"""

from __future__ import annotations

import json
from dataclasses import asdict
from typing import TYPE_CHECKING, Optional

import typer
from rich.console import Console
from rich.markup import escape
from rich.table import Column, Table

from harness.errors import ConfigError, HarnessError

if TYPE_CHECKING:  # pragma: no cover
    from harness.device.doctor import Check

console = Console()
_STYLE = {"ok": "[green]ok[/green]", "warn": "[yellow]warn[/yellow]", "fail": "[red]fail[/red]"}


def collect(device: str | None, virtual: bool, system_adb: bool) -> list[Check]:
    """Every row, in table order: the machine, the adb server (with --device / --system-adb), the embedded
    device (without them, or with --virtual). Raises ConfigError on bad input."""
    from harness.device.doctor import adb_binary_check, embedded_checks, sdk_checks, server_checks
    from harness.device.provision import adb_server_address

    use_server = device is not None or system_adb
    host, port = adb_server_address(None, None)
    if use_server and port == 5037 and not system_adb:
        raise ConfigError(
            f"--device {device}: the adb server the harness would use is your own at {host}:5037; pass "
            "--system-adb to let doctor inspect it (or set ANDROID_ADB_SERVER_PORT to another server's port)"
        )
    rows = [adb_binary_check(), *sdk_checks()]
    if use_server:
        rows += server_checks(host, port, device)
    if virtual or not use_server:
        rows += embedded_checks()
    return rows


def render(rows: list[Check]) -> Table:
    table = Table(
        "check",
        "status",
        Column("detail", overflow="fold"),
        Column("what to do", overflow="fold"),
        title="droidharness doctor",
    )
    for r in rows:
        table.add_row(escape(r.name), _STYLE[r.status], escape(r.detail), escape(r.fix))
    return table


def doctor(
    device: Optional[str] = typer.Option(
        None, "--device", "-s", help="Check this device on the adb server (needs --system-adb for the one on 5037)."
    ),
    virtual: bool = typer.Option(
        False, "--virtual", help="Also check the embedded virtual device (the default without --device/--system-adb)."
    ),
    system_adb: bool = typer.Option(
        False, "--system-adb", help="Inspect your own adb server (ANDROID_ADB_SERVER_PORT or 5037) and its devices."
    ),
    as_json: bool = typer.Option(False, "--json", help="Print the rows as a JSON list instead of a table."),
) -> None:
    """Check that a run would work here: adb, the adb server and devices, uiautomator2, text input, screen,
    Android version, locale, the SDK, the emulator and acceleration. Exit 0 when no check fails."""
    from harness.device.doctor import failed

    try:
        rows = collect(device, virtual, system_adb)
    except HarnessError as e:
        console.print(f"[red]error:[/red] {escape(str(e))}", highlight=False, soft_wrap=True)
        raise typer.Exit(2) from None
    if as_json:
        typer.echo(json.dumps([asdict(r) for r in rows], ensure_ascii=False, indent=1))
    else:
        console.print(render(rows))
        bad = [r.name for r in rows if r.status == "fail"]
        if bad:
            console.print(f"[red]{len(bad)} check(s) failed: a run would not work ({escape(', '.join(bad))})[/red]")
        else:
            console.print("[green]no check failed: a run would work[/green]")
    raise typer.Exit(1 if failed(rows) else 0)


def register(app: typer.Typer) -> None:
    app.command()(doctor)
