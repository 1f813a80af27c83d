"""AITZ (Android-in-the-Zoo) / AgentCPM-GUI step-list JSON: one JSON list of step objects per episode.

Per step: `episode_id, episode_length, step_id, instruction, image_path`, the action fields of the AgentCPM step
family (`result_action_type`, `result_touch_yx` / `result_lift_yx` `"[y, x]"` strings normalized, `"[-1.0, -1.0]"`
= none, `result_action_text`; codec in `tasks.datasets.androidlens`), and the UI annotations as JSON *strings*:
`ui_positions` `[[y, x, h, w], ...]` in **pixels** of the stored screenshot, `ui_text`, `ui_types`. The chain of
thought fields (`coat_*`) are ignored but kept in `raw`. The screenshot sits next to the JSON (by the basename
of `image_path`), or under `images_root / image_path`; its size comes from the PNG header.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from functools import partial
from pathlib import Path
from typing import Any

from harness import coords
from harness.actions import Action

from .adapter import DatasetAdapter
from .androidlens import order_steps, read_step_list, resolve_image, step_from_unified, step_to_unified
from .base import DatasetEpisode, DatasetStep, LoadStats, UIBox, as_paths, image_size
from .errors import FieldError, error

DATASET = "aitz"
ACTION_FIELDS = ("result_action_type", "result_touch_yx", "result_lift_yx", "result_action_text")
SUBSETS = {
    "google_apps": "GoogleApps",
    "install": "Install",
    "web_shopping": "WebShopping",
    "general": "General",
    "single": "Single",
}


def to_unified(raw: dict[str, Any]) -> Action | None:
    return step_to_unified(raw, "aitz")


def from_unified(action: Action, template_raw: dict[str, Any] | None = None) -> dict[str, Any]:
    return step_from_unified(action, template_raw, "aitz")


def _json_list(raw: dict[str, Any], name: str) -> list[Any]:
    v = raw.get(name)
    if v is None or v == "":
        return []
    if isinstance(v, str):
        try:
            v = json.loads(v)
        except json.JSONDecodeError as exc:
            raise FieldError(name, f"not a JSON list string: {exc.msg} at column {exc.colno}") from None
    if not isinstance(v, list):
        raise FieldError(name, f"expected a list, got {type(v).__name__}")
    return v


def elements_of(raw: dict[str, Any]) -> tuple[UIBox, ...]:
    """`ui_positions` ([y, x, h, w] pixels) + `ui_text` + `ui_types` -> UIBoxes (l, t, r, b pixels)."""
    pos = _json_list(raw, "ui_positions")
    texts = _json_list(raw, "ui_text")
    types = _json_list(raw, "ui_types")
    if len(texts) not in (0, len(pos)) or len(types) not in (0, len(pos)):
        raise FieldError("ui_text", f"{len(texts)} texts and {len(types)} ui types for {len(pos)} ui_positions")
    out = []
    for i, box in enumerate(pos):
        try:
            if not isinstance(box, list) or not all(isinstance(v, int) and not isinstance(v, bool) for v in box):
                raise ValueError(f"expected 4 integer pixels [y, x, h, w], got {box!r}")
            ltrb = coords.yxhw_px_to_ltrb(box)
        except ValueError as exc:
            raise FieldError("ui_positions", f"box {i}: {exc}") from None
        out.append(UIBox(bounds=ltrb, text=str(texts[i]) if texts else "", kind=str(types[i]) if types else ""))
    return tuple(out)


def _subset(path: Path, raw: dict[str, Any]) -> str | None:
    for part in [*Path(str(raw.get("image_path", ""))).parts, *reversed(path.parts)]:
        key = part.lower()
        for k, v in SUBSETS.items():
            if key == k or key.startswith(k + "-"):
                return v
    return None


def load_episode(path: Path, images_root: Path | None = None, require_images: bool = True) -> DatasetEpisode:
    data = read_step_list(path)
    eid = str(data[0].get("episode_id") or path.stem)
    steps_raw = order_steps(path, data, eid)
    roots = [r for r in (images_root, path.parent) if r is not None]
    steps = []
    for k, s in enumerate(steps_raw):
        try:
            action = to_unified(s)
            elements = elements_of(s)
        except (FieldError, ValueError) as exc:
            fname = exc.field if isinstance(exc, FieldError) else None
            msg = exc.detail if isinstance(exc, FieldError) else str(exc)
            raise error(path, msg, step=k, episode=eid, field_name=fname) from exc
        img = resolve_image(path, s.get("image_path"), f"{path.stem}_{k}.png", roots)
        if img.is_file():
            try:
                w, h = image_size(img)
            except OSError as exc:
                raise error(
                    path, f"screenshot {img} cannot be read: {exc}", step=k, episode=eid, field_name="image_path"
                ) from exc
            image_path: str | None = str(img)
        elif require_images:
            raise error(path, f"screenshot not found (looked for {img})", step=k, episode=eid, field_name="image_path")
        else:
            w = h = 0
            image_path = None
        extras = {k2: v for k2, v in s.items() if k2.startswith("coat_")}
        steps.append(
            DatasetStep(
                index=k,
                width=w,
                height=h,
                action=action,
                raw=s,
                elements=elements,
                image_path=image_path,
                extras=extras,
            )
        )
    instruction = data[0].get("instruction")
    if not isinstance(instruction, str) or not instruction:
        raise error(path, "missing or empty", episode=eid, step=0, field_name="instruction")
    meta = {"subset": _subset(path, data[0]), "episode_length": data[0].get("episode_length"), "file": str(path)}
    return DatasetEpisode(
        dataset=DATASET, episode_id=eid, instruction=instruction, lang="en", steps=tuple(steps), meta=meta
    )


def iter_episodes(
    paths: str | Path | list[str | Path],
    *,
    images_root: str | Path | None = None,
    require_images: bool = True,
    skip_bad: bool = False,
    stats: LoadStats | None = None,
) -> Iterator[DatasetEpisode]:
    """Stream AITZ episodes from JSON files or directories (searched recursively for `*.json`).

    `require_images=False` accepts missing screenshots (then width = height = 0 and `image_path` None).
    """
    stats = stats if stats is not None else LoadStats()
    root = Path(images_root) if images_root is not None else None
    for path in as_paths(paths, "*.json"):
        ep = stats.load_episode(partial(load_episode, path, root, require_images), skip_bad)
        if ep is not None:
            yield ep


# --- the adapter ------------------------------------------------------------------------------------------
def breakdown(episode: DatasetEpisode) -> dict[str, Any]:
    """AITZ figures are reported per subset (from the file name or the record)."""
    return {"subset": episode.meta.get("subset") or "unknown"}


ADAPTER = DatasetAdapter(
    name=DATASET,
    title="Android in the Zoo / AgentCPM-GUI",
    aliases=("android-in-the-zoo", "agentcpm"),
    load=iter_episodes,
    metric="agentcpm",
    metric_dialect="aitz",
    decode=to_unified,
    encode=from_unified,
    action_fields=ACTION_FIELDS,
    size_fields=("image_width", "image_height"),
    breakdown=breakdown,
    images_option="images_root",
    need_images_option="require_images",
)
