"""Android in the Wild (AitW): GZIP TFRecord shards of `tf.train.Example`, one Example per step, read without
TensorFlow (see `tfrecord`).

Streaming: records are read one at a time and grouped into episodes (the steps of an episode are contiguous in a
shard); one episode is held in memory at a time. Screenshots (`image/encoded`, raw uint8 pixels H x W x C) are
kept as bytes and decoded only by `DatasetStep.image()`; `keep_images=False` drops them.

`raw` of a step holds every feature except `image/encoded`, decoded: scalar int64 / bytes features as `int` /
`str`, `results/yx_touch|yx_lift` and `image/ui_annotations_positions` as float lists, the annotation text and
ui types as string lists; unknown features as lists of their values.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import Any

from harness import coords
from harness.actions import Action, Back, Click, Complete, Enter, Home, Impossible, LongPress, Scroll, Swipe, TypeText

from .adapter import DatasetAdapter
from .base import (
    DatasetEpisode,
    DatasetStep,
    LoadStats,
    UIBox,
    as_paths,
    make_point,
    scroll_as_swipe,
    target_xy,
    unrepresentable,
)
from .errors import DatasetError, FieldError, error
from .tfrecord import ExampleError, RecordError, build_example, iter_records, parse_example, write_records

DATASET = "aitw"

# action enum (AitW action_type.py)
TYPE, DUAL_POINT, PRESS_BACK, PRESS_HOME, PRESS_ENTER, STATUS_TASK_COMPLETE, STATUS_TASK_IMPOSSIBLE = (
    3,
    4,
    5,
    6,
    7,
    10,
    11,
)
ACTION_CODES = {
    TYPE: "TYPE",
    DUAL_POINT: "DUAL_POINT",
    PRESS_BACK: "PRESS_BACK",
    PRESS_HOME: "PRESS_HOME",
    PRESS_ENTER: "PRESS_ENTER",
    STATUS_TASK_COMPLETE: "STATUS_TASK_COMPLETE",
    STATUS_TASK_IMPOSSIBLE: "STATUS_TASK_IMPOSSIBLE",
}
TAP_MAX_DISTANCE = 0.04  # a DUAL_POINT is a tap iff ||touch - lift|| <= 0.04 in normalized (y, x)
NO_POINT = [-1.0, -1.0]  # yx_touch / yx_lift of actions without a point
ACTION_FIELDS = ("results/action_type", "results/yx_touch", "results/yx_lift", "results/type_action")

INT_FEATURES = (
    "android_api_level",
    "episode_length",
    "step_id",
    "image/height",
    "image/width",
    "image/channels",
    "results/action_type",
)
STR_FEATURES = ("current_activity", "device_type", "episode_id", "goal_info", "results/type_action")
FLOAT_LIST_FEATURES = ("image/ui_annotations_positions", "results/yx_touch", "results/yx_lift")
STR_LIST_FEATURES = ("image/ui_annotations_text", "image/ui_annotations_ui_types")
IMAGE_FEATURE = "image/encoded"
REQUIRED = (
    "episode_id",
    "step_id",
    "goal_info",
    "results/action_type",
    "image/height",
    "image/width",
    "image/channels",
)
SUBSETS = {
    "google_apps": "GoogleApps",
    "install": "Install",
    "web_shopping": "WebShopping",
    "general": "General",
    "single": "Single",
}
_KIND = {
    **{n: "int64" for n in INT_FEATURES},
    **{n: "bytes" for n in STR_FEATURES},
    **{n: "float" for n in FLOAT_LIST_FEATURES},
    **{n: "bytes" for n in STR_LIST_FEATURES},
    IMAGE_FEATURE: "bytes",
}


# --- converters ------------------------------------------------------------------------------------------
def _yx(raw: dict[str, Any], name: str) -> tuple[float, float] | None:
    v = raw.get(name)
    if v is None:
        return None
    if len(v) != 2:
        raise FieldError(name, f"expected 2 numbers (y, x), got {len(v)}")
    if v[0] == -1.0 and v[1] == -1.0:
        return None
    return coords.yx_to_xy(v)


def is_tap(touch_xy: tuple[float, float], lift_xy: tuple[float, float]) -> bool:
    """The AitW tap rule: Euclidean distance in normalized coordinates <= 0.04."""
    return math.dist(touch_xy, lift_xy) <= TAP_MAX_DISTANCE


def to_unified(raw: dict[str, Any]) -> Action | None:
    """An AitW step record -> unified action (DUAL_POINT -> Click or Swipe by the 0.04 rule)."""
    code = raw.get("results/action_type")
    if code is None:
        raise FieldError("results/action_type", "missing")
    if code == DUAL_POINT:
        touch = _yx(raw, "results/yx_touch")
        lift = _yx(raw, "results/yx_lift")
        if touch is None:
            raise FieldError("results/yx_touch", "a DUAL_POINT needs a touch point")
        if lift is None:
            raise FieldError("results/yx_lift", "a DUAL_POINT needs a lift point")
        if is_tap(touch, lift):
            return Click(point=make_point(touch, "results/yx_touch"))
        return Swipe(start=make_point(touch, "results/yx_touch"), end=make_point(lift, "results/yx_lift"))
    if code == TYPE:
        text = raw.get("results/type_action", "")
        if not isinstance(text, str):
            raise FieldError("results/type_action", f"expected text, got {type(text).__name__}")
        return TypeText(text=text) if text else None  # an empty TYPE types nothing: not representable
    simple: dict[int, Callable[[], Action]] = {
        PRESS_BACK: Back,
        PRESS_HOME: Home,
        PRESS_ENTER: Enter,
        STATUS_TASK_COMPLETE: Complete,
        STATUS_TASK_IMPOSSIBLE: Impossible,
    }
    if code in simple:
        return simple[code]()
    raise FieldError(
        "results/action_type",
        f"unknown action code {code!r} (known: {', '.join(f'{k} {v}' for k, v in ACTION_CODES.items())})",
    )


def _same_action(template: dict[str, Any] | None, action: Action) -> bool:
    if template is None:
        return False
    try:
        return to_unified(template) == action
    except (FieldError, ValueError):
        return False


def from_unified(action: Action, template_raw: dict[str, Any] | None = None) -> dict[str, Any]:
    """Unified action -> AitW record (the template's other fields kept). Lossy cases: see docs/datasets.md."""
    out = dict(template_raw or {})
    if _same_action(template_raw, action):  # nothing to re-encode: keep details the unified schema drops
        return out
    if isinstance(action, Scroll):
        size = (int(out.get("image/width", 1000)), int(out.get("image/height", 1000)))
        action = scroll_as_swipe(action, size)
    touch: list[float] = list(NO_POINT)
    lift: list[float] = list(NO_POINT)
    text = ""
    if isinstance(action, (Click, LongPress)):  # AitW has no long press: written as a tap
        touch = lift = list(coords.xy_to_yx(target_xy(action, DATASET)))
        code = DUAL_POINT
    elif isinstance(action, Swipe):
        touch = list(coords.xy_to_yx(action.start.as_tuple()))
        lift = list(coords.xy_to_yx(action.end.as_tuple()))
        code = DUAL_POINT
    elif isinstance(action, TypeText):
        code, text = TYPE, action.text
    elif isinstance(action, (Back, Home, Enter, Complete, Impossible)):
        code = {
            "BACK": PRESS_BACK,
            "HOME": PRESS_HOME,
            "ENTER": PRESS_ENTER,
            "COMPLETE": STATUS_TASK_COMPLETE,
            "IMPOSSIBLE": STATUS_TASK_IMPOSSIBLE,
        }[action.type]
    else:
        raise unrepresentable(DATASET, action)
    out.update(
        {
            "results/action_type": code,
            "results/yx_touch": list(touch),
            "results/yx_lift": list(lift),
            "results/type_action": text,
        }
    )
    return out


# --- Example <-> raw -------------------------------------------------------------------------------------
def _text(b: bytes | float | int) -> str:
    return b.decode("utf-8", errors="replace") if isinstance(b, bytes) else str(b)


def raw_from_features(features: dict[str, tuple[str, list[Any]]]) -> dict[str, Any]:
    """Decoded Example features -> the step's `raw` dict (everything except `image/encoded`)."""
    raw: dict[str, Any] = {}
    for name, (kind, values) in features.items():
        if name == IMAGE_FEATURE:
            continue
        expected = _KIND.get(name)
        if expected is not None and kind != expected and values:
            raise FieldError(name, f"expected a {expected} feature, got {kind}")
        if name in INT_FEATURES or name in STR_FEATURES:
            if len(values) != 1:
                raise FieldError(name, f"expected one value, got {len(values)}")
            raw[name] = _text(values[0]) if name in STR_FEATURES else int(values[0])
        elif name in FLOAT_LIST_FEATURES:
            raw[name] = [float(v) for v in values]
        elif name in STR_LIST_FEATURES:
            raw[name] = [_text(v) for v in values]
        else:
            raw[name] = [_text(v) if isinstance(v, bytes) else v for v in values]
    return raw


def features_from_raw(raw: dict[str, Any], pixels: bytes | None = None) -> dict[str, tuple[str, list[Any]]]:
    """The inverse of `raw_from_features` (plus the image bytes): what `write_tfrecord` serializes."""
    feats: dict[str, tuple[str, list[Any]]] = {}
    for name, value in raw.items():
        kind = _KIND.get(name)
        values = list(value) if isinstance(value, (list, tuple)) else [value]
        if kind is None:
            kind = (
                "bytes"
                if all(isinstance(v, (str, bytes)) for v in values)
                else "int64"
                if all(isinstance(v, int) for v in values)
                else "float"
            )
        feats[name] = (kind, values)
    if pixels is not None:
        feats[IMAGE_FEATURE] = ("bytes", [pixels])
    return feats


def write_tfrecord(path: str | Path, examples: Iterable[dict[str, Any] | bytes], *, compress: bool = True) -> int:
    """Write AitW steps (streaming) as a GZIP TFRecord shard with CRCs.

    Each item is a serialized Example (`bytes`) or a dict: a step `raw` dict (as the loader produces), with the
    screenshot pixels under `"image/encoded"` (bytes, or a uint8 numpy array H x W x C).
    """

    def serialize() -> Iterator[bytes]:
        for ex in examples:
            if isinstance(ex, (bytes, bytearray)):
                yield bytes(ex)
                continue
            d = dict(ex)
            pixels = d.pop(IMAGE_FEATURE, None)
            if pixels is not None and not isinstance(pixels, (bytes, bytearray)):
                pixels = pixels.tobytes()  # numpy array
            yield build_example(features_from_raw(d, pixels))

    return write_records(path, serialize(), compress=compress)


# --- loading ---------------------------------------------------------------------------------------------
def _load_split(split: dict[str, Any] | str | Path | None) -> dict[str, str] | None:
    if split is None:
        return None
    if not isinstance(split, dict):
        try:
            split = json.loads(Path(split).read_text(encoding="utf-8"))
        except (OSError, json.JSONDecodeError) as exc:
            raise DatasetError(f"{split}: split file cannot be read: {exc}") from exc
        if not isinstance(split, dict):
            raise DatasetError(f"split file must hold {{label: [episode_id, ...]}}, got {type(split).__name__}")
    label_of: dict[str, str] = {}
    for label, ids in split.items():
        for eid in ids:
            label_of[str(eid)] = str(label)
    return label_of


def _subset(path: Path) -> str | None:
    for part in reversed(path.parts):
        key = part.lower().split("-")[0].split(".")[0]
        if key in SUBSETS:
            return SUBSETS[key]
    return None


def _image_loader(pixels: bytes, h: int, w: int, c: int):
    def load():
        import numpy as np
        from PIL import Image

        arr = np.frombuffer(pixels, dtype=np.uint8).reshape(h, w, c)
        if c == 1:
            return Image.fromarray(arr[:, :, 0], "L")
        return Image.fromarray(arr, {3: "RGB", 4: "RGBA"}[c])

    return load


def decode_step(features: dict[str, tuple[str, list[Any]]], index: int, *, keep_images: bool = True) -> DatasetStep:
    """One Example's features -> a DatasetStep (FieldError names the offending feature)."""
    for name in REQUIRED:
        if name not in features:
            raise FieldError(name, "missing feature")
    raw = raw_from_features(features)
    h, w, c = raw["image/height"], raw["image/width"], raw["image/channels"]
    if h <= 0 or w <= 0 or c not in (1, 3, 4):
        raise FieldError("image/height", f"bad screenshot shape {h}x{w}x{c}")
    load = None
    if keep_images:
        if IMAGE_FEATURE not in features or len(features[IMAGE_FEATURE][1]) != 1:
            raise FieldError(IMAGE_FEATURE, "missing feature")
        pixels = features[IMAGE_FEATURE][1][0]
        if len(pixels) != h * w * c:
            raise FieldError(
                IMAGE_FEATURE,
                f"{len(pixels)} bytes, expected height*width*channels = {h}*{w}*{c} = {h * w * c} raw uint8 pixels",
            )
        load = _image_loader(pixels, h, w, c)
    positions = raw.get("image/ui_annotations_positions", [])
    texts = raw.get("image/ui_annotations_text", [])
    types = raw.get("image/ui_annotations_ui_types", [])
    if len(positions) % 4:
        raise FieldError("image/ui_annotations_positions", f"{len(positions)} floats is not a multiple of 4")
    n = len(positions) // 4
    if len(texts) not in (0, n) or len(types) not in (0, n):
        raise FieldError("image/ui_annotations_text", f"{len(texts)} texts and {len(types)} ui types for {n} boxes")
    elements = []
    for i in range(n):
        y, x, bh, bw = positions[4 * i : 4 * i + 4]
        if not all(math.isfinite(v) for v in (y, x, bh, bw)):
            raise FieldError("image/ui_annotations_positions", f"box {i} has a non-finite number")
        # OCR / icon boxes may poke out of the screen by a hair: clamp into [0, 1] (documented)
        box = (min(max(y, 0.0), 1.0), min(max(x, 0.0), 1.0), max(bh, 0.0), max(bw, 0.0))
        elements.append(
            UIBox(
                bounds=coords.yxhw_norm_to_ltrb(box, (w, h)),
                text=texts[i] if texts else "",
                kind=types[i] if types else "",
            )
        )
    action = to_unified(raw)
    extras = {k: raw[k] for k in ("current_activity",) if k in raw}
    return DatasetStep(
        index=index,
        width=w,
        height=h,
        action=action,
        raw=raw,
        elements=tuple(elements),
        image_path=None,
        load_image=load,
        extras=extras,
    )


def iter_episodes(
    paths: str | Path | list[str | Path],
    *,
    split: dict[str, Any] | str | Path | None = None,
    split_label: str | None = None,
    skip_bad: bool = False,
    stats: LoadStats | None = None,
    keep_images: bool = True,
) -> Iterator[DatasetEpisode]:
    """Stream AitW episodes from TFRecord shards (files, or directories searched for `*.tfrecord*` / `*.gz`).

    - `split` (a dict or a JSON file `{label: [episode_id, ...]}`) with `split_label`: only those episodes; with
      no label every episode is yielded and `meta["split"]` names its label (None when in no list).
    - `skip_bad`: skip corrupt records / invalid steps (their episode is dropped) and count them in `stats`.
    """
    stats = stats if stats is not None else LoadStats()
    label_of = _load_split(split)
    if split_label is not None and label_of is None:
        raise DatasetError("split_label given without a split")
    files = as_paths(paths, "*")
    files = [f for f in files if not f.name.endswith((".json", ".md", ".txt"))]
    for path in files:
        stats.files += 1
        yield from _iter_file(path, label_of, split_label, skip_bad, stats, keep_images)


def _iter_file(
    path: Path,
    label_of: dict[str, str] | None,
    split_label: str | None,
    skip_bad: bool,
    stats: LoadStats,
    keep_images: bool,
) -> Iterator[DatasetEpisode]:
    subset = _subset(path)
    cur_id: str | None = None
    steps: list[DatasetStep] = []
    bad = False

    def flush() -> DatasetEpisode | None:
        nonlocal steps, bad
        out = None
        if cur_id is not None and steps and not bad:
            first = steps[0].raw
            meta = {
                "subset": subset,
                "device_type": first.get("device_type"),
                "android_api_level": first.get("android_api_level"),
                "episode_length": first.get("episode_length"),
                "file": str(path),
            }
            meta["complete"] = first.get("episode_length") in (None, len(steps))
            if label_of is not None:
                meta["split"] = label_of.get(cur_id)
            out = DatasetEpisode(
                dataset=DATASET,
                episode_id=cur_id,
                instruction=first["goal_info"],
                lang="en",
                steps=tuple(steps),
                meta=meta,
            )
            stats.records += len(steps)
        elif cur_id is not None and bad:
            stats.bad_episodes += 1
        steps, bad = [], False
        return out

    def wanted(eid: str) -> bool:
        return split_label is None or (label_of is not None and label_of.get(eid) == split_label)

    records = iter_records(path)
    while True:
        try:
            rec = next(records)
        except StopIteration:
            break
        except RecordError as exc:
            err = error(path, exc.detail, record=exc.index)
            if not skip_bad:
                raise err from exc
            stats.bad_records += 1
            stats.bad_files += 1
            stats.note(err)
            bad = True  # the open episode lost its remaining steps
            break
        eid: str | None = None
        sid: int | None = None
        try:
            if rec.data is None:
                raise FieldError("<record>", rec.error.detail if rec.error else "corrupt")
            try:
                feats = parse_example(rec.data)
            except ExampleError as exc:
                raise FieldError("<record>", str(exc)) from None
            if "episode_id" in feats and feats["episode_id"][1]:
                eid = _text(feats["episode_id"][1][0])
            if "step_id" in feats and feats["step_id"][1]:
                sid = int(feats["step_id"][1][0])
            if eid is None:
                raise FieldError("episode_id", "missing feature")
            if eid != cur_id:
                done = flush()
                if done is not None:
                    stats.episodes += 1
                    yield done
                cur_id = eid
            if not wanted(eid):
                continue
            if bad:
                continue
            step = decode_step(feats, len(steps), keep_images=keep_images)
            if step.raw["step_id"] != len(steps):
                raise FieldError(
                    "step_id", f"expected step {len(steps)} of the contiguous episode, got {step.raw['step_id']}"
                )
            steps.append(step)
        except (FieldError, ValueError) as exc:
            fname = exc.field if isinstance(exc, FieldError) else None
            msg = exc.detail if isinstance(exc, FieldError) else str(exc)
            if fname == "<record>":
                fname = None
            err = error(path, msg, record=rec.index, episode=eid, step=sid, field_name=fname)
            if not skip_bad:
                raise err from exc
            stats.bad_records += 1
            stats.note(err)
            if eid is not None and eid != cur_id:
                done = flush()
                if done is not None:
                    stats.episodes += 1
                    yield done
                cur_id = eid
            bad = True
    done = flush()
    if done is not None:
        stats.episodes += 1
        yield done


# --- the adapter ------------------------------------------------------------------------------------------
def breakdown(episode: DatasetEpisode) -> dict[str, Any]:
    """AitW figures are reported per subset (and per split label when episodes carry several)."""
    return {"subset": episode.meta.get("subset") or "unknown", "split": episode.meta.get("split")}


def split_options(split_file: str, label: str | None) -> dict[str, Any]:
    return {"split": split_file, "split_label": label}


ADAPTER = DatasetAdapter(
    name=DATASET,
    title="Android in the Wild",
    aliases=("android-in-the-wild",),
    load=iter_episodes,
    metric="aitw",
    decode=to_unified,
    encode=from_unified,
    action_fields=ACTION_FIELDS,
    size_fields=("image/width", "image/height"),
    breakdown=breakdown,
    split_options=split_options,
    need_images_option="keep_images",
)
