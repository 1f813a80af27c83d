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
from collections import OrderedDict

from PIL import Image, ImageDraw, ImageFont

Color = tuple[int, int, int]
_Font = ImageFont.FreeTypeFont | ImageFont.ImageFont

_MAX = 4096
_masks: OrderedDict[tuple[int, str, float, float], tuple[Image.Image, int, int]] = OrderedDict()
_fonts: dict[int, _Font] = {}  # keeps each keyed font alive, so its id is never reused while keyed


def _mask(font: _Font, text: str, fx: float, fy: float) -> tuple[Image.Image, int, int]:
    """The coverage mask of `text` drawn at sub-pixel start (fx, fy) and where its (0, 0) goes, relative to the
    integer part of the drawing position."""
    key = (id(font), text, fx, fy)
    hit = _masks.get(key)
    if hit is not None:
        _masks.move_to_end(key)
        return hit
    left, top, right, bottom = (math.floor(v) for v in font.getbbox(text))
    # whole pixels that keep the drawing inside the mask; never negative, or ImageDraw's truncation toward zero
    # would start the rasterization at another sub-pixel offset than at the real position
    kx, ky = 2 + max(0, -left), 2 + max(0, -top)
    img = Image.new("L", (kx + right + 3, ky + bottom + 3), 0)
    ImageDraw.Draw(img).text((kx + fx, ky + fy), text, font=font, fill=255)
    entry = (img, -kx, -ky)
    _fonts.setdefault(id(font), font)
    _masks[key] = entry
    if len(_masks) > _MAX:
        _masks.popitem(last=False)
    return entry


def draw_text(img: Image.Image, xy: tuple[float, float], text: str, font: _Font, fill: Color) -> None:
    """`ImageDraw.Draw(img).text(xy, text, font=font, fill=fill)` for an RGB image, from a remembered mask."""
    x, y = xy
    ix, iy = math.floor(x), math.floor(y)
    if ix != int(x) or iy != int(y):  # ImageDraw truncates toward zero: left of / above the image, draw it plainly
        ImageDraw.Draw(img).text(xy, text, font=font, fill=fill)
        return
    mask, dx, dy = _mask(font, text, x - ix, y - iy)
    img.paste(Image.new("RGB", mask.size, fill), (ix + dx, iy + dy), mask)
