"""`droidharness tasks families` and `droidharness tasks instantiate FAMILY --seed S --count K --out DIR`: the
bundled task families (tasks/families/) and their seeded instances as task files. `droidharness run --family
FAMILY --instances K --seed S` runs fresh instances through the normal run (harness/cli/run.py)."""

from __future__ import annotations

from pathlib import Path

import typer
from rich.console import Console

from harness.cli.failures import fail
from harness.errors import HarnessError

console = Console()


def families() -> None:
    """List the task families: one name a line, then a short description."""
    from tasks.families.registry import FAMILIES

    width = max(len(n) for n in FAMILIES)
    for name, fam in FAMILIES.items():
        params = ", ".join(f"{k} ({p.kind})" for k, p in fam.params.items())
        print(f"{name:<{width}}  {fam.description}; parameters: {params}")


def instantiate_cmd(
    family: str = typer.Argument(..., help="A family name (`droidharness tasks families`)."),
    seed: int = typer.Option(0, help="Seed of the generator: the same seed writes the same files."),
    count: int = typer.Option(1, min=1, help="How many instances (distinct parameters)."),
    out: Path = typer.Option(..., help="Folder to write the task files into (a suite: run --suite DIR)."),
) -> None:
    """Write COUNT instances of FAMILY drawn with SEED as task files (FAMILY-sSEED-I.json) in OUT."""
    from tasks.families.base import instantiate, write_tasks
    from tasks.families.registry import get_family

    try:
        paths = write_tasks(instantiate(get_family(family), seed, count), out)
    except HarnessError as e:
        fail(console, e)
    except OSError as e:
        fail(console, HarnessError(f"{out}: cannot write the task files: {e.strerror or e}"))
    for p in paths:
        print(p)


def register(tasks_app: typer.Typer) -> None:
    tasks_app.command("families")(families)
    tasks_app.command("instantiate")(instantiate_cmd)
