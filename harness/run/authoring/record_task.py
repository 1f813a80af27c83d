"""`droidharness tasks record`: a demonstration turned into a sound task.

1. **Record.** The app's data is cleared and the device goes home (the task's start state); the device state the
   state checks read is taken (`snapshot`: the settings namespaces, and the rows of the contacts, SMS and alarm
   providers); then the demonstration is played step by step - a person through the `human` agent's prompt, or
   reference steps (`locate` targets) from a file - keeping every screen; the state is taken again at the end.
   An action a person gives by element index becomes a reference step that locates the element by its text
   (else its description, resource id or class, with `nth` among equals), so the solution survives layouts.
2. **Propose.** Milestones: on each screen after an action, the app's elements whose text (or description) was
   on no earlier screen and not on the start screen, one per screen (by text and app, no resource id: portable
   where the app is a role's), grouped per page (activity) as AndroidLens nests sub-targets; the end state: the
   last screen's milestone (when the last screen is the app's) and a `state` check for every setting or provider
   row the demonstration changed; the expected answer when it ends with ANSWER; the demonstration itself as the
   reference solution.
3. **Prove** as `tasks check` does: a proposal is dropped, with the reason, when it already holds at the start,
   when a do-nothing agent (`noop`) reaches it, or when a replay of the reference solution on a reset device does
   not reach it (milestones are replayed unordered first, then ordered as the replay visits them); then
   `harness.run.authoring.task_check.check_task` must find the task sound. A demonstration that changes nothing (no
   setting or row changed, no new element on its last screen, no answer) is rejected with that reason, as is one whose
   proposals all fall.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from harness.actions import Action, Answer, Complete, Impossible
from harness.agent import Agent, AgentStep, EpisodeContext, HistoryItem
from harness.device.controller import Device
from harness.device.state import DeviceState, StateUnreadable
from harness.errors import HarnessError
from harness.hierarchy import UIElement
from harness.observation import Observation
from harness.plugins import create_agent
from harness.run.authoring.task_check import CheckResult, check_task
from harness.run.judge.end_state import evaluate_end_state
from harness.run.judge.milestones import check_holds
from harness.run.judge.state_check import judge_on
from harness.run.loop.episode import Limits, run_episode
from harness.run.loop.start import prepare_start
from tasks.matching import element_matches
from tasks.roles import role_for_package
from tasks.schema import ElementMatch, ReferenceStep, StartState, Task, parse_task

SETTINGS_NAMESPACES = ("system", "secure", "global")
# provider -> the columns a state check compares (what the bundled tasks judge by)
PROVIDERS: dict[str, tuple[str, ...]] = {
    "content://com.android.contacts/data/phones": ("display_name", "data1"),
    "content://com.android.contacts/data/emails": ("display_name", "data1"),
    "content://sms/sent": ("address", "body"),
    "content://com.android.deskclock/alarms": ("hour", "minutes", "daysofweek", "enabled", "label"),
}
PHONE_COLUMNS = {("content://com.android.contacts/data/phones", "data1"), ("content://sms/sent", "address")}
MAX_TEXT = 60  # longer texts make brittle milestones
VOLATILE_TEXT = re.compile(
    r"^\s*(上午|下午)?\d{1,2}:\d{2}(:\d{2})?\s*([AaPp][Mm])?\s*$|^(yesterday|today|now|昨天|今天)$", re.I
)
Reset = Callable[[], Device]  # a freshly reset device (the pool's reset, or the same device)


class RecordError(HarnessError):
    """The demonstration cannot become a task (the message says why)."""


@dataclass
class StateSnapshot:
    settings: dict[str, dict[str, str]] = field(default_factory=dict)  # namespace -> key -> value
    rows: dict[str, list[dict[str, str | None]]] = field(default_factory=dict)  # provider uri -> rows
    unreadable: dict[str, str] = field(default_factory=dict)  # what could not be read -> why

    def to_json(self) -> dict[str, Any]:
        return {"settings": self.settings, "rows": self.rows, "unreadable": self.unreadable}


def parse_settings_list(text: str) -> dict[str, str]:
    """`settings list NAMESPACE`: one `key=value` a line."""
    out: dict[str, str] = {}
    for line in text.splitlines():
        key, eq, value = line.partition("=")
        if eq and key.strip():
            out[key.strip()] = value.rstrip("\r")
    return out


def snapshot(device: Device) -> StateSnapshot:
    """The device state the state checks read: every setting, and the watched providers' rows."""
    snap = StateSnapshot()
    for ns in SETTINGS_NAMESPACES:
        r = device.shell(("settings", "list", ns))
        if r.exit_code in (0, None):
            snap.settings[ns] = parse_settings_list(r.stdout.decode("utf-8", errors="replace"))
        else:
            snap.unreadable[f"settings {ns}"] = (r.stdout + r.stderr).decode(errors="replace").strip()[:200]
    state = DeviceState(device.shell)
    for uri, columns in PROVIDERS.items():
        try:
            snap.rows[uri] = state.query(uri, columns)
        except StateUnreadable as e:
            snap.unreadable[uri] = str(e)
    return snap


def _digits(value: str | None) -> str:
    return "".join(ch for ch in value or "" if ch.isdigit())


def _match(uri: str, col: str, value: str | None) -> dict[str, Any]:
    if value is None:
        return {"null": True}
    if (uri, col) in PHONE_COLUMNS and len(_digits(value)) >= 3:
        return {"digits": _digits(value)[-10:]}
    return {"equals": value, "case_sensitive": True}


def state_changes(before: StateSnapshot, after: StateSnapshot) -> list[tuple[str, dict[str, Any]]]:
    """(what changed, the `state` check that holds after it) for each changed setting and provider row."""
    out: list[tuple[str, dict[str, Any]]] = []
    for ns, now in after.settings.items():
        was = before.settings.get(ns, {})
        for key in sorted(set(now) | set(was)):
            if now.get(key) != was.get(key):
                value: Any = {"null": True} if key not in now else {"equals": now[key]}
                desc = f"setting {ns} {key}: {was.get(key)} -> {now.get(key)}"
                out.append((desc, {"settings": {"namespace": ns, "key": key, "value": value}}))
    for uri, rows in after.rows.items():
        if uri not in before.rows:
            continue
        old = [tuple(sorted(r.items())) for r in before.rows[uri]]
        new = [tuple(sorted(r.items())) for r in rows]
        added = [dict(r) for r in new if r not in old]
        removed = [dict(r) for r in old if r not in new]
        for r in added:
            row = {c: _match(uri, c, v) for c, v in r.items() if v not in (None, "")}
            out.append((f"row added to {uri}: {r}", {"content": {"uri": uri, "row": row}}))
        if removed and not added:
            for r in removed:
                row = {c: _match(uri, c, v) for c, v in r.items() if v not in (None, "")}
                out.append((f"row removed from {uri}: {r}", {"content": {"uri": uri, "row": row, "exists": False}}))
    return out


@dataclass
class RecordedStep:
    before: Observation
    agent_step: AgentStep
    reference: dict[str, Any]  # the step as a reference step (JSON)
    after: Observation


@dataclass
class Recording:
    package: str
    start: StartState
    first: Observation
    steps: list[RecordedStep]
    before: StateSnapshot
    after: StateSnapshot

    @property
    def last(self) -> Observation:
        return self.steps[-1].after if self.steps else self.first

    @property
    def answer(self) -> str | None:
        action = self.steps[-1].agent_step.action if self.steps else None
        if isinstance(action, Answer):
            return action.text
        return action.answer if isinstance(action, Complete) else None


def _label(e: UIElement) -> tuple[str, str] | None:
    """("text" | "desc", value) an element is best known by, or None."""
    for kind, value in (("text", e.text), ("desc", e.content_desc)):
        v = " ".join(value.split())
        if v and len(v) <= MAX_TEXT:
            return kind, v
    return None


def _stable(label: tuple[str, str]) -> bool:
    """Not a clock reading (a time or a date changes between the demonstration and any replay on a phone)."""
    return VOLATILE_TEXT.search(label[1]) is None


def locator_for(e: UIElement, obs: Observation, lang: str) -> dict[str, Any]:
    """A locator that finds `e` on `obs`: by text, else description, else resource id, else class; `nth` among
    the visible elements it matches in reading order."""
    label = _label(e)
    if label is not None:
        fields: dict[str, Any] = {label[0]: label[1]}
    elif e.resource_id:
        fields = {"resource_id": e.resource_id}
    else:
        fields = {"class_name": e.class_name}
    match = ElementMatch.model_validate(fields)
    hits = [x.index for x in obs.tree.reading_order() if element_matches(x, match, lang, obs.size)]
    nth = hits.index(e.index) if e.index in hits else 0
    return {**fields, **({"nth": nth} if nth else {})}


def reference_step(action: Action, obs: Observation, lang: str) -> dict[str, Any]:
    """A person's action as a reference step: an element index becomes a locator."""
    data = action.model_dump(mode="json", exclude_none=True, exclude_defaults=True)
    data["type"] = action.type
    index = data.pop("element", None)
    if index is not None:
        data["locate"] = locator_for(obs.tree[index], obs, lang)
    return data


def resolve_app(device: Device, app: str) -> str:
    """The package `--app` names (a package, a role or a launcher label): the one that comes to the front when it
    is opened."""
    device.press_home()
    result = device.launch(app)
    package = device.observe().package
    device.press_home()
    if not result.ok or not package or package.startswith("com.android.launcher") or "launcher" in package:
        raise RecordError(f"--app {app!r}: no such app opens on device {device.serial}: {result.error or package}")
    return package


def _draft_task(instruction: str, lang: str, package: str, start: StartState) -> Task:
    """A placeholder task for the demonstration's episode context (an agent reads the instruction from it)."""
    return parse_task(
        {
            "id": "recording",
            "category": "1-1",
            "instruction": {lang: instruction},
            "apps": [package],
            "start": start.model_dump(exclude_defaults=True),
            "milestones": {"children": [{"id": "m", "sub_target": "-", "check": {"package": package}}]},
        }
    )


def record(
    device: Device,
    agent: Agent,
    app: str,
    instruction: str,
    lang: str = "en",
    max_steps: int = 50,
    given: Sequence[dict[str, Any]] | None = None,
) -> Recording:
    """Play the demonstration from the start state (the app's data cleared, home), keeping every screen and the
    device state before and after. `agent` is the human agent, or the reference agent over a steps file
    (`steps_agent`) with the steps as written in `given` (kept as the reference steps)."""
    package = resolve_app(device, app)
    start = StartState(reset_apps=(package,))
    prepare_start(device, start)
    before = snapshot(device)
    first = obs = device.observe()
    task = _draft_task(instruction, lang, package, start)
    agent.reset(EpisodeContext(task=task, lang=lang, instruction=instruction, seed=0, max_steps=max_steps))
    steps: list[RecordedStep] = []
    history: list[HistoryItem] = []
    for n in range(1, max_steps + 1):
        agent_step = agent.act(obs, list(history))
        action = agent_step.action
        if action is None or agent_step.invalid:
            raise RecordError(f"demonstration step {n}: {agent_step.error or 'no action'}")
        ref = given[n - 1] if given is not None and n <= len(given) else reference_step(action, obs, lang)
        result, new_obs = device.step(action, obs, n)
        if not result.ok and result.error:
            raise RecordError(f"demonstration step {n} ({action.type}): {result.error}")
        steps.append(RecordedStep(obs, agent_step, ref, new_obs))
        history.append(HistoryItem(step=n, agent_step=agent_step, result=result))
        obs = new_obs
        if isinstance(action, (Complete, Answer, Impossible)):
            break
    return Recording(package, start, first, steps, before, snapshot(device))


def steps_agent(steps: Sequence[dict[str, Any]]) -> Agent:
    """The reference agent playing a steps file (pass the same steps to `record` as `given`)."""
    return create_agent("reference", actions=list(steps), name="demonstration")


def read_steps(path: Path) -> list[dict[str, Any]]:
    """A steps file: one reference step a line (JSON, as in a task's `reference`); blank lines and `#` comments
    are skipped. Each step is validated; errors name the file and the line."""
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except OSError as e:
        raise RecordError(f"{path}: cannot read the steps file: {e.strerror or e}") from None
    steps = []
    for i, line in enumerate(lines, 1):
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        try:
            data = json.loads(line)
            ReferenceStep.model_validate(data)
        except (json.JSONDecodeError, ValueError) as e:
            why = str(e).splitlines()[0] if str(e) else type(e).__name__
            raise RecordError(f"{path}:{i}: not a reference step: {why}") from None
        if not isinstance(data, dict):
            raise RecordError(f"{path}:{i}: a step is a JSON object")
        steps.append(data)
    if not steps:
        raise RecordError(f"{path}: no steps")
    return steps


@dataclass
class Proposal:
    """A task proposed from a recording, what was dropped and why."""

    data: dict[str, Any]
    activities: dict[str, str] = field(default_factory=dict)  # milestone id -> the page it was proposed on
    dropped: list[str] = field(default_factory=list)


def _new_labels(obs: Observation, seen: set[str]) -> list[tuple[str, str]]:
    """The app's visible labels on `obs` that are not in `seen` (case-folded), texts before descriptions, each in
    reading order."""
    out = []
    for e in obs.tree.reading_order():
        if e.package != obs.package or not e.is_visible:
            continue
        label = _label(e)
        if label is not None and _stable(label) and label[1].casefold() not in seen and label not in out:
            out.append(label)
    return sorted(out, key=lambda kv: kv[0] != "text")


def _labels(obs: Observation) -> set[str]:
    return {v.casefold() for _, v in _new_labels(obs, set())}


def _result_labels(rec: Recording) -> list[tuple[str, str]]:
    """What the last screen shows that neither the start screen nor the first visit of the same page did: the
    demonstration's result on that page (a new note in the list, a changed value)."""
    last = rec.last
    first_visit = next(
        (s.after for s in rec.steps if (s.after.package, s.after.activity) == (last.package, last.activity)), last
    )
    return _new_labels(last, _labels(rec.first) | (_labels(first_visit) if first_visit is not last else set()))


def _app_ref(package: str) -> str:
    role = role_for_package(package)
    return f"@{role}" if role else package


def propose(rec: Recording, instruction: str, lang: str, task_id: str) -> Proposal:
    """Milestones, end state, expected answer and reference solution from a recording (not yet proven)."""
    seen = {label[1].casefold() for label in _new_labels(rec.first, set())}
    leaves: list[tuple[str, dict[str, Any]]] = []  # (activity, milestone)
    for n, step in enumerate(rec.steps, 1):
        fresh = _new_labels(step.after, seen)
        seen |= {v.casefold() for _, v in fresh}
        if fresh:
            kind, value = fresh[0]
            check = {"package": _app_ref(step.after.package), "element": {kind: value}}
            shown = f"显示“{value}”" if lang == "zh" else f"{value} is shown"
            leaves.append((step.after.activity, {"id": f"step{n}", "sub_target": shown, "check": check}))
    changes = state_changes(rec.before, rec.after)
    result = _result_labels(rec)
    if not changes and not result and rec.answer is None:
        raise RecordError(
            "the demonstration changes nothing: no setting or provider row changed, its last screen shows nothing "
            "that was not there before, and it gives no answer - demonstrate a task that leaves a result"
        )
    end_state: list[dict[str, Any]] = [{"check": {"state": check}} for _, check in changes]
    if result and rec.last.package == rec.package:
        on_screen = [{kind: value} for kind, value in result[:2]]
        final = {"package": _app_ref(rec.package), "all_elements": on_screen}
        what = " and ".join(v for _, v in result[:2])
        end = f"最后显示{'和'.join(f'“{v}”' for _, v in result[:2])}" if lang == "zh" else f"{what} shown at the end"
        leaves.append((rec.last.activity, {"id": "final", "sub_target": end, "check": final}))
        end_state.append({"milestones": ["final"]})
    # what the demonstration changed in settings is put back by the start state (a phone is not restored to a
    # boot state between episodes)
    restore = {
        f"{ns}:{key}": rec.before.settings[ns][key]
        for ns, now in rec.after.settings.items()
        for key in now
        if key in rec.before.settings.get(ns, {}) and rec.before.settings[ns][key] != now[key]
    }
    data: dict[str, Any] = {
        "id": task_id,
        "category": "1-1" if len({s.after.package for s in rec.steps} - {rec.first.package}) <= 1 else "1-4",
        "instruction": {lang: instruction},
        "apps": [_app_ref(rec.package)],
        "start": {"reset_apps": [_app_ref(rec.package)], **({"settings": restore} if restore else {})},
        "max_steps": max(10, 2 * len(rec.steps) + 4),
        "milestones": {"order": "unordered", "children": [m for _, m in leaves]},
        "end_state": end_state,
        "reference": {lang: [s.reference for s in rec.steps]},
        "tags": ["recorded"],
    }
    if rec.answer:
        data["expected_answer"] = {"values": [rec.answer], "match": "exact"}
    return Proposal(data, activities={m["id"]: act for act, m in leaves})


def _leaves(data: dict[str, Any]) -> list[dict[str, Any]]:
    return list(data["milestones"]["children"])


def _with_leaves(data: dict[str, Any], leaves: list[dict[str, Any]]) -> dict[str, Any]:
    ids = {m["id"] for m in leaves}
    end = [c for c in data["end_state"] if not c.get("milestones") or set(c["milestones"]) <= ids]
    return {**data, "milestones": {"order": "unordered", "children": leaves}, "end_state": end}


def _nest(leaves: list[dict[str, Any]], activities: dict[str, str]) -> dict[str, Any]:
    """Ordered as visited; runs of milestones on one page (activity) become an ordered sub-group (AndroidLens
    nests sub-targets)."""
    groups: list[list[dict[str, Any]]] = []
    for m in leaves:
        if groups and activities.get(groups[-1][-1]["id"]) == activities.get(m["id"]) and m["id"] != "final":
            groups[-1].append(m)
        else:
            groups.append([m])
    children: list[dict[str, Any]] = []
    for i, g in enumerate(groups):
        if len(g) == 1:
            children.append(g[0])
        else:
            page = (activities.get(g[0]["id"]) or "page").rsplit(".", 1)[-1]
            children.append({"id": f"page{i + 1}", "order": "ordered", "sub_target": f"On {page}", "children": g})
    return {"order": "ordered", "children": children}


def _survivors(proposal: Proposal, data: dict[str, Any]) -> dict[str, Any]:
    if not _leaves(data):
        raise RecordError("no milestone survives: " + "; ".join(proposal.dropped))
    return data


def prove(proposal: Proposal, lang: str, fresh: Reset) -> tuple[Task, CheckResult]:
    """Drop what does not prove out (holds at the start, reached by a do-nothing agent, not reached by the replay,
    an end-state check that does not hold after it), order the milestones as the replay visits them, and check
    the task as `tasks check` does. Raises `RecordError` when nothing sound is left."""
    data = proposal.data
    task = parse_task(data, "recorded task")
    steps = Limits(max_steps=len(task.reference[lang]) + 2)
    device = fresh()
    prepare_start(device, task.start)
    start_obs, judge = device.observe(), judge_on(device)
    at_start = {m.id for m in task.milestones.leaves() if check_holds(m.check, start_obs, lang, judge)}
    proposal.dropped += [f"milestone {i}: holds at the start" for i in sorted(at_start)]
    kept_end = []
    for c in data["end_state"]:
        if c.get("milestones") and set(c["milestones"]) & at_start:
            continue
        if evaluate_end_state(parse_task({**data, "end_state": [c]}), lang, start_obs, device).held:
            proposal.dropped.append(f"end state {_short(c)}: holds at the start")
        else:
            kept_end.append(c)
    data = _survivors(
        proposal, _with_leaves({**data, "end_state": kept_end}, [m for m in _leaves(data) if m["id"] not in at_start])
    )
    idle = run_episode(parse_task(data), create_agent("noop"), fresh(), lang, Limits(max_steps=2))
    idle_hits = {h["id"] for h in idle.milestones if h.get("hit_step")}
    proposal.dropped += [f"milestone {i}: a do-nothing agent reaches it" for i in sorted(idle_hits)]
    data = _survivors(proposal, _with_leaves(data, [m for m in _leaves(data) if m["id"] not in idle_hits]))
    replay = run_episode(parse_task({**data, "end_state": []}), create_agent("reference"), fresh(), lang, steps)
    hit = {h["id"]: h["hit_step"] for h in replay.milestones if h.get("hit_step")}
    proposal.dropped += [
        f"milestone {m['id']} ({m['sub_target']}): not reached when the demonstration is replayed"
        for m in _leaves(data)
        if m["id"] not in hit
    ]
    visited = sorted((m for m in _leaves(data) if m["id"] in hit), key=lambda m: (m["id"] == "final", hit[m["id"]]))
    data = _survivors(proposal, _with_leaves(data, visited))
    data = {**data, "milestones": _nest(visited, proposal.activities)}
    result = check_task(parse_task(data, "recorded task"), lang, fresh())
    if not result.ok and result.end_state_held is False:  # some end-state check does not hold after the replay
        kept_end = []
        for c in data["end_state"]:
            r = run_episode(parse_task({**data, "end_state": [c]}), create_agent("reference"), fresh(), lang, steps)
            if r.success:
                kept_end.append(c)
            else:
                why = "; ".join(map(str, (r.end_state or {}).get("failed", []))) or "does not hold"
                proposal.dropped.append(f"end state {_short(c)}: after the replay: {why}")
        data = {**data, "end_state": kept_end}
        result = check_task(parse_task(data, "recorded task"), lang, fresh())
    task = parse_task(data, "recorded task")
    if not result.ok:
        raise RecordError(f"the recorded task is not sound: {result.error or result.start_violations}")
    proposal.data = data
    return task, result


def _short(check: dict[str, Any]) -> str:
    return json.dumps(check, ensure_ascii=False)[:140]


def slug(text: str) -> str:
    s = re.sub(r"[^A-Za-z0-9]+", "-", text).strip("-").lower()
    return s or "recorded-task"


def save_recording(rec: Recording, folder: Path) -> None:
    """Every screen (PNG + hierarchy XML), the steps and the device state before and after."""
    folder.mkdir(parents=True, exist_ok=True)
    screens = [rec.first, *(s.after for s in rec.steps)]
    for i, obs in enumerate(screens):
        if obs.screenshot is not None:
            obs.screenshot.save(folder / f"screen-{i:03d}.png")
        if obs.xml:
            (folder / f"screen-{i:03d}.xml").write_text(obs.xml, encoding="utf-8")
    (folder / "steps.jsonl").write_text(
        "".join(json.dumps(s.reference, ensure_ascii=False) + "\n" for s in rec.steps), encoding="utf-8"
    )
    state = {"before": rec.before.to_json(), "after": rec.after.to_json()}
    (folder / "state.json").write_text(json.dumps(state, ensure_ascii=False, indent=1), encoding="utf-8")
