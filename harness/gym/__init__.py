"""The Gymnasium environment `droidharness/Task-v0` (harness/gym/env.py); importing this package registers it.

    import gymnasium
    import harness.gym  # noqa: F401 - registers droidharness/Task-v0
    env = gymnasium.make("droidharness/Task-v0", task="notes-create", lang="en")

docs/gym.md has the contract and a random-policy and a scripted example.
"""

from __future__ import annotations

import gymnasium

ENV_ID = "droidharness/Task-v0"

if ENV_ID not in gymnasium.registry:
    gymnasium.register(id=ENV_ID, entry_point="harness.gym.env:TaskEnv")

__all__ = ["ENV_ID"]
