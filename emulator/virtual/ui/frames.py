"""What a frame looks like, remembered: the renderer's output and its JPEG, keyed by everything drawing reads.

A screen is rebuilt from device state for every capture, and many captures show a screen that was drawn
before (the home screen after every reset, a screen captured again before the next action, the keyboard over
an unchanged field). Drawing reads nothing but the views and the theme (see `render`), so a frame is fully
named by `draw_key(roots, size, theme)`: the items it paints in drawing order (`damage.paint_items`: each drawn
view's class, bounds, text, drawn states and style, with the clips around it; a view with no area draws nothing
and is left out, its children with it).
A key that meets a style value it cannot name (an object it does not know) is unique, so such a frame is
always drawn afresh - the cache can only miss, never show a stale frame.

The encoded bytes are kept beside the pixels: the same frame at the same scale and quality is the same JPEG,
byte for byte, as a device's encoder gives for the same pixels. So are the last two frames' raw rows (RGB888 or
RGBA8888, what a shared memory screenshot copies: ~7.8 MB each at 1080x2400), so an unchanged screen is not
converted again; each is made only when a client asks for it (nothing is encoded that nobody reads).

A new frame is drawn over the frame it pushes out of the cache (`Frame.draw_on`, when nothing else holds that
one): painted over whole, the same pixels as on a new image, without a new 10 MB buffer whose pages the kernel
would fault in and zero again after a heap trim (`memtrim`). Over the bundled suite (reference agent, `instant`,
virtual clock) the device's CPU went 12.0 -> 9.4 s with it, a heap trim still after every frame.
"""

from __future__ import annotations

import functools
import sys
import threading
from collections import OrderedDict
from collections.abc import Callable, Hashable
from dataclasses import dataclass
from typing import Any, TypeVar

from PIL import Image

from ..memtrim import frame_drawn
from . import damage, jpegsplit
from .kept import KeptByBytes
from .theme import Theme
from .view import Behaviour, View

_PLAIN = (str, int, float, bool, type(None))
# a device's recent screens as JPEGs (~100 KB each at 1080x2400, quality 80): the few episodes' worth a suite comes
# back to (its home screen, an app's first screens): over the bundled suite 24 encodings drew 393 frames, 58 of
# them again; 4 MB (~37 encodings) drew 369 (docs/caches.md)
ENCODED_BYTES = 4 << 20
ENCODED_FRAMES = 64
LINEAGE = 8  # frames whose bands drawn again over the frame before are remembered
_V = TypeVar("_V")
# a frame to draw the next over: its key, its image, and its paint list with what its items drew (when known)
Spare = tuple[Hashable, Image.Image, tuple[damage.PaintList, list[damage.Drawn]] | None]


class _Unnameable:
    """A key part that equals nothing but itself (a style value `draw_key` cannot name)."""

    __slots__ = ()


class _Same:
    """A key part naming one object by identity (a bitmap: PIL images compare by content and do not hash); it
    holds the object, so its id cannot be reused while the key lives."""

    __slots__ = ("obj",)

    def __init__(self, obj: object) -> None:
        self.obj = obj

    def __hash__(self) -> int:
        return id(self.obj)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, _Same) and other.obj is self.obj


def _freeze(x: Any) -> Hashable:
    if isinstance(x, _PLAIN):
        return x
    if isinstance(x, (tuple, list)):
        return tuple(_freeze(i) for i in x)
    if isinstance(x, dict):  # behaviour (on_cancel, a field's binding, ...) is never drawn: left out
        return tuple(
            sorted((str(k), _freeze(v)) for k, v in x.items() if not callable(v) and not isinstance(v, Behaviour))
        )
    if isinstance(x, Image.Image):
        return _Same(x)
    return _Unnameable()


def own_key(v: View) -> tuple[Hashable, ...]:
    """Everything drawing `v` itself reads (not its children): its class, bounds, text, drawn states and style."""
    return (v.cls, v.bounds, v.text, v.checked, v.enabled, v.selected, v.focused, _freeze(v.style))


class FrameKey:
    """A frame's name: its paint list's items (`damage.paint_items`: everything drawing reads, in drawing order),
    size and theme, its hash made once (the caches look a frame up several times a capture)."""

    __slots__ = ("parts", "_hash")

    def __init__(self, parts: Hashable) -> None:
        self.parts = parts
        self._hash = hash(parts)

    def __hash__(self) -> int:
        return self._hash

    def __eq__(self, other: object) -> bool:
        return self is other or (
            isinstance(other, FrameKey) and self._hash == other._hash and self.parts == other.parts
        )


def frame_key(paint: damage.PaintList, theme: Theme) -> FrameKey:
    """The name of the frame that paints `paint` with `theme`."""
    return FrameKey((paint.size, theme, paint.items))


def draw_key(roots: list[View], size: tuple[int, int], theme: Theme) -> FrameKey:
    """Everything `render(roots, size, theme)` reads, as one hashable value: two lists of views that draw the same
    (a view with no area draws nothing, nor do its children) have the same name."""
    return frame_key(damage.paint_items(roots, size, own_key), theme)


@dataclass(frozen=True)
class Redraw:
    """How a frame is drawn knowing what it paints (`damage`): its paint list (made with its name), and the
    renderer with a trace of each item's rows: the whole frame (over a canvas, if one), or only the trace's bands
    over the frame the trace's known rows come from."""

    paint: Callable[[], damage.PaintList]
    whole: Callable[[Image.Image | None, damage.Trace], Image.Image]
    bands: Callable[[Image.Image, damage.Trace], Image.Image]


@dataclass(frozen=True)
class Frame:
    """What is on screen at one moment: its name (`draw_key`) and how to draw it (from the views of that moment,
    which nothing changes afterwards: a frame taken under the model's lock is drawn without it)."""

    key: Hashable
    draw: Callable[[], Image.Image]
    # the same pixels drawn over `canvas`, a frame no longer kept of the same size (RGB), which it may reuse
    draw_on: Callable[[Image.Image], Image.Image] | None = None
    redraw: Redraw | None = None  # drawn over the frame before, only the rows that differ (`damage`)


def views_frame(
    roots: list[View],
    size: tuple[int, int],
    theme: Theme,
    whole: Callable[..., Image.Image],
    bands: Callable[..., Image.Image],
) -> Frame:
    """The frame of the windows `roots` at `size` in `theme`, named by its paint list and drawn by `whole(roots,
    size, theme, canvas=, trace=)` (`render.render`) or, its bands only, `bands(roots, size, theme, canvas, trace)`
    (`render.render_bands`)."""
    paint = damage.paint_items(roots, size, own_key)
    draw = functools.partial(whole, roots, size, theme)
    redraw = Redraw(
        lambda: paint,
        lambda canvas, trace: draw(canvas=canvas, trace=trace),
        functools.partial(bands, roots, size, theme),
    )
    return Frame(frame_key(paint, theme), draw, lambda c: draw(canvas=c), redraw)


class FrameCache:
    """The last few frames drawn (pixels), encoded (JPEG bytes per scale and quality) and as raw rows, by one
    device. Safe to use from several threads: the lock guards the stores only, never a drawing or an encoding (two
    threads missing the same frame at once both draw it, and give the same pixels)."""

    def __init__(
        self, images: int = 1, encoded: int = ENCODED_FRAMES, raw: int = 2, encoded_bytes: int = ENCODED_BYTES
    ) -> None:
        self._images: OrderedDict[Hashable, Image.Image] = OrderedDict()
        self._painted: dict[Hashable, tuple[damage.PaintList, list[damage.Drawn]]] = {}  # a kept frame's items
        # a frame drawn as the one before with some bands drawn again: that frame's key and the bands (its JPEG is
        # that frame's with those rows encoded again, `jpegsplit.patch`), for the last few frames drawn
        self._lineage: OrderedDict[Hashable, tuple[Hashable, list[damage.Rows]]] = OrderedDict()
        self._encoded: KeptByBytes[Hashable, bytes] = KeptByBytes(encoded_bytes, encoded, len)
        self._raw: OrderedDict[Hashable, memoryview] = OrderedDict()
        self._max_images, self._max_raw = images, raw
        self._lock = threading.Lock()
        self.hits = self.misses = 0
        self.partial = 0  # frames drawn as the frame before with some bands drawn again (`damage`)
        self.patched = 0  # JPEGs made from the frame before's (`jpegsplit.patch`)

    def image(
        self,
        key: Hashable,
        draw: Callable[[], Image.Image],
        draw_on: Callable[[Image.Image], Image.Image] | None = None,
        redraw: Redraw | None = None,
    ) -> Image.Image:
        """The frame named `key`, drawn by `draw()` when it is not remembered - or by `draw_on(canvas)` over the
        frame it pushes out of the cache, when nothing else holds that one; with `redraw`, only the rows of that
        frame that differ (`damage`). Callers must not draw on it (every caller converts or resizes, which
        copies)."""
        with self._lock:
            img = _recall(self._images, key)
            if img is not None:
                self.hits += 1
                return img
            self.misses += 1
            spare = self._spare() if draw_on is not None or redraw is not None else None
        painted = bands = None
        if redraw is not None:
            img, painted, bands = self._redraw(redraw, spare)
        else:
            canvas = spare[1] if spare is not None else None
            img = draw() if canvas is None or draw_on is None else draw_on(canvas)
        with self._lock:
            _remember(self._images, key, img, self._max_images)
            if painted is not None:
                self._painted[key] = painted
            if bands is not None and spare is not None:
                _remember(self._lineage, key, (spare[0], bands), LINEAGE)
            for gone in [k for k in self._painted if k not in self._images]:
                del self._painted[gone]
        frame_drawn()  # the drawing's freed buffers (and an evicted frame) back to the system, in time
        return img

    def _redraw(
        self, redraw: Redraw, spare: Spare | None
    ) -> tuple[Image.Image, tuple[damage.PaintList, list[damage.Drawn]], list[damage.Rows] | None]:
        """A frame drawn with a trace: its bands over `spare` (the frame before and what its items drew) when few
        of its rows differ, else whole; what its items drew, and the bands where it differs from `spare`'s frame
        when they are known (checked: every new drawing inside them) and not the whole frame."""
        paint = redraw.paint()
        planned = damage.plan(*spare[2], paint) if spare is not None and spare[2] is not None else None
        if spare is None or planned is None:
            trace = damage.Trace(paint)
            return redraw.whole(spare[1] if spare is not None else None, trace), (paint, trace.result()), None
        bands, known = planned
        if damage.worth_bands(bands, paint.size[1]):
            trace = damage.Trace(paint, bands, known)
            img = redraw.bands(spare[1], trace)
            if trace.new_items_inside():
                with self._lock:
                    self.partial += 1
                return img, (paint, trace.result()), bands
        trace = damage.Trace(paint, bands, known)  # drawn whole, checked against the bands all the same
        img = redraw.whole(spare[1], trace)
        inside = trace.new_items_inside() and bands != [(0, paint.size[1])]
        return img, (paint, trace.result()), bands if inside else None

    def _spare(self) -> Spare | None:
        """The least recently used frame, out of the cache when it is full, to draw the next frame over (its key,
        its image and what its items drew, when known): its 10 MB (at 1080 x 2400) are already the process's,
        where a fresh image's pages would be faulted in and zeroed again after a heap trim. None when the cache is
        not full or something else still holds that frame (a caller encoding or converting it): it then goes when
        they let it go, as before."""
        if len(self._images) < self._max_images:
            return None
        key, old = self._images.popitem(last=False)
        painted = self._painted.pop(key, None)
        # this frame and getrefcount's argument: nobody else holds the image, nor its pixels (an ImageDraw would)
        return (key, old, painted) if sys.getrefcount(old) == 2 and sys.getrefcount(old.im) == 2 else None

    def jpeg(self, key: Hashable, img: Callable[[], Image.Image], scale: float, quality: int) -> bytes:
        """The frame named `key` as a JPEG at `scale` (resized when 0 < scale < 1) and `quality`: at full size,
        for a frame drawn as the frame before with some bands drawn again, that frame's JPEG with those rows
        encoded again (`jpegsplit.patch`: the same bytes) when it is kept."""

        def encode() -> bytes:
            frame = img()
            with self._lock:
                lineage = self._lineage.get(key)
            data = None
            if lineage is not None and not 0 < scale < 1:
                parent = self._encoded.peek((lineage[0], scale, quality))
                if parent is not None and frame.mode == "RGB":
                    data = jpegsplit.patch(parent, frame, lineage[1], max(1, min(100, quality)))
                    if data is not None:
                        with self._lock:
                            self.patched += 1
            if data is None:
                data = encode_jpeg(frame, scale, quality)
            frame_drawn()
            return data

        return self._encoded.get((key, scale, quality), encode)

    def raw(self, key: Hashable, img: Callable[[], Image.Image], size: tuple[int, int], mode: str) -> memoryview:
        """The frame named `key` as raw rows of `mode` ("RGB": RGB888, "RGBA": RGBA8888) at `size` (resized
        when it is not the frame's): what a shared memory screenshot copies, made once per frame (`pack_rows`)."""
        rkey = (key, "raw", size, mode)
        with self._lock:
            data = _recall(self._raw, rkey)
        if data is None:
            frame = img()
            if frame.size != size:
                frame = frame.resize(size, Image.Resampling.BILINEAR)
            data = pack_rows(frame, mode)
            with self._lock:
                _remember(self._raw, rkey, data, self._max_raw)
        return data

    def held(self) -> dict[str, int]:
        """What the cache holds: frames, encodings and raw frames (counts) and their bytes (an image's pixels as
        Pillow stores them: 4 bytes a pixel for RGB), and how often a frame asked for was there (hits, misses)."""
        with self._lock:
            images, raw = list(self._images.values()), list(self._raw.values())
        return {
            "frame images": len(images),
            "frame image bytes": sum(i.width * i.height * (1 if i.mode in ("1", "L", "P") else 4) for i in images),
            "frame image hits": self.hits,
            "frame image misses": self.misses,
            "encoded frames": len(self._encoded),
            "encoded frame bytes": self._encoded.nbytes,
            "raw frames": len(raw),
            "raw frame bytes": sum(r.nbytes for r in raw),
        }

    def clear(self) -> None:
        with self._lock:
            self._images.clear()
            self._painted.clear()
            self._lineage.clear()
            self._raw.clear()
        self._encoded.clear()


def encode_jpeg(img: Image.Image, scale: float, quality: int) -> bytes:
    """uiautomator2's takeScreenshot encoding: resized by `scale` when 0 < scale < 1, JPEG at `quality` - a tall
    frame's two halves encoded at once on two cores and spliced (`jpegsplit`: Pillow's own file for a restart
    marker between the halves; the same pixels as a plain encoding)."""
    if 0 < scale < 1:
        img = img.resize((max(1, round(img.width * scale)), max(1, round(img.height * scale))))
    return jpegsplit.encode(img if img.mode == "RGB" else img.convert("RGB"), max(1, min(100, quality)))


def pack_rows(img: Image.Image, mode: str) -> memoryview:
    """`img`'s rows packed as `mode` ("RGB" or "RGBA"), written by Pillow's raw encoder straight into one numpy
    buffer (its large allocations are transparent huge pages where the kernel allows). `Image.tobytes` joins
    64 KB pieces into a fresh bytes object, whose page faults cost ~5x the packing on a 1080x2400 frame."""
    import numpy as np  # only a client of raw frames loads it

    if img.mode != mode:
        img = img.convert(mode)
    w, h = img.size
    out = np.empty(w * h * len(mode), np.uint8)
    view = out.data
    encoder = Image._getencoder(img.mode, "raw", mode)
    try:
        encoder.setimage(img.im, (0, 0, w, h))
        pos = 0
        while True:
            _, status, piece = encoder.encode(1 << 16)
            view[pos : pos + len(piece)] = piece
            pos += len(piece)
            if status:
                break
    finally:
        encoder.cleanup()
    if status < 0 or pos != len(out):
        raise RuntimeError(f"packing a {w}x{h} frame as {mode} gave {pos} bytes (status {status})")
    return view


def _recall(store: OrderedDict[Hashable, _V], key: Hashable) -> _V | None:
    """The value kept under `key` (now the most recently used), or None."""
    value = store.get(key)
    if value is not None:
        store.move_to_end(key)
    return value


def _remember(store: OrderedDict[Hashable, _V], key: Hashable, value: _V, limit: int) -> None:
    store[key] = value
    while len(store) > limit:
        store.popitem(last=False)
