"""The `noop` agent: does nothing - HOME, then COMPLETE. A task or validator that gives it any progress or success
is unsound (it rewards doing nothing); `droidharness tasks check` plays it on every task, and
`droidharness run --agent noop` shows it on a whole suite (every score must be 0)."""

from __future__ import annotations

from typing import Any

from harness.actions import Complete, Home
from harness.agent import AgentStep, EpisodeContext, HistoryItem


class NoOpAgent:
    def __init__(self, name: str = "noop") -> None:
        self.name = name

    def reset(self, ctx: EpisodeContext) -> None:
        """Nothing to remember."""

    def act(self, observation: Any, history: list[HistoryItem]) -> AgentStep:
        if not history:
            return AgentStep(action=Home(), thought="noop: go home")
        return AgentStep(action=Complete(), thought="noop: claim the task is done")
