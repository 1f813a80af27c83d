"""`droidharness run --like RUN [overrides]`: run again with the settings a run was made with.

`droidharness run` records its own options, resolved (defaults included), in the manifest's `rerun` object
(`recorded_options`); `--like RUN` takes every option from there except those given on this command line (or
by their environment variable), which override. Never taken over: `--run-id` (a new directory), `--resume`,
`--like`. Secrets are not in the manifest (it is scrubbed when written): the API key comes from the environment
(`OPENAI_API_KEY`) and an endpoint URL recorded without its credentials gets them back from `--base-url` or
`OPENAI_BASE_URL`.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import typer

from harness.errors import ConfigError
from harness.modelio.options import OpenAIAgentOptions
from harness.report.summary import summarize
from harness.scoring.cost import money
from harness.trajectory.reader import load_run
from harness.trajectory.records import jsonable

NOT_RECORDED = ("like", "resume", "run_id")  # per invocation: never taken over by --like


GIVEN = ("COMMANDLINE", "ENVIRONMENT")  # parameter sources that override what a run recorded


def recorded_options(ctx: typer.Context) -> dict[str, Any]:
    """The command's options as the manifest's `rerun` records them: every parameter, resolved, as JSON."""
    return {k: jsonable(v) for k, v in ctx.params.items() if k not in NOT_RECORDED}


def like_options(ctx: typer.Context, run_dir: Path) -> dict[str, Any]:
    """Every parameter of the command for a re-run of `run_dir`: what this command line gave, else what the run
    recorded (`rerun`), else the default. A run without recorded options is a ConfigError naming it."""
    run = load_run(run_dir)
    if run.manifest is None:
        raise ConfigError(f"--like {run_dir}: not a run directory (no manifest.json)")
    recorded = (run.manifest.model_extra or {}).get("rerun")
    if not isinstance(recorded, dict):
        raise ConfigError(
            f"--like {run_dir}: its manifest.json has no 'rerun' options (made by an older droidharness or not by "
            "`droidharness run`)"
        )
    out: dict[str, Any] = {}
    for param in ctx.command.params:
        name = param.name
        if name is None:
            continue
        value = ctx.params.get(name)
        source = ctx.get_parameter_source(name)
        if name not in NOT_RECORDED and name in recorded and getattr(source, "name", None) not in GIVEN:
            try:
                value = param.process_value(ctx, recorded[name])
            except typer.BadParameter as e:
                raise ConfigError(f"--like {run_dir}: manifest.json rerun.{name}: {e.message}") from None
        out[name] = value
    out["like"] = None
    return out


def priced_model(agent: str, options: dict[str, Any]) -> str | None:
    """The model a price table is looked up by: `--model`, else the openai agent's default; None for agents
    without a model."""
    model = options.get("model")
    if model:
        return str(model)
    return OpenAIAgentOptions().model if agent == "openai" else None


def run_cost_line(run_dir: Path) -> str:
    """What a finished run cost, as the final lines print it (summary.json's `overall.cost`)."""
    s = summarize(load_run(run_dir, skip_bad=True))
    o = s["overall"]
    return f"{money(o['cost'])} ({money(o['cost_per_episode'])} per episode, {money(o['cost_per_step'])} per step)"


__all__ = ["like_options", "priced_model", "recorded_options", "run_cost_line"]
