"""The CLI as a user types it: clear errors for bad input, and the small commands."""

from __future__ import annotations

import json

from typer.testing import CliRunner

from harness.cli import app

runner = CliRunner()


def test_tasks_list_json_names_every_task():
    r = runner.invoke(app, ["tasks", "list", "--json"])
    assert r.exit_code == 0, r.output
    tasks = json.loads(r.stdout)
    assert len(tasks) >= 30 and {t["category"] for t in tasks} == {"1-1", "1-2", "1-3", "1-4", "2-1", "2-2", "3-1",
                                                                    "3-2"}


def test_tasks_list_pipes_ids_into_tasks_check():
    listed = runner.invoke(app, ["tasks", "list"])  # not a terminal: one id per line, as for a pipe
    ids = listed.stdout.split()
    assert listed.exit_code == 0 and "settings-dark-theme" in ids and len(ids) >= 30
    r = runner.invoke(app, ["tasks", "check", "--task", "-", "--lang", "en"], input="settings-dark-theme\n",
                      env={"COLUMNS": "200"})
    assert r.exit_code == 0, r.output
    assert "settings-dark-theme" in r.output and "every task is sound" in r.output
    assert "notes-search-password" not in r.output, "only the ids read from stdin are checked"
    bad = runner.invoke(app, ["tasks", "check", "--task", "-"], input="no-such-task\n")
    assert bad.exit_code == 2 and "no-such-task" in bad.output and "Traceback" not in bad.output


def test_bad_options_are_clear_errors_not_tracebacks(tmp_path):
    r = runner.invoke(app, ["run", "--latency", "warp", "--out", str(tmp_path)])
    assert r.exit_code == 2 and "warp" in r.output and "Traceback" not in r.output
    r = runner.invoke(app, ["run", "--agent", "replay", "--model", "gpt-4o", "--out", str(tmp_path)])
    assert r.exit_code == 2 and "--agent openai" in r.output
    r = runner.invoke(app, ["run", "--task", "no-such-task", "--out", str(tmp_path)])
    assert r.exit_code == 2 and "unknown task id" in r.output
    r = runner.invoke(app, ["report", str(tmp_path / "missing")])
    assert r.exit_code == 2 and "missing" in r.output and "Traceback" not in r.output
    r = runner.invoke(app, ["tasks", "list", str(tmp_path)])
    assert r.exit_code == 2 and "no task files" in r.output
    assert not any(tmp_path.iterdir())


def test_virtual_tour_drives_the_device_with_the_real_clients(tmp_path):
    r = runner.invoke(app, ["virtual", "tour", "--out", str(tmp_path)])
    assert r.exit_code == 0, r.output
    assert "note saved and listed: True" in r.output
    assert sorted(p.name for p in tmp_path.iterdir()) == [f"{i:03d}.{ext}" for i in range(1, 5)
                                                           for ext in ("png", "xml")]
