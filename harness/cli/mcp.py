"""`droidharness mcp`: serve one device as MCP tools (stdio by default, or streamable HTTP behind a token)."""

from __future__ import annotations

import os
import secrets
from contextlib import ExitStack, nullcontext
from pathlib import Path
from typing import Optional

import typer
from rich.console import Console

from harness.cli.defaults import CLOCK_HELP, DEFAULT_PROFILE
from harness.cli.failures import fail
from harness.cli.options import check_clock
from harness.errors import ConfigError, HarnessError

console = Console(stderr=True)  # stdout is the MCP channel under stdio
TOKEN_ENV = "DROIDHARNESS_MCP_TOKEN"


def parse_host_port(value: str) -> tuple[str, int]:
    """`HOST:PORT` or `PORT` (host 127.0.0.1); a bad value is a `ConfigError` naming --http."""
    host, sep, port = value.rpartition(":")
    if not sep:
        host, port = "127.0.0.1", value
    host = host.strip("[]") or "127.0.0.1"
    if not port.isdigit() or not 0 < int(port) < 65536:
        raise ConfigError(f"--http {value!r}: expected HOST:PORT or PORT, with a port in 1..65535")
    return host, int(port)


def mcp(
    device: Optional[str] = typer.Option(None, "--device", "-s", help="Serial of a phone or emulator on adb."),
    avd: Optional[str] = typer.Option(None, help="Start this AVD (a read-only copy) and serve it."),
    task: Optional[str] = typer.Option(None, help="A task id of --suite: the session is scored live like a run."),
    lang: str = typer.Option("en", help="The task's language: en or zh."),
    suite: str = typer.Option("virtual", help="The suite --task is taken from."),
    out: Path = typer.Option(Path("runs"), help="Where the session's run directory is written."),
    run_id: Optional[str] = typer.Option(None, help="The run directory's name (default: a new run id)."),
    http: Optional[str] = typer.Option(
        None, "--http", help="Serve streamable HTTP on HOST:PORT (host 127.0.0.1 by default) instead of stdio."
    ),
    token: Optional[str] = typer.Option(
        None,
        help=f"With --http: the bearer token clients must send (default ${TOKEN_ENV}, else one is generated and "
        "printed).",
    ),
    profile: str = typer.Option(DEFAULT_PROFILE, help="Embedded virtual device profile (without --device/--avd)."),
    clock: str = typer.Option("real", help=CLOCK_HELP),
    seed: int = typer.Option(0, help="The episode's seed (recorded)."),
) -> None:
    """Serve a device as MCP tools: observe, click, long_press, swipe, scroll, type_text, press_key, open_app,
    list_apps, wait, task_status, complete. Every action is a step recorded in the trajectory format (a run
    directory under --out) and, with --task, scored live like a run. No shell tool."""
    # the MCP SDK, uvicorn and the device layer load for this command only (every other command starts faster)
    from harness.mcp.server import build_server, serve_http, serve_stdio, stdio_kept_clean
    from harness.mcp.tools import PhoneTools
    from harness.run.fleet.avd import avd_copies
    from harness.run.fleet.pool import DevicePool
    from harness.run.orchestration.interactive import check_lang, find_task
    from harness.stopping import stop_on_signals
    from harness.trajectory.writer import new_run_id

    if lang not in ("en", "zh"):
        raise typer.BadParameter(f"{lang!r} is not one of: en, zh", param_hint="--lang")
    if device and avd:
        raise typer.BadParameter("give --device or --avd, not both", param_hint="--avd")
    check_clock(clock, [device] if device else [], avd)
    try:
        where = parse_host_port(http) if http is not None else None
        the_task = find_task(suite, task) if task else None
        if the_task is not None:
            check_lang(the_task, lang)
        secret = (token or os.environ.get(TOKEN_ENV) or "").strip()
        if where is not None and not secret:
            secret = secrets.token_urlsafe(24)
            print(f"droidharness mcp: bearer token {secret}", flush=True)
        # SIGINT, SIGTERM (an MCP client closing its server; uvicorn re-raises the one it caught after its graceful
        # shutdown) and SIGHUP end the session alike (harness.stopping): recorded, devices closed, exit 128 + SIG
        with stop_on_signals(), ExitStack() as stack:
            with stdio_kept_clean() if where is None else nullcontext():
                serials = stack.enter_context(avd_copies(avd, 1, clock=clock)) if avd else ([device] if device else [])
                pool = DevicePool(
                    1, serials or None, profile=profile, clock=clock, isolation=None if serials else "thread"
                )
                stack.enter_context(pool)
                tools = PhoneTools(pool, the_task, lang, out, run_id or new_run_id(), seed=seed)
                tools.begin()
                stack.callback(tools.close)
            console.print(f"droidharness mcp: recording to {tools.run_dir_text()}", highlight=False)
            server = build_server(tools)
            if where is None:
                serve_stdio(server)
            else:
                host, port = where
                console.print(f"droidharness mcp: http://{host}:{port}/mcp (Authorization: Bearer)", highlight=False)
                serve_http(server, host, port, secret)
    except HarnessError as e:
        fail(console, e)
    except KeyboardInterrupt:
        pass


def register(app: typer.Typer) -> None:
    app.command("mcp")(mcp)
