"""GUI Odyssey: one JSON per episode (`episode_id, device_info, task_info, step_length, steps[]`).

Both action vocabularies are read: v1 (dataset card) `TYPE`, `IMPOSSIBLE`, `KEY_RECENT`; v2 (data v2 and the
official code) `TEXT`, `INCOMPLETE`, `KEY_APPSELECT`. `info` holds points in [0, 1000], x first: CLICK /
LONG_PRESS `[[x, y], ...]` (the first point is the target), SCROLL `[[x1, y1], [x2, y2]]` (finger start -> end),
TYPE / TEXT the text, CLICK with a key string (`KEY_HOME`, `KEY_BACK`, `KEY_RECENT` / `KEY_APPSELECT`) for
system keys; `HOME` / `BACK` / `RECENT` action names are accepted too. v2 steps add `description, intention,
context, low_level_instruction, sam2_bbox` (kept in `extras`; `sam2_bbox` also as pixels `sam2_bbox_px`).
The screen size is `device_info.w x device_info.h`.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from functools import partial
from pathlib import Path
from typing import Any

from harness import coords
from harness.actions import Action, Back, Click, Complete, Home, Impossible, LongPress, Recent, Scroll, Swipe, TypeText

from .adapter import DatasetAdapter
from .base import DatasetEpisode, DatasetStep, LoadStats, make_point, scroll_as_swipe, target_xy, unrepresentable
from .errors import DatasetError, FieldError, error

DATASET = "odyssey"
ACTION_FIELDS = ("action", "info")
V1 = {"type": "TYPE", "impossible": "IMPOSSIBLE", "recent": "KEY_RECENT"}
V2 = {"type": "TEXT", "impossible": "INCOMPLETE", "recent": "KEY_APPSELECT"}
KEYS: dict[str, Callable[[], Action]] = {
    "KEY_HOME": Home,
    "KEY_BACK": Back,
    "KEY_RECENT": Recent,
    "KEY_APPSELECT": Recent,
}
V2_STEP_FIELDS = ("description", "intention", "context", "low_level_instruction", "sam2_bbox")
EXTRA_FIELDS = ("ps", *V2_STEP_FIELDS)


def _xy(value: Any, field_name: str) -> tuple[float, float]:
    if (
        not isinstance(value, (list, tuple))
        or len(value) != 2
        or not all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in value)
    ):
        raise FieldError(field_name, f"expected a point [x, y] in [0, 1000], got {value!r}")
    try:
        return coords.from_1000(value)
    except ValueError as exc:
        raise FieldError(field_name, str(exc)) from None


def _points(info: Any) -> list[tuple[float, float]]:
    if isinstance(info, (list, tuple)) and len(info) == 2 and all(isinstance(v, (int, float)) for v in info):
        info = [info]  # a bare [x, y]
    if not isinstance(info, (list, tuple)) or not info:
        raise FieldError("info", f"expected a list of [x, y] points in [0, 1000], got {info!r}")
    return [_xy(p, f"info[{i}]") for i, p in enumerate(info)]


def to_unified(raw: dict[str, Any]) -> Action | None:
    """An Odyssey step (either vocabulary) -> unified action."""
    act = raw.get("action")
    if not isinstance(act, str) or not act:
        raise FieldError("action", f"missing or not a string: {act!r}")
    act = act.upper()
    info = raw.get("info", "")
    key = info.strip().upper() if isinstance(info, str) else None
    if act in KEYS:
        return KEYS[act]()
    if act in ("HOME", "BACK", "RECENT", "APPSELECT"):
        simple: dict[str, Callable[[], Action]] = {"HOME": Home, "BACK": Back}
        return simple.get(act, Recent)()
    if act == "CLICK" and key:
        if key not in KEYS:
            raise FieldError("info", f"unknown key {info!r} (known: {', '.join(KEYS)})")
        return KEYS[key]()
    if act in ("CLICK", "LONG_PRESS"):
        p = make_point(_points(info)[0], "info")
        return Click(point=p) if act == "CLICK" else LongPress(point=p)
    if act == "SCROLL":
        pts = _points(info)
        if len(pts) != 2:
            raise FieldError("info", f"SCROLL needs [[x1, y1], [x2, y2]], got {len(pts)} point(s)")
        return Swipe(start=make_point(pts[0], "info"), end=make_point(pts[1], "info"))
    if act in ("TYPE", "TEXT"):
        if not isinstance(info, str):
            raise FieldError("info", f"{act} needs the typed text, got {type(info).__name__}")
        return TypeText(text=info) if info else None
    if act == "COMPLETE":
        return Complete()
    if act in ("IMPOSSIBLE", "INCOMPLETE"):
        return Impossible()
    raise FieldError("action", f"unknown action {raw.get('action')!r}")


def detect_vocab(raw: dict[str, Any] | None) -> str | None:
    """'v1' / 'v2' when a step record reveals its vocabulary, else None."""
    if not raw:
        return None
    act = str(raw.get("action", "")).upper()
    info = raw.get("info")
    info_key = info.strip().upper() if isinstance(info, str) else ""
    if act in ("TEXT", "INCOMPLETE") or "KEY_APPSELECT" in (act, info_key) or any(f in raw for f in V2_STEP_FIELDS):
        return "v2"
    if act in ("TYPE", "IMPOSSIBLE") or "KEY_RECENT" in (act, info_key):
        return "v1"
    return None


def from_unified(
    action: Action, template_raw: dict[str, Any] | None = None, *, vocab: str | None = None
) -> dict[str, Any]:
    """Unified action -> Odyssey step (`action`, `info`; other template fields kept). `vocab` "v1" | "v2"
    (default: detected from the template, else v2)."""
    out = dict(template_raw or {})
    if template_raw is not None:
        try:
            if to_unified(template_raw) == action:
                return out
        except (FieldError, ValueError):
            pass
    words = V1 if (vocab or detect_vocab(template_raw) or "v2") == "v1" else V2
    if isinstance(action, Scroll):
        action = scroll_as_swipe(action, (1000, 1000))
    info: str | list[list[int]]
    if isinstance(action, (Click, LongPress)):
        p = list(coords.to_1000(target_xy(action, DATASET)))
        act, info = ("CLICK" if isinstance(action, Click) else "LONG_PRESS"), [p, list(p)]
    elif isinstance(action, Swipe):
        act, info = (
            "SCROLL",
            [list(coords.to_1000(action.start.as_tuple())), list(coords.to_1000(action.end.as_tuple()))],
        )
    elif isinstance(action, TypeText):
        act, info = words["type"], action.text
    elif isinstance(action, (Home, Back, Recent)):
        act, info = "CLICK", {"HOME": "KEY_HOME", "BACK": "KEY_BACK", "RECENT": words["recent"]}[action.type]
    elif isinstance(action, Complete):
        act, info = "COMPLETE", ""
    elif isinstance(action, Impossible):
        act, info = words["impossible"], ""
    else:
        raise unrepresentable(DATASET, action)
    out["action"], out["info"] = act, info
    return out


# --- loading ---------------------------------------------------------------------------------------------
def _read_split(split_file: str | Path, split: str) -> set[str]:
    p = Path(split_file)
    try:
        data = json.loads(p.read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError) as exc:
        raise DatasetError(f"{p}: split file cannot be read: {exc}") from exc
    if not isinstance(data, dict) or split not in data:
        raise DatasetError(f"{p}: no split {split!r} (has {list(data) if isinstance(data, dict) else '?'})")
    return {Path(str(x)).stem if str(x).endswith(".json") else str(x) for x in data[split]}


def _sam2(raw: dict[str, Any], size: tuple[int, int]) -> dict[str, Any]:
    box = raw.get("sam2_bbox")
    if box in (None, [], ""):
        return {}
    if not isinstance(box, (list, tuple)) or len(box) != 4:
        raise FieldError("sam2_bbox", f"expected [x1, y1, x2, y2] in [0, 1000], got {box!r}")
    try:
        return {"sam2_bbox_px": coords.xyxy_1000_to_ltrb(box, size)}
    except (ValueError, TypeError) as exc:
        raise FieldError("sam2_bbox", str(exc)) from None


def load_episode(path: Path, images_dir: Path | None) -> DatasetEpisode:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise DatasetError(f"{path}: cannot be read: {exc}") from exc
    except json.JSONDecodeError as exc:
        raise DatasetError(f"{path}: not valid JSON (line {exc.lineno}, column {exc.colno}: {exc.msg})") from exc
    if not isinstance(data, dict):
        raise DatasetError(f"{path}: expected an episode object")
    eid = str(data.get("episode_id") or path.stem)
    dev = data.get("device_info")
    if not isinstance(dev, dict):
        raise error(path, "missing or not an object", episode=eid, field_name="device_info")
    try:
        w, h = int(dev["w"]), int(dev["h"])
        if w <= 0 or h <= 0:
            raise ValueError
    except (KeyError, TypeError, ValueError):
        raise error(
            path,
            f"screen size w x h must be positive integers, got {dev.get('w')!r} x {dev.get('h')!r}",
            episode=eid,
            field_name="device_info.w/h",
        ) from None
    task_info = data.get("task_info")
    task: dict[str, Any] = task_info if isinstance(task_info, dict) else {}
    instruction = task.get("instruction") or task.get("task")
    if not isinstance(instruction, str) or not instruction:
        raise error(path, "missing or empty", episode=eid, field_name="task_info.instruction")
    raw_steps = data.get("steps")
    if not isinstance(raw_steps, list) or not raw_steps or not all(isinstance(s, dict) for s in raw_steps):
        raise error(path, "expected a non-empty list of step objects", episode=eid, field_name="steps")
    for i, s in enumerate(raw_steps):
        if isinstance(s.get("step"), bool) or not isinstance(s.get("step"), int):
            raise error(path, f"expected an integer, got {s.get('step')!r}", record=i, episode=eid, field_name="step")
    ordered = sorted(raw_steps, key=lambda s: s["step"])
    if [s["step"] for s in ordered] != list(range(len(ordered))):
        raise error(
            path,
            f"steps must run 0..{len(ordered) - 1}, got {[s['step'] for s in ordered]}",
            episode=eid,
            field_name="step",
        )
    vocab = next((v for v in map(detect_vocab, ordered) if v), None)
    steps = []
    for k, s in enumerate(ordered):
        try:
            action = to_unified(s)
            extras = {f: s[f] for f in EXTRA_FIELDS if f in s}
            extras.update(_sam2(s, (w, h)))
        except (FieldError, ValueError) as exc:
            fname = exc.field if isinstance(exc, FieldError) else None
            msg = exc.detail if isinstance(exc, FieldError) else str(exc)
            raise error(path, msg, step=k, episode=eid, field_name=fname) from exc
        shot = s.get("screenshot") or f"{eid}_{k}.png"
        image_path = str(images_dir / shot) if images_dir is not None else None
        steps.append(
            DatasetStep(index=k, width=w, height=h, action=action, raw=s, image_path=image_path, extras=extras)
        )
    meta = {
        "device_info": dev,
        "category": task.get("category"),
        "app": list(task.get("app") or []),
        "meta_task": task.get("meta_task"),
        "task": task.get("task"),
        "step_length": data.get("step_length"),
        "vocab": vocab,
        "file": str(path),
    }
    return DatasetEpisode(
        dataset=DATASET, episode_id=eid, instruction=instruction, lang="en", steps=tuple(steps), meta=meta
    )


def iter_episodes(
    annotations_dir: str | Path,
    *,
    images_dir: str | Path | None = None,
    split_file: str | Path | None = None,
    split: str = "test",
    skip_bad: bool = False,
    stats: LoadStats | None = None,
) -> Iterator[DatasetEpisode]:
    """Stream GUI Odyssey episodes from `annotations_dir/*.json` (sorted by name).

    - `images_dir`: folder of the screenshots (default: `<annotations_dir>/../screenshots` when it exists).
    - `split_file` (`random_split.json`, `task_split.json`, ...) with `split` ("train" / "test"): only those
      episodes; `meta["split"]` names the split.
    """
    stats = stats if stats is not None else LoadStats()
    ann = Path(annotations_dir)
    if not ann.is_dir():
        raise DatasetError(f"{ann}: annotations folder not found")
    if images_dir is None and (ann.parent / "screenshots").is_dir():
        images_dir = ann.parent / "screenshots"
    imgs = Path(images_dir) if images_dir is not None else None
    keep = _read_split(split_file, split) if split_file is not None else None
    for path in sorted(ann.glob("*.json")):
        if keep is not None and path.stem not in keep:
            continue
        ep = stats.load_episode(partial(load_episode, path, imgs), skip_bad)
        if ep is None:
            continue
        if keep is not None:
            ep.meta["split"] = split
        yield ep


# --- the adapter ------------------------------------------------------------------------------------------
def breakdown(episode: DatasetEpisode) -> dict[str, Any]:
    """GUI Odyssey figures are reported per category (the per-category mean of the random split)."""
    return {"category": episode.meta.get("category") or "unknown", "split": episode.meta.get("split")}


def split_options(split_file: str, label: str | None) -> dict[str, Any]:
    return {"split_file": split_file, "split": label or "test"}


ADAPTER = DatasetAdapter(
    name=DATASET,
    title="GUI Odyssey",
    aliases=("gui-odyssey",),
    load=iter_episodes,
    metric="odyssey",
    decode=to_unified,
    encode=from_unified,
    action_fields=ACTION_FIELDS,
    breakdown=breakdown,
    split_options=split_options,
    images_option="images_dir",
)
