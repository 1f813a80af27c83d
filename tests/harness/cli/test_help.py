"""`droidharness --help` and every command's `--help` import only what they print: no engine, no device layer,
no numpy / PIL / adb / model client (harness/cli/lazy.py, harness/cli/defaults.py).

Each help runs in a fresh interpreter; the commands are found by walking the click command tree, so a new command
is checked without being listed here."""

from __future__ import annotations

import inspect
import json
import os
import subprocess
import sys
from collections.abc import Iterable
from typing import Any

import pytest
import typer.core
import typer.main

from harness.cli.lazy import LazyGroup, Placeholder
from harness.cli.main import COMMANDS, app
from tests.paths import REPO

ROOT = REPO

# modules no help may import (a prefix covers its submodules)
FORBIDDEN = (
    "numpy",
    "PIL",
    "adbutils",
    "uiautomator2",
    "openai",
    "ray",
    "lxml",
    "scipy",
    "harness.run",
    "harness.eval",
    "harness.report",
    "harness.trajectory",
    "harness.device",
    "emulator",
    "agents",
)
MARK = "@@modules@@"
HELP = """
import json, sys
sys.argv = ["droidharness", *json.loads(sys.argv[1])]
try:
    from harness.cli.main import main
    main()
except SystemExit:
    pass
print({mark!r} + json.dumps(sorted(sys.modules)))
"""
TRIVIAL = """
import json, sys, typer
app = typer.Typer(add_completion=False, help="An app.")
@app.command()
def one(x: int = typer.Option(1, help="An option.")) -> None:
    '''One.'''
@app.command()
def two() -> None:
    '''Two.'''
try:
    app(sys.argv[1:])
except SystemExit:
    pass
print({mark!r} + json.dumps(sorted(sys.modules)))
"""


def forbidden(modules: Iterable[str]) -> list[str]:
    """The forbidden modules among `modules` (a forbidden package once, not each of its modules)."""
    return sorted(f for f in FORBIDDEN if any(m == f or m.startswith(f + ".") for m in modules))


def run_python(code: str, *args: str) -> tuple[str, set[str]]:
    """Run `code` in a fresh interpreter: what it printed before the module list, and the module list."""
    env = {**os.environ, "COLUMNS": "200", "NO_COLOR": "1"}
    out = subprocess.run(
        [sys.executable, "-c", code.format(mark=MARK), *args],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    ).stdout
    text, _, modules = out.rpartition(MARK)
    return text, set(json.loads(modules))


def help_of(path: list[str]) -> tuple[str, set[str]]:
    return run_python(HELP, json.dumps([*path, "--help"]))


def subcommands(group: Any) -> list[tuple[str, Any]]:
    """The commands of a click group, loaded (the lazy ones imported)."""
    return [(name, group.get_command(None, name)) for name in group.list_commands(None)]


def command_paths() -> list[list[str]]:
    """Every command and group of the tree, as the words that call it ([] is `droidharness` itself)."""
    paths: list[list[str]] = []

    def walk(cmd: Any, path: list[str]) -> None:
        paths.append(path)
        if isinstance(cmd, typer.core.TyperGroup):
            for name, sub in subcommands(cmd):
                walk(sub, [*path, name])

    walk(typer.main.get_command(app), [])
    return paths


PATHS = command_paths()


@pytest.fixture(scope="module")
def typer_rich() -> set[str]:
    """The rich modules typer itself imports to print a help."""
    return {m for m in run_python(TRIVIAL, "--help")[1] if m == "rich" or m.startswith("rich.")}


def test_the_tree_is_walked():
    words = {" ".join(p) for p in PATHS}
    assert {"", "run", "tasks", "tasks record", "qa run", "virtual start", "emulator snapshot save"} <= words
    assert len(PATHS) > 30


@pytest.mark.parametrize("path", PATHS, ids=lambda p: " ".join(p) or "droidharness")
def test_help_imports_only_what_it_prints(path, typer_rich):
    text, modules = help_of(path)
    assert "Usage:" in text, text
    assert not forbidden(modules), f"`droidharness {' '.join(path)} --help` imported {forbidden(modules)}"
    extra_rich = sorted(m for m in modules if (m == "rich" or m.startswith("rich.")) and m not in typer_rich)
    assert not extra_rich, f"`droidharness {' '.join(path)} --help` imported rich beyond typer's help: {extra_rich}"
    if len(path) < 3:  # a group lists its commands (the top level's from the static table)
        cmd: Any = typer.main.get_command(app)
        for word in path:
            cmd = cmd.get_command(None, word)
        if isinstance(cmd, typer.core.TyperGroup):
            for name, _ in subcommands(cmd):
                assert f" {name} " in text, f"{name} is missing from `droidharness {' '.join(path)} --help`"


def test_the_check_catches_a_forbidden_import():
    """A help printed by a process that imported numpy (and the engine) fails the check."""
    text, modules = run_python("import numpy, harness.run.orchestration.suite\n" + HELP, json.dumps(["--help"]))
    assert "Usage:" in text
    assert {"numpy", "harness.run"} <= set(forbidden(modules))


def first_paragraph(cmd: Any) -> str:
    """What a group's list of commands shows of a command's help (typer.rich_utils._make_command_help)."""
    return inspect.cleandoc(cmd.short_help or cmd.help or "").split("\n\n")[0].strip()


def test_the_static_table_is_the_commands_own_help():
    """The top-level list is printed from harness.cli.main.COMMANDS: each line is the loaded command's own."""
    group = typer.main.get_command(app)
    assert isinstance(group, LazyGroup)
    listed = dict(group.commands)
    lazy = {c.name: c for c in COMMANDS}
    assert all(isinstance(listed[name], Placeholder) for name in lazy)
    for name, cmd in subcommands(group):
        assert not isinstance(cmd, Placeholder)
        if name in lazy:
            assert lazy[name].help == first_paragraph(cmd), name
    # every module registers only commands the table names (one it does not name would be listed only once loaded)
    assert list(group.commands) == list(listed)


def test_help_defaults_equal_the_engines():
    from emulator.avd import AVD_DEVICES
    from emulator.virtual.clock import CLOCKS
    from emulator.virtual.profiles import DEFAULT_PROFILE
    from harness.cli import defaults
    from harness.device.devicetime import CLOCKS as DEVICE_TIME_CLOCKS
    from harness.eval.offline import AGENT_TIMEOUT
    from harness.export.animation import DEFAULT_FRAME_MS, DEFAULT_WIDTH, FORMATS
    from harness.report.compare import RESAMPLES
    from tasks.datasets.registry import EPISODIC, NAMES

    assert defaults.DEFAULT_PROFILE == DEFAULT_PROFILE
    assert defaults.CLOCKS == CLOCKS == DEVICE_TIME_CLOCKS
    assert defaults.AVD_PROFILES == tuple(AVD_DEVICES)
    assert defaults.DATASETS == NAMES
    assert defaults.EPISODIC_DATASETS == EPISODIC
    assert defaults.AGENT_TIMEOUT == AGENT_TIMEOUT
    assert defaults.RESAMPLES == RESAMPLES
    assert (defaults.ANIMATION_FORMATS, defaults.DEFAULT_WIDTH, defaults.DEFAULT_FRAME_MS) == (
        FORMATS,
        DEFAULT_WIDTH,
        DEFAULT_FRAME_MS,
    )
