"""One episode driven a step at a time: the engine of the episode loop, and of every interface an outside
caller drives (the Gymnasium environment, the MCP server).

`run_episode` (harness/run/loop/episode.py) asks an agent for each step; a Gym policy or an MCP client hands the step
in from outside. Both go through this one session, so a step is the same everywhere: the action validated as the
schema accepts it, executed by `Device.step` (an action that cannot apply is an invalid step, never an
exception), milestones scored live on the settled screen, probes asked where their milestone is hit, the step
recorded into the trajectory sink, and at the end the end state judged for SR as in a run.

    session = EpisodeSession(task, device, lang, seed=seed, sink=episode_writer)
    obs = session.begin()                      # roles resolved, start state put on the device, first screen
    outcome = session.apply(AgentStep(action=Click(element=12)))
    outcome.newly, outcome.progress, outcome.invalid, outcome.terminal
    result = session.finish()                  # end state judged, episode.json written (the sink's finish)

With a `PerturbPlan` (docs/robustness.md) the episode runs under its perturbations (harness.run.loop.perturb): the
screen conditions put on after the start state and before the first screen, the notification posted before the
screen of its step, everything put back at the end (`finish`, or `release` when the episode is abandoned), and
`result.perturbations` saying what was applied and why not.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from pydantic import BaseModel

from harness.actions import TERMINAL_TYPES, Action, Answer, Complete, Impossible, parse_action
from harness.agent import AgentStep, EpisodeContext, HistoryItem
from harness.device.apps import role_packages
from harness.device.controller import Device
from harness.errors import ActionValidationError, HarnessError, describe_error
from harness.observation import ActionResult, Observation
from harness.perturbation import PerturbationRecord, PerturbPlan, system_language
from harness.qa_agent import QAAgent
from harness.run.judge.end_state import evaluate_end_state
from harness.run.judge.milestones import MilestoneTracker, answer_matches
from harness.run.judge.state_check import judge_on
from harness.run.loop.calls import AGENT_TIMEOUT
from harness.run.loop.outside import OutsideJudge
from harness.run.loop.perturb import EpisodePerturbations
from harness.run.loop.probes import ProbeAsker
from harness.run.loop.start import prepare_start
from harness.trajectory.records import STEP_WALL
from harness.trajectory.result import AGENT_ERROR, FAILED, SUCCESS, EpisodeResult
from harness.trajectory.sink import Frame, StepEvent, TrajectorySink
from tasks.portable import resolve_task, task_roles
from tasks.schema import Task

log = logging.getLogger(__name__)


def answer_of(action: Any) -> str | None:
    """The answer a terminal action gives (ANSWER's text or elements, COMPLETE's answer), else None."""
    if isinstance(action, Answer):
        return action.text if action.text is not None else " ".join(map(str, action.elements or []))
    if isinstance(action, Complete):
        return action.answer
    return None


def revalidate(action: Action) -> Action:
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


def apply_step(
    device: Device, agent_step: AgentStep, obs: Observation, step: int
) -> tuple[AgentStep, ActionResult | None, Observation]:
    """Execute the step's action; returns the step as recorded, the action's result and the next observation
    (the settled screen, captured once by `Device.step`). An action that cannot apply to this observation
    (fails validation, an element index not on the screen, ...) is an invalid step: recorded with why, the
    episode goes on; nothing was done, so the observation stands. Device failures propagate (infrastructure)."""
    if agent_step.action is None or agent_step.invalid:
        return agent_step, None, obs
    try:
        action = revalidate(agent_step.action)
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


@dataclass(frozen=True)
class StepOutcome:
    """What one applied step did: the step as recorded, its result, the screen after it and the scoring."""

    step: int
    agent_step: AgentStep
    result: ActionResult | None  # None: nothing was executed (invalid, or no action)
    observation: Observation  # the settled screen after the step (the one before it when nothing was done)
    newly: list[str]  # milestones first hit at this step
    progress: float  # progress after the step
    progress_before: float
    invalid: bool
    terminal: bool  # a valid COMPLETE / IMPOSSIBLE / ANSWER ended the episode
    timings: dict[str, float] = field(default_factory=dict)


class EpisodeSession:
    """One episode of `task` on `device`, a step at a time (see the module docstring). `max_steps` None: the
    task's own budget; the caller decides when the episode ends (`finish`). `perturb`: the perturbations it runs
    under; `leased`: what of them was applied when the device was leased (the locale)."""

    def __init__(
        self,
        task: Task,
        device: Device,
        lang: str = "en",
        *,
        max_steps: int | None = None,
        seed: int = 0,
        sink: TrajectorySink | None = None,
        attempt: int = 1,
        probe_agent: QAAgent | None = None,
        agent_timeout: float = AGENT_TIMEOUT,
        perturb: PerturbPlan | None = None,
        leased: Sequence[PerturbationRecord] = (),
        outside: OutsideJudge | None = None,
    ) -> None:
        roles = role_packages(device, task_roles(task))  # `@clock` -> this device's clock app
        self.task = resolve_task(task, roles)
        self.device, self.lang, self.seed, self.sink, self.attempt = device, lang, seed, sink, attempt
        self.max_steps = max_steps or self.task.max_steps
        self.outside = outside  # an outside suite's set-up and judge instead of the task's own (run.loop.outside)
        self.alt = system_language(leased)  # under `locale=`: the device's labels speak it, and are scored in it
        self.tracker = MilestoneTracker(self.task.milestones, lang, state=judge_on(device), alt=self.alt)
        self.probes = ProbeAsker(self.task.probes, probe_agent, lang, agent_timeout)
        self.result = EpisodeResult(
            self.task.id,
            lang,
            status=FAILED,
            category=self.task.category,
            apps=len(self.task.apps) or 1,
            milestones=self.tracker.status(),
            seed=seed,
            serial=device.serial,
        )
        if roles:
            self.result.extra["roles"] = roles  # episode.json: which package played each role on this device
        self.perturbations = EpisodePerturbations(perturb, self.task, device, lang, seed, leased) if perturb else None
        self.totals: dict[str, float] = {}
        self.history: list[HistoryItem] = []
        self.invalid_run = 0  # consecutive invalid steps
        self.steps = 0
        self.finished = False
        self._obs: Observation | None = None

    @property
    def instruction(self) -> str:
        return self.task.instruction_for(self.lang)

    @property
    def context(self) -> EpisodeContext:
        """What an agent learns at the start of the episode."""
        return EpisodeContext(
            task=self.task, lang=self.lang, instruction=self.instruction, seed=self.seed, max_steps=self.max_steps
        )

    @property
    def observation(self) -> Observation:
        """The current screen (after `begin`: the first one, then the one after the latest step)."""
        if self._obs is None:
            raise HarnessError(f"episode {self.task.id} [{self.lang}]: not begun")
        return self._obs

    @property
    def progress(self) -> float:
        return self.tracker.progress

    @property
    def perturbation_records(self) -> list[PerturbationRecord]:
        """What the perturbations did so far (all of them once finished: `result.perturbations`)."""
        if self.finished or self.perturbations is None:
            return list(self.result.perturbations)
        return self.perturbations.so_far

    @property
    def budget_left(self) -> int:
        return max(0, self.max_steps - self.steps)

    def begin(self) -> Observation:
        """Put the task's start state on the device, then its perturbations' screen conditions, and capture the
        first screen (not scored: 0% progress)."""
        if self.outside is not None:
            self.outside.set_up()
        else:
            prepare_start(self.device, self.task.start)
        if self.perturbations is not None:
            self.perturbations.start(self.max_steps)
            if self.perturbations.due(1):
                self.perturbations.interrupt(1)
        self._obs = self.device.observe()
        return self._obs

    def apply(self, agent_step: AgentStep, agent_seconds: float = 0.0) -> StepOutcome:
        """Execute one step (the next of the budget), score it live and record it. An action that cannot apply
        is an invalid step that uses the step; a device failure propagates (`InfrastructureError`)."""
        obs = self.observation
        if self.finished:
            raise HarnessError(f"episode {self.task.id} [{self.lang}]: already finished")
        step = self.steps + 1
        before = self.tracker.progress
        self._add_usage(agent_step)
        t1 = time.perf_counter()
        agent_step, action_result, new_obs = apply_step(self.device, agent_step, obs, step)
        done = action_result.timings if action_result else {}  # nothing executed (an invalid step): no time
        t_act, t_settle = done.get("actuation", 0.0), done.get("settle", 0.0)
        t_capture = max(0.0, time.perf_counter() - t1 - t_act - t_settle) if new_obs is not obs else 0.0
        invalid = agent_step.action is None or agent_step.invalid
        if invalid:
            self.result.invalid_steps += 1
            self.invalid_run += 1
        else:
            self.invalid_run = 0
        newly = self.tracker.update(new_obs, step)
        self.probes.on_hits(newly, new_obs, step)
        timings = {
            "agent": agent_seconds,
            "actuation": t_act,
            "settle": t_settle,
            "capture": t_capture,
            "total": agent_seconds + time.perf_counter() - t1,
            "device": done.get("device", 0.0),  # the device's seconds, action to next observation (its clock)
            "wall": done.get("wall", 0.0),  # the host's seconds of the same span
        }
        for k, v in timings.items():
            key = STEP_WALL if k == "wall" else k  # as episode.json sums them (`wall` there: the episode's own)
            self.totals[key] = self.totals.get(key, 0.0) + v
        if self.sink is not None:
            event = StepEvent(step, Frame.of(obs), agent_step, action_result, self.tracker.record(newly), timings)
            self.sink.write_step(event)
        self.history.append(HistoryItem(step=step, agent_step=agent_step, result=action_result))
        self.steps = self.result.steps = step
        self._obs = new_obs
        action = agent_step.action
        terminal = not invalid and isinstance(action, (Complete, Impossible, Answer))
        if terminal:
            self.result.terminated_by = action.type if action is not None else None
            self.result.answer = answer_of(action)
        elif self.perturbations is not None and step < self.max_steps and self.perturbations.due(step + 1):
            self.perturbations.interrupt(step + 1)  # before the screen the next step acts on
            self._obs = new_obs = self.device.observe()
        return StepOutcome(
            step, agent_step, action_result, new_obs, newly, self.tracker.progress, before, invalid, terminal, timings
        )

    def fail(self, error: BaseException | str, step: int | None = None, terminated_by: str = "error") -> None:
        """The agent's failure ends the episode as `agent_error` (scored with the progress reached)."""
        why = error if isinstance(error, str) else describe_error(error)
        self.result.status, self.result.terminated_by = AGENT_ERROR, terminated_by
        self.result.error = f"step {step}: {why}" if step is not None else why

    def finish(self, terminated_by: str | None = None) -> EpisodeResult:
        """End the episode: progress and milestones, the end state judged for SR (as in a run), the trajectory's
        episode.json written (the sink's `finish`). `terminated_by` when no terminal action ended it."""
        if self.finished:
            return self.result
        obs = self.observation
        self.finished = True
        result = self.result
        if result.terminated_by is None:
            result.terminated_by = terminated_by
        result.progress = self.tracker.progress
        result.milestones = self.tracker.status()
        result.timings = self.totals
        result.attempts = self.attempt
        result.probes = self.probes.records()
        final = Frame.of(obs)
        if self.sink is not None:
            self.sink.final_screen(final)  # its files written while the episode is judged
        self._judge(obs)
        if self.perturbations is not None:
            result.perturbations, unrestored = self.perturbations.end(self.steps)
            if unrestored:
                result.extra["perturbations_not_restored"] = unrestored
        if self.sink is not None:
            self.sink.finish(result, final=final, device=self.device.info)
        return result

    def release(self) -> None:
        """Put back what the perturbations changed on the device, when the episode ends without `finish` (an
        infrastructure failure); never raises."""
        if self.perturbations is not None:  # once: what `finish` put back is not put back again
            try:
                self.perturbations.restore()
            except Exception as e:  # noqa: BLE001 - a device that failed: its pool resets or replaces it
                log.debug("%s: perturbations not put back: %s", self.device.serial, e)

    def _judge(self, last: Observation) -> None:
        """SR: every milestone hit (latching), the end state still holding on the last screen / in the app's
        data, the expected answer given, and no agent error. Sets `success`, `status` and `end_state`."""
        result, task = self.result, self.task
        if self.outside is not None:
            self._judge_outside(self.outside)
            return
        if result.status == AGENT_ERROR:
            result.success = False
            return
        answered = task.expected_answer is None or answer_matches(task.expected_answer, result.answer, self.lang)
        held = True
        if self.tracker.complete and task.end_state:
            end = evaluate_end_state(task, self.lang, last, self.device, self.alt)
            result.end_state = end.to_json()
            held = end.held
        result.success = self.tracker.complete and held and answered
        result.status = SUCCESS if result.success else FAILED

    def _judge_outside(self, outside: OutsideJudge) -> None:
        """The outside suite's verdict is the episode's: success when its judge says solved (score 1.0), its score
        the progress; an agent error fails the episode as any other (the judge is still asked, and recorded). The
        suite's tear-down follows; what both did is recorded under the suite's key."""
        result = self.result
        done = result.terminated_by in TERMINAL_TYPES  # the agent declared the task done (or infeasible)
        verdict = outside.judge(result.answer, done)
        result.progress = verdict.score if verdict.score is not None else 0.0
        result.success = verdict.success and result.status != AGENT_ERROR
        if result.status != AGENT_ERROR:
            result.status = SUCCESS if result.success else FAILED
        try:
            outside.tear_down()
        finally:
            result.extra[outside.key] = outside.record()

    def _add_usage(self, step: AgentStep) -> None:
        u = step.usage
        self.result.tokens["prompt"] += u.prompt_tokens
        self.result.tokens["completion"] += u.completion_tokens
        self.result.tokens["total"] += u.total_tokens


__all__ = ["EpisodeSession", "StepOutcome", "answer_of", "apply_step", "revalidate"]
