"""docs/gym.md's random policy as a function: every action it draws parses, clicks name listed elements only, and
the same seed draws the same actions."""

from __future__ import annotations

import random

from harness.actions import Back, Click, Scroll, parse_action
from harness.gym.random_policy import random_action

ELEMENTS = '[3] TextView "Settings" (clickable)\n[7] Button "OK" (clickable)'


def test_every_drawn_action_parses_and_clicks_a_listed_element():
    rng = random.Random(1)
    kinds = set()
    for _ in range(200):
        action = parse_action(random_action(rng, ELEMENTS))
        kinds.add(type(action))
        if isinstance(action, Click):
            assert action.element in (3, 7)
    assert kinds == {Click, Scroll, Back}


def test_a_screen_without_elements_gets_no_click_and_a_seed_repeats_itself():
    rng = random.Random(2)
    assert not any(isinstance(parse_action(random_action(rng, "")), Click) for _ in range(50))
    a, b = random.Random(5), random.Random(5)
    assert [random_action(a, ELEMENTS) for _ in range(20)] == [random_action(b, ELEMENTS) for _ in range(20)]
