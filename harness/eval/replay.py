"""Replay a recorded dataset episode (`tasks.datasets.DatasetEpisode`) on a live device, re-grounding taps on the
live hierarchy and comparing every screen reached with the recorded one, by the replay rules
(`harness.eval.replay_rules`: recorded target, tap / swipe matching, screen comparison, re-grounding).

    report = replay_episode(episode, device, writer=run)        # run: a RunWriter (or an EpisodeWriter)
    report.fidelity, report.first_divergence, report.steps[k].hash_distance

THE LOOP'S RULES
- Fidelity = matched steps / compared steps. Compared steps: executed, non-terminal actions that have a
  recorded next screen. The FIRST DIVERGENCE is the first compared step that did not match (or whose action
  failed on the device). Terminal actions (COMPLETE, IMPOSSIBLE, ANSWER) are recorded but change nothing.
- WAIT plays `min(duration, max_wait)` seconds.
"""

from __future__ import annotations

import logging
import re
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from PIL import Image

from harness import actions as A
from harness.agent import AgentStep
from harness.errors import HarnessError
from harness.eval.replay_rules import (
    BAR_CROP,
    CONFIRM_SLACK,
    ELEMENT_MATCH,
    HASH_LOOSE,
    HASH_MATCH,
    IOU_MATCH,
    TAP_TOLERANCE,
    TARGET_RADIUS,
    Grounding,
    ScreenSimilarity,
    compare_screen,
    ground_action,
    hash_distance,
)
from harness.run.judge.milestones import MilestoneTracker
from harness.trajectory.episode_writer import EpisodeWriter
from harness.trajectory.result import FAILED, SUCCESS, EpisodeResult
from harness.trajectory.sink import Frame, StepEvent
from harness.trajectory.writer import RunWriter

if TYPE_CHECKING:  # pragma: no cover - typing only
    from harness.device.controller import Device
    from tasks.datasets.base import DatasetEpisode, DatasetStep
    from tasks.schema import Task

log = logging.getLogger(__name__)

TERMINAL = ("COMPLETE", "IMPOSSIBLE", "ANSWER")


class ReplayError(HarnessError):
    """An episode cannot be replayed (no steps, a broken screenshot, ...); the message names the episode."""


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
def replay_task_id(episode: DatasetEpisode) -> str:
    return re.sub(r"[^A-Za-z0-9._-]+", "_", f"{episode.dataset}-{episode.episode_id}")


def _task_of(episode: DatasetEpisode) -> Task | None:
    try:
        return episode.to_task()
    except (ImportError, HarnessError) as e:  # a loader still missing, or an episode without usable milestones
        log.warning("episode %s: no milestones: %s", episode.episode_id, e)
        return None


def _played(action: A.Action, max_wait: float) -> A.Action:
    if isinstance(action, A.Wait) and action.duration > max_wait:
        return A.Wait(duration=max_wait)
    return action


def replay_episode(
    episode: DatasetEpisode,
    device: Device,
    *,
    regrounding: bool = True,
    writer: RunWriter | EpisodeWriter | None = None,
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
    ep_writer: EpisodeWriter | None = None
    if isinstance(writer, RunWriter):
        ep_writer = writer.episode(
            task.id if task is not None else replay_task_id(episode),
            lang,
            category=task.category if task is not None else None,
            instruction=episode.instruction,
        )
    else:
        ep_writer = writer
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
        action = _played(g.action if g.action is not None else step.action, max_wait)  # never None: the step has one
        rec.executed, rec.regrounded, rec.grounding = A.describe(action), g.regrounded, g.note
        t1 = time.perf_counter()
        result, new_obs = device.step(action, obs)  # the settled screen, captured once
        rec.ok, rec.error = bool(result.ok), result.error
        done = result.timings
        t_capture = max(0.0, time.perf_counter() - t1 - done.get("actuation", 0.0) - done.get("settle", 0.0))
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
                "actuation": done.get("actuation", 0.0),
                "settle": done.get("settle", 0.0),
                "capture": t_capture,
                "total": time.perf_counter() - t0,
                "device": done.get("device", 0.0),
                "wall": done.get("wall", 0.0),
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


def _image_or_none(image: Callable[[int], Image.Image], k: int) -> Image.Image | None:
    try:
        return image(k)
    except HarnessError as e:
        log.warning("step %s: %s", k, e)
        return None


def _safe_distance(img: Image.Image, step: DatasetStep) -> float | None:
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
    "replay_task_id",
]
