"""VLC's video player (VideoPlayerActivity): the video's picture over black, and the controls a tap on it shows
(they also show for four seconds when playback starts): the title (`player_overlay_title`) with the up arrow
(`player_overlay_navmenu`), the position and length (`player_overlay_time`, `player_overlay_length`), the seek bar
(`player_overlay_seekbar`, a tap or drag seeks) and Play / Pause (`player_overlay_play`).

Playback runs on the device's clock: the position is where it was last set plus the time played since, and it
stops at the end, paused on the last picture (the real player closes itself there). Starting a video counts a play
in the library (play_count, last_played_date: the grid's "seen" mark).

The picture is the frame at the position, decoded from the file with PyAV when it is installed, else with OpenCV
(what AndroidWorld's own environment writes its videos with); both are imported only when a video plays, and the
few frames drawn last are kept. Without either, a placeholder (black, the title) stands for the picture.
"""

from __future__ import annotations

import contextlib
import io
import os
import tempfile
import threading
from collections import OrderedDict
from typing import Any

from PIL import Image

from ..ui import widgets as w
from ..ui.layout import Ctx, V
from ..ui.view import View
from . import vlc_data as data

PLAYER = "org.videolan.vlc.gui.video.VideoPlayerActivity"
HUD_SECONDS = 4.0
BLACK = (0, 0, 0)
WHITE = (255, 255, 255)
_FRAMES: OrderedDict[tuple[str, int, int, int], Image.Image | None] = OrderedDict()
_KEEP = 3
_lock = threading.Lock()
_tmp: dict[str, str] = {}  # the one file OpenCV reads from: cache key -> host path


def play(ctx: Ctx, media_id: int) -> None:
    """Open the player on a media of the library, playing from the start."""
    m = data.media_by_id(ctx.model, media_id)
    if m is None:
        return
    data.mark_played(ctx.model, media_id, True)
    now = ctx.model.uptime()
    ctx.push(
        PLAYER,
        {
            "media": media_id,
            "path": m["path"],
            "title": m["title"],
            "duration": max(0, int(m["duration"] or 0)),
            "offset": 0.0,
            "started": now,
            "playing": True,
            "hud_until": now + HUD_SECONDS,
        },
    )


def position(ctx: Ctx) -> float:
    """Seconds into the video now (at most its length: the end is where playback stops)."""
    ex = ctx.extras
    length = int(ex.get("duration", 0)) / 1000
    pos = float(ex.get("offset", 0.0))
    if ex.get("playing"):
        pos += max(0.0, ctx.model.uptime() - float(ex.get("started", 0.0)))
    return min(pos, length) if length > 0 else pos


def _set(ctx: Ctx, pos: float, playing: bool) -> None:
    ex = ctx.extras
    length = int(ex.get("duration", 0)) / 1000
    ex["offset"] = max(0.0, min(pos, length)) if length > 0 else max(0.0, pos)
    ex["started"] = ctx.model.uptime()
    ex["playing"] = playing and (length <= 0 or ex["offset"] < length)


def toggle_play(ctx: Ctx) -> None:
    ex = ctx.extras
    pos = position(ctx)
    length = int(ex.get("duration", 0)) / 1000
    playing = bool(ex.get("playing")) and (length <= 0 or pos < length)
    _set(ctx, 0.0 if (not playing and length > 0 and pos >= length) else pos, not playing)
    ex["hud_until"] = ctx.model.uptime() + HUD_SECONDS


def toggle_hud(ctx: Ctx) -> None:
    now = ctx.model.uptime()
    ex = ctx.extras
    ex["hud_until"] = 0.0 if float(ex.get("hud_until", 0.0)) > now else now + HUD_SECONDS


# --- frames ------------------------------------------------------------------------------------------------------
def _decode_av(payload: bytes, t: float) -> Image.Image | None:
    import av  # noqa: PLC0415 - only when a video plays

    with av.open(io.BytesIO(payload)) as container:
        stream = container.streams.video[0]
        if stream.time_base is not None:
            container.seek(int(t / stream.time_base), stream=stream, backward=True, any_frame=False)
        shown = None  # the last frame whose time has come
        for frame in container.decode(stream):
            if shown is not None and frame.time is not None and frame.time > t + 1e-3:
                break
            shown = frame
        return shown.to_image() if shown is not None else None


def _decode_cv2(key: str, payload: bytes, t: float) -> Image.Image | None:
    import cv2  # noqa: PLC0415 - only when a video plays (AndroidWorld's environment has it)

    path = _tmp.get(key)
    if path is None or not os.path.exists(path):
        for old in _tmp.values():
            with contextlib.suppress(OSError):
                os.unlink(old)
        _tmp.clear()
        fd, path = tempfile.mkstemp(suffix=".mp4", prefix="vlc-")
        with os.fdopen(fd, "wb") as f:
            f.write(payload)
        _tmp[key] = path
    cap = cv2.VideoCapture(path)
    try:
        cap.set(cv2.CAP_PROP_POS_MSEC, t * 1000)
        ok, bgr = cap.read()
        if not ok:
            return None
        return Image.fromarray(cv2.cvtColor(bgr, cv2.COLOR_BGR2RGB))
    finally:
        cap.release()


def frame_at(ctx: Ctx, path: str, t: float) -> Image.Image | None:
    """The picture of the file at `t` seconds (to a tenth of a second), or None when no decoder reads it."""
    fs = ctx.model.fs
    node = fs.stat(path)
    if node is None:
        return None
    key = (path, int(node.size), int(node.mtime), int(t * 10))
    with _lock:
        if key in _FRAMES:
            _FRAMES.move_to_end(key)
            return _FRAMES[key]
        payload = fs.read(path)
        image: Image.Image | None = None
        for decode in (lambda: _decode_av(payload, t), lambda: _decode_cv2(f"{key[:3]}", payload, t)):
            try:
                image = decode()
            except ImportError:
                continue
            except Exception:  # noqa: BLE001 - a file no decoder reads shows no picture
                image = None
            break
        _FRAMES[key] = image
        while len(_FRAMES) > _KEEP:
            _FRAMES.popitem(last=False)
        return image


# --- the screen --------------------------------------------------------------------------------------------------
def screen(ctx: Ctx) -> list[View]:
    l, t, r, b = ctx.area
    ex = ctx.extras
    now = ctx.model.uptime()
    pos = position(ctx)
    length_ms = int(ex.get("duration", 0))
    if ex.get("playing") and length_ms > 0 and pos * 1000 >= length_ms:
        _set(ctx, pos, False)  # the end: paused on the last picture
    root = V(
        ctx,
        w.FRAME,
        (l, t, r, b),
        "player_root",
        desc=ctx.tr(
            "Video player. Tap to show controls. Tap the back button to hide them",
            "视频播放器。点按可显示控件。点按返回按钮可隐藏控件",
        ),
        clickable=True,
        focusable=True,
        on_click=lambda: toggle_hud(ctx),
        style={"bg": BLACK},
    )
    picture = frame_at(ctx, str(ex.get("path", "")), min(pos, max(0.0, length_ms / 1000 - 0.05)))
    width, height = r - l, b - t
    if picture is not None and picture.width and picture.height:
        scale = min(width / picture.width, height / picture.height)
        pw, ph = int(picture.width * scale), int(picture.height * scale)
    else:
        pw, ph = min(width, height * 16 // 9), min(height, width * 9 // 16)
    x0, y0 = l + (width - pw) // 2, t + (height - ph) // 2
    surface = V(ctx, w.FRAME, (x0, y0, x0 + pw, y0 + ph), "video_layout", style={"bg": BLACK})
    if picture is not None:
        surface.style["image"] = picture
    else:  # no decoder for the file: its title over black
        title = str(ex.get("title", ""))
        surface.children.append(w.text(ctx, (x0, y0, x0 + pw, y0 + ph), title, "", 16, WHITE, align="c"))
    root.children.append(surface)
    if float(ex.get("hud_until", 0.0)) > now:
        root.children += _hud(ctx, pos, length_ms)
    return [root]


def _hud(ctx: Ctx, pos: float, length_ms: int) -> list[View]:
    l, t, r, b = ctx.area
    shade = (0, 0, 0)
    top_h = ctx.dp(64)
    top = V(ctx, w.VIEWGROUP, (l, t, r, t + top_h), "hud_right_overlay", style={"bg": shade})
    isz = ctx.dp(48)
    y = t + (top_h - isz) // 2
    top.children.append(
        w.icon_button(
            ctx,
            (l + ctx.dp(4), y, l + ctx.dp(4) + isz, y + isz),
            "back",
            "Navigate up",
            ctx.finish,
            "player_overlay_navmenu",
            color=WHITE,
        )
    )
    top.children.append(
        w.text(
            ctx,
            (l + ctx.dp(64), t, r - ctx.dp(16), t + top_h),
            str(ctx.extras.get("title", "")),
            "player_overlay_title",
            18,
            WHITE,
            style={"ellipsize": True},
        )
    )
    bottom_h = ctx.dp(136)
    bot = V(ctx, w.VIEWGROUP, (l, b - bottom_h, r, b), "progress_overlay", style={"bg": shade})
    row_y = b - bottom_h + ctx.dp(8)
    th = ctx.line_h(14)
    tw = ctx.dp(64)
    bot.children.append(
        w.text(
            ctx,
            (l + ctx.dp(16), row_y, l + ctx.dp(16) + tw, row_y + th + ctx.dp(16)),
            data.duration_text(int(pos * 1000)),
            "player_overlay_time",
            14,
            WHITE,
        )
    )
    bot.children.append(
        w.text(
            ctx,
            (r - ctx.dp(16) - tw, row_y, r - ctx.dp(16), row_y + th + ctx.dp(16)),
            data.duration_text(length_ms),
            "player_overlay_length",
            14,
            WHITE,
            align="r",
        )
    )
    maximum = max(1, length_ms)

    def seek(ms: int) -> None:
        _set(ctx, ms / 1000, bool(ctx.extras.get("playing")) or pos * 1000 < length_ms)
        ctx.extras["hud_until"] = ctx.model.uptime() + HUD_SECONDS

    sb = (l + ctx.dp(16) + tw, row_y, r - ctx.dp(16) - tw, row_y + th + ctx.dp(16))
    bot.children.append(w.seekbar(ctx, sb, int(pos * 1000), maximum, seek, "player_overlay_seekbar"))
    psz = ctx.dp(56)
    cx = (l + r) // 2
    py = b - psz - ctx.dp(16)
    playing = bool(ctx.extras.get("playing"))
    bot.children.append(
        w.icon(
            ctx,
            (cx - psz // 2, py, cx + psz // 2, py + psz),
            "pause" if playing else "play",
            WHITE,
            "player_overlay_play",
            "Pause" if playing else "Play",
            on_click=lambda: toggle_play(ctx),
        )
    )
    return [top, bot]


def window_bg() -> tuple[int, int, int]:
    return BLACK


def on_back(ctx: Ctx) -> bool:
    """BACK leaves the player, the position kept in the library (Media.last_time)."""
    media = ctx.extras.get("media")
    if isinstance(media, int):
        data.DB.execute(
            ctx.model.fs,
            "UPDATE Media SET last_time = ?, last_position = ? WHERE id_media = ?",
            _progress(ctx, media),
        )
    return False


def _progress(ctx: Ctx, media: int) -> tuple[Any, ...]:
    length = int(ctx.extras.get("duration", 0))
    pos_ms = int(position(ctx) * 1000)
    return (pos_ms, (pos_ms / length) if length else -1, media)
