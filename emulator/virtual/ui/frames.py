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
from collections import OrderedDict
from collections.abc import Callable, Hashable
from typing import Any

from PIL import Image

from .theme import Theme
from .view import View

_PLAIN = (str, int, float, bool, type(None))


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


class FrameCache:
    """The last few frames drawn (pixels) and encoded (JPEG bytes per scale and quality) by one device."""

    def __init__(self, images: int = 2, encoded: int = 24) -> None:
        self._images: OrderedDict[Hashable, Image.Image] = OrderedDict()
        self._encoded: OrderedDict[Hashable, bytes] = OrderedDict()
        self._max_images, self._max_encoded = images, encoded
        self.hits = self.misses = 0

    def image(self, key: Hashable, draw: Callable[[], Image.Image]) -> Image.Image:
        """The frame named `key`, drawn by `draw()` when it is not remembered. Callers must not draw on it
        (every caller converts or resizes, which copies)."""
        try:
            img = self._images[key]
        except KeyError:
            self.misses += 1
            img = draw()
            _remember(self._images, key, img, self._max_images)
            return img
        self.hits += 1
        self._images.move_to_end(key)
        return img

    def jpeg(self, key: Hashable, img: Callable[[], Image.Image], scale: float, quality: int) -> bytes:
        """The frame named `key` as a JPEG at `scale` (resized when 0 < scale < 1) and `quality`."""
        ekey = (key, scale, quality)
        try:
            data = self._encoded[ekey]
        except KeyError:
            data = encode_jpeg(img(), scale, quality)
            _remember(self._encoded, ekey, data, self._max_encoded)
            return data
        self._encoded.move_to_end(ekey)
        return data

    def clear(self) -> None:
        self._images.clear()
        self._encoded.clear()


def encode_jpeg(img: Image.Image, scale: float, quality: int) -> bytes:
    """uiautomator2's takeScreenshot encoding: resized by `scale` when 0 < scale < 1, JPEG at `quality`."""
    if 0 < scale < 1:
        img = img.resize((max(1, round(img.width * scale)), max(1, round(img.height * scale))))
    buf = io.BytesIO()
    (img if img.mode == "RGB" else img.convert("RGB")).save(buf, format="JPEG", quality=max(1, min(100, quality)))
    return buf.getvalue()


def _remember(store: OrderedDict[Hashable, Any], key: Hashable, value: Any, limit: int) -> None:
    store[key] = value
    while len(store) > limit:
        store.popitem(last=False)
