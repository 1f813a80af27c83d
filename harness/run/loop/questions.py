"""Asking screen questions on live devices: reach a question's app state (start state, then its reference steps)
and ask a QA agent under a deadline; the answer is scored by `harness.scoring.questions`. An exception or a
timeout of the agent is its failure ("no answer", the error kept); an `InfrastructureError` propagates.
"""

from __future__ import annotations

import time
from functools import partial

from harness.device.controller import Device
from harness.errors import InfrastructureError
from harness.observation import Observation
from harness.qa_agent import QAAgent, QAAnswer
from harness.run.loop.calls import AGENT_TIMEOUT, call_with_timeout
from harness.run.loop.start import prepare_start
from harness.scoring.questions import QAResult, ground_truth, score_question
from tasks.locate import resolve_step
from tasks.qa_suite import QAQuestion


def reach(question: QAQuestion, device: Device, lang: str) -> Observation:
    """Put the device in the question's state: start state, then the reference steps (locators resolved live)."""
    prepare_start(device, question.start)
    obs = device.observe()
    for n, step in enumerate(question.steps, 1):
        _, obs = device.step(resolve_step(step, obs, lang, n), obs)
    return obs


def call_agent(
    agent: QAAgent, obs: Observation, question: str, lang: str, timeout: float = AGENT_TIMEOUT
) -> tuple[QAAnswer, bool, float]:
    """(answer, whether the agent failed, seconds). An exception of the agent, or no answer within `timeout`
    (the call is abandoned), is its failure: "no answer" with the error kept. An `InfrastructureError` (the
    endpoint unusable after its retries) propagates."""
    t0 = time.perf_counter()
    try:
        ans = call_with_timeout(partial(agent.answer, obs, question, lang), timeout, "the QA agent")
        return ans, False, time.perf_counter() - t0
    except InfrastructureError:
        raise
    except Exception as e:  # noqa: BLE001 - whatever the agent raises is the agent's failure, scored
        return QAAnswer(no_answer=True, error=f"{type(e).__name__}: {e}"), True, time.perf_counter() - t0


def ask(question: QAQuestion, agent: QAAgent, device: Device, lang: str) -> QAResult:
    obs = reach(question, device, lang)
    gt = ground_truth(question, obs, lang)
    ans, raised, _ = call_agent(agent, obs, question.question[lang], lang)
    return score_question(question, lang, obs, gt, ans, raised)
