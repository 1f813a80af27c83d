"""Token cost: `--price IN/OUT` or a price table by model turns tokens into cost per step, episode and run in
summary.json, the report, the live view and `compare`; model call latency beside the timings. The openai agent
runs through the CLI with the real `openai` client against the local stub server."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from harness.cli.main import app
from harness.errors import ConfigError
from harness.run.orchestration.suite import live_headline
from harness.scoring.cost import Price, load_price_table, parse_price, resolve_price
from harness.trajectory.result import SUCCESS, EpisodeResult
from tests.openai_stub import OpenAIStub, reply

pytestmark = pytest.mark.integration

runner = CliRunner()
KEY = "sk-test-NEVER-WRITE-ME-cost-0123456789"
TASK = "settings-dark-theme"


def test_prices_parse_and_look_up(tmp_path):
    p = parse_price("2.5/10")
    assert (p.input, p.output) == (2.5, 10.0) and p.cost(1_000_000, 100_000) == pytest.approx(3.5)
    for bad in ("2.5", "a/b", "-1/2", "1/2/3", ""):
        with pytest.raises(ConfigError, match="IN/OUT"):
            parse_price(bad)
    table = tmp_path / "prices.json"
    table.write_text(json.dumps({"m1": "1/2", "m2": {"input": 0.5, "output": 4}, "default": "0/0"}))
    assert load_price_table(table)["m2"] == Price(0.5, 4.0, f"{table}: m2")
    assert resolve_price(str(table), "m1").output == 2.0
    assert resolve_price(str(table), "unknown").input == 0.0  # the default entry
    table.write_text(json.dumps({"m1": "1/2"}))
    with pytest.raises(ConfigError, match="no price for model 'm9'"):
        resolve_price(str(table), "m9")
    table.write_text(json.dumps({"m1": {"input": -1, "output": 2}}))
    with pytest.raises(ConfigError, match="m1: prices must be finite, not negative"):
        resolve_price(str(table), "m1")
    with pytest.raises(ConfigError, match="neither IN/OUT"):
        resolve_price(str(tmp_path / "none.json"), "m1")


def test_the_live_view_prices_the_finished_episodes():
    r = EpisodeResult("t", "en", status=SUCCESS, success=True, progress=1.0, tokens={"prompt": 3000, "completion": 500})
    assert live_headline([r, r], Price(1.0, 10.0)).endswith("cost $0.0160")  # 2 x (3000 x 1 + 500 x 10) / 1e6
    assert "cost" not in live_headline([r])


def test_an_openai_run_is_priced_everywhere(tmp_path):
    calls = {"n": 0}

    def model(body):
        calls["n"] += 1
        action = {"type": "OPEN_APP", "name": "Settings"} if calls["n"] == 1 else {"type": "COMPLETE"}
        return reply(json.dumps({"thought": "go", "action": action}))

    table = tmp_path / "prices.json"
    table.write_text(json.dumps({"stub-vlm": "2.5/10"}))
    with OpenAIStub(handler=model) as stub:
        r = runner.invoke(
            app,
            ["run", "--agent", "openai", "--model", "stub-vlm", "--base-url", stub.url, "--task", TASK, "--lang",
             "en", "--isolation", "thread", "--out", str(tmp_path), "--run-id", "priced", "--price", str(table)],
            env={"OPENAI_API_KEY": KEY},
        )  # fmt: skip
    assert r.exit_code == 0, r.output
    run = tmp_path / "priced"
    summary = json.loads((run / "summary.json").read_text())
    o = summary["overall"]
    # 2 steps, one model call each at the stub's 100 prompt + 20 completion tokens: (100 x 2.5 + 20 x 10) / 1e6
    assert o["steps"] == 2 and o["model_calls"] == 2 and o["tokens"] == 240
    assert o["cost"] == pytest.approx(2 * 0.00045) and o["cost_per_episode"] == pytest.approx(0.0009)
    assert o["cost_per_step"] == pytest.approx(0.00045)
    assert summary["episode_costs"] == {f"{TASK}__en": pytest.approx(0.0009)}
    assert summary["price"]["source"] == f"{table}: stub-vlm"
    assert o["timings"]["model"]["p50"] is not None and o["timings"]["model"]["p50"] > 0
    assert "cost $0.0009 ($0.0009 per episode" in r.output.replace("\n", "")
    manifest = json.loads((run / "manifest.json").read_text())
    assert manifest["config"]["price"] == {
        "input_per_million": 2.5,
        "output_per_million": 10.0,
        "source": f"{table}: stub-vlm",
    }
    html = (run / "report.html").read_text()
    assert "<th rowspan=2>cost</th>" in html and "<th colspan=2>model ms</th>" in html and "$0.0009" in html
    assert KEY not in html and KEY not in (run / "manifest.json").read_text()
    # compare prices both sides at the run's own price, or at the one it is given
    out = ["--out", str(tmp_path / "c.html"), "--json", str(tmp_path / "c.json")]
    assert runner.invoke(app, ["compare", str(run), str(run), *out]).exit_code == 0
    d = json.loads((tmp_path / "c.json").read_text())
    assert [x["cost"] for x in d["runs"]] == [pytest.approx(0.0009)] * 2
    assert d["episodes"][f"{TASK}__en"][0]["cost"] == pytest.approx(0.0009)
    assert runner.invoke(app, ["compare", str(run), str(run), "--price", "5/20", *out]).exit_code == 0
    assert json.loads((tmp_path / "c.json").read_text())["runs"][1]["cost"] == pytest.approx(0.0018)


def test_bad_prices_are_one_line_and_exit_2(tmp_path):
    for price, said in (("cheap", "--price 'cheap'"), (str(tmp_path / "x.json"), "neither IN/OUT")):
        r = runner.invoke(app, ["run", "--agent", "reference", "--price", price, "--out", str(tmp_path)])
        assert r.exit_code == 2 and said in r.output and "Traceback" not in r.output, r.output
    table = tmp_path / "p.json"
    table.write_text('{"gpt-4o": "1/2"}')
    r = runner.invoke(app, ["run", "--agent", "reference", "--price", str(table), "--out", str(tmp_path)])
    assert r.exit_code == 2 and "no price for an agent without a model" in r.output
    assert not [p for p in tmp_path.iterdir() if p.is_dir()], "nothing ran"
