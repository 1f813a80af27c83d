"""Shared pieces of the model-output parsers: the parse context, JSON extraction, a safe string-literal
unescape, and coordinate conversion through `harness.coords` (never by hand).

Nothing here evaluates model text: JSON goes through `json.loads`, call syntax through the small tokenizer in
`uitars.py`, and quoted strings through `unescape_literal`, which only knows a fixed table of escapes.
"""

from __future__ import annotations

import json
import math
import re
from dataclasses import dataclass
from typing import Any, Literal

from harness import coords
from harness.actions import Action, Point
from harness.coords import ScreenMapping
from harness.errors import ActionValidationError

CoordinateSpace = Literal["image_pixels", "relative_1000"]
DIRECTIONS = ("up", "down", "left", "right")


class OutputParseError(ActionValidationError):
    """A model's output could not be read as an action (names the format, the field and the value)."""


@dataclass(frozen=True)
class ParseContext:
    """What a parser needs to turn model coordinates into normalized device points.

    `mapping.image_size` is the frame the model's pixel coordinates refer to (the image it saw);
    `mapping.device_size` the device screen. `tree` (optional) lets parsers resolve "scroll at (x, y)" into the
    scrollable element under that point.
    """

    mapping: ScreenMapping
    coordinate_space: CoordinateSpace = "image_pixels"
    tree: Any = None  # harness.hierarchy.UITree | None
    swipe_distance: float = 0.3  # finger travel (fraction of the screen) for direction-only swipes


@dataclass(frozen=True)
class Parsed:
    action: Action
    thought: str = ""


# --- JSON ------------------------------------------------------------------------------------------------
_FENCE = re.compile(r"```(?:json|JSON)?\s*(.*?)```", re.DOTALL)


def _balanced_object(text: str, start: int) -> str | None:
    """The `{...}` starting at `start`, braces matched outside JSON strings; None when unbalanced."""
    depth, in_str, esc = 0, False, False
    for i in range(start, len(text)):
        ch = text[i]
        if in_str:
            if esc:
                esc = False
            elif ch == "\\":
                esc = True
            elif ch == '"':
                in_str = False
        elif ch == '"':
            in_str = True
        elif ch == "{":
            depth += 1
        elif ch == "}":
            depth -= 1
            if depth == 0:
                return text[start : i + 1]
    return None


def extract_json_object(text: str, fmt: str) -> dict[str, Any]:
    """The first JSON object in `text` (inside a ``` fence if there is one). Raises `OutputParseError`."""
    candidates = [m.group(1) for m in _FENCE.finditer(text)] + [text]
    last_error = "no JSON object found"
    for chunk in candidates:
        start = chunk.find("{")
        while start != -1:
            body = _balanced_object(chunk, start)
            if body is None:
                last_error = "the JSON object is not closed (unbalanced braces)"
                break
            try:
                obj = json.loads(body)
            except json.JSONDecodeError as exc:
                last_error = f"invalid JSON at line {exc.lineno} column {exc.colno}: {exc.msg}"
            else:
                if isinstance(obj, dict):
                    return obj
            start = chunk.find("{", start + 1)
    raise OutputParseError(f"{fmt} output: {last_error}")


# --- string literals -------------------------------------------------------------------------------------
_ESCAPES = {"\\": "\\", "'": "'", '"': '"', "n": "\n", "t": "\t", "r": "\r", "0": "\0"}


def unescape_literal(body: str) -> str:
    """Undo backslash escapes of a quoted string body: \\\\ \\' \\" \\n \\t \\r \\0 \\uXXXX.

    Anything else keeps its backslash (`\\d` stays `\\d`). This is a table lookup, not an evaluator.
    """
    out: list[str] = []
    i, n = 0, len(body)
    while i < n:
        ch = body[i]
        if ch != "\\" or i + 1 == n:
            out.append(ch)
            i += 1
            continue
        nxt = body[i + 1]
        if nxt in _ESCAPES:
            out.append(_ESCAPES[nxt])
            i += 2
        elif nxt == "u" and re.fullmatch(r"[0-9a-fA-F]{4}", body[i + 2 : i + 6] or ""):
            out.append(chr(int(body[i + 2 : i + 6], 16)))
            i += 6
        else:
            out.append(ch)
            i += 1
    return "".join(out)


# --- numbers and coordinates -----------------------------------------------------------------------------
def number(value: Any, what: str, fmt: str) -> float:
    """A finite int/float (not a bool, not a string) or `OutputParseError` naming `what`."""
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        raise OutputParseError(f"{fmt} output: {what} must be a number, got {value!r:.60}")
    return float(value)


def pair(value: Any, what: str, fmt: str) -> tuple[float, float]:
    if not isinstance(value, (list, tuple)) or len(value) != 2:
        raise OutputParseError(f"{fmt} output: {what} must be [x, y], got {value!r:.60}")
    return number(value[0], f"{what}[0]", fmt), number(value[1], f"{what}[1]", fmt)


def point_from_1000(x: float, y: float, what: str, fmt: str) -> Point:
    """[0, 1000] relative (x, y) -> normalized Point (AgentCPM-GUI, UI-TARS-1.0, Qwen3-VL)."""
    try:
        nx, ny = coords.from_1000((x, y))
    except ValueError as exc:
        raise OutputParseError(f"{fmt} output: {what} ({x:g}, {y:g}): {exc}") from None
    return Point(x=nx, y=ny)


def point_from_image(x: float, y: float, ctx: ParseContext, what: str, fmt: str) -> Point:
    """Absolute pixel (x, y) of the image the model saw -> normalized device Point (via `ScreenMapping`)."""
    try:
        dev = ctx.mapping.image_to_device((x, y))
        nx, ny = coords.from_pixels(dev, ctx.mapping.device_size)
    except ValueError as exc:
        w, h = ctx.mapping.image_size
        raise OutputParseError(
            f"{fmt} output: {what} ({x:g}, {y:g}) is not a pixel of the {w}x{h} image: {exc}"
        ) from None
    return Point(x=nx, y=ny)


def model_point(x: float, y: float, ctx: ParseContext, what: str, fmt: str) -> Point:
    if ctx.coordinate_space == "relative_1000":
        return point_from_1000(x, y, what, fmt)
    return point_from_image(x, y, ctx, what, fmt)


def finger_end(start: Point, direction: str, distance: float) -> Point:
    """End of a finger movement from `start` in `direction` (finger direction), clamped to the screen."""
    dx, dy = {"up": (0, -1), "down": (0, 1), "left": (-1, 0), "right": (1, 0)}[direction]
    return Point(x=min(max(start.x + dx * distance, 0.0), 1.0), y=min(max(start.y + dy * distance, 0.0), 1.0))


def centre_swipe(direction: str, distance: float) -> tuple[Point, Point]:
    """A finger swipe in `direction` centred on the screen."""
    dx, dy = {"up": (0, -1), "down": (0, 1), "left": (-1, 0), "right": (1, 0)}[direction]
    h = distance / 2
    return Point(x=0.5 - dx * h, y=0.5 - dy * h), Point(x=0.5 + dx * h, y=0.5 + dy * h)


def scrollable_at(ctx: ParseContext, p: Point) -> int | None:
    """Index of the innermost scrollable element containing normalized `p` (None without a tree)."""
    tree = ctx.tree
    if tree is None:
        return None
    px, py = coords.to_pixels(p.as_tuple(), ctx.mapping.device_size)
    el = tree.at(px, py)
    while el is not None:
        if el.scrollable:
            return el.index
        el = tree.get(el.parent) if el.parent is not None else None
    return None


def direction(value: Any, what: str, fmt: str) -> str:
    d = value.strip().lower() if isinstance(value, str) else None
    if d not in DIRECTIONS:
        raise OutputParseError(f"{fmt} output: {what} must be one of up, down, left, right; got {value!r:.60}")
    return d


def build(fmt: str, cls: type, **fields: Any) -> Action:
    """Construct an action, turning pydantic's complaint into an `OutputParseError` naming the format."""
    from pydantic import ValidationError

    try:
        return cls(**fields)
    except ValidationError as exc:
        msgs = "; ".join(
            f"{'.'.join(str(p) for p in e['loc']) or 'action'}: {e['msg']}" for e in exc.errors(include_url=False)
        )
        raise OutputParseError(f"{fmt} output: invalid {cls.__name__} action: {msgs}") from exc
