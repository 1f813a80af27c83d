"""Which perturbations an episode gets and when (harness/run/loop/perturb.py): the rule that keeps a perturbation
away from a task that checks what it changes, decided from the task's JSON; the notification's step, drawn from the
plan's seed and the episode's within the task's budget; and an episode's perturbations through the session on the
in-process device (the Device seam): the notification before its step's screen, the records when the episode
ends first, what the device holds after the episode."""

from __future__ import annotations

from typing import Any

import pytest

from harness.actions import Back, Complete
from harness.agent import AgentStep, EpisodeContext
from harness.device.inprocess import InProcessDevice
from harness.perturbation import INTERRUPTIONS, Perturbation, PerturbPlan
from harness.run.loop.episode import run_episode
from harness.run.loop.perturb import (
    NOTIFICATION_TAG,
    conflict,
    interruption_kind,
    interruption_step,
    interruption_window,
    notification_step,
)
from harness.run.loop.session import EpisodeSession
from tasks.schema import Task, parse_task
from tasks.suite import load_suite

MILESTONE = {"id": "m", "sub_target": {"en": "x"}, "check": {"package": "com.droidharness.notes"}}


def task(**fields: Any) -> Task:
    """A minimal valid task with `fields` merged in (start, milestones, end_state)."""
    data: dict[str, Any] = {
        "id": "t",
        "category": "1-1",
        "instruction": {"en": "Do it", "zh": "做"},
        "milestones": {"children": [MILESTONE]},
    }
    return parse_task({**data, **fields})


def state_milestone(state: dict[str, Any], mid: str = "s") -> dict[str, Any]:
    return {"children": [MILESTONE, {"id": mid, "sub_target": {"en": "y"}, "check": {"state": state}}]}


def setting(namespace: str, key: str, value: Any = "1") -> dict[str, Any]:
    return {"settings": {"namespace": namespace, "key": key, "value": value}}


P = {label: PerturbPlan.parse(label).perturbations[0] for label in ("dark", "font=1.3", "landscape", "locale=zh-CN")}
P.update({p.label: p for p in PerturbPlan.parse("size=720x1600,density=320,animations,notification").perturbations})
P.update({p.label: p for p in PerturbPlan.parse("dialog,popup").perturbations})


CONFLICTS = [  # (task fields, perturbation, the reason, or None)
    (
        {"milestones": state_milestone(setting("secure", "ui_night_mode", 2), "dark")},
        "dark",
        "the task checks secure:ui_night_mode (milestone dark), which dark changes",
    ),
    (
        {"start": {"settings": {"system:font_scale": "1.0"}}},
        "font=1.3",
        "the task's start state sets system:font_scale",
    ),
    ({"milestones": state_milestone(setting("system", "user_rotation", 0))}, "landscape", "system:user_rotation"),
    ({"milestones": state_milestone(setting("system", "accelerometer_rotation", 1))}, "landscape", "accelerometer"),
    (
        {"milestones": state_milestone({"prop": {"name": "persist.sys.locale", "value": "en-US"}})},
        "locale=zh-CN",
        "the task checks the property persist.sys.locale (milestone s)",
    ),
    (
        {"end_state": [{"check": {"state": setting("global", "window_animation_scale", 0)}}]},
        "animations",
        "the task checks global:window_animation_scale (end state 1), which animations changes",
    ),
    (
        {
            "milestones": state_milestone(
                {"content": {"uri": "content://settings/secure", "where": "name='ui_night_mode'"}}
            )
        },
        "dark",
        "the task checks secure:ui_night_mode (milestone s)",
    ),
    (
        {"milestones": state_milestone(setting("global", "display_size_forced", "720,1600"))},
        "size=720x1600",
        "display_size_forced",
    ),
    (
        {"milestones": state_milestone(setting("secure", "display_density_forced", "320"))},
        "density=320",
        "display_density_forced",
    ),
    ({"milestones": state_milestone(setting("global", "heads_up_notifications_enabled"))}, "notification", "heads_up"),
    ({"milestones": state_milestone(setting("global", "heads_up_notifications_enabled"))}, "dialog", "heads_up"),
    ({"milestones": state_milestone(setting("global", "heads_up_notifications_enabled"))}, "popup", None),
    # what a perturbation does not change: no conflict
    ({"milestones": state_milestone(setting("secure", "ui_night_mode", 2))}, "font=1.3", None),
    ({"start": {"settings": {"global:bluetooth_on": "0"}}}, "dark", None),
    ({"milestones": state_milestone(setting("system", "font_scale", "1.0"))}, "landscape", None),
    ({}, "locale=zh-CN", None),
]


@pytest.mark.parametrize(("fields", "label", "said"), CONFLICTS, ids=[f"{c[1]}-{i}" for i, c in enumerate(CONFLICTS)])
def test_a_perturbation_is_kept_from_a_task_that_checks_what_it_changes(fields, label, said):
    why = conflict(task(**fields), P[label])
    assert (why is None) if said is None else (why is not None and said in why), why


def test_each_interruption_has_its_own_seeded_step_and_a_drawn_kind():
    steps = {
        name: [interruption_step(name, s, 99, 20) for s in range(40)] for name in ("notification", "dialog", "popup")
    }
    assert steps["notification"] == [notification_step(s, 99, 20) for s in range(40)], "the notification's as before"
    assert steps["dialog"] != steps["notification"] != steps["popup"], "each from its own stream"
    assert all(1 <= x <= 10 for xs in steps.values() for x in xs)
    kinds = {interruption_kind(P["dialog"], s, 99) for s in range(40)}
    assert kinds == {"anr", "battery", "permission"}
    assert {interruption_kind(P["popup"], s, 99) for s in range(40)} == {"rate", "promo"}
    assert interruption_kind(Perturbation("dialog", "anr"), 1, 2) == "anr"


def test_the_bundled_suites_dark_theme_tasks_get_no_dark_and_the_rest_get_everything():
    tasks = load_suite("virtual") + load_suite("portable")
    hit = {(t.id, label) for t in tasks for label, p in P.items() if conflict(t, p)}
    dark = {"settings-dark-theme", "portable-settings-dark-theme", "portable-settings-bluetooth-dark"}
    assert hit == {(t, "dark") for t in dark}


def test_the_notifications_step_is_seeded_and_within_the_first_half_of_the_budget():
    steps = [notification_step(seed, 1234, 15) for seed in range(200)]
    assert steps == [notification_step(seed, 1234, 15) for seed in range(200)], "the same seeds, the same steps"
    assert set(steps) == set(range(1, 9)), "every step of the first half (8 of 15), none after"
    assert notification_step(3, 1, 1) == 1 and notification_step(3, 1, 2) == 1
    assert len({notification_step(0, e, 20) for e in range(50)}) > 5, "each episode its own step"


def test_an_interruption_comes_while_the_task_is_still_going_on():
    """Before a step of the task's reference solution other than its last (the step that ends it), or in the first
    half of the budget for a task without one - so it lands inside the episodes that solve the task."""
    tasks = load_suite("virtual")
    t = next(x for x in tasks if x.id == "notes-search-password")
    assert len(t.reference["en"]) == 4 and interruption_window(t, "en", t.max_steps) == 3
    assert interruption_window(t, "xx", t.max_steps) == 3, "a language without a solution: the first one's"
    bare = task()
    assert bare.reference == {} and interruption_window(bare, "en", 15) == 8 and interruption_window(bare, "en", 1) == 1
    for x in tasks:
        window = interruption_window(x, "en", x.max_steps)
        assert 1 <= window < max(2, len(x.reference["en"])), x.id
        drawn = {interruption_step(name, s, 5, x.max_steps, window) for s in range(60) for name in INTERRUPTIONS}
        assert drawn == set(range(1, window + 1)), (x.id, drawn)


class Steps:
    """BACK `n - 1` times, then COMPLETE; keeps each screen's element ids."""

    name = "steps"

    def __init__(self, n: int) -> None:
        self.n, self.ids = n, []

    def reset(self, ctx: EpisodeContext) -> None:
        self.ids = []

    def act(self, observation: Any, history: list) -> AgentStep:
        self.ids.append({el.resource_id for el in observation.tree if el.resource_id})
        return AgentStep(action=Complete() if len(history) + 1 >= self.n else Back())


def _seed(task: Task, episode_seed: int, step: int) -> int:
    """A plan seed that puts the notification before the screen of `step` for `task` (its window, as drawn)."""
    window = interruption_window(task, "en", task.max_steps)
    return next(s for s in range(1000) if notification_step(s, episode_seed, task.max_steps, window) == step)


HEADS_UP = "com.android.systemui:id/heads_up_notification"


@pytest.mark.parametrize("step", [1, 3])
def test_the_notification_comes_before_the_screen_of_its_step(step):
    t = next(x for x in load_suite("virtual") if x.id == "notes-search-password")
    agent = Steps(5)
    with InProcessDevice() as dev:
        dev.put_setting("global", "heads_up_notifications_enabled", "0")  # as device preparation leaves it
        plan = PerturbPlan((Perturbation("notification"),), _seed(t, 7, step))
        result = run_episode(t, agent, dev, "en", seed=7, perturb=plan)
        posted = [n.tag for n in dev.model.notifications.posted]
        heads_up_setting = dev.model.settings["global"]["heads_up_notifications_enabled"]
    (record,) = result.perturbations
    assert (record.name, record.step, record.applied, record.reason) == ("notification", step, True, "")
    seen = [HEADS_UP in ids for ids in agent.ids]
    assert seen.index(True) == step - 1 and not any(seen[: step - 1]), seen
    assert posted == [NOTIFICATION_TAG] and heads_up_setting == "0", "heads-up turned on for the episode only"


def test_an_episode_that_ends_before_the_notifications_step_says_so():
    t = next(x for x in load_suite("virtual") if x.id == "notes-search-password")
    with InProcessDevice() as dev:
        plan = PerturbPlan((Perturbation("notification"), Perturbation("dark")), _seed(t, 7, 3))
        result = run_episode(t, Steps(2), dev, "en", seed=7, perturb=plan)
        assert dev.model.notifications.posted == []
        assert dev.model.settings["secure"]["ui_night_mode"] == "1", "dark put back"
    assert [(p.name, p.step, p.applied, p.reason) for p in result.perturbations] == [
        ("notification", 3, False, "the episode ended after 2 step(s), before step 3"),
        ("dark", None, True, ""),
    ]


def test_a_session_without_a_pool_switching_its_language_records_the_locale_not_applied():
    t = next(x for x in load_suite("virtual") if x.id == "notes-search-password")
    with InProcessDevice() as dev:
        session = EpisodeSession(t, dev, "en", perturb=PerturbPlan.parse("locale=zh-CN,font=1.3"))
        session.begin()
        assert [r.label for r in session.perturbation_records] == ["locale=zh-CN", "font=1.3"]
        assert dev.model.settings["system"]["font_scale"] == "1.3"
        session.release()  # abandoned: put back all the same
        assert dev.model.settings["system"]["font_scale"] == "1.0"
        locale, font = session.perturbation_records
    assert not locale.applied and "no pool switched it" in locale.reason and font.applied
