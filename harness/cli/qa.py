"""`droidharness qa`: ask a question about the screen a live device shows (ScreenQA on live apps).

Captures the screen (the embedded virtual device unless `--device` names one), asks a QA agent (`harness.qa_agent`),
prints the ranked answer elements (rank, element index, text, bounds) and the short answer, and saves the
screenshot with the answer boxes drawn and numbered in rank order. "No answer" is a valid answer.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any, Optional

import typer
from rich.console import Console
from rich.markup import escape
from rich.table import Table

from harness.cli import options as cli_options
from harness.cli.defaults import CLOCK_HELP
from harness.cli.failures import fail
from harness.cli.qa_collect import qa_collect
from harness.errors import HarnessError

if TYPE_CHECKING:  # pragma: no cover
    from harness.run.fleet.pool import DevicePool
    from tasks.qa_suite import QAQuestion

console = Console()


qa_app = typer.Typer(invoke_without_command=True, help="Screen question answering on live apps (ScreenQA).")
qa_app.command("collect")(qa_collect)


@qa_app.callback()
def qa_command(
    ctx: typer.Context,
    question: Optional[str] = typer.Option(None, "--question", "-q", help="The question about the screen."),
    device: Optional[str] = typer.Option(
        None, "--device", "-s", help="Serial of a real device (default: the embedded virtual device)."
    ),
    app: Optional[str] = typer.Option(None, help="Open this app (package or launcher label) before asking."),
    agent: str = typer.Option("lexical", help="QA agent: lexical (no model) or a plug-in."),
    lang: str = typer.Option("en", help="Language of the question and of the virtual device: en or zh."),
    out: Path = typer.Option(Path("out/qa"), help="Where screen.png, answer.png and screen.xml are written."),
) -> None:
    """Answer a question about the live screen: ranked answer elements, a short answer, an annotated screenshot.
    Subcommands: `check` (prove a QA suite answerable on a device) and `run` (score a QA agent on it)."""
    if ctx.invoked_subcommand is not None:
        return
    from harness.device.apps import open_app_action
    from harness.device.controller import AdbDevice
    from harness.plugins import create_qa_agent
    from harness.qa_agent import answer_elements
    from harness.report.draw import draw_answer

    if question is None:
        raise typer.BadParameter("give a question (or a subcommand: check, run)", param_hint="--question")
    if lang not in ("en", "zh"):
        raise typer.BadParameter(f"{lang!r} is not one of: en, zh", param_hint="--lang")
    try:
        qa = create_qa_agent(agent)
        with AdbDevice.connect(device, start_virtual=device is None, virtual_locale=lang) as dev:
            obs = dev.observe()
            if app:
                _, obs = dev.step(open_app_action(app), obs)
            answer = qa.answer(obs, question, lang)
    except HarnessError as e:
        fail(console, e)
    elements = answer_elements(answer, obs)
    out.mkdir(parents=True, exist_ok=True)
    obs.screenshot.save(out / "screen.png")
    (out / "screen.xml").write_text(obs.xml, encoding="utf-8")
    draw_answer(obs.screenshot, [el.bounds for el in elements]).save(out / "answer.png")
    table = Table("rank", "element", "text", "bounds", title=f"{escape(question)}  ({qa.name}, {obs.package})")
    for rank, el in enumerate(elements, 1):
        table.add_row(str(rank), str(el.index), escape(el.text or el.content_desc), str(list(el.bounds)))
    console.print(table)
    short = "no answer" if answer.no_answer or not elements else (answer.text or "")
    console.print(f"answer: [bold]{escape(short)}[/bold]", highlight=False)
    if answer.error:
        console.print(f"[yellow]{escape(answer.error)}[/yellow]", highlight=False)
    console.print(f"wrote {out / 'answer.png'}, {out / 'screen.png'}, {out / 'screen.xml'}", highlight=False)


def _langs(lang: str) -> tuple[str, ...]:
    if lang not in ("en", "zh", "all"):
        raise typer.BadParameter(f"{lang!r} is not one of: en, zh, all", param_hint="--lang")
    return ("en", "zh") if lang == "all" else (lang,)


def _each_state(
    pool: DevicePool, questions: list[QAQuestion], langs: tuple[str, ...]
) -> Iterator[tuple[QAQuestion, str]]:
    """Every (question, language), on slot 0's device restored to its clean state in that language."""
    for q in questions:
        for lg in [x for x in langs if x in q.languages]:
            pool.reset(0)
            pool.ensure_locale(0, lg)
            yield q, lg


@qa_app.command("check")
def qa_check(
    suite: str = typer.Argument("virtual", help="A bundled QA suite or a folder of question files."),
    lang: str = typer.Option("all", help="en, zh or all."),
) -> None:
    """Prove every question answerable as written: its state is reachable and every answer element is on screen."""
    from harness.run.fleet.pool import DevicePool
    from harness.run.loop.questions import reach
    from harness.scoring.questions import ground_truth
    from tasks.qa_suite import load_qa_suite

    langs = _langs(lang)
    try:
        questions = load_qa_suite(suite)
        pool = DevicePool(1).start()
    except HarnessError as e:
        fail(console, e)
    table = Table("question", "lang", "answer elements", "short answer", "verdict", title=f"qa check {suite}")
    bad = 0
    try:
        for q, lg in _each_state(pool, questions, langs):
            try:
                gt = ground_truth(q, reach(q, pool.slot(0), lg), lg)
            except HarnessError as e:
                bad += 1
                table.add_row(q.id, lg, "?", "?", f"[red]{escape(str(e))}[/red]")
                continue
            table.add_row(
                q.id,
                lg,
                escape(" | ".join(t for g in gt.elements for _, t in g) or "(none)"),
                escape(" | ".join(gt.short)),
                "[green]ok[/green]",
            )
    finally:
        pool.close()
    console.print(table)
    console.print(f"{bad} problem(s)" if bad else "[green]every question is answerable as written[/green]")
    raise typer.Exit(1 if bad else 0)


@qa_app.command("run")
def qa_run(
    suite: str = typer.Argument("virtual", help="A bundled QA suite or a folder of question files."),
    agent: str = typer.Option("lexical", help="QA agent: lexical (no model), openai, or a plug-in."),
    devices: int = typer.Option(1, help="Number of embedded virtual devices to ask on in parallel."),
    device: list[str] = typer.Option(
        [], "--device", "-s", help="Serial of a real device to ask on (repeatable), set to the question's language."
    ),
    lang: str = typer.Option("all", help="en, zh or all."),
    ids: list[str] = typer.Option([], "--id", help="Ask only this question id (repeatable)."),
    out: Path = typer.Option(Path("runs"), "--out", help="Where run directories are created."),
    run_id: Optional[str] = typer.Option(None, help="Name of the run directory (default: time-based)."),
    resume: Optional[Path] = typer.Option(None, help="Resume RUN_DIR: ask only the questions it has no record of."),
    json_out: Optional[Path] = typer.Option(None, "--json", help="Also write every answer and score as JSON here."),
    model: Optional[str] = cli_options.MODEL,
    base_url: Optional[str] = cli_options.BASE_URL,
    output_format: Optional[str] = cli_options.OUTPUT_FORMAT,
    cassette: Optional[Path] = cli_options.CASSETTE,
    cassette_mode: Optional[str] = cli_options.CASSETTE_MODE,
    profile: str = typer.Option("medium_phone", help="Virtual device profile."),
    clock: str = typer.Option("real", help=CLOCK_HELP),
    report: bool = typer.Option(True, help="Write report.html at the end."),
) -> None:
    """Ask a QA agent every question of a suite on embedded virtual devices, score it with the ScreenQA metrics
    (SQA-S, SQA-UIC, SQA-UIC-BB, the paper's nDCG_v and F1) and write a run directory (trajectories,
    summary.json, report.html). With no options: the bundled suite, the lexical baseline, one device, en + zh.

    Exit codes: 0 every question scored; 2 bad input (nothing ran); 3 finished, but some questions are
    infrastructure failures or unfinished (listed, not scored); 4 no question could be scored; 130 / 143 / 129
    stopped by SIGINT / SIGTERM / SIGHUP (`--resume` completes it)."""
    import json

    from harness.report.summary import run_rows
    from harness.run.orchestration.qa_run import QARunOptions, run_qa
    from harness.trajectory.reader import load_run
    from harness.trajectory.records import utf8

    langs = _langs(lang)
    cli_options.check_clock(clock, device)
    options = cli_options.agent_options(agent, model, base_url, output_format, cassette, cassette_mode)
    opts = QARunOptions(
        suite=suite,
        langs=langs,
        question_ids=tuple(ids),
        agent=agent,
        agent_options=options,
        devices=devices,
        serials=tuple(device),
        profile=profile,
        clock=clock,
        out=out,
        run_id=run_id,
        resume=resume,
        report=report,
        final_line=True,  # print_qa_summary
    )
    try:
        res = run_qa(opts, console)
    except HarnessError as e:  # a full disk: exit 3, with the space to free; bad input: exit 2
        fail(console, e)
    table = Table(
        "question", "lang", "answer", "ground truth", "SQA-S F1", "UIC F1", "F1@IoU", "nDCG_v", title=f"qa run {suite}"
    )
    for r in res.results:
        table.add_row(
            r.question_id,
            r.lang,
            escape(r.answer_text),
            escape(" | ".join(r.ground_truth.short)),
            f"{r.scores['sqa_s_f1']:.2f}",
            f"{r.scores['sqa_uic_f1']:.2f}",
            f"{r.scores['sqa_uic_bb_f1']:.2f}",
            f"{r.scores['ndcg_v']:.2f}",
        )
    if res.results:
        console.print(table)
    print_qa_summary(res.summary)
    if res.skipped:
        console.print(f"{len(res.outcomes)} question(s) asked now, {res.skipped} already answered", highlight=False)
    console.print(f"run: {res.run_dir}" + (f"   report: {res.run_dir / 'report.html'}" if report else ""))
    if json_out is not None:
        rows = run_rows(load_run(res.run_dir, skip_bad=True))
        scored = [r.result for r in rows if r.result is not None]
        data = {
            "summary": {**res.summary["overall"], "unscored": len(res.summary["infra_failures"])},
            "run": res.summary,
            "results": [r.to_json() for r in scored],
        }
        json_out.parent.mkdir(parents=True, exist_ok=True)
        # secrets redacted, as in every artifact the harness writes
        json_out.write_bytes(utf8(json.dumps(data, ensure_ascii=False, indent=1)))
    raise typer.Exit(res.exit_code)


def print_qa_summary(s: dict[str, Any]) -> None:
    """The QA summary of a run (`qa run`, `droidharness report` of a QA run): every metric overall, by app and
    by language; the headline; what was not scored and why (the numbers of summary.json)."""
    shown = {"sqa_s_f1": "SQA-S F1", "sqa_uic_f1": "UIC F1", "sqa_uic_bb_f1": "F1@IoU", "ndcg_v": "nDCG_v", "f1": "F1"}
    table = Table(title="summary (means over scored questions; every metric: summary.json)")
    table.add_column("", overflow="fold")
    for name in ("n", *shown.values()):
        table.add_column(name, justify="right", no_wrap=True, min_width=6)
    groups = [("all", s["overall"])] + [(f"app {k}", v) for k, v in s["by_app"].items()]
    groups += [(f"lang {k}", v) for k, v in s["by_language"].items()]
    for label, row in groups:
        table.add_row(
            escape(label),
            str(row["questions"]),
            *("–" if row.get(k) is None else f"{row[k]:.1%}" for k in shown),
        )
    console.print(table)
    o = s["overall"]
    if o["questions"]:
        console.print(
            f"{o['questions']} questions: SQA-S EM {o['sqa_s_em']:.1%} F1 {o['sqa_s_f1']:.1%} · SQA-UIC EM "
            f"{o['sqa_uic_em']:.1%} F1 {o['sqa_uic_f1']:.1%} · SQA-UIC-BB F1@IoU {o['sqa_uic_bb_f1']:.1%} · "
            f"avg nDCG_v {o['ndcg_v']:.1%} · avg F1 {o['f1']:.1%}",
            highlight=False,
            soft_wrap=True,
        )
    style = "bold" if s["exit_code"] == 0 else "bold yellow"
    console.print(f"[{style}]{escape(s['headline'])}[/{style}]", highlight=False, soft_wrap=True)
    for r in s["infra_failures"]:
        console.print(
            escape(
                f"  not scored: {r['task_id']} [{r['lang']}] {r['status']} after {r['attempts']} attempt(s): "
                f"{r['error'] or ''}"
            ),
            highlight=False,
            soft_wrap=True,
        )


def register(app: typer.Typer) -> None:
    app.add_typer(qa_app, name="qa")
