"""A full disk mid-run (issue 20, item 8): the run stops with one line naming the run directory, the file and the
space to free, exit 3, with no partial or corrupt record; `--resume` completes it once there is room, with the
same results as a run that never ran out of space.

The disk is filled for real where the machine lets the test mount a small tmpfs (root, as on CI); everywhere, the
file system's answer is also injected at the OS boundary: `os.write` on a file under the run directory writes
what still fits of a byte budget, then fails with ENOSPC, as a full file system does. Runs go through the CLI
(`droidharness run --agent reference --isolation thread`) to the embedded virtual device."""

from __future__ import annotations

import errno
import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from typer.testing import CliRunner

from harness.cli.main import app
from harness.errors import DiskFullError
from harness.trajectory.diskfull import disk_full_line, is_disk_full, space_needed
from harness.trajectory.reader import load_run
from harness.trajectory.records import EpisodeMeta

pytestmark = [pytest.mark.integration, pytest.mark.slow]

TASKS = ["settings-dark-theme", "notes-search-password"]


def _run(out: Path, *extra: str):
    args = ["run", "--agent", "reference", "--isolation", "thread", "--lang", "en", "--no-report"]
    for t in TASKS:
        args += ["--task", t]
    return CliRunner().invoke(app, [*args, "--out", str(out), *extra], env={"COLUMNS": "250"})


def _finished(run_dir: Path) -> dict[str, EpisodeMeta]:
    """The episodes with an episode.json (the others are unfinished: `--resume` runs them)."""
    return {k: e.meta for k, e in load_run(run_dir).episodes.items() if e.meta is not None}


def _outcomes(run_dir: Path) -> dict[str, tuple[bool, float, int, str, list[str]]]:
    """What a run scored, episode by episode: success, progress, steps, status and the actions taken."""
    out = {}
    for key, e in load_run(run_dir).episodes.items():
        assert e.meta is not None, f"{key} is unfinished"
        actions = [json.dumps(s.agent.action, sort_keys=True) for s in e.steps]
        out[key] = (e.meta.success, e.meta.progress, e.meta.steps, e.meta.status, actions)
    return out


def _check_no_partial_record(run_dir: Path) -> None:
    """The run directory loads; no temp file is left; every steps.jsonl ends with a whole line."""
    load_run(run_dir)  # raises on a corrupt manifest or episode.json
    assert not [p for p in run_dir.rglob("*") if p.name.endswith(".tmp")], "a temp file was left behind"
    for steps in run_dir.rglob("steps.jsonl"):
        data = steps.read_bytes()
        assert not data or data.endswith(b"\n"), f"{steps} ends in half a line"
        for line in data.splitlines():
            json.loads(line)


@pytest.fixture
def disk_budget(monkeypatch: pytest.MonkeyPatch) -> Iterator[dict[str, object]]:
    """`state["root"]`, `state["left"]`: writes to files under root (named `state["name"]`, if set) get `left`
    bytes in all, then ENOSPC."""
    state: dict[str, object] = {"root": None, "left": 0, "refused": 0, "name": None}
    real_write = os.write

    def write(fd: int, data: object) -> int:
        root = state["root"]
        try:
            target = os.readlink(f"/proc/self/fd/{fd}")
        except OSError:
            target = ""
        named = state["name"] is None or os.path.basename(target) == state["name"]
        if root is None or not target.startswith(str(root) + os.sep) or not named:
            return real_write(fd, data)  # type: ignore[arg-type]
        size = len(memoryview(data))  # type: ignore[arg-type]
        left = int(state["left"])  # type: ignore[call-overload]
        if left <= 0:
            state["refused"] = int(state["refused"]) + 1  # type: ignore[call-overload]
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        n = real_write(fd, memoryview(data)[: min(size, left)])  # type: ignore[arg-type]
        state["left"] = left - n
        return n

    monkeypatch.setattr(os, "write", write)
    yield state


def test_a_full_disk_stops_the_run_in_one_line_exit_3_and_resume_completes_it(
    tmp_path: Path, disk_budget: dict[str, object]
) -> None:
    clean = _run(tmp_path, "--run-id", "clean")
    assert clean.exit_code == 0, clean.output
    size = sum(p.stat().st_size for p in (tmp_path / "clean").rglob("*") if p.is_file())

    steps = sum(p.stat().st_size for p in (tmp_path / "clean").rglob("steps.jsonl"))
    # the disk fills in the first episode, in the second, and in the middle of a step line (the frames fit)
    for run_id, budget, name in (("a", size * 0.3, None), ("b", size * 0.7, None), ("c", steps * 0.6, "steps.jsonl")):
        run_dir = tmp_path / run_id
        disk_budget.update(root=tmp_path, left=int(budget), refused=0, name=name)
        full = _run(tmp_path, "--run-id", run_id)
        disk_budget["root"] = None  # there is room again
        assert full.exit_code == 3, full.output
        assert disk_budget["refused"], "the run did hit the full disk"
        assert "Traceback" not in full.output and full.exception is None or isinstance(full.exception, SystemExit)
        errors = [line for line in full.output.splitlines() if "error:" in line]
        assert len(errors) == 1 and errors[0] == full.output.strip().splitlines()[-1], full.output
        assert f"{run_dir}: disk full writing " in errors[0], errors[0]
        assert "free at least " in errors[0] and f"MB and resume with --resume {run_dir}" in errors[0]
        if name is not None:
            assert "disk full writing episodes/" in errors[0] and "__en/steps.jsonl; " in errors[0], errors[0]
        _check_no_partial_record(run_dir)
        assert len(_finished(run_dir)) < len(TASKS), "the episode whose write failed is not recorded as done"
        assert not (run_dir / "summary.json").exists()

        resumed = _run(tmp_path, "--resume", str(run_dir))
        assert resumed.exit_code == 0, resumed.output
        assert _outcomes(run_dir) == _outcomes(tmp_path / "clean")
        _check_no_partial_record(run_dir)


def test_disk_full_errors_name_the_file_and_the_space_and_are_infrastructure(tmp_path: Path) -> None:
    full = OSError(errno.ENOSPC, "No space left on device", str(tmp_path / "x"))
    assert is_disk_full(full) and is_disk_full(OSError(errno.EDQUOT, "quota"))
    assert not is_disk_full(OSError(errno.EACCES, "denied")) and not is_disk_full(ValueError("x"))
    # outside a run directory: nothing to resume
    assert disk_full_line(full) == f"disk full writing {tmp_path / 'x'}; free some space and run again"
    run_dir = tmp_path / "r"
    (run_dir / "episodes" / "a__en").mkdir(parents=True)
    manifest = {"suite": {"task_ids": ["a", "b", "c"], "languages": ["en", "zh"]}}
    (run_dir / "manifest.json").write_text(json.dumps(manifest))
    (run_dir / "episodes" / "a__en" / "episode.json").write_text("{}")
    (run_dir / "episodes" / "a__en" / "steps.jsonl").write_bytes(b"x" * 3 * 1024 * 1024)
    used = sum(p.stat().st_size for p in run_dir.rglob("*") if p.is_file())
    assert space_needed(run_dir, 100) == used * 5 + 100  # one finished of six: five to go, as large
    e = DiskFullError("episodes/b__en/steps.jsonl", str(run_dir), 100)
    assert str(e) == f"{run_dir}: disk full writing episodes/b__en/steps.jsonl (100 bytes)"
    assert disk_full_line(e) == (
        f"{run_dir}: disk full writing episodes/b__en/steps.jsonl; free at least 16 MB "
        f"and resume with --resume {run_dir}"
    )
    # a raw OSError under a run directory names the run (report.html and the like)
    raw = OSError(errno.ENOSPC, "No space left on device", str(run_dir / "report.html"))
    assert disk_full_line(raw).startswith(f"{run_dir}: disk full writing report.html; free at least ")


def _mount_tmpfs(where: Path, size: str) -> bool:
    if sys.platform != "linux" or os.geteuid() != 0:
        return False
    where.mkdir(parents=True, exist_ok=True)
    done = subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={size}", "tmpfs", str(where)], capture_output=True)
    return done.returncode == 0


def test_a_real_full_tmpfs_stops_the_run_and_resume_completes_it_after_growing_it(tmp_path: Path) -> None:
    """The real thing, where the machine lets the test mount (root): a tmpfs too small for the run."""
    mnt = tmp_path / "small"
    if not _mount_tmpfs(mnt, "400k"):
        pytest.skip("cannot mount a tmpfs here (needs root and mount permission)")
    try:
        full = _run(mnt, "--run-id", "r")
        assert full.exit_code == 3, full.output
        line = full.output.strip().splitlines()[-1]
        assert line.startswith(f"error: {mnt / 'r'}: disk full writing ") and "Traceback" not in full.output
        _check_no_partial_record(mnt / "r")
        assert len(_finished(mnt / "r")) < len(TASKS)
        grown = subprocess.run(["mount", "-o", "remount,size=64m", str(mnt)], capture_output=True)
        assert grown.returncode == 0, grown.stderr
        resumed = _run(mnt, "--resume", str(mnt / "r"))
        assert resumed.exit_code == 0, resumed.output
        finished = _finished(mnt / "r")
        assert len(finished) == len(TASKS) and all(m.success for m in finished.values())
    finally:
        subprocess.run(["umount", str(mnt)], capture_output=True)


def test_a_full_disk_stops_a_qa_run_the_same_way(tmp_path: Path, disk_budget: dict[str, object]) -> None:
    """`qa run` goes through the same driver and lifecycle: one line naming the run and the space, exit 3, and
    `--resume` finishes the questions the full disk left."""
    args = ["qa", "run", "--lang", "en", "--no-report", "--out", str(tmp_path)]
    clean = CliRunner().invoke(app, [*args, "--run-id", "clean"], env={"COLUMNS": "250"})
    assert clean.exit_code == 0, clean.output
    size = sum(p.stat().st_size for p in (tmp_path / "clean").rglob("*") if p.is_file())
    disk_budget.update(root=tmp_path, left=int(size * 0.5), refused=0, name=None)
    full = CliRunner().invoke(app, [*args, "--run-id", "q"], env={"COLUMNS": "250"})
    disk_budget["root"] = None
    assert full.exit_code == 3 and disk_budget["refused"], full.output
    errors = [line for line in full.output.splitlines() if "error:" in line]
    assert len(errors) == 1 and f"{tmp_path / 'q'}: disk full writing " in errors[0], full.output
    _check_no_partial_record(tmp_path / "q")
    resumed = CliRunner().invoke(app, ["qa", "run", "--resume", str(tmp_path / "q")], env={"COLUMNS": "250"})
    assert resumed.exit_code == 0, resumed.output
    assert len(_finished(tmp_path / "q")) == len(_finished(tmp_path / "clean"))
