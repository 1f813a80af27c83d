"""`harness.eval.replay.replay_episode` through the real adb server on virtual devices showing episode-backed apps:
full fidelity on the recorded path (AITZ sample and a generated episode, with milestones), perturbations caught
at the right step, cross-resolution replays, re-grounding against moved elements, and the recorded trajectory."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from emulator.virtual.apps.episode_app import install_episode_app
from harness.eval.replay import replay_episode
from harness.eval.replay_rules import recorded_episode
from harness.report.render import finish_run, write_report
from harness.trajectory.reader import load_run
from harness.trajectory.writer import RunWriter
from tests.device_util import open_device
from tests.harness.eval.test_replay_rules import build_episode, demo_episode, demo_spec, load_aitz, moved, with_action


def _replay_on_app(
    make_vdevice: Any, adb_server: Any, app_episode: Any, played: Any = None, profile: str = "medium_phone", **kw: Any
) -> Any:
    """Install `app_episode` as an app on a fresh virtual device, open it, replay `played` (default: the same
    episode) through adb."""
    vd = make_vdevice(profile=profile)
    pkg = install_episode_app(vd.model, recorded_episode(app_episode))
    dev = open_device(adb_server, vd)
    try:
        dev.launch(pkg)
        return replay_episode(played or app_episode, dev, **kw), vd, pkg
    finally:
        dev.close()


def test_aitz_sample_replays_with_full_fidelity(make_vdevice, adb_server, tmp_path: Path) -> None:
    ep = load_aitz()
    with RunWriter.create(tmp_path / "runs", "aitz") as run:
        rep, vd, pkg = _replay_on_app(make_vdevice, adb_server, ep, writer=run)
    finish_run(run)
    assert [s.matched for s in rep.steps] == [True, True, True, None]  # HOME, swipe, tap, COMPLETE
    assert rep.fidelity == 1.0 and rep.compared == 3 and rep.first_divergence is None
    assert rep.start_hash_distance is not None and rep.start_hash_distance < 0.1
    assert vd.model.foreground.package == pkg  # the recorded HOME stayed inside the episode app
    assert vd.model.app_ui[pkg]["index"] == 3  # ... and every step advanced it
    # the trajectory: a normal run that loads and renders
    loaded = load_run(run.path)
    (ep_rec,) = loaded.episodes.values()
    assert ep_rec.finished and ep_rec.meta.status == "success"
    assert [s.agent.thought for s in ep_rec.steps] == [f"replay of aitz step {k}" for k in range(4)]
    assert ep_rec.steps[-1].agent.action["type"] == "COMPLETE"
    assert ep_rec.meta.extra["replay"]["fidelity"] == 1.0
    assert all(ep_rec.frame_path(s.step) is not None for s in ep_rec.steps)
    html = write_report(run.path).read_text()
    assert "replay of aitz step 2" in html


def test_generated_episode_with_milestones_hits_every_milestone(make_vdevice, adb_server, tmp_path: Path) -> None:
    ep = demo_episode(tmp_path, dataset="androidlens", episode_id="lens-1")
    task = ep.to_task()
    assert task is not None and len(task.milestones.leaves()) == 3
    with RunWriter.create(tmp_path / "runs", "lens") as run:
        rep, vd, pkg = _replay_on_app(make_vdevice, adb_server, ep, writer=run)
    # tap, type, enter, swipe up, long press, back, home: all on the path; COMPLETE not compared
    assert [s.matched for s in rep.steps] == [True] * 7 + [None], [s.reason for s in rep.steps]
    assert rep.fidelity == 1.0 and rep.first_divergence is None
    assert rep.milestones_total == 3 and rep.milestone_progress == 1.0
    assert set(rep.milestones_hit) == {"m1", "m2", "m3"}
    assert rep.steps[0].new_milestones == ["m1"]  # the search screen shows after step 0
    typed = rep.steps[1]
    assert typed.executed.startswith("type") and typed.ok
    loaded = load_run(run.path)
    (ep_rec,) = loaded.episodes.values()
    assert ep_rec.meta.success and ep_rec.meta.progress == 1.0
    assert ep_rec.task_id == task.id


@pytest.mark.parametrize(
    "index,change,why",
    [
        (3, {"type": "SWIPE", "start": [0.5, 0.3], "end": [0.5, 0.8]}, "did not change"),  # swipe down, not up
        (4, {"type": "LONG_PRESS", "target": "Result F"}, "differs"),  # another element: off the path
        (0, {"type": "CLICK", "target": "Gallery"}, "differs"),
    ],
)
def test_perturbed_replay_diverges_at_that_step(
    make_vdevice, adb_server, tmp_path: Path, index: int, change: dict, why: str
) -> None:
    ep = demo_episode(tmp_path)
    bad = build_episode(with_action(demo_spec(), index, change), tmp_path / "bad")
    rep, vd, pkg = _replay_on_app(make_vdevice, adb_server, ep, played=bad, stop_at_divergence=True)
    assert rep.first_divergence is not None
    assert rep.first_divergence.index == index, rep.first_divergence
    assert len(rep.steps) == index + 1  # stopped there
    assert why in rep.first_divergence.reason
    assert all(s.matched for s in rep.steps[:index])
    assert rep.steps[index].matched is False
    assert rep.fidelity < 1.0
    off = [e["index"] for e in vd.model.events.all("episode") if e["action"] == "off_path"]
    if change["type"] == "SWIPE":
        assert index not in off  # a swipe the other way leaves the screen as it is
        assert rep.steps[index].distance_before is not None and rep.steps[index].distance_before < 0.1
    else:
        assert off and off[0] == index  # the app went to its off-path page at that step


@pytest.mark.parametrize("profile", ["pixel_fold", "small_phone"])
def test_cross_resolution_replay(make_vdevice, adb_server, tmp_path: Path, profile: str) -> None:
    # recorded at 270x600 (AITZ) and 540x1200 (generated); played on a 1840x2208 foldable and a 720x1280 phone
    rep, vd, _ = _replay_on_app(make_vdevice, adb_server, load_aitz(), profile=profile)
    assert vd.model.display_size != (270, 600)
    assert rep.fidelity == 1.0, [s.reason for s in rep.steps]
    rep, vd, _ = _replay_on_app(make_vdevice, adb_server, demo_episode(tmp_path), profile=profile)
    assert rep.fidelity == 1.0, [s.reason for s in rep.steps]


@pytest.mark.slow
def test_regrounding_follows_a_moved_element(make_vdevice, adb_server, tmp_path: Path) -> None:
    ep = demo_episode(tmp_path)
    # the live app has "Search" 480 px lower (below "Gallery") than the recording; its recorded tap moves too
    live = build_episode(moved(demo_spec(), 0, "Search", 0, 480), tmp_path / "moved")
    rep, vd, pkg = _replay_on_app(make_vdevice, adb_server, live, played=ep)
    assert rep.steps[0].regrounded and rep.regrounded_steps == [0]
    assert "'Search'" in rep.steps[0].grounding
    assert rep.steps[0].matched and rep.fidelity == 1.0
    # the other taps were on recorded positions: confirmed, not moved
    assert not rep.steps[4].regrounded and rep.steps[4].grounding.startswith("confirmed")
    # without re-grounding the recorded point misses the moved element: divergence at step 0
    rep, vd, pkg = _replay_on_app(make_vdevice, adb_server, live, played=ep, regrounding=False)
    assert not any(s.regrounded for s in rep.steps)
    assert rep.first_divergence is not None and rep.first_divergence.index == 0
    assert rep.fidelity < 1.0


def test_perturbed_replay_keeps_going_and_scores_every_step(make_vdevice, adb_server, tmp_path: Path) -> None:
    ep = demo_episode(tmp_path)
    bad = build_episode(with_action(demo_spec(), 4, {"type": "LONG_PRESS", "target": "Result F"}), tmp_path / "bad")
    rep, vd, pkg = _replay_on_app(make_vdevice, adb_server, ep, played=bad)
    # steps 0-3 on the path; 4 goes off the path; 5 (BACK) returns to screen 4, the same result list the
    # recording shows after its BACK (screen 6 only adds "Copied"): a loose match on hash + texts; 6 (HOME, not
    # recorded at screen 4) shows the launcher, not the recorded screen 7
    assert [s.matched for s in rep.steps] == [True, True, True, True, False, True, False, None]
    assert rep.steps[5].hash_distance > 0.2 and rep.steps[5].text_jaccard == pytest.approx(5 / 6, abs=1e-3)
    assert rep.compared == 7 and rep.matched == 5 and rep.fidelity == pytest.approx(5 / 7)
    assert rep.first_divergence is not None and rep.first_divergence.index == 4
    assert vd.model.foreground.package != pkg
