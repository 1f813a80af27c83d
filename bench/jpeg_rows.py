"""JPEG of a frame re-encoded by MCU rows (`emulator.virtual.ui.jpegrows`) against a whole encode, on 1080x2400 frames
of the virtual device at quality 80 (what the harness asks uiautomator2 for).

Frames: the Settings app's first screen, with a band of rows replaced by the home screen's rows (real content on
both sides). For one band in the middle, of 1 to 100% of the height, it prints ms per frame side by side:
`frames.encode_jpeg` (the device's encoding today, no restart markers), `RowJpeg.encode` (whole, with a restart
marker per MCU row, split into rows), `updated` re-encoding the band (the whole-encode fallback off, to show the
crossover) and `updated` as it is (with the fallback at `WHOLE_ENCODE_SHARE`), with the band's cost as a share of
each whole encode. Then the same changed rows as 1 band or as k bands spread over the frame (an encode's fixed
cost), and the splice/assemble overhead alone: parsing a whole file into rows, splicing a row list, assembling
the bytes, one MCU row's update. Median of `--repeat` runs each.
Prints figures; no asserts.

    python bench/jpeg_rows.py [--repeat 15] [--quality 80]
"""

from __future__ import annotations

import argparse
import functools
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from PIL import Image  # noqa: E402

from emulator.virtual.model import VirtualDeviceModel  # noqa: E402
from emulator.virtual.ui import jpegrows  # noqa: E402
from emulator.virtual.ui.frames import encode_jpeg  # noqa: E402
from emulator.virtual.ui.jpegrows import RowJpeg  # noqa: E402


def ms(fn: Callable[[], object], repeat: int) -> float:
    times = []
    for _ in range(repeat):
        t = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t)
    return statistics.median(times) * 1000


def frames() -> tuple[Image.Image, Image.Image]:
    m = VirtualDeviceModel(clock="virtual")
    home = m.screenshot().copy()
    m.start_activity("com.android.settings")
    return m.screenshot().copy(), home


def update(jpeg: RowJpeg, img: Image.Image, bands: list[tuple[int, int]]) -> bytes:
    return jpeg.updated(img, bands).data


def encode_rows(img: Image.Image, quality: int) -> bytes:
    return RowJpeg.encode(img, quality).data


def changed(base: Image.Image, other: Image.Image, bands: list[tuple[int, int]]) -> Image.Image:
    out = base.copy()
    for y0, y1 in bands:
        out.paste(other.crop((0, y0, base.width, y1)), (0, y0))
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--repeat", type=int, default=15)
    ap.add_argument("--quality", type=int, default=80)
    args = ap.parse_args()
    r, q = args.repeat, args.quality
    a, home = frames()
    w, h = a.size
    base = RowJpeg.encode(a, q)
    plain = encode_jpeg(a, 1.0, q)
    print(f"{w}x{h} quality {q}: MCU rows of {base.mcu_height} px, {len(base.segments)} rows; median of {r} runs")
    print(f"bytes: {len(plain)} without restart markers, {len(base.data)} with (+{len(base.data) - len(plain)})")
    print(
        f"whole encode: encode_jpeg {ms(lambda: encode_jpeg(a, 1.0, q), r):.2f} ms, "
        f"RowJpeg.encode {ms(lambda: RowJpeg.encode(a, q), r):.2f} ms"
    )
    print()
    print(
        f"{'band':>6} {'rows':>5} {'encode_jpeg':>12} {'RowJpeg.encode':>15} {'updated (band)':>15} "
        f"{'updated':>8} {'band/encode_jpeg':>17} {'band/RowJpeg.encode':>20}"
    )
    share = jpegrows.WHOLE_ENCODE_SHARE
    for pct in (1, 10, 25, 50, 75, 80, 85, 90, 100):
        n = max(1, h * pct // 100)
        y0 = (h - n) // 2
        bands = [(y0, y0 + n)]
        b = changed(a, home, bands)
        whole = ms(functools.partial(encode_jpeg, b, 1.0, q), r)
        row_whole = ms(functools.partial(encode_rows, b, q), r)
        jpegrows.WHOLE_ENCODE_SHARE = 2.0
        try:
            forced = ms(functools.partial(update, base, b, bands), r)
        finally:
            jpegrows.WHOLE_ENCODE_SHARE = share
        chosen = ms(functools.partial(update, base, b, bands), r)
        rows = sum(r1 - r0 for r0, r1 in base.mcu_runs(bands))
        print(
            f"{pct:>5}% {rows:>5} {whole:>12.2f} {row_whole:>15.2f} {forced:>15.2f} {chosen:>8.2f} "
            f"{forced / whole:>17.2f} {forced / row_whole:>20.2f}"
        )
    print()
    print("the same rows changed, as 1 band or as k bands of equal rows spread over the frame (ms per frame):")
    print(f"{'rows':>5} {'k=1':>7} {'k=2':>7} {'k=5':>7} {'k=10':>7}")
    mh = base.mcu_height
    for rows in (10, 20, 40):
        cells = []
        for k in (1, 2, 5, 10):
            per = rows // k
            step = len(base.segments) // k
            bands = [(i * step * mh, (i * step + per) * mh) for i in range(k)]
            b = changed(a, home, bands)
            cells.append(ms(functools.partial(update, base, b, bands), r))
        print(f"{rows:>5} " + " ".join(f"{c:>7.2f}" for c in cells))
    print()
    data = base.data
    segments = list(base.segments)
    print("overhead alone (ms):")
    print(f"  parse a whole file into rows (split, checks): {ms(lambda: RowJpeg.parse(data, q), r * 4):.3f}")
    ten = segments[70:80]
    splice = ms(lambda: segments.__setitem__(slice(70, 80), ten), r * 4)
    print(f"  splice 10 rows into the row list:             {splice:.4f}")
    fresh = [RowJpeg(base.header, base.segments, base.size, q, mh, base.height_at) for _ in range(r * 4)]
    print(f"  assemble the file's bytes from the rows:      {ms(lambda: fresh.pop().data, r * 4):.3f}")
    b = changed(a, home, [(0, mh)])
    one = ms(lambda: update(base, b, [(0, 1)]), r * 4)
    print(f"  updated() of one MCU row (crop, encode, parse, check, splice, assemble): {one:.3f}")


if __name__ == "__main__":
    main()
