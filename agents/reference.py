"""The `reference` agent: plays a task's reference solution (or any list of unified actions), one per step.

A reference step is a unified action whose target may be a `Locator` instead of an index:
`{"type": "CLICK", "locate": {"resource_id": "fab_add"}}`. At run time the locator resolves to the first
matching visible element of the live screen in reading order (`nth` picks a later match), matched with
`harness.run.judge.milestones.element_matches` and the locator's `as_match()`, and the step becomes the same action with
`element=<index>` (CLICK, LONG_PRESS, TYPE, SCROLL). A locator that finds nothing gives an invalid step whose
error names the step and the locator; the agent then moves on (the runner counts it).

After the last step the agent answers COMPLETE (unless the list already ended with a terminal action:
COMPLETE, IMPOSSIBLE or ANSWER, which is then played as is).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from pydantic import ValidationError

from harness.actions import Action, Complete, describe, parse_action
from harness.agent import AgentError, AgentStep, EpisodeContext, HistoryItem, invalid_step
from harness.errors import ActionValidationError, ConfigError
from tasks.locate import resolve_step
from tasks.schema import ReferenceStep, Task


class ReferenceAgent:
    """`ReferenceAgent()` plays `task.reference[lang]`; `ReferenceAgent(actions=[...])` plays the given steps
    (unified `Action`s, action dicts, or `ReferenceStep`s) whatever the task."""

    def __init__(self, actions: Iterable[Any] | None = None, name: str = "reference") -> None:
        self.name = name
        self._given = None if actions is None else [self._coerce(a, i) for i, a in enumerate(actions, 1)]
        self._steps: list[ReferenceStep | Action] = []
        self._pos = 0
        self._lang = "en"

    @staticmethod
    def _coerce(item: Any, n: int) -> ReferenceStep | Action:
        if isinstance(item, ReferenceStep):
            return item
        if isinstance(item, dict):
            if "locate" in item:
                try:
                    return ReferenceStep.model_validate(item)
                except ValidationError as exc:
                    raise ConfigError(f"reference agent: step {n}: invalid reference step: {exc}") from None
            try:
                return parse_action(item)
            except ActionValidationError as exc:
                raise ConfigError(f"reference agent: step {n}: {exc}") from None
        if hasattr(item, "type") and hasattr(item, "model_dump"):
            return item  # already an Action
        raise ConfigError(
            f"reference agent: step {n}: expected an action or a reference step, got {type(item).__name__}"
        )

    def reset(self, ctx: EpisodeContext) -> None:
        self._lang = ctx.lang
        self._pos = 0
        if self._given is not None:
            self._steps = list(self._given)
            return
        if not isinstance(ctx.task, Task):
            raise AgentError(
                f"reference agent: task {ctx.task.id} is a {type(ctx.task).__name__}, not a droidharness task: "
                "it has no reference solution"
            )
        reference = ctx.task.reference
        steps = reference.get(ctx.lang)
        if steps is None:
            raise AgentError(
                f"reference agent: task {ctx.task.id} has no reference solution for language "
                f"{ctx.lang!r} (has: {', '.join(reference) or 'none'})"
            )
        self._steps = list(steps)

    def act(self, observation: Any, history: list[HistoryItem]) -> AgentStep:
        n = self._pos + 1
        if self._pos >= len(self._steps):
            # past the end: COMPLETE (a terminal last step has already ended the episode in a runner)
            return AgentStep(
                action=Complete(),
                thought="reference solution finished",
                meta={"reference_step": None, "reference_steps": len(self._steps)},
            )
        step = self._steps[self._pos]
        self._pos += 1
        meta = {"reference_step": n, "reference_steps": len(self._steps)}
        if not isinstance(step, ReferenceStep):
            return AgentStep(action=step, thought=f"reference step {n}: {describe(step)}", meta=meta)
        try:
            action = resolve_step(step, observation, self._lang, n)
        except ActionValidationError as exc:
            return invalid_step(str(exc), meta=meta)
        return AgentStep(action=action, thought=f"reference step {n}: {describe(action)}", meta=meta)


__all__ = ["ReferenceAgent"]
