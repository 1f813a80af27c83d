"""UI-TARS action strings: `Thought: ...\\nAction: click(start_box='(x,y)')`.

Facts (bytedance/UI-TARS README "Prompt Usage Guide" and `codes/ui_tars/action_parser.py`; the MOBILE_USE
template's action space as quoted by public projects):
- output: optional `Thought:` (or `Reflection:` / `Action_Summary:`) text, then `Action: <call>`; several
  actions are separated by a blank line (we take the first).
- mobile actions: click(start_box), long_press(start_box[, time]), type(content), scroll(start_box, direction),
  drag(start_box, end_box), press_home(), press_back(), open_app(app_name), wait() ("sleep for 5s"),
  finished(content), call_user(). `point=` / `start_point=` / `end_point=` are aliases of the box arguments.
- a box is `(x,y)`, `<|box_start|>(x,y)<|box_end|>`, `<point>x y</point>`, or `[x1,y1,x2,y2]` (-> its centre).
- scroll `direction` = "Show more information on the `direction` side": the viewport moves that way, which is
  exactly `Scroll.direction` (FORMATS: "down" = finger up).
- type: escapes \\' \\" \\n inside content; content ending in a newline means "submit" (press ENTER).
- coordinates: UI-TARS-1.5 (Qwen2.5-VL based) emits absolute pixels of the smart-resized image it saw (factor
  28, 100*28*28 <= pixels <= 16384*28*28); UI-TARS-1.0 / Qwen2-VL based models emit [0, 1000] relative.
  `ctx.coordinate_space` chooses ("image_pixels" | "relative_1000").

Parsing is a hand-written tokenizer: identifiers, `=`, quoted strings (unescaped by `unescape_literal`) and bare
values. A quote only closes a string when the next non-space character is `,` or `)`, so the common unescaped
apostrophe (`type(content='I'm here')`) survives. Nothing is ever evaluated.
"""

from __future__ import annotations

import re
from typing import Any

from harness.actions import (
    Back,
    Click,
    Complete,
    Enter,
    Home,
    Impossible,
    LongPress,
    OpenApp,
    Recent,
    Scroll,
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
    finger_end,
    model_point,
    number,
    scrollable_at,
    unescape_literal,
)

FMT = "uitars"
WAIT_SECONDS = 5.0  # the UI-TARS prompt: wait() = "Sleep for 5s and take a screenshot"
ACTION_NAMES = (
    "click",
    "left_single",
    "left_double",
    "tap",
    "long_press",
    "type",
    "scroll",
    "drag",
    "swipe",
    "press_home",
    "press_back",
    "press_enter",
    "press_recent",
    "home",
    "back",
    "enter",
    "hotkey",
    "press",
    "open_app",
    "wait",
    "finished",
    "call_user",
)
_ACTION_START = re.compile(r"\b(" + "|".join(ACTION_NAMES) + r")\s*\(")
_THOUGHT_PREFIX = re.compile(r"^\s*(Thought|Reflection|Action_Summary)\s*:\s*", re.IGNORECASE)
_IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_.]*")
_NUM = re.compile(r"-?\d+(?:\.\d+)?")
_BOX_TOKENS = ("<|box_start|>", "<|box_end|>", "<point>", "</point>", "<bbox>", "</bbox>")
_ALIASES = {"point": "start_box", "start_point": "start_box", "end_point": "end_box"}


class _Tokens:
    """A cursor over the action string."""

    def __init__(self, s: str) -> None:
        self.s, self.i = s, 0

    def ws(self) -> None:
        while self.i < len(self.s) and self.s[self.i].isspace():
            self.i += 1

    def peek(self) -> str:
        return self.s[self.i] if self.i < len(self.s) else ""

    def expect(self, ch: str, what: str) -> None:
        self.ws()
        if self.peek() != ch:
            got = self.s[self.i : self.i + 20] or "end of text"
            raise OutputParseError(f"{FMT} output: expected {ch!r} {what}, got {got!r}")
        self.i += 1

    def ident(self, what: str) -> str:
        self.ws()
        m = _IDENT.match(self.s, self.i)
        if not m:
            raise OutputParseError(f"{FMT} output: expected {what}, got {self.s[self.i : self.i + 20]!r}")
        self.i = m.end()
        return m.group(0)

    def quoted(self) -> str:
        q = self.s[self.i]
        j = self.i + 1
        while j < len(self.s):
            ch = self.s[j]
            if ch == "\\":
                j += 2
                continue
            if ch == q:
                k = j + 1
                while k < len(self.s) and self.s[k].isspace():
                    k += 1
                if k >= len(self.s) or self.s[k] in ",)":
                    body = self.s[self.i + 1 : j]
                    self.i = j + 1
                    return unescape_literal(body)
            j += 1
        raise OutputParseError(f"{FMT} output: unterminated string starting at {self.s[self.i : self.i + 20]!r}")

    def bare(self) -> str:
        depth, j = 0, self.i
        while j < len(self.s):
            ch = self.s[j]
            if ch in "([":
                depth += 1
            elif ch in ")]":
                if depth == 0:
                    break
                depth -= 1
            elif ch == "," and depth == 0:
                break
            j += 1
        value = self.s[self.i : j].strip()
        self.i = j
        return value


def parse_call(s: str) -> tuple[str, dict[str, str]]:
    """`name(k='v', k2=(1,2))` -> ("name", {"k": "v", "k2": "(1,2)"}). Positional values get keys _0, _1..."""
    t = _Tokens(s)
    name = t.ident("an action name").rsplit(".", 1)[-1]
    t.expect("(", f"after {name!r}")
    args: dict[str, str] = {}
    pos = 0
    while True:
        t.ws()
        if t.peek() == ")":
            t.i += 1
            return name, args
        if not t.peek():
            raise OutputParseError(f"{FMT} output: {name}(...) is not closed with ')'")
        m = _IDENT.match(t.s, t.i)
        key = None
        if m:
            after = m.end()
            while after < len(t.s) and t.s[after].isspace():
                after += 1
            if after < len(t.s) and t.s[after] == "=":
                key, t.i = m.group(0), after + 1
        t.ws()
        value = t.quoted() if t.peek() in ("'", '"') else t.bare()
        if key is None:
            key, pos = f"_{pos}", pos + 1
        args[_ALIASES.get(key, key)] = value
        t.ws()
        if t.peek() == ",":
            t.i += 1
        elif t.peek() != ")":
            raise OutputParseError(f"{FMT} output: expected ',' or ')' in {name}(...), got {t.s[t.i : t.i + 20]!r}")


def split_output(text: str) -> tuple[str, str]:
    """(thought, action string) of a UI-TARS response."""
    idx = text.rfind("Action:")
    if idx != -1:
        thought, action = text[:idx], text[idx + len("Action:") :]
    else:
        m = _ACTION_START.search(text)
        if not m:
            raise OutputParseError(
                f"{FMT} output: no 'Action:' line and no known action call ({', '.join(ACTION_NAMES[:12])}, ...)"
            )
        thought, action = text[: m.start()], text[m.start() :]
    thought = _THOUGHT_PREFIX.sub("", thought.strip(), count=1).strip()
    return thought, action.strip()


def _box_point(value: str, what: str, ctx: ParseContext):
    v = value
    for tok in _BOX_TOKENS:
        v = v.replace(tok, " ")
    nums = [float(n) for n in _NUM.findall(v)]
    if len(nums) == 4:
        x, y = (nums[0] + nums[2]) / 2, (nums[1] + nums[3]) / 2
    elif len(nums) == 2:
        x, y = nums
    else:
        raise OutputParseError(f"{FMT} output: {what}={value!r:.60} is not a point (x,y) or a box [x1,y1,x2,y2]")
    return model_point(x, y, ctx, what, FMT)


def _seconds(value: str | None, default: float, what: str) -> float:
    if value is None or value == "":
        return default
    m = _NUM.fullmatch(value.strip())
    if not m:
        raise OutputParseError(f"{FMT} output: {what}={value!r:.40} is not a number of seconds")
    return min(max(number(float(m.group(0)), what, FMT), 0.001), 60.0)


_KEYS = {
    "home": Home,
    "back": Back,
    "escape": Back,
    "esc": Back,
    "enter": Enter,
    "return": Enter,
    "recent": Recent,
    "app_switch": Recent,
}


def to_action(name: str, args: dict[str, str], ctx: ParseContext) -> Any:
    start = args.get("start_box")
    end = args.get("end_box")
    if name in ("click", "left_single", "left_double", "tap"):
        if start is None:
            raise OutputParseError(f"{FMT} output: {name}() needs start_box")
        return Click(point=_box_point(start, "start_box", ctx))
    if name == "long_press":
        if start is None:
            raise OutputParseError(f"{FMT} output: long_press() needs start_box")
        return build(
            FMT, LongPress, point=_box_point(start, "start_box", ctx), duration=_seconds(args.get("time"), 1.0, "time")
        )
    if name == "type":
        content = args.get("content", args.get("_0"))
        if content is None:
            raise OutputParseError(f"{FMT} output: type() needs content='...'")
        submit = content.endswith("\n")
        return build(FMT, TypeText, text=content[:-1] if submit else content, submit=submit)
    if name in ("scroll", "swipe", "drag"):
        p = _box_point(start, "start_box", ctx) if start is not None else None
        if end is not None:
            if p is None:
                raise OutputParseError(f"{FMT} output: {name}() has end_box but no start_box")
            return build(FMT, Swipe, start=p, end=_box_point(end, "end_box", ctx))
        if name == "drag":
            raise OutputParseError(f"{FMT} output: drag() needs start_box and end_box")
        d = direction(args.get("direction"), "direction", FMT)
        if name == "swipe":  # a swipe names the finger direction
            s, e = (p, finger_end(p, d, ctx.swipe_distance)) if p is not None else centre_swipe(d, ctx.swipe_distance)
            return build(FMT, Swipe, start=s, end=e)
        return Scroll(direction=d, element=scrollable_at(ctx, p) if p is not None else None)
    if name in ("press_home", "home"):
        return Home()
    if name in ("press_back", "back"):
        return Back()
    if name in ("press_enter", "enter"):
        return Enter()
    if name == "press_recent":
        return Recent()
    if name in ("hotkey", "press"):
        key = (args.get("key") or args.get("_0") or "").strip().lower()
        if key not in _KEYS:
            raise OutputParseError(
                f"{FMT} output: {name}(key={key!r:.30}) is not a phone key (home, back, enter, recent)"
            )
        return _KEYS[key]()
    if name == "open_app":
        app = args.get("app_name", args.get("_0", ""))
        return build(FMT, OpenApp, name=app.strip() or None)
    if name == "wait":
        return Wait(duration=_seconds(args.get("time"), WAIT_SECONDS, "time"))
    if name == "finished":
        content = args.get("content", args.get("_0", ""))
        return Complete(answer=content or None)
    if name == "call_user":
        return Impossible(reason="call_user: the model asked for the user's help")
    raise OutputParseError(
        f"{FMT} output: unknown action {name!r}; expected one of click, long_press, type, "
        f"scroll, drag, press_home, press_back, open_app, wait, finished, call_user"
    )


def parse_uitars(text: str, ctx: ParseContext, tool_calls: list[dict[str, Any]] | None = None) -> Parsed:
    thought, action_str = split_output(text)
    if not action_str:
        raise OutputParseError(f"{FMT} output: 'Action:' is empty")
    name, args = parse_call(action_str)
    return Parsed(to_action(name, args, ctx), thought)
