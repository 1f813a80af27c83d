"""The CLI as a user types it: clear errors for bad input, and the small commands."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from harness.cli.main import app
from tasks.suite import suite_path

pytestmark = pytest.mark.integration

runner = CliRunner()


def test_tasks_list_json_names_every_task():
    r = runner.invoke(app, ["tasks", "list", "--json"])
    assert r.exit_code == 0, r.output
    tasks = json.loads(r.stdout)
    assert len(tasks) >= 30 and {t["category"] for t in tasks} == {
        "1-1",
        "1-2",
        "1-3",
        "1-4",
        "2-1",
        "2-2",
        "3-1",
        "3-2",
    }


def test_tasks_list_pipes_ids_into_tasks_check(tmp_path):
    listed = runner.invoke(app, ["tasks", "list"])  # not a terminal: one id per line, as for a pipe
    ids = listed.stdout.split()
    assert listed.exit_code == 0 and "settings-dark-theme" in ids and len(ids) >= 30
    state = tmp_path / "state"  # where the run records its private adb server (emulator.virtual.adbserver)
    r = runner.invoke(
        app,
        ["tasks", "check", "--task", "-", "--lang", "en"],
        input="settings-dark-theme\n",
        env={"COLUMNS": "200", "DROIDHARNESS_STATE_DIR": str(state)},
    )
    assert list((state / "adb-servers").glob("*.json")) == [], "the check stopped every adb server it started"
    assert r.exit_code == 0, r.output
    assert "settings-dark-theme" in r.output and "every task is sound" in r.output
    assert "notes-search-password" not in r.output, "only the ids read from stdin are checked"
    bad = runner.invoke(app, ["tasks", "check", "--task", "-"], input="no-such-task\n")
    assert bad.exit_code == 2 and "no-such-task" in bad.output and "Traceback" not in bad.output


def test_tasks_check_in_process_proves_a_suite_without_adb(tmp_path):
    state = tmp_path / "state"
    env = {"COLUMNS": "200", "DROIDHARNESS_STATE_DIR": str(state)}
    r = runner.invoke(app, ["tasks", "check", "--in-process", "--task", "settings-dark-theme", "--lang", "en"], env=env)
    assert r.exit_code == 0, r.output
    assert "settings-dark-theme" in r.output and "every task is sound" in r.output
    assert not (state / "adb-servers").exists() or not list((state / "adb-servers").glob("*.json")), "no adb server"
    # an unsound task: a reference that never turns the switch on
    suite = tmp_path / "suite"
    suite.mkdir()
    task = json.loads((suite_path("virtual") / "settings-dark-theme.json").read_text(encoding="utf-8"))
    task["reference"] = {lang: [{"type": "COMPLETE"}] for lang in task["reference"]}
    (suite / "settings-dark-theme.json").write_text(json.dumps(task), encoding="utf-8")
    bad = runner.invoke(app, ["tasks", "check", str(suite), "--in-process", "--lang", "en"], env=env)
    assert bad.exit_code == 1 and "1 problem(s)" in bad.output, bad.output
    both = runner.invoke(app, ["tasks", "check", "--in-process", "--device", "X1"], env=env)
    assert both.exit_code == 2 and "--in-process" in both.output and "Traceback" not in both.output


def test_bad_options_are_clear_errors_not_tracebacks(tmp_path):
    r = runner.invoke(app, ["run", "--latency", "warp", "--out", str(tmp_path)])
    assert r.exit_code == 2 and "warp" in r.output and "Traceback" not in r.output
    r = runner.invoke(app, ["run", "--agent", "reference", "--model", "gpt-4o", "--out", str(tmp_path)])
    assert r.exit_code == 2 and "--agent openai" in r.output
    r = runner.invoke(app, ["run", "--task", "no-such-task", "--out", str(tmp_path)])
    assert r.exit_code == 2 and "unknown task id" in r.output
    r = runner.invoke(app, ["report", str(tmp_path / "missing")])
    assert r.exit_code == 2 and "missing" in r.output and "Traceback" not in r.output
    r = runner.invoke(app, ["tasks", "list", str(tmp_path)])
    assert r.exit_code == 2 and "no task files" in r.output
    assert not any(tmp_path.iterdir())


def _free_port() -> int:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


BAD_INPUT = [  # (arguments, what the one line must name)
    (["run", "--device", "NOPE123", "--task", "settings-dark-theme"], "no adb server is running"),
    (["tasks", "check", "--device", "NOPE123", "--task", "settings-dark-theme"], "no adb server is running"),
    (["observe", "--device", "NOPE123"], "no adb server is running"),
    (["run", "--suite", "/no/such/suite"], "/no/such/suite"),
    (["tasks", "list", "/no/such/suite"], "/no/such/suite"),
    (["tasks", "check", "/no/such/suite"], "/no/such/suite"),
    (["run", "--task", "no-such-task"], "no-such-task"),
    (["tasks", "check", "--task", "no-such-task"], "no-such-task"),
    (["run", "--resume", "/no/such/run"], "/no/such/run"),
    (["report", "/no/such/run"], "/no/such/run"),
    (["eval", "--dataset", "odyssey", "--data", "/no/such/data", "--predictions", "/no/such/preds"], "/no/such"),
    (["replay", "--dataset", "aitz", "--data", "/no/such/data", "--episode", "1"], "/no/such/data"),
    (["run", "--agent", "no-such-agent"], "no-such-agent"),
    (["run", "--lang", "fr"], "fr"),
    (["qa", "run", "--device", "NOPE123", "--id", "weather-humidity"], "no adb server is running"),
    # a phone, a user's emulator or AVD copies keep their own time: refused before any adb server is asked
    (["run", "-s", "NOPE123", "--clock", "virtual"], "device NOPE123 (--device) keeps its own time: --clock virtual"),
    (["run", "--avd", "NOAVD", "--clock", "virtual"], "the copies of AVD NOAVD (--avd) keep their own time"),
    (["qa", "run", "-s", "emulator-5554", "--clock", "virtual"], "device emulator-5554 (--device) keeps its own"),
    (["mcp", "-s", "NOPE123", "--clock", "virtual"], "device NOPE123 (--device) keeps its own time"),
    (["run", "--clock", "warp"], "'warp' is not one of: real, virtual"),
    (["virtual", "start", "--clock", "warp"], "'warp' is not one of: real, virtual"),
    # --perturb: an unknown name, a bad value, a kind no dialog or popup has (docs/robustness.md): nothing runs
    (["run", "--perturb", "dark,blur"], "--perturb blur: unknown perturbation 'blur'"),
    (["run", "--perturb", "font=abc"], "--perturb font=abc: 'abc' is not a font scale"),
    (["run", "--perturb", "size=12"], "--perturb size=12: '12' is not a display size"),
    (["run", "--perturb", "density=x"], "--perturb density=x: 'x' is not a display density"),
    (["run", "--perturb", "dialog=crash"], "--perturb dialog=crash: 'crash' is not one of anr|battery|permission"),
    (["run", "--perturb", "landscape,popup=banner"], "--perturb popup=banner: 'banner' is not one of rate|promo"),
]


@pytest.mark.parametrize(("args", "named"), BAD_INPUT, ids=[" ".join(a[:3]) for a, _ in BAD_INPUT])
def test_every_subcommand_answers_bad_input_with_one_line_and_exit_2(args, named, tmp_path):
    env = {"ANDROID_ADB_SERVER_PORT": str(_free_port()), "COLUMNS": "400"}  # no adb server there
    extra = ["--out", str(tmp_path)] if args[0] == "run" or args[:2] == ["qa", "run"] else []
    r = runner.invoke(app, args + extra, env=env)
    assert r.exit_code == 2, r.output
    assert named in r.output and "Traceback" not in r.output
    lines = [
        ln
        for ln in r.output.splitlines()
        if ln.strip() and not set(ln.strip()) <= set("╭╮╰╯─│ ") and not ln.startswith(("Usage: ", "Try '", "╭─ Error"))
    ]  # click's usage box around an option error
    assert len(lines) == 1, r.output
    assert not any(tmp_path.iterdir()), "nothing is written for a run that cannot start"


def test_virtual_tour_drives_the_device_with_the_real_clients(tmp_path):
    r = runner.invoke(app, ["virtual", "tour", "--out", str(tmp_path)])
    assert r.exit_code == 0, r.output
    assert "note saved and listed: True" in r.output
    assert sorted(p.name for p in tmp_path.iterdir()) == [
        f"{i:03d}.{ext}" for i in range(1, 5) for ext in ("png", "xml")
    ]
