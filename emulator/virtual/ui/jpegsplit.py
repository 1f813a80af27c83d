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
SPLIT_MIN_BAND = 8  # MCU rows: fewer rows patched are encoded by one thread

_MEMFD = hasattr(os, "memfd_create")
_RST = re.compile(rb"\xff[\xd0-\xd7]")  # in entropy-coded data a 0xFF is followed by a stuffed 0x00 or a marker
_SOF0, _SOS, _DRI = 0xC0, 0xDA, 0xDD
_MARKERS = [bytes((0xFF, 0xD0 + k)) for k in range(8)]
_lock = threading.Lock()
KEEP_CUTS = 2  # the JPEGs last assembled, kept cut up (each holds its bytes: an id is not reused while kept)
_cuts: dict[int, tuple[bytes, Cut]] = {}
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


Segment = bytes | memoryview  # one MCU row's entropy-coded data


class Cut(NamedTuple):
    """A JPEG of `encode`'s kind cut up: its header (to the scan's start), where the header holds the frame's
    height, the frame's size, and the entropy data of each MCU row."""

    header: bytes
    height_at: int
    width: int
    height: int
    segments: list[Segment]  # views into the file when it was kept cut up (`_assemble`)

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
    base = _recalled(old) or _cut(old)
    if base is None or (base.width, base.height) != (w, h) or len(base.segments) != -(-h // 16) or not bands:
        return None
    cuts = [(t, min(b, h)) for t, b in bands if t % 16 == 0 and 0 <= t < min(b, h)]
    if len(cuts) != len(bands) or any(b % 16 and b != h for _, b in cuts):
        return None
    mine, theirs = halves(cuts)
    ahead = [_executor().submit(save, img.crop((0, t, w, b)), quality, 1) for t, b in theirs]
    encoded = [save(img.crop((0, t, w, b)), quality, 1) for t, b in mine] + [f.result() for f in ahead]
    out = list(base.segments)
    for (t, _), data in zip(mine + theirs, encoded, strict=True):
        part = _cut(data)
        if part is None or not base.joins(part):
            return None
        out[t // 16 : t // 16 + len(part.segments)] = part.segments
    return _assemble(base, h, out) if len(out) == len(base.segments) else None


def halves(bands: Sequence[tuple[int, int]]) -> tuple[list[tuple[int, int]], list[tuple[int, int]]]:
    """`bands` (on whole MCU rows but the frame's last) shared between two encoders, each about half their rows:
    the first takes the bands from the top until half the rows, the band it stops in cut on an MCU row; the second
    the rest (nothing under `SPLIT_MIN_BAND` MCU rows in all: the cost of handing work over is not worth it)."""
    total = sum(b - t for t, b in bands)
    if total < SPLIT_MIN_BAND * 16:
        return list(bands), []
    left = total // 2 // 16 * 16  # the first encoder's rows
    first: list[tuple[int, int]] = []
    for k, (t, b) in enumerate(bands):
        if left >= b - t:
            first.append((t, b))
            left -= b - t
            continue
        cut = t + left // 16 * 16  # on an MCU row (a last band shorter than one makes `left` fall off them)
        if cut > t:
            first.append((t, cut))
            return first, [(cut, b), *bands[k + 1 :]]
        return first, list(bands[k:])
    return first, []


def splice(parts: Sequence[bytes], height: int) -> bytes | None:
    """The JPEG of a frame `height` pixels tall from the JPEGs of its consecutive stripes, top first, each
    encoded alone with a restart marker after every MCU row; None when they are not such stripes."""
    cuts = [_cut(p) for p in parts]
    first = cuts[0] if cuts else None
    segments: list[Segment] = []
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


def _assemble(like: Cut, height: int, segments: Sequence[Segment]) -> bytes:
    """A JPEG with `like`'s header (its height set to `height`) and these MCU rows' entropy data, RSTm between;
    remembered cut up (`_recalled`): it is what the next frame is patched from."""
    at = like.height_at
    header = like.header[:at] + height.to_bytes(2, "big") + like.header[at + 2 :]
    pieces: list[Segment] = [header]
    for k, seg in enumerate(segments):
        if k:
            pieces.append(_MARKERS[(k - 1) & 7])
        pieces.append(seg)
    pieces.append(b"\xff\xd9")
    data = b"".join(pieces)
    view, pos, kept = memoryview(data), len(header), list[Segment]()
    for k, seg in enumerate(segments):  # each row's data as a view into the file: kept cut up, nothing copied
        pos += 2 if k else 0
        kept.append(view[pos : pos + len(seg)])
        pos += len(seg)
    with _lock:
        _cuts[id(data)] = (data, Cut(header, at, like.width, height, kept))
        while len(_cuts) > KEEP_CUTS:
            del _cuts[next(iter(_cuts))]
    return data


def _recalled(data: bytes) -> Cut | None:
    """`data`'s cut when this process assembled it lately (not cut up again: ~0.2 ms for a 1080 x 2400 frame)."""
    with _lock:
        known = _cuts.get(id(data))
    return known[1] if known is not None and known[0] is data else None


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
