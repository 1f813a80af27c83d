"""Command-line options shared by several commands (`run`, `eval`): one definition, one validation."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any, Optional

import typer

from harness.cli.defaults import CLOCKS

MODEL = typer.Option(None, help="openai agent: model name.")
BASE_URL = typer.Option(None, help="openai agent: any OpenAI-compatible endpoint.")
OUTPUT_FORMAT = typer.Option(None, help="openai agent: json, agentcpm, uitars or qwen.")
CASSETTE = typer.Option(None, help="openai agent: record model responses here, or play them back.")
CASSETTE_MODE = typer.Option(None, help="record or playback (with --cassette).")


def agent_options(
    agent: Optional[str],
    model: Optional[str],
    base_url: Optional[str],
    output_format: Optional[str],
    cassette: Optional[Path],
    cassette_mode: Optional[str],
) -> dict[str, Any]:
    """The openai agent's options given on the command line; an error naming them for any other agent."""
    options = {
        k: v
        for k, v in {
            "model": model,
            "base_url": base_url,
            "output_format": output_format,
            "cassette": str(cassette) if cassette else None,
            "cassette_mode": cassette_mode,
        }.items()
        if v is not None
    }
    if options and agent != "openai":
        raise typer.BadParameter(
            f"{', '.join('--' + k.replace('_', '-') for k in options)} only apply to --agent openai",
            param_hint="--agent",
        )
    return options


def check_clock(clock: str, serials: Sequence[str] = (), avd: str | None = None) -> str:
    """`clock` (`--clock`) if it is one of CLOCKS and the devices can run on it: a phone, a user's emulator
    (`serials`) or AVD copies (`avd`) keep their own time, and a virtual clock for them is a BadParameter naming
    them (nothing has run)."""
    check_choice(clock, list(CLOCKS), "--clock")
    if clock != "real" and (serials or avd):
        if avd:
            what = f"the copies of AVD {avd} (--avd) keep their"
        elif len(serials) == 1:
            what = f"device {serials[0]} (--device) keeps its"
        else:
            what = f"devices {', '.join(serials)} (--device) keep their"
        raise typer.BadParameter(
            f"{what} own time: --clock {clock} is for embedded virtual devices only", param_hint="--clock"
        )
    return clock


def check_choice(value: str, choices: list[str], option: str) -> str:
    """`value` if it is one of `choices`, else a BadParameter naming `option` and the choices."""
    if value not in choices:
        raise typer.BadParameter(f"{value!r} is not one of: {', '.join(choices)}", param_hint=option)
    return value
