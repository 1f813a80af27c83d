"""Qwen2.5-VL `mobile_use` tool calls.

Facts (Qwen2.5-VL cookbook's mobile agent tool, as used by AgentCPM-GUI's `eval/utils/qwen_mobile_tool.py`):
- the model answers `<tool_call>{"name": "mobile_use", "arguments": {...}}</tool_call>`, optionally preceded by
  reasoning (`<thinking>...</thinking>` in some prompts);
- arguments: `action` in key(text), click(coordinate), long_press(coordinate, time), swipe(coordinate,
  coordinate2), type(text), system_button(button: Back | Home | Menu | Enter), open(text), wait(time),
  terminate(status: success | failure), answer(text);
- coordinates are absolute pixels of the image the model saw (its smart-resized size, reported to the model as
  the screen resolution); swipe goes from `coordinate` to `coordinate2` (the finger).
A server may also return the call as a native OpenAI `tool_calls` entry; it is read the same way.

Our choices: "Menu" has no unified action and is refused (the model is asked to repair); `answer` becomes the
terminal ANSWER; a swipe given with a `direction` instead of `coordinate2` moves the finger that way;
`ctx.coordinate_space = "relative_1000"` reads Qwen3-VL style [0, 1000] coordinates.
"""

from __future__ import annotations

import json
import re
from typing import Any

from harness.actions import (
    Answer,
    Back,
    Click,
    Complete,
    Enter,
    Home,
    Impossible,
    LongPress,
    OpenApp,
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
    centre_swipe,
    direction,
    extract_json_object,
    finger_end,
    model_point,
    number,
    pair,
)

FMT = "qwen"
_TOOL_CALL = re.compile(r"<tool_call>(.*?)(?:</tool_call>|$)", re.DOTALL)
_THINK = re.compile(r"</?(thinking|think|conclusion)>", re.IGNORECASE)
_BUTTONS = {"back": Back, "home": Home, "enter": Enter, "recent": Recent, "app_switch": Recent}
_KEYS = {
    "back": Back,
    "keycode_back": Back,
    "home": Home,
    "keycode_home": Home,
    "enter": Enter,
    "keycode_enter": Enter,
    "keycode_app_switch": Recent,
}


def _seconds(args: dict[str, Any], default: float) -> float:
    if args.get("time") is None:
        return default
    return min(max(number(args["time"], "time", FMT), 0.001), 60.0)


def _point(args: dict[str, Any], key: str, ctx: ParseContext):
    if key not in args:
        raise OutputParseError(f"{FMT} output: action {args.get('action')!r} needs '{key}': [x, y]")
    x, y = pair(args[key], key, FMT)
    return model_point(x, y, ctx, key, FMT)


def _text(args: dict[str, Any], key: str = "text") -> str:
    value = args.get(key)
    if not isinstance(value, str):
        raise OutputParseError(f"{FMT} output: action {args.get('action')!r} needs '{key}' as a string")
    return value


def to_action(args: dict[str, Any], ctx: ParseContext) -> Any:
    act = args.get("action")
    if act == "click":
        return Click(point=_point(args, "coordinate", ctx))
    if act == "long_press":
        return build(FMT, LongPress, point=_point(args, "coordinate", ctx), duration=_seconds(args, 1.0))
    if act == "swipe":
        if "coordinate2" in args:
            return build(FMT, Swipe, start=_point(args, "coordinate", ctx), end=_point(args, "coordinate2", ctx))
        d = direction(args.get("direction"), "direction", FMT)
        if "coordinate" in args:
            s = _point(args, "coordinate", ctx)
            return build(FMT, Swipe, start=s, end=finger_end(s, d, ctx.swipe_distance))
        s, e = centre_swipe(d, ctx.swipe_distance)
        return build(FMT, Swipe, start=s, end=e)
    if act == "type":
        return build(FMT, TypeText, text=_text(args))
    if act == "key":
        key = _text(args).strip().lower()
        if key not in _KEYS:
            raise OutputParseError(f"{FMT} output: key {key!r:.30} is not supported (back, home, enter)")
        return _KEYS[key]()
    if act == "system_button":
        button = _text(args, "button").strip().lower()
        if button == "menu":
            raise OutputParseError(
                f"{FMT} output: system_button 'Menu' has no equivalent here; use Back, Home or Enter"
            )
        if button not in _BUTTONS:
            raise OutputParseError(f"{FMT} output: system_button {button!r:.30} is not Back, Home or Enter")
        return _BUTTONS[button]()
    if act in ("open", "open_app"):
        return build(FMT, OpenApp, name=_text(args).strip() or None)
    if act == "wait":
        return Wait(duration=_seconds(args, 1.0))
    if act == "terminate":
        status = str(args.get("status", "")).strip().lower()
        if status == "success":
            return Complete()
        if status in ("failure", "fail"):
            return Impossible(reason="terminate: failure")
        raise OutputParseError(f"{FMT} output: terminate status {status!r:.30} is not success or failure")
    if act == "answer":
        return build(FMT, Answer, text=_text(args))
    raise OutputParseError(
        f"{FMT} output: unknown action {act!r:.40}; expected one of click, long_press, swipe, "
        f"type, key, system_button, open, wait, terminate, answer"
    )


def _arguments(call: Any) -> dict[str, Any]:
    if not isinstance(call, dict):
        raise OutputParseError(f"{FMT} output: a tool call must be a JSON object")
    name = call.get("name")
    if name not in (None, "mobile_use"):
        raise OutputParseError(f"{FMT} output: unknown tool {name!r:.40}; expected 'mobile_use'")
    args = call.get("arguments", call if "action" in call else None)
    if isinstance(args, str):
        try:
            args = json.loads(args)
        except json.JSONDecodeError as exc:
            raise OutputParseError(f"{FMT} output: tool call arguments are not JSON: {exc.msg}") from None
    if not isinstance(args, dict) or "action" not in args:
        raise OutputParseError(f"{FMT} output: the tool call has no arguments.action")
    return args


def parse_qwen(text: str, ctx: ParseContext, tool_calls: list[dict[str, Any]] | None = None) -> Parsed:
    text = text or ""
    m = _TOOL_CALL.search(text)
    thought = _THINK.sub("", text[: m.start()] if m else "").strip()
    thought = re.sub(r"^\s*Thought\s*:\s*", "", thought)
    if tool_calls:
        fn = tool_calls[0].get("function") or {}
        args = _arguments({"name": fn.get("name"), "arguments": fn.get("arguments")})
        return Parsed(to_action(args, ctx), _THINK.sub("", text).strip())
    if m:
        call = extract_json_object(m.group(1), FMT)
    else:
        call = extract_json_object(text, FMT)
        thought = ""
    return Parsed(to_action(_arguments(call), ctx), thought)
