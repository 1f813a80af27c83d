"""The `random` agent: a seeded baseline. Same seed + same screens = same actions.

Each step picks, with fixed weights, among: clicking a visible interactable element, typing random ASCII into a
visible editable field, a scroll in a random direction, BACK, and (only from step `min_steps` on) COMPLETE.
The RNG is `random.Random(f"{ctx.seed}:{task id}")`, re-created at every `reset`.
"""

from __future__ import annotations

import random
import string
from typing import Any

from harness.actions import Back, Click, Complete, Scroll, TypeText
from harness.agent import AgentStep, EpisodeContext, HistoryItem

_ALPHABET = string.ascii_letters + string.digits + " "


class RandomAgent:
    def __init__(
        self,
        min_steps: int = 5,
        complete_prob: float = 0.05,
        click_weight: float = 0.6,
        type_weight: float = 0.1,
        scroll_weight: float = 0.15,
        back_weight: float = 0.1,
        max_text_len: int = 12,
        name: str = "random",
    ) -> None:
        if min_steps < 0 or not 0 <= complete_prob <= 1:
            raise ValueError("random agent: min_steps must be >= 0 and complete_prob in [0, 1]")
        self.name = name
        self.min_steps = min_steps
        self.complete_prob = complete_prob
        self.weights = {"click": click_weight, "type": type_weight, "scroll": scroll_weight, "back": back_weight}
        self.max_text_len = max(1, max_text_len)
        self._rng = random.Random(0)

    def reset(self, ctx: EpisodeContext) -> None:
        self._rng = random.Random(f"{ctx.seed}:{ctx.task.id}")

    def act(self, observation: Any, history: list[HistoryItem]) -> AgentStep:
        rng = self._rng
        step = len(history) + 1
        if step >= self.min_steps and rng.random() < self.complete_prob:
            return AgentStep(action=Complete(), thought=f"random: complete at step {step}")
        tree = observation.tree
        clickable = [e for e in tree.interactable() if e.clickable or e.long_clickable or e.checkable]
        editable = [e for e in tree.visible() if e.is_editable and e.enabled]
        options = {k: w for k, w in self.weights.items() if w > 0}
        if not clickable:
            options.pop("click", None)
        if not editable:
            options.pop("type", None)
        if not options:
            options = {"back": 1.0}
        kinds = sorted(options)
        kind = rng.choices(kinds, weights=[options[k] for k in kinds])[0]
        if kind == "click":
            el = rng.choice(clickable)
            action: Any = Click(element=el.index)
        elif kind == "type":
            el = rng.choice(editable)
            text = "".join(rng.choice(_ALPHABET) for _ in range(rng.randint(1, self.max_text_len))).strip() or "a"
            action = TypeText(element=el.index, text=text)
        elif kind == "scroll":
            action = Scroll(direction=rng.choice(("up", "down", "left", "right")))
        else:
            action = Back()
        return AgentStep(action=action, thought=f"random: {kind}")
