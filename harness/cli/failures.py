"""How a command ends on an error: one line, never a traceback. A full disk while a run writes its records is
the infrastructure's failure (exit 3, with the space to free and the `--resume` command); any other harness
error is bad input or setup (exit 2)."""

from __future__ import annotations

from typing import NoReturn

import typer
from rich.console import Console
from rich.markup import escape


def fail(console: Console, e: BaseException) -> NoReturn:
    """Print `e` as one `error:` line and exit: 3 for a full disk, 2 for anything else."""
    from harness.scoring.episodes import EXIT_BAD_INPUT, EXIT_INFRA
    from harness.trajectory.diskfull import disk_full_line, is_disk_full

    if is_disk_full(e):
        if not console.is_terminal:  # a live view that ended on the error left its last line open there
            console.line()
        console.print(f"[red]error:[/red] {escape(disk_full_line(e))}", highlight=False, soft_wrap=True)
        raise typer.Exit(EXIT_INFRA)
    console.print(f"[red]error:[/red] {escape(str(e))}", highlight=False, soft_wrap=True)
    raise typer.Exit(EXIT_BAD_INPUT)
