"""The unified action space: one validated pydantic schema, a discriminated union on `type`.

Every agent produces these, the device executes them, every dataset converter maps to and from them
(docs/datasets.md). Model output is data: it is validated here, never evaluated, and text is kept verbatim
(quotes, `;`, `$(reboot)`, newlines, emoji, CJK) -- quoting for a device shell happens in one place in the
device layer, not here.

Conventions
- Points are normalized floats in [0, 1], x first (`Point`); a JSON list `[x, y]` is accepted too. Pixels are
  derived only by `harness.coords`.
- A *target* is either a `point` or an `element` index of the observation's `UITree` (the `[n]` numbers of
  `UITree.to_prompt`); actions with a target need exactly one of them.
- `Swipe` keeps the finger vector (start -> end); `Swipe.direction` names the **finger** direction (GUI Odyssey
  and AgentCPM "scroll UP" = finger up).
- `Scroll.direction` names where the **viewport** moves (android_world's convention): "down" reveals content
  further down, so the finger moves UP. `Scroll.to_swipe` resolves it into a finger `Swipe`.
- Terminal actions (`is_terminal`): COMPLETE, IMPOSSIBLE and ANSWER end an episode. ANSWER is terminal because
  screen question answering (ScreenQA) is a single answer per question; an agent that wants to report
  something and keep going has no such action in this space.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Annotated, Any, ClassVar, Literal

from pydantic import (
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    TypeAdapter,
    ValidationError,
    field_validator,
    model_validator,
)
from pydantic_core import PydanticCustomError

from harness import coords
from harness.errors import ActionValidationError

_CONFIG = ConfigDict(frozen=True, extra="forbid", allow_inf_nan=False)


def _no_bool(value: Any) -> Any:
    """Refuse booleans where numbers are expected (pydantic's lax mode would read True as 1)."""
    if isinstance(value, bool):
        raise PydanticCustomError("not_a_number", "{value} is a boolean, expected a number", {"value": repr(value)})
    return value


Number = Annotated[float, BeforeValidator(_no_bool)]
Index = Annotated[int, BeforeValidator(_no_bool), Field(ge=0)]


class Point(BaseModel):
    """A normalized point, x first, each coordinate in [0, 1]. Also accepts `[x, y]`."""

    model_config = _CONFIG
    x: Number
    y: Number

    @model_validator(mode="before")
    @classmethod
    def _from_list(cls, data: Any) -> Any:
        if isinstance(data, (list, tuple)):
            if len(data) != 2:
                raise PydanticCustomError("point_len", "a point list must be [x, y], got {n} numbers", {"n": len(data)})
            return {"x": data[0], "y": data[1]}
        return data

    @field_validator("x", "y")
    @classmethod
    def _unit(cls, v: float) -> float:
        if not (0.0 <= v <= 1.0):
            raise PydanticCustomError("out_of_range", "{value} is outside [0, 1]", {"value": v})
        return v

    def as_tuple(self) -> tuple[float, float]:
        return (self.x, self.y)


class _Action(BaseModel):
    model_config = _CONFIG


class _Target(_Action):
    """Mixin: `point` or `element`, exactly one (at most one when `_TARGET_OPTIONAL`, as for TYPE)."""

    point: Point | None = None
    element: Index | None = None
    _TARGET_OPTIONAL: ClassVar[bool] = False

    @model_validator(mode="after")
    def _one_target(self) -> _Target:
        have = (self.point is not None) + (self.element is not None)
        if have == 2:
            raise PydanticCustomError("target", "give exactly one of 'point' or 'element', not both")
        if have == 0 and not self._TARGET_OPTIONAL:
            raise PydanticCustomError("target", "a target is required: give exactly one of 'point' or 'element'")
        return self

    @property
    def target(self) -> Point | int | None:
        return self.point if self.point is not None else self.element


class Click(_Target):
    type: Literal["CLICK"] = "CLICK"


class LongPress(_Target):
    type: Literal["LONG_PRESS"] = "LONG_PRESS"
    duration: Number = Field(1.0, gt=0, le=60, description="seconds")


FingerDirection = Literal["up", "down", "left", "right"]


def _finger_direction(dx: float, dy: float) -> FingerDirection:
    # GUI Odyssey AMS rule: |dx| > |dy| -> horizontal, else vertical (ties -> vertical); y grows downwards
    if abs(dx) > abs(dy):
        return "right" if dx > 0 else "left"
    return "down" if dy > 0 else "up"


class Swipe(_Action):
    """A finger movement from `start` to `end` (normalized)."""

    type: Literal["SWIPE"] = "SWIPE"
    start: Point
    end: Point
    duration: Number = Field(0.3, gt=0, le=60, description="seconds")

    @property
    def direction(self) -> FingerDirection:
        """Where the FINGER moves (not the content): |dx| > |dy| -> left/right, else up/down."""
        return _finger_direction(self.end.x - self.start.x, self.end.y - self.start.y)


_OPPOSITE: dict[str, FingerDirection] = {"up": "down", "down": "up", "left": "right", "right": "left"}
SCROLL_MARGIN = 0.1  # fraction of the scrolled area kept free on each side of the swipe
SCROLL_SECONDS = 0.3  # how long the finger swipe of a SCROLL lasts (`Scroll.to_swipe`)


class Scroll(_Action):
    """Move the VIEWPORT in `direction` (android_world): "down" shows content further down (finger moves UP).

    `element` names the scrollable to scroll (default: the whole screen); `distance` is the finger travel as a
    fraction of that area's usable span (the area minus `SCROLL_MARGIN` on each side), in (0, 1].
    """

    type: Literal["SCROLL"] = "SCROLL"
    direction: Literal["up", "down", "left", "right"]
    element: Index | None = None
    distance: Number = Field(0.5, gt=0, le=1)

    @property
    def finger_direction(self) -> FingerDirection:
        return _OPPOSITE[self.direction]

    def to_swipe(
        self,
        area_bounds_px: tuple[int, int, int, int] | None,
        screen_size: tuple[int, int],
        duration: float = SCROLL_SECONDS,
    ) -> Swipe:
        """The finger `Swipe` performing this scroll over `area_bounds_px` (l, t, r, b) or the whole screen.

        The swipe is centred on the area and stays inside it with a `SCROLL_MARGIN` margin on each side.
        """
        w, h = screen_size
        if w <= 0 or h <= 0:
            raise ActionValidationError(f"SCROLL.to_swipe: screen_size {screen_size!r} must be positive")
        l, t, r, b = area_bounds_px if area_bounds_px is not None else (0, 0, w, h)
        l, t, r, b = max(l, 0), max(t, 0), min(r, w), min(b, h)
        if r <= l or b <= t:
            raise ActionValidationError(f"SCROLL.to_swipe: area {area_bounds_px!r} is empty on a {w}x{h} screen")
        cx, cy = (l + r) / 2, (t + b) / 2
        fx, fy = {"up": (0, -1), "down": (0, 1), "left": (-1, 0), "right": (1, 0)}[self.finger_direction]
        half_x = (r - l) * (1 - 2 * SCROLL_MARGIN) * self.distance / 2
        half_y = (b - t) * (1 - 2 * SCROLL_MARGIN) * self.distance / 2
        start = (cx - fx * half_x, cy - fy * half_y)
        end = (cx + fx * half_x, cy + fy * half_y)

        def norm(p: tuple[float, float]) -> Point:  # nearest pixel inside the area, as its centre
            px = (min(max(round(p[0]), l), r - 1), min(max(round(p[1]), t), b - 1))
            x, y = coords.from_pixels(px, (w, h))
            return Point(x=x, y=y)

        return Swipe(start=norm(start), end=norm(end), duration=duration)


class TypeText(_Target):
    """Type `text` (verbatim) into the focused field, or focus `point` / `element` first.

    `clear` empties the field first (then `text` may be empty); `submit` presses ENTER afterwards.
    """

    type: Literal["TYPE"] = "TYPE"
    text: str
    clear: bool = False
    submit: bool = False
    _TARGET_OPTIONAL: ClassVar[bool] = True

    @field_validator("text")
    @classmethod
    def _typeable(cls, text: str) -> str:
        bad = untypeable(text)
        if bad is not None:
            pos, ch = bad
            raise PydanticCustomError(
                "untypeable_text",
                "'text' has {what} at position {pos}: no device can type it",
                {"what": describe_char(ch), "pos": pos},
            )
        return text

    @model_validator(mode="after")
    def _text_or_clear(self) -> TypeText:
        if self.text == "" and not self.clear:
            raise PydanticCustomError("empty_text", "'text' is empty; an empty TYPE needs clear=true")
        return self


def untypeable(text: str) -> tuple[int, str] | None:
    """(position, character) of the first character no device can type, or None. Refused: lone UTF-16
    surrogates (U+D800-U+DFFF: not text, cannot be encoded) and control characters (C0, DEL, C1) other than
    newline and tab, which are typed (docs/scoring.md, the typing contract)."""
    for i, c in enumerate(text):
        o = ord(c)
        if 0xD800 <= o <= 0xDFFF or (o < 0x20 and c not in "\n\t") or 0x7F <= o <= 0x9F:
            return i, c
    return None


def describe_char(c: str) -> str:
    o = ord(c)
    kind = {"\n": "a newline", "\t": "a tab"}.get(c) or (
        "a lone surrogate" if 0xD800 <= o <= 0xDFFF else "a control character"
    )
    return f"{kind} U+{o:04X}"


class Back(_Action):
    type: Literal["BACK"] = "BACK"


class Home(_Action):
    type: Literal["HOME"] = "HOME"


class Enter(_Action):
    type: Literal["ENTER"] = "ENTER"


class Recent(_Action):
    type: Literal["RECENT"] = "RECENT"


class Wait(_Action):
    type: Literal["WAIT"] = "WAIT"
    duration: Number = Field(1.0, gt=0, le=60, description="seconds")


class OpenApp(_Action):
    """Launch an app by its label (`name`, e.g. "Notes") and/or its `package`; at least one."""

    type: Literal["OPEN_APP"] = "OPEN_APP"
    name: str | None = None
    package: str | None = None

    @model_validator(mode="after")
    def _some_app(self) -> OpenApp:
        if not (self.name or self.package):
            raise PydanticCustomError("app", "give 'name' or 'package' (non-empty)")
        return self


class Complete(_Action):
    type: Literal["COMPLETE"] = "COMPLETE"
    answer: str | None = None


class Impossible(_Action):
    type: Literal["IMPOSSIBLE"] = "IMPOSSIBLE"
    reason: str | None = None


class Answer(_Action):
    """Answer a question about the screen: free `text` and/or the answering `elements` (UITree indices, ranked
    best first, as ScreenQA's annotators give them), or `no_answer` (the screen does not answer the question)."""

    type: Literal["ANSWER"] = "ANSWER"
    text: str | None = None
    elements: list[Index] | None = None
    no_answer: bool | None = None  # true: "no answer" (then no text and no elements)

    @model_validator(mode="after")
    def _something(self) -> Answer:
        if self.no_answer:
            if self.text is not None or self.elements:
                raise PydanticCustomError("answer", "a 'no_answer' answer has no 'text' and no 'elements'")
            return self
        if self.text is None and self.elements is None:
            raise PydanticCustomError("answer", "give 'text' or 'elements' (or both), or 'no_answer'")
        return self


Action = Annotated[
    Click
    | LongPress
    | Swipe
    | Scroll
    | TypeText
    | Back
    | Home
    | Enter
    | Recent
    | Wait
    | OpenApp
    | Complete
    | Impossible
    | Answer,
    Field(discriminator="type"),
]
ACTION_TYPES: tuple[str, ...] = (
    "CLICK",
    "LONG_PRESS",
    "SWIPE",
    "SCROLL",
    "TYPE",
    "BACK",
    "HOME",
    "ENTER",
    "RECENT",
    "WAIT",
    "OPEN_APP",
    "COMPLETE",
    "IMPOSSIBLE",
    "ANSWER",
)
TERMINAL_TYPES: frozenset[str] = frozenset({"COMPLETE", "IMPOSSIBLE", "ANSWER"})


def gesture_seconds(action_type: str, duration: float | None = None) -> float:
    """How long an action of `action_type` keeps the finger down or waits: its `duration` (seconds), else the
    schema's default for LONG_PRESS, SWIPE and WAIT; SCROLL_SECONDS for a SCROLL; 0 for any other action."""
    if action_type == "SCROLL":
        return SCROLL_SECONDS
    cls = {"LONG_PRESS": LongPress, "SWIPE": Swipe, "WAIT": Wait}.get(action_type)
    if cls is None:
        return 0.0
    return float(duration) if duration is not None else float(cls.model_fields["duration"].default)


_ADAPTER: TypeAdapter[Any] = TypeAdapter(Action)


# --- parsing with readable errors ---------------------------------------------------------------------
def _short(value: Any, limit: int = 60) -> str:
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _message(err: Mapping[str, Any], raw: Any) -> str:
    loc: list[str] = []
    for part in err.get("loc", ()):
        if isinstance(part, int) and loc:
            loc[-1] += f"[{part}]"
        else:
            loc.append(str(part))
    kind = err.get("type", "")
    ctx = err.get("ctx") or {}
    if kind == "union_tag_invalid":
        return f"unknown action type {ctx.get('tag')!r}; expected one of {', '.join(ACTION_TYPES)}"
    if kind == "union_tag_not_found":
        return f"missing field 'type'; expected one of {', '.join(ACTION_TYPES)}"
    if kind == "model_attributes_type" and not loc:
        return f"an action must be a JSON object, got {type(raw).__name__}"
    if kind == "missing":
        return f"missing field {'.'.join(loc[1:])!r} for {loc[0]}" if len(loc) > 1 else "missing field"
    path = ".".join(loc) if loc else "action"
    if kind == "extra_forbidden":
        return f"{path}: unexpected field (value {_short(err.get('input'))})"
    if kind in {"out_of_range", "not_a_number", "point_len", "target", "empty_text", "app", "answer"}:
        return f"{path}: {err['msg']}"
    msg = err.get("msg", kind)
    return f"{path}: {_short(err.get('input'))} -- {msg[:1].lower()}{msg[1:]}"


def parse_action(data: dict[str, Any] | str | bytes) -> Action:
    """Validate a dict (or a JSON text) into an `Action`. Raises `ActionValidationError` naming field and value.

    The pydantic `ValidationError` (or the JSON error) is kept as `__cause__`.
    """
    if isinstance(data, (str, bytes)):
        try:
            data = json.loads(data)
        except (json.JSONDecodeError, UnicodeDecodeError) as exc:
            where = f" at line {exc.lineno} column {exc.colno}" if isinstance(exc, json.JSONDecodeError) else ""
            raise ActionValidationError(f"action is not valid JSON{where}: {exc}") from exc
    if not isinstance(data, dict):
        raise ActionValidationError(f"an action must be a JSON object, got {type(data).__name__}")
    try:
        return _ADAPTER.validate_python(data)
    except ValidationError as exc:
        msgs = list(dict.fromkeys(_message(e, data) for e in exc.errors(include_url=False)))
        raise ActionValidationError("invalid action: " + "; ".join(msgs)) from exc


def action_to_dict(action: Action) -> dict[str, Any]:
    """JSON-ready dict, `type` first, unset optional fields dropped; `parse_action` reads it back."""
    return action.model_dump(mode="json", exclude_none=True)


def is_terminal(action: Action) -> bool:
    """True for COMPLETE, IMPOSSIBLE and ANSWER: the episode ends after them (see the module docstring)."""
    return action.type in TERMINAL_TYPES


def _where(a: _Target) -> str:
    if a.element is not None:
        return f"element [{a.element}]"
    if a.point is not None:
        return f"({a.point.x:.3f}, {a.point.y:.3f})"
    return "focused field"


def _clip(text: str, limit: int = 40) -> str:
    one_line = text.replace("\n", "\\n")
    return json.dumps(one_line if len(one_line) <= limit else one_line[: limit - 1] + "…", ensure_ascii=False)


def describe(action: Action) -> str:
    """A short one-line human description for logs and reports."""
    t = action.type
    if isinstance(action, Click):
        return f"click {_where(action)}"
    if isinstance(action, LongPress):
        return f"long press {_where(action)} for {action.duration:g}s"
    if isinstance(action, Swipe):
        s, e = action.start, action.end
        return f"swipe {action.direction} ({s.x:.3f}, {s.y:.3f}) -> ({e.x:.3f}, {e.y:.3f})"
    if isinstance(action, Scroll):
        where = f"element [{action.element}]" if action.element is not None else "screen"
        return f"scroll {action.direction} {where} (finger {action.finger_direction})"
    if isinstance(action, TypeText):
        flags = "".join([" after clearing" if action.clear else "", " then ENTER" if action.submit else ""])
        target = "" if action.target is None else f" into {_where(action)}"
        return f"type {_clip(action.text)}{target}{flags}"
    if isinstance(action, Wait):
        return f"wait {action.duration:g}s"
    if isinstance(action, OpenApp):
        return "open app " + " ".join(
            p for p in (action.name and _clip(action.name), action.package and f"({action.package})") if p
        )
    if isinstance(action, Complete):
        return "complete" + (f": {_clip(action.answer)}" if action.answer else "")
    if isinstance(action, Impossible):
        return "impossible" + (f": {_clip(action.reason)}" if action.reason else "")
    if isinstance(action, Answer):
        if action.no_answer:
            return "answer: no answer"
        parts = [_clip(action.text)] if action.text is not None else []
        if action.elements is not None:
            parts.append("elements " + ",".join(f"[{i}]" for i in action.elements))
        return "answer " + " ".join(parts)
    return {"BACK": "press back", "HOME": "press home", "ENTER": "press enter", "RECENT": "open recents"}.get(t, t)
