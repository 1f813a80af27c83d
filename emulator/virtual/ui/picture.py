"""Pictures: an image file of the device drawn in a view, as an app's ImageView shows a photo (Glide or a gallery's
viewer decoding the file, scaled to the view).

`picture_view(ctx, bounds, path, mode)` reads the file from the device's file system, decodes it with Pillow and
gives an ImageView whose bitmap is the picture: `"fit"` scales the whole picture into the view, centred, keeping its
aspect (letterboxed: the view's parent shows around it - fitCenter), `"crop"` fills the view, the picture's middle
cut to the view's aspect (centerCrop, as thumbnails are). EXIF orientation is applied, and a rotation in quarter
turns may be asked for (a viewer's Rotate). A file that does not decode (not an image, empty, a video) shows the
broken-image glyph instead.

What is kept: the decoded picture at most as large as it is drawn (a larger source is decoded reduced - JPEG's
draft scaling - then resampled down; a smaller one is kept at its own size and scaled up when the frame is drawn),
thumbnails ("crop") in 256 colours (a third of the bytes: as Glide's RGB_565 trades a thumbnail's colour depth for
memory, so a grid's worth stays within the budget), in a small LRU bounded by bytes (`PictureCache`), named by
the file's content (path, size, modification time and CRC-32 of its bytes) and the drawn size, mode and rotation.
Frames that show the same picture reuse the same bitmap object, so the frame cache (`frames.draw_key`, which names
bitmaps by identity) recognises them, and nothing is decoded again until the file or the box changes.
"""

from __future__ import annotations

import io
import math
import zlib
from collections.abc import Hashable
from dataclasses import dataclass
from typing import Any, Literal

from PIL import Image, ImageOps

from ..fs import FileSystem
from .kept import KeptByBytes
from .layout import Ctx, V
from .view import Bounds, View

Mode = Literal["fit", "crop"]
IMAGE_VIEW = "android.widget.ImageView"
ORIENTATION_TAG = 0x0112  # EXIF Orientation
_SWAPS = (5, 6, 7, 8)  # EXIF orientations that turn the picture a quarter (width and height swap)
DEFAULT_BUDGET = 4 << 20  # bytes of decoded pixels kept by the shared cache
DEFAULT_ENTRIES = 64


@dataclass(frozen=True)
class Picture:
    """A decoded picture: its pixels (RGB, at most as large as drawn) and the source's size (EXIF-oriented and
    rotated as asked), which a fitted picture's placement is computed from."""

    image: Image.Image
    width: int
    height: int

    @property
    def nbytes(self) -> int:
        return self.image.width * self.image.height * (1 if self.image.mode == "P" else 3)


def fit_rect(src: tuple[int, int], box: Bounds) -> Bounds:
    """Where a picture of size `src` goes in `box` with "fit": scaled (up or down) to touch two sides, centred."""
    l, t, r, b = box
    bw, bh = max(1, r - l), max(1, b - t)
    sw, sh = max(1, src[0]), max(1, src[1])
    s = min(bw / sw, bh / sh)
    w, h = max(1, round(sw * s)), max(1, round(sh * s))
    x, y = l + (bw - w) // 2, t + (bh - h) // 2
    return (x, y, x + w, y + h)


def _crop_region(src: tuple[int, int], size: tuple[int, int]) -> tuple[int, int, int, int]:
    """The middle of a `src` picture with the aspect of `size` (what "crop" shows)."""
    sw, sh = src
    tw, th = max(1, size[0]), max(1, size[1])
    if sw * th > sh * tw:  # wider than the box: cut the sides
        w = max(1, round(sh * tw / th))
        x = (sw - w) // 2
        return (x, 0, x + w, sh)
    h = max(1, round(sw * th / tw))
    y = (sh - h) // 2
    return (0, y, sw, y + h)


def decode(data: bytes, size: tuple[int, int], mode: Mode, rotation: int = 0, paletted: bool = False) -> Picture | None:
    """`data` decoded for a box of `size` px (None when it is not a picture Pillow reads); `paletted`: kept in 256
    colours (a third of the memory)."""
    bw, bh = max(1, size[0]), max(1, size[1])
    turns = (rotation // 90) % 4
    try:
        img: Image.Image = Image.open(io.BytesIO(data))
        orientation = int(img.getexif().get(ORIENTATION_TAG, 1) or 1)
        sw, sh = img.size
        quarter = (orientation in _SWAPS) != (turns % 2 == 1)
        ow, oh = (sh, sw) if quarter else (sw, sh)  # the size as shown
        if mode == "fit":
            s = min(1.0, bw / ow, bh / oh)
        else:
            s = min(1.0, max(bw / ow, bh / oh))
        need = (max(1, math.ceil(ow * s)), max(1, math.ceil(oh * s)))
        img.draft("RGB", need[::-1] if quarter else need)  # JPEG: decoded at 1/2, 1/4, 1/8 when that is enough
        img = ImageOps.exif_transpose(img) or img
        if turns:
            img = img.rotate(-90 * turns, expand=True)
        if img.mode != "RGB":
            img = img.convert("RGB")
        if mode == "crop":
            img = img.crop(_crop_region(img.size, (bw, bh)))
            target = (min(bw, img.width), min(bh, img.height))
        else:
            target = (min(img.width, need[0]), min(img.height, need[1]))
        if img.size != target:
            img = img.resize(target, Image.Resampling.LANCZOS, reducing_gap=2.0)
        if paletted:
            img = img.quantize(256, method=Image.Quantize.FASTOCTREE, dither=Image.Dither.NONE)
        img.load()
    except (OSError, ValueError, SyntaxError, Image.DecompressionBombError, EOFError):
        return None
    return Picture(img, ow, oh)


def _nbytes(pic: Picture | None) -> int:
    return pic.nbytes if pic is not None else 0


class PictureCache(KeptByBytes[Hashable, Picture | None]):
    """Decoded pictures, most recently used kept, bounded by the bytes of their pixels and by their number
    (`kept.KeptByBytes`; a None result is kept too: a file that does not decode is not tried again until it
    changes). Safe to use from several threads: two threads missing the same picture at once both decode it, and
    give the same pixels."""

    def __init__(
        self, max_bytes: int = DEFAULT_BUDGET, max_entries: int = DEFAULT_ENTRIES, paletted_crops: bool = True
    ) -> None:
        super().__init__(max_bytes, max_entries, _nbytes)
        self.paletted_crops = paletted_crops  # thumbnails ("crop") in 256 colours: a grid's worth fits the budget

    def load(self, fs: FileSystem, path: str, size: tuple[int, int], mode: Mode, rotation: int = 0) -> Picture | None:
        """The picture of the file at `path` for a box of `size` (None: no such file, or not a picture)."""
        node = fs.stat(path)
        if node is None or node.is_dir:
            return None
        data = node.data
        key = (path, len(data), node.mtime, zlib.crc32(data), size, mode, rotation % 360)
        paletted = self.paletted_crops and mode == "crop"
        return self.get(key, lambda: decode(bytes(data), size, mode, rotation, paletted))


CACHE = PictureCache()


def picture_view(
    ctx: Ctx,
    bounds: Bounds,
    path: str,
    mode: Mode = "fit",
    rid: str = "",
    desc: str = "",
    rotation: int = 0,
    cache: PictureCache | None = None,
    **kw: Any,
) -> View:
    """An ImageView over `bounds` showing the picture file at `path` (a device path) as `mode` says; `kw` are the
    view's other attributes (`on_click`, `clickable`, `long_clickable`, ...). A fitted picture is drawn in the part
    of the box it covers (the view's `draw` box): the view has no background of its own, its parent's shows around
    it. Not a picture: the broken-image glyph in the box."""
    l, t, r, b = bounds
    size = (max(1, r - l), max(1, b - t))
    pic = (cache or CACHE).load(ctx.model.fs, path, size, mode, rotation)
    view = V(ctx, kw.pop("cls", IMAGE_VIEW), bounds, rid, desc=desc, **kw)
    if pic is None:
        side = min(size) // 3
        cx, cy = (l + r) // 2, (t + b) // 2
        view.style.update(icon="image", icon_color=(158, 158, 158), inset=0)
        view.style["draw"] = (cx - side // 2, cy - side // 2, cx + side // 2, cy + side // 2)
        return view
    view.style["image"] = pic.image
    if mode == "fit":
        view.style["draw"] = fit_rect((pic.width, pic.height), bounds)
    return view


__all__ = ["CACHE", "IMAGE_VIEW", "Mode", "Picture", "PictureCache", "decode", "fit_rect", "picture_view"]
