"""The benchmarks run and print their figures side by side: each quick configuration of a bench/ script, run as a
user runs it (its own interpreter from the repository), exits 0 and prints the rows it promises. What they measure
is read by people (README); that they still run after a refactor is checked here."""

from __future__ import annotations

import subprocess
import sys

import pytest

from tests.paths import REPO

pytestmark = [pytest.mark.slow, pytest.mark.integration]

QUICK = [  # (script, quick arguments, what its output must name)
    ("metrics.py", ["--steps", "2000", "--ref-steps", "200", "--shard-steps", "1000", "--repeat", "1"], "max RSS"),
    ("reset.py", ["--n", "2"], "app_clear"),
    ("step_cost.py", ["--steps", "15", "--isolation", "thread", "--profile", "small_phone"], "pack raw rows"),
    ("grpc_paths.py", ["--repeat", "2", "--latency", "instant"], "grpc shm RGB"),
    ("virtual_device.py", ["--repeat", "2", "--slow-repeat", "1", "--profiles", "instant"], "u2 RPC deviceInfo"),
    (
        "soak.py",
        ["--episodes", "12", "--clock", "real", "--sample-interval", "0.5", "--families", "clock-alarm", "notes-new"],
        "device (2 processes)",
    ),
    ("zygote.py", ["memory", "--devices", "2", "--episodes", "6", "--runs", "1"], "device Shared_Dirty MB"),
]


@pytest.mark.parametrize(("script", "args", "names"), QUICK, ids=[q[0] for q in QUICK])
def test_a_bench_runs_and_prints_its_figures(script: str, args: list[str], names: str, tmp_path) -> None:
    env = {"COLUMNS": "200", "PATH": "/usr/bin:/bin", "HOME": str(tmp_path), "DROIDHARNESS_STATE_DIR": str(tmp_path)}
    r = subprocess.run(
        [sys.executable, str(REPO / "bench" / script), *args],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=str(REPO),
        env=env,
    )
    assert r.returncode == 0, r.stderr[-2000:]
    assert names in r.stdout and "Traceback" not in r.stderr, r.stdout[-2000:]


def test_every_bench_script_answers_help() -> None:
    """Every script in bench/ parses its options (and imports what it uses) - a moved module breaks this first."""
    scripts = sorted((REPO / "bench").glob("*.py"))
    assert len(scripts) >= 7
    for path in scripts:
        r = subprocess.run([sys.executable, str(path), "--help"], capture_output=True, text=True, timeout=120)
        assert r.returncode == 0 and "usage" in r.stdout, f"{path.name}: {r.stderr[-1000:]}"
