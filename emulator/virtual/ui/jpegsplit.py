"""A frame's JPEG encoded in two halves at once, on two cores, spliced into one file.

Facts (ITU T.81, JFIF): a baseline scan codes the image in MCUs (16 x 16 pixels with 4:2:0 chroma, what Pillow
picks for RGB at every quality), row by row. A restart interval (the DRI marker, Ri MCUs) cuts the scan's
entropy-coded data into segments: after every Ri MCUs the encoder pads the bits to a byte, writes RSTm (FFD0..FFD7)
and resets every DC prediction, so a segment depends only on its own MCUs' pixels, the quantization tables (the
quality's) and the Huffman tables (the standard ones: nothing is optimized). Chroma is averaged within an MCU row,
never across rows, and the last MCU row is filled out by repeating the bottom pixel row.

So with a restart interval of half the frame's MCU rows, the frame's JPEG is: the header, the top half's segment,
RST0, the bottom half's segment, EOI - and each half encoded alone (same width, the same interval) gives exactly
that half's segment. The halves are encoded at once: Pillow encodes into a file (here Linux's in-memory memfd)
without holding the GIL, into a BytesIO with it. The file is byte for byte Pillow's whole encoding with
`restart_marker_rows` of half the rows; a decoder gives the same pixels as for the plain encoding without the
marker (restart markers change no coefficient), for 2-3 bytes more. What does not parse as expected (another
Pillow, another sampling) is encoded whole instead; frames under `SPLIT_MIN_ROWS` MCU rows too, as plain JPEGs.
"""

from __future__ import annotations

import io
import os
import re
import threading
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import NamedTuple

from PIL import Image

SPLIT_MIN_ROWS = 32  # MCU rows (512 pixel rows at 4:2:0): a smaller frame is encoded whole, in one piece

_MEMFD = hasattr(os, "memfd_create")
_RST = re.compile(rb"\xff[\xd0-\xd7]")  # in entropy-coded data a 0xFF is followed by a stuffed 0x00 or a marker
_SOF0, _SOS, _DRI = 0xC0, 0xDA, 0xDD
_MARKERS = [bytes((0xFF, 0xD0 + k)) for k in range(8)]
_lock = threading.Lock()
_helper: tuple[int, ThreadPoolExecutor] | None = None  # (the process it was started in, the executor)


def save(img: Image.Image, quality: int, restart_rows: int = 0) -> bytes:
    """`img` (RGB) as Pillow's JPEG at `quality`, with a restart marker every `restart_rows` MCU rows (0: none);
    through a memfd where there is one, so the encoding runs without the GIL."""
    extra = {"restart_marker_rows": restart_rows} if restart_rows else {}
    if _MEMFD:
        with open(os.memfd_create("droidharness-jpeg", os.MFD_CLOEXEC), "w+b") as f:
            img.save(f, format="JPEG", quality=quality, **extra)
            f.flush()
            return os.pread(f.fileno(), os.fstat(f.fileno()).st_size, 0)
    buf = io.BytesIO()
    img.save(buf, format="JPEG", quality=quality, **extra)
    return buf.getvalue()


def encode(img: Image.Image, quality: int) -> bytes:
    """`img` (RGB) as a JPEG at `quality` with a restart marker after every MCU row: its halves encoded at once and
    spliced (see the module) when it is at least `SPLIT_MIN_ROWS` MCU rows tall and the helper thread can run;
    else whole, without markers."""
    w, h = img.size
    rows = -(-h // 16)
    if rows < SPLIT_MIN_ROWS or not _MEMFD:
        return save(img, quality)
    cut = (rows + 1) // 2 * 16
    top = _executor().submit(save, img.crop((0, 0, w, cut)), quality, 1)
    bottom = save(img.crop((0, cut, w, h)), quality, 1)
    spliced = splice([top.result(), bottom], h)
    return spliced if spliced is not None else save(img, quality, 1)


class Cut(NamedTuple):
    """A JPEG of `encode`'s kind cut up: its header (to the scan's start), where the header holds the frame's
    height, the frame's size, and the entropy data of each MCU row."""

    header: bytes
    height_at: int
    width: int
    height: int
    segments: list[bytes]

    def joins(self, other: Cut) -> bool:
        """Is `other`'s header this one's but for the frame's height (the same MCU, tables and scan)?"""
        at = self.height_at
        return (
            other.height_at == at
            and other.width == self.width
            and other.header[:at] == self.header[:at]
            and other.header[at + 2 :] == self.header[at + 2 :]
        )


def patch(old: bytes, img: Image.Image, bands: Sequence[tuple[int, int]], quality: int) -> bytes | None:
    """`img`'s JPEG (as `encode` gives it) from `old`, the JPEG `encode` gave for a frame of the same size that
    differs from `img` only in the rows of `bands` (each on whole MCU rows): the segments of those rows encoded
    again, the others kept. None when `old` is not such a file."""
    w, h = img.size
    base = _cut(old)
    if base is None or (base.width, base.height) != (w, h) or len(base.segments) != -(-h // 16) or not bands:
        return None
    cuts = [(t, min(b, h)) for t, b in bands if t % 16 == 0 and 0 <= t < min(b, h)]
    if len(cuts) != len(bands) or any(b % 16 and b != h for _, b in cuts):
        return None
    pieces = [img.crop((0, t, w, b)) for t, b in cuts]
    ahead = [_executor().submit(save, p, quality, 1) for p in pieces[1::2]] if len(pieces) > 1 else []
    here = [save(p, quality, 1) for p in pieces[0::2]]
    encoded = [here[i // 2] if i % 2 == 0 else ahead[i // 2].result() for i in range(len(pieces))]
    out = list(base.segments)
    for (t, _), data in zip(cuts, encoded, strict=True):
        part = _cut(data)
        if part is None or not base.joins(part):
            return None
        out[t // 16 : t // 16 + len(part.segments)] = part.segments
    return _assemble(base, h, out) if len(out) == len(base.segments) else None


def splice(parts: Sequence[bytes], height: int) -> bytes | None:
    """The JPEG of a frame `height` pixels tall from the JPEGs of its consecutive stripes, top first, each
    encoded alone with a restart marker after every MCU row; None when they are not such stripes."""
    cuts = [_cut(p) for p in parts]
    first = cuts[0] if cuts else None
    segments: list[bytes] = []
    for c in cuts:
        if first is None or c is None or not first.joins(c):
            return None
        segments += c.segments
    return _assemble(first, height, segments) if first is not None and len(segments) == -(-height // 16) else None


def _cut(data: bytes) -> Cut | None:
    """`data` cut up (`Cut`); None when it is not a baseline 4:2:0 JPEG restarting after every MCU row."""
    head = _header(data)
    if head is None or data[-2:] != b"\xff\xd9":
        return None
    end, height_at, dri, width, mcu = head
    if mcu != 16 or dri != -(-width // 16):
        return None
    scan = data[end:-2]
    if any(m[1] != 0xD0 + (k & 7) for k, m in enumerate(_RST.findall(scan))):
        return None
    height = int.from_bytes(data[height_at : height_at + 2], "big")
    return Cut(data[:end], height_at, width, height, _RST.split(scan))


def _assemble(like: Cut, height: int, segments: Sequence[bytes]) -> bytes:
    """A JPEG with `like`'s header (its height set to `height`) and these MCU rows' entropy data, RSTm between."""
    at = like.height_at
    pieces = [like.header[:at], height.to_bytes(2, "big"), like.header[at + 2 :]]
    for k, seg in enumerate(segments):
        if k:
            pieces.append(_MARKERS[(k - 1) & 7])
        pieces.append(seg)
    pieces.append(b"\xff\xd9")
    return b"".join(pieces)


def _header(data: bytes) -> tuple[int, int, int, int, int] | None:
    """Where a baseline JPEG's scan starts, where its SOF0 height is, its restart interval, its width and its
    MCU height; None when it is not a baseline JPEG with a restart interval."""
    if data[:2] != b"\xff\xd8":
        return None
    pos, height_at, dri, width, mcu = 2, 0, 0, 0, 0
    while pos + 4 <= len(data) and data[pos] == 0xFF:
        marker, length = data[pos + 1], int.from_bytes(data[pos + 2 : pos + 4], "big")
        body = data[pos + 4 : pos + 2 + length]
        if marker == _SOF0 and len(body) >= 6 and body[5] >= 1 and len(body) == 6 + 3 * body[5]:
            height_at, width = pos + 5, int.from_bytes(body[3:5], "big")
            mcu = 8 * max(body[7 + 3 * c] & 15 for c in range(body[5])) if body[5] > 1 else 8
        elif marker == _DRI and len(body) == 2:
            dri = int.from_bytes(body, "big")
        elif marker == _SOS:
            return (pos + 2 + length, height_at, dri, width, mcu) if height_at and dri else None
        elif 0xC1 <= marker <= 0xCF and marker not in (0xC4, 0xC8, 0xCC):
            return None  # not baseline (extended, progressive, lossless)
        pos += 2 + length
    return None


def _executor() -> ThreadPoolExecutor:
    """The one helper thread of this process (a forked child starts its own: threads do not survive a fork)."""
    global _helper
    with _lock:
        if _helper is None or _helper[0] != os.getpid():
            _helper = (os.getpid(), ThreadPoolExecutor(1, thread_name_prefix="jpeg-half"))
        return _helper[1]
