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
from concurrent.futures import ThreadPoolExecutor

from PIL import Image

SPLIT_MIN_ROWS = 32  # MCU rows (512 pixel rows at 4:2:0): a smaller frame is encoded whole, in one piece

_MEMFD = hasattr(os, "memfd_create")
_RST = re.compile(rb"\xff[\xd0-\xd7]")  # in entropy-coded data a 0xFF is followed by a stuffed 0x00 or a marker
_SOF0, _SOS, _DRI = 0xC0, 0xDA, 0xDD
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
    """`img` (RGB) as a JPEG at `quality`: its halves encoded at once and spliced (see the module) when it is at
    least `SPLIT_MIN_ROWS` MCU rows tall and the helper thread can run; else whole."""
    w, h = img.size
    rows = -(-h // 16)
    if rows < SPLIT_MIN_ROWS or not _MEMFD:
        return save(img, quality)
    half = (rows + 1) // 2
    cut = half * 16
    top = _executor().submit(save, img.crop((0, 0, w, cut)), quality, half)
    bottom = save(img.crop((0, cut, w, h)), quality, half)
    spliced = splice(top.result(), bottom, h, half)
    return spliced if spliced is not None else save(img, quality, half)


def splice(top: bytes, bottom: bytes, height: int, half: int) -> bytes | None:
    """The JPEG of a frame `height` pixels tall from the JPEGs of its top `half` MCU rows and the rest, each
    encoded alone with a restart interval of `half` MCU rows; None when they are not such a pair."""
    t, b = _header(top), _header(bottom)
    if t is None or b is None:
        return None
    (t_end, t_height_at, t_dri, t_width, t_mcu), (b_end, b_height_at, b_dri, _, _) = t, b
    per_row = -(-t_width // 16)
    if t_mcu != 16 or t_dri != half * per_row or b_dri != t_dri or t_height_at != b_height_at:
        return None
    at = t_height_at
    if top[:at] != bottom[:at] or top[at + 2 : t_end] != bottom[at + 2 : b_end] or t_end != b_end:
        return None  # the halves' tables or scans differ: not one frame's
    top_scan, bottom_scan = top[t_end:-2], bottom[b_end:-2]
    if top[-2:] != b"\xff\xd9" or bottom[-2:] != b"\xff\xd9" or _RST.search(top_scan) or _RST.search(bottom_scan):
        return None  # each half must be one restart segment
    header = top[:at] + height.to_bytes(2, "big") + top[at + 2 : t_end]  # the top's, with the frame's height
    return b"".join((header, top_scan, b"\xff\xd0", bottom_scan, b"\xff\xd9"))


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
