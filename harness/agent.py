"""The agent contract: what the runner gives an agent and what it gets back. Agents are plug-ins
(`harness.plugins`): the built-in ones in agents/ import this module, as a third-party agent does.

An agent sees one `Observation` per step plus the history of its own earlier steps and returns an `AgentStep`
holding one unified `Action` (or none, when the model's output could not be turned into a valid action). The
runner executes the action; agents know nothing of adb, tasks' milestones or scoring.

Failures (docs/scoring.md): invalid model output is NOT an exception: it is an `AgentStep(action=None,
invalid=True, error=...)`, an invalid step that uses one step of the budget. Any exception `act` raises (an
`AgentError`, a bug, the human closing stdin) ends the episode as the agent's failure, scored with the progress
reached. Only `harness.errors.InfrastructureError` (e.g. `EndpointError`: the model endpoint unusable after its
retries) is an infrastructure failure, retried and left out of the scores.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

from harness.actions import Action
from harness.errors import HarnessError

if TYPE_CHECKING:  # pragma: no cover - typing only
    from harness.observation import Observation


class AgentError(HarnessError):
    """The agent could not produce a step (names the agent and the step); the agent's failure, scored."""


@dataclass(frozen=True)
class Usage:
    """Token usage of one step (all model calls of the step, repairs included)."""

    prompt_tokens: int = 0
    completion_tokens: int = 0
    total_tokens: int = 0

    def __add__(self, other: Usage) -> Usage:
        return Usage(
            self.prompt_tokens + other.prompt_tokens,
            self.completion_tokens + other.completion_tokens,
            self.total_tokens + other.total_tokens,
        )


class TaskInfo(Protocol):
    """What every agent may read of the episode's task. The bundled tasks are `tasks.schema.Task`s (an agent that
    needs more of them, such as the reference solution, checks for one); a dataset episode or a plug-in's own task
    type only has to give these."""

    @property
    def id(self) -> str: ...

    @property
    def category(self) -> str: ...

    @property
    def apps(self) -> tuple[str, ...]: ...

    @property
    def max_steps(self) -> int: ...


@dataclass(frozen=True)
class EpisodeContext:
    """What an agent learns at the start of an episode."""

    task: TaskInfo
    lang: str
    instruction: str
    seed: int
    max_steps: int


@dataclass(frozen=True)
class AgentStep:
    """One step's decision. `action=None` means no valid action (the runner records it and moves on)."""

    action: Action | None
    thought: str = ""
    raw_output: str = ""  # the model's raw text (last attempt); "" for non-model agents
    usage: Usage = Usage()
    invalid: bool = False  # the output could not be parsed / validated (counted in reports)
    error: str | None = None  # why it was invalid / what failed
    repair_attempts: int = 0
    meta: dict[str, Any] = field(default_factory=dict)  # e.g. screen_mapping, model, prompt_hash, retries


@dataclass(frozen=True)
class HistoryItem:
    """A step already taken: what the agent decided and what executing it did."""

    step: int
    agent_step: AgentStep
    result: Any = None  # harness.observation.ActionResult | None


@runtime_checkable
class Agent(Protocol):
    """The agent protocol. `reset` once per episode, then `act` once per step."""

    name: str

    def reset(self, ctx: EpisodeContext) -> None: ...

    def act(self, observation: Observation, history: list[HistoryItem]) -> AgentStep: ...


def invalid_step(error: str, **kwargs: Any) -> AgentStep:
    """An `AgentStep` with no action, marked invalid, carrying `error`."""
    return AgentStep(action=None, invalid=True, error=error, **kwargs)


def describe_result(result: Any) -> str:
    """A short, model-friendly summary of a `harness.observation.ActionResult` (read duck-typed)."""
    if result is None:
        return ""
    if getattr(result, "ok", True) is False:
        return "FAILED" + (f": {result.error}" if getattr(result, "error", None) else "")
    parts: list[str] = []
    if getattr(result, "package", None):
        parts.append(f"opened {result.package}")
    if getattr(result, "readback_matches", None) is False:
        parts.append(f"the field now shows {getattr(result, 'readback', '')!r:.60}")
    if getattr(result, "settled", True) is False:
        parts.append("the screen was still changing")
    if getattr(result, "error", None):
        parts.append(str(result.error))
    return "; ".join(parts) or "ok"
