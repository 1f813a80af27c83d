"""Kill a run mid-way (SIGKILL), resume it, and get the same results as an uninterrupted run."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

TASKS = ["settings-dark-theme", "notes-search-password", "weather-thursday-high", "clock-world-time"]


def _cmd(out: Path, *extra: str) -> list[str]:
    args = [
        sys.executable,
        "-m",
        "harness",
        "run",
        "--agent",
        "reference",
        "--lang",
        "en",
        "--out",
        str(out),
        "--no-report",
    ]
    for t in TASKS:
        args += ["--task", t]
    return args + list(extra)


def _results(run_dir: Path) -> dict[str, tuple]:
    out = {}
    for f in sorted((run_dir / "episodes").glob("*/episode.json")):
        d = json.loads(f.read_text())
        out[d["task_id"]] = (
            d["status"],
            d["progress"],
            d["steps"],
            d["answer"],
            [m["hit_step"] for m in d["milestones"]],
        )
    return out


def _server_records(state: Path) -> list[dict]:
    return [json.loads(p.read_text()) for p in sorted((state / "adb-servers").glob("*.json"))]


@pytest.mark.slow
def test_killed_run_resumes_to_the_same_results(tmp_path, monkeypatch):
    state = tmp_path / "state"  # the runs' record of their private adb servers (see emulator.virtual.adbserver)
    monkeypatch.setenv("DROIDHARNESS_STATE_DIR", str(state))
    proc = subprocess.Popen(_cmd(tmp_path, "--run-id", "killed"), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    run_dir = tmp_path / "killed"
    try:
        deadline = time.time() + 120
        while time.time() < deadline and len(list(run_dir.glob("episodes/*/episode.json"))) < 1:
            time.sleep(0.02)
    finally:
        proc.send_signal(signal.SIGKILL)  # the run this test started, by its pid
        proc.wait(10)
    orphans = _server_records(state)
    assert [r["owner"] for r in orphans] == [proc.pid], "the killed run's adb server outlived it, recorded"
    done_before = len(list(run_dir.glob("episodes/*/episode.json")))
    assert 1 <= done_before < len(TASKS), "the kill must land mid-run"
    lines = [ln for f in run_dir.glob("episodes/*/steps.jsonl") for ln in f.read_text().splitlines()]
    assert all(json.loads(ln)["step"] >= 1 for ln in lines), "every recorded step is readable"

    resumed = subprocess.run(_cmd(tmp_path, "--resume", str(run_dir)), capture_output=True, text=True, timeout=300)
    assert resumed.returncode == 0, resumed.stdout + resumed.stderr
    assert f"{done_before} already done" in resumed.stdout

    clean = subprocess.run(_cmd(tmp_path, "--run-id", "clean"), capture_output=True, text=True, timeout=300)
    assert clean.returncode == 0, clean.stderr
    assert _results(run_dir) == _results(tmp_path / "clean")
    assert len(_results(run_dir)) == len(TASKS)
    assert _server_records(state) == [], "the resumed run reaped the orphan; every run stopped its own server"
    assert (
        not Path(f"/proc/{orphans[0]['pid']}").exists()
        or b"fork-server" not in Path(f"/proc/{orphans[0]['pid']}/cmdline").read_bytes()
    )
