"""Calls into an agent under a deadline: every agent call of a live run, a probe, a QA question and offline
evaluation goes through `call_with_timeout`, so a hung agent is abandoned the same way everywhere.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any, TypeVar

from agents.base import AgentError

T = TypeVar("T")


AGENT_TIMEOUT = 180.0  # seconds an agent may take per call (a step, a question, a reset): every loop's default


class AgentTimeout(AgentError):
    """The agent did not answer within the per-call timeout."""


def call_with_timeout(fn: Callable[[], T], timeout: float, what: str) -> T:
    """Run an agent's call in a daemon thread and stop waiting at the deadline (a hung call is abandoned,
    never waited for, and cannot keep the process alive): `AgentTimeout` naming `what`."""
    box: dict[str, Any] = {}

    def call() -> None:
        try:
            box["value"] = fn()
        except BaseException as e:  # noqa: BLE001 - re-raised in the caller's thread
            box["error"] = e

    worker = threading.Thread(target=call, name=f"agent-call-{what}", daemon=True)
    worker.start()
    worker.join(timeout)
    if worker.is_alive():
        raise AgentTimeout(f"{what}: the agent gave no answer within {timeout:g} s")
    if "error" in box:
        raise box["error"]
    value: T = box["value"]
    return value
