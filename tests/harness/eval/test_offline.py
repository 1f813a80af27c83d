"""Offline evaluation end to end on generated fixture data: the reference agent fed the gold actions scores 100% on
every metric, a deliberately wrong agent the hand-computed lower figures, predictions files both ways, the CLI."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from harness.actions import Click, Home, action_to_dict
from harness.agent import AgentStep
from harness.eval.offline import EvalError, EvalOptions, evaluate, iter_dataset, render
from harness.eval.steps import tree_from_elements
from harness.plugins import create_agent
from tasks.datasets import aitw as aitw_ds
from tests.dataset_fixtures import AITZ_DIR, aitw_step, write_aitw_fixture, write_androidlens, write_odyssey


class GoldReplay:
    """One `create_agent("reference", actions=<gold actions>)` per episode, switched on every reset (the evaluator
    visits episodes in loader order)."""

    name = "gold-replay"

    def __init__(self, episodes: list[Any]) -> None:
        self._agents = []
        for ep in episodes:
            gold = [s.action for s in ep.steps]
            assert all(a is not None for a in gold), "fixture steps must all be representable"
            self._agents.append(create_agent("reference", actions=gold))
        self._i = -1
        self.observations: list[Any] = []
        self.histories: list[int] = []

    def reset(self, ctx: Any) -> None:
        self._i += 1
        self._agents[self._i].reset(ctx)

    def act(self, obs: Any, history: list[Any]) -> AgentStep:
        self.observations.append(obs)
        self.histories.append(len(history))
        return self._agents[self._i].act(obs, history)


class Constant:
    name = "constant"

    def __init__(self, action: Any) -> None:
        self.action = action

    def reset(self, ctx: Any) -> None:
        pass

    def act(self, obs: Any, history: list[Any]) -> AgentStep:
        return AgentStep(action=self.action)


@pytest.fixture
def aitw_dir(tmp_path: Path) -> Path:
    d = tmp_path / "aitw"
    d.mkdir()
    write_aitw_fixture(d / "google_apps-00000.tfrecord.gz")
    aitw_ds.write_tfrecord(
        d / "install-00000.tfrecord.gz",
        [
            aitw_step("2001", 0, 2, "install gmail", 4, touch_yx=(0.5, 0.5), seed=1),
            aitw_step("2001", 1, 2, "install gmail", 10, seed=2),
        ],
    )
    return d


@pytest.fixture
def odyssey_root(tmp_path: Path) -> Path:
    return write_odyssey(tmp_path / "odyssey", "v2")


@pytest.fixture
def lens_root(tmp_path: Path) -> Path:
    return write_androidlens(tmp_path / "lens")


def _opts(dataset: str, root: Path) -> EvalOptions:
    if dataset == "aitw":
        return EvalOptions("aitw", root)
    if dataset == "odyssey":
        return EvalOptions(
            "odyssey", root / "annotations", split=root / "splits" / "random_split.json", split_label="test"
        )
    if dataset == "androidlens":
        return EvalOptions("androidlens", root)
    return EvalOptions("aitz", AITZ_DIR)


def _gold_report(dataset: str, root: Path) -> tuple[dict[str, Any], GoldReplay]:
    opts = _opts(dataset, root)
    agent = GoldReplay(list(iter_dataset(opts, need_images=False)))
    return evaluate(opts, agent=agent), agent


def test_gold_replay_aitw_is_100(aitw_dir: Path) -> None:
    rep, agent = _gold_report("aitw", aitw_dir)
    m = rep["metrics"]
    assert rep["episodes"] == 4 and rep["steps"] == 15
    assert m["overall"] == 1.0 and m["step_accuracy"] == 1.0
    assert set(m["per_subset"]) == {"GoogleApps", "Install"}
    assert all(v["action_matching_accuracy"] == 1.0 for v in m["per_subset"].values())
    assert rep["invalid"] == rep["unexpressible"] == rep["missing"] == 0
    # teacher forcing: the gold history grows 0, 1, 2, ... within an episode; the screen is the recorded one
    assert agent.histories[:10] == list(range(10)) and agent.histories[10] == 0
    obs = agent.observations[0]
    assert obs.size == (24, 40) and obs.screenshot.size == (24, 40)
    assert [e.text for e in obs.tree] == ["text 0", "text 1"]


def test_gold_replay_odyssey_is_100(odyssey_root: Path) -> None:
    rep, _ = _gold_report("odyssey", odyssey_root)
    m = rep["metrics"]
    assert rep["episodes"] == 1 and rep["steps"] == 13  # the train episode is not in the test split
    assert m["pooled"]["AMS"] == m["pooled"]["SR"] == 1.0
    assert m["per_category_mean"]["AMS"] == m["per_category_mean"]["SR"] == 1.0
    assert m["official_aggregate"] == "per_category_mean"  # random split


def test_gold_replay_androidlens_is_100(lens_root: Path) -> None:
    rep, _ = _gold_report("androidlens", lens_root)
    m = rep["metrics"]
    assert rep["episodes"] == 2 and rep["steps"] == 17
    assert (m["TM"], m["EM"], m["SR"], m["GP"]) == (1.0, 1.0, 1.0, 1.0)
    assert set(m["per_category"]) == {"1-4", "2-2"} and set(m["per_lang"]) == {"en", "zh"}


def test_gold_replay_aitz_is_100() -> None:
    rep, _ = _gold_report("aitz", Path("."))
    m = rep["metrics"]
    assert rep["steps"] == 4 and (m["TM"], m["EM"], m["SR"], m["GP"]) == (1.0, 1.0, 1.0, 1.0)


def test_wrong_agent_aitw(aitw_dir: Path) -> None:
    m = evaluate(_opts("aitw", aitw_dir), agent=Constant(Home()))["metrics"]
    # GoogleApps: 1001 has one HOME in 10 steps, 1002 none, 1003 is one HOME -> (0.1 + 0 + 1) / 3
    assert m["per_subset"]["GoogleApps"]["action_matching_accuracy"] == pytest.approx(1.1 / 3)
    assert m["per_subset"]["Install"]["action_matching_accuracy"] == 0.0
    assert m["overall"] == pytest.approx(1.1 / 6)
    assert m["step_accuracy"] == pytest.approx(2 / 15)


def test_wrong_agent_odyssey(odyssey_root: Path) -> None:
    m = evaluate(_opts("odyssey", odyssey_root), agent=Constant(Home()))["metrics"]
    assert m["pooled"]["AMS"] == pytest.approx(2 / 13)  # CLICK KEY_HOME and the HOME spelling
    assert m["pooled"]["SR"] == 0.0 and m["AMS"] == pytest.approx(2 / 13)


def test_wrong_agent_androidlens(lens_root: Path) -> None:
    m = evaluate(_opts("androidlens", lens_root), agent=Constant(Home()))["metrics"]
    # PRESS steps: en HOME, ENTER, BACK (TM); only the first step (HOME) is an exact match
    assert m["TM"] == pytest.approx(3 / 17) and m["EM"] == pytest.approx(1 / 17)
    assert m["SR"] == 0.0 and m["GP"] == pytest.approx((1 / 11 + 0) / 2)


def test_element_index_resolves_to_centre_and_scores_by_box(aitw_dir: Path) -> None:
    # step 0 of 1001 taps (y 0.5, x 0.25); element [1] is the box y 0.5..0.75, x 0..1; its centre is ~0.3 away
    # but inside the same enlarged box -> a match
    opts = EvalOptions("aitw", aitw_dir / "google_apps-00000.tfrecord.gz", max_episodes=1)
    m = evaluate(opts, agent=Constant(Click(element=1)))["metrics"]
    assert m["per_subset"]["GoogleApps"]["steps"] == 10
    assert m["step_accuracy"] == pytest.approx(2 / 10)  # the tap and the drifting tap
    bad = evaluate(opts, agent=Constant(Click(element=7)))  # no such element: scored as no match
    assert bad["unexpressible"] == 10 and bad["metrics"]["step_accuracy"] == 0.0


def test_unexpressible_and_invalid_count(aitw_dir: Path) -> None:
    from harness.actions import OpenApp

    rep = evaluate(_opts("aitw", aitw_dir), agent=Constant(OpenApp(name="Gmail")))
    assert rep["unexpressible"] == 15 and rep["metrics"]["overall"] == 0.0
    rep = evaluate(_opts("aitw", aitw_dir), agent=Constant(None))
    assert rep["invalid"] == 15 and rep["metrics"]["overall"] == 0.0


# --- predictions files ------------------------------------------------------------------------------------
def _write_gold_predictions(opts: EvalOptions, path: Path, native: bool = False, skip: int = 0) -> None:
    from tasks.datasets.convert import action_fields

    lines = []
    for ep in iter_dataset(opts, need_images=False):
        for s in ep.steps[skip:]:
            rec: dict[str, Any] = {"episode_id": ep.episode_id, "step": s.index}
            if ep.dataset == "androidlens":
                rec["lang"] = ep.lang
            if native:
                rec.update(action_fields(ep.dataset, s.raw))
            else:
                rec["action"] = action_to_dict(s.action)
            lines.append(json.dumps(rec, ensure_ascii=False))
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")


@pytest.mark.parametrize("dataset", ["aitw", "odyssey", "androidlens", "aitz"])
@pytest.mark.parametrize("native", [False, True])
def test_gold_predictions_score_100(dataset: str, native: bool, tmp_path: Path, request: Any) -> None:
    root = {"aitw": "aitw_dir", "odyssey": "odyssey_root", "androidlens": "lens_root"}.get(dataset)
    opts = _opts(dataset, request.getfixturevalue(root) if root else Path("."))
    pred = tmp_path / "pred.jsonl"
    _write_gold_predictions(opts, pred, native=native)
    m = evaluate(opts, predictions=pred)["metrics"]
    headline = {"aitw": "overall", "odyssey": "AMS", "androidlens": "EM", "aitz": "EM"}[dataset]
    assert m[headline] == 1.0


def test_missing_predictions_count_as_no_match(aitw_dir: Path, tmp_path: Path) -> None:
    pred = tmp_path / "pred.jsonl"
    _write_gold_predictions(_opts("aitw", aitw_dir), pred, skip=1)  # the first step of every episode missing
    rep = evaluate(_opts("aitw", aitw_dir), predictions=pred)
    assert rep["missing"] == 4
    # GoogleApps (0.9 + 0.5 + 0) / 3, Install 0.5
    assert rep["metrics"]["overall"] == pytest.approx(((0.9 + 0.5 + 0) / 3 + 0.5) / 2)


def test_bad_predictions_file(tmp_path: Path, aitw_dir: Path) -> None:
    p = tmp_path / "p.jsonl"
    p.write_text('{"episode_id": "1001"}\n')
    with pytest.raises(EvalError, match="needs"):
        evaluate(_opts("aitw", aitw_dir), predictions=p)
    p.write_text('{"episode_id": "1001", "step": 0, "foo": 1}\n')
    with pytest.raises(EvalError, match="native fields"):
        evaluate(_opts("aitw", aitw_dir), predictions=p)
    p.write_text('{"episode_id": "1001", "step": 0, "action": {"type": "HOME"}}\n' * 2)
    with pytest.raises(EvalError, match="second prediction"):
        evaluate(_opts("aitw", aitw_dir), predictions=p)
    with pytest.raises(EvalError, match="exactly one"):
        evaluate(_opts("aitw", aitw_dir))


def test_tree_from_elements_icons() -> None:
    from tasks.datasets.base import UIBox

    t = tree_from_elements([UIBox((0, 0, 10, 10), "", "ICON_HOME"), UIBox((0, 10, 10, 20), "Go", "TEXT")])
    assert t[0].content_desc == "home" and t[1].text == "Go" and len(t.prompt_elements()) == 2


# --- CLI --------------------------------------------------------------------------------------------------
def test_cli_predictions_json(odyssey_root: Path, tmp_path: Path) -> None:
    from harness.cli.main import app

    opts = _opts("odyssey", odyssey_root)
    pred = tmp_path / "pred.jsonl"
    _write_gold_predictions(opts, pred)
    out = tmp_path / "figures.json"
    r = CliRunner().invoke(
        app,
        [
            "eval",
            "--dataset",
            "odyssey",
            "--data",
            str(odyssey_root / "annotations"),
            "--split",
            str(odyssey_root / "splits" / "random_split.json"),
            "--split-label",
            "test",
            "--predictions",
            str(pred),
            "--json",
            str(out),
        ],
    )
    assert r.exit_code == 0, r.output
    assert "GUI Odyssey" in r.output and "per-category mean" in r.output
    data = json.loads(out.read_text())
    assert (
        data["metrics"]["per_category_mean"]["AMS"] == 1.0
        and data["metrics"]["official_aggregate"] == "per_category_mean"
    )


def test_cli_agent_and_errors(lens_root: Path, tmp_path: Path) -> None:
    from harness.cli.main import app

    out = tmp_path / "r.json"
    r = CliRunner().invoke(
        app,
        [
            "eval",
            "--dataset",
            "androidlens",
            "--data",
            str(lens_root),
            "--agent",
            "random",
            "--max-episodes",
            "1",
            "--out",
            str(out),
        ],
    )
    assert r.exit_code == 0, r.output
    assert json.loads(out.read_text())["episodes"] == 1
    r = CliRunner().invoke(app, ["eval", "--dataset", "aitw", "--data", str(lens_root)])
    assert r.exit_code != 0 and "exactly one" in r.output
    r = CliRunner().invoke(app, ["eval", "--dataset", "mind2web", "--data", ".", "--agent", "random"])
    assert r.exit_code != 0
    r = CliRunner().invoke(
        app, ["eval", "--dataset", "aitw", "--data", str(lens_root), "--agent", "random", "--model", "x"]
    )
    assert r.exit_code != 0 and "only apply" in r.output


def test_render_all_datasets(aitw_dir: Path, lens_root: Path) -> None:
    from rich.console import Console

    con = Console(record=True, width=120)
    for rep in (
        evaluate(_opts("aitw", aitw_dir), agent=Constant(Home())),
        evaluate(_opts("androidlens", lens_root), agent=Constant(Home())),
    ):
        render(rep, con)
    text = con.export_text()
    assert "overall" in text and "GoogleApps" in text and "TM (%)" in text


def test_aitw_split_label_and_per_split(aitw_dir: Path, tmp_path: Path) -> None:
    split = tmp_path / "split.json"
    split.write_text(json.dumps({"train": ["1001"], "test": ["1002", "1003", "2001"]}))
    rep = evaluate(EvalOptions("aitw", aitw_dir, split=split, split_label="test"), agent=Constant(Home()))
    assert rep["episodes"] == 3 and rep["steps"] == 5
    assert rep["metrics"]["per_subset"]["GoogleApps"]["action_matching_accuracy"] == 0.5  # 1002: 0, 1003: 1
    rep = evaluate(EvalOptions("aitw", aitw_dir, split=split), agent=Constant(Home()))
    per = rep["metrics"]["per_split"]
    assert set(per) == {"train", "test"} and per["train"]["overall"] == pytest.approx(0.1)
    with pytest.raises(EvalError, match="no steps"):
        evaluate(EvalOptions("aitw", aitw_dir, split=split, split_label="validation"), agent=Constant(Home()))


def test_cli_openai_agent_against_a_stub(odyssey_root: Path, tmp_path: Path, monkeypatch: Any) -> None:
    from harness.cli.main import app
    from tests.openai_stub import OpenAIStub

    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    out = tmp_path / "r.json"
    with OpenAIStub(handler=lambda body: '{"thought": "go home", "action": {"type": "HOME"}}') as stub:
        r = CliRunner().invoke(
            app,
            [
                "eval",
                "--dataset",
                "odyssey",
                "--data",
                str(odyssey_root / "annotations"),
                "--split",
                str(odyssey_root / "splits" / "random_split.json"),
                "--agent",
                "openai",
                "--model",
                "stub-vlm",
                "--base-url",
                stub.url,
                "--output-format",
                "json",
                "--out",
                str(out),
            ],
        )
        sent = stub.requests
    assert r.exit_code == 0, r.output
    assert len(sent) == 13  # one model call per recorded step
    user = sent[0].body["messages"][1]["content"]
    assert any(part.get("type") == "image_url" for part in user)
    assert "New York Fashion Week" in json.dumps(sent[0].body, ensure_ascii=False)
    data = json.loads(out.read_text())
    assert data["metrics"]["pooled"]["AMS"] == pytest.approx(2 / 13)


# --- hand-computed figures of small prediction files (GUI Odyssey, AgentCPM-GUI evaluator) -------------------
def _odyssey_episode(eid: str, category: str, steps: list[dict[str, Any]]) -> dict[str, Any]:
    for k, s in enumerate(steps):
        s.update(step=k, screenshot=f"{eid}_{k}.png", ps="")
    return {
        "episode_id": eid,
        "device_info": {
            "product": "p",
            "release_version": "14",
            "sdk_version": "34",
            "h": 2400,
            "w": 1080,
            "device_name": "Pixel 8 Pro",
        },
        "task_info": {"category": category, "app": ["A"], "meta_task": "m", "task": "t", "instruction": f"do {eid}"},
        "step_length": len(steps),
        "steps": steps,
    }


@pytest.fixture
def odyssey_small(tmp_path: Path) -> Path:
    """Three episodes, two categories, boxes large enough for the box / distance rules to disagree."""
    root = tmp_path / "ody"
    (root / "annotations").mkdir(parents=True)
    eps = [
        _odyssey_episode(
            "e1",
            "Social",
            [
                {"action": "CLICK", "info": [[500, 500], [500, 500]], "sam2_bbox": [100, 100, 900, 900]},
                {"action": "SCROLL", "info": [[500, 500], [500, 500]]},  # zero length: DOWN
                {"action": "TEXT", "info": "hello: world"},
            ],
        ),
        _odyssey_episode(
            "e2",
            "Social",
            [
                {"action": "CLICK", "info": [[141, 500]], "sam2_bbox": [0, 0, 10, 10]},
                {"action": "COMPLETE", "info": ""},
            ],
        ),
        _odyssey_episode(
            "e3",
            "Media",
            [
                {"action": "LONG_PRESS", "info": [[300, 300]]},  # no sam2_bbox: distance only
                {"action": "CLICK", "info": "KEY_HOME"},
            ],
        ),
    ]
    for ep in eps:
        (root / "annotations" / f"{ep['episode_id']}.json").write_text(json.dumps(ep), encoding="utf-8")
    (root / "random_split.json").write_text(json.dumps({"train": [], "test": [f"e{i}.json" for i in (1, 2, 3)]}))
    return root


def _jsonl(path: Path, rows: list[dict[str, Any]]) -> Path:
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8")
    return path


def test_odyssey_predictions_hand_computed(odyssey_small: Path, tmp_path: Path) -> None:
    pred = _jsonl(
        tmp_path / "ody.jsonl",
        [
            {"episode_id": "e1", "step": 0, "action": "CLICK", "info": [[850, 850]]},  # in the box, 0.49 away
            {"episode_id": "e1", "step": 1, "action": "SCROLL", "info": [[300, 300], [300, 300]]},  # DOWN == DOWN
            {"episode_id": "e1", "step": 2, "action": "TEXT", "info": "hello: world!"},  # contains the GT text
            {"episode_id": "e2", "step": 0, "action": "CLICK", "info": [[281, 500]]},  # 0.14000000000000004 away
            {"episode_id": "e2", "step": 1, "action": "COMPLETE", "info": ""},
            {"episode_id": "e3", "step": 1, "action": "HOME", "info": ""},  # e3 step 0 has no prediction
        ],
    )
    opts = EvalOptions(
        "odyssey", odyssey_small / "annotations", split=odyssey_small / "random_split.json", split_label="test"
    )
    rep = evaluate(opts, predictions=pred)
    m = rep["metrics"]
    assert rep["missing"] == 1 and rep["steps"] == 7
    # latest rule: correct e1 3/3, e2 1/2 (the click is just over 0.14), e3 1/1 scored
    p = m["pooled"]
    assert p["AMS"] == pytest.approx(5 / 6) and p["steps_scored"] == 6
    assert p["SR"] == pytest.approx(1 / 2) and (p["episodes_scored"], p["episodes_left_out"]) == (2, 1)
    pc = m["per_category"]
    assert pc["Social"]["AMS"] == pytest.approx(4 / 5) and pc["Social"]["SR"] == pytest.approx(1 / 2)
    assert pc["Media"]["AMS"] == 1.0 and pc["Media"]["episodes_scored"] == 0
    # random split -> per-category mean: AMS (0.8 + 1) / 2, SR (0.5 + 0) / 2 (Media's only episode is left out)
    assert m["official_aggregate"] == "per_category_mean"
    assert m["AMS"] == pytest.approx(0.9) and m["SR"] == pytest.approx(0.25) and m["episodes_left_out"] == 1
    assert m["action_type_accuracy"] == 1.0 and (m["text_correct"], m["text_total"]) == (1, 1)
    assert m["official_printout"] == {
        "metric": "micro",
        "AMS": 90.0,
        "SR": 25.0,
        "total": 6,
        "action_type": "6 / 6 = 100.00",
        "text": "1 / 1 = 100.00",
    }
    # the earlier release's rule (distance only): e1's click is wrong -> Social 3/5, SR 0 / 2
    o = m["other_rule"]
    assert o["rule"] == "distance_only" and o["pooled"]["AMS"] == pytest.approx(4 / 6)
    assert o["per_category_mean"]["AMS"] == pytest.approx((3 / 5 + 1) / 2) and o["per_category_mean"]["SR"] == 0.0
    rep2 = evaluate(
        EvalOptions(
            "odyssey",
            odyssey_small / "annotations",
            split=odyssey_small / "random_split.json",
            split_label="test",
            metric_rule="distance_only",
        ),
        predictions=pred,
    )
    assert rep2["metrics"]["AMS"] == pytest.approx(0.8) and rep2["metrics"]["other_rule"]["rule"] == "box_or_distance"
    from harness.cli.main import app  # the same choice on the command line

    out = tmp_path / "earlier.json"
    r = CliRunner().invoke(
        app,
        [
            "eval",
            "--dataset",
            "odyssey",
            "--data",
            str(odyssey_small / "annotations"),
            "--split",
            str(odyssey_small / "random_split.json"),
            "--split-label",
            "test",
            "--predictions",
            str(pred),
            "--rule",
            "distance_only",
            "--json",
            str(out),
        ],
    )
    assert r.exit_code == 0, r.output
    assert json.loads(out.read_text())["metrics"]["AMS"] == pytest.approx(0.8)
    r = CliRunner().invoke(
        app,
        [
            "eval",
            "--dataset",
            "odyssey",
            "--data",
            str(odyssey_small / "annotations"),
            "--predictions",
            str(pred),
            "--rule",
            "nearest",
        ],
    )
    assert r.exit_code == 2 and "nearest" in r.output
    with pytest.raises(EvalError, match="rule"):
        evaluate(EvalOptions("odyssey", odyssey_small / "annotations", metric_rule="nearest"), predictions=pred)


def test_odyssey_render_names_both_aggregations(odyssey_small: Path, tmp_path: Path) -> None:
    from rich.console import Console

    pred = _jsonl(tmp_path / "p.jsonl", [{"episode_id": "e1", "step": 0, "action": "CLICK", "info": [[850, 850]]}])
    opts = EvalOptions(
        "odyssey", odyssey_small / "annotations", split=odyssey_small / "random_split.json", split_label="test"
    )
    con = Console(record=True, width=160)
    render(evaluate(opts, predictions=pred), con)
    text = con.export_text()
    assert "pooled" in text and "per-category mean" in text and "left out" in text and "action type" in text


def test_aitz_agentcpm_outputs_hand_computed(tmp_path: Path) -> None:
    # the bundled AITZ episode: HOME, swipe up, tap at (x 0.607, y 0.498) (in no annotated box), COMPLETE
    pred = _jsonl(
        tmp_path / "aitz.jsonl",
        [
            {"episode_id": "523638528775825151", "step": 0, "pred": {"PRESS": "HOME"}},
            {"episode_id": "523638528775825151", "step": 1, "pred": {"POINT": [500, 500], "to": [500, 500]}},
            {"episode_id": "523638528775825151", "step": 2, "pred": {"POINT": [607, 498]}},
            {"episode_id": "523638528775825151", "step": 3, "pred": {"duration": 1000}},  # a wait: STOP class
        ],
    )
    m = evaluate(EvalOptions("aitz", AITZ_DIR), predictions=pred)["metrics"]
    # the zero-length swipe has no direction: type match, no exact match
    assert (m["TM"], m["EM"]) == (1.0, 0.75)
    assert m["SR"] == 0.0 and m["GP"] == 0.25  # one correct step, then the swipe
    assert m["per_type"]["SCROLL"] == {"count": 1, "TM": 1.0, "EM": 0.0}
    assert m["per_type"]["STOP"] == {"count": 1, "TM": 1.0, "EM": 1.0}
    assert m["per_type"]["CLICK"]["EM"] == 1.0 and m["hit_rate"] == 1.0
    gx, gy = 0.6069772839546204, 0.49836206436157227
    assert m["point_dist_avg"] == pytest.approx(1000 * ((0.607 - gx) ** 2 + (0.498 - gy) ** 2) ** 0.5)
    assert m["text_dist_avg"] is None  # no TYPE step
    s = m["official_summary"]
    assert s["success_rate"] == 0.0 and s["goal_progress"] == 0.25 and s["total"]["hit_rate"] == 1.0
    assert s["total"]["exact_acc"] == 0.75 and s["TYPE"] == {
        "count": 0,
        "type_acc": 0,
        "exact_acc": 0,
        "text_dist_avg": 0,
    }


def test_aitz_missing_step_is_left_out_and_durations(tmp_path: Path) -> None:
    from harness.actions import LongPress, Point, Swipe

    eid = "523638528775825151"
    pred = _jsonl(
        tmp_path / "aitz.jsonl",
        [
            {"episode_id": eid, "step": 0, "action": {"type": "HOME"}},
            {
                "episode_id": eid,
                "step": 1,
                "action": action_to_dict(Swipe(start=Point(x=0.5, y=0.8), end=Point(x=0.5, y=0.2))),
            },  # UP
            # a long press of exactly 200 ms is the evaluator's click (the default duration)
            {
                "episode_id": eid,
                "step": 2,
                "action": action_to_dict(LongPress(point=Point(x=0.6, y=0.5), duration=0.2)),
            },
        ],
    )  # step 3 missing: the evaluator never sees it
    rep = evaluate(EvalOptions("aitz", AITZ_DIR), predictions=pred)
    m = rep["metrics"]
    assert rep["missing"] == 1 and m["steps"] == 3
    assert (m["TM"], m["EM"], m["SR"], m["GP"]) == (1.0, 1.0, 1.0, 1.0)
    pred = _jsonl(
        tmp_path / "aitz2.jsonl",
        [
            {
                "episode_id": eid,
                "step": 2,
                "action": action_to_dict(LongPress(point=Point(x=0.6, y=0.5), duration=0.5)),
            },
            {"episode_id": eid, "step": 3, "action": {"type": "WAIT", "duration": 1.0}},
        ],
    )
    m = evaluate(EvalOptions("aitz", AITZ_DIR), predictions=pred)["metrics"]
    # a 500 ms press is a LONG_POINT: the GT tap is a CLICK -> no type match; the wait matches COMPLETE
    assert (m["TM"], m["EM"]) == (0.5, 0.5) and m["per_type"]["CLICK"]["TM"] == 0.0
    rep = evaluate(EvalOptions("aitz", AITZ_DIR, metric_rule="android_control"), predictions=pred)
    assert rep["metrics"]["mode"] == "android_control"


def test_cli_predictions_odyssey_and_aitz_hand_computed(odyssey_small: Path, tmp_path: Path) -> None:
    from harness.cli.main import app

    ody = _jsonl(
        tmp_path / "ody.jsonl",
        [
            {"episode_id": "e1", "step": 0, "action": "CLICK", "info": [[850, 850]]},
            {"episode_id": "e1", "step": 1, "action": "SCROLL", "info": "UP"},  # GT is a zero-length scroll: DOWN
            {"episode_id": "e1", "step": 2, "action": "TEXT", "info": "hello"},
            {"episode_id": "e2", "step": 0, "action": "CLICK", "info": [[141, 640]]},  # exactly 0.14 below the GT
            {"episode_id": "e2", "step": 1, "action": "INCOMPLETE", "info": ""},  # type mismatch with COMPLETE
            {"episode_id": "e3", "step": 0, "action": "LONG_PRESS", "info": [[300, 300]]},
            {"episode_id": "e3", "step": 1, "action": "CLICK", "info": "KEY_HOME"},
        ],
    )
    out = tmp_path / "ody.json"
    r = CliRunner().invoke(
        app,
        [
            "eval",
            "--dataset",
            "odyssey",
            "--data",
            str(odyssey_small / "annotations"),
            "--split",
            str(odyssey_small / "random_split.json"),
            "--split-label",
            "test",
            "--predictions",
            str(ody),
            "--json",
            str(out),
        ],
    )
    assert r.exit_code == 0, r.output
    m = json.loads(out.read_text())["metrics"]
    # Social: e1 2/3 (the scroll), e2 1/2 -> AMS 3/5, SR 0; Media: e3 2/2 -> AMS 1, SR 1
    assert m["pooled"]["AMS"] == pytest.approx(5 / 7) and m["pooled"]["SR"] == pytest.approx(1 / 3)
    assert m["AMS"] == pytest.approx((3 / 5 + 1) / 2) and m["SR"] == pytest.approx(0.5)
    assert m["official_printout"]["AMS"] == 80.0 and m["official_printout"]["SR"] == 50.0
    assert m["official_printout"]["action_type"] == "6 / 7 = 85.71"
    assert m["official_printout"]["text"] == "1 / 1 = 100.00"

    eid = "523638528775825151"
    aitz = _jsonl(
        tmp_path / "aitz.jsonl",
        [
            {"episode_id": eid, "step": 0, "pred": {"PRESS": "BACK"}},  # type match, wrong key
            {"episode_id": eid, "step": 1, "pred": {"POINT": [500, 500], "to": "up"}},
            {"episode_id": eid, "step": 2, "pred": {"POINT": [607, 498], "duration": 200}},
            {"episode_id": eid, "step": 3, "pred": {"STATUS": "impossible"}},
        ],
    )
    out = tmp_path / "aitz.json"
    r = CliRunner().invoke(
        app, ["eval", "--dataset", "aitz", "--data", str(AITZ_DIR), "--predictions", str(aitz), "--json", str(out)]
    )
    assert r.exit_code == 0, r.output
    assert "per action type" in r.output and "hit rate" in r.output
    m = json.loads(out.read_text())["metrics"]
    assert (m["TM"], m["EM"], m["SR"], m["GP"]) == (1.0, 0.75, 0.0, 0.0)
    assert m["per_type"]["PRESS"] == {"count": 1, "TM": 1.0, "EM": 0.0}


def test_bundled_odyssey_fixture_predictions_hand_computed(odyssey_root: Path, tmp_path: Path) -> None:
    eid = "odyssey_v2_ep"
    rows: list[dict[str, Any]] = [
        {"step": 0, "action": "CLICK", "info": [[590, 1000]]},  # on the sam2_bbox corner [490, 960, 590, 1000]
        {"step": 1, "action": "CLICK", "info": [[260, 333]]},  # outside the box, 0.26 - 0.12 = 0.14 exactly
        {"step": 2, "action": "CLICK", "info": [[500, 500]]},  # wrong place
        {"step": 3, "action": "CLICK", "info": [[0, 999]]},  # GT is a LONG_PRESS: type fail
        {"step": 4, "action": "SCROLL", "info": [[500, 500], [500, 500]]},  # zero length = DOWN, GT UP
        {"step": 5, "action": "SCROLL", "info": "LEFT"},
        {"step": 6, "action": "TEXT", "info": "New York Fashion Week"},  # contained in the GT text
        {"step": 7, "action": "CLICK", "info": "KEY_HOME"},
        # step 8 (BACK) has no line
        {"step": 9, "action": "CLICK", "info": "KEY_APPSELECT"},
        {"step": 10, "action": None},  # no valid output: a type failure
        {"step": 11, "action": "INCOMPLETE", "info": ""},
        {"step": 12, "action": "COMPLETE", "info": ""},
    ]
    pred = _jsonl(tmp_path / "p.jsonl", [{"episode_id": eid, **r} for r in rows])
    rep = evaluate(_opts("odyssey", odyssey_root), predictions=pred)
    m = rep["metrics"]
    assert rep["missing"] == 1 and rep["invalid"] == 1
    # 12 scored steps, correct: 0, 1, 5, 6, 7, 9, 11, 12 -> 8 / 12; the only episode is left out of SR
    assert m["pooled"]["AMS"] == pytest.approx(8 / 12) and m["pooled"]["SR"] is None
    assert m["episodes_left_out"] == 1 and m["AMS"] == pytest.approx(8 / 12) and m["SR"] == 0.0
    assert m["official_printout"] == {
        "metric": "micro",
        "AMS": 66.67,
        "SR": 0.0,
        "total": 12,
        "action_type": "10 / 12 = 83.33",
        "text": "1 / 1 = 100.00",
    }
    assert m["other_rule"]["pooled"]["AMS"] == pytest.approx(8 / 12)  # every click here is near its GT point


def test_aitz_boxes_need_the_screenshot_size(tmp_path: Path) -> None:
    import shutil

    d = tmp_path / "aitz"
    d.mkdir()
    shutil.copy(AITZ_DIR / "GOOGLE_APPS-523638528775825151.json", d)  # no screenshots: boxes cannot be normalized
    pred = _jsonl(
        tmp_path / "p.jsonl", [{"episode_id": "523638528775825151", "step": 2, "pred": {"POINT": [607, 498]}}]
    )
    m = evaluate(EvalOptions("aitz", d), predictions=pred)["metrics"]
    assert m["steps_without_box_size"] == 4 and m["EM"] == 1.0
    m = evaluate(EvalOptions("aitz", AITZ_DIR), predictions=pred)["metrics"]
    assert m["steps_without_box_size"] == 0
