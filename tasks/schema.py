"""The task file format (JSON, validated with pydantic).

A task says what to do (an instruction per language), where to start (apps to reset, app to open), how long the
agent may take, how it is scored (milestones, optionally an expected answer) and how it can be solved (a
reference solution per language, written with element locators rather than indices so it survives layout
changes). Milestones follow AndroidLens nested sub-targets; their exact hit rule is in `harness.run.judge.milestones`.
A check's device state (`StateCheck`) is in `tasks.state_checks`; what every record shares (`TaskModel`,
`Localized`) in `tasks.schema_base`.

    {"id": "notes-create", "category": "1-1", "apps": ["com.droidharness.notes"],
     "instruction": {"en": "Create a note titled Groceries", "zh": "新建一条标题为“杂货”的笔记"},
     "start": {"reset_apps": ["com.droidharness.notes"]},
     "milestones": {"order": "ordered", "children": [
        {"id": "editor", "sub_target": {"en": "Open the note editor"},
         "check": {"package": "com.droidharness.notes", "element": {"resource_id": "note_title_edit"}}},
        {"id": "saved", "sub_target": {"en": "The note is listed"},
         "check": {"element": {"resource_id": "note_title", "text": {"en": "Groceries", "zh": "杂货"}}}}]},
     "reference": {"en": [{"type": "OPEN_APP", "name": "Notes"}, ...]}}
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Annotated, Any, Literal, Union

from pydantic import ConfigDict, Discriminator, Field, Tag, ValidationError, field_validator, model_validator

from harness.errors import HarnessError

from .roles import check_app_ref
from .schema_base import Localized, TaskModel, check_content_uri, check_regexes
from .state_checks import StateCheck

LANGS = ("en", "zh")
CATEGORIES = ("1-1", "1-2", "1-3", "1-4", "2-1", "2-2", "3-1", "3-2")
CATEGORY_NAMES = {
    "1-1": "single-app, unrelated steps",
    "1-2": "single-app, related steps",
    "1-3": "cross-app, unrelated",
    "1-4": "cross-app, related",
    "2-1": "operation-level constraints",
    "2-2": "page-level constraints",
    "3-1": "batch operations",
    "3-2": "needs VLM abilities",
}
STATES = (
    "checked",
    "selected",
    "focused",
    "enabled",
    "clickable",
    "long_clickable",
    "checkable",
    "scrollable",
    "password",
    "focusable",
)


class TaskError(HarnessError):
    """A task file or suite is invalid (names the file and the field)."""


class ElementMatch(TaskModel):
    """A predicate over one UI element of the live screen. Every given field must hold."""

    text: Localized | None = None
    desc: Localized | None = None  # content-desc
    match: Literal["equals", "contains", "regex"] = "equals"  # how text/desc compare
    case_sensitive: bool = False
    resource_id: str | None = None  # full ("pkg:id/name") or the name after ":id/"
    class_name: str | None = None  # full ("android.widget.Switch") or short ("Switch")
    package: str | None = None
    states: tuple[str, ...] = ()  # each must be true, e.g. ("checked",)
    not_states: tuple[str, ...] = ()  # each must be false
    bbox: tuple[float, float, float, float] | None = None  # normalized [x1, y1, x2, y2] of the screen
    bbox_rule: Literal["center", "iou"] = "center"
    iou: float = Field(0.5, gt=0, le=1)

    @field_validator("package")
    @classmethod
    def _package_role(cls, v: str | None) -> str | None:
        return check_app_ref(v)

    @field_validator("states", "not_states")
    @classmethod
    def _known_states(cls, v: tuple[str, ...]) -> tuple[str, ...]:
        bad = [s for s in v if s not in STATES]
        if bad:
            raise ValueError(f"unknown state(s) {bad}; expected some of {list(STATES)}")
        return v

    @field_validator("bbox")
    @classmethod
    def _bbox_order(cls, v: tuple[float, float, float, float] | None) -> tuple[float, float, float, float] | None:
        if v is not None:
            x1, y1, x2, y2 = v
            if not (0 <= x1 < x2 <= 1 and 0 <= y1 < y2 <= 1):
                raise ValueError(f"bbox {list(v)} must be normalized [x1, y1, x2, y2] with x1 < x2, y1 < y2")
        return v

    @model_validator(mode="after")
    def _regexes_compile(self) -> ElementMatch:
        if self.match == "regex":
            check_regexes([self.text, self.desc])
        return self

    @model_validator(mode="after")
    def _not_empty(self) -> ElementMatch:
        if not any(
            [
                self.text,
                self.desc,
                self.resource_id,
                self.class_name,
                self.package,
                self.states,
                self.not_states,
                self.bbox,
            ]
        ):
            raise ValueError(
                "an element match needs at least one of text, desc, resource_id, class_name, "
                "package, states, not_states, bbox"
            )
        return self


class ScreenCheck(TaskModel):
    """A predicate over the live screen (foreground app/activity, elements present or absent) and, with
    `state`, over device state read through the shell (settings, a content provider, a property, a file)."""

    package: str | None = None  # foreground package
    activity: str | None = None  # foreground activity (full name, or the part after the last '.')
    element: ElementMatch | None = None  # some element matches
    all_elements: tuple[ElementMatch, ...] = ()  # each matches some element
    absent: tuple[ElementMatch, ...] = ()  # none of these matches any element
    state: StateCheck | None = None  # device state that must hold

    @field_validator("package")
    @classmethod
    def _package_role(cls, v: str | None) -> str | None:
        return check_app_ref(v)

    @model_validator(mode="after")
    def _not_empty(self) -> ScreenCheck:
        if not (self.package or self.activity or self.element or self.all_elements or self.absent or self.state):
            raise ValueError("a check needs package, activity, element, all_elements, absent or state")
        return self


class Milestone(TaskModel):
    """A leaf sub-target: counts once its check holds on a live screen (see harness.run.judge.milestones)."""

    kind: Literal["milestone"] = "milestone"
    id: str
    sub_target: Localized
    check: ScreenCheck


def _milestone_kind(v: Any) -> str:
    """A child with `children` is a group, anything else a leaf milestone (no `kind` needed in files)."""
    if isinstance(v, dict):
        return v.get("kind") or ("group" if "children" in v else "milestone")
    return getattr(v, "kind", "milestone")


class MilestoneGroup(TaskModel):
    """Sub-targets reached in order (`ordered`) or in any order (`unordered`); groups nest."""

    kind: Literal["group"] = "group"
    id: str = "root"
    order: Literal["ordered", "unordered"] = "ordered"
    sub_target: Localized | None = None
    children: tuple[
        Annotated[
            Union[Annotated[Milestone, Tag("milestone")], Annotated[MilestoneGroup, Tag("group")]],
            Discriminator(_milestone_kind),
        ],
        ...,
    ]

    @field_validator("children")
    @classmethod
    def _non_empty(cls, v: tuple[Any, ...]) -> tuple[Any, ...]:
        if not v:
            raise ValueError("a milestone group needs at least one child")
        return v

    def leaves(self) -> list[Milestone]:
        out: list[Milestone] = []
        for c in self.children:
            out.extend(c.leaves() if isinstance(c, MilestoneGroup) else [c])
        return out


MilestoneGroup.model_rebuild()


class ExpectedAnswer(TaskModel):
    """What an ANSWER (or COMPLETE with an answer) must say for the task to succeed."""

    values: tuple[Localized, ...]  # any of these
    match: Literal["exact", "contains", "regex", "number"] = "exact"  # exact after normalization

    @field_validator("values")
    @classmethod
    def _non_empty(cls, v: tuple[Any, ...]) -> tuple[Any, ...]:
        if not v:
            raise ValueError("expected_answer.values needs at least one value")
        return v

    @model_validator(mode="after")
    def _regexes_compile(self) -> ExpectedAnswer:
        if self.match == "regex":
            check_regexes(list(self.values))
        return self


class ContentRow(TaskModel):
    """A row put into a content provider at the start: `content insert --uri URI --bind COLUMN:TYPE:VALUE ...`
    (TYPE from the value: s text, i integer, d real, b boolean, n null). The same row in every language."""

    uri: str
    values: dict[str, Union[str, int, float, bool, None]]

    @field_validator("uri")
    @classmethod
    def _content_uri(cls, v: str) -> str:
        return check_content_uri(v)

    @field_validator("values")
    @classmethod
    def _columns(cls, v: dict[str, Any]) -> dict[str, Any]:
        bad = [c for c in v if not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", c)]
        if not v or bad:
            raise ValueError(f"values must name columns (at least one), got {list(v)}")
        return v


class StartContact(TaskModel):
    """A contact put into the contacts provider at the start (ContactsContract: a raw contact, then its name,
    phone and email data rows, each `content insert`). The same contact in every language."""

    name: str = Field(min_length=1)
    phone: str | None = None
    email: str | None = None


class StartState(TaskModel):
    settings: dict[str, str] = {}  # "namespace:key" -> value, applied with `settings put` (system/secure/global)
    reset_apps: tuple[str, ...] = ()  # `pm clear` each (fresh app data)
    stop_apps: tuple[str, ...] = ()  # `am force-stop` each
    open_app: str | None = None  # package to launch after the reset (default: the home screen)
    clipboard: str | None = None
    airplane: bool | None = None  # airplane mode on / off (`cmd connectivity airplane-mode`); None: as prepared
    contacts: tuple[StartContact, ...] = ()  # contacts inserted after the resets (content insert)
    content: tuple[ContentRow, ...] = ()  # provider rows inserted after the resets and contacts (content insert)

    @field_validator("reset_apps", "stop_apps")
    @classmethod
    def _app_roles(cls, v: tuple[str, ...]) -> tuple[str, ...]:
        for a in v:
            check_app_ref(a)
        return v

    @field_validator("open_app")
    @classmethod
    def _open_role(cls, v: str | None) -> str | None:
        return check_app_ref(v)

    @field_validator("settings")
    @classmethod
    def _namespaced(cls, v: dict[str, str]) -> dict[str, str]:
        for k in v:
            ns, _, key = k.partition(":")
            if ns not in ("system", "secure", "global") or not key:
                raise ValueError(f"setting {k!r} must be 'system:KEY', 'secure:KEY' or 'global:KEY'")
        return v


class Locator(TaskModel):
    """Finds an element on the live screen for a reference step (first match in reading order)."""

    text: Localized | None = None
    desc: Localized | None = None
    resource_id: str | None = None
    class_name: str | None = None
    match: Literal["equals", "contains", "regex"] = "equals"
    nth: int = 0

    def as_match(self) -> ElementMatch:
        return ElementMatch(
            text=self.text, desc=self.desc, resource_id=self.resource_id, class_name=self.class_name, match=self.match
        )


class ReferenceStep(TaskModel):
    """One step of a reference solution: an action in the unified schema, whose target may be a locator.

    `{"type": "CLICK", "locate": {"resource_id": "fab_add"}}` clicks the centre of the element found at run
    time; without `locate` the step is a plain action (`{"type": "HOME"}`, `{"type": "TYPE", "text": "..."}`).
    """

    model_config = ConfigDict(extra="allow", frozen=True)
    type: str
    locate: Locator | None = None

    @model_validator(mode="after")
    def _open_app_role(self) -> ReferenceStep:
        pkg = (self.model_extra or {}).get("package")
        if self.type == "OPEN_APP" and isinstance(pkg, str):
            check_app_ref(pkg)
        return self


class EndCheck(TaskModel):
    """One condition of a task's end state: what must STILL hold when the episode ends (SR checks it; ATP does not).

    Without `app`, the checks are evaluated on the last screen as the agent left it (a filter, a page, a dialog).
    With `app`, the harness reopens that app fresh after the episode (force-stop + launch, so only the data the
    app keeps survives), plays `steps` (reference steps, locators resolved live) to the screen that shows the
    state (a saved note, an alarm, a toggle, a cart) and evaluates there. `milestones` names leaf milestones whose
    checks must hold; `check` is a further screen check. See docs/milestones.md, "End state".
    """

    milestones: tuple[str, ...] = ()
    check: ScreenCheck | None = None
    app: str | None = None
    steps: tuple[ReferenceStep, ...] = ()

    @field_validator("app")
    @classmethod
    def _app_role(cls, v: str | None) -> str | None:
        return check_app_ref(v)

    @model_validator(mode="after")
    def _something_to_check(self) -> EndCheck:
        if not self.milestones and self.check is None:
            raise ValueError("an end-state check needs milestones or check")
        if self.steps and self.app is None:
            raise ValueError("end-state steps need the app they start in ('app')")
        return self


class AnnotatorAnswer(TaskModel):
    """One annotator's answer to a screen question (ScreenQA's shape): the answer elements in the annotator's
    order, located on the live screen, and short answers. No elements and no short answers: "no answer"."""

    elements: tuple[Locator, ...] = ()
    short: tuple[Localized, ...] = ()  # default: the answer elements' texts, joined by ", "


class ScreenQuestion(TaskModel):
    """A question about the screen a device shows, with its ground truth from one or more annotators."""

    id: str = Field(pattern=r"^[A-Za-z0-9][A-Za-z0-9_.-]*$")
    question: dict[str, str]
    answers: tuple[AnnotatorAnswer, ...]

    @field_validator("question")
    @classmethod
    def _question_langs(cls, v: dict[str, str]) -> dict[str, str]:
        bad = [k for k in v if k not in LANGS]
        if not v or bad:
            raise ValueError(f"question needs texts in {list(LANGS)}, got {list(v)}")
        return v

    @field_validator("answers")
    @classmethod
    def _some_answer(cls, v: tuple[AnnotatorAnswer, ...]) -> tuple[AnnotatorAnswer, ...]:
        if not v:
            raise ValueError("a question needs at least one annotator's answer")
        return v

    @property
    def languages(self) -> tuple[str, ...]:
        return tuple(k for k in LANGS if k in self.question)

    @property
    def answerable(self) -> bool:
        return any(a.elements or a.short for a in self.answers)


class Probe(ScreenQuestion):
    """A screen question asked during an episode, on the live screen, when milestone `at` is first hit (did the
    agent's screen hold what it needed; can the model read the screen it acts on)."""

    at: str  # a milestone id of the task


class Task(TaskModel):
    id: str = Field(pattern=r"^[A-Za-z0-9][A-Za-z0-9_.-]*$")
    instruction: dict[str, str]
    category: Literal["1-1", "1-2", "1-3", "1-4", "2-1", "2-2", "3-1", "3-2"]
    apps: tuple[str, ...] = ()
    start: StartState = StartState()
    max_steps: int = Field(20, ge=1, le=200)
    milestones: MilestoneGroup
    expected_answer: ExpectedAnswer | None = None
    reference: dict[str, tuple[ReferenceStep, ...]] = {}
    end_state: tuple[EndCheck, ...] = ()  # what must still hold at the end for success (empty: milestones only)
    probes: tuple[Probe, ...] = ()  # screen questions asked when their milestone is hit (docs/screenqa.md)
    tags: tuple[str, ...] = ()
    # an outside suite's instance (`--suite androidworld`): its class and parameters, which its own code judges; an
    # agent may read them as it reads the rest of the task (the reference agent solves the instance from them)
    outside: dict[str, Any] = {}

    @field_validator("apps")
    @classmethod
    def _app_roles(cls, v: tuple[str, ...]) -> tuple[str, ...]:
        for a in v:
            check_app_ref(a)
        return v

    @field_validator("instruction")
    @classmethod
    def _langs(cls, v: dict[str, str]) -> dict[str, str]:
        if not v:
            raise ValueError("instruction needs at least one language")
        bad = [k for k in v if k not in LANGS]
        if bad:
            raise ValueError(f"unknown language(s) {bad}; expected {list(LANGS)}")
        return v

    @model_validator(mode="after")
    def _unique_milestone_ids(self) -> Task:
        ids = [m.id for m in self.milestones.leaves()]
        dup = sorted({i for i in ids if ids.count(i) > 1})
        if dup:
            raise ValueError(f"milestone ids must be unique; repeated: {dup}")
        return self

    @model_validator(mode="after")
    def _end_state_names_milestones(self) -> Task:
        ids = {m.id for m in self.milestones.leaves()}
        unknown = sorted({i for c in self.end_state for i in c.milestones} - ids)
        if unknown:
            raise ValueError(f"end_state names unknown milestone id(s) {unknown}; known: {sorted(ids)}")
        return self

    @model_validator(mode="after")
    def _probes_at_milestones(self) -> Task:
        ids = {m.id for m in self.milestones.leaves()}
        for p in self.probes:
            if p.at not in ids:
                raise ValueError(f"probe {p.id!r} is at unknown milestone {p.at!r}; known: {sorted(ids)}")
        names = [p.id for p in self.probes]
        dup = sorted({i for i in names if names.count(i) > 1})
        if dup:
            raise ValueError(f"probe ids must be unique; repeated: {dup}")
        return self

    @property
    def languages(self) -> tuple[str, ...]:
        return tuple(k for k in LANGS if k in self.instruction)

    def instruction_for(self, lang: str) -> str:
        try:
            return self.instruction[lang]
        except KeyError:
            raise TaskError(f"task {self.id} has no instruction in {lang!r} (has {list(self.instruction)})") from None


def explain_validation(e: ValidationError) -> str:
    """A pydantic error in one line naming each bad field (the first five): what a task or question file error says."""
    parts = []
    for err in e.errors()[:5]:
        loc = ".".join(str(x) for x in err["loc"]) or "(top level)"
        parts.append(f"{loc}: {err['msg']}")
    more = f" (+{len(e.errors()) - 5} more)" if len(e.errors()) > 5 else ""
    return "; ".join(parts) + more


def parse_task(data: dict[str, Any], source: str = "<task>") -> Task:
    try:
        return Task.model_validate(data)
    except ValidationError as e:
        raise TaskError(f"{source}: invalid task: {explain_validation(e)}") from e


def load_task(path: str | Path) -> Task:
    p = Path(path)
    try:
        data = json.loads(p.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise TaskError(f"{p}: task file not found") from None
    except json.JSONDecodeError as e:
        raise TaskError(f"{p}: not valid JSON (line {e.lineno}, column {e.colno}: {e.msg})") from None
    return parse_task(data, source=str(p))
