"""`call_with_timeout`: agent calls on cached daemon threads, a hung call abandoned at its deadline."""

from __future__ import annotations

import threading

import pytest

from harness.run.loop.calls import AgentTimeout, call_with_timeout


def test_successive_calls_reuse_a_thread() -> None:
    """A call made after the previous one returned runs on the thread that ran it (no new thread per step)."""
    first = call_with_timeout(threading.current_thread, 5.0, "step 1")
    second = call_with_timeout(threading.current_thread, 5.0, "step 2")
    assert first is second
    assert first is not threading.current_thread()
    assert first.daemon


def test_a_hung_call_is_abandoned_and_the_next_call_runs_on_another_thread() -> None:
    release = threading.Event()
    hung: list[threading.Thread] = []

    def hang() -> None:
        hung.append(threading.current_thread())
        release.wait(30)

    try:
        with pytest.raises(AgentTimeout, match=r"step 7: the agent gave no answer within 0.2 s"):
            call_with_timeout(hang, 0.2, "step 7")
        assert hung and hung[0].is_alive() and hung[0].name == "agent-call-step 7"
        after = call_with_timeout(threading.current_thread, 5.0, "step 8")
        assert after is not hung[0]
    finally:
        release.set()


def test_the_agents_exception_is_raised_in_the_callers_thread() -> None:
    class Broken(RuntimeError):
        pass

    def fail() -> None:
        raise Broken("model output was not JSON")

    with pytest.raises(Broken, match="not JSON"):
        call_with_timeout(fail, 5.0, "step 1")
    assert call_with_timeout(lambda: 42, 5.0, "step 2") == 42  # the thread that raised takes the next call
