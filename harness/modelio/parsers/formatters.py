"""The parsers' inverse: a unified `Action` written as a model's output in one of the output formats (`json`,
`agentcpm`, `uitars`, `qwen`), as the `openai` agent's prompts ask for it. Training data (`droidharness export
--format sft`) uses it for the target text of a step.

`format_action(fmt, action, ctx, thought)` first LOWERS the action to what the format can say (`lower`): element
targets become the element's centre (the formats other than `json` have no element indices), a SCROLL becomes the
finger swipe it performs where the format has no scroll, COMPLETE with an answer becomes the format's answer, a
TYPE into the focused field drops its target. An action the format cannot say at all (AgentCPM-GUI has no
OPEN_APP; no format but `json` clears a field first; ...) raises `UnexpressibleAction` naming the format and why.
Then it writes the lowered action. Reading the text back with the format's parser (`parse_output`, the same
`ParseContext`) gives the lowered action, up to the rounding of coordinates to the format's integers:
`same_action` is that check.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable
from typing import Any

from harness import coords
from harness.actions import (
    Action,
    Answer,
    Back,
    Click,
    Complete,
    Enter,
    Home,
    Impossible,
    LongPress,
    OpenApp,
    Point,
    Recent,
    Scroll,
    Swipe,
    TypeText,
    Wait,
    action_to_dict,
)
from harness.errors import ActionValidationError

from .agentcpm import DEFAULT_DURATION_MS
from .common import ParseContext
from .uitars import WAIT_SECONDS


class UnexpressibleAction(ActionValidationError):
    """The output format has no way to say this action (names the format and the reason)."""


def _no(fmt: str, action: Action, why: str) -> UnexpressibleAction:
    return UnexpressibleAction(f"{fmt} output cannot express {action.type}: {why}")


# --- lowering ----------------------------------------------------------------------------------------------
def _element_point(fmt: str, action: Action, index: int, ctx: ParseContext) -> Point:
    if ctx.tree is None:
        raise _no(fmt, action, f"element [{index}] without the screen's hierarchy")
    try:
        cx, cy = ctx.tree[index].center
    except (IndexError, KeyError):
        raise _no(fmt, action, f"element [{index}] is not on the screen") from None
    x, y = coords.from_pixels((cx, cy), ctx.mapping.device_size)
    return Point(x=x, y=y)


Targeted = Click | LongPress | TypeText


def _to_point(fmt: str, action: Targeted, ctx: ParseContext) -> Action:
    """The action on its element's centre point (unchanged when it has no element target)."""
    if action.element is None:
        return action
    return action.model_copy(update={"element": None, "point": _element_point(fmt, action, action.element, ctx)})


def _focused(ctx: ParseContext, action: TypeText) -> bool:
    """Whether TYPE's target is the field that already has the focus (then typing needs no target)."""
    if ctx.tree is None:
        return False
    if action.element is not None:
        try:
            return bool(ctx.tree[action.element].focused)
        except (IndexError, KeyError):
            return False
    if action.point is not None:
        px, py = coords.to_pixels(action.point.as_tuple(), ctx.mapping.device_size)
        el = ctx.tree.at(px, py)
        return el is not None and bool(el.focused)
    return True


def lower(fmt: str, action: Action, ctx: ParseContext, keep_elements: bool = False) -> Action:
    """`action` as format `fmt` can say it (module docstring); `keep_elements`: the `json` format keeps element
    indices (the prompt lists the elements). Raises UnexpressibleAction."""
    if fmt == "json":  # a SCROLL's element is the list to scroll (no point form); ANSWER's are the answer
        return _to_point(fmt, action, ctx) if isinstance(action, Targeted) and not keep_elements else action
    if fmt not in ("agentcpm", "uitars", "qwen"):
        raise UnexpressibleAction(f"unknown output format {fmt!r}")
    if isinstance(action, TypeText):
        if action.clear:
            raise _no(fmt, action, "clearing the field first (only the json format has 'clear')")
        if action.submit and fmt != "uitars":
            raise _no(fmt, action, "pressing ENTER after typing (a separate step in this format)")
        if fmt == "agentcpm":
            return _to_point(fmt, action, ctx)
        if fmt != "agentcpm" and action.target is not None:
            if not _focused(ctx, action):
                raise _no(fmt, action, "typing into a field that does not have the focus (a tap first)")
            return action.model_copy(update={"element": None, "point": None})
        return action
    if isinstance(action, (Click, LongPress)):
        return _to_point(fmt, action, ctx)
    if isinstance(action, Scroll):
        if fmt == "uitars":
            return action.model_copy(update={"distance": 0.5})  # scroll() has no distance: the parser's default
        area = None
        if action.element is not None:
            if ctx.tree is None:
                raise _no(fmt, action, f"element [{action.element}] without the screen's hierarchy")
            area = ctx.tree[action.element].bounds
        return action.to_swipe(area, ctx.mapping.device_size)
    if isinstance(action, Swipe):
        return action.model_copy(update={"duration": Swipe.model_fields["duration"].default})
    if isinstance(action, OpenApp):
        if fmt == "agentcpm":
            raise _no(fmt, action, "AgentCPM-GUI has no action that opens an app")
        if not action.name:
            raise _no(fmt, action, "an app given only by package (the format names apps)")
        return OpenApp(name=action.name)
    if isinstance(action, Complete) and action.answer:
        if fmt == "agentcpm":
            raise _no(fmt, action, "an answer (AgentCPM-GUI's STATUS has none)")
        return Answer(text=action.answer) if fmt == "qwen" else action
    if isinstance(action, Answer):
        if action.text is None or action.elements or action.no_answer:
            raise _no(fmt, action, "an answer that is not a text")
        if fmt == "agentcpm":
            raise _no(fmt, action, "an answer (AgentCPM-GUI's STATUS has none)")
        return Complete(answer=action.text) if fmt == "uitars" else Answer(text=action.text)
    if isinstance(action, Complete):
        return Complete()
    if isinstance(action, Impossible):
        return Impossible(
            reason={"agentcpm": "impossible", "uitars": "call_user: the model asked for the user's help"}.get(
                fmt, "terminate: failure"
            )
        )
    if isinstance(action, LongPress) and fmt == "agentcpm":
        ms = max(DEFAULT_DURATION_MS + 1, round(action.duration * 1000))
        return action.model_copy(update={"duration": min(ms / 1000, 60.0)})
    if isinstance(action, Wait) and fmt == "agentcpm":
        return Wait(duration=min(max(round(action.duration * 1000), 1) / 1000, 60.0))
    return action


# --- writing -----------------------------------------------------------------------------------------------
def _xy(p: Point, ctx: ParseContext) -> list[int]:
    """A normalized point in the format's coordinates: [0, 1000], or pixels of the image the model saw."""
    if ctx.coordinate_space == "relative_1000":
        return list(coords.to_1000(p.as_tuple()))
    return list(ctx.mapping.device_to_image(coords.to_pixels(p.as_tuple(), ctx.mapping.device_size)))


def _json(obj: Any) -> str:
    return json.dumps(obj, ensure_ascii=False)


def write_json(action: Action, ctx: ParseContext, thought: str) -> str:
    return _json({"thought": thought, "action": action_to_dict(action)})


def write_agentcpm(action: Action, ctx: ParseContext, thought: str) -> str:
    ctx1000 = ParseContext(ctx.mapping, "relative_1000", ctx.tree, ctx.swipe_distance)
    out: dict[str, Any] = {"thought": thought}
    if isinstance(action, Click):
        out["POINT"] = _xy(action.point, ctx1000)  # type: ignore[arg-type]  # lowered: a point target
    elif isinstance(action, LongPress):
        out["POINT"] = _xy(action.point, ctx1000)  # type: ignore[arg-type]
        out["duration"] = round(action.duration * 1000)
    elif isinstance(action, Swipe):
        out["POINT"], out["to"] = _xy(action.start, ctx1000), _xy(action.end, ctx1000)
    elif isinstance(action, TypeText):
        if action.point is not None:
            out["POINT"] = _xy(action.point, ctx1000)
        out["TYPE"] = action.text
    elif isinstance(action, (Back, Home, Enter, Recent)):
        out["PRESS"] = {"BACK": "BACK", "HOME": "HOME", "ENTER": "ENTER", "RECENT": "APPSELECT"}[action.type]
    elif isinstance(action, Wait):
        out["duration"] = round(action.duration * 1000)
    elif isinstance(action, Complete):
        out["STATUS"] = "finish"
    elif isinstance(action, Impossible):
        out["STATUS"] = "impossible"
    else:
        raise _no("agentcpm", action, "no such action in the format")
    return json.dumps(out, ensure_ascii=False, separators=(",", ":"))


def _quote(text: str) -> str:
    """A UI-TARS string literal: \\ ' " and newlines escaped (what `unescape_literal` undoes)."""
    esc = text.replace("\\", "\\\\").replace("'", "\\'").replace('"', '\\"')
    return "'" + esc.replace("\n", "\\n").replace("\t", "\\t").replace("\r", "\\r") + "'"


def _box(p: Point, ctx: ParseContext) -> str:
    x, y = _xy(p, ctx)
    return _quote(f"({x},{y})")


def _seconds(value: float) -> str:
    return f"{value:g}"


def write_uitars(action: Action, ctx: ParseContext, thought: str) -> str:
    if isinstance(action, Click):
        call = f"click(start_box={_box(action.point, ctx)})"  # type: ignore[arg-type]
    elif isinstance(action, LongPress):
        extra = "" if action.duration == 1.0 else f", time={_quote(_seconds(action.duration))}"
        call = f"long_press(start_box={_box(action.point, ctx)}{extra})"  # type: ignore[arg-type]
    elif isinstance(action, Swipe):
        call = f"drag(start_box={_box(action.start, ctx)}, end_box={_box(action.end, ctx)})"
    elif isinstance(action, Scroll):
        where = ""
        if action.element is not None:
            if ctx.tree is None:
                raise _no("uitars", action, f"element [{action.element}] without the screen's hierarchy")
            cx, cy = ctx.tree[action.element].center
            x, y = coords.from_pixels((cx, cy), ctx.mapping.device_size)
            where = f"start_box={_box(Point(x=x, y=y), ctx)}, "
        call = f"scroll({where}direction={_quote(action.direction)})"
    elif isinstance(action, TypeText):
        content = action.text + ("\n" if action.submit else "")  # a final newline means: then ENTER
        call = f"type(content={_quote(content)})"
    elif isinstance(action, OpenApp):
        call = f"open_app(app_name={_quote(action.name or '')})"
    elif isinstance(action, (Back, Home, Enter, Recent)):
        call = {"BACK": "press_back()", "HOME": "press_home()", "ENTER": "press_enter()", "RECENT": "press_recent()"}[
            action.type
        ]
    elif isinstance(action, Wait):
        call = "wait()" if action.duration == WAIT_SECONDS else f"wait(time={_quote(_seconds(action.duration))})"
    elif isinstance(action, Complete):
        call = f"finished(content={_quote(action.answer or '')})"
    elif isinstance(action, Impossible):
        call = "call_user()"
    else:
        raise _no("uitars", action, "no such action in the format")
    return f"Thought: {thought}\nAction: {call}" if thought else f"Action: {call}"


def write_qwen(action: Action, ctx: ParseContext, thought: str) -> str:
    args: dict[str, Any]
    if isinstance(action, Click):
        args = {"action": "click", "coordinate": _xy(action.point, ctx)}  # type: ignore[arg-type]
    elif isinstance(action, LongPress):
        args = {"action": "long_press", "coordinate": _xy(action.point, ctx), "time": action.duration}  # type: ignore[arg-type]
    elif isinstance(action, Swipe):
        args = {"action": "swipe", "coordinate": _xy(action.start, ctx), "coordinate2": _xy(action.end, ctx)}
    elif isinstance(action, TypeText):
        args = {"action": "type", "text": action.text}
    elif isinstance(action, (Back, Home, Enter)):
        args = {"action": "system_button", "button": action.type.capitalize()}
    elif isinstance(action, Recent):
        args = {"action": "key", "text": "keycode_app_switch"}
    elif isinstance(action, OpenApp):
        args = {"action": "open", "text": action.name}
    elif isinstance(action, Wait):
        args = {"action": "wait", "time": action.duration}
    elif isinstance(action, Complete):
        args = {"action": "terminate", "status": "success"}
    elif isinstance(action, Impossible):
        args = {"action": "terminate", "status": "failure"}
    elif isinstance(action, Answer):
        args = {"action": "answer", "text": action.text}
    else:
        raise _no("qwen", action, "no such action in the format")
    call = _json({"name": "mobile_use", "arguments": args})
    return (f"<thinking>\n{thought}\n</thinking>\n" if thought else "") + f"<tool_call>\n{call}\n</tool_call>"


WRITERS: dict[str, Callable[[Action, ParseContext, str], str]] = {
    "json": write_json,
    "agentcpm": write_agentcpm,
    "uitars": write_uitars,
    "qwen": write_qwen,
}


def format_action(
    fmt: str, action: Action, ctx: ParseContext, thought: str = "", keep_elements: bool = False
) -> tuple[str, Action]:
    """(the model output saying `action` in format `fmt`, the lowered action that text means). Raises
    UnexpressibleAction."""
    if fmt not in WRITERS:
        raise UnexpressibleAction(f"unknown output format {fmt!r}; expected one of {', '.join(WRITERS)}")
    lowered = lower(fmt, action, ctx, keep_elements)
    return WRITERS[fmt](lowered, ctx, thought), lowered


def coordinate_tolerance(ctx: ParseContext) -> float:
    """How far (normalized) a point may move through the format's integer coordinates and back."""
    if ctx.coordinate_space == "relative_1000":
        return 0.0005 + 1e-9
    w, h = ctx.mapping.image_size
    dw, dh = ctx.mapping.device_size
    return 1.0 / min(w, h) + 1.0 / min(dw, dh) + 1e-9


def same_action(a: Action, b: Action, tol: float) -> bool:
    """Whether two actions are the same, points compared within `tol` and durations within a millisecond."""

    def same(x: Any, y: Any, key: str = "") -> bool:
        if isinstance(x, dict) and isinstance(y, dict):
            return x.keys() == y.keys() and all(same(x[k], y[k], k) for k in x)
        if isinstance(x, list) and isinstance(y, list):
            return len(x) == len(y) and all(same(u, v) for u, v in zip(x, y, strict=True))
        if isinstance(x, (int, float)) and isinstance(y, (int, float)) and not isinstance(x, bool):
            limit = tol if key in ("x", "y") else 0.0011 if key == "duration" else 0.0
            return math.isclose(x, y, abs_tol=limit) or abs(x - y) <= limit
        return bool(x == y)

    return same(action_to_dict(a), action_to_dict(b))


__all__ = [
    "UnexpressibleAction",
    "WRITERS",
    "format_action",
    "lower",
    "same_action",
    "coordinate_tolerance",
]
