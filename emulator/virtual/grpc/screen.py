"""Screenshots for the emulator's gRPC door (`getScreenshot`, `streamScreenshot`): the device's own frame (the
pixels `screencap` gives), in the format asked for - PNG, RGBA8888 or RGB888 - and scaled when the request gives a
width and/or a height (the aspect ratio kept, never larger than asked; 0 means the device's). The rows go top
down, as the emulator's bytes do in practice (what android_env reshapes without flipping). `Image.format` tells
the width, height and the display's rotation; `seq` counts the frames of a stream from 0.

A stream sends the screen at once, then a new frame each time the screen changes: it watches the frame's name
(`ui.frames.draw_key`, what the frame cache keys on), so an unchanged screen is neither drawn nor sent again.

Shared memory (`ImageFormat.transport`: channel MMAP, `handle` a `file:///path` URL or a POSIX shared memory name):
the client creates the region, at least width x height x bytes per pixel long, and the device writes the frame's
rows at its start instead of into the reply, whose `image` is then empty (the emulator's own contract: its
`SharedMemoryLibrary` maps a handle once and keeps it). A frame's raw rows are made once per frame and format
(`ui.frames.FrameCache.raw`), so an unchanged screen costs one copy into the region and nothing else: no encoding.
"""

from __future__ import annotations

import io
import mmap
import os
import threading
from collections import OrderedDict
from collections.abc import Callable, Hashable, Iterator
from typing import TYPE_CHECKING, Any

from PIL import Image

from emulator.grpcproto.messages import message

from .errors import RpcError

if TYPE_CHECKING:  # pragma: no cover
    from ..model import VirtualDeviceModel

PNG, RGBA8888, RGB888 = 0, 1, 2
MMAP_CHANNEL = 1  # ImageTransport.TransportChannel.MMAP
STREAM_POLL_S = 0.05  # how often a stream looks at the screen's name
MAPPED_REGIONS = 4  # shared memory regions kept mapped per device (a client keeps one per screen size)


def fit(size: tuple[int, int], width: int, height: int) -> tuple[int, int]:
    """`size` scaled to fit `width` x `height` with its aspect ratio (a 0 leaves that side free; both 0: as is)."""
    w, h = size
    if not width and not height:
        return w, h
    scale = min(width / w if width else float("inf"), height / h if height else float("inf"))
    return max(1, round(w * scale)), max(1, round(h * scale))


def raw_mode(fmt: int) -> str:
    """PIL's raw mode of an uncompressed `ImageFormat.format` (RGBA8888's alpha is opaque: screens are)."""
    return "RGBA" if fmt == RGBA8888 else "RGB"


def encode(img: Image.Image, fmt: int) -> bytes:
    if fmt == RGBA8888:
        return img.convert("RGBA").tobytes()
    if fmt == RGB888:
        return img.convert("RGB").tobytes()
    buf = io.BytesIO()
    img.convert("RGBA").save(buf, format="PNG", compress_level=1)  # as screencap -p writes it
    return buf.getvalue()


def region_path(handle: str) -> str:
    """The file a shared memory handle names: `file:///path` -> /path; a POSIX shared memory name (`/name` or
    `name`) -> /dev/shm/name, where Linux keeps them."""
    if handle.startswith("file://"):
        return handle[len("file://") :]
    return os.path.join("/dev/shm", handle.lstrip("/"))


class SharedRegions:
    """The client regions a device writes frames into, each mapped once (by handle) and kept, the last few."""

    def __init__(self, keep: int = MAPPED_REGIONS) -> None:
        self._maps: OrderedDict[str, mmap.mmap] = OrderedDict()
        self._keep = keep
        self._lock = threading.Lock()

    def write(self, handle: str, data: bytes | memoryview) -> None:
        """`data` at the start of the region `handle` names; INVALID_ARGUMENT when it cannot be opened or is too
        small (the client owns and sizes it)."""
        if not handle:
            raise RpcError("INVALID_ARGUMENT", "an MMAP transport needs a handle (file:///path or a shm name)")
        with self._lock:
            region = self._maps.get(handle)
            if region is None or len(region) < len(data):
                region = self._map(handle, len(data))
            self._maps.move_to_end(handle)
            region[: len(data)] = data

    def _map(self, handle: str, need: int) -> mmap.mmap:
        old = self._maps.pop(handle, None)
        if old is not None:
            old.close()
        path = region_path(handle)
        try:
            fd = os.open(path, os.O_RDWR)
        except OSError as e:
            raise RpcError("INVALID_ARGUMENT", f"shared memory {handle!r}: {e.strerror or e}") from None
        try:
            size = os.fstat(fd).st_size
            if size < need:
                raise RpcError("INVALID_ARGUMENT", f"shared memory {handle!r} has {size} bytes, the frame needs {need}")
            region = mmap.mmap(fd, size)
        finally:
            os.close(fd)
        self._maps[handle] = region
        while len(self._maps) > self._keep:
            self._maps.popitem(last=False)[1].close()
        return region

    def close(self) -> None:
        with self._lock:
            for region in self._maps.values():
                region.close()
            self._maps.clear()


def image_message(
    model: VirtualDeviceModel, request: Any, seq: int = 0, frame: Any = None, regions: SharedRegions | None = None
) -> Any:
    """The `Image` for `request` (an `ImageFormat`) of the device's current frame (or of `frame`); with an MMAP
    transport the pixels go into the client's region (`regions`) and the reply's `image` stays empty."""
    if frame is None:
        with model.lock:
            frame = model.ui.frame()
    shared = request.transport.channel == MMAP_CHANNEL and request.format != PNG
    if shared and regions is None:
        raise RpcError("UNIMPLEMENTED", "this stream does not write to shared memory")
    img = model.ui.render(frame)
    size = fit(img.size, request.width, request.height)
    if shared and regions is not None:
        regions.write(request.transport.handle, model.ui.render_raw(frame, size, raw_mode(request.format)))
        data = b""
    else:
        if size != img.size:
            img = img.resize(size, Image.Resampling.BILINEAR)
        data = encode(img, request.format)
    reply = message("Image")(image=data, seq=seq, timestampUs=int(model.clock.time() * 1e6))
    reply.format.format = request.format
    reply.format.width, reply.format.height = size
    reply.format.display = request.display
    reply.format.rotation.rotation = model.rotation
    reply.format.rotation.zAxis = {0: 0.0, 1: 90.0, 2: -180.0, 3: -90.0}[model.rotation]
    reply.width, reply.height = size  # deprecated, still filled by the emulator
    return reply


def stream(
    model: VirtualDeviceModel,
    request: Any,
    active: Callable[[], bool],
    stop: threading.Event,
    regions: SharedRegions | None = None,
) -> Iterator[Any]:
    """Frames of `request`'s format: the current one, then one per change, while `active()` and not `stop`."""
    last: Hashable = object()
    seq = 0
    while active() and not stop.is_set():
        with model.lock:
            frame = model.ui.frame()
        if frame.key != last:
            last = frame.key
            yield image_message(model, request, seq, frame, regions)
            seq += 1
        stop.wait(STREAM_POLL_S)
