"""The episode loop: the only place that knows tasks, agents, devices, milestones and the recorder.

`run_episode` is small and pure in the android_world sense: it takes everything it uses as arguments, returns an
`EpisodeResult`, and touches the outside world only through the device, the agent and the (optional) writer.
`harness.run.orchestration.suite.run_suite` runs many episodes over several devices. A step - the action executed,
scored live, recorded - is `harness.run.loop.session.EpisodeSession`'s, the same for an agent here as for a Gym policy
or an MCP client.
"""

from __future__ import annotations

import logging
import time
import zlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import partial

from harness.agent import Agent, AgentStep
from harness.device.controller import Device
from harness.errors import InfrastructureError, describe_error
from harness.perturbation import PerturbationRecord, PerturbPlan
from harness.qa_agent import QAAgent
from harness.run.loop.calls import AGENT_TIMEOUT, AgentTimeout, call_with_timeout
from harness.run.loop.outside import OutsideJudge
from harness.run.loop.session import EpisodeSession
from harness.trajectory.result import AGENT_ERROR, EpisodeResult
from harness.trajectory.sink import TrajectorySink
from tasks.schema import Task

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Limits:
    max_steps: int | None = None  # None: the task's own max_steps
    agent_timeout: float = AGENT_TIMEOUT  # seconds per agent.act call
    stop_on_invalid: int = 0  # stop after this many consecutive invalid outputs (0 = never)


def episode_seed(base_seed: int, task_id: str, lang: str) -> int:
    """Deterministic per-episode seed (stable across runs and Python processes)."""
    return (base_seed * 1_000_003 + zlib.crc32(f"{task_id}@{lang}".encode())) % (2**31)


def _call_with_timeout(fn: Callable[[], AgentStep], timeout: float, step: int) -> AgentStep:
    try:
        return call_with_timeout(fn, timeout, f"step {step}")
    except AgentTimeout:
        raise AgentTimeout(f"step {step}: the agent gave no action within {timeout:g} s") from None


def run_episode(
    task: Task,
    agent: Agent,
    device: Device,
    lang: str = "en",
    limits: Limits = Limits(),
    seed: int = 0,
    sink: TrajectorySink | None = None,
    attempt: int = 1,
    probe_agent: QAAgent | None = None,
    perturb: PerturbPlan | None = None,
    leased: Sequence[PerturbationRecord] = (),
    outside: OutsideJudge | None = None,
) -> EpisodeResult:
    """Run one task on one device with one agent (a fresh instance: see `harness.run.orchestration.suite`).

    The failure taxonomy (docs/scoring.md): an `InfrastructureError` (device, adb server, transport, model
    endpoint) propagates: the caller retries on a fresh device, and this attempt's trajectory stays unfinished
    (moved aside by the retry). Anything else the agent causes is scored here: an exception or a timeout ends
    the episode as `agent_error` with the progress reached so far; an invalid or inapplicable action is an
    invalid step that uses one step of the budget. With a trajectory sink (the run directory's `EpisodeWriter`,
    or a stream to it), every step is recorded as it happens and the episode is finished (episode.json) before
    returning. With a `probe_agent`, the task's probes are asked on the screen where their milestone is first
    hit (`harness.run.loop.probes`). With a `perturb` plan the episode runs under its perturbations (the session's;
    `leased`: what was applied when the device was leased) and they are put back even when it fails. With an
    `outside` judge the task is an outside suite's: its own set-up and verdict (harness.run.loop.outside)."""
    session = EpisodeSession(
        task,
        device,
        lang,
        max_steps=limits.max_steps,
        seed=seed,
        sink=sink,
        attempt=attempt,
        probe_agent=probe_agent,
        agent_timeout=limits.agent_timeout,
        perturb=perturb,
        leased=leased,
        outside=outside,
    )
    try:
        return _drive(session, agent, limits)
    finally:
        session.release()  # an episode that failed on the infrastructure: its perturbations put back


def _drive(session: EpisodeSession, agent: Agent, limits: Limits) -> EpisodeResult:
    result = session.result
    session.begin()
    try:
        agent.reset(session.context)
    except InfrastructureError:
        raise
    except Exception as e:  # noqa: BLE001 - anything the agent raises is the agent's failure
        session.fail(f"reset: {describe_error(e)}")
    for step in range(1, session.max_steps + 1):
        if result.status == AGENT_ERROR:
            break
        t0 = time.perf_counter()
        try:
            act = partial(agent.act, session.observation, list(session.history))
            agent_step = _call_with_timeout(act, limits.agent_timeout, step)
        except InfrastructureError:
            raise
        except Exception as e:  # noqa: BLE001 - an agent's exception or timeout is the agent's failure
            session.fail(e, step, "timeout" if isinstance(e, AgentTimeout) else "error")
            break
        outcome = session.apply(agent_step, agent_seconds=time.perf_counter() - t0)
        if outcome.terminal:
            break
        if limits.stop_on_invalid and session.invalid_run >= limits.stop_on_invalid:
            result.terminated_by = "invalid"
            break
    else:
        result.terminated_by = "max_steps"
    return session.finish()
