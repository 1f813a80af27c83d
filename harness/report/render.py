"""`write_report(run_dir)`: a run directory -> its self-contained report.html, the page of its kind (a task run's,
`harness.report.tasks`; a QA run's, `harness.report.questions`).
"""

from __future__ import annotations

import dataclasses
from pathlib import Path

from harness.report.questions import render_qa_report
from harness.report.summary import summarize
from harness.report.tasks import render_task_report
from harness.scrub import redact
from harness.trajectory.reader import Run, load_run, load_summary
from harness.trajectory.records import atomic_write_bytes
from harness.trajectory.writer import RunWriter


def render_report(run: Run) -> str:
    """The whole report as one HTML string (no external resources). A QA run's: `harness.report.questions`."""
    return render_qa_report(run) if run.kind == "qa" else render_task_report(run)


def write_report(run_dir: str | Path, out: str | Path | None = None) -> Path:
    """Render `run_dir` into `run_dir/report.html` (or `out`), written atomically. Returns the path."""
    return write_report_of(load_run(run_dir, skip_bad=True), out)


def write_report_of(run: Run, out: str | Path | None = None) -> Path:
    """`write_report` of a run already read from disk."""
    path = Path(out) if out is not None else run.path / "report.html"
    # secrets redacted as in every artifact; a lone surrogate (model output can hold one) shows as its escape,
    # \\ud800, instead of breaking the page
    atomic_write_bytes(path, redact(render_report(run)).encode("utf-8", "backslashreplace"), fsync=False)
    return path


def write_summary(writer: RunWriter) -> Run:
    """summary.json of what is on disk (`harness.report.summary.summarize`), with the devices the pool
    quarantined during the run (`quarantined`). Returns the run as on disk now, its summary read back."""
    run = load_run(writer.path, skip_bad=True)
    summary = summarize(run)
    summary.setdefault("quarantined", writer.quarantined())
    writer.write_summary(summary)
    return dataclasses.replace(run, summary=load_summary(writer.path))


def finish_run(writer: RunWriter, report: bool = True) -> Run:
    """The end of every run (task, QA, offline, replay): close the open episodes (unfinished ones stay
    unfinished), then write summary.json and, with `report`, report.html from what is on disk. Returns the run
    as on disk (read once: what every surface prints)."""
    writer.close_episodes()
    run = write_summary(writer)
    if report:
        write_report_of(run)
    return run
