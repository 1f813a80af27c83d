"""Replay a recorded dataset episode (`tasks.datasets.DatasetEpisode`) on a live device, re-grounding taps on the
live hierarchy and comparing every screen reached with the recorded one.

    report = replay_episode(episode, device, writer=run)        # run: a RunWriter (or an EpisodeWriter)
    report.fidelity, report.first_divergence, report.steps[k].hash_distance

THE RULES (the episode-backed virtual app, `emulator.virtual.apps.episode_app`, follows the same ones: it is
installed from `recorded_episode(episode)`, whose tap and swipe predicates are the functions below)
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
- Fidelity = matched steps / compared steps. Compared steps: executed, non-terminal actions that have a
  recorded next screen. The FIRST DIVERGENCE is the first compared step that did not match (or whose action
  failed on the device). Terminal actions (COMPLETE, IMPOSSIBLE, ANSWER) are recorded but change nothing.
- WAIT plays `min(duration, max_wait)` seconds.
"""

from __future__ import annotations

import logging
import math
import re
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
from PIL import Image

from emulator.virtual.apps.episode_app import RecordedElement, RecordedEpisode, RecordedMark, RecordedScreen
from harness import actions as A
from harness.agent import AgentStep
from harness.coords import box_area, from_pixels, iou, normalize_box, point_box_distance
from harness.errors import HarnessError
from harness.run.judge.milestones import MilestoneTracker
from harness.trajectory.result import FAILED, SUCCESS, EpisodeResult
from harness.trajectory.sink import Frame, StepEvent
from tasks.datasets.milestones import map_states

if TYPE_CHECKING:  # pragma: no cover - typing only
    from harness.device.controller import Device
    from tasks.datasets.base import DatasetEpisode

log = logging.getLogger(__name__)

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
TERMINAL = ("COMPLETE", "IMPOSSIBLE", "ANSWER")


class ReplayError(HarnessError):
    """An episode cannot be replayed (no steps, a broken screenshot, ...); the message names the episode."""


# --- the recorded target ------------------------------------------------------------------------------------
def recorded_episode(episode: Any, tolerance: float = TAP_TOLERANCE) -> Any:
    """The neutral spec of an episode-backed virtual app (`emulator.virtual.apps.episode_app.RecordedEpisode`)
    built from a `tasks.datasets.DatasetEpisode` with this module's rules: element views from the annotations
    (icons as ImageViews with `kind_desc`), AndroidLens milestones as marked regions, and the tap / swipe
    predicates `tap_matches` / `swipe_matches` bound to each step."""

    def element(box: Any) -> RecordedElement:
        desc = kind_desc(box.kind)
        cls = (
            "android.widget.ImageView" if desc else (box.kind if "." in (box.kind or "") else "android.widget.TextView")
        )
        return RecordedElement(tuple(box.bounds), box.text or "", desc, cls, box.text or desc or box.kind or "")

    def marks(step: Any) -> tuple[RecordedMark, ...]:
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

    def screen(step: Any) -> RecordedScreen:
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


def _tap_rule(step: Any, tolerance: float) -> Callable[[float, float], bool]:
    return lambda x, y: tap_matches(step, x, y, tolerance)


def _swipe_rule(action: Any) -> Callable[[float, float], bool]:
    return lambda dx, dy: swipe_matches(action, dx, dy)


def kind_desc(kind: str) -> str:
    """Content-desc standing for an annotation kind: "ICON_THREE_DOTS" -> "three dots"; TEXT / "" -> ""."""
    k = (kind or "").strip()
    if not k.upper().startswith("ICON_"):
        return ""
    return k[5:].replace("_", " ").lower().strip()


def norm_text(s: str | None) -> str:
    return " ".join((s or "").split()).casefold()


def _step_size(step: Any) -> tuple[int, int]:
    return int(step.width), int(step.height)


def recorded_point(action: Any) -> tuple[float, float] | None:
    """The normalized (x, y) of a recorded tap / long press / TYPE target, else None."""
    p = getattr(action, "point", None)
    return (p.x, p.y) if p is not None else None


def recorded_target(step: Any) -> Any:
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


def tap_matches(step: Any, x: float, y: float, tolerance: float = TAP_TOLERANCE) -> bool:
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


def swipe_matches(action: Any, dx: float, dy: float) -> bool:
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


def live_elements(tree: Any, size: Sequence[int]) -> list[Any]:
    """Visible elements of the app on screen (system UI and keyboard left out)."""
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
    live: Sequence[Any], live_size: Sequence[int], boxes: Sequence[Any], rec_size: Sequence[int]
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
    image: Image.Image, tree: Any, size: Sequence[int], recorded: Any, recorded_image: Image.Image | None = None
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
    action: Any  # the action to play
    regrounded: bool
    note: str


def _candidates(target: Any, live: list[Any]) -> list[Any]:
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


def ground_action(step: Any, observation: Any, slack: float = CONFIRM_SLACK) -> Grounding:
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

    def dist(e: Any) -> tuple[float, int]:
        cx, cy = from_pixels(_clamp_center(e, size), size)
        return math.hypot(cx - pt[0], cy - pt[1]), e.area

    best = min(cands, key=dist)
    new = action.model_copy(update={"point": None, "element": best.index})
    return Grounding(new, True, f"re-grounded {label!r} to element [{best.index}] at {best.bounds}")


def _clamp_center(e: Any, size: Sequence[int]) -> tuple[int, int]:
    l, t, r, b = e.bounds
    l, t, r, b = max(l, 0), max(t, 0), min(r, size[0]), min(b, size[1])
    return min((l + r) // 2, size[0] - 1), min((t + b) // 2, size[1] - 1)


# --- the report ---------------------------------------------------------------------------------------------
@dataclass
class StepReplay:
    index: int  # dataset step index (0-based)
    step: int  # trajectory step number (1-based)
    recorded: str  # the recorded action, described
    executed: str | None  # what was played (None: nothing representable)
    regrounded: bool = False
    grounding: str = ""
    ok: bool = True  # the device carried the action out
    error: str | None = None
    hash_distance: float | None = None  # live screen after the step vs the recorded next screen
    distance_before: float | None = None  # ... vs the recorded screen before the step
    text_jaccard: float | None = None
    box_match: float | None = None
    element_overlap: float | None = None
    similarity: float | None = None
    matched: bool | None = None  # None: not compared
    reason: str = ""
    new_milestones: list[str] = field(default_factory=list)


@dataclass(frozen=True)
class Divergence:
    index: int  # dataset step index
    step: int  # trajectory step number
    reason: str


@dataclass
class ReplayReport:
    dataset: str
    episode_id: str
    instruction: str
    steps: list[StepReplay]
    compared: int
    matched: int
    fidelity: float  # matched / compared (1.0 when nothing could be compared)
    first_divergence: Divergence | None
    regrounding: bool
    start_hash_distance: float | None = None  # live start screen vs recorded screen 0 (not scored)
    milestone_progress: float | None = None  # AndroidLens episodes (a Task with milestones)
    milestones_hit: list[str] = field(default_factory=list)
    milestones_total: int | None = None
    episode_dir: Path | None = None
    rules: dict[str, float] = field(default_factory=dict)  # the thresholds this replay used

    @property
    def regrounded_steps(self) -> list[int]:
        return [s.index for s in self.steps if s.regrounded]

    def to_json(self) -> dict[str, Any]:
        d = asdict(self)
        d["episode_dir"] = str(self.episode_dir) if self.episode_dir else None
        d["regrounded_steps"] = self.regrounded_steps
        return d


# --- the loop -----------------------------------------------------------------------------------------------
def replay_task_id(episode: Any) -> str:
    return re.sub(r"[^A-Za-z0-9._-]+", "_", f"{episode.dataset}-{episode.episode_id}")


def _task_of(episode: Any) -> Any:
    try:
        return episode.to_task()
    except (ImportError, HarnessError) as e:  # a loader still missing, or an episode without usable milestones
        log.warning("episode %s: no milestones: %s", episode.episode_id, e)
        return None


def _played(action: Any, max_wait: float) -> Any:
    if isinstance(action, A.Wait) and action.duration > max_wait:
        return A.Wait(duration=max_wait)
    return action


def replay_episode(
    episode: DatasetEpisode,
    device: Device,
    *,
    regrounding: bool = True,
    writer: Any = None,
    tolerance: float = CONFIRM_SLACK,
    max_wait: float = 3.0,
    stop_at_divergence: bool = False,
) -> ReplayReport:
    """Play `episode`'s recorded actions on `device` (an `AdbDevice` already showing the episode's start screen)
    and compare each screen reached with the recorded next one (module rules).

    `writer`: a `RunWriter` (an episode `<dataset>-<id>` is opened in it) or an `EpisodeWriter`; the replay is
    recorded as a normal trajectory and the episode finished. `tolerance` (normalized): the re-grounding slack,
    how much farther from the recorded point than the recorded target a live element with the target's text
    may be and still count as the recorded layout (the recorded point is then played as is). `max_wait` caps
    recorded WAITs (seconds). `stop_at_divergence` ends the replay after the first divergent step.
    """
    steps = list(episode.steps)
    if not steps:
        raise ReplayError(f"{episode.dataset} episode {episode.episode_id}: no steps to replay")
    task = _task_of(episode)
    lang = getattr(episode, "lang", "en") or "en"
    tracker = MilestoneTracker(task.milestones, lang) if task is not None else None
    ep_writer = writer
    if writer is not None and hasattr(writer, "episode") and not hasattr(writer, "write_step"):
        ep_writer = writer.episode(
            task.id if task is not None else replay_task_id(episode),
            lang,
            category=task.category if task is not None else None,
            instruction=episode.instruction,
        )
    out: list[StepReplay] = []
    obs = device.observe()
    start_d = _safe_distance(obs.screenshot, steps[0])
    images: dict[int, Image.Image] = {}

    def image(k: int) -> Image.Image:
        if k not in images:
            images[k] = steps[k].image()
        return images[k]

    divergence: Divergence | None = None
    n = 0
    for k, step in enumerate(steps):
        if step.action is None:
            out.append(StepReplay(step.index, n + 1, "(not representable)", None, reason="skipped"))
            continue
        n += 1
        rec = StepReplay(step.index, n, A.describe(step.action), None)
        t0 = time.perf_counter()
        g = ground_action(step, obs, tolerance) if regrounding else Grounding(step.action, False, "")
        action = _played(g.action, max_wait)
        rec.executed, rec.regrounded, rec.grounding = A.describe(action), g.regrounded, g.note
        t1 = time.perf_counter()
        result, new_obs = device.step(action, obs)  # the settled screen, captured once
        rec.ok, rec.error = bool(result.ok), result.error
        t_capture = max(0.0, time.perf_counter() - t1 - sum(result.timings.values()))
        newly = tracker.update(new_obs, n) if tracker is not None else []
        rec.new_milestones = list(newly)
        terminal = action.type in TERMINAL
        ref = _image_or_none(image, k + 1) if not terminal and k + 1 < len(steps) else None
        if ref is not None:
            sim = compare_screen(new_obs.screenshot, new_obs.tree, new_obs.size, steps[k + 1], ref)
            rec.hash_distance, rec.text_jaccard, rec.box_match = sim.hash_distance, sim.text_jaccard, sim.box_match
            rec.element_overlap, rec.similarity = sim.element_overlap, sim.similarity
            before = _image_or_none(image, k)
            rec.distance_before = None if before is None else round(hash_distance(new_obs.screenshot, before), 4)
            rec.matched = sim.matched and rec.ok
            rec.reason = _reason(rec, sim)
        else:
            rec.reason = (
                "terminal action"
                if terminal
                else "no recorded screen after the last step"
                if k + 1 >= len(steps)
                else f"the recorded screenshot of step {k + 1} cannot be read"
            )
        if rec.matched is False and divergence is None:
            divergence = Divergence(step.index, n, rec.reason)
        out.append(rec)
        if ep_writer is not None:
            meta = {
                "dataset": episode.dataset,
                "episode_id": episode.episode_id,
                "dataset_step": step.index,
                "recorded_action": A.action_to_dict(step.action),
                "regrounded": g.regrounded,
                "grounding": g.note,
                "matched": rec.matched,
                "hash_distance": rec.hash_distance,
                "element_overlap": rec.element_overlap,
                "similarity": rec.similarity,
            }
            agent_step = AgentStep(action=action, thought=f"replay of {episode.dataset} step {step.index}", meta=meta)
            timings = {
                "agent": 0.0,
                "actuation": result.timings.get("actuation", 0.0),
                "settle": result.timings.get("settle", 0.0),
                "capture": t_capture,
                "total": time.perf_counter() - t0,
            }
            hits = tracker.record(newly) if tracker is not None else None
            ep_writer.write_step(StepEvent(n, Frame.of(obs), agent_step, result, hits, timings))
        obs = new_obs
        if terminal or (stop_at_divergence and divergence is not None):
            break
    compared = [s for s in out if s.matched is not None]
    matched = sum(1 for s in compared if s.matched)
    report = ReplayReport(
        episode.dataset,
        str(episode.episode_id),
        episode.instruction,
        out,
        len(compared),
        matched,
        matched / len(compared) if compared else 1.0,
        divergence,
        regrounding,
        start_d,
        milestone_progress=tracker.progress if tracker is not None else None,
        milestones_hit=sorted(tracker.hits) if tracker is not None else [],
        milestones_total=tracker.total if tracker is not None else None,
        episode_dir=getattr(ep_writer, "path", None),
        rules={
            "tap_tolerance": TAP_TOLERANCE,
            "target_radius": TARGET_RADIUS,
            "reground_slack": tolerance,
            "hash_match": HASH_MATCH,
            "hash_loose": HASH_LOOSE,
            "element_match": ELEMENT_MATCH,
            "iou_match": IOU_MATCH,
            "bar_crop": BAR_CROP,
        },
    )
    if ep_writer is not None:
        success = report.fidelity == 1.0 and (tracker is None or tracker.complete)
        progress = tracker.progress if tracker is not None else report.fidelity
        episode_result = EpisodeResult(
            ep_writer.task_id,
            ep_writer.lang,
            status=SUCCESS if success else FAILED,
            success=success,
            progress=progress,
            category=task.category if task is not None else "",
            milestones=tracker.status() if tracker is not None else [],
            steps=n,
            terminated_by="replay",
            extra={"replay": {k: v for k, v in report.to_json().items() if k != "steps"}},
        )
        ep_writer.finish(episode_result, final=Frame.of(obs), device=device.info)
    return report


def _image_or_none(image: Any, k: int) -> Image.Image | None:
    try:
        return image(k)
    except HarnessError as e:
        log.warning("step %s: %s", k, e)
        return None


def _safe_distance(img: Image.Image, step: Any) -> float | None:
    try:
        return round(hash_distance(img, step.image()), 4)
    except HarnessError as e:
        log.warning("step %s: %s", step.index, e)
        return None


def _reason(rec: StepReplay, sim: ScreenSimilarity) -> str:
    if not rec.ok:
        return f"the action failed on the device: {rec.error or 'not ok'}"
    ov = "" if sim.element_overlap is None else f", element overlap {sim.element_overlap:.2f}"
    if sim.matched:
        return f"matches the recorded next screen (hash distance {sim.hash_distance:.2f}{ov})"
    why = f"differs from the recorded next screen (hash distance {sim.hash_distance:.2f} > {HASH_MATCH:.2f}{ov})"
    if rec.distance_before is not None and rec.distance_before <= HASH_MATCH < sim.hash_distance:
        why += "; the screen did not change (it still shows the recorded screen before the action)"
    return why


__all__ = [
    "replay_episode",
    "ReplayReport",
    "StepReplay",
    "Divergence",
    "ReplayError",
    "ScreenSimilarity",
    "compare_screen",
    "screen_hash",
    "hash_distance",
    "element_overlap",
    "ground_action",
    "Grounding",
    "recorded_target",
    "recorded_point",
    "tap_matches",
    "swipe_matches",
    "kind_desc",
    "finger_direction",
    "replay_task_id",
    "TAP_TOLERANCE",
    "TARGET_RADIUS",
    "HASH_MATCH",
    "HASH_LOOSE",
    "ELEMENT_MATCH",
    "IOU_MATCH",
]
