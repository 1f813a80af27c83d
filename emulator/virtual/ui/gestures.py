"""How a swipe's duration turns into scrolling, with Android's constants (ViewConfiguration, OverScroller).

A finger drag scrolls by the distance moved past the touch slop; when the finger leaves the screen faster than the
minimum fling velocity the content keeps going by OverScroller's spline fling distance for that velocity. An
injected swipe (`input swipe`, UiAutomator's steps) moves at a constant speed, so the release velocity is the
distance over the duration. A press that stays within the touch slop is a tap, or a long press when held for
the long-press timeout.
"""

from __future__ import annotations

import math

TOUCH_SLOP_DP = 8  # ViewConfiguration.TOUCH_SLOP
LONG_PRESS_TIMEOUT_MS = 400  # ViewConfiguration.DEFAULT_LONG_PRESS_TIMEOUT (Android 12+)
MIN_FLING_DP_S = 50  # ViewConfiguration.MINIMUM_FLING_VELOCITY
MAX_FLING_DP_S = 8000  # ViewConfiguration.MAXIMUM_FLING_VELOCITY
SCROLL_FRICTION = 0.015  # ViewConfiguration.getScrollFriction()
INFLEXION = 0.35  # OverScroller: tension lines cross at this point
DECELERATION_RATE = math.log(0.78) / math.log(0.9)
GRAVITY_EARTH = 9.80665


def touch_slop(scale: float) -> float:
    return TOUCH_SLOP_DP * scale


def fling_distance(velocity: float, scale: float) -> float:
    """OverScroller.getSplineFlingDistance: pixels travelled after a release at `velocity` px/s."""
    v = min(abs(velocity), MAX_FLING_DP_S * scale)
    if v < MIN_FLING_DP_S * scale:
        return 0.0
    ppi = scale * 160.0
    physical = GRAVITY_EARTH * 39.37 * ppi * 0.84
    decel = math.log(INFLEXION * v / (SCROLL_FRICTION * physical))
    return SCROLL_FRICTION * physical * math.exp(DECELERATION_RATE / (DECELERATION_RATE - 1.0) * decel)


def scroll_amount(dx: float, dy: float, duration_ms: float, scale: float) -> tuple[int, int]:
    """The content movement (finger direction) a straight swipe of (dx, dy) over `duration_ms` produces:
    drag past the touch slop, plus the fling of the release velocity."""
    dist = math.hypot(dx, dy)
    slop = touch_slop(scale)
    if dist <= slop:
        return 0, 0
    seconds = max(duration_ms, 1) / 1000.0
    velocity = dist / seconds
    total = (dist - slop) + fling_distance(velocity, scale)
    k = total / dist
    return int(round(dx * k)), int(round(dy * k))
