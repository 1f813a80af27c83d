"""docs/gym.md's random policy as a function: a CLICK on one of the listed elements, a SCROLL up or down, or BACK,
drawn with `rng` from the observation's element list. What the benches time a step with (bench/step_cost.py,
bench/virtual_clock.py), and a baseline for anyone's env loop."""

from __future__ import annotations

import json
import random
import re

_INDEX = re.compile(r"^\[(\d+)\]", re.M)


def random_action(rng: random.Random, elements: str) -> str:
    """One random action's JSON text for a screen whose element list (`obs["elements"]`) is `elements`."""
    indices = [int(n) for n in _INDEX.findall(elements)]
    action = rng.choice(
        [
            {"type": "CLICK", "element": rng.choice(indices)} if indices else {"type": "BACK"},
            {"type": "SCROLL", "direction": rng.choice(["up", "down"])},
            {"type": "BACK"},
        ]
    )
    return json.dumps(action)


__all__ = ["random_action"]
