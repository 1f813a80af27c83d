"""The order in which several devices take a suite's episodes: longest expected first, where a step's gesture
(a long press held 1 s, a swipe, a wait) counts besides the step itself."""

from __future__ import annotations

from harness.actions import SCROLL_SECONDS, gesture_seconds
from harness.run.orchestration.suite import STEP_SECONDS, expected_seconds, longest_first
from tasks.schema import ReferenceStep
from tasks.suite import load_suite


def test_gesture_seconds_are_the_actions_durations_or_their_defaults():
    assert gesture_seconds("LONG_PRESS") == 1.0 and gesture_seconds("LONG_PRESS", 2.5) == 2.5
    assert gesture_seconds("SWIPE") == 0.3 and gesture_seconds("WAIT", 4) == 4.0
    assert gesture_seconds("SCROLL") == SCROLL_SECONDS
    assert gesture_seconds("CLICK") == gesture_seconds("TYPE") == gesture_seconds("COMPLETE") == 0.0


def test_a_short_solution_of_long_presses_outranks_a_longer_one_of_taps():
    tasks = {t.id: t for t in load_suite("virtual")}
    presses = tasks["notes-keep-shopping-only"]  # 6 steps, 2 of them long presses held 1 s
    steps = presses.reference["en"]
    assert len(steps) == 6 and sum(s.type == "LONG_PRESS" for s in steps) == 2
    assert expected_seconds(presses, "en") == 6 * STEP_SECONDS + 2 * 1.0
    taps = [t for t in tasks.values() if "en" in t.reference and 6 < len(t.reference["en"]) < 10]
    taps = [t for t in taps if all(gesture_seconds(s.type) == 0 for s in t.reference["en"])]
    assert taps, "the suite has tap-only solutions of 7-9 steps"
    order = [t.id for t, _ in longest_first([(t, "en") for t in tasks.values() if "en" in t.reference])]
    assert all(order.index(presses.id) < order.index(t.id) for t in taps)


def test_a_step_with_its_own_duration_counts_it_and_a_task_without_a_solution_counts_its_step_limit():
    task = next(t for t in load_suite("virtual") if "en" in t.reference)
    held = task.model_copy(update={"reference": {"en": (ReferenceStep(type="LONG_PRESS", duration=3.0),)}})
    assert expected_seconds(held, "en") == STEP_SECONDS + 3.0
    bad = task.model_copy(update={"reference": {"en": (ReferenceStep(type="WAIT", duration="soon"),)}})
    assert expected_seconds(bad, "en") == STEP_SECONDS + 1.0  # not a number: the action's default
    assert expected_seconds(task, "xx") == task.max_steps * STEP_SECONDS
    items = [(task, "en"), (held, "en"), (task, "xx"), (bad, "en")]
    ranked = [expected_seconds(t, lang) for t, lang in longest_first(items)]
    assert ranked == sorted((expected_seconds(t, lang) for t, lang in items), reverse=True)
