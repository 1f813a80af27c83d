"""`droidharness tasks record --app NAME --instruction TEXT [--lang en] [--device S] [--steps FILE] --out
task.json`: a demonstration turned into a proven task (harness/run/authoring/record_task.py)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Optional

import typer
from rich.console import Console
from rich.markup import escape

from harness.cli.defaults import DEFAULT_PROFILE
from harness.cli.failures import fail
from harness.errors import HarnessError

console = Console()


def record_cmd(
    app: str = typer.Option(..., "--app", help="The app the task is about: a launcher label, a package or a role."),
    instruction: str = typer.Option(..., "--instruction", help="The task's instruction in --lang."),
    lang: str = typer.Option("en", help="The demonstration's language: en or zh."),
    device: Optional[str] = typer.Option(None, "--device", "-s", help="Record on this device (default: embedded)."),
    steps: Optional[Path] = typer.Option(
        None, "--steps", help="Play these reference steps (one JSON step a line, `locate` targets) instead of asking."
    ),
    out: Path = typer.Option(
        ..., "--out", help="The task file to write (screens in OUT.recording/); an existing one gains --lang."
    ),
    profile: str = typer.Option(DEFAULT_PROFILE, help="Virtual device profile."),
    max_steps: int = typer.Option(50, min=1, help="The demonstration's longest run."),
) -> None:
    """Demonstrate a task (at the human prompt, or --steps FILE) and write it as a task proven sound: milestones
    from the screens it passed through, an end state from its last screen and the device state it changed, the
    expected answer when it ends with ANSWER, the demonstration as the reference solution. Says which proposals
    were dropped and why; a demonstration that changes nothing is rejected (exit 2). When OUT exists in another
    language, this demonstration adds its language (instruction, reference, milestone texts and state values)."""
    from harness.agent import Agent
    from harness.device.controller import Device
    from harness.plugins import create_agent
    from harness.run.authoring.record_merge import merge_language
    from harness.run.authoring.record_task import (
        RecordError,
        propose,
        prove,
        read_steps,
        record,
        save_recording,
        slug,
        steps_agent,
    )
    from harness.run.fleet.pool import DevicePool
    from tasks.schema import load_task, parse_task

    if lang not in ("en", "zh"):
        raise typer.BadParameter(f"{lang!r} is not one of: en, zh", param_hint="--lang")
    try:
        given = read_steps(steps) if steps is not None else None
        agent: Agent = steps_agent(given) if given is not None else create_agent("human", console=console)
        pool = DevicePool(1, [device] if device else [], profile=profile).start()
    except HarnessError as e:
        fail(console, e)
    try:
        package: list[str] = []

        def fresh_in(lg: str) -> Device:
            pool.reset(0, apps=tuple(package), lang=lg)
            pool.ensure_locale(0, lg)
            return pool.slot(0)

        # an existing task file in another language: this demonstration adds its language (record_merge)
        first = load_task(out) if out.exists() else None
        if first is not None and lang in first.instruction:
            raise RecordError(f"{out} already has a {lang} instruction: record another language or another file")
        rec = record(fresh_in(lang), agent, app, instruction, lang, max_steps, given)
        package.append(rec.package)
        save_recording(rec, out.with_name(out.name + (f".{lang}" if first else "") + ".recording"))
        proposal = propose(rec, instruction, lang, first.id if first else slug(out.stem))
        task, result = prove(proposal, lang, lambda: fresh_in(lang))
        data = proposal.data
        if first is not None:
            data, dropped, _ = merge_language(first, proposal, lang, fresh_in)
            proposal.dropped += dropped
            task = parse_task(data, str(out))
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_text(json.dumps(data, ensure_ascii=False, indent=2) + "\n", encoding="utf-8")
    except HarnessError as e:
        fail(console, e)
    except OSError as e:
        fail(console, HarnessError(f"{out}: cannot write: {e.strerror or e}"))
    finally:
        pool.close()
    leaves = task.milestones.leaves()
    console.print(
        f"[green]sound[/green] in {', '.join(task.languages)}: {len(leaves)} milestone(s), "
        f"{len(task.end_state)} end-state check(s)"
        + (", an expected answer" if task.expected_answer else "")
        + f"; the reference reaches {result.progress:.0%}, a do-nothing agent {result.idle_progress:.0%}",
        highlight=False,
        soft_wrap=True,
    )
    for m in leaves:
        console.print(f"  milestone {escape(m.id)}: {escape(str(m.sub_target))}", highlight=False, soft_wrap=True)
    for why in proposal.dropped:
        console.print(f"  dropped {escape(why)}", highlight=False, soft_wrap=True)
    console.print(f"task: {out}   screens: {out.with_name(out.name + '.recording')}", highlight=False, soft_wrap=True)


def register(tasks_app: typer.Typer) -> None:
    tasks_app.command("record")(record_cmd)
