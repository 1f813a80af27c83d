"""The `human` agent: a person at the terminal picks each action.

The element list (`UITree.to_prompt`) is shown with rich, then one line is read and parsed by a small grammar:

    click N | tap N              click element N            long N [SECONDS]     long press element N
    tap X Y                      click a point: fractions in [0, 1] (0.5 0.3), or two whole numbers =
                                 device pixels (540 720)
    type TEXT                    type into the focused field (TEXT verbatim; "type" alone is refused)
    type N TEXT                  type into element N        clear N              empty element N
    scroll up|down|left|right    move the view (down = see content below)
    swipe up|down|left|right     move the finger that way, across the screen centre
    back | home | enter | recent | wait [SECONDS] | open APP NAME
    done [ANSWER] | impossible [REASON] | answer TEXT | help | elements

Bad input prints why and asks again. End of input (Ctrl-D) raises `AgentError`. Pass `input_fn` (and a rich
`Console`, e.g. one writing to a StringIO) to drive it from tests.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable
from typing import Any

from harness import coords
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
    Point,
    Recent,
    Scroll,
    Swipe,
    TypeText,
    Wait,
)
from harness.agent import AgentError, AgentStep, EpisodeContext, HistoryItem
from harness.errors import ActionValidationError

HELP = __doc__.split("\n\n")[2] if __doc__ else ""
_DIRS = ("up", "down", "left", "right")


class CommandError(ValueError):
    """A line the grammar does not accept (the message says why)."""


def _int(tok: str, what: str) -> int:
    if not re.fullmatch(r"\d+", tok):
        raise CommandError(f"{what} must be a whole number, got {tok!r}")
    return int(tok)


def _float(tok: str, what: str) -> float:
    try:
        v = float(tok)
    except ValueError:
        raise CommandError(f"{what} must be a number, got {tok!r}") from None
    if not math.isfinite(v):
        raise CommandError(f"{what} must be a finite number")
    return v


def parse_command(line: str, size: tuple[int, int], n_elements: int) -> Any:
    """One line -> an Action, or the strings "help" / "elements". Raises `CommandError`."""
    line = line.strip()
    if not line:
        raise CommandError("empty input; type 'help' for the commands")
    verb, _, rest = line.partition(" ")
    verb = verb.lower()
    args = rest.split()

    def element(tok: str) -> int:
        idx = _int(tok, "element")
        if idx >= n_elements:
            raise CommandError(f"there is no element {idx} (0..{n_elements - 1})")
        return idx

    def point(xt: str, yt: str) -> Point:
        x, y = _float(xt, "x"), _float(yt, "y")
        if re.fullmatch(r"\d+", xt) and re.fullmatch(r"\d+", yt):  # two whole numbers: device pixels
            w, h = size
            if not (x < w and y < h):
                raise CommandError(f"pixel ({xt}, {yt}) is outside the {w}x{h} screen")
            nx, ny = coords.from_pixels((int(x), int(y)), size)
            return Point(x=nx, y=ny)
        if not (0 <= x <= 1 and 0 <= y <= 1):
            raise CommandError(f"({xt}, {yt}): fractions must be in [0, 1] (or give two whole pixel numbers)")
        return Point(x=x, y=y)

    if verb in ("help", "?", "h"):
        return "help"
    if verb in ("elements", "ls", "list"):
        return "elements"
    if verb in ("click", "tap"):
        if len(args) == 1:
            return Click(element=element(args[0]))
        if len(args) == 2:
            return Click(point=point(*args))
        raise CommandError(f"usage: {verb} N  or  {verb} X Y")
    if verb in ("long", "longpress", "long_press"):
        if len(args) not in (1, 2):
            raise CommandError("usage: long N [SECONDS]")
        seconds = _float(args[1], "seconds") if len(args) == 2 else 1.0
        if not 0 < seconds <= 60:
            raise CommandError("seconds must be in (0, 60]")
        return LongPress(element=element(args[0]), duration=seconds)
    if verb == "type":
        if not rest.strip():
            raise CommandError("usage: type TEXT  or  type N TEXT")
        m = re.fullmatch(r"(\d+) (.+)", rest, re.DOTALL)
        if m and int(m.group(1)) < n_elements:
            return TypeText(element=int(m.group(1)), text=m.group(2))
        return TypeText(text=rest)
    if verb == "clear":
        if len(args) != 1:
            raise CommandError("usage: clear N")
        return TypeText(element=element(args[0]), text="", clear=True)
    if verb in ("scroll", "swipe"):
        if len(args) != 1 or args[0].lower() not in _DIRS:
            raise CommandError(f"usage: {verb} up|down|left|right")
        d = args[0].lower()
        if verb == "scroll":
            return Scroll(direction=d)
        dx, dy = {"up": (0, -1), "down": (0, 1), "left": (-1, 0), "right": (1, 0)}[d]
        return Swipe(start=Point(x=0.5 - 0.3 * dx, y=0.5 - 0.3 * dy), end=Point(x=0.5 + 0.3 * dx, y=0.5 + 0.3 * dy))
    simple = {"back": Back, "home": Home, "enter": Enter, "recent": Recent, "recents": Recent}
    if verb in simple:
        if args:
            raise CommandError(f"'{verb}' takes no arguments")
        return simple[verb]()
    if verb == "wait":
        seconds = _float(args[0], "seconds") if args else 1.0
        if len(args) > 1 or not 0 < seconds <= 60:
            raise CommandError("usage: wait [SECONDS] with 0 < SECONDS <= 60")
        return Wait(duration=seconds)
    if verb == "open":
        if not rest.strip():
            raise CommandError("usage: open APP NAME")
        return OpenApp(name=rest.strip())
    if verb in ("done", "complete", "finish"):
        return Complete(answer=rest.strip() or None)
    if verb in ("impossible", "fail", "giveup"):
        return Impossible(reason=rest.strip() or None)
    if verb == "answer":
        if not rest.strip():
            raise CommandError("usage: answer TEXT")
        return Answer(text=rest.strip())
    raise CommandError(f"unknown command {verb!r}; type 'help' for the commands")


class HumanAgent:
    def __init__(
        self,
        input_fn: Callable[[str], str] | None = None,
        console: Any = None,
        show_elements: bool = True,
        name: str = "human",
    ) -> None:
        from rich.console import Console

        self.name = name
        self._input = input_fn
        self.console = console or Console()
        self.show_elements = show_elements
        self._ctx: EpisodeContext | None = None

    def reset(self, ctx: EpisodeContext) -> None:
        self._ctx = ctx
        self.console.rule(f"[bold]Task {ctx.task.id}[/] ({ctx.lang})")
        self.console.print(ctx.instruction, markup=False)

    def _read(self, prompt: str) -> str:
        try:
            if self._input is not None:
                return self._input(prompt)
            return self.console.input(prompt)
        except EOFError:
            raise AgentError("human agent: input closed (end of file) while waiting for an action") from None

    def _show(self, observation: Any) -> None:
        from rich.panel import Panel

        tree = observation.tree
        self.console.print(
            Panel(
                tree.to_prompt() or "(no elements)",
                title=f"{observation.package}",
                subtitle=f"{observation.size[0]}x{observation.size[1]}",
            ),
            markup=False,
        )

    def act(self, observation: Any, history: list[HistoryItem]) -> AgentStep:
        from rich.markup import escape

        step = len(history) + 1
        if self.show_elements:
            self._show(observation)
        while True:
            line = self._read(f"step {step}> ")
            try:
                result = parse_command(line, tuple(observation.size), len(observation.tree))
            except (CommandError, ActionValidationError, ValueError) as exc:
                self.console.print(f"[red]{escape(str(exc))}[/]")
                continue
            if result == "help":
                self.console.print(HELP, markup=False)
                continue
            if result == "elements":
                self._show(observation)
                continue
            return AgentStep(action=result, thought=f"human: {line.strip()}")
