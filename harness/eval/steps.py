"""A recorded dataset step as an agent sees it, and the agent's answer as the dataset's record.

- `observation_for(step, episode)`: the recorded screenshot, the step's annotated elements as a flat `UITree`
  (`tree_from_elements`: AitW OCR / icon boxes, AITZ `ui_positions`; none for GUI Odyssey and AndroidLens);
- `task_for(episode)`: the `Task` for the agent's `EpisodeContext` (the episode's own milestones when it records
  some, AndroidLens; else a minimal one);
- `predicted_action(agent_step)`: the action of an agent's answer as a live run accepts it (validated by the
  schema), None for an invalid answer;
- `resolve_targets` / `native_prediction`: element-index targets -> the element's centre, ANSWER -> COMPLETE, then
  the dataset's record via its adapter (`DatasetAdapter.from_unified`); None when the dataset cannot express it.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel

from harness import coords
from harness.actions import Action, Answer, Click, Complete, LongPress, Point, Scroll, TypeText, parse_action
from harness.agent import AgentStep
from harness.errors import ActionValidationError, HarnessError
from harness.hierarchy import UIElement, UITree
from harness.observation import Observation
from tasks.datasets.adapter import DatasetAdapter
from tasks.datasets.errors import DatasetError
from tasks.schema import LANGS, Milestone, MilestoneGroup, ScreenCheck, Task


def tree_from_elements(elements: Any, source: str = "<dataset step>") -> UITree:
    """Annotated `UIBox`es -> a flat `UITree` (one window root per box, clickable, in the given order).

    `text` is the box's OCR / UI text; for icon boxes (`kind` ICON_*) without text the icon name
    (e.g. "home" for ICON_HOME) goes into `content_desc`; `class_name` is the annotation kind."""
    out = []
    for i, b in enumerate(elements):
        kind = str(getattr(b, "kind", "") or "")
        desc = kind[5:].lower().replace("_", " ") if kind.upper().startswith("ICON_") and not b.text else ""
        l, t, r, bt = (int(v) for v in b.bounds)
        out.append(
            UIElement(
                index=i,
                bounds=(l, t, r, bt),
                text=b.text or "",
                content_desc=desc,
                class_name=kind,
                clickable=True,
                enabled=True,
            )
        )
    return UITree(out, 0, source)


def observation_for(step: Any, episode: Any) -> Observation:
    """The `Observation` an agent sees at a recorded step (screenshot decoded now)."""
    img = step.image()
    size = (step.width, step.height) if step.width and step.height else img.size
    activity = str(step.extras.get("current_activity") or "") if isinstance(step.extras, dict) else ""
    return Observation(
        screenshot=img,
        tree=tree_from_elements(step.elements, f"{episode.episode_id}#{step.index}"),
        xml="",
        package=activity.split("/")[0] if "/" in activity else "",
        activity=activity,
        size=tuple(size),
        rotation=0,
        paths={"screenshot": "dataset", "hierarchy": "dataset"},
    )


def task_for(episode: Any) -> Task:
    """A `Task` for `EpisodeContext`: the episode's recorded milestones as one (AndroidLens), else a minimal one."""
    try:
        t = episode.to_task()
        if t is not None:
            return t
    except HarnessError:
        pass
    lang = episode.lang if episode.lang in LANGS else "en"
    safe = "".join(c if c.isalnum() or c in "_.-" else "_" for c in f"{episode.dataset}-{episode.episode_id}")
    return Task(
        id=safe,
        instruction={lang: episode.instruction},
        category="1-1",
        max_steps=max(1, min(200, len(episode.steps))),
        milestones=MilestoneGroup(
            children=(
                Milestone(
                    id="offline", sub_target="offline evaluation", check=ScreenCheck(package="offline.evaluation")
                ),
            )
        ),
        tags=("offline", episode.dataset),
    )


def predicted_action(answer: Any) -> tuple[Action | None, str | None]:
    """(action, why it is invalid): the action of an agent's answer as the live loop accepts it -- an `AgentStep`
    not marked invalid whose action the schema validates (an object built without validation is checked again);
    anything else is an invalid answer (None) with the reason, or None without one when the agent said so."""
    if not isinstance(answer, AgentStep):
        return None, f"the agent returned {type(answer).__name__}, not an AgentStep"
    action = answer.action
    if action is None or answer.invalid:
        return None, None
    if not isinstance(action, BaseModel):
        return None, f"{type(action).__name__} is not an action"
    try:
        return parse_action(action.model_dump(mode="python", warnings=False)), None
    except Exception as e:  # noqa: BLE001 - a malformed object's dump can fail in many ways; all are invalid
        return None, f"invalid action {type(action).__name__}: {e}"


def resolve_targets(action: Action, step: Any) -> Action:
    """Element-index targets -> the element's centre point (TYPE keeps no target); ANSWER -> COMPLETE(answer).

    Raises ActionValidationError for an element index the step does not have."""
    if isinstance(action, Answer):
        return Complete(answer=action.text)
    el = getattr(action, "element", None)
    if el is None or isinstance(action, Scroll):
        return action
    if el >= len(step.elements):
        raise ActionValidationError(f"element [{el}] does not exist (the step has {len(step.elements)} elements)")
    if isinstance(action, TypeText):
        return action.model_copy(update={"element": None})
    l, t, r, b = step.elements[el].bounds
    w, h = step.width, step.height
    cx = min(max((l + r) // 2, 0), w - 1)
    cy = min(max((t + b) // 2, 0), h - 1)
    x, y = coords.from_pixels((cx, cy), (w, h))
    return action.model_copy(update={"element": None, "point": Point(x=x, y=y)})


def native_prediction(dataset: DatasetAdapter, action: Action | None, step: Any) -> dict[str, Any] | None:
    """A predicted unified action as the dataset's record (None = no match: invalid / not expressible)."""
    if action is None:
        return None
    try:
        act = resolve_targets(action, step)
        if isinstance(act, (Click, LongPress)) and act.point is None:
            return None
        return dataset.from_unified(act, dataset.size_template(step))
    except (DatasetError, ActionValidationError, ValueError):
        return None
