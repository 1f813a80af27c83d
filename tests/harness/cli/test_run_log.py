"""A run's output written to a file (not a terminal) says its final line once: rich writes the live view's last
frame there as the view stops, and under the CLI, which prints the final line, that frame leaves out the running
headline (harness/run/orchestration/live.py, `final_line`)."""

from __future__ import annotations

import io
import subprocess
import sys
from contextlib import nullcontext
from pathlib import Path

import pytest
from rich.console import Console

from harness.run.orchestration.live import LiveView
from tests.paths import REPO

pytestmark = pytest.mark.integration

ROOT = REPO


def _log_of(tmp_path: Path, *args: str) -> str:
    log = tmp_path / "log"
    with log.open("wb") as f:  # `droidharness ... > log 2>&1`
        subprocess.run(
            [sys.executable, "-m", "harness.cli.main", *args, "--out", str(tmp_path / "runs"), "--no-report"],
            cwd=ROOT,
            stdout=f,
            stderr=subprocess.STDOUT,
            timeout=120,
            check=True,
        )
    return log.read_text(encoding="utf-8")


def test_a_run_logged_to_a_file_prints_its_final_line_once(tmp_path):
    run = ["run", "--agent", "reference", "--task", "settings-dark-theme", "--lang", "en", "--isolation", "thread"]
    text = _log_of(tmp_path, *run)
    lines = text.splitlines()
    assert [ln for ln in lines if ln.startswith("SR ")] == ["SR 100.0%  ATP 100.0%  over 1 scored episode"], text
    assert "device 0  idle" in lines  # the live view's last frame is still there, without the headline


def test_a_qa_run_logged_to_a_file_prints_its_headline_once(tmp_path):
    text = _log_of(tmp_path, "qa", "run", "--id", "weather-humidity", "--lang", "en")
    assert len([ln for ln in text.splitlines() if ln.startswith("SQA-S F1 ")]) == 1, text


def _view(console: Console, final_line: bool = True) -> LiveView[str]:
    return LiveView(
        console, total=1, slots=1, headline=lambda outs: f"HEADLINE over {len(outs)}", final_line=final_line
    )


@pytest.mark.parametrize("ended", ["done", "error"])
def test_the_last_frame_in_a_file_keeps_the_headline_only_when_the_run_failed(ended):
    out = io.StringIO()
    view = _view(Console(file=out, width=80, highlight=False))
    with pytest.raises(RuntimeError) if ended == "error" else nullcontext():
        with view:
            view.done("one")
            if ended == "error":
                raise RuntimeError("disk full")
    assert ("HEADLINE over 1" in out.getvalue()) == (ended == "error"), out.getvalue()


def test_without_a_final_line_the_last_frame_keeps_the_headline():
    """run_suite / run_qa called by a program that prints no final line: the log keeps the live view's."""
    out = io.StringIO()
    view = _view(Console(file=out, width=80, highlight=False), final_line=False)
    with view:
        view.done("one")
    assert "HEADLINE over 1" in out.getvalue()


def test_a_terminal_keeps_the_live_headline():
    out = io.StringIO()
    view = _view(Console(file=out, width=80, force_terminal=True, highlight=False))
    with view:
        view.done("one")
    assert "HEADLINE over 1" in out.getvalue()
