"""The episode loop: the only place that knows tasks, agents, devices, milestones and the recorder.

`run_episode` is small and pure in the android_world sense: it takes everything it uses as arguments, returns an
`EpisodeResult`, and touches the outside world only through the device, the agent and the (optional) writer.
`harness.run.suite.run_suite` runs many episodes over several devices.
"""

from __future__ import annotations

import logging
import time
import zlib
from collections.abc import Callable
from dataclasses import dataclass, replace
from functools import partial
from typing import Any

from pydantic import BaseModel

from agents.base import Agent, AgentStep, EpisodeContext, HistoryItem
from agents.qa_base import QAAgent
from harness.actions import Action, Answer, Complete, Impossible, parse_action
from harness.device.apps import role_packages
from harness.device.controller import Device
from harness.errors import ActionValidationError, HarnessError, InfrastructureError
from harness.observation import ActionResult, Observation
from harness.run.calls import AGENT_TIMEOUT, AgentTimeout, call_with_timeout
from harness.run.end_state import evaluate_end_state
from harness.run.milestones import MilestoneTracker, answer_matches
from harness.run.probes import ProbeAsker
from harness.run.start import prepare_start
from harness.run.state_check import judge_on
from harness.trajectory.result import AGENT_ERROR, FAILED, SUCCESS, EpisodeResult
from harness.trajectory.sink import Frame, StepEvent, TrajectorySink
from tasks.portable import resolve_task, task_roles
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


def _answer_of(action: Any) -> str | None:
    if isinstance(action, Answer):
        return action.text if action.text is not None else " ".join(map(str, action.elements or []))
    if isinstance(action, Complete):
        return action.answer
    return None


def _revalidate(action: Action) -> Action:
    """The action as the schema accepts it: an agent may hand over an object it built without validation
    (`model_construct`); what reaches a device is always validated. Raises `ActionValidationError`."""
    if not isinstance(action, BaseModel):
        raise ActionValidationError(f"{type(action).__name__} is not an action")
    try:
        return parse_action(action.model_dump(mode="python", warnings=False))
    except ActionValidationError:
        raise
    except Exception as e:  # noqa: BLE001 - a malformed object's dump can fail in many ways; all are invalid
        raise ActionValidationError(f"invalid action {type(action).__name__}: {e}") from None


def _apply(
    device: Device, agent_step: AgentStep, obs: Observation, step: int
) -> tuple[AgentStep, ActionResult | None, Observation]:
    """Execute the agent's action; returns the step as recorded, the action's result and the next observation
    (the settled screen, captured once by `Device.step`). An action that cannot apply to this observation
    (fails validation, an element index not on the screen, ...) is the agent's invalid step: recorded with why,
    the episode goes on and the agent sees the reason in its history; nothing was done, so the observation
    stands. Device failures propagate (infrastructure)."""
    if agent_step.action is None or agent_step.invalid:
        return agent_step, None, obs
    try:
        action = _revalidate(agent_step.action)
    except ActionValidationError as e:
        why = f"step {step}: {e}"
        return (
            replace(agent_step, action=None, invalid=True, error=why),
            ActionResult(action=None, ok=False, error=why),
            obs,
        )
    try:
        result, new_obs = device.step(action, obs, step)
        return agent_step, result, new_obs
    except ActionValidationError as e:
        why = str(e) if str(e).startswith(f"step {step}") else f"step {step}: {e}"
        return replace(agent_step, invalid=True, error=why), ActionResult(action=action, ok=False, error=why), obs


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
) -> EpisodeResult:
    """Run one task on one device with one agent (a fresh instance: see `harness.run.suite`).

    The failure taxonomy (docs/scoring.md): an `InfrastructureError` (device, adb server, transport, model
    endpoint) propagates: the caller retries on a fresh device, and this attempt's trajectory stays unfinished
    (moved aside by the retry). Anything else the agent causes is scored here: an exception or a timeout ends
    the episode as `agent_error` with the progress reached so far; an invalid or inapplicable action is an
    invalid step that uses one step of the budget. With a trajectory sink (the run directory's `EpisodeWriter`,
    or a stream to it), every step is recorded as it happens and the episode is finished (episode.json) before
    returning. With a `probe_agent`, the task's probes are asked on the screen where their milestone is first
    hit (`harness.run.probes`)."""
    roles = role_packages(device, task_roles(task))  # `@clock` -> this device's clock app
    task = resolve_task(task, roles)
    max_steps = limits.max_steps or task.max_steps
    tracker = MilestoneTracker(task.milestones, lang, state=judge_on(device))
    probes = ProbeAsker(task.probes, probe_agent, lang, limits.agent_timeout)
    result = EpisodeResult(
        task.id,
        lang,
        status=FAILED,
        category=task.category,
        apps=len(task.apps) or 1,
        milestones=tracker.status(),
        seed=seed,
        serial=device.serial,
    )
    if roles:
        result.extra["roles"] = roles  # episode.json: which package played each role on this device
    totals: dict[str, float] = {}
    prepare_start(device, task.start)
    history: list[HistoryItem] = []
    obs = device.observe()
    ctx = EpisodeContext(task=task, lang=lang, instruction=task.instruction_for(lang), seed=seed, max_steps=max_steps)
    try:
        agent.reset(ctx)
    except InfrastructureError:
        raise
    except Exception as e:  # noqa: BLE001 - anything the agent raises is the agent's failure
        result.status, result.terminated_by, result.error = AGENT_ERROR, "error", f"reset: {_describe(e)}"
    invalid_run = 0
    for step in range(1, max_steps + 1):
        if result.status == AGENT_ERROR:
            break
        t0 = time.perf_counter()
        try:
            agent_step = _call_with_timeout(partial(agent.act, obs, list(history)), limits.agent_timeout, step)
        except InfrastructureError:
            raise
        except Exception as e:  # noqa: BLE001 - an agent's exception or timeout is the agent's failure
            result.status, result.error = AGENT_ERROR, f"step {step}: {_describe(e)}"
            result.terminated_by = "timeout" if isinstance(e, AgentTimeout) else "error"
            break
        t_agent = time.perf_counter() - t0
        _add_usage(result, agent_step)
        t1 = time.perf_counter()
        agent_step, action_result, new_obs = _apply(device, agent_step, obs, step)
        t_act = action_result.timings.get("actuation", 0.0) if action_result else 0.0
        t_settle = action_result.timings.get("settle", 0.0) if action_result else 0.0
        t_capture = max(0.0, time.perf_counter() - t1 - t_act - t_settle) if new_obs is not obs else 0.0
        if agent_step.action is None or agent_step.invalid:
            result.invalid_steps += 1
            invalid_run += 1
        else:
            invalid_run = 0
        newly = tracker.update(new_obs, step)
        probes.on_hits(newly, new_obs, step)
        timings = {
            "agent": t_agent,
            "actuation": t_act,
            "settle": t_settle,
            "capture": t_capture,
            "total": time.perf_counter() - t0,
        }
        for k, v in timings.items():
            totals[k] = totals.get(k, 0.0) + v
        if sink is not None:
            sink.write_step(StepEvent(step, Frame.of(obs), agent_step, action_result, tracker.record(newly), timings))
        history.append(HistoryItem(step=step, agent_step=agent_step, result=action_result))
        result.steps = step
        obs = new_obs
        action = agent_step.action
        if not agent_step.invalid and isinstance(action, (Complete, Impossible, Answer)):
            result.terminated_by = action.type
            result.answer = _answer_of(action)
            break
        if limits.stop_on_invalid and invalid_run >= limits.stop_on_invalid:
            result.terminated_by = "invalid"
            break
    else:
        result.terminated_by = "max_steps"
    result.progress = tracker.progress
    result.milestones = tracker.status()
    result.timings = totals
    result.attempts = attempt
    result.probes = probes.records()
    _judge(result, task, tracker, lang, obs, device)
    if sink is not None:
        sink.finish(result, final=Frame.of(obs), device=device.info)
    return result


def _judge(
    result: EpisodeResult, task: Task, tracker: MilestoneTracker, lang: str, last: Observation, device: Device
) -> None:
    """SR: every milestone hit (latching), the end state still holding on the last screen / in the app's data,
    the expected answer given, and no agent error. Sets `success`, `status` and `end_state`."""
    if result.status == AGENT_ERROR:
        result.success = False
        return
    answered = task.expected_answer is None or answer_matches(task.expected_answer, result.answer, lang)
    held = True
    if tracker.complete and task.end_state:
        end = evaluate_end_state(task, lang, last, device)
        result.end_state = end.to_json()
        held = end.held
    result.success = tracker.complete and held and answered
    result.status = SUCCESS if result.success else FAILED


def _describe(e: BaseException) -> str:
    return str(e) if isinstance(e, HarnessError) else f"{type(e).__name__}: {e}"


def _add_usage(result: EpisodeResult, step: AgentStep) -> None:
    u = step.usage
    result.tokens["prompt"] += u.prompt_tokens
    result.tokens["completion"] += u.completion_tokens
    result.tokens["total"] += u.total_tokens
