"""A command group that imports a command's module only when that command runs.

`droidharness --help` lists every command with the first paragraph of its help, from a static table
(`LazyCommand`): no command module is imported to print it. Running a command (its `--help` too) imports the
module that registers it (its `register(app)` function, on a Typer of its own) and builds the real command as
`app.add_typer` / `app.command` would have. tests/harness/cli/test_help.py checks the table against the real commands.
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass
from typing import Any, ClassVar

import typer
import typer.core
import typer.main


@dataclass(frozen=True)
class LazyCommand:
    """A command of the group: its name, the module whose `register(app)` adds it, and the first paragraph of its
    help as the list of commands shows it."""

    name: str
    module: str
    help: str


class Placeholder(typer.core.TyperCommand):
    """A lazy command as the group's help lists it: its name and short help, nothing imported."""


class LazyGroup(typer.core.TyperGroup):
    """A TyperGroup whose commands in `lazy` are imported on demand (subclass it and set `lazy`)."""

    lazy: ClassVar[tuple[LazyCommand, ...]] = ()

    def __init__(self, **attrs: Any) -> None:
        super().__init__(**attrs)
        self.listing = False  # formatting the help: the lazy commands stay placeholders
        for c in self.lazy:  # in the table's order, after the commands defined in place
            self.commands.setdefault(c.name, Placeholder(name=c.name, help=c.help))

    def get_command(self, ctx: Any, cmd_name: str) -> Any:
        cmd = self.commands.get(cmd_name)
        if isinstance(cmd, Placeholder) and not self.listing:
            self.load(cmd_name)
            cmd = self.commands.get(cmd_name)
        return cmd

    def load(self, cmd_name: str) -> None:
        """Import the module of `cmd_name` and put the commands it registers in place of their placeholders (one
        module may register several, e.g. `run`, `report` and `tasks`)."""
        entry = next(c for c in self.lazy if c.name == cmd_name)
        holder = typer.Typer()
        importlib.import_module(entry.module).register(holder)
        for name, cmd in typer.main.get_group(holder).commands.items():
            if name not in self.commands or isinstance(self.commands[name], Placeholder):
                self.commands[name] = cmd  # a placeholder's key: the list keeps its order

    def format_help(self, ctx: Any, formatter: Any) -> None:
        self.listing = True
        try:
            super().format_help(ctx, formatter)
        finally:
            self.listing = False
