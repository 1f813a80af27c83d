"""An episode as an animation (`droidharness export RUN --episode ID --format gif|mp4`).

One frame per step, then one for the final screen (a finished episode's screen after its last step): the screen
the agent acted on, scaled to `width`, with the action drawn on it by the report's own drawing
(`harness.report.draw.draw_action`: tap dot, long-press ring, swipe / scroll arrow); above it the task and its
instruction; below it the step number, the action, what was typed, the key pressed, the answer, and the
milestones the step hit with the progress after it. The final frame says how the episode ended (status, success,
progress: the episode's result as scoring reads it, `harness.report.summary.outcome`).

Encoding is imageio's: GIF through Pillow (every frame `frame_ms` long, looping), MP4 (H.264, yuv420p) through
PyAV; both come with the `video` extra.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from PIL import Image, ImageDraw

from emulator.virtual.ui.fonts import font_for, text_width
from harness.report.draw import draw_action
from harness.report.summary import episode_instruction, outcome
from harness.trajectory.reader import EpisodeRecord, Run
from harness.trajectory.records import StepRecord

from .episodes import ExportError

FORMATS = ("gif", "mp4")
DEFAULT_WIDTH = 480
DEFAULT_FRAME_MS = 1000
INK, MUTED, GREEN, RED = (29, 41, 57), (102, 112, 133), (26, 127, 55), (198, 40, 40)
PAPER, BAR = (255, 255, 255), (29, 41, 57)
KEYS = {"BACK", "HOME", "ENTER", "RECENT", "WAIT"}


@dataclass(frozen=True)
class Line:
    text: str
    color: tuple[int, int, int] = INK
    bold: bool = False


@dataclass(frozen=True)
class Animation:
    path: Path
    frames: int
    size: tuple[int, int]  # (width, height) of every frame


def _wrap(text: str, size: int, width: float, max_lines: int, bold: bool = False) -> list[str]:
    """`text` broken into at most `max_lines` lines of at most `width` pixels (the last one ellipsized)."""
    lines: list[str] = []
    rest = " ".join(text.split())
    while rest and len(lines) < max_lines:
        if text_width(rest, size, bold) <= width:
            lines.append(rest)
            rest = ""
            break
        cut = len(rest)
        while cut > 1 and text_width(rest[:cut], size, bold) > width:
            cut -= 1
        space = rest.rfind(" ", 0, cut)
        cut = space if space > cut // 2 else cut
        lines.append(rest[:cut])
        rest = rest[cut:].lstrip()
    if rest and lines:
        last = lines[-1]
        while last and text_width(last + "…", size, bold) > width:
            last = last[:-1]
        lines[-1] = last + "…"
    return lines


def _band(lines: Sequence[Line], width: int, size: int, background: tuple[int, int, int]) -> Image.Image:
    pad, gap = max(4, size // 2), max(2, size // 4)
    height = pad * 2 + len(lines) * (size + gap)
    img = Image.new("RGB", (width, height), background)
    draw = ImageDraw.Draw(img)
    y = pad
    for line in lines:
        draw.text((pad, y), line.text, fill=line.color, font=font_for(line.text, size, line.bold))
        y += size + gap
    return img


def _action_lines(step: StepRecord, total: int, names: dict[str, str], width: float, size: int) -> list[Line]:
    a = step.agent
    action = a.action or {}
    kind = str(action.get("type") or "")
    head = f"step {step.step}/{total}  " + (a.action_text or kind or "no action")
    out = [Line(_wrap(head, size, width, 1, True)[0], INK, True)]
    detail = ""
    if a.invalid or not action:
        detail = f"invalid step: {a.error or 'no valid action'}"
    elif kind == "TYPE":
        detail = f"typed: {action.get('text', '')}"
    elif kind in KEYS:
        detail = f"key: {kind}"
    elif kind == "OPEN_APP":
        detail = f"open app: {action.get('name') or action.get('package') or ''}"
    elif kind in ("COMPLETE", "ANSWER") and (action.get("answer") or action.get("text")):
        detail = f"answer: {action.get('answer') or action.get('text')}"
    elif kind == "IMPOSSIBLE":
        detail = f"impossible: {action.get('reason') or ''}"
    out.append(Line(_wrap(detail, size, width, 1)[0] if detail else "", RED if a.invalid else INK))
    ms = step.milestones
    hits = [names.get(h, h) for h in (ms.new_hits if ms else [])]
    progress = f"progress {100 * ms.progress:.0f}%" if ms else ""
    hit_text = ("milestone hit: " + ", ".join(hits) + "  ·  " if hits else "") + progress
    line = _wrap(hit_text, size, width, 1, bool(hits))[0] if hit_text else ""
    out.append(Line(line, GREEN if hits else MUTED, bool(hits)))
    return out


def _screen(ep: EpisodeRecord, frame: int, width: int, height: int) -> Image.Image:
    """Frame `frame`'s screenshot scaled to `width` x `height` (a grey card when it is missing)."""
    path = ep.frame_path(frame, "screenshot")
    if path is None:
        img = Image.new("RGB", (width, height), (228, 231, 236))
        ImageDraw.Draw(img).text((12, height // 2), "no screenshot", fill=MUTED, font=font_for("no", 16))
        return img
    with Image.open(path) as im:
        im.draft("RGB", (width, height))  # JPEG screens decode at a reduced scale
        return im.convert("RGB").resize((width, height), Image.Resampling.LANCZOS)


def _screen_size(ep: EpisodeRecord, width: int) -> tuple[int, int]:
    for s in ep.steps:
        if s.observation.size:
            w, h = s.observation.size
            return width, max(2, round(h * width / w))
    final = ep.meta.final_observation if ep.meta else None
    if final is not None and final.size:
        return width, max(2, round(final.size[1] * width / final.size[0]))
    return width, width * 2


def episode_frames(run: Run, ep: EpisodeRecord, width: int = DEFAULT_WIDTH) -> list[Image.Image]:
    """The frames of the episode's animation (module docstring), each the same even size."""
    if width < 160 or width > 2000:
        raise ExportError(f"--width {width}: frames must be 160 to 2000 pixels wide")
    width -= width % 2
    size = max(12, width // 30)
    text_w = width - 2 * max(4, size // 2)
    sw, sh = _screen_size(ep, width)
    names = {str(m.get("id")): str(m.get("sub_target") or m.get("id")) for m in (ep.meta.milestones if ep.meta else [])}
    title = [Line(f"{ep.task_id} [{ep.lang}]", (208, 213, 221), True)]
    title += [Line(t, PAPER) for t in _wrap(episode_instruction(run, ep) or "", size, text_w, 2)]
    header = _band(title, width, size, BAR)
    frames: list[tuple[Image.Image, list[Line]]] = []
    for s in ep.steps:
        screen = draw_action(_screen(ep, s.step, sw, sh), s, ep)
        frames.append((screen, _action_lines(s, len(ep.steps), names, text_w, size)))
    if ep.final_step is not None:
        r = outcome(run, ep)
        verdict = f"final screen  ·  {r.status}"
        lines = [Line(verdict, GREEN if r.success else RED, True)]
        lines.append(Line(_wrap(f"answer: {r.answer}", size, text_w, 1)[0] if r.answer else "", INK))
        lines.append(Line(f"progress {100 * r.progress:.0f}%", GREEN if r.success else MUTED))
        frames.append((_screen(ep, ep.final_step, sw, sh), lines))
    if not frames:
        raise ExportError(f"{ep.path}: the episode recorded no step and no final screen: nothing to show")
    out = []
    for screen, lines in frames:
        caption = _band(lines, width, size, PAPER)
        h = header.height + screen.height + caption.height
        frame = Image.new("RGB", (width, h + h % 2), PAPER)
        frame.paste(header, (0, 0))
        frame.paste(screen, (0, header.height))
        frame.paste(caption, (0, header.height + screen.height))
        out.append(frame)
    return out


def write_animation(frames: Sequence[Image.Image], out: Path, fmt: str, frame_ms: int = DEFAULT_FRAME_MS) -> None:
    """Encode `frames` as `fmt` (gif | mp4) at `out`, each shown `frame_ms` milliseconds (imageio; PyAV for MP4)."""
    if fmt not in FORMATS:
        raise ExportError(f"--format {fmt!r} is not an animation format ({', '.join(FORMATS)})")
    if not 20 <= frame_ms <= 60_000:
        raise ExportError(f"--frame-ms {frame_ms}: a frame lasts 20 to 60000 milliseconds")
    try:
        import imageio.v3 as iio  # the `video` extra: optional, so imported where it is used
        import numpy as np
    except ImportError as exc:
        raise ExportError(f"--format {fmt} needs imageio ({exc}): pip install 'droidharness[video]'") from None
    arrays = [np.asarray(f) for f in frames]
    kwargs: dict[str, Any]
    if fmt == "gif":
        kwargs = {"extension": ".gif", "duration": frame_ms, "loop": 0}
    else:
        kwargs = {
            "extension": ".mp4",
            "plugin": "pyav",
            "codec": "libx264",
            "fps": 1000 / frame_ms,
            "out_pixel_format": "yuv420p",
        }
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = out.with_name(f".{out.name}.tmp{out.suffix}")
    try:
        iio.imwrite(tmp, arrays, **kwargs)
        tmp.replace(out)
    except ImportError as exc:
        raise ExportError(f"--format {fmt} needs PyAV ({exc}): pip install 'droidharness[video]'") from None
    except OSError as exc:
        raise ExportError(f"{out}: cannot write: {exc.strerror or exc}") from None
    finally:
        tmp.unlink(missing_ok=True)


def export_animation(
    run: Run, ep: EpisodeRecord, out: Path, fmt: str, frame_ms: int = DEFAULT_FRAME_MS, width: int = DEFAULT_WIDTH
) -> Animation:
    """Write episode `ep` of `run` as a `fmt` animation at `out`."""
    if fmt not in FORMATS:
        raise ExportError(f"--format {fmt!r} is not an animation format ({', '.join(FORMATS)})")
    frames = episode_frames(run, ep, width)
    write_animation(frames, out, fmt, frame_ms)
    return Animation(out, len(frames), frames[0].size)


__all__ = ["FORMATS", "Animation", "episode_frames", "write_animation", "export_animation"]
