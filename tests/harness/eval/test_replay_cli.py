"""`droidharness replay`: the AITZ sample and an AndroidLens episode written to disk, each loaded by the dataset
loader, installed as an episode app on the embedded virtual device and replayed; the run directory it writes."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from harness.cli.main import app
from harness.trajectory.reader import load_run
from tasks.datasets.androidlens import from_unified
from tests.harness.eval.test_replay_rules import AITZ_DIR, AITZ_ID, H0, W0, demo_spec, draw_screen, load_aitz
from tests.harness.eval.test_replay_rules import _action as spec_action

runner = CliRunner()


def write_lens_episode(root: Path, eid: str = "en-demo") -> Path:
    """The generated demo episode as AndroidLens files: `root/test/en/<id>/<id>.json` + PNGs (no UI annotations,
    three milestones with text, bbox and state)."""
    spec = demo_spec()
    d = root / "test" / "en" / eid
    d.mkdir(parents=True)
    rows = []
    for k, sc in enumerate(spec):
        draw_screen(k, sc).save(d / f"{eid}_{k}.png")
        milestone = {}
        if sc.milestone:
            (l, t, r, b), _, _ = next(e for e in sc.elements if e[1] == sc.milestone["text"])
            milestone = {**sc.milestone, "bbox": [l / W0, t / H0, r / W0, b / H0]}
        rows.append(
            {
                "episode_id": eid,
                "language": "en",
                "app": ["Demo"],
                "episode_length": len(spec),
                "step_id": k,
                "instruction": "Search for hello world and copy a result",
                "image_path": f"en/{eid}/{eid}_{k}.png",
                "image_width": W0,
                "image_height": H0,
                **from_unified(spec_action(sc)),
                "low_instruction": "",
                "milestone": milestone,
                "types": ["1-1"],
            }
        )
    (d / f"{eid}.json").write_text(json.dumps(rows), encoding="utf-8")
    return root


def test_replay_command_on_the_aitz_sample(tmp_path: Path) -> None:
    load_aitz()  # skips when the sample is missing
    res = runner.invoke(
        app,
        [
            "replay",
            "--dataset",
            "aitz",
            "--data",
            str(AITZ_DIR),
            "--episode",
            AITZ_ID,
            "--out",
            str(tmp_path),
            "--run-id",
            "r1",
        ],
    )
    assert res.exit_code == 0, res.output
    assert "fidelity 100.0% (3/3 steps match)" in res.output
    assert "no divergence" in res.output
    run = load_run(tmp_path / "r1")
    (ep,) = run.episodes.values()
    assert ep.finished and ep.meta.status == "success" and len(ep.steps) == 4
    assert run.manifest is not None and run.manifest.agent["name"] == "replay"
    assert (tmp_path / "r1" / "report.html").is_file() and (tmp_path / "r1" / "summary.json").is_file()


def test_replay_command_on_an_androidlens_episode_scores_milestones(tmp_path: Path) -> None:
    data = write_lens_episode(tmp_path / "lens")
    res = runner.invoke(
        app,
        [
            "replay",
            "--dataset",
            "androidlens",
            "--data",
            str(data),
            "--episode",
            "en-demo",
            "--out",
            str(tmp_path / "runs"),
            "--run-id",
            "lens",
            "--profile",
            "pixel_fold",
        ],
    )
    assert res.exit_code == 0, res.output
    assert "fidelity 100.0% (7/7 steps match)" in res.output
    assert "milestones 3/3 (100%)" in res.output
    (ep,) = load_run(tmp_path / "runs" / "lens").episodes.values()
    assert ep.meta.success and ep.meta.progress == 1.0
    assert [m["hit_step"] is not None for m in ep.meta.milestones] == [True, True, True]


def test_replay_command_refuses_bad_combinations(tmp_path: Path) -> None:
    res = runner.invoke(
        app,
        [
            "replay",
            "--dataset",
            "aitz",
            "--data",
            str(AITZ_DIR),
            "--episode",
            AITZ_ID,
            "--device",
            "emulator-5554",
            "--virtual-app",
        ],
    )
    assert res.exit_code == 2
    assert "virtual" in res.output
    res = runner.invoke(
        app, ["replay", "--dataset", "aitz", "--data", str(AITZ_DIR), "--episode", "nope", "--out", str(tmp_path)]
    )
    assert res.exit_code == 2
    assert "no episode 'nope'" in res.output
