"""Which perturbations an episode gets, and when (docs/robustness.md): the rule that keeps a perturbation away
from a task that checks what it changes (`conflict`), the step an interruption comes at (`interruption_step`, within
`interruption_window`: where the task is still going on),
and an episode's perturbations from its start to its end (`EpisodePerturbations`, driven by
`harness.run.loop.session.EpisodeSession`): the screen conditions put on after the task's start state and before
the first screen, the notification posted before its step's screen, everything put back at the end, and a
`PerturbationRecord` per perturbation for episode.json. The device commands are `harness.device.perturb`'s; the
locale is switched when the device is leased (harness.run.orchestration.leasing), before the start state.
"""

from __future__ import annotations

import logging
import random
from collections.abc import Iterator, Sequence

from harness.device.controller import Device
from harness.device.perturb import (
    ANIMATION_SCALES,
    HEADS_UP,
    apply_conditions,
    post_notification,
    restore_conditions,
    show_interruption,
    take_back,
)
from harness.device.preparation import DevicePreparation
from harness.perturbation import INTERRUPTIONS, KINDS, Perturbation, PerturbationRecord, PerturbPlan
from tasks.schema import Task
from tasks.state_checks import StateCheck

log = logging.getLogger(__name__)

# what each perturbation changes, as a task's checks and start state can name it: settings (namespace, key) and
# system properties
SETTINGS: dict[str, frozenset[tuple[str, str]]] = {
    "dark": frozenset({("secure", "ui_night_mode"), ("secure", "ui_night_mode_custom_type")}),
    "font": frozenset({("system", "font_scale")}),
    "size": frozenset({("global", "display_size_forced")}),
    "density": frozenset({("secure", "display_density_forced")}),
    "landscape": frozenset({("system", "user_rotation"), ("system", "accelerometer_rotation")}),
    "locale": frozenset({("system", "system_locales")}),
    "animations": frozenset(("global", k) for k in ANIMATION_SCALES),
    "notification": frozenset({HEADS_UP}),
    "dialog": frozenset({HEADS_UP}),
}
PROPS: dict[str, frozenset[str]] = {
    "locale": frozenset({"persist.sys.locale", "ro.product.locale", "persist.sys.language", "persist.sys.country"}),
}
NOTIFICATION_TAG = "droidharness-perturb"
NOTIFICATION = {  # (title, text) by the episode's language
    "en": ("Calendar", "Team sync in 10 minutes in room 4B. Tap to see the agenda."),
    "zh": ("日历", "10 分钟后在 4B 会议室开团队例会。点按查看议程。"),
}


def _state_checks(task: Task) -> Iterator[tuple[str, StateCheck]]:
    """Every device-state check of the task (where it is, the check): its milestones' and its end state's."""
    for m in task.milestones.leaves():
        if m.check.state is not None:
            yield f"milestone {m.id}", m.check.state
    for i, end in enumerate(task.end_state, 1):
        if end.check is not None and end.check.state is not None:
            yield f"end state {i}", end.check.state


def conflict(task: Task, p: Perturbation) -> str | None:
    """Why perturbation `p` is not applied to `task` - the task's start state sets, or its milestones' or end
    state's checks read, a setting or property `p` changes (`dark` and `ui_night_mode`, `font=` and `font_scale`,
    `locale=` and the locale, `landscape` and the rotation, ...) - else None."""
    keys, props = SETTINGS.get(p.name, frozenset()), PROPS.get(p.name, frozenset())
    for name in task.start.settings:
        namespace, _, key = name.partition(":")
        if (namespace, key) in keys:
            return f"the task's start state sets {name}, which {p.label} changes"
    for where, state in _state_checks(task):
        s = state.settings
        if s is not None and (s.namespace, s.key) in keys:
            return f"the task checks {s.namespace}:{s.key} ({where}), which {p.label} changes"
        if state.prop is not None and state.prop.name in props:
            return f"the task checks the property {state.prop.name} ({where}), which {p.label} changes"
        c = state.content
        if c is not None and c.uri.startswith("content://settings/"):
            namespace = c.uri.removeprefix("content://settings/").strip("/")
            named = [key for ns, key in keys if ns == namespace and key in f"{c.where or ''} {' '.join(c.row)}"]
            if named:
                return f"the task checks {namespace}:{named[0]} ({where}), which {p.label} changes"
    return None


def interruption_window(task: Task, lang: str, budget: int) -> int:
    """The last step an interruption may come before, where the task is still going on: the step before the last
    of its reference solution (in the episode's language, else its first), or, for a task without one, the end of
    the first half of its step budget."""
    solution = task.reference.get(lang) or next(iter(task.reference.values()), ())
    if solution:
        return max(1, len(solution) - 1)
    return max(1, (budget + 1) // 2)


def notification_step(seed: int, episode_seed: int, budget: int, window: int | None = None) -> int:
    """The step whose screen the notification comes before: drawn from the plan's seed and the episode's, within
    `window` (`interruption_window`: inside the task's reference solution), by default within the first half of
    the task's step budget."""
    return interruption_step("notification", seed, episode_seed, budget, window)


def interruption_step(name: str, seed: int, episode_seed: int, budget: int, window: int | None = None) -> int:
    """The step whose screen interruption `name` comes before, as `notification_step` draws it (each interruption
    from its own stream: two of them need not come together)."""
    stream = "droidharness.perturb" if name == "notification" else f"droidharness.perturb.{name}"
    rng = random.Random(f"{stream}:{seed}:{episode_seed}")
    last = window if window is not None else (budget + 1) // 2
    return rng.randint(1, max(1, min(last, budget)))


def interruption_kind(p: Perturbation, seed: int, episode_seed: int) -> str:
    """Which dialog or popup `p` shows: its value, else one drawn from the plan's seed and the episode's."""
    if p.value is not None:
        return p.value
    return random.Random(f"droidharness.perturb.{p.name}.kind:{seed}:{episode_seed}").choice(KINDS[p.name])


class EpisodePerturbations:
    """An episode's perturbations on its device: `start` after the start state (the conditions put on, the
    interruptions' steps drawn), `due` / `interrupt` before a step's screen, `end` at the episode's end (what was
    changed put back; the records). `leased`: what was applied when the device was leased (the locale)."""

    def __init__(
        self,
        plan: PerturbPlan,
        task: Task,
        device: Device,
        lang: str,
        episode_seed: int,
        leased: Sequence[PerturbationRecord] = (),
    ) -> None:
        self.plan, self.task, self.device, self.lang, self.episode_seed = plan, task, device, lang, episode_seed
        self.leased = {r.name: r for r in leased}
        self.records: dict[str, PerturbationRecord] = {}
        self.steps: dict[str, int] = {}  # each interruption's step, while it is to come
        self.kinds: dict[str, str] = {}  # the dialog's and the popup's kind
        self.budget = 0
        self._heads_up = ""  # why heads-up notifications could not be turned on ("" when they were)
        self._changed: DevicePreparation | None = None
        self._undo: list[str] = []  # what takes an interruption back (the battery's reset)

    @property
    def step(self) -> int | None:
        """The notification's step, while it is to come."""
        return self.steps.get("notification")

    def start(self, budget: int) -> None:
        """Put the screen conditions on the device (those the task does not check), draw the interruptions' steps."""
        self.budget = budget
        todo: list[Perturbation] = []
        for p in self.plan.perturbations:
            why = conflict(self.task, p)
            if p.name == "locale":  # switched (or not) by the pool when the device was leased
                done = self.leased.get(p.name)
                if done is None:
                    why = why or "the device was leased in the episode's language (no pool switched it)"
                    done = PerturbationRecord(p.name, p.value, None, False, why)
                self.records[p.name] = done
            elif why is not None:
                self.records[p.name] = PerturbationRecord(p.name, p.value, None, False, why)
            else:
                todo.append(p)
        names = {p.name for p in todo}
        on_device = [p for p in todo if not (p.name == "dialog" and "notification" in names)]  # one heads-up step
        if on_device:
            done_now, self._changed = apply_conditions(self.device, on_device)
            for r in done_now:
                if r.name in INTERRUPTIONS:
                    if r.name != "popup":
                        self._heads_up = self._heads_up or ("" if r.applied else r.reason)
                    continue
                self.records[r.name] = r
        for p in todo:
            if p.interruption:
                window = interruption_window(self.task, self.lang, budget)
                self.steps[p.name] = interruption_step(p.name, self.plan.seed, self.episode_seed, budget, window)
                if p.name in KINDS:
                    self.kinds[p.name] = interruption_kind(p, self.plan.seed, self.episode_seed)

    @property
    def posted(self) -> bool:
        """Has the notification come (or was none to come)?"""
        return "notification" not in self.steps

    def due(self, step: int) -> bool:
        """Is an interruption to come before the screen of `step`?"""
        return step in self.steps.values()

    def interrupt(self, step: int) -> None:
        """Bring every interruption of `step` (before its screen is captured) and record it."""
        for name in [n for n in INTERRUPTIONS if self.steps.get(n) == step]:
            del self.steps[name]
            if name == "notification":
                title, text = NOTIFICATION.get(self.lang, NOTIFICATION["en"])
                refused = post_notification(self.device, NOTIFICATION_TAG, title, text)
                why = f"the device refused it: {refused}" if refused else self._heads_up
                self.records[name] = PerturbationRecord(name, None, step, refused is None, why)
                continue
            kind = self.kinds[name]
            refused, undo = show_interruption(self.device, name, kind)
            self._undo += undo
            if refused is not None and name == "popup" and "no popup receiver" in refused and step < self.budget:
                self.steps[name] = step + 1  # no app of its own in the foreground yet: the next screen
                continue
            why = f"the device refused it: {refused}" if refused else ""
            if refused is None and kind == "battery":
                why = self._heads_up  # the warning is a heads-up: without them it waits in the shade
            self.records[name] = PerturbationRecord(name, kind, step, refused is None, why)

    def restore(self) -> list[str]:
        """Put back what the interruptions and the conditions changed (once); what could not be put back."""
        undo, self._undo = self._undo, []
        problems = take_back(self.device, undo) if undo else []
        changed, self._changed = self._changed, None
        if changed is not None:
            problems += restore_conditions(self.device, changed)
        for p in problems:
            log.warning("%s: a perturbation was not put back: %s", self.device.serial, p)
        return problems

    @property
    def so_far(self) -> list[PerturbationRecord]:
        """The records made so far, in the plan's order (an interruption's once it came, or at the end)."""
        return [self.records[p.name] for p in self.plan.perturbations if p.name in self.records]

    def end(self, steps: int) -> tuple[list[PerturbationRecord], list[str]]:
        """The episode ended after `steps` steps: what was changed put back; a record per perturbation, in the
        plan's order, and what could not be put back."""
        for name, step in self.steps.items():
            why = f"the episode ended after {steps} step(s), before step {step}"
            self.records[name] = PerturbationRecord(name, self.kinds.get(name), step, False, why)
        self.steps = {}
        problems = self.restore()
        return self.so_far, problems


__all__ = [
    "EpisodePerturbations",
    "conflict",
    "interruption_kind",
    "interruption_step",
    "interruption_window",
    "notification_step",
]
