"""Drawing on screenshots: a step's action on its thumbnail (tap point, swipe arrow, key badge) for the task
report; screen-QA answers: the predicted answer elements boxed in red and numbered in rank order,
the ground truth's elements boxed in green (every annotator's). `droidharness qa` saves the full-size drawing;
the QA section of the report (harness/report/questions.py) embeds a downscaled one.
"""

from __future__ import annotations

import base64
import io
import logging
import math
import os
from collections.abc import Iterable, Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

from PIL import Image, ImageDraw, ImageFont

from harness.hierarchy import UITree
from harness.report.page import JPEG_QUALITY
from harness.trajectory.reader import EpisodeRecord
from harness.trajectory.records import StepRecord

log = logging.getLogger(__name__)

Box = tuple[int, int, int, int]

PREDICTED = (230, 30, 60)  # red, numbered
GROUND_TRUTH = (20, 160, 70)  # green


def _font(size: int) -> ImageFont.FreeTypeFont | ImageFont.ImageFont:
    try:
        return ImageFont.load_default(size=size)
    except TypeError:  # Pillow < 10.1
        return ImageFont.load_default()


def draw_boxes(
    image: Image.Image, predicted: Sequence[Box], ground_truth: Sequence[Box] = (), scale: float = 1.0
) -> Image.Image:
    """A copy of `image` (RGB) with the ground-truth boxes in green, then the predicted boxes in red, each
    numbered in rank order. Boxes are in device pixels; `scale` maps them onto `image` (a downscaled screen)."""
    img = image.convert("RGB").copy()
    draw = ImageDraw.Draw(img)
    size = max(14, img.width // 40)
    width = max(3, size // 5)
    font = _font(size)

    def box(b: Box) -> tuple[int, int, int, int]:
        l, t, r, btm = (round(v * scale) for v in b)
        return l, t, max(l, r - 1), max(t, btm - 1)

    for b in ground_truth:
        draw.rectangle(box(b), outline=GROUND_TRUTH, width=width)
    for rank, b in enumerate(predicted, 1):
        l, t, r, btm = box(b)
        draw.rectangle((l, t, r, btm), outline=PREDICTED, width=width)
        draw.rectangle((l, t, l + size + 8, t + size + 8), fill=PREDICTED)
        draw.text((l + 4, t + 2), str(rank), fill=(255, 255, 255), font=font)
    return img


def draw_answer(screenshot: Image.Image, boxes: list[Box]) -> Image.Image:
    """The screenshot with each answer box drawn and numbered in rank order."""
    return draw_boxes(screenshot, boxes)


__all__ = ["draw_boxes", "draw_answer", "PREDICTED", "GROUND_TRUTH"]


THUMB_LONG_SIDE = 360


KEY_ACTIONS = {"BACK", "HOME", "ENTER", "RECENT", "WAIT", "OPEN_APP", "COMPLETE", "IMPOSSIBLE", "ANSWER"}


# --- thumbnails with the action drawn on them -----------------------------------------------------------------
def norm_points(step: StepRecord, ep: EpisodeRecord) -> list[tuple[float, float]]:
    """Where the action acted, normalized: the point(s) from the action, else the pixels the device used,
    else the centre of the element in the recorded hierarchy."""
    a = step.agent.action or {}
    if a.get("type") not in ("CLICK", "LONG_PRESS", "SWIPE", "SCROLL", "TYPE"):
        return []
    if "start" in a and "end" in a:
        return [(a["start"]["x"], a["start"]["y"]), (a["end"]["x"], a["end"]["y"])]
    if isinstance(a.get("point"), dict):
        return [(a["point"]["x"], a["point"]["y"])]
    size = step.observation.size
    px = step.result.pixels if step.result is not None else None
    if size and isinstance(px, list) and px:
        pts = [p for p in px if isinstance(p, list) and len(p) == 2]
        if not pts and len(px) == 2 and all(isinstance(v, (int, float)) for v in px):
            pts = [px]
        if pts:
            return [((p[0] + 0.5) / size[0], (p[1] + 0.5) / size[1]) for p in pts]
    if isinstance(a.get("element"), int) and size:
        xml = ep.xml(step.step)
        if xml:
            try:
                cx, cy = UITree.from_xml(xml)[a["element"]].center
                return [(cx / size[0], cy / size[1])]
            except Exception:  # noqa: BLE001 - no overlay rather than no report
                return []
    return []


def _arrow(
    draw: Any, p: tuple[float, float], q: tuple[float, float], color: tuple[int, ...], width: int, head: int = 12
) -> None:
    draw.line([p, q], fill=color, width=width)
    ang = math.atan2(q[1] - p[1], q[0] - p[0])
    for da in (2.6, -2.6):
        draw.line([q, (q[0] + head * math.cos(ang + da), q[1] + head * math.sin(ang + da))], fill=color, width=width)


def small_screenshot(path: Path) -> Any:
    """The screenshot file at `path` (WebP, PNG or JPEG: either trajectory layout) decoded and downscaled to
    THUMB_LONG_SIDE, RGB; None when unreadable."""
    from PIL import Image

    try:
        im = Image.open(path)
        im.draft("RGB", (THUMB_LONG_SIDE, THUMB_LONG_SIDE))  # JPEG sources decode at a reduced scale
        im.load()  # reads and closes the file
        img = im if im.mode == "RGB" else im.convert("RGB")
        img.thumbnail((THUMB_LONG_SIDE, THUMB_LONG_SIDE), Image.Resampling.BILINEAR, reducing_gap=2.0)
        return img
    except Exception as exc:  # noqa: BLE001 - a broken image must not break the report
        log.warning("%s: unreadable screenshot: %s", path, exc)
        return None


def draw_action(img: Any, step: StepRecord, ep: EpisodeRecord) -> Any:
    """Draw `step`'s action on `img` (an RGB screenshot of the step, any size) in place: a tap dot, a long-press
    ring, a swipe / scroll arrow; marks are sized for THUMB_LONG_SIDE and scaled with the image. Returns `img`."""
    if not step.agent.action:
        return img
    w, h = img.size
    k = max(1.0, max(w, h) / THUMB_LONG_SIDE)

    def n(v: float) -> int:
        return max(1, round(v * k))

    pts = [(x * w, y * h) for x, y in norm_points(step, ep)]
    kind = step.agent.action.get("type")
    draw = ImageDraw.Draw(img, "RGBA")
    red, white = (230, 30, 60, 255), (255, 255, 255, 230)
    if kind in ("SWIPE", "SCROLL") and len(pts) >= 2:
        _arrow(draw, pts[0], pts[-1], white, n(6), n(12))
        _arrow(draw, pts[0], pts[-1], red, n(3), n(12))
        r = n(5)
        draw.ellipse([pts[0][0] - r, pts[0][1] - r, pts[0][0] + r, pts[0][1] + r], fill=red, outline=white)
    elif kind == "LONG_PRESS" and pts:
        x, y = pts[0]
        r, c = n(14), n(3)
        draw.ellipse([x - r, y - r, x + r, y + r], outline=white, width=n(6))
        draw.ellipse([x - r, y - r, x + r, y + r], outline=red, width=n(3))
        draw.ellipse([x - c, y - c, x + c, y + c], fill=red)
    elif pts:
        x, y = pts[0]
        r = n(8)
        draw.ellipse([x - r, y - r, x + r, y + r], fill=(230, 30, 60, 170), outline=white, width=n(2))
    return img


def thumbnail(
    ep: EpisodeRecord, step_no: int, step: StepRecord | None = None, small: dict[Path, Any] | None = None
) -> str | None:
    """`data:image/jpeg;base64,...` of the screenshot at `step_no` (long side THUMB_LONG_SIDE) with the action
    of `step` drawn on it (tap dot, long-press ring, swipe arrow); None when there is no screenshot. `small`:
    already downscaled screens by file (a screen shared by several steps is decoded once)."""
    path = ep.frame_path(step_no, "screenshot")
    if path is None:
        return None
    base = small[path] if small is not None and path in small else small_screenshot(path)
    if base is None:
        return None
    img = base.copy()
    if step is not None:
        draw_action(img, step, ep)
    buf = io.BytesIO()
    img.save(buf, "JPEG", quality=JPEG_QUALITY, optimize=True)
    return "data:image/jpeg;base64," + base64.b64encode(buf.getvalue()).decode("ascii")


Thumbs = dict[tuple[str, int], str | None]  # (episode folder, step) -> data URL


def thumbnails(episodes: Iterable[EpisodeRecord]) -> Thumbs:
    """Every step's thumbnail (and the final screen's) of `episodes`, by (str(episode.path), step), made on a
    thread pool (Pillow decodes and resizes without the GIL); each distinct screen file is decoded once, however
    many steps show it."""
    jobs: list[tuple[EpisodeRecord, int, StepRecord | None]] = []
    for ep in episodes:
        jobs += [(ep, st.step, st) for st in ep.steps]
        if ep.final_step is not None:
            jobs.append((ep, ep.final_step, None))
    if not jobs:
        return {}
    paths = list(dict.fromkeys(p for p in (ep.frame_path(n, "screenshot") for ep, n, _ in jobs) if p is not None))
    with ThreadPoolExecutor(max_workers=min(8, os.cpu_count() or 1)) as pool:
        small: dict[Path, Any] = dict(zip(paths, pool.map(small_screenshot, paths), strict=True))
        urls = list(pool.map(lambda j: thumbnail(j[0], j[1], j[2], small), jobs))
    return {(str(ep.path), n): u for (ep, n, _), u in zip(jobs, urls, strict=True)}
