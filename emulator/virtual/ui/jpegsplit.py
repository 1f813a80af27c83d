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


def patch(old: bytes, img: Image.Image, bands: Sequence[tuple[int, int]], quality: int) -> bytes | None:
    """`img`'s JPEG (as `encode` gives it) from `old`, the JPEG `encode` gave for a frame of the same size that
    differs from `img` only in the rows of `bands` (each on whole MCU rows): the segments of those rows encoded
    again, the others kept. None when `old` is not such a file."""
    w, h = img.size
    parsed = _segments(old)
    if parsed is None or parsed[1] != (w, h) or not bands:
        return None
    header, _, segments = parsed
    if len(segments) != -(-h // 16):
        return None
    out = list(segments)
    cuts = [(t, min(b, h)) for t, b in bands if t % 16 == 0 and 0 <= t < min(b, h)]
    if len(cuts) != len(bands) or any(b % 16 and b != h for _, b in cuts):
        return None
    pieces = [img.crop((0, t, w, b)) for t, b in cuts]
    ahead = [_executor().submit(save, p, quality, 1) for p in pieces[1::2]] if len(pieces) > 1 else []
    here = [save(p, quality, 1) for p in pieces[0::2]]
    encoded = [here[i // 2] if i % 2 == 0 else ahead[i // 2].result() for i in range(len(pieces))]
    for (t, _), data in zip(cuts, encoded, strict=True):
        part = _segments(data)
        if part is None or part[1][0] != w or not _same_tables(header, part[0]):
            return None
        out[t // 16 : t // 16 + len(part[2])] = part[2]
    return _assemble(header, h, out) if len(out) == len(segments) else None


def splice(parts: Sequence[bytes], height: int) -> bytes | None:
    """The JPEG of a frame `height` pixels tall from the JPEGs of its consecutive stripes, top first, each
    encoded alone with a restart marker after every MCU row; None when they are not such stripes."""
    parsed = [_segments(p) for p in parts]
    if not parsed or any(p is None for p in parsed):
        return None
    header = parsed[0][0]  # type: ignore[index]
    segments: list[bytes] = []
    for p in parsed:
        if p is None or p[1][0] != parsed[0][1][0] or not _same_tables(header, p[0]):  # type: ignore[index]
            return None
        segments += p[2]
    return _assemble(header, height, segments) if len(segments) == -(-height // 16) else None


def _segments(data: bytes) -> tuple[bytes, tuple[int, int], list[bytes]] | None:
    """A JPEG of `encode`'s kind cut up: its header (to the scan's start), its (width, height), and the entropy
    data of each MCU row; None when it is not a baseline 4:2:0 JPEG restarting after every MCU row."""
    head = _header(data)
    if head is None or data[-2:] != b"\xff\xd9":
        return None
    end, height_at, dri, width, mcu = head
    if mcu != 16 or dri != -(-width // 16):
        return None
    height = int.from_bytes(data[height_at : height_at + 2], "big")
    scan = data[end:-2]
    segments = _RST.split(scan)
    markers = _RST.findall(scan)
    if any(m[1] != 0xD0 + (k & 7) for k, m in enumerate(markers)):
        return None
    return data[:end], (width, height), segments


def _same_tables(a: bytes, b: bytes) -> bool:
    """Are two headers alike but for the frame's height (the same size of MCU, tables and scan)?"""
    ha, hb = _header(a + b"\xff\xd9"), _header(b + b"\xff\xd9")
    if ha is None or hb is None or ha[0] != hb[0] or ha[1] != hb[1]:
        return False
    at = ha[1]
    return a[:at] == b[:at] and a[at + 2 :] == b[at + 2 :]


def _assemble(header: bytes, height: int, segments: Sequence[bytes]) -> bytes:
    """A JPEG from a header (its height set to `height`) and its MCU rows' entropy data, RSTm between them."""
    at = _header(header + b"\xff\xd9")[1]  # type: ignore[index]
    pieces = [header[:at], height.to_bytes(2, "big"), header[at + 2 :]]
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
