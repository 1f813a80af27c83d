"""AgentCPM-GUI's compact JSON action output.

Facts (AgentCPM-GUI's public action schema `eval/utils/schema/schema.json` and its evaluator
`eval/utils/evaluator.py`, OpenBMB/AgentCPM-GUI):
- keys: `thought` (string), `POINT` ([x, y] integers in [0, 1000], x first, relative to the screen's top-left),
  `to` ("up" | "down" | "left" | "right", or a [x, y] location), `duration` (integer ms >= 0, default 200),
  `PRESS` ("HOME" | "BACK" | "ENTER"), `TYPE` (string), `STATUS` ("continue" (default) | "finish" |
  "satisfied" | "impossible" | "interrupt" | "need_feedback"). No other keys (additionalProperties: false).
- the evaluator reads, in this order: a stop STATUS -> stop; TYPE -> type; POINT without `to` and with the
  default duration -> click; POINT with `to` -> swipe; POINT with duration > 200 -> long press; PRESS -> key;
  `duration` alone -> wait.
- `to` as a direction is compared with the direction of the ground-truth finger vector (touch -> lift), so
  "up" = the FINGER moves up (content moves down), as docs/datasets.md says.

Our choices where the sources are silent: "finish" / "satisfied" -> COMPLETE, "impossible" / "interrupt" /
"need_feedback" -> IMPOSSIBLE (reason = the status); a direction swipe travels `ctx.swipe_distance` of the
screen from POINT (clamped); "APPSELECT" (Android's KEYCODE_APP_SWITCH name) is accepted as RECENT although the
published schema lists only HOME, BACK and ENTER; TYPE with a POINT focuses that point first.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from harness.actions import (
    Action,
    Back,
    Click,
    Complete,
    Enter,
    Home,
    Impossible,
    LongPress,
    Recent,
    Swipe,
    TypeText,
    Wait,
)

from .common import (
    OutputParseError,
    ParseContext,
    Parsed,
    build,
    direction,
    extract_json_object,
    finger_end,
    number,
    pair,
    point_from_1000,
)

FMT = "agentcpm"
KEYS = ("thought", "POINT", "to", "duration", "PRESS", "TYPE", "STATUS")
DEFAULT_DURATION_MS = 200
STOP_COMPLETE = ("finish", "satisfied")
STOP_IMPOSSIBLE = ("impossible", "interrupt", "need_feedback")
PRESS_KEYS: dict[str, Callable[[], Action]] = {"HOME": Home, "BACK": Back, "ENTER": Enter, "APPSELECT": Recent}


def parse_agentcpm(text: str, ctx: ParseContext, tool_calls: list[dict[str, Any]] | None = None) -> Parsed:
    obj = extract_json_object(text, FMT)
    unknown = [k for k in obj if k not in KEYS]
    if unknown:
        raise OutputParseError(
            f"{FMT} output: unknown key(s) {', '.join(map(repr, unknown))}; allowed: {', '.join(KEYS)}"
        )
    thought = obj.get("thought", "")
    if not isinstance(thought, str):
        raise OutputParseError(f"{FMT} output: 'thought' must be a string")
    status = obj.get("STATUS", "continue")
    if not isinstance(status, str) or status not in ("continue", *STOP_COMPLETE, *STOP_IMPOSSIBLE):
        raise OutputParseError(
            f"{FMT} output: STATUS {status!r:.40} is not one of continue, finish, satisfied, "
            f"impossible, interrupt, need_feedback"
        )
    if status in STOP_COMPLETE:
        return Parsed(Complete(), thought)
    if status in STOP_IMPOSSIBLE:
        return Parsed(Impossible(reason=status), thought)

    duration_ms: float | None = None
    if "duration" in obj:
        duration_ms = number(obj["duration"], "duration", FMT)
        if duration_ms < 0:
            raise OutputParseError(f"{FMT} output: duration {duration_ms:g} ms is negative")
    point = None
    if "POINT" in obj:
        x, y = pair(obj["POINT"], "POINT", FMT)
        point = point_from_1000(x, y, "POINT", FMT)

    if "TYPE" in obj:
        text_value = obj["TYPE"]
        if not isinstance(text_value, str):
            raise OutputParseError(f"{FMT} output: TYPE must be a string, got {type(text_value).__name__}")
        return Parsed(build(FMT, TypeText, text=text_value, point=point), thought)
    if point is not None:
        if "to" in obj:
            to = obj["to"]
            if isinstance(to, str):
                end = finger_end(point, direction(to, "to", FMT), ctx.swipe_distance)
            else:
                ex, ey = pair(to, "to", FMT)
                end = point_from_1000(ex, ey, "to", FMT)
            return Parsed(build(FMT, Swipe, start=point, end=end), thought)
        if duration_ms is not None and duration_ms > DEFAULT_DURATION_MS:
            return Parsed(build(FMT, LongPress, point=point, duration=min(duration_ms / 1000, 60.0)), thought)
        return Parsed(Click(point=point), thought)
    if "to" in obj:
        raise OutputParseError(f"{FMT} output: 'to' needs a POINT to start from")
    if "PRESS" in obj:
        key = obj["PRESS"]
        cls = PRESS_KEYS.get(key.strip().upper()) if isinstance(key, str) else None
        if cls is None:
            raise OutputParseError(f"{FMT} output: PRESS {key!r:.40} is not one of HOME, BACK, ENTER, APPSELECT")
        return Parsed(cls(), thought)
    if duration_ms is not None:
        return Parsed(Wait(duration=min(max(duration_ms / 1000, 0.001), 60.0)), thought)
    raise OutputParseError(f"{FMT} output: no action: give POINT, TYPE, PRESS, duration or a final STATUS")
