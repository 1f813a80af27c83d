"""The replay rules: how a recorded dataset step (`tasks.datasets.DatasetStep`) is matched on a live screen - its
recorded target, the tap and swipe predicates, the screen comparison and the re-grounding of taps on the live
hierarchy, as pure functions. The replay loop (`harness.eval.replay.replay_episode`) applies them on a live
device; the episode-backed virtual app (`emulator.virtual.apps.episode_app`) follows the same ones: it is
installed from `recorded_episode(episode)`, whose tap and swipe predicates are the functions below.

THE RULES
- Coordinates. A recorded point is normalized to the recorded screenshot and is played at the same normalized
  position of the live display (`harness.coords.to_pixels` on the current size): each axis is stretched on its
  own, so a recording of another aspect ratio maps its left/right and top/bottom edges onto the live edges
  (no letterboxing). Annotated boxes are normalized the same way. Where the layouts of the two screens differ
  more than a stretch, re-grounding corrects taps.
- Recorded target of a tap / long press (`recorded_target`): the smallest annotated box containing the recorded
  point; if none does, the box nearest to the point (distance from the point to the box edge, normalized
  units) when within `TARGET_RADIUS`; else no target.
- Same tap (`tap_matches`): a tap hits the recorded target when it lies inside the target's box or within
  `TAP_TOLERANCE` (Euclidean, normalized x/y) of the recorded point.
- Same swipe (`swipe_matches`): the finger direction (left / right / up / down, |dx| > |dy| is horizontal, on
  normalized deltas) equals the recorded one. Direction sign counts (unlike AitW's offline metric).
- Re-grounding (taps, long presses and TYPE with a point, when the live hierarchy is available): the live
  candidates are visible elements outside the system UI and the keyboard whose text or content-desc equals the
  target's text, or, for an icon with no text, whose content-desc equals the kind's description
  (`kind_desc`: "ICON_THREE_DOTS" -> "three dots"); comparison after trimming, collapsing whitespace and
  casefolding; when nothing is equal, containment either way for texts of 3+ characters. If a candidate's box
  is as close to the recorded point as the recorded target's box was (0 when the point was inside it; slack
  `CONFIRM_SLACK`, the `tolerance` argument), the layouts agree and the recorded point is played ("confirmed");
  else the action targets the candidate whose centre is nearest to the recorded point ("re-grounded", played as
  `element=<index>`); no candidate: the recorded point is played.
- Screen comparison (`compare_screen`), live screen after step k vs the recorded screen of step k + 1:
  * perceptual hash: grey image, the top and bottom `BAR_CROP` (system bars) cut off, an average hash on a
    16x16 grid plus a difference hash on 17x16 (512 bits); distance = differing bits / 512 in [0, 1];
  * element overlap: Jaccard index of the sets of normalized texts (live: text of app elements; recorded: the
    annotations' texts) and the share of recorded boxes matched by a live box with IoU >= `IOU_MATCH`
    (normalized boxes); overlap = the text Jaccard when either side has texts (many screens share a geometry),
    else the box share (None without annotations or hierarchy);
  * MATCH when hash distance <= `HASH_MATCH`, or when <= `HASH_LOOSE` and overlap >= `ELEMENT_MATCH`
    (calibration: the AITZ sample's four screens are 0.36-0.55 apart; a live virtual-device screen vs the
    recording it shows, stretched to 720x1280 ... 1840x2208 under the live status bar, is <= 0.015);
  * similarity (reported) = 1 - hash distance, averaged with the overlap when there is one.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np
from PIL import Image

from emulator.virtual.apps.episode_app import RecordedElement, RecordedEpisode, RecordedMark, RecordedScreen
from harness import actions as A
from harness.coords import box_area, from_pixels, iou, normalize_box, point_box_distance
from tasks.datasets.milestones import map_states

if TYPE_CHECKING:  # pragma: no cover - typing only
    from harness.hierarchy import UIElement
    from harness.observation import Observation
    from tasks.datasets.base import DatasetEpisode, DatasetStep, UIBox

TAP_TOLERANCE = 0.04  # normalized radius around the recorded point that counts as the same tap
CONFIRM_SLACK = 0.01  # a live candidate this much farther from the point than the recorded target still agrees
TARGET_RADIUS = 0.05  # nearest annotated box within this distance is the target when none contains the point
HASH_MATCH = 0.20  # hash distance at or below which two screens are the same screen
HASH_LOOSE = 0.30  # ... or at or below this when the element overlap agrees
ELEMENT_MATCH = 0.5
IOU_MATCH = 0.5
BAR_CROP = 0.04  # fraction of the height cut at the top and bottom before hashing (status / navigation bars)
HASH_GRID = 16
IGNORED_PACKAGES = ("com.android.systemui", "com.google.android.inputmethod.latin")


# --- the recorded target ------------------------------------------------------------------------------------
def recorded_episode(episode: DatasetEpisode, tolerance: float = TAP_TOLERANCE) -> RecordedEpisode:
    """The neutral spec of an episode-backed virtual app (`emulator.virtual.apps.episode_app.RecordedEpisode`)
    built from a `tasks.datasets.DatasetEpisode` with this module's rules: element views from the annotations
    (icons as ImageViews with `kind_desc`), AndroidLens milestones as marked regions, and the tap / swipe
    predicates `tap_matches` / `swipe_matches` bound to each step."""

    def element(box: UIBox) -> RecordedElement:
        desc = kind_desc(box.kind)
        cls = (
            "android.widget.ImageView" if desc else (box.kind if "." in (box.kind or "") else "android.widget.TextView")
        )
        l, t, r, b = box.bounds
        return RecordedElement((l, t, r, b), box.text or "", desc, cls, box.text or desc or box.kind or "")

    def marks(step: DatasetStep) -> tuple[RecordedMark, ...]:
        raw = step.raw.get("milestone") if isinstance(step.raw, dict) else None
        out = []
        for item in raw if isinstance(raw, list) else [raw]:
            if not isinstance(item, dict) or not item.get("bbox"):
                continue
            try:
                x1, y1, x2, y2 = (float(v) for v in item["bbox"])
            except (TypeError, ValueError):
                continue
            words = item.get("state")
            pos, neg, _ = map_states([str(w) for w in (words if isinstance(words, list) else [words] if words else [])])
            flags = {**{n: False for n in neg}, **{n: True for n in pos}}
            out.append(RecordedMark((x1, y1, x2, y2), str(item.get("text") or ""), flags))
        return tuple(out)

    def screen(step: DatasetStep) -> RecordedScreen:
        a = step.action
        kind = getattr(a, "type", "")
        return RecordedScreen(
            image=step.image,
            size=(int(step.width), int(step.height)),
            action=kind,
            description="does: " + (A.describe(a) if a is not None else "nothing representable"),
            elements=tuple(element(b) for b in step.elements),
            marks=marks(step),
            text=getattr(a, "text", "") or "" if kind == "TYPE" else "",
            submit=bool(getattr(a, "submit", False)),
            wait=float(getattr(a, "duration", 0.0) or 0.0) if kind == "WAIT" else 0.0,
            hits=_tap_rule(step, tolerance) if kind in ("CLICK", "LONG_PRESS") else None,
            swipe=_swipe_rule(a) if kind in ("SWIPE", "SCROLL") else None,
        )

    return RecordedEpisode(
        str(episode.episode_id), episode.instruction or "", tuple(screen(st) for st in episode.steps)
    )


def _tap_rule(step: DatasetStep, tolerance: float) -> Callable[[float, float], bool]:
    return lambda x, y: tap_matches(step, x, y, tolerance)


def _swipe_rule(action: A.Action | None) -> Callable[[float, float], bool]:
    return lambda dx, dy: swipe_matches(action, dx, dy)


def kind_desc(kind: str) -> str:
    """Content-desc standing for an annotation kind: "ICON_THREE_DOTS" -> "three dots"; TEXT / "" -> ""."""
    k = (kind or "").strip()
    if not k.upper().startswith("ICON_"):
        return ""
    return k[5:].replace("_", " ").lower().strip()


def norm_text(s: str | None) -> str:
    return " ".join((s or "").split()).casefold()


def _step_size(step: DatasetStep) -> tuple[int, int]:
    return int(step.width), int(step.height)


def recorded_point(action: A.Action | None) -> tuple[float, float] | None:
    """The normalized (x, y) of a recorded tap / long press / TYPE target, else None."""
    p = getattr(action, "point", None)
    return (p.x, p.y) if p is not None else None


def recorded_target(step: DatasetStep) -> UIBox | None:
    """The annotated UIBox the recorded action aims at (module rule), or None."""
    pt = recorded_point(step.action)
    if pt is None or not step.elements or step.width <= 0 or step.height <= 0:
        return None
    size = _step_size(step)
    boxes = [(e, normalize_box(e.bounds, size)) for e in step.elements]
    boxes = [(e, b) for e, b in boxes if box_area(b) > 0]
    inside = [(e, b) for e, b in boxes if b[0] <= pt[0] <= b[2] and b[1] <= pt[1] <= b[3]]
    if inside:
        return min(inside, key=lambda eb: box_area(eb[1]))[0]
    near = [(point_box_distance(pt, b), box_area(b), i, e) for i, (e, b) in enumerate(boxes)]
    near = [n for n in near if n[0] <= TARGET_RADIUS]
    return min(near)[3] if near else None


def tap_matches(step: DatasetStep, x: float, y: float, tolerance: float = TAP_TOLERANCE) -> bool:
    """Does a tap at normalized (x, y) hit the recorded target of `step` (module rule)?"""
    pt = recorded_point(step.action)
    if pt is None:
        return False
    if math.hypot(x - pt[0], y - pt[1]) <= tolerance:
        return True
    target = recorded_target(step)
    if target is None:
        return False
    b = normalize_box(target.bounds, _step_size(step))
    return b[0] <= x <= b[2] and b[1] <= y <= b[3]


def finger_direction(dx: float, dy: float) -> str:
    if abs(dx) > abs(dy):
        return "right" if dx > 0 else "left"
    return "down" if dy > 0 else "up"


def swipe_matches(action: A.Action | None, dx: float, dy: float) -> bool:
    """Does a finger movement (normalized dx, dy) go the recorded swipe's way?"""
    if isinstance(action, A.Scroll):
        return finger_direction(dx, dy) == action.finger_direction
    if isinstance(action, A.Swipe):
        return finger_direction(dx, dy) == action.direction
    return False


# --- screen comparison --------------------------------------------------------------------------------------
def screen_hash(img: Image.Image) -> np.ndarray:
    """512 bits: average hash (16x16) + difference hash (17x16) of the grey image without the system bars."""
    g = img.convert("L")
    w, h = g.size
    cut = round(h * BAR_CROP)
    if h - 2 * cut >= HASH_GRID:
        g = g.crop((0, cut, w, h - cut))
    a = np.asarray(g.resize((HASH_GRID, HASH_GRID), Image.Resampling.BOX), dtype=np.float32)
    d = np.asarray(g.resize((HASH_GRID + 1, HASH_GRID), Image.Resampling.BOX), dtype=np.float32)
    return np.concatenate([(a > a.mean()).ravel(), (d[:, 1:] - d[:, :-1] > 1.0).ravel()])


def hash_distance(a: Image.Image | np.ndarray, b: Image.Image | np.ndarray) -> float:
    ha = a if isinstance(a, np.ndarray) else screen_hash(a)
    hb = b if isinstance(b, np.ndarray) else screen_hash(b)
    return float(np.count_nonzero(ha != hb)) / ha.size


def live_elements(tree: Iterable[UIElement] | None, size: Sequence[int]) -> list[UIElement]:
    """Visible elements of the app on screen (system UI and keyboard left out); `tree`: a UITree."""
    w, h = size
    out = []
    for e in tree or ():
        l, t, r, b = e.bounds
        if e.package in IGNORED_PACKAGES or not getattr(e, "visible_to_user", True):
            continue
        if r > l and b > t and r > 0 and b > 0 and l < w and t < h:
            out.append(e)
    return out


def element_overlap(
    live: Sequence[UIElement], live_size: Sequence[int], boxes: Sequence[UIBox], rec_size: Sequence[int]
) -> tuple[float | None, float | None]:
    """(text Jaccard, share of recorded boxes matched by a live box with IoU >= IOU_MATCH); None when a side
    has nothing to compare."""
    if not boxes or not live:
        return None, None
    rec_texts = {norm_text(b.text) for b in boxes} - {""}
    live_texts = {norm_text(e.text) for e in live} - {""}
    jac = len(rec_texts & live_texts) / len(rec_texts | live_texts) if (rec_texts or live_texts) else None
    lb = [normalize_box(e.bounds, live_size) for e in live]
    rb = [normalize_box(b.bounds, rec_size) for b in boxes if box_area(b.bounds) > 0]
    matched = sum(1 for r in rb if any(iou(r, x) >= IOU_MATCH for x in lb))
    return jac, (matched / len(rb) if rb else None)


@dataclass(frozen=True)
class ScreenSimilarity:
    hash_distance: float
    text_jaccard: float | None
    box_match: float | None
    element_overlap: float | None
    similarity: float
    matched: bool


def compare_screen(
    image: Image.Image,
    tree: Iterable[UIElement] | None,
    size: Sequence[int],
    recorded: DatasetStep,
    recorded_image: Image.Image | None = None,
) -> ScreenSimilarity:
    """Compare a live screen (screenshot, UITree, size) with a recorded step's screen (module rule)."""
    ref = recorded_image if recorded_image is not None else recorded.image()
    d = hash_distance(image, ref)
    jac, boxm = element_overlap(live_elements(tree, size), size, recorded.elements, _step_size(recorded))
    overlap = jac if jac is not None else boxm  # texts tell screens apart; many screens share a geometry
    matched = d <= HASH_MATCH or (overlap is not None and d <= HASH_LOOSE and overlap >= ELEMENT_MATCH)
    sim = (1 - d) if overlap is None else ((1 - d) + overlap) / 2
    return ScreenSimilarity(round(d, 4), _r(jac), _r(boxm), _r(overlap), round(sim, 4), matched)


def _r(x: float | None) -> float | None:
    return None if x is None else round(x, 4)


# --- re-grounding -------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Grounding:
    action: A.Action | None  # the action to play (None: the step records nothing representable)
    regrounded: bool
    note: str


def _candidates(target: UIBox, live: list[UIElement]) -> list[UIElement]:
    text, desc = norm_text(target.text), kind_desc(target.kind)
    rid = getattr(target, "resource_id", "") or ""
    exact = []
    for e in live:
        t, c = norm_text(e.text), norm_text(e.content_desc)
        if (text and text in (t, c)) or (not text and desc and c == desc) or (rid and e.resource_id == rid):
            exact.append(e)
    if exact or len(text) < 3:
        return exact
    return [e for e in live if (t := norm_text(e.text)) and len(t) >= 3 and (text in t or t in text)]


def ground_action(step: DatasetStep, observation: Observation, slack: float = CONFIRM_SLACK) -> Grounding:
    """Re-ground a recorded tap / long press / TYPE-with-point on the live hierarchy (module rule); `slack`: how
    much farther from the recorded point than the recorded target a live candidate may be and still confirm
    the recorded layout."""
    action = step.action
    pt = recorded_point(action)
    if pt is None or not isinstance(action, (A.Click, A.LongPress, A.TypeText)):
        return Grounding(action, False, "")
    target = recorded_target(step)
    if target is None:
        return Grounding(action, False, "no annotated target at the recorded point")
    label = target.text or kind_desc(target.kind) or target.kind or "?"
    size = tuple(observation.size)
    live = live_elements(observation.tree, size)
    cands = _candidates(target, live)
    if not cands:
        return Grounding(action, False, f"no live element matches {label!r}")
    # the live layout agrees with the recording when a candidate is (about) as close to the point as the
    # recorded target was (0 when the point was inside it)
    recorded_gap = point_box_distance(pt, normalize_box(target.bounds, _step_size(step)))
    if any(point_box_distance(pt, normalize_box(e.bounds, size)) <= recorded_gap + slack for e in cands):
        return Grounding(action, False, f"confirmed: {label!r} is where the recording has it")

    def dist(e: UIElement) -> tuple[float, int]:
        cx, cy = from_pixels(_clamp_center(e, size), size)
        return math.hypot(cx - pt[0], cy - pt[1]), e.area

    best = min(cands, key=dist)
    new = action.model_copy(update={"point": None, "element": best.index})
    return Grounding(new, True, f"re-grounded {label!r} to element [{best.index}] at {best.bounds}")


def _clamp_center(e: UIElement, size: Sequence[int]) -> tuple[int, int]:
    l, t, r, b = e.bounds
    l, t, r, b = max(l, 0), max(t, 0), min(r, size[0]), min(b, size[1])
    return min((l + r) // 2, size[0] - 1), min((t + b) // 2, size[1] - 1)


__all__ = [
    "ScreenSimilarity",
    "compare_screen",
    "screen_hash",
    "hash_distance",
    "element_overlap",
    "live_elements",
    "ground_action",
    "Grounding",
    "recorded_episode",
    "recorded_target",
    "recorded_point",
    "tap_matches",
    "swipe_matches",
    "kind_desc",
    "finger_direction",
    "TAP_TOLERANCE",
    "CONFIRM_SLACK",
    "TARGET_RADIUS",
    "HASH_MATCH",
    "HASH_LOOSE",
    "ELEMENT_MATCH",
    "IOU_MATCH",
    "BAR_CROP",
]
