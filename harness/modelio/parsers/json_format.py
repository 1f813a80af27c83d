"""The project's own output format: `{"thought": "...", "action": {<unified action>}}`.

The action is validated by `harness.actions.parse_action` (points normalized [0, 1], x first, or `element`
indices of the numbered element list). A bare action object (with `type` at the top level) is accepted too.
"""

from __future__ import annotations

from typing import Any

from harness.actions import parse_action
from harness.errors import ActionValidationError

from .common import OutputParseError, ParseContext, Parsed, extract_json_object

FMT = "json"


def parse_json(text: str, ctx: ParseContext, tool_calls: list[dict[str, Any]] | None = None) -> Parsed:
    obj = extract_json_object(text, FMT)
    thought = obj.get("thought", "")
    if not isinstance(thought, str):
        raise OutputParseError(f"{FMT} output: 'thought' must be a string, got {type(thought).__name__}")
    action: Any = obj.get("action")
    if action is None and "type" in obj:
        action = {k: v for k, v in obj.items() if k != "thought"}
    if action is None:
        raise OutputParseError(
            f'{FMT} output: missing field \'action\' (expected {{"thought": "...", "action": {{"type": ...}}}})'
        )
    try:
        return Parsed(parse_action(action), thought)
    except ActionValidationError as exc:
        raise OutputParseError(f"{FMT} output: {exc}") from exc
