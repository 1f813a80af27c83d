"""`run --suite androidworld` and `tasks list androidworld` without AndroidWorld installed (CI's case): one line saying
how to install it, exit 2, nothing started; bad options say what is wrong."""

from __future__ import annotations

import pytest
from typer.testing import CliRunner

from harness.androidworld.binding import available
from harness.cli.main import app

pytestmark = pytest.mark.skipif(available(), reason="AndroidWorld is installed here: these are the paths without it")


@pytest.mark.parametrize("argv", [["run", "--suite", "androidworld"], ["tasks", "list", "androidworld"]])
def test_without_androidworld_one_line_and_exit_2(argv, tmp_path):
    res = CliRunner().invoke(app, [*argv, *(["--out", str(tmp_path)] if argv[0] == "run" else [])])
    assert res.exit_code == 2, res.output
    lines = [ln for ln in res.output.splitlines() if ln.strip()]
    assert lines[0].startswith("error: --suite androidworld needs AndroidWorld, which is not on PyPI")
    assert "docs/androidworld.md" in res.output and "Traceback" not in res.output
    assert not list(tmp_path.iterdir())  # no run directory
