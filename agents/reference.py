"""The `reference` agent: plays a task's reference solution (or any list of unified actions), one per step.

A reference step is a unified action whose target may be a `Locator` instead of an index:
`{"type": "CLICK", "locate": {"resource_id": "fab_add"}}`. At run time the locator resolves to the first
matching visible element of the live screen in reading order (`nth` picks a later match), matched with
`harness.run.judge.milestones.element_matches` and the locator's `as_match()`, and the step becomes the same action with
`element=<index>` (CLICK, LONG_PRESS, TYPE, SCROLL). A locator that finds nothing, even after seeking (below), gives
an invalid step whose error names the step and the locator; the agent then moves on (the runner counts it).

Interruptions (`agents.interruptions`): before each step the agent looks at the screen for a heads-up notification
(swiped up) or a system or permission dialog (its "Wait" / "Cancel" / "Don't allow" / "OK" / "Close app" button, or
BACK) and dismisses it first, as a step of its own (it counts against the budget; its thought says what was
dismissed, its meta has `dismissed`), then plays the same reference step - unless that step's locator finds its
element inside the interruption (a step meant for it). At most `MAX_DISMISSALS` in a row before one step.

Off-screen elements: a locator that finds nothing does not give up at once: the agent hides a soft keyboard that is
up (BACK), then drags the largest scrollable slowly by `SEEK_FRACTION` of its height, down (then, when the screen
stops changing or after `MAX_SEEK` drags, up), and tries the same step again on each new screen; each such move is
a step (meta `seek`). A layout the solution was not written for (landscape, a large font) moves elements off the
screen this way. In landscape the agent also hides the keyboard before touching an element other than the focused
field (the short window scrolls around the focused field under the keyboard, so a touch computed before lands
elsewhere). Before its terminal step it seeks what a milestone of the task looks for on this app's screen and no
screen of the episode has shown (`_seek_unseen`), and fits on one screen the milestones an end-state check on the
last screen names when that seeking scrolled one of them out (`_fit_end_state`). Each such step is taken only
while the budget leaves room for the rest of the solution.

After the last step the agent answers COMPLETE (unless the list already ended with a terminal action:
COMPLETE, IMPOSSIBLE or ANSWER, which is then played as is).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from pydantic import ValidationError

from agents import androidworld_reference
from agents.androidworld_reference import Decide
from agents.interruptions import SYSTEMUI, Interruption, find_interruption
from harness.actions import Action, Back, Complete, Impossible, Point, Swipe, describe, parse_action
from harness.agent import AgentError, AgentStep, EpisodeContext, HistoryItem, invalid_step
from harness.errors import ActionValidationError, ConfigError
from harness.hierarchy import UITree
from tasks.locate import LocatorNotFound, resolve_step
from tasks.matching import element_matches
from tasks.schema import LANGS, ReferenceStep, Task

TERMINAL = ("COMPLETE", "ANSWER", "IMPOSSIBLE")
MAX_DISMISSALS = 3  # dismissals in a row before one reference step
MAX_SEEK = 6  # scrolls in one direction looking for an element a locator does not find
SEEK_FRACTION = 0.4  # each of them drags the content by this fraction of the scrollable's height
FINE_FRACTION = 0.15  # a short drag fitting an end state's elements on one screen
MAX_FINE = 4
SEEK_SECONDS = 2.0  # slowly: a drag, without a fling (an element just off the screen comes just into it)
IME_MARK = "inputmethod"  # in a soft keyboard's package (Gboard: com.google.android.inputmethod.latin)


class ReferenceAgent:
    """`ReferenceAgent()` plays `task.reference[lang]`; `ReferenceAgent(actions=[...])` plays the given steps
    (unified `Action`s, action dicts, or `ReferenceStep`s) whatever the task."""

    def __init__(self, actions: Iterable[Any] | None = None, name: str = "reference") -> None:
        self.name = name
        self._given = None if actions is None else [self._coerce(a, i) for i, a in enumerate(actions, 1)]
        self._steps: list[ReferenceStep | Action | Decide] = []
        self._pos = 0
        self._lang = "en"
        self._alt: str | None = None  # the other language the screen may speak (the device's, under `locale=`)
        self._parallel: list[list[ReferenceStep]] = []  # the other languages' solutions of the same shape
        self._dismissals = 0
        self._seek: dict[str, Any] | None = None  # {"step", "direction", "count", "signature", "keyboard"}
        self._keyboard_hidden = False
        self._task: Any = None
        self._max_steps = 1 << 30
        self._seen: set[str] = set()  # milestones whose screen elements a screen of this episode showed
        self._last_direction: str | None = None  # of the last seeking drag
        self._fine = 0  # short drags fitting an end state on one screen
        self._fine_signature: str | None = None

    @staticmethod
    def _coerce(item: Any, n: int) -> ReferenceStep | Action:
        if isinstance(item, ReferenceStep):
            return item
        if isinstance(item, dict):
            if "locate" in item:
                try:
                    return ReferenceStep.model_validate(item)
                except ValidationError as exc:
                    raise ConfigError(f"reference agent: step {n}: invalid reference step: {exc}") from None
            try:
                return parse_action(item)
            except ActionValidationError as exc:
                raise ConfigError(f"reference agent: step {n}: {exc}") from None
        if hasattr(item, "type") and hasattr(item, "model_dump"):
            return item  # already an Action
        raise ConfigError(
            f"reference agent: step {n}: expected an action or a reference step, got {type(item).__name__}"
        )

    def reset(self, ctx: EpisodeContext) -> None:
        self._lang = ctx.lang
        self._alt = next((lang for lang in LANGS if lang != ctx.lang), None)
        self._task = ctx.task
        self._max_steps = ctx.max_steps
        self._seen = set()
        self._last_direction = None
        self._fine = 0
        self._fine_signature = None
        self._pos = 0
        self._dismissals = 0
        self._seek = None
        self._keyboard_hidden = False
        self._parallel = []
        if self._given is not None:
            self._steps = list(self._given)
            return
        if not isinstance(ctx.task, Task):
            raise AgentError(
                f"reference agent: task {ctx.task.id} is a {type(ctx.task).__name__}, not a droidharness task: "
                "it has no reference solution"
            )
        outside = ctx.task.outside or {}
        if outside.get("suite") == androidworld_reference.SUITE:
            solution = androidworld_reference.plan(outside)
            self._steps = list(solution) if solution is not None else [self._no_solver(outside)]
            return
        reference = ctx.task.reference
        steps = reference.get(ctx.lang)
        if steps is None:
            raise AgentError(
                f"reference agent: task {ctx.task.id} has no reference solution for language "
                f"{ctx.lang!r} (has: {', '.join(reference) or 'none'})"
            )
        self._steps = list(steps)
        self._parallel = [
            list(other)
            for lang, other in reference.items()
            if lang != ctx.lang and [x.type for x in other] == [x.type for x in steps]
        ]

    def act(self, observation: Any, history: list[HistoryItem]) -> AgentStep:
        n = self._pos + 1
        if isinstance(getattr(observation, "tree", None), UITree):
            self._note_seen(observation, observation.tree)
        if self._pos >= len(self._steps):
            # past the end: COMPLETE (a terminal last step has already ended the episode in a runner)
            tree = getattr(observation, "tree", None)
            if isinstance(tree, UITree) and self._budget_allows(history):
                move = self._seek_unseen(observation, tree, n)
                if move is not None:
                    return AgentStep(
                        action=move[0],
                        thought=move[1],
                        meta={"reference_step": None, "reference_steps": len(self._steps), "seek": "milestone"},
                    )
            return AgentStep(
                action=Complete(),
                thought="reference solution finished",
                meta={"reference_step": None, "reference_steps": len(self._steps)},
            )
        step = self._steps[self._pos]
        if isinstance(step, Decide):  # a Decide: the step this screen calls for, or none
            chosen = step.choose(observation, self._lang)
            if chosen is None:
                self._pos += 1
                return self.act(observation, history)
            step = chosen
        meta: dict[str, Any] = {"reference_step": n, "reference_steps": len(self._steps)}
        tree = getattr(observation, "tree", None)
        if isinstance(tree, UITree) and self._dismissals < MAX_DISMISSALS:
            found = find_interruption(tree, tuple(observation.size))
            if found is not None and not self._meant_for(step, observation, found, n):
                self._dismissals += 1
                return AgentStep(
                    action=found.action,
                    thought=f"dismissing {found.what} before reference step {n}: {describe(found.action)}",
                    meta={**meta, "dismissed": found.kind},
                )
        self._dismissals = 0
        if isinstance(tree, UITree) and step.type in TERMINAL and self._budget_allows(history):
            move = self._seek_unseen(observation, tree, n)
            if move is not None:
                return AgentStep(action=move[0], thought=move[1], meta={**meta, "seek": "milestone"})
        if not isinstance(step, ReferenceStep):
            self._pos += 1
            return AgentStep(action=step, thought=f"reference step {n}: {describe(step)}", meta=meta)
        try:
            action = self._resolve(step, observation, n)
        except LocatorNotFound as exc:
            move = (
                self._seek_scroll(tree, tuple(observation.size), n)
                if isinstance(tree, UITree) and self._budget_allows(history)
                else None
            )
            if move is not None:
                return AgentStep(
                    action=move[0],
                    thought=f"{exc}: {move[1]} ({describe(move[0])})",
                    meta={**meta, "seek": move[1]},
                )
            self._pos += 1
            self._seek = None
            return invalid_step(str(exc), meta=meta)
        except ActionValidationError as exc:
            self._pos += 1
            self._seek = None
            return invalid_step(str(exc), meta=meta)
        field = getattr(action, "element", None)
        if (
            isinstance(tree, UITree)
            and action.type in ("TYPE", "CLICK", "LONG_PRESS")
            and isinstance(field, int)
            and not self._keyboard_hidden
            and not tree[field].focused
            and IME_MARK not in tree[field].package
            and any(IME_MARK in e.package for e in tree.visible())
            and observation.size[0] > observation.size[1]
            and self._budget_allows(history)
        ):
            # landscape, an element other than the focused field while a keyboard is up: hide it first, so the
            # touch lands on the element as laid out without the keyboard (the short window scrolls around the
            # focused field under it; a portrait window has room for both)
            self._keyboard_hidden = True
            return AgentStep(
                action=Back(),
                thought=f"hiding the keyboard before reference step {n}: {describe(action)}",
                meta={**meta, "seek": "hiding the keyboard"},
            )
        self._pos += 1
        self._seek = None
        self._keyboard_hidden = False
        return AgentStep(action=action, thought=f"reference step {n}: {describe(action)}", meta=meta)

    @staticmethod
    def _no_solver(outside: dict[str, Any]) -> Impossible:
        what = f"{outside.get('suite')}'s {outside.get('class')}"
        return Impossible(reason=f"the reference agent has no solution for {what}")

    def _budget_allows(self, history: list[HistoryItem]) -> bool:
        """Whether one more step than the solution's own still leaves room for the rest of it."""
        rest = len(self._steps) - self._pos
        if not self._steps or self._steps[-1].type not in TERMINAL:
            rest += 1  # the COMPLETE after the last step
        return self._max_steps - len(history) - 1 >= rest

    def _note_seen(self, observation: Any, tree: UITree) -> None:
        """The milestones whose screen elements this screen shows (not sought again before the end)."""
        if not isinstance(self._task, Task):
            return
        size = tuple(observation.size)
        visible = tree.visible()
        for leaf in self._task.milestones.leaves():
            check = leaf.check
            matches = ([check.element] if check.element is not None else []) + list(check.all_elements)
            if leaf.id in self._seen or not matches:
                continue
            if self._shows(matches, visible, size):
                self._seen.add(leaf.id)

    def _seek_unseen(self, observation: Any, tree: UITree, n: int) -> tuple[Action, str] | None:
        """Before a terminal step: a move towards what a milestone of the task looks for on this kind of screen
        and does not find (an element of its resource id is on the screen, not the one it names: a list that
        shows other rows) on this app's (or activity's) screen - the solution's last screen, laid out otherwise,
        may not show it."""
        task = self._task
        if not isinstance(task, Task):
            return None
        size = tuple(observation.size)
        package = getattr(observation, "package", None)
        activity = getattr(observation, "activity", None) or ""
        visible = tree.visible()
        names = {e.resource_name for e in visible}
        for leaf in task.milestones.leaves():
            check = leaf.check
            if leaf.id in self._seen:
                continue
            if not (check.package or check.activity) or (check.package and check.package != package):
                continue
            if check.activity and not (activity == check.activity or activity.endswith("." + check.activity)):
                continue
            matches = ([check.element] if check.element is not None else []) + list(check.all_elements)
            ids = [m.resource_id.split(":id/")[-1] for m in matches if m.resource_id]
            if not ids or not all(i in names for i in ids):
                continue
            if self._shows(matches, visible, size):
                self._seen.add(leaf.id)
                continue
            move = self._seek_scroll(tree, size, n)
            if move is None:
                return None
            what = f"milestone {leaf.id!r} looks for what this screen does not show"
            return move[0], f"{what}: {move[1]} ({describe(move[0])})"
        return self._fit_end_state(observation, tree)

    def _holds(self, leaf: Any, visible: list[Any], size: tuple[int, int]) -> bool | None:
        """Whether a milestone's screen elements are all on the screen (None: it checks no element)."""
        check = leaf.check
        matches = ([check.element] if check.element is not None else []) + list(check.all_elements)
        if not matches:
            return None
        return self._shows(matches, visible, size)

    def _shows(self, matches: list[Any], visible: list[Any], size: tuple[int, int]) -> bool:
        """Whether every match is satisfied by some visible element (the milestone rule, in either language)."""
        return all(any(element_matches(e, m, self._lang, size, self._alt) for e in visible) for m in matches)

    def _fit_end_state(self, observation: Any, tree: UITree) -> tuple[Action, str] | None:
        """Before a terminal step: when an end-state check evaluated on the last screen names milestones some of
        which this screen shows and others (seen before) it has just scrolled out, a short slow drag back the
        other way (`FINE_FRACTION`), at most `MAX_FINE` of them, while the screen moves."""
        task = self._task
        if not isinstance(task, Task) or self._fine >= MAX_FINE or self._last_direction is None:
            return None
        size = tuple(observation.size)
        visible = tree.visible()
        leaves = {leaf.id: leaf for leaf in task.milestones.leaves()}
        for end in task.end_state:
            if end.app is not None or not end.milestones:
                continue
            held = {i: self._holds(leaves[i], visible, size) for i in end.milestones if i in leaves}
            missing = [i for i, h in held.items() if h is False]
            if not missing or not any(held.values()) or not all(i in self._seen for i in missing):
                continue
            scrollables = [e for e in visible if e.scrollable and e.package != SYSTEMUI]
            signature = tree.signature()
            if not scrollables or signature == self._fine_signature:
                return None
            self._fine += 1
            self._fine_signature = signature
            target = max(scrollables, key=lambda e: (e.area, -e.index))
            direction = "up" if self._last_direction == "down" else "down"
            l, t, r, b = target.bounds
            w, h = size
            x = (l + r) / 2 / w
            mid = (t + b) / 2
            travel = (b - t) * FINE_FRACTION
            top, bottom = (mid - travel / 2) / h, (mid + travel / 2) / h
            start, end_y = (top, bottom) if direction == "up" else (bottom, top)
            drag = Swipe(start=Point(x=x, y=start), end=Point(x=x, y=end_y), duration=SEEK_SECONDS)
            what = f"the end state wants {', '.join(repr(i) for i in held)} on one screen; {missing[0]!r} just left it"
            return drag, f"{what}: scrolling {direction} a little ({describe(drag)})"
        return None

    def _resolve(self, step: ReferenceStep, observation: Any, n: int) -> Action:
        """Reference step `n` as an action on this screen. A locator that finds nothing in the episode's language
        is read in the other (`alt`), and then as the same step of the other language's solution locates its
        element: a device whose system language is not the episode's (`locale=`) shows its labels in that one."""
        try:
            return resolve_step(step, observation, self._lang, n, self._alt)
        except LocatorNotFound as first:
            for other in self._parallel:  # the same shape: step n is there
                loc = other[n - 1].locate
                if loc is None or loc == step.locate:
                    continue
                try:
                    return resolve_step(step.model_copy(update={"locate": loc}), observation, self._lang, n, self._alt)
                except LocatorNotFound:
                    continue
            raise first

    def _meant_for(self, step: ReferenceStep | Action, observation: Any, found: Interruption, n: int) -> bool:
        """Whether the step's locator finds its element inside the interruption (the step is for it)."""
        if not isinstance(step, ReferenceStep) or step.locate is None:
            return False
        try:
            action = self._resolve(step, observation, n)
        except ActionValidationError:
            return False
        return getattr(action, "element", None) in found.members

    def _seek_scroll(self, tree: UITree, size: tuple[int, int], n: int) -> tuple[Action, str] | None:
        """The next move looking for reference step `n`'s element (and what it does), or None when the search is
        over: BACK when a soft keyboard covers the screen, then slow drags of `SEEK_FRACTION` of the largest
        scrollable, down then up."""
        seek = self._seek
        if seek is None or seek["step"] != n:
            seek = self._seek = {"step": n, "direction": "down", "count": 0, "signature": None, "keyboard": False}
        if not seek["keyboard"] and any(IME_MARK in e.package for e in tree.visible()):
            seek["keyboard"] = True
            return Back(), "hiding the keyboard"
        scrollables = [e for e in tree.visible() if e.scrollable and e.package != SYSTEMUI]
        if not scrollables:
            return None
        target = max(scrollables, key=lambda e: (e.area, -e.index))
        signature = tree.signature()
        if seek["signature"] == signature or seek["count"] >= MAX_SEEK:  # this way is exhausted
            if seek["direction"] == "up":
                return None
            seek.update(direction="up", count=0)
        seek["count"] += 1
        seek["signature"] = signature
        self._last_direction = seek["direction"]
        l, t, r, b = target.bounds
        w, h = size
        x = (l + r) / 2 / w
        travel = (b - t) * SEEK_FRACTION
        low, high = (b - (b - t) * 0.1) / h, (b - (b - t) * 0.1 - travel) / h  # finger up = content further down
        start, end = (low, high) if seek["direction"] == "down" else (high, low)
        drag = Swipe(start=Point(x=x, y=start), end=Point(x=x, y=end), duration=SEEK_SECONDS)
        return drag, f"scrolling {seek['direction']} to find it"


__all__ = ["ReferenceAgent"]
