"""Screenshots for the emulator's gRPC door (`getScreenshot`, `streamScreenshot`): the device's own frame (the
pixels `screencap` gives), in the format asked for - PNG, RGBA8888 or RGB888 - and scaled when the request gives a
width and/or a height (the aspect ratio kept, never larger than asked; 0 means the device's). The rows go top
down, as the emulator's bytes do in practice (what android_env reshapes without flipping). `Image.format` tells
the width, height and the display's rotation; `seq` counts the frames of a stream from 0.

A stream sends the screen at once, then a new frame each time the screen changes: it watches the frame's name
(`ui.frames.draw_key`, what the frame cache keys on), so an unchanged screen is neither drawn nor sent again.
"""

from __future__ import annotations

import io
import threading
from collections.abc import Callable, Hashable, Iterator
from typing import TYPE_CHECKING, Any

from PIL import Image

from emulator.grpcproto.messages import message

if TYPE_CHECKING:  # pragma: no cover
    from ..model import VirtualDeviceModel

PNG, RGBA8888, RGB888 = 0, 1, 2
STREAM_POLL_S = 0.05  # how often a stream looks at the screen's name


def fit(size: tuple[int, int], width: int, height: int) -> tuple[int, int]:
    """`size` scaled to fit `width` x `height` with its aspect ratio (a 0 leaves that side free; both 0: as is)."""
    w, h = size
    if not width and not height:
        return w, h
    scale = min(width / w if width else float("inf"), height / h if height else float("inf"))
    return max(1, round(w * scale)), max(1, round(h * scale))


def encode(img: Image.Image, fmt: int) -> bytes:
    if fmt == RGBA8888:
        return img.convert("RGBA").tobytes()
    if fmt == RGB888:
        return img.convert("RGB").tobytes()
    buf = io.BytesIO()
    img.convert("RGBA").save(buf, format="PNG", compress_level=1)  # as screencap -p writes it
    return buf.getvalue()


def image_message(model: VirtualDeviceModel, request: Any, seq: int = 0, frame: Any = None) -> Any:
    """The `Image` for `request` (an `ImageFormat`) of the device's current frame (or of `frame`)."""
    if frame is None:
        with model.lock:
            frame = model.ui.frame()
    img = model.ui.render(frame)
    size = fit(img.size, request.width, request.height)
    if size != img.size:
        img = img.resize(size, Image.Resampling.BILINEAR)
    reply = message("Image")(image=encode(img, request.format), seq=seq, timestampUs=int(model.clock.time() * 1e6))
    reply.format.format = request.format
    reply.format.width, reply.format.height = size
    reply.format.display = request.display
    reply.format.rotation.rotation = model.rotation
    reply.format.rotation.zAxis = {0: 0.0, 1: 90.0, 2: -180.0, 3: -90.0}[model.rotation]
    reply.width, reply.height = size  # deprecated, still filled by the emulator
    return reply


def stream(model: VirtualDeviceModel, request: Any, active: Callable[[], bool], stop: threading.Event) -> Iterator[Any]:
    """Frames of `request`'s format: the current one, then one per change, while `active()` and not `stop`."""
    last: Hashable = object()
    seq = 0
    while active() and not stop.is_set():
        with model.lock:
            frame = model.ui.frame()
        if frame.key != last:
            last = frame.key
            yield image_message(model, request, seq, frame)
            seq += 1
        stop.wait(STREAM_POLL_S)
