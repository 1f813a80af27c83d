"""The `droidharness eval` command: offline, teacher-forced evaluation on a recorded dataset (harness.eval.offline),
and offline ScreenQA evaluation of a QA agent (`--dataset screenqa`, harness.eval.qa_offline)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Optional

import typer
from rich.console import Console
from rich.markup import escape

from harness.cli import options as cli_options
from harness.cli.defaults import AGENT_TIMEOUT, DATASETS
from harness.errors import HarnessError

console = Console()


def eval_command(
    dataset: str = typer.Option(
        ..., help=f"{', '.join(DATASETS)} (or an alias, e.g. gui-odyssey, agentcpm); docs/datasets.md."
    ),
    data: list[Path] = typer.Option(
        ...,
        help="Dataset location: AitW shards (file or folder), Odyssey annotations "
        "folder, AndroidLens root (holding test/), AITZ JSON files or folder, ScreenQA JSON files or "
        "folders (answers_and_bboxes / short_answers; repeat --data for several).",
    ),
    split: Optional[Path] = typer.Option(None, help="Split JSON (AitW: label -> episode ids; Odyssey: *_split.json)."),
    split_label: Optional[str] = typer.Option(None, help="Split label to keep, e.g. test (Odyssey default: test)."),
    images: Optional[Path] = typer.Option(
        None,
        "--images",
        "--images-dir",
        help="Odyssey screenshots folder / AITZ images root / ScreenQA screenshots (<image_id>.jpg|png, with "
        "<image_id>.xml hierarchies when there are).",
    ),
    lang: str = typer.Option("all", help="AndroidLens: en, zh or all."),
    agent: Optional[str] = typer.Option(
        None, help="Agent to run step by step (reference, random, heuristic, openai, or a plug-in)."
    ),
    qa_agent: Optional[str] = typer.Option(None, help="screenqa: the QA agent to ask (lexical, openai, or a plug-in)."),
    predictions: Optional[Path] = typer.Option(
        None, help="Score these predictions (JSONL, one line per step / ScreenQA question) instead of running an agent."
    ),
    model: Optional[str] = cli_options.MODEL,
    base_url: Optional[str] = cli_options.BASE_URL,
    output_format: Optional[str] = cli_options.OUTPUT_FORMAT,
    cassette: Optional[Path] = cli_options.CASSETTE,
    cassette_mode: Optional[str] = cli_options.CASSETTE_MODE,
    max_episodes: Optional[int] = typer.Option(None, help="Evaluate at most this many episodes (screenqa: questions)."),
    skip_bad: bool = typer.Option(False, help="Skip corrupt records instead of failing."),
    seed: int = typer.Option(0, help="Seed passed to the agent."),
    timeout: float = typer.Option(
        AGENT_TIMEOUT,
        "--timeout",
        min=0.001,
        help="Seconds the agent may take per call (as in a live run); a step it raises on or does not answer in "
        "time is scored as invalid and the evaluation goes on.",
    ),
    rule: Optional[str] = typer.Option(
        None,
        help="The official rule variant: odyssey box_or_distance (latest "
        "release, default) or distance_only (earlier release); aitz / "
        "androidlens default or android_control (AgentCPM-GUI's "
        "AndroidControl mode). docs/datasets.md.",
    ),
    out: Optional[Path] = typer.Option(None, "--out", "--json", help="Write every figure as JSON here."),
    run_dir: Optional[Path] = typer.Option(
        None,
        help="screenqa: also record a QA run directory here (the screens, answers and scores, summary.json and "
        "report.html, as `droidharness qa run` writes); it must not exist.",
    ),
) -> None:
    """Score an agent (or a predictions file) offline with the dataset's official metric."""
    from harness.eval.errors import EvalError
    from harness.eval.metric_kinds import metric_for
    from harness.eval.offline import EvalOptions, evaluate, render
    from harness.plugins import create_agent
    from tasks.datasets.errors import DatasetError
    from tasks.datasets.registry import NAMES, adapter

    try:
        ds = adapter(dataset)
    except DatasetError:
        raise typer.BadParameter(f"{dataset!r} is not one of: {', '.join(NAMES)}", param_hint="--dataset") from None
    if not ds.episodic:  # a question dataset (ScreenQA): asked question by question
        _eval_screenqa(
            data,
            images,
            qa_agent,
            agent,
            predictions,
            lang,
            model,
            base_url,
            output_format,
            cassette,
            cassette_mode,
            max_episodes,
            skip_bad,
            out,
            run_dir,
            timeout,
        )
        return
    if run_dir is not None:
        raise typer.BadParameter("--run-dir is for --dataset screenqa", param_hint="--run-dir")
    try:
        metric = metric_for(ds)
    except EvalError as e:
        raise typer.BadParameter(str(e), param_hint="--dataset") from None
    if qa_agent is not None:
        raise typer.BadParameter("--qa-agent is for --dataset screenqa; use --agent", param_hint="--qa-agent")
    if len(data) != 1:
        raise typer.BadParameter(f"{dataset} takes one --data location, got {len(data)}", param_hint="--data")
    if (agent is None) == (predictions is None):
        raise typer.BadParameter("give exactly one of --agent or --predictions", param_hint="--agent")
    if lang not in ("en", "zh", "all"):
        raise typer.BadParameter(f"{lang!r} is not one of: en, zh, all", param_hint="--lang")
    rules = metric.rules
    if rule is not None and rule not in rules:
        raise typer.BadParameter(
            f"{rule!r} is not a rule of {ds.name} (choose from: {', '.join(rules) or 'none'})", param_hint="--rule"
        )
    options = cli_options.agent_options(agent, model, base_url, output_format, cassette, cassette_mode)
    opts = EvalOptions(
        dataset=ds.name,
        data=data[0],
        split=split,
        split_label=split_label,
        images=images,
        langs=("en", "zh") if lang == "all" else (lang,),
        max_episodes=max_episodes,
        skip_bad=skip_bad,
        seed=seed,
        metric_rule=rule,
        timeout=timeout,
    )
    try:
        agent_obj = None
        if agent is not None:
            agent_obj = create_agent(agent, **options)
        with console.status("evaluating...") as status:
            report = evaluate(
                opts,
                agent=agent_obj,
                predictions=predictions,
                progress=lambda msg: status.update(f"evaluating... {msg}"),
            )
    except HarnessError as e:
        console.print(f"[red]error:[/red] {escape(str(e))}", highlight=False, soft_wrap=True)
        raise typer.Exit(2) from None
    render(report, console)
    if out is not None:
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_text(json.dumps(report, indent=1, ensure_ascii=False), encoding="utf-8")
        console.print(f"figures: {out}")


def _eval_screenqa(
    data: list[Path],
    images: Optional[Path],
    qa_agent: Optional[str],
    agent: Optional[str],
    predictions: Optional[Path],
    lang: str,
    model: Optional[str],
    base_url: Optional[str],
    output_format: Optional[str],
    cassette: Optional[Path],
    cassette_mode: Optional[str],
    max_questions: Optional[int],
    skip_bad: bool,
    out: Optional[Path],
    run_dir: Optional[Path] = None,
    timeout: float = AGENT_TIMEOUT,
) -> None:
    """`eval --dataset screenqa`: ask a QA agent (or score a predictions file) on ScreenQA files."""
    # imported here: the QA evaluator brings the QA run machinery, which no other command of this module needs
    from harness.eval.qa_offline import QAEvalOptions, evaluate_qa
    from harness.eval.qa_offline import render as render_qa
    from harness.plugins import create_qa_agent
    from harness.report.render import finish_run
    from harness.trajectory.records import utf8
    from harness.trajectory.writer import RunWriter

    if agent is not None:
        raise typer.BadParameter("screenqa is answered by a QA agent: use --qa-agent", param_hint="--agent")
    if (qa_agent is None) == (predictions is None):
        raise typer.BadParameter("give exactly one of --qa-agent or --predictions", param_hint="--qa-agent")
    if lang not in ("en", "zh", "all"):
        raise typer.BadParameter(f"{lang!r} is not one of: en, zh", param_hint="--lang")
    options = cli_options.agent_options(qa_agent, model, base_url, output_format, cassette, cassette_mode)
    opts = QAEvalOptions(
        data=list(data),
        images_dir=images,
        lang="en" if lang == "all" else lang,
        skip_bad=skip_bad,
        max_questions=max_questions,
        timeout=timeout,
    )
    try:
        qa = None
        if qa_agent is not None:
            qa = create_qa_agent(qa_agent, **options)
        writer = None
        if run_dir is not None:
            writer = RunWriter.create(
                run_dir.parent,
                run_dir.name,
                agent={"name": qa_agent or f"predictions:{predictions}", **options},
                suite_name="screenqa:" + ",".join(str(d) for d in data),
                languages=[opts.lang],
                kind="qa",
            )
        with console.status("evaluating...") as status:
            report = evaluate_qa(
                opts,
                agent=qa,
                predictions=predictions,
                progress=lambda m: status.update(f"evaluating... {m}"),
                writer=writer,
            )
        if writer is not None:
            finish_run(writer, report=True)
    except HarnessError as e:
        console.print(f"[red]error:[/red] {escape(str(e))}", highlight=False, soft_wrap=True)
        raise typer.Exit(2) from None
    render_qa(report, console)
    if run_dir is not None:
        console.print(f"run: {run_dir}   report: {run_dir / 'report.html'}", highlight=False)
    if out is not None:
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_bytes(utf8(json.dumps(report, indent=1, ensure_ascii=False)))  # secrets redacted
        console.print(f"figures: {out}")


def register(app: typer.Typer) -> None:
    app.command("eval")(eval_command)
