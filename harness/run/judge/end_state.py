"""End-state checks: does the task's goal still hold when the episode ends? (SR requires it; ATP does not.)

A task's `end_state` lists `EndCheck`s (tasks/schema.py). A check without `app` is evaluated on the last screen
as the agent left it. A check with `app` is a probe: after the episode the harness force-stops and relaunches
that app (only the data the app keeps survives; unsaved drafts and dialogs do not), plays the probe's reference
steps (locators resolved live) and evaluates on the screen they reach. Checks on the last screen run first,
before any probe changes the screen. A probe step that cannot be resolved (the element it looks for is gone)
means the state does not hold. A check's `state` part is read from the device (`harness.run.judge.state_check`): a
state-only check needs no `app` (the state is the device's, not a screen's); state that cannot be read does not
hold, and the failure says why. Device failures propagate (an infrastructure failure, as everywhere).
"""

from __future__ import annotations

from dataclasses import dataclass

from harness.device.controller import Device
from harness.errors import ActionValidationError
from harness.observation import Observation
from harness.run.judge.milestones import check_failure
from harness.run.judge.state_check import StateJudge, judge_on
from tasks.locate import resolve_step
from tasks.matching import Screen
from tasks.schema import EndCheck, Milestone, Task


@dataclass(frozen=True)
class EndStateResult:
    held: bool
    failed: tuple[str, ...]  # what did not hold: milestone ids / "check" (with "(state: why)"), "probe <app>: <why>"
    probes: tuple[str, ...]  # apps reopened to check

    def to_json(self) -> dict[str, object]:
        return {"held": self.held, "failed": list(self.failed), "probes": list(self.probes)}


def _failures(
    check: EndCheck, screen: Screen, lang: str, leaves: dict[str, Milestone], state: StateJudge, alt: str | None
) -> list[str]:
    out = []
    for mid in check.milestones:
        why = check_failure(leaves[mid].check, screen, lang, state, alt)
        if why is not None:
            out.append(mid if why == "screen" else f"{mid} ({why})")
    if check.check is not None:
        why = check_failure(check.check, screen, lang, state, alt)
        if why is not None:
            out.append("check" if why == "screen" else f"check ({why})")
    return out


def _probe(check: EndCheck, device: Device, lang: str, alt: str | None) -> Observation:
    assert check.app is not None
    device.stop_app(check.app)
    device.launch(check.app)
    obs = device.observe()
    for n, step in enumerate(check.steps, 1):
        action = resolve_step(step, obs, lang, n, alt)
        _, obs = device.step(action, obs)
    return obs


def evaluate_end_state(
    task: Task, lang: str, last_screen: Screen, device: Device, alt: str | None = None
) -> EndStateResult:
    """Evaluate every end-state check of `task`; `held` when all hold (vacuously true without checks). `alt`: the
    device's system language when not the episode's (`harness.run.judge.milestones.check_failure`)."""
    leaves = {m.id: m for m in task.milestones.leaves()}
    state = judge_on(device)
    failed: list[str] = []
    for check in (c for c in task.end_state if c.app is None):
        failed += _failures(check, last_screen, lang, leaves, state, alt)
    probes: list[str] = []
    for check in (c for c in task.end_state if c.app is not None):
        assert check.app is not None
        probes.append(check.app)
        try:
            screen = _probe(check, device, lang, alt)
        except ActionValidationError as e:
            failed.append(f"probe {check.app}: {e}")
            continue
        failed += [f"{check.app}: {f}" for f in _failures(check, screen, lang, leaves, state, alt)]
    return EndStateResult(held=not failed, failed=tuple(failed), probes=tuple(probes))
