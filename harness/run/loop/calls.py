"""Calls into an agent under a deadline: every agent call of a live run, a probe, a QA question and offline
evaluation goes through `call_with_timeout`, so a hung agent is abandoned the same way everywhere.

A call runs on a daemon thread taken from the threads that finished a call before (`ServiceThreads`, the cached
pool adbd's services run on): one call per step, and `threading.Thread.start()` for each would wait for a new
thread to be created and scheduled before the agent even starts - on a busy machine, a wait for a core on every
step. A hung call keeps its thread; the next call gets another one.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any, TypeVar

from emulator.virtual.workers import ServiceThreads
from harness.agent import AgentError

T = TypeVar("T")


AGENT_TIMEOUT = 180.0  # seconds an agent may take per call (a step, a question, a reset): every loop's default

_THREADS = ServiceThreads("agent-call")


class AgentTimeout(AgentError):
    """The agent did not answer within the per-call timeout."""


def call_with_timeout(fn: Callable[[], T], timeout: float, what: str) -> T:
    """Run an agent's call in a daemon thread and stop waiting at the deadline (a hung call is abandoned,
    never waited for, and cannot keep the process alive): `AgentTimeout` naming `what`."""
    box: dict[str, Any] = {}
    done = threading.Event()

    def call() -> None:
        threading.current_thread().name = f"agent-call-{what}"  # what a stack dump of a hung call shows
        try:
            box["value"] = fn()
        except BaseException as e:  # noqa: BLE001 - re-raised in the caller's thread
            box["error"] = e
        finally:
            done.set()

    _THREADS.run(call)
    if not done.wait(timeout):
        raise AgentTimeout(f"{what}: the agent gave no answer within {timeout:g} s")
    if "error" in box:
        raise box["error"]
    value: T = box["value"]
    return value
