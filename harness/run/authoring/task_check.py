"""`droidharness tasks check SUITE`: prove every task of a suite sound on a live device.

Sound = (1) on the start state no FINAL milestone holds and the end state does not hold (the task is not already
done), and (2) the task's reference solution, played by the reference agent through the normal episode loop, reaches
100% progress and success with every step playable - every milestone, the end state still holding at the end, and
the expected answer - in every language the task has. Together: the end-state check is reachable, and it fails on a
device where the goal is not (or no longer) achieved. (3) Every probe question is asked on the way: its milestone is
hit and its ground truth is on that screen. (4) The validator cannot be had for nothing: a do-nothing agent (`noop`:
HOME, then COMPLETE), played first, scores progress 0 and no success. (5) With `portable=True` (always for the
bundled `portable` suite), the task is portable (`tasks.portable`): apps named by role, checks by state or visible
text, reference steps located by text; else it is unsound with the reasons.
Apps named by role (`@clock`) are resolved on the device first (`harness.device.apps.role_packages`).
"""

from __future__ import annotations

from dataclasses import dataclass

from harness.device.apps import role_packages
from harness.device.controller import Device
from harness.plugins import create_agent, create_qa_agent
from harness.run.judge.end_state import evaluate_end_state
from harness.run.judge.milestones import answer_matches, check_holds, final_milestones
from harness.run.judge.state_check import judge_on
from harness.run.loop.episode import Limits, run_episode
from harness.run.loop.start import prepare_start
from tasks.portable import describe_issues, portability_issues, resolve_task, task_roles
from tasks.schema import Task


@dataclass
class CheckResult:
    task_id: str
    lang: str
    start_violations: list[str]  # final milestones (and "end_state") that already hold on the start screen
    progress: float
    success: bool
    steps: int
    error: str | None = None
    end_state_held: bool | None = None  # after the reference solution; None: the task declares no end state
    idle_progress: float = 0.0  # what a do-nothing agent (HOME, then COMPLETE) scores: must be 0
    idle_success: bool = False
    not_portable: tuple[str, ...] = ()  # why the task is not portable (`tasks.portable`); empty: it is
    missed: tuple[str, ...] = ()  # the milestones the reference solution did not hit
    answer_ok: bool | None = None  # the reference's answer matches the expected one; None: no expected answer

    @property
    def idle_ok(self) -> bool:
        return self.idle_progress == 0.0 and not self.idle_success

    @property
    def ok(self) -> bool:
        return not self.start_violations and self.success and self.error is None and self.idle_ok


def check_task(task: Task, lang: str, device: Device, portable: bool = False) -> CheckResult:
    """Check one task in one language on `device`; with `portable`, a task that is not portable is unsound."""
    issues = tuple(portability_issues(task))
    result = _check_task(resolve_task(task, role_packages(device, task_roles(task))), lang, device)
    result.not_portable = issues
    if portable and issues:
        why = "not portable: " + describe_issues(list(issues))
        result.error = why if result.error is None else f"{result.error}; {why}"
    return result


def _check_task(task: Task, lang: str, device: Device) -> CheckResult:
    prepare_start(device, task.start)
    start = device.observe()
    state = judge_on(device)
    violations = [m.id for m in final_milestones(task.milestones) if check_holds(m.check, start, lang, state)]
    if task.end_state and evaluate_end_state(task, lang, start, device).held:
        violations.append("end_state")
    idle = run_episode(task, create_agent("noop"), device, lang, Limits(max_steps=2), seed=0)
    idle_error = (
        None
        if idle.progress == 0.0 and not idle.success
        else f"a do-nothing agent (HOME, then COMPLETE) scores progress {idle.progress:.0%}"
        + (" and success" if idle.success else "")
        + (f" (milestones {', '.join(h['id'] for h in idle.milestones if h.get('hit_step'))})" if idle.progress else "")
    )
    if lang not in task.reference:
        return CheckResult(
            task.id,
            lang,
            violations,
            0.0,
            False,
            0,
            f"no reference solution for {lang!r}",
            None,
            idle.progress,
            idle.success,
        )
    agent = create_agent("reference")
    qa = create_qa_agent("lexical") if task.probes else None
    limits = Limits(max_steps=len(task.reference[lang]) + 2)
    r = run_episode(task, agent, device, lang, limits, seed=0, probe_agent=qa)
    held = None if not task.end_state else bool(r.end_state and r.end_state.get("held"))
    error = r.error
    unasked = [
        f"probe {p['probe_id']} " + (p.get("error") or f"never asked: milestone {p['at']} not hit")
        for p in r.probes
        if not p.get("asked")
    ]
    if unasked and error is None:
        error = "; ".join(unasked)
    if r.invalid_steps and error is None:  # a step that found nothing on its screen: the solution is not sound
        error = f"{r.invalid_steps} reference step(s) could not be played on the screen they met"
    if held is False and error is None:
        error = "end state does not hold after the reference solution: " + "; ".join(
            map(str, (r.end_state or {}).get("failed", []))
        )
    if idle_error is not None:
        error = idle_error if error is None else f"{error}; {idle_error}"
    missed = tuple(str(m["id"]) for m in r.milestones if not m.get("hit_step"))
    answer_ok = None if task.expected_answer is None else answer_matches(task.expected_answer, r.answer, lang)
    return CheckResult(
        task.id,
        lang,
        violations,
        r.progress,
        r.success,
        r.steps,
        error,
        held,
        idle.progress,
        idle.success,
        missed=missed,
        answer_ok=answer_ok,
    )
