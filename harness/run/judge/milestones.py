"""Live milestone scoring, modelled on AndroidLens nested sub-targets.

THE HIT RULE (what the docs and the report cite):
1. Milestones are checked on the observation taken after every action of an episode (step 1, 2, ...). The start
   screen is not scored: a task starts at 0% progress.
2. A leaf milestone is HIT at the first step at which its check holds on the live screen:
   - `package` / `activity`: the foreground app / activity equals it (an activity may be given by its short name);
   - `element`: at least one VISIBLE element (positive on-screen area) satisfies every given field:
     text / desc compared after trimming and collapsing whitespace, case-insensitively unless
     `case_sensitive`, by `match` = equals | contains | regex (`re.search`); `resource_id` equal, or equal to
     the part after ":id/" when given without a package; `class_name` equal to the full or the short class
     name; `package` equal; every `states` flag true and every `not_states` flag false; `bbox` (normalized
     [x1, y1, x2, y2] of the current screen): with `bbox_rule` "center" the element's centre lies inside the
     box (edges inclusive), with "iou" the element's box and the bbox overlap with IoU >= `iou`;
   - `all_elements`: each listed match holds for some visible element; `absent`: none of them does;
   - `state`: device state read through the device's shell holds (`harness.run.judge.state_check`: settings, a
     content provider's rows, a system property, a file), read only once the screen parts of the check hold.
     State that cannot be read does not hold (the reason is kept in the milestone's `state_error`).
   Localized values use the episode's language; under the `locale=` perturbation (a system language other than
   the episode's) a text on screen matches in either, since the device's labels speak the other one.
3. Hits latch: a milestone once hit stays hit, whatever the screen shows later.
4. In an `ordered` group a child can only be hit after every earlier sibling is complete (a group is complete
   when all its leaves are hit). Children are evaluated in order within one step, so two consecutive
   milestones can be hit by the same screen. In an `unordered` group children progress independently. Groups
   nest; an ordered group's child group starts counting only once its predecessors are complete.
5. Progress = hit leaves / all leaves. ATP = mean progress over episodes. SR: every leaf hit, the task's end
   state still holding at the end (`harness.run.judge.end_state`), and, when the task has an `expected_answer`, the
   agent's answer matches it (`answer_matches`).
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass, field
from typing import Any

from harness.run.judge.state_check import UNREADABLE, StateJudge
from harness.trajectory.records import MilestoneProgress
from tasks.matching import Screen, element_matches, visible_elements
from tasks.schema import ExpectedAnswer, Milestone, MilestoneGroup, ScreenCheck
from tasks.schema_base import localized


def check_failure(
    check: ScreenCheck, screen: Screen, lang: str, state: StateJudge | None = None, alt: str | None = None
) -> str | None:
    """Why `check` does not hold ("screen", or the state check's reason), None when it holds. The state is read
    only when the screen parts hold; without a `state` judge (no device, e.g. a replay) a state check fails.
    `alt`: the device's system language when it is not the episode's (`locale=`): texts on screen match in it
    too; state is read in the episode's language."""
    if check.package is not None and screen.package != check.package:
        return "screen"
    if check.activity is not None:
        act = screen.activity or ""
        if act != check.activity and act.rsplit(".", 1)[-1] != check.activity.lstrip("."):
            return "screen"
    needs = ([check.element] if check.element else []) + list(check.all_elements)
    if needs or check.absent:
        els = visible_elements(screen)
        for m in needs:
            if not any(element_matches(e, m, lang, screen.size, alt) for e in els):
                return "screen"
        for m in check.absent:
            if any(element_matches(e, m, lang, screen.size, alt) for e in els):
                return "screen"
    if check.state is not None:
        if state is None:
            return "state: no device to read it from"
        verdict = state(check.state, lang)
        if not verdict.held:
            return f"state: {verdict.reason}"
    return None


def check_holds(
    check: ScreenCheck, screen: Screen, lang: str, state: StateJudge | None = None, alt: str | None = None
) -> bool:
    return check_failure(check, screen, lang, state, alt) is None


@dataclass
class MilestoneTracker:
    """Scores one episode live: call `update(screen, step)` after every action."""

    root: MilestoneGroup
    lang: str = "en"
    state: StateJudge | None = None  # reads device state for `state` checks (None: they never hold)
    alt: str | None = None  # the device's system language when not the episode's (`locale=`): texts match in it too
    hits: dict[str, int] = field(default_factory=dict)  # milestone id -> step it was hit at
    state_errors: dict[str, str] = field(default_factory=dict)  # milestone id -> why its state could not be read

    def __post_init__(self) -> None:
        self._leaves = self.root.leaves()

    @property
    def total(self) -> int:
        return len(self._leaves)

    @property
    def progress(self) -> float:
        return len(self.hits) / self.total if self.total else 1.0

    @property
    def complete(self) -> bool:
        return len(self.hits) == self.total

    def record(self, new_hits: list[str]) -> MilestoneProgress:
        """The trajectory's record of the progress after a step (`new_hits`: what `update` returned)."""
        return MilestoneProgress(new_hits=list(new_hits), progress=round(self.progress, 6), hits=dict(self.hits))

    def update(self, screen: Screen, step: int) -> list[str]:
        """Evaluate on the screen after `step`; returns the ids newly hit at this step."""
        before = set(self.hits)
        self._visit(self.root, screen, step)
        return [m.id for m in self._leaves if m.id in self.hits and m.id not in before]

    def _visit(self, node: Milestone | MilestoneGroup, screen: Screen, step: int) -> bool:
        if isinstance(node, Milestone):
            if node.id in self.hits:
                return True
            why = check_failure(node.check, screen, self.lang, self.state, self.alt)
            if why is None:
                self.hits[node.id] = step
                self.state_errors.pop(node.id, None)
                return True
            if why.startswith((f"state: {UNREADABLE}", "state: no device")):
                self.state_errors[node.id] = why.removeprefix("state: ")
            return False
        if node.order == "ordered":
            for child in node.children:
                if not self._visit(child, screen, step):
                    return False
            return True
        done = [self._visit(child, screen, step) for child in node.children]
        return all(done)

    def status(self) -> list[dict[str, Any]]:
        """Per leaf: id, sub-target in the episode's language, hit step or None, and `state_error` when its state
        check could not be read (for trajectories/reports)."""
        out: list[dict[str, Any]] = []
        for m in self._leaves:
            row = {"id": m.id, "sub_target": localized(m.sub_target, self.lang), "hit_step": self.hits.get(m.id)}
            if m.id in self.state_errors:
                row["state_error"] = self.state_errors[m.id]
            out.append(row)
        return out


def final_milestones(node: Milestone | MilestoneGroup) -> list[Milestone]:
    """Leaves whose hit completes the task: the last child of ordered groups, every child of unordered ones."""
    if isinstance(node, Milestone):
        return [node]
    if node.order == "ordered":
        return final_milestones(node.children[-1])
    return [m for c in node.children for m in final_milestones(c)]


_PUNCT = re.compile(r"[^\w\s.]", re.UNICODE)


def normalize_answer(s: str) -> str:
    """Case-fold, NFKC, drop punctuation (keeping decimal points), articles a/an/the, collapse spaces."""
    s = unicodedata.normalize("NFKC", s).casefold()
    s = _PUNCT.sub(" ", s)
    s = re.sub(r"(?<![\w.])\.|\.(?![\w])", " ", s)  # a full stop is punctuation, 12.5 is a number
    s = re.sub(r"\b(a|an|the)\b", " ", s)
    return " ".join(s.split())


_NUMBER = re.compile(r"-?\d+(?:\.\d+)?")


def answer_matches(expected: ExpectedAnswer, answer: str | None, lang: str) -> bool:
    if answer is None:
        return False
    got = normalize_answer(answer)
    for raw in expected.values:
        want = localized(raw, lang) or ""
        if expected.match == "regex":
            if re.search(want, answer, re.IGNORECASE):
                return True
        elif expected.match == "number":
            nums = _NUMBER.findall(answer.replace(",", ""))
            if nums and float(nums[0]) == float(want):
                return True
        elif expected.match == "contains":
            if normalize_answer(want) in got:
                return True
        elif normalize_answer(want) == got:
            return True
    return False
