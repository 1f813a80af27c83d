"""What a frame looks like, remembered: the renderer's output and its JPEG, keyed by everything drawing reads.

A screen is rebuilt from device state for every capture, and many captures show a screen that was drawn
before (the home screen after every reset, a screen captured again before the next action, the keyboard over
an unchanged field). Drawing reads nothing but the views and the theme (see `render`), so a frame is fully
named by `draw_key(roots, size, theme)`: each view's class, bounds, text, drawn states and style, depth first.
A key that meets a style value it cannot name (an object it does not know) is unique, so such a frame is
always drawn afresh - the cache can only miss, never show a stale frame.

The encoded bytes are kept beside the pixels: the same frame at the same scale and quality is the same JPEG,
byte for byte, as a device's encoder gives for the same pixels.
"""

from __future__ import annotations

import io
import threading
from collections import OrderedDict
from collections.abc import Callable, Hashable
from dataclasses import dataclass
from typing import Any, TypeVar

from PIL import Image

from ..memtrim import trim
from .theme import Theme
from .view import View

_PLAIN = (str, int, float, bool, type(None))
_V = TypeVar("_V")


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
    if isinstance(x, dict):  # behaviour (on_cancel, ...) is never drawn: left out
        return tuple(sorted((str(k), _freeze(v)) for k, v in x.items() if not callable(v)))
    if isinstance(x, Image.Image):
        return _Same(x)
    return _Unnameable()


def _view_key(v: View) -> Hashable:
    return (
        v.cls,
        v.bounds,
        v.text,
        v.checked,
        v.enabled,
        v.selected,
        v.focused,
        _freeze(v.style),
        tuple(_view_key(c) for c in v.children),
    )


def draw_key(roots: list[View], size: tuple[int, int], theme: Theme) -> Hashable:
    """Everything `render(roots, size, theme)` reads, as one hashable value."""
    return (size, theme, tuple(_view_key(r) for r in roots))


@dataclass(frozen=True)
class Frame:
    """What is on screen at one moment: its name (`draw_key`) and how to draw it (from the views of that moment,
    which nothing changes afterwards: a frame taken under the model's lock is drawn without it)."""

    key: Hashable
    draw: Callable[[], Image.Image]


class FrameCache:
    """The last few frames drawn (pixels) and encoded (JPEG bytes per scale and quality) by one device. Safe to
    use from several threads: the lock guards the stores only, never a drawing or an encoding (two threads
    missing the same frame at once both draw it, and give the same pixels)."""

    def __init__(self, images: int = 2, encoded: int = 24) -> None:
        self._images: OrderedDict[Hashable, Image.Image] = OrderedDict()
        self._encoded: OrderedDict[Hashable, bytes] = OrderedDict()
        self._max_images, self._max_encoded = images, encoded
        self._lock = threading.Lock()
        self.hits = self.misses = 0

    def image(self, key: Hashable, draw: Callable[[], Image.Image]) -> Image.Image:
        """The frame named `key`, drawn by `draw()` when it is not remembered. Callers must not draw on it
        (every caller converts or resizes, which copies)."""
        with self._lock:
            img = _recall(self._images, key)
            if img is not None:
                self.hits += 1
                return img
            self.misses += 1
        img = draw()
        with self._lock:
            _remember(self._images, key, img, self._max_images)
        trim()  # the drawing's freed buffers (and an evicted frame) back to the system
        return img

    def jpeg(self, key: Hashable, img: Callable[[], Image.Image], scale: float, quality: int) -> bytes:
        """The frame named `key` as a JPEG at `scale` (resized when 0 < scale < 1) and `quality`."""
        ekey = (key, scale, quality)
        with self._lock:
            data = _recall(self._encoded, ekey)
        if data is None:
            data = encode_jpeg(img(), scale, quality)
            with self._lock:
                _remember(self._encoded, ekey, data, self._max_encoded)
            trim()
        return data

    def clear(self) -> None:
        with self._lock:
            self._images.clear()
            self._encoded.clear()


def encode_jpeg(img: Image.Image, scale: float, quality: int) -> bytes:
    """uiautomator2's takeScreenshot encoding: resized by `scale` when 0 < scale < 1, JPEG at `quality`."""
    if 0 < scale < 1:
        img = img.resize((max(1, round(img.width * scale)), max(1, round(img.height * scale))))
    buf = io.BytesIO()
    (img if img.mode == "RGB" else img.convert("RGB")).save(buf, format="JPEG", quality=max(1, min(100, quality)))
    return buf.getvalue()


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
