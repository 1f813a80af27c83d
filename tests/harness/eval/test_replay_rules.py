"""The replay rules (recorded target, tap / swipe matching, perceptual hash, element overlap, re-grounding) as pure
functions, plus the episode builders the other replay tests use: the real AITZ sample and generated episodes
(spec-driven, so a variant with a moved element is the same episode drawn again)."""

from __future__ import annotations

from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import pytest
from PIL import Image, ImageDraw

from harness import actions as A
from harness.eval.replay_rules import (
    HASH_MATCH,
    compare_screen,
    element_overlap,
    ground_action,
    hash_distance,
    kind_desc,
    recorded_target,
    swipe_matches,
    tap_matches,
)
from harness.hierarchy import UITree
from tasks.datasets.base import DatasetEpisode, DatasetStep, UIBox
from tests.paths import FIXTURES

AITZ_DIR = FIXTURES / "aitz"  # the real sample, copied into the repo
AITZ_ID = "523638528775825151"


# --- episode builders ------------------------------------------------------------------------------------------
def load_aitz() -> DatasetEpisode:
    """The real AITZ sample through the dataset loader (4 steps: HOME, swipe up, tap Clock, COMPLETE)."""
    from tasks.datasets import open_dataset

    eps = list(open_dataset("aitz", AITZ_DIR))
    return next(e for e in eps if str(e.episode_id) == AITZ_ID)


W0, H0 = 540, 1200  # generated episodes are "recorded" at this size


@dataclass
class Screen:
    name: str
    elements: list[tuple[tuple[int, int, int, int], str, str]]  # (l, t, r, b), text, kind
    action: dict[str, Any]  # {"type": ..., "target": text} or an action dict
    milestone: dict[str, Any] | None = None


def _buttons(
    names: list[str], top: int, h: int = 70, gap: int = 50, left: int = 100, right: int = 440, kind: str = "TEXT"
) -> list[tuple[tuple[int, int, int, int], str, str]]:
    return [((left, top + i * (h + gap), right, top + i * (h + gap) + h), n, kind) for i, n in enumerate(names)]


def demo_spec() -> list[Screen]:
    """Eight screens: tap, type, enter, swipe up, long press, back, home, complete."""
    return [
        Screen(
            "home",
            _buttons(["Settings", "Search", "Gallery"], 300) + [((440, 90, 510, 160), "", "ICON_THREE_DOTS")],
            {"type": "CLICK", "target": "Search"},
        ),
        Screen(
            "search",
            [((40, 100, 500, 180), "Search field", "TEXT"), ((380, 1000, 500, 1080), "Cancel", "TEXT")],
            {"type": "TYPE", "text": "hello world"},
            {"sub-target": "open the search", "idx": 1, "text": "Search field", "state": []},
        ),
        Screen(
            "typed",
            [((40, 100, 500, 180), "hello world", "TEXT"), ((380, 1000, 500, 1080), "Cancel", "TEXT")],
            {"type": "ENTER"},
        ),
        Screen(
            "results",
            _buttons([f"Result {c}" for c in "ABCDE"], 220),
            {"type": "SWIPE", "start": [0.5, 0.8], "end": [0.5, 0.3]},
            {"sub-target": "see the results", "idx": 2, "text": "Result A", "state": []},
        ),
        Screen("more", _buttons([f"Result {c}" for c in "FGHIJ"], 220), {"type": "LONG_PRESS", "target": "Result H"}),
        Screen(
            "menu",
            _buttons(["Copy", "Share", "Delete"], 500, left=120, right=420)
            + [((440, 90, 510, 160), "", "ICON_THREE_DOTS")],
            {"type": "BACK"},
            {"sub-target": "open the item menu", "idx": 3, "text": "Copy", "state": ["selected"]},
        ),
        Screen(
            "back",
            _buttons([f"Result {c}" for c in "FGHIJ"], 220) + [((60, 900, 480, 960), "Copied", "TEXT")],
            {"type": "HOME"},
        ),
        Screen("done", [((60, 500, 480, 600), "All done", "TEXT")], {"type": "COMPLETE"}),
    ]


def _palette(k: int) -> list[tuple[int, int, int]]:
    import random

    rng = random.Random(1000 + k)
    return [(rng.randrange(256), rng.randrange(256), rng.randrange(256)) for _ in range(8)]


def draw_screen(k: int, screen: Screen, size: tuple[int, int] = (W0, H0)) -> Image.Image:
    """A screen that looks nothing like the others (a random grid of dark and light cells seeded by the step)
    with its elements drawn on top."""
    import random

    rng = random.Random(k * 7919 + 17)
    pal = _palette(k)
    img = Image.new("RGB", size, pal[0])
    d = ImageDraw.Draw(img)
    cw, ch = size[0] // 6, size[1] // 12
    for gy in range(12):
        for gx in range(6):
            dark = rng.random() < 0.5
            c = tuple(v // 4 for v in pal[1 + (gx + gy) % 3]) if dark else tuple(160 + v // 3 for v in pal[4])
            d.rectangle((gx * cw, gy * ch, (gx + 1) * cw - 1, (gy + 1) * ch - 1), fill=c)
    for (l, t, r, b), text, kind in screen.elements:
        d.rounded_rectangle((l, t, r, b), 12, fill=(250, 250, 250), outline=(20, 20, 20), width=3)
        d.text((l + 16, (t + b) // 2 - 6), text or kind_desc(kind), fill=(10, 10, 10))
    return img


def _action(screen: Screen) -> Any:
    a = dict(screen.action)
    target = a.pop("target", None)
    if target is not None:
        (l, t, r, b), _, _ = next(e for e in screen.elements if e[1] == target)
        a["point"] = [(l + r) / 2 / W0, (t + b) / 2 / H0]
    return A.parse_action(a)


def build_episode(
    spec: list[Screen],
    out: Path,
    episode_id: str = "demo-1",
    dataset: str = "aitz",
    lang: str = "en",
    instruction: str = "Search for hello world and copy a result",
) -> DatasetEpisode:
    """Write the screens as PNGs under `out` and return the episode (AndroidLens-style when dataset is
    "androidlens": milestones in `raw["milestone"]`, category 1-1)."""
    out.mkdir(parents=True, exist_ok=True)
    steps = []
    for k, sc in enumerate(spec):
        path = out / f"{episode_id}_{k}.png"
        draw_screen(k, sc).save(path)
        raw: dict[str, Any] = {"step_id": k}
        if dataset == "androidlens" and sc.milestone:  # bbox: the element showing the milestone's text
            (l, t, r, b), _, _ = next(e for e in sc.elements if e[1] == sc.milestone["text"])
            raw["milestone"] = {**sc.milestone, "bbox": [l / W0, t / H0, r / W0, b / H0]}
        steps.append(
            DatasetStep(
                index=k,
                width=W0,
                height=H0,
                action=_action(sc),
                raw=raw,
                elements=tuple(UIBox(b, t, kd) for b, t, kd in sc.elements),
                image_path=str(path),
            )
        )
    meta = {"types": ["1-1"], "app": ["demo"]} if dataset == "androidlens" else {}
    return DatasetEpisode(dataset, episode_id, instruction, lang, tuple(steps), meta)


def demo_episode(tmp: Path, **kw: Any) -> DatasetEpisode:
    return build_episode(demo_spec(), tmp / "demo", **kw)


def moved(spec: list[Screen], index: int, name: str, dx: int, dy: int) -> list[Screen]:
    """The spec with element `name` of screen `index` moved by (dx, dy) px (a recorded tap on it moves too)."""
    out = [replace(s, elements=list(s.elements)) for s in spec]
    els = out[index].elements
    for i, ((l, t, r, b), text, kind) in enumerate(els):
        if text == name:
            els[i] = ((l + dx, t + dy, r + dx, b + dy), text, kind)
    return out


def with_action(spec: list[Screen], index: int, action: dict[str, Any]) -> list[Screen]:
    out = list(spec)
    out[index] = replace(out[index], action=action)
    return out


# --- unit tests of the rules -------------------------------------------------------------------------------------
def test_kind_desc() -> None:
    assert kind_desc("ICON_THREE_DOTS") == "three dots"
    assert kind_desc("ICON_NAV_BAR_RECT") == "nav bar rect"
    assert kind_desc("TEXT") == "" and kind_desc("") == ""


def test_recorded_target_contains_or_nearest_within_radius() -> None:
    ep = load_aitz()
    home, swipe, tap, done = ep.steps
    assert recorded_target(home) is None and recorded_target(swipe) is None and recorded_target(done) is None
    # the recorded tap is on the Clock icon (not annotated), just above its OCR label "Cleck"
    t = recorded_target(tap)
    assert t is not None and t.text == "Cleck"
    assert tap_matches(tap, 0.607, 0.498)  # the recorded point
    assert tap_matches(
        tap, *(((t.bounds[0] + t.bounds[2]) / 2 / tap.width, (t.bounds[1] + t.bounds[3]) / 2 / tap.height))
    )
    assert not tap_matches(tap, 0.2, 0.5)  # another app icon


def test_swipe_matches_finger_direction() -> None:
    up = A.Swipe(start=(0.5, 0.8), end=(0.5, 0.2))
    assert swipe_matches(up, 0.0, -0.3)
    assert swipe_matches(up, 0.05, -0.3)
    assert not swipe_matches(up, 0.0, 0.3)
    assert not swipe_matches(up, 0.4, -0.1)
    assert not swipe_matches(A.Click(point=(0.5, 0.5)), 0.0, -0.3)


def test_hash_separates_recorded_screens_and_survives_rescaling() -> None:
    ep = load_aitz()
    imgs = [s.image() for s in ep.steps]
    for i in range(len(imgs)):
        for j in range(len(imgs)):
            if i != j:
                assert hash_distance(imgs[i], imgs[j]) > HASH_MATCH + 0.1
    for im in imgs:
        for size in ((1080, 2400), (1840, 2208), (720, 1280)):
            assert hash_distance(im, im.resize(size, Image.BILINEAR)) < HASH_MATCH / 2


def test_element_overlap_and_compare(tmp_path: Path) -> None:
    ep = demo_episode(tmp_path)
    s0 = ep.steps[0]

    @dataclass
    class El:
        bounds: tuple[int, int, int, int]
        text: str = ""
        package: str = "app"
        visible_to_user: bool = True

    live = [El((b.bounds[0] * 2, b.bounds[1] * 2, b.bounds[2] * 2, b.bounds[3] * 2), b.text) for b in s0.elements]
    jac, boxes = element_overlap(live, (W0 * 2, H0 * 2), s0.elements, (W0, H0))
    assert jac == 1.0 and boxes == 1.0
    jac, boxes = element_overlap(live[:1], (W0 * 2, H0 * 2), s0.elements, (W0, H0))
    assert jac == pytest.approx(1 / 3) and boxes == pytest.approx(1 / 4)
    same = compare_screen(s0.image().resize((1080, 2400)), live, (W0 * 2, H0 * 2), s0)
    assert same.matched and same.hash_distance < HASH_MATCH
    other = compare_screen(ep.steps[1].image(), [], (W0, H0), s0)
    assert not other.matched and other.element_overlap is None


def test_ground_action_finds_moved_element(tmp_path: Path) -> None:
    ep = demo_episode(tmp_path)
    step = ep.steps[0]  # CLICK "Search"

    @dataclass(frozen=True)
    class Obs:
        tree: UITree
        size: tuple[int, int]

    def tree(search_top: int) -> UITree:
        xml = (
            "<hierarchy rotation='0'>"
            "<node index='0' text='' package='app' class='android.widget.FrameLayout' bounds='[0,0][1080,2400]'>"
            "<node index='0' text='Settings' package='app' class='android.widget.TextView' "
            "bounds='[120,600][960,780]'/>"
            f"<node index='1' text='Search' package='app' class='android.widget.TextView' "
            f"bounds='[120,{search_top}][960,{search_top + 180}]'/>"
            "</node></hierarchy>"
        )
        return UITree.from_xml(xml)

    where = Obs(tree(840), (1080, 2400))  # where the recording has it: confirmed, the point is kept
    g = ground_action(step, where)
    assert not g.regrounded and g.action == step.action and g.note.startswith("confirmed")
    shifted = Obs(tree(1800), (1080, 2400))
    g = ground_action(step, shifted)
    assert g.regrounded and isinstance(g.action, A.Click) and g.action.element == 2
    none = Obs(
        UITree.from_xml(
            "<hierarchy rotation='0'><node index='0' text='x' package='app' bounds='[0,0][10,10]'/></hierarchy>"
        ),
        (1080, 2400),
    )
    g = ground_action(step, none)
    assert not g.regrounded and "no live element" in g.note
