"""Episode-backed virtual apps (`emulator.virtual.apps.episode_app`): screens from recorded screenshots and
annotations, the advance rule, the off-path page, in-app HOME, scaling to other profiles, snapshots."""

from __future__ import annotations

from pathlib import Path

import pytest

from emulator.virtual.apps.episode_app import (
    EpisodeApp,
    episode_app,
    episode_package,
    install_episode_app,
    sanitize_package_part,
)
from emulator.virtual.model import LAUNCHER_PACKAGE, VirtualDeviceModel
from harness.eval.replay_rules import HASH_MATCH, hash_distance, recorded_episode
from harness.hierarchy import UITree
from tests.harness.eval.test_replay_rules import H0, W0, demo_episode, load_aitz


def _open(ep, profile: str = "medium_phone") -> tuple[VirtualDeviceModel, str]:
    m = VirtualDeviceModel(profile=profile)
    pkg = install_episode_app(m, recorded_episode(ep))
    m.start_activity(pkg)
    return m, pkg


def _index(m: VirtualDeviceModel, pkg: str) -> int:
    return m.app_ui[pkg].get("index", 0)


def _center(
    m: VirtualDeviceModel, box: tuple[int, int, int, int], rec: tuple[int, int] = (W0, H0)
) -> tuple[float, float]:
    W, H = m.display_size
    l, t, r, b = box
    return (l + r) / 2 * W / rec[0], (t + b) / 2 * H / rec[1]


def _tree(m: VirtualDeviceModel) -> UITree:
    return UITree.from_xml(m.hierarchy_xml())


def test_package_label_and_install() -> None:
    ep = load_aitz()
    assert sanitize_package_part("523638528775825151") == "e523638528775825151"
    assert sanitize_package_part("GOOGLE_APPS-52") == "google_apps_52"
    m, pkg = _open(ep)
    assert pkg == episode_package(recorded_episode(ep)) == "org.droidharness.episode.e523638528775825151"
    assert isinstance(episode_app(m, pkg), EpisodeApp)
    label = m.packages[pkg].label("en")
    assert label.startswith("open app") and len(label) <= 24
    assert m.foreground.package == pkg


@pytest.mark.parametrize("profile", ["medium_phone", "pixel_fold"])
def test_screen_shows_the_recording_scaled_with_its_annotations(profile: str) -> None:
    ep = load_aitz()
    m, pkg = _open(ep, profile)
    shot = m.screenshot()
    assert shot.size == m.display_size
    assert hash_distance(shot, ep.steps[0].image()) < HASH_MATCH / 2
    tree = _tree(m)
    W, H = m.display_size
    step = ep.steps[0]
    sx, sy = W / step.width, H / step.height
    by_text = {e.text: e for e in tree if e.package == pkg and e.text}
    box = next(b for b in step.elements if b.text == "Set")
    el = by_text["Set"]
    assert el.class_name == "android.widget.TextView" and el.clickable
    assert el.bounds == (
        round(box.bounds[0] * sx),
        round(box.bounds[1] * sy),
        round(box.bounds[2] * sx),
        round(box.bounds[3] * sy),
    )
    icons = [e for e in tree if e.package == pkg and e.class_name == "android.widget.ImageView"]
    assert {"google", "envelope"} <= {e.content_desc for e in icons}


def test_advance_rule_on_the_aitz_sample() -> None:
    ep = load_aitz()
    m, pkg = _open(ep)
    W, H = m.display_size
    m.key(4)  # BACK is not what step 0 recorded: off the path
    assert m.app_ui[pkg]["off"] and _index(m, pkg) == 0
    assert any(e.text == "Off the recorded path" for e in _tree(m))
    m.key(4)  # BACK on the off-path page returns to the step
    assert not m.app_ui[pkg].get("off")
    m.key(3)  # the recorded HOME: the next recorded screen, not the launcher
    assert _index(m, pkg) == 1 and m.foreground.package == pkg
    m.swipe(W * 0.5, H * 0.3, W * 0.5, H * 0.8)  # finger down: the recording swipes up -> nothing happens
    assert _index(m, pkg) == 1 and not m.app_ui[pkg].get("off")
    m.swipe(W * 0.5, H * 0.6, W * 0.52, H * 0.2)
    assert _index(m, pkg) == 2
    m.tap(W * 0.2, H * 0.3)  # bare screenshot far from the target: nothing
    assert _index(m, pkg) == 2 and not m.app_ui[pkg].get("off")
    cleck = next(b for b in ep.steps[2].elements if b.text == "Cleck")
    x, y = _center(m, cleck.bounds, (ep.steps[2].width, ep.steps[2].height))
    m.long_press(x, y)  # the right target but a long press where the recording taps: off the path
    assert "long press" in m.app_ui[pkg]["off"]
    m.tap(*_center(m, (0, 0, 1, 1)))  # taps elsewhere on the off-path page do nothing
    back = next(e for e in _tree(m) if e.text == "Back to the recording")
    m.tap(*back.center)
    assert not m.app_ui[pkg].get("off") and _index(m, pkg) == 2
    m.tap(x, y)  # the OCR label of the Clock icon: inside the recorded target
    assert _index(m, pkg) == 3
    assert hash_distance(m.screenshot(), ep.steps[3].image()) < HASH_MATCH / 2
    m.key(3)  # HOME where none was recorded: the launcher, and the app keeps its place
    assert m.foreground.package == LAUNCHER_PACKAGE
    m.start_activity(pkg)
    assert _index(m, pkg) == 3


def test_tap_within_tolerance_of_the_recorded_point() -> None:
    ep = load_aitz()
    m, pkg = _open(ep)
    m.key(3)
    W, H = m.display_size
    m.swipe(W * 0.5, H * 0.6, W * 0.5, H * 0.2)
    # the recorded point (on the unannotated Clock icon) plus 0.02 to the left: within the 0.04 tolerance
    m.tap(W * (0.607 - 0.02), H * 0.498)
    assert _index(m, pkg) == 3


def test_typing_enter_long_press_back_and_home_on_a_generated_episode(tmp_path: Path) -> None:
    ep = demo_episode(tmp_path)
    m, pkg = _open(ep, "pixel_fold")
    els = {b.text: b.bounds for b in ep.steps[0].elements}
    m.tap(*_center(m, els["Settings"]))  # another annotated element: off the path
    assert "Settings" in m.app_ui[pkg]["off"]
    m.key(4)
    m.tap(*_center(m, els["Search"]))
    assert _index(m, pkg) == 1
    # TYPE: a focused (invisible) field, no keyboard window; partial text keeps the step, full text advances
    assert m.focused_text() == ""
    assert not any(r.package == "com.google.android.inputmethod.latin" for r in m.view_roots())
    m.commit_text("hello")
    assert _index(m, pkg) == 1 and m.focused_text() == "hello"
    m.commit_text(" world")
    assert _index(m, pkg) == 2
    m.key(66)  # the recorded ENTER
    assert _index(m, pkg) == 3
    W, H = m.display_size
    m.swipe(W * 0.5, H * 0.8, W * 0.5, H * 0.3)
    assert _index(m, pkg) == 4
    h = _center(m, {b.text: b.bounds for b in ep.steps[4].elements}["Result H"])
    m.tap(*h)  # a tap where the recording long-presses
    assert "tap where the recording has a long press" in m.app_ui[pkg]["off"]
    m.key(4)
    m.long_press(*h, duration_ms=800)
    assert _index(m, pkg) == 5
    m.key(4)  # the recorded BACK
    assert _index(m, pkg) == 6
    m.key(3)  # the recorded HOME
    assert _index(m, pkg) == 7 and m.foreground.package == pkg


def test_wrong_text_goes_off_path(tmp_path: Path) -> None:
    ep = demo_episode(tmp_path)
    m, pkg = _open(ep)
    m.tap(*_center(m, {b.text: b.bounds for b in ep.steps[0].elements}["Search"]))
    m.commit_text("goodbye")
    assert "goodbye" in m.app_ui[pkg]["off"]


def test_snapshot_restore_keeps_images_out_of_state(tmp_path: Path) -> None:
    ep = demo_episode(tmp_path)
    m, pkg = _open(ep)
    m.tap(*_center(m, {b.text: b.bounds for b in ep.steps[0].elements}["Search"]))
    snap = m.snapshot()
    assert set(snap["state"]["app_ui"][pkg]) <= {"_created", "index", "off", "typed", "wait_since", "fields"}
    m.commit_text("hello world")
    assert _index(m, pkg) == 2
    m.restore(snap)
    assert _index(m, pkg) == 1 and m.foreground.package == pkg
    assert hash_distance(m.screenshot(), ep.steps[1].image()) < HASH_MATCH / 2
    m.force_stop(pkg)  # a fresh process starts the episode over
    m.start_activity(pkg)
    assert _index(m, pkg) == 0


def test_recorded_wait_advances_by_itself(tmp_path: Path) -> None:
    import time

    from harness import actions as A
    from tests.harness.eval.test_replay_rules import Screen, build_episode

    spec = [
        Screen("loading", [((100, 500, 440, 570), "Loading", "TEXT")], {"type": "WAIT", "duration": 0.05}),
        Screen("loaded", [((100, 500, 440, 570), "Loaded", "TEXT")], {"type": "COMPLETE"}),
    ]
    ep = build_episode(spec, tmp_path / "wait")
    assert isinstance(ep.steps[0].action, A.Wait)
    m, pkg = _open(ep)
    assert _index(m, pkg) == 0 and any(e.text == "Loading" for e in _tree(m))
    deadline = time.monotonic() + 10
    while _index(m, pkg) == 0 and time.monotonic() < deadline:
        m.view_roots()  # every frame checks the recorded wait
        time.sleep(0.02)
    assert _index(m, pkg) == 1 and any(e.text == "Loaded" for e in _tree(m))
