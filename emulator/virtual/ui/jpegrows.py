"""A baseline JPEG kept as one entropy-coded segment per MCU row, so that a frame which changed in a few bands of
rows is encoded again only there.

Facts (ITU T.81, JFIF): a baseline sequential scan (SOF0, one scan of every component) codes the image in MCUs -
minimum coded units, 8 x 8 pixels times the largest sampling factors (16 x 16 with 4:2:0 chroma, which Pillow
picks at every quality) - left to right, top to bottom. A restart interval (the DRI marker: Ri MCUs) cuts the
scan's entropy-coded data into segments: after every Ri MCUs the encoder pads the bits to a byte with 1s, writes
RSTm (FFD0..FFD7, m counting modulo 8) and resets every DC prediction to 0. Each segment thus depends on nothing
before it. With Ri = the MCUs of one MCU row (Pillow's `restart_marker_rows=1`) one segment is one MCU row,
whose bytes depend only on its pixels, the quantization tables (a function of the quality alone) and the Huffman
tables (T.81 annex K's, since nothing is optimized). So a band of whole MCU rows encoded alone, full width, gives
the very segments the whole image's encoding holds for those rows: the chroma is averaged over 2 x 2 pixels, never
across MCU rows, and the last MCU row is filled out by repeating the bottom pixel row in both encodings. A 0xFF
byte of entropy-coded data is always followed by a stuffed 0x00, so FFD0..FFD7 in a scan are always restart
markers: the segments are split at C speed with a regular expression.

Restart markers change no coefficient: a decoder gives the same pixels as for the JPEG of the same image without
them (what `frames.encode_jpeg` writes), for two bytes of marker and up to one of padding per MCU row. The bytes
are not `encode_jpeg`'s: they are Pillow's own for `restart_marker_rows=1`.

`RowJpeg.encode(img, quality)` encodes a frame whole; `jpeg.updated(img, bands)` re-encodes only the MCU rows that
bands of changed pixel rows touch (one crop and encode per merged run of rows) and splices them in; `jpeg.data` is
the file. Whatever is parsed is checked (baseline, a DRI of one MCU row, one segment per MCU row, the restart
markers in order, a band's tables the same as the frame's): a JPEG this module cannot splice raises ValueError
rather than give a wrong image.
"""

from __future__ import annotations

import functools
import io
import re
from collections.abc import Iterable

from PIL import Image

# re-encoded MCU rows at or above this share of the image: one whole encode instead (bench/jpeg_rows.py)
WHOLE_ENCODE_SHARE = 0.85
# runs of changed MCU rows this close are encoded as one: one more encode costs about what one more MCU row does
# (~0.04 ms at 1080 pixels wide, bench/jpeg_rows.py)
MERGE_GAP_ROWS = 1

_SOI, _EOI = b"\xff\xd8", b"\xff\xd9"
_RST = tuple(bytes((0xFF, 0xD0 + m)) for m in range(8))
_RST_MARKER = re.compile(rb"\xff[\xd0-\xd7]")
_ANY_MARKER = re.compile(rb"\xff[^\x00]")
_SOF0, _DHT, _SOS, _DRI = 0xC0, 0xC4, 0xDA, 0xDD
_OTHER_SOF = frozenset(range(0xC1, 0xD0)) - {_DHT, 0xC8, 0xCC}  # not baseline: extended, progressive, lossless...
_NO_LENGTH = frozenset(range(0xD0, 0xDA)) | {0x01, 0xFF}  # RSTm, SOI, EOI, TEM: markers without a segment


class _Parsed:
    """What a Pillow JPEG with a restart interval of one MCU row holds."""

    __slots__ = ("header", "segments", "size", "mcu_height", "height_at")

    def __init__(
        self, header: bytes, segments: list[bytes], size: tuple[int, int], mcu_height: int, height_at: int
    ) -> None:
        self.header, self.segments, self.size = header, segments, size
        self.mcu_height, self.height_at = mcu_height, height_at


def _parse(data: bytes) -> _Parsed:
    """`data`'s header and per-MCU-row segments, checked: ValueError names what does not fit."""
    if data[:2] != _SOI:
        raise ValueError("not a JPEG: no SOI marker")
    pos, sof, dri = 2, None, None
    height_at = 0
    while True:
        if pos + 4 > len(data):
            raise ValueError("JPEG ends before its scan (no SOS marker)")
        if data[pos] != 0xFF:
            raise ValueError(f"JPEG header: no marker at byte {pos}")
        marker, length = data[pos + 1], int.from_bytes(data[pos + 2 : pos + 4], "big")
        if marker in _NO_LENGTH:
            raise ValueError(f"JPEG header: unexpected marker FF{marker:02X} at byte {pos}")
        body = data[pos + 4 : pos + 2 + length]
        if length < 2 or len(body) != length - 2:
            raise ValueError(f"JPEG header: marker FF{marker:02X} at byte {pos} is cut short")
        if marker in _OTHER_SOF:
            raise ValueError(f"not a baseline JPEG: frame marker FF{marker:02X}")
        if marker == _SOF0:
            if len(body) < 6 or body[0] != 8 or len(body) != 6 + 3 * body[5] or body[5] == 0:
                raise ValueError("JPEG SOF0: not 8-bit samples, or its length does not match its components")
            height_at = pos + 5
            height, width, n = int.from_bytes(body[1:3], "big"), int.from_bytes(body[3:5], "big"), body[5]
            factors = [(body[7 + 3 * c] >> 4, body[7 + 3 * c] & 15) for c in range(n)]
            if not all(1 <= f <= 4 for pair in factors for f in pair):
                raise ValueError(f"JPEG SOF0: sampling factors {factors} are not within 1..4")
            sof = (width, height, n, factors)
        elif marker == _DRI:
            if len(body) != 2:
                raise ValueError("JPEG DRI: length is not 4")
            dri = int.from_bytes(body, "big")
        elif marker == _SOS:
            scan_components = body[0] if body else 0
            pos += 2 + length
            break
        pos += 2 + length
    if sof is None:
        raise ValueError("JPEG has no SOF0 before its scan")
    width, height, n, factors = sof
    if height == 0:
        raise ValueError("JPEG SOF0: height 0 (defined by a DNL marker) is not supported")
    if scan_components != n:
        raise ValueError(f"JPEG scan codes {scan_components} of {n} components (not one interleaved scan)")
    # one component: one 8 x 8 block an MCU (T.81 A.2.2); more: the largest sampling factors' blocks (A.2.3)
    mcu_w = 8 if n == 1 else 8 * max(h for h, _ in factors)
    mcu_h = 8 if n == 1 else 8 * max(v for _, v in factors)
    per_row, rows = -(-width // mcu_w), -(-height // mcu_h)
    if dri is None or dri == 0:
        raise ValueError("JPEG has no restart interval (no DRI marker)")
    if dri != per_row:
        raise ValueError(f"JPEG restart interval is {dri} MCUs, not one MCU row ({per_row})")
    if data[-2:] != _EOI:
        raise ValueError("JPEG does not end with EOI")
    scan = data[pos:-2]
    markers = _ANY_MARKER.findall(scan)  # every 0xFF not stuffed: RST0..RST7 in turn, one fewer than MCU rows
    expected = _rst_sequence(rows - 1)
    if tuple(markers) != expected:
        i = next((i for i, (m, e) in enumerate(zip(markers, expected, strict=False)) if m != e), None)
        if i is not None:
            raise ValueError(
                f"JPEG scan's marker {i} is FF{markers[i][1]:02X}, not RST{i & 7} (FF{0xD0 + (i & 7):02X})"
            )
        raise ValueError(f"JPEG scan has {len(markers) + 1} restart segments, not one per MCU row ({rows})")
    return _Parsed(data[:pos], _RST_MARKER.split(scan), (width, height), mcu_h, height_at)


@functools.lru_cache(maxsize=64)
def _rst_sequence(n: int) -> tuple[bytes, ...]:
    return tuple(_RST[m & 7] for m in range(n))


def _save(img: Image.Image, quality: int) -> bytes:
    buf = io.BytesIO()
    (img if img.mode == "RGB" else img.convert("RGB")).save(buf, format="JPEG", quality=quality, restart_marker_rows=1)
    return buf.getvalue()


class RowJpeg:
    """A frame's baseline JPEG at `quality`: `header` (SOI up to and with SOS) and `segments`, the entropy-coded
    data of each MCU row (`mcu_height` pixel rows; the last may be cut by the image's bottom) without its RSTm
    marker; `height_at` is where the SOF0's height field is in `header` (a band's header differs there only).
    Immutable: `updated` gives a new one, sharing the unchanged segments. Made by `encode` or `parse`."""

    __slots__ = ("header", "segments", "size", "quality", "mcu_height", "height_at", "_data")

    def __init__(
        self,
        header: bytes,
        segments: tuple[bytes, ...],
        size: tuple[int, int],
        quality: int,
        mcu_height: int,
        height_at: int,
        data: bytes | None = None,
    ) -> None:
        self.header, self.segments, self.size, self.quality = header, segments, size, quality
        self.mcu_height, self.height_at, self._data = mcu_height, height_at, data

    @classmethod
    def encode(cls, img: Image.Image, quality: int) -> RowJpeg:
        """`img` (converted to RGB when it is not) encoded whole at `quality` (clamped to 1..100, as
        `frames.encode_jpeg` does), with a restart marker after every MCU row."""
        q = max(1, min(100, quality))
        data = _save(img, q)
        return cls.parse(data, q)

    @classmethod
    def parse(cls, data: bytes, quality: int) -> RowJpeg:
        """A JPEG that Pillow wrote at `quality` with `restart_marker_rows=1`, split into its MCU rows. ValueError
        when it is not such a file; a quality that is not the file's shows at the first `updated` (ValueError)."""
        p = _parse(data)
        return cls(p.header, tuple(p.segments), p.size, quality, p.mcu_height, p.height_at, data)

    @property
    def data(self) -> bytes:
        """The whole file: header, the segments with RST0..RST7 cycling between them, EOI (assembled once)."""
        data = self._data
        if data is None:
            parts = [self.header]
            segments = self.segments
            for i, segment in enumerate(segments[:-1]):
                parts.append(segment)
                parts.append(_RST[i & 7])
            parts.append(segments[-1])
            parts.append(_EOI)
            data = self._data = b"".join(parts)
        return data

    def __bytes__(self) -> bytes:
        return self.data

    def mcu_runs(self, bands: Iterable[tuple[int, int]]) -> list[tuple[int, int]]:
        """The runs [r0, r1) of MCU rows that pixel-row `bands` [y0, y1) touch: sorted, overlapping or adjacent runs
        merged (and runs `MERGE_GAP_ROWS` apart or less). ValueError for a band outside the image or reversed."""
        height, mh = self.size[1], self.mcu_height
        runs: list[tuple[int, int]] = []
        for y0, y1 in bands:
            if not 0 <= y0 <= y1 <= height:
                raise ValueError(f"band [{y0}, {y1}) is not within rows [0, {height})")
            if y0 < y1:
                runs.append((y0 // mh, -(-y1 // mh)))
        runs.sort()
        merged: list[tuple[int, int]] = []
        for r0, r1 in runs:
            if merged and r0 <= merged[-1][1] + MERGE_GAP_ROWS:
                if r1 > merged[-1][1]:
                    merged[-1] = (merged[-1][0], r1)
            else:
                merged.append((r0, r1))
        return merged

    def updated(self, img: Image.Image, bands: Iterable[tuple[int, int]]) -> RowJpeg:
        """The JPEG of `img`, a frame of the same size whose pixels outside pixel-row `bands` [y0, y1) are the ones
        this JPEG was encoded from: only the MCU rows the bands touch are encoded again (one crop and encode per
        merged run), or the whole frame when they are most of it (`WHOLE_ENCODE_SHARE`). No band: this JPEG."""
        if img.size != self.size:
            raise ValueError(f"frame is {img.size[0]}x{img.size[1]}, the JPEG {self.size[0]}x{self.size[1]}")
        runs = self.mcu_runs(bands)
        if not runs:
            return self
        if sum(r1 - r0 for r0, r1 in runs) >= WHOLE_ENCODE_SHARE * len(self.segments):
            whole = RowJpeg.encode(img, self.quality)
            if whole.header != self.header:
                raise ValueError("the frame's JPEG header changed (another quality or sampling)")
            return whole
        (width, height), mh, at = self.size, self.mcu_height, self.height_at
        segments = list(self.segments)
        for r0, r1 in runs:
            y0, y1 = r0 * mh, min(r1 * mh, height)
            band = _parse(_save(img.crop((0, y0, width, y1)), self.quality))
            expected = self.header[:at] + (y1 - y0).to_bytes(2, "big") + self.header[at + 2 :]
            if band.header != expected or band.mcu_height != mh:
                raise ValueError(f"rows [{y0}, {y1}) encode with other tables than the frame (quality {self.quality}?)")
            segments[r0:r1] = band.segments
        return RowJpeg(self.header, tuple(segments), self.size, self.quality, mh, at)
