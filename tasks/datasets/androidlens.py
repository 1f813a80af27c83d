"""AndroidLens (`test/{en,zh}/<id>/<id>.json` step lists + `<id>_<k>.png`) and the AgentCPM-GUI step-record codec
it shares with AITZ (`tasks.datasets.aitz`).

Step records ("AgentCPM step family"): `result_action_type` (code), `result_touch_yx` / `result_lift_yx`
(`"[y, x]"` strings in [0, 1], `"[-1.0, -1.0]"` = no point), `result_action_text`, and for AndroidLens
`duration` (null or milliseconds). AndroidLens' card types these fields as one-element lists (`[4]`, `["[y, x]"]`);
plain scalars are accepted too and the converter writes back the shape it read.

Action codes: 0 long press (AgentCPM), 1 wait (duration), 3 type, 4 click / long press (duration given) / swipe
(touch != lift), 5 back, 6 home, 7 enter (AgentCPM), 10 terminate (-> COMPLETE, text = answer), 11 impossible
(AgentCPM). AITZ has no `duration` and splits code 4 into tap / swipe by AitW's 0.04 distance rule.

Milestones -> `Task`: `tasks.datasets.milestones` (`DatasetEpisode.to_task()`).
"""

from __future__ import annotations

import json
import math
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

from .adapter import DatasetAdapter
from .base import DatasetEpisode, DatasetStep, LoadStats, make_point, scroll_as_swipe, target_xy, unrepresentable
from .errors import DatasetError, FieldError, error

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


# --- the adapter ------------------------------------------------------------------------------------------
def breakdown(episode: DatasetEpisode) -> dict[str, Any]:
    """AndroidLens figures are reported per category (the first `types` entry) and per language."""
    types = [str(t) for t in episode.meta.get("types") or []]
    return {"category": types[0] if types else "unknown", "lang": episode.lang}


ADAPTER = DatasetAdapter(
    name=DATASET,
    title="AndroidLens",
    load=iter_episodes,
    metric="agentcpm",
    metric_dialect="androidlens",
    decode=to_unified,
    encode=from_unified,
    action_fields=ACTION_FIELDS,
    size_fields=("image_width", "image_height"),
    lang_in_key=True,
    breakdown=breakdown,
    langs_option="langs",
)
