"""A manifest that re-runs a run: the agent's settings (model, endpoint without credentials, output format,
sampling, image size, history, prompt templates and hash), the suite and its hash, seeds, devices and their
preparation, the harness version and git commit, and the command's options; `droidharness run --like RUN`
reproduces the reference agent's run and, with a cassette, the openai agent's run, episode for episode."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from typer.testing import CliRunner

from agents.openai_agent import OpenAIAgent
from harness.cli.main import app
from harness.trajectory.reader import load_run
from harness.trajectory.writer import RunWriter
from tests.openai_stub import OpenAIStub, reply
from tests.paths import REPO

pytestmark = pytest.mark.integration

runner = CliRunner()
KEY = "sk-test-NEVER-WRITE-ME-like-0123456789"
TASK = "settings-dark-theme"
COMMON = ["--task", TASK, "--lang", "en", "--isolation", "thread", "--no-report"]


def _episodes(run_dir: Path) -> dict[str, tuple]:
    """Per episode: the result (status, success, progress, steps, seed) and the actions taken."""
    run = load_run(run_dir)
    return {
        k: (
            (ep.meta.status, ep.meta.success, ep.meta.progress, ep.meta.steps, ep.meta.seed),
            [s.agent.action for s in ep.steps],
        )
        for k, ep in run.episodes.items()
    }


def _manifest(run_dir: Path) -> dict:
    return json.loads((run_dir / "manifest.json").read_text())


def test_run_like_reproduces_a_reference_run_and_takes_overrides(tmp_path):
    r = runner.invoke(
        app, ["run", "--agent", "reference", "--seed", "7", "--out", str(tmp_path), "--run-id", "a", *COMMON]
    )
    assert r.exit_code == 0, r.output
    first = _manifest(tmp_path / "a")
    assert first["suite"]["name"] == "virtual" and re.fullmatch(r"[0-9a-f]{64}", first["suite"]["hash"])
    assert first["seeds"]["base"] == 7 and set(first["seeds"]["episodes"]) == {f"{TASK}__en"}
    assert first["harness"]["version"] and re.fullmatch(r"[0-9a-f]{40}", first["harness"]["git_commit"] or "")
    assert first["devices"] and first["devices"][0]["preparation"]["settings"], "devices and their preparation"
    assert first["rerun"]["agent"] == "reference" and first["rerun"]["seed"] == 7 and first["rerun"]["task"] == [TASK]
    # from another directory: the recorded options, the output directory included
    r = runner.invoke(app, ["run", "--like", str(tmp_path / "a"), "--run-id", "b"])
    assert r.exit_code == 0, r.output
    assert _episodes(tmp_path / "b") == _episodes(tmp_path / "a")
    second = _manifest(tmp_path / "b")
    assert second["rerun"] == first["rerun"] and second["suite"] == first["suite"] and second["seeds"] == first["seeds"]
    # an option given on the command line overrides the recorded one
    r = runner.invoke(app, ["run", "--like", str(tmp_path / "a"), "--run-id", "c", "--max-steps", "2"])
    assert r.exit_code == 0, r.output
    (short,) = _episodes(tmp_path / "c").values()
    assert short[0][3] == 2 and short[0][0] != "success" and _manifest(tmp_path / "c")["rerun"]["max_steps"] == 2


def _model(body):
    """Open Settings, then say it is done: a stateless model (the cassette keys on the request)."""
    opened = any("OPEN_APP" in json.dumps(m) or "open app" in json.dumps(m) for m in body["messages"][1:])
    action = {"type": "COMPLETE"} if opened else {"type": "OPEN_APP", "name": "Settings"}
    return reply(json.dumps({"thought": "next", "action": action}))


def test_run_like_replays_an_openai_run_from_its_cassette(tmp_path):
    cassette = tmp_path / "model.jsonl"
    with OpenAIStub(handler=_model) as stub:
        url = stub.url
        r = runner.invoke(
            app,
            ["run", "--agent", "openai", "--model", "stub-vlm", "--base-url", url, "--output-format", "json",
             "--cassette", str(cassette), "--cassette-mode", "record", "--out", str(tmp_path), "--run-id", "live",
             *COMMON],
            env={"OPENAI_API_KEY": KEY},
        )  # fmt: skip
        assert r.exit_code == 0, r.output
    m = _manifest(tmp_path / "live")
    agent = m["agent"]
    assert agent["name"] == "openai" and agent["model"] == "stub-vlm" and agent["base_url"] == url
    assert agent["output_format"] == "json" and agent["sampling"]["temperature"] == 0.0
    assert agent["image"]["max_side"] == agent["max_image_side"] == 1344 and agent["history"] == 8
    system = (REPO / "harness" / "modelio" / "prompts" / "system_json.md").read_text(encoding="utf-8")
    assert agent["prompt_templates"]["system"] == system
    assert m["prompt_hash"] and agent["prompt_hash"] == m["prompt_hash"]
    assert KEY not in (tmp_path / "live" / "manifest.json").read_text()
    # the endpoint is gone: the cassette stands in for it, and the API key is not needed
    r = runner.invoke(
        app,
        ["run", "--like", str(tmp_path / "live"), "--cassette-mode", "playback", "--run-id", "replay"],
        env={"OPENAI_API_KEY": None},
    )
    assert r.exit_code == 0, r.output
    live, replay = _episodes(tmp_path / "live"), _episodes(tmp_path / "replay")
    assert live == replay and next(iter(live.values()))[0][3] == 2  # OPEN_APP, COMPLETE
    assert _manifest(tmp_path / "replay")["prompt_hash"] == m["prompt_hash"]


def test_agent_settings_hold_no_credentials():
    agent = OpenAIAgent(base_url="http://me:pw-123@127.0.0.1:9/v1?api-key=zz-secret", api_key=KEY, temperature=0.3)
    s = agent.settings()
    assert s["base_url"] == "http://127.0.0.1:9/v1" and s["sampling"]["temperature"] == 0.3
    text = json.dumps(s)
    assert "pw-123" not in text and "zz-secret" not in text and KEY not in text and "api_key" not in s


def test_run_like_bad_input_is_one_line_and_exit_2(tmp_path):
    r = runner.invoke(app, ["run", "--like", str(tmp_path / "missing")])
    assert r.exit_code == 2 and "missing: no such run directory" in r.output and "Traceback" not in r.output
    old = RunWriter.create(tmp_path, "old", agent={"name": "reference"})  # a run without recorded options
    old.close_episodes()
    r = runner.invoke(app, ["run", "--like", str(old.path)])
    assert r.exit_code == 2 and "no 'rerun' options" in r.output and len(r.output.strip().splitlines()) == 1
