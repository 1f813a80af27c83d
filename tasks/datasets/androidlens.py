"""AndroidLens (`test/{en,zh}/<id>/<id>.json` step lists + `<id>_<k>.png`) and the AgentCPM-GUI step-record codec
it shares with AITZ (`tasks.datasets.aitz`).

Step records ("AgentCPM step family"): `result_action_type` (code), `result_touch_yx` / `result_lift_yx`
(`"[y, x]"` strings in [0, 1], `"[-1.0, -1.0]"` = no point), `result_action_text`, and for AndroidLens
`duration` (null or milliseconds). AndroidLens' card types these fields as one-element lists (`[4]`, `["[y, x]"]`);
plain scalars are accepted too and the converter writes back the shape it read.

Action codes: 0 long press (AgentCPM), 1 wait (duration), 3 type, 4 click / long press (duration given) / swipe
(touch != lift), 5 back, 6 home, 7 enter (AgentCPM), 10 terminate (-> COMPLETE, text = answer), 11 impossible
(AgentCPM). AITZ has no `duration` and splits code 4 into tap / swipe by AitW's 0.04 distance rule.

Milestones -> `Task` (`episode_to_task`), the mapping documented in docs/datasets.md:
- every step's `milestone` (a dict, or a list of dicts; empty / null = none) is collected, duplicates dropped;
- the task's root `MilestoneGroup` is ordered by `idx`; several milestones with the same `idx` form an
  `unordered` sub-group at that position;
- each milestone becomes `Milestone(id="m<idx>" or "m<idx>.<k>", sub_target={lang: sub-target}, check=
  ScreenCheck(element=ElementMatch(text=<text>, match="contains", case_sensitive=False, bbox=<bbox>,
  bbox_rule="center", states=..., not_states=...)))`; empty text / absent bbox are left out;
- `state` names map onto `tasks.schema.STATES` through `STATE_MAP` (e.g. "selected" -> selected, "on" ->
  checked, "off" / "unchecked" -> not_states checked, "disabled" -> not_states enabled, 选中 -> selected);
  unknown names are dropped with a warning and listed in the task's tags as `unmapped-state:<name>`.
"""

from __future__ import annotations

import json
import logging
import math
import re
from collections.abc import Callable, Iterator
from functools import partial
from pathlib import Path
from typing import Any

from harness import coords
from harness.actions import (
    Action,
    Back,
    Click,
    Complete,
    Enter,
    Home,
    Impossible,
    LongPress,
    Scroll,
    Swipe,
    TypeText,
    Wait,
)

from .base import (
    DatasetEpisode,
    DatasetError,
    DatasetStep,
    FieldError,
    LoadStats,
    error,
    make_point,
    scroll_as_swipe,
    target_xy,
    unrepresentable,
)

log = logging.getLogger(__name__)
DATASET = "androidlens"

LONG_POINT, WAIT, TYPE, DUAL_POINT, PRESS_BACK, PRESS_HOME, PRESS_ENTER, TERMINATE, IMPOSSIBLE = (
    0,
    1,
    3,
    4,
    5,
    6,
    7,
    10,
    11,
)
CODES = {
    LONG_POINT: "LONG_POINT",
    WAIT: "WAIT",
    TYPE: "TYPE",
    DUAL_POINT: "DUAL_POINT",
    PRESS_BACK: "PRESS_BACK",
    PRESS_HOME: "PRESS_HOME",
    PRESS_ENTER: "PRESS_ENTER",
    TERMINATE: "TERMINATE",
    IMPOSSIBLE: "IMPOSSIBLE",
}
ACTION_FIELDS = ("result_action_type", "result_touch_yx", "result_lift_yx", "result_action_text", "duration")
AITZ_TAP_MAX_DISTANCE = 0.04

# dialect -> (has a duration field, swipe rule, default list-shaped fields)
_DIALECTS = {"androidlens": (True, "unequal", True), "aitz": (False, "distance", False)}


# --- the step codec --------------------------------------------------------------------------------------
def _get(raw: dict[str, Any], name: str, default: Any = None) -> Any:
    v = raw.get(name, default)
    if isinstance(v, list):
        if len(v) == 0:
            return default
        if len(v) != 1:
            raise FieldError(name, f"expected one value, got a list of {len(v)}")
        return v[0]
    return v


def _point(raw: dict[str, Any], name: str) -> tuple[float, float] | None:
    v = _get(raw, name)
    if v is None or v == "":
        return None
    try:
        return coords.parse_yx(v)
    except (ValueError, TypeError) as exc:
        raise FieldError(name, str(exc)) from None


def _seconds(raw: dict[str, Any]) -> float | None:
    d = _get(raw, "duration")
    if d is None:
        return None
    if isinstance(d, bool) or not isinstance(d, (int, float)) or not math.isfinite(d) or d < 0:
        raise FieldError("duration", f"expected milliseconds (a number >= 0) or null, got {d!r}")
    s = d / 1000.0
    if s > 60:
        raise FieldError("duration", f"{d} ms is beyond the unified action limit of 60 s")
    return s if s > 0 else None


def step_to_unified(raw: dict[str, Any], dialect: str = "androidlens") -> Action | None:
    """An AgentCPM-family step record -> unified action."""
    has_duration, swipe_rule, _ = _DIALECTS[dialect]
    code = _get(raw, "result_action_type")
    if code is None:
        raise FieldError("result_action_type", "missing")
    if isinstance(code, bool) or not isinstance(code, int):
        raise FieldError("result_action_type", f"expected an integer code, got {code!r}")
    secs = _seconds(raw) if has_duration else None
    dur = {"duration": secs} if secs is not None else {}
    text = _get(raw, "result_action_text", "") or ""
    if not isinstance(text, str):
        raise FieldError("result_action_text", f"expected text, got {type(text).__name__}")
    if code in (DUAL_POINT, LONG_POINT):
        touch = _point(raw, "result_touch_yx")
        if touch is None:
            raise FieldError("result_touch_yx", "a touch action needs a point")
        lift = _point(raw, "result_lift_yx")
        lift = touch if lift is None else lift
        p = make_point(touch, "result_touch_yx")
        if code == LONG_POINT:
            return LongPress(point=p, **dur)
        swipe = (touch != lift) if swipe_rule == "unequal" else math.dist(touch, lift) > AITZ_TAP_MAX_DISTANCE
        if swipe:
            return Swipe(start=p, end=make_point(lift, "result_lift_yx"), **dur)
        return LongPress(point=p, **dur) if secs is not None else Click(point=p)
    if code == WAIT:
        return Wait(**dur)
    if code == TYPE:
        return TypeText(text=text) if text else None
    if code == TERMINATE:
        return Complete(answer=text or None)
    if code == IMPOSSIBLE:
        return Impossible(reason=text or None)
    simple: dict[int, Callable[[], Action]] = {PRESS_BACK: Back, PRESS_HOME: Home, PRESS_ENTER: Enter}
    if code in simple:
        return simple[code]()
    raise FieldError(
        "result_action_type", f"unknown action code {code} (known: {', '.join(f'{k} {v}' for k, v in CODES.items())})"
    )


def _ms(seconds: float) -> int | float:
    ms = seconds * 1000.0
    r = round(ms)
    return int(r) if abs(ms - r) <= 1e-6 else ms


def step_from_unified(
    action: Action, template_raw: dict[str, Any] | None = None, dialect: str = "androidlens"
) -> dict[str, Any]:
    """Unified action -> AgentCPM-family step record (template fields kept; lossy cases in docs/datasets.md)."""
    has_duration, _, lists = _DIALECTS[dialect]
    out = dict(template_raw or {})
    if template_raw is not None:
        try:
            if step_to_unified(template_raw, dialect) == action:  # unchanged: keep the record as it is
                return out
        except (FieldError, ValueError):
            pass
    if isinstance(action, Scroll):
        size = (int(_get(out, "image_width", 1000) or 1000), int(_get(out, "image_height", 1000) or 1000))
        action = scroll_as_swipe(action, size)
    touch = lift = None
    text = ""
    duration: int | float | None = None
    if isinstance(action, Click):
        code, touch = DUAL_POINT, target_xy(action, dialect)
        lift = touch
    elif isinstance(action, LongPress):
        touch = lift = target_xy(action, dialect)
        if has_duration:
            code, duration = DUAL_POINT, _ms(action.duration)
        else:
            code = LONG_POINT
    elif isinstance(action, Swipe):
        code, touch, lift = DUAL_POINT, action.start.as_tuple(), action.end.as_tuple()
        if has_duration and "duration" in action.model_fields_set:
            duration = _ms(action.duration)
    elif isinstance(action, Wait):
        code = WAIT
        if has_duration and "duration" in action.model_fields_set:
            duration = _ms(action.duration)
    elif isinstance(action, TypeText):
        code, text = TYPE, action.text
    elif isinstance(action, Complete):
        code, text = TERMINATE, action.answer or ""
    elif isinstance(action, Impossible):
        code, text = IMPOSSIBLE, action.reason or ""
    elif isinstance(action, (Back, Home, Enter)):
        code = {"BACK": PRESS_BACK, "HOME": PRESS_HOME, "ENTER": PRESS_ENTER}[action.type]
    else:
        raise unrepresentable(dialect, action)
    values: dict[str, Any] = {
        "result_action_type": code,
        "result_touch_yx": coords.format_yx(touch),
        "result_lift_yx": coords.format_yx(lift),
        "result_action_text": text,
    }
    if has_duration:
        values["duration"] = duration
    for name, v in values.items():
        as_list = isinstance(out[name], list) if name in out else lists
        out[name] = [v] if as_list else v
    return out


def to_unified(raw: dict[str, Any]) -> Action | None:
    return step_to_unified(raw, "androidlens")


def from_unified(action: Action, template_raw: dict[str, Any] | None = None) -> dict[str, Any]:
    return step_from_unified(action, template_raw, "androidlens")


# --- JSON step-list files (shared with AITZ) -------------------------------------------------------------
def read_step_list(path: Path) -> list[dict[str, Any]]:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise DatasetError(f"{path}: cannot be read: {exc}") from exc
    except json.JSONDecodeError as exc:
        raise DatasetError(f"{path}: not valid JSON (line {exc.lineno}, column {exc.colno}: {exc.msg})") from exc
    if not isinstance(data, list) or not all(isinstance(s, dict) for s in data):
        raise DatasetError(f"{path}: expected a JSON list of step objects")
    if not data:
        raise DatasetError(f"{path}: the episode has no steps")
    return data


def order_steps(path: Path, data: list[dict[str, Any]], episode: str | None) -> list[dict[str, Any]]:
    """Steps sorted by `step_id`, which must run 0..n-1 (DatasetError naming the record otherwise)."""
    for i, s in enumerate(data):
        sid = _get(s, "step_id")
        if isinstance(sid, bool) or not isinstance(sid, int):
            raise error(path, f"expected an integer, got {sid!r}", record=i, episode=episode, field_name="step_id")
    ordered = sorted(data, key=lambda s: _get(s, "step_id"))
    for k, s in enumerate(ordered):
        if _get(s, "step_id") != k:
            raise error(
                path,
                f"step ids must run 0..{len(data) - 1}; got {sorted(_get(x, 'step_id') for x in data)}",
                episode=episode,
                field_name="step_id",
            )
    return ordered


def resolve_image(json_path: Path, image_path: str | None, fallback_name: str, roots: list[Path]) -> Path:
    """The screenshot file: next to the JSON (by basename, then by `<id>_<k>.png`), else `root / image_path`."""
    cands = []
    if image_path:
        cands.append(json_path.parent / Path(image_path).name)
    cands.append(json_path.parent / fallback_name)
    if image_path:
        cands.extend(r / image_path for r in roots)
    for c in cands:
        if c.is_file():
            return c
    return cands[0]


# --- AndroidLens loader ----------------------------------------------------------------------------------
def _int_field(path: Path, s: dict[str, Any], name: str, k: int, eid: str) -> int:
    v = _get(s, name)
    if isinstance(v, bool) or not isinstance(v, int) or v <= 0:
        raise error(path, f"expected a positive integer, got {v!r}", step=k, episode=eid, field_name=name)
    return v


def load_episode(path: Path, lang: str, roots: list[Path]) -> DatasetEpisode:
    data = read_step_list(path)
    eid = str(_get(data[0], "episode_id") or path.stem)
    steps_raw = order_steps(path, data, eid)
    steps = []
    for k, s in enumerate(steps_raw):
        try:
            action = to_unified(s)
        except (FieldError, ValueError) as exc:
            fname = exc.field if isinstance(exc, FieldError) else None
            msg = exc.detail if isinstance(exc, FieldError) else str(exc)
            raise error(path, msg, step=k, episode=eid, field_name=fname) from exc
        w = _int_field(path, s, "image_width", k, eid)
        h = _int_field(path, s, "image_height", k, eid)
        img = resolve_image(path, _get(s, "image_path"), f"{eid}_{k}.png", roots)
        extras = {
            "low_instruction": s.get("low_instruction", ""),
            "milestone": s.get("milestone"),
            "duration": _get(s, "duration"),
        }
        steps.append(DatasetStep(index=k, width=w, height=h, action=action, raw=s, image_path=str(img), extras=extras))
    first = data[0]
    instruction = first.get("instruction")
    if not isinstance(instruction, str) or not instruction:
        raise error(path, "missing or empty", episode=eid, step=0, field_name="instruction")
    types = first.get("types") or []
    meta = {
        "app": list(first.get("app") or []),
        "types": list(types) if isinstance(types, list) else [types],
        "episode_length": first.get("episode_length"),
        "file": str(path),
    }
    return DatasetEpisode(
        dataset=DATASET,
        episode_id=eid,
        instruction=instruction,
        lang=str(first.get("language") or lang),
        steps=tuple(steps),
        meta=meta,
    )


def iter_episodes(
    root: str | Path, *, langs: tuple[str, ...] = ("en", "zh"), skip_bad: bool = False, stats: LoadStats | None = None
) -> Iterator[DatasetEpisode]:
    """Stream AndroidLens episodes from `root` (the folder holding `test/`, or `test/` itself)."""
    stats = stats if stats is not None else LoadStats()
    root = Path(root)
    base = root / "test" if (root / "test").is_dir() else root
    found = False
    for lang in langs:
        d = base / lang
        if not d.is_dir():
            continue
        found = True
        for ep_dir in sorted(p for p in d.iterdir() if p.is_dir()):
            path = ep_dir / f"{ep_dir.name}.json"
            if not path.is_file():
                others = sorted(ep_dir.glob("*.json"))
                if not others:
                    err = DatasetError(f"{ep_dir}: no episode JSON ({ep_dir.name}.json) in this folder")
                    if not skip_bad:
                        raise err
                    stats.bad_episodes += 1
                    stats.note(err)
                    continue
                path = others[0]
            ep = stats.load_episode(partial(load_episode, path, lang, [base, base.parent, root]), skip_bad)
            if ep is not None:
                yield ep
    if not found:
        raise DatasetError(f"{base}: no language folder among {list(langs)} (expected test/<lang>/<id>/<id>.json)")


# --- milestones -> Task ----------------------------------------------------------------------------------
# state word (normalized: lower case, '-' / ' ' -> '_') -> (STATES name, required value)
STATE_MAP: dict[str, tuple[str, bool]] = {
    "selected": ("selected", True),
    "select": ("selected", True),
    "is_selected": ("selected", True),
    "unselected": ("selected", False),
    "not_selected": ("selected", False),
    "checked": ("checked", True),
    "check": ("checked", True),
    "is_checked": ("checked", True),
    "on": ("checked", True),
    "enabled_on": ("checked", True),
    "toggled": ("checked", True),
    "unchecked": ("checked", False),
    "not_checked": ("checked", False),
    "off": ("checked", False),
    "focused": ("focused", True),
    "focus": ("focused", True),
    "enabled": ("enabled", True),
    "enable": ("enabled", True),
    "disabled": ("enabled", False),
    "clickable": ("clickable", True),
    "long_clickable": ("long_clickable", True),
    "longclickable": ("long_clickable", True),
    "checkable": ("checkable", True),
    "scrollable": ("scrollable", True),
    "password": ("password", True),
    "focusable": ("focusable", True),
    "选中": ("selected", True),
    "已选中": ("selected", True),
    "未选中": ("selected", False),
    "勾选": ("checked", True),
    "已勾选": ("checked", True),
    "未勾选": ("checked", False),
    "开启": ("checked", True),
    "打开": ("checked", True),
    "已开启": ("checked", True),
    "关闭": ("checked", False),
    "已关闭": ("checked", False),
}


def map_states(states: list[str]) -> tuple[tuple[str, ...], tuple[str, ...], list[str]]:
    """Milestone `state` words -> (states, not_states, unknown words)."""
    pos: list[str] = []
    neg: list[str] = []
    unknown: list[str] = []
    for s in states:
        key = re.sub(r"[\s\-]+", "_", str(s).strip().lower())
        if not key:
            continue
        if key in STATE_MAP:
            name, want = STATE_MAP[key]
            (pos if want else neg).append(name)
        else:
            unknown.append(str(s))
    return tuple(dict.fromkeys(pos)), tuple(dict.fromkeys(neg)), unknown


def _milestones_of(ep: DatasetEpisode) -> list[tuple[int, dict[str, Any], int]]:
    seen: set[str] = set()
    out = []
    for step in ep.steps:
        m = step.raw.get("milestone")
        items = m if isinstance(m, list) else [m]
        for item in items:
            if not item:
                continue
            if not isinstance(item, dict):
                raise DatasetError(
                    f"{ep.meta.get('file', ep.episode_id)}: step {step.index}: field 'milestone': "
                    f"expected an object, got {type(item).__name__}"
                )
            key = json.dumps(item, sort_keys=True, ensure_ascii=False)
            if key in seen:
                continue
            seen.add(key)
            raw_idx = item.get("idx")
            try:
                if raw_idx is None or isinstance(raw_idx, bool):
                    raise TypeError
                idx = int(raw_idx)
            except (TypeError, ValueError):
                raise DatasetError(
                    f"{ep.meta.get('file', ep.episode_id)}: step {step.index}: field "
                    f"'milestone.idx': expected an integer, got {item.get('idx')!r}"
                ) from None
            out.append((idx, item, step.index))
    return out


def _task_id(ep: DatasetEpisode) -> str:
    return re.sub(r"[^A-Za-z0-9_.-]", "_", f"androidlens-{ep.lang}-{ep.episode_id}")


def episode_to_task(ep: DatasetEpisode) -> Any:
    """AndroidLens episode -> `tasks.schema.Task` (None when it has no milestones). Mapping: module docstring."""
    from pydantic import ValidationError

    from tasks.schema import CATEGORIES, ElementMatch, Milestone, MilestoneGroup, ScreenCheck, Task

    where = ep.meta.get("file", ep.episode_id)
    found = _milestones_of(ep)
    if not found:
        return None
    types = [str(t) for t in ep.meta.get("types") or []]
    category = next((t for t in types if t in CATEGORIES), None)
    if category is None:
        raise DatasetError(
            f"{where}: field 'types': no AndroidLens category among {types!r} (expected one of {list(CATEGORIES)})"
        )
    tags = ["androidlens", *(f"type:{t}" for t in types), *(f"app:{a}" for a in ep.meta.get("app", []))]
    by_idx: dict[int, list[tuple[dict[str, Any], int]]] = {}
    for idx, item, step in found:
        by_idx.setdefault(idx, []).append((item, step))
    children: list[Any] = []
    for idx in sorted(by_idx):
        group = by_idx[idx]
        leaves = []
        for k, (item, step) in enumerate(group):
            mid = f"m{idx}" if len(group) == 1 else f"m{idx}.{k + 1}"
            states = item.get("state") or []
            states = states if isinstance(states, list) else [states]
            pos, neg, unknown = map_states(states)
            for u in unknown:
                log.warning(
                    "%s: milestone %s: state %r has no equivalent in tasks.schema.STATES; dropped", where, mid, u
                )
                tags.append(f"unmapped-state:{u}")
            text = item.get("text") or ""
            bbox = item.get("bbox") or None
            sub = item.get("sub-target") or item.get("sub_target") or text or f"milestone {idx}"
            try:
                match = ElementMatch(
                    text=text or None,
                    match="contains",
                    case_sensitive=False,
                    bbox=tuple(bbox) if bbox else None,
                    bbox_rule="center",
                    states=pos,
                    not_states=neg,
                )
                leaves.append(Milestone(id=mid, sub_target={ep.lang: str(sub)}, check=ScreenCheck(element=match)))
            except (ValidationError, TypeError) as exc:
                msg = "; ".join(e["msg"] for e in exc.errors()) if isinstance(exc, ValidationError) else str(exc)
                raise DatasetError(f"{where}: step {step}: field 'milestone' (idx {idx}): {msg}") from exc
        children.append(
            leaves[0] if len(leaves) == 1 else MilestoneGroup(id=f"idx{idx}", order="unordered", children=tuple(leaves))
        )
    try:
        return Task(
            id=_task_id(ep),
            instruction={ep.lang: ep.instruction},
            category=category,
            max_steps=min(200, max(20, 2 * len(ep.steps))),
            milestones=MilestoneGroup(id="root", order="ordered", children=tuple(children)),
            tags=tuple(dict.fromkeys(tags)),
        )
    except ValidationError as exc:
        raise DatasetError(f"{where}: cannot build a task: {exc.errors()[0]['msg']}") from exc
