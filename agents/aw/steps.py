"""The step vocabulary of the AndroidWorld reference solutions (`agents/androidworld_reference.py` and the per-app
solver modules beside this one): locator steps, plain unified actions, and `Decide`s - a step chosen on the screen
it meets."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Protocol, runtime_checkable

from harness.actions import Action, OpenApp, Point, Swipe
from tasks.locate import LocatorNotFound, locate
from tasks.schema import Locator, ReferenceStep

DRAG_SECONDS = 0.6  # a slider's thumb dragged to the end of its track


@runtime_checkable
class Decide(Protocol):
    """A step chosen on the screen it meets: the step to play there, or None to skip it."""

    @property
    def type(self) -> str: ...

    def choose(self, screen: Any, lang: str) -> ReferenceStep | Action | None: ...


Step = ReferenceStep | Action | Decide


def loc(**fields: Any) -> Locator:
    return Locator(**fields)


def click(**fields: Any) -> ReferenceStep:
    """CLICK the element a locator finds (`click(resource_id="fab")`, `click(text="Display")`)."""
    return ReferenceStep(type="CLICK", locate=loc(**fields))


def type_into(text: str, **fields: Any) -> ReferenceStep:
    return ReferenceStep(type="TYPE", text=text, locate=loc(**fields))


def replace_into(text: str, **fields: Any) -> ReferenceStep:
    """TYPE into the element a locator finds, its text cleared first (a field that holds something already)."""
    return ReferenceStep(type="TYPE", text=text, clear=True, locate=loc(**fields))


def long_press(**fields: Any) -> ReferenceStep:
    return ReferenceStep(type="LONG_PRESS", locate=loc(**fields))


def open_app(app: tuple[str, str]) -> OpenApp:
    return OpenApp(name=app[0], package=app[1])


@dataclass(frozen=True)
class SetSwitch:
    """Click a checkable row (or switch) only when its checked state is not `on` already."""

    locator: Locator
    on: bool
    type: str = "DECIDE"

    def choose(self, screen: Any, lang: str) -> ReferenceStep | Action | None:
        step = ReferenceStep(type="CLICK", locate=self.locator)
        try:
            index = locate(self.locator, screen, lang)
        except LocatorNotFound:
            return step  # the agent seeks it, or reports the step as invalid
        return None if screen.tree[index].checked == self.on else step


@dataclass(frozen=True)
class IfShown:
    """Play `step` only when the screen shows what `locator` finds (a dialog that may or may not come up)."""

    locator: Locator
    step: ReferenceStep | Action
    type: str = "DECIDE"

    def choose(self, screen: Any, lang: str) -> ReferenceStep | Action | None:
        try:
            locate(self.locator, screen, lang)
        except LocatorNotFound:
            return None
        return self.step


@dataclass(frozen=True)
class DragToEnd:
    """Drag a slider's thumb from the middle of its track past the track's start (`end="min"`) or end ("max")."""

    locator: Locator
    end: str
    type: str = "DECIDE"

    def choose(self, screen: Any, lang: str) -> ReferenceStep | Action | None:
        try:
            index = locate(self.locator, screen, lang)
        except LocatorNotFound:
            return ReferenceStep(type="CLICK", locate=self.locator)  # sought, or reported as invalid
        l, t, r, b = screen.tree[index].bounds
        w, h = screen.size
        y = (t + b) / 2 / h
        start = Point(x=(l + r) / 2 / w, y=y)
        end = Point(x=0.0 if self.end == "min" else (w - 1) / w, y=y)
        return Swipe(start=start, end=end, duration=DRAG_SECONDS)


def when_shown(**fields: Any) -> IfShown:
    """Click what the locator finds, when the screen shows it (a dialog that may or may not come up)."""
    return IfShown(loc(**fields), click(**fields))
