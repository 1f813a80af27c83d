"""Text drawn from remembered coverage masks: the same line of text in the same font is rasterized once.

`ImageDraw.text` rasterizes a line (FreeType, every call) into a coverage mask and blends the fill colour through
it. A device draws the same labels on every frame (tabs, buttons, list rows, the keyboard), so `draw_text` keeps
the mask of each (font, text, sub-pixel start) and blends the colour through it with `Image.paste`, which runs
the very blend `ImageDraw.text` does - the pixels are identical (tests/emulator/virtual/test_render.py compares them).
It pastes an image of the colour through the mask rather than the colour itself: Pillow blends an image through a mask
about twice as fast as a colour (one pass over whole pixels against one per channel), with the same arithmetic.
"""

from __future__ import annotations

import math
import threading
from collections import OrderedDict

from PIL import Image, ImageDraw, ImageFont

Color = tuple[int, int, int]
_Font = ImageFont.FreeTypeFont | ImageFont.ImageFont

Key = tuple[int, str, float, float]  # (font id, text, sub-pixel start x, y)
Entry = tuple[Image.Image, int, int]  # the mask and where its (0, 0) goes


class MaskCache:
    """The masks drawn lately, least recently used out past `max_masks` masks or `max_bytes` of mask pixels (one
    byte each), and the fonts they are keyed by, kept alive so that a font's id is never reused while a mask is
    keyed by it: at most `max_fonts`, all forgotten with the masks when a new one would pass that (`fonts.get_font`
    remembers 256 and makes a new object for a size it forgot, which would otherwise stay alive here for good).
    Thread-safe. The bounds and why: docs/caches.md."""

    def __init__(self, max_masks: int = 4096, max_bytes: int = 6 << 20, max_fonts: int = 512) -> None:
        self.max_masks, self.max_bytes, self.max_fonts = max_masks, max_bytes, max_fonts
        self.masks: OrderedDict[Key, Entry] = OrderedDict()
        self.fonts: dict[int, _Font] = {}
        self.bytes = 0
        self.hits = self.misses = 0  # lookups that found their mask, and those that drew it (bench/device_memory.py)
        self._lock = threading.Lock()

    def get(self, key: Key) -> Entry | None:
        with self._lock:
            hit = self.masks.get(key)
            if hit is not None:
                self.masks.move_to_end(key)
                self.hits += 1
            else:
                self.misses += 1
            return hit

    def put(self, font: _Font, key: Key, entry: Entry) -> None:
        with self._lock:
            if id(font) not in self.fonts:
                if len(self.fonts) >= self.max_fonts:
                    self.masks.clear()
                    self.fonts.clear()
                    self.bytes = 0
                self.fonts[id(font)] = font
            old = self.masks.pop(key, None)
            if old is not None:
                self.bytes -= _size(old)
            self.masks[key] = entry
            self.bytes += _size(entry)
            while len(self.masks) > 1 and (len(self.masks) > self.max_masks or self.bytes > self.max_bytes):
                _, dropped = self.masks.popitem(last=False)
                self.bytes -= _size(dropped)


def _size(entry: Entry) -> int:
    return entry[0].width * entry[0].height


# A screen shows ~100 lines of text, a mask is ~15-25 KB on average (a wide line ~100 KB), and an episode brings new
# lines (typed text, one prefix after another; the instance's names and numbers): 6 MB keeps a few hundred masks,
# several screens' worth, where 4096 masks alone reached ~100 MB a device within a few hundred episodes
# (bench/soak.py); over ~100 clock-alarm episodes a device's lookups hit as often at 4 MB as at 16 (98.4%, every
# miss a first sight: bench/device_memory.py, docs/caches.md).
MASKS = MaskCache()


def _mask(font: _Font, text: str, fx: float, fy: float) -> Entry:
    """The coverage mask of `text` drawn at sub-pixel start (fx, fy) and where its (0, 0) goes, relative to the
    integer part of the drawing position."""
    key = (id(font), text, fx, fy)
    hit = MASKS.get(key)
    if hit is not None:
        return hit
    left, top, right, bottom = (math.floor(v) for v in font.getbbox(text))
    # whole pixels that keep the drawing inside the mask; never negative, or ImageDraw's truncation toward zero
    # would start the rasterization at another sub-pixel offset than at the real position
    kx, ky = 2 + max(0, -left), 2 + max(0, -top)
    img = Image.new("L", (kx + right + 3, ky + bottom + 3), 0)
    ImageDraw.Draw(img).text((kx + fx, ky + fy), text, font=font, fill=255)
    entry = (img, -kx, -ky)
    MASKS.put(font, key, entry)
    return entry


def draw_text(img: Image.Image, xy: tuple[float, float], text: str, font: _Font, fill: Color) -> tuple[int, int]:
    """`ImageDraw.Draw(img).text(xy, text, font=font, fill=fill)` for an RGB image, from a remembered mask. Returns
    the rows it may have touched, (top, bottom) in `img`'s coordinates."""
    x, y = xy
    ix, iy = math.floor(x), math.floor(y)
    if ix != int(x) or iy != int(y):  # ImageDraw truncates toward zero: left of / above the image, draw it plainly
        ImageDraw.Draw(img).text(xy, text, font=font, fill=fill)
        _, top, _, bottom = font.getbbox(text)
        return math.floor(y + top) - 2, math.ceil(y + bottom) + 2
    mask, dx, dy = _mask(font, text, x - ix, y - iy)
    img.paste(Image.new("RGB", mask.size, fill), (ix + dx, iy + dy), mask)
    return iy + dy, iy + dy + mask.height
