"""One writer per run directory: a second `--resume` is refused naming the pid that holds the run; a lock left by a
killed run is taken over."""

from __future__ import annotations

import signal
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from harness.cli.main import app
from harness.errors import ConfigError
from harness.run.fleet.pool import DevicePool
from harness.run.orchestration.lock import RunLock
from harness.run.orchestration.suite import SuiteOptions, run_suite
from tests.paths import REPO
from tests.run_util import FAST_WRITER

pytestmark = pytest.mark.integration

ROOT = REPO
TASK = ("settings-dark-theme",)


def _holder(run_dir: Path) -> subprocess.Popen[str]:
    """Another process holding the run directory, as a second `droidharness run --resume` would."""
    code = (
        "import sys, time\nfrom harness.run.orchestration.lock import RunLock\n"
        f"RunLock({str(run_dir)!r}).acquire()\nprint('locked', flush=True)\ntime.sleep(60)\n"
    )
    proc = subprocess.Popen([sys.executable, "-c", code], cwd=ROOT, stdout=subprocess.PIPE, text=True)
    assert proc.stdout is not None and proc.stdout.readline().strip() == "locked"
    return proc


def test_a_second_resume_is_refused_naming_the_holder_then_a_dead_holders_lock_is_taken_over(tmp_path):
    with DevicePool(1, in_process=True) as pool:
        first = run_suite(
            SuiteOptions(
                writer=FAST_WRITER,
                task_ids=TASK,
                langs=("en", "zh"),
                out=tmp_path,
                run_id="r",
                agent="reference",
                report=False,
            ),
            pool=pool,
        )
        run_dir = first.run_dir
        (run_dir / "episodes" / "settings-dark-theme__zh" / "episode.json").unlink()  # one episode left to do
        holder = _holder(run_dir)
        try:
            with pytest.raises(ConfigError, match=f"in use by pid {holder.pid}"):
                run_suite(
                    SuiteOptions(
                        writer=FAST_WRITER, task_ids=TASK, langs=("en", "zh"), resume=run_dir, agent="reference"
                    ),
                    pool=pool,
                )
            cli = CliRunner().invoke(app, ["run", "--agent", "reference", "--task", TASK[0], "--resume", str(run_dir)])
            assert cli.exit_code == 2 and f"pid {holder.pid}" in cli.output
        finally:
            holder.send_signal(signal.SIGKILL)  # the process this test started, by its pid
            holder.wait(10)
        resumed = run_suite(
            SuiteOptions(writer=FAST_WRITER, task_ids=TASK, langs=("en", "zh"), resume=run_dir, agent="reference"),
            pool=pool,
        )
    assert resumed.skipped == 1 and [r.lang for r in resumed.results] == ["zh"] and resumed.sr == 1.0


def test_the_lock_is_released_when_the_run_ends(tmp_path):
    with RunLock(tmp_path):
        with pytest.raises(ConfigError, match="in use by pid"):
            RunLock(tmp_path).acquire()
    RunLock(tmp_path).acquire().release()
