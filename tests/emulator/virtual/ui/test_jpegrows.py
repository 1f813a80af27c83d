"""ui/jpegrows: a frame's JPEG re-encoded only in the MCU rows that changed is, byte for byte, the JPEG of the whole
new frame (Pillow's own with a restart marker after every MCU row), and decodes to the pixels of the plain JPEG;
files that cannot be split into MCU rows are refused."""

from __future__ import annotations

import io
from collections.abc import Callable, Iterator

import numpy as np
import pytest
from PIL import Image, ImageDraw

from emulator.virtual.model import VirtualDeviceModel
from emulator.virtual.ui import jpegrows
from emulator.virtual.ui.frames import encode_jpeg
from emulator.virtual.ui.jpegrows import RowJpeg

Bands = list[tuple[int, int]]
SIZES = [(1080, 2400), (720, 1280), (1080, 2340), (1080, 2401), (721, 1283)]
QUALITIES = [80, 50, 95, 100]


def picture(w: int, h: int, seed: int = 0) -> Image.Image:
    """Gradients, noisy patches and text: every kind of MCU a screen has, flat ones included."""
    rng = np.random.default_rng(seed)
    x = np.arange(w, dtype=np.int32)[None, :]
    y = np.arange(h, dtype=np.int32)[:, None]
    arr = np.empty((h, w, 3), np.uint8)
    arr[..., 0] = (x * 255 // max(1, w - 1)).astype(np.uint8)
    arr[..., 1] = (y * 255 // max(1, h - 1)).astype(np.uint8)
    arr[..., 2] = ((x + 3 * y) % 256).astype(np.uint8)
    for _ in range(12):
        x0, y0 = int(rng.integers(0, w)), int(rng.integers(0, h))
        x1, y1 = min(w, x0 + int(rng.integers(1, 200))), min(h, y0 + int(rng.integers(1, 200)))
        arr[y0:y1, x0:x1] = rng.integers(0, 256, (y1 - y0, x1 - x0, 3), dtype=np.uint8)
    arr[h // 3 : h // 3 + 40, :] = 250  # a flat strip, as most of a screen is
    img = Image.fromarray(arr)
    draw = ImageDraw.Draw(img)
    for i in range(0, h, 97):
        draw.text((5 + i % 50, i), f"row {i} of a test frame", fill=(i % 256, 20, 200))
    return img


def changed(img: Image.Image, bands: Bands) -> Image.Image:
    """`img` with part of every row of each band inverted (255 - v differs from v for every v): the pixels differ in
    every row of every band, and nowhere else."""
    arr = np.array(img)
    w = img.width
    for i, (y0, y1) in enumerate(bands):
        x0 = (37 * i) % w
        x1 = min(w, x0 + max(1, w // 3))
        arr[y0:y1, x0:x1] = 255 - arr[y0:y1, x0:x1]
    return Image.fromarray(arr)


def pillow_rows(img: Image.Image, quality: int) -> bytes:
    buf = io.BytesIO()
    img.save(buf, format="JPEG", quality=quality, restart_marker_rows=1)
    return buf.getvalue()


def decoded(data: bytes) -> bytes:
    with Image.open(io.BytesIO(data)) as im:
        return im.convert("RGB").tobytes()


def band_sets(h: int) -> Iterator[Bands]:
    mid = h // 2
    yield [(0, 5)]  # the top, not MCU-aligned
    yield [(h - 7, h)]  # the bottom (h may not be a multiple of 16)
    yield [(mid, mid + 1)]  # one pixel row
    yield [(32, 64)]  # MCU-aligned
    yield [(3, 20), (100, 101), (mid - 9, mid + 30)]  # several, unaligned
    yield [(40, 60), (50, 70), (70, 80), (h - 20, h - 19)]  # overlapping, adjacent, and one far off
    yield [(mid + 200, mid + 300), (10, 11)]  # out of order
    yield [(0, h // 2)]  # half the image
    yield [(0, h - 10)]  # most of it: a whole encode


@pytest.mark.parametrize("quality", QUALITIES)
@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_a_band_update_is_the_whole_frames_jpeg_byte_for_byte(size: tuple[int, int], quality: int) -> None:
    a = picture(*size, seed=size[1] + quality)
    old = RowJpeg.encode(a, quality)
    assert old.data == pillow_rows(a, quality)
    for bands in band_sets(size[1]):
        b = changed(a, bands)
        new = old.updated(b, bands)
        whole = RowJpeg.encode(b, quality)
        assert new.data == whole.data == pillow_rows(b, quality), bands
        assert new.data != old.data, bands  # the change shows: the comparison above can fail
        assert new.segments == whole.segments and new.header == old.header


@pytest.mark.parametrize("quality", QUALITIES)
@pytest.mark.parametrize("size", [(1080, 2400), (1080, 2401), (721, 1283)], ids=lambda s: f"{s[0]}x{s[1]}")
def test_restart_markers_change_no_pixel(size: tuple[int, int], quality: int) -> None:
    a = picture(*size, seed=7)
    bands = [(size[1] - 3, size[1]), (100, 117)]
    b = changed(a, bands)
    new = RowJpeg.encode(a, quality).updated(b, bands)
    plain = encode_jpeg(b, 1.0, quality)
    assert new.data != plain  # the markers are there ...
    assert decoded(new.data) == decoded(plain)  # ... and change no coefficient


def test_a_band_not_reported_shows_in_the_bytes() -> None:
    a = picture(1080, 2400, seed=3)
    b = changed(a, [(500, 510), (1500, 1501)])
    stale = RowJpeg.encode(a, 80).updated(b, [(500, 510)])  # the change at row 1500 left out
    assert stale.data != RowJpeg.encode(b, 80).data
    assert decoded(stale.data) != decoded(RowJpeg.encode(b, 80).data)


@pytest.mark.parametrize("quality", [1, 50, 80, 95, 100])
def test_pillow_writes_a_restart_interval_of_one_mcu_row_and_subsamples_420(quality: int) -> None:
    img = picture(1080, 2400)
    data = pillow_rows(img, quality)
    assert b"\xff\xdd\x00\x04\x00\x44" in data  # DRI: 68 MCUs = ceil(1080 / 16), one MCU row
    # SOF0: 8 bits, 2400 x 1080, Y sampled 2x2, Cb and Cr 1x1 (4:2:0) at every quality
    assert b"\xff\xc0\x00\x11\x08\x09\x60\x04\x38\x03\x01\x22\x00\x02\x11\x01\x03\x11\x01" in data
    jpeg = RowJpeg.encode(img, quality)
    assert jpeg.mcu_height == 16 and len(jpeg.segments) == 150 and jpeg.size == (1080, 2400)


def test_no_band_is_the_same_jpeg_with_no_encode(monkeypatch: pytest.MonkeyPatch) -> None:
    a = picture(720, 1280)
    old = RowJpeg.encode(a, 80)

    def refuse(*args: object, **kwargs: object) -> None:
        raise AssertionError("encoded")

    monkeypatch.setattr(Image.Image, "save", refuse)
    assert old.updated(a, []) is old
    assert old.updated(a, [(5, 5), (1280, 1280)]) is old  # empty bands
    assert old.data is old.data  # assembled once


def counting_saves(monkeypatch: pytest.MonkeyPatch) -> list[tuple[int, int]]:
    sizes: list[tuple[int, int]] = []
    save: Callable[..., None] = Image.Image.save

    def counted(self: Image.Image, *args: object, **kwargs: object) -> None:
        sizes.append(self.size)
        save(self, *args, **kwargs)

    monkeypatch.setattr(Image.Image, "save", counted)
    return sizes


def test_one_crop_and_encode_per_merged_run(monkeypatch: pytest.MonkeyPatch) -> None:
    a = picture(1080, 2400, seed=5)
    old = RowJpeg.encode(a, 80)
    bands = [(3, 20), (20, 40), (600, 601), (33, 35), (2390, 2400)]
    assert old.mcu_runs(bands) == [(0, 3), (37, 38), (149, 150)]
    b = changed(a, bands)
    sizes = counting_saves(monkeypatch)
    new = old.updated(b, bands)
    assert sizes == [(1080, 48), (1080, 16), (1080, 16)]
    assert new.data == pillow_rows(b, 80)
    sizes.clear()
    most = int(2400 * jpegrows.WHOLE_ENCODE_SHARE) + 1  # most of the frame: one whole encode
    whole = old.updated(b, [(0, most)])
    assert sizes == [(1080, 2400)] and whole.data == RowJpeg.encode(b, 80).data
    c = changed(a, [(0, most - 32)])
    sizes.clear()
    less = old.updated(c, [(0, most - 32)])  # a little less: one band
    assert sizes == [(1080, most - 32 + (-most) % 16)] and less.data == pillow_rows(c, 80)


def test_mcu_runs_align_merge_and_refuse_bands_outside() -> None:
    jpeg = RowJpeg.encode(picture(100, 2401), 80)
    assert len(jpeg.segments) == 151 and jpeg.mcu_height == 16
    assert jpeg.mcu_runs([]) == []
    assert jpeg.mcu_runs([(16, 32)]) == [(1, 2)]  # aligned: that row alone
    assert jpeg.mcu_runs([(15, 17)]) == [(0, 2)]
    assert jpeg.mcu_runs([(2400, 2401)]) == [(150, 151)]  # the last row, one pixel high
    assert jpeg.mcu_runs([(0, 16), (32, 48)]) == [(0, 3)]  # one row apart: merged (MERGE_GAP_ROWS)
    assert jpeg.mcu_runs([(0, 16), (48, 64)]) == [(0, 1), (3, 4)]
    assert jpeg.mcu_runs([(100, 200), (0, 1), (150, 160)]) == [(0, 1), (6, 13)]
    for bad in [(-1, 5), (5, 4), (0, 2402)]:
        with pytest.raises(ValueError, match="not within rows"):
            jpeg.mcu_runs([bad])
    with pytest.raises(ValueError, match="frame is 100x2400"):
        jpeg.updated(picture(100, 2400), [(0, 1)])


def test_other_modes_are_encoded_as_rgb() -> None:
    a = picture(333, 170, seed=2)
    rgba = a.convert("RGBA")
    bands = [(40, 41)]
    b = changed(a, bands)
    new = RowJpeg.encode(rgba, 80).updated(b.convert("RGBA"), bands)
    assert new.data == RowJpeg.encode(b, 80).data
    assert RowJpeg.encode(a, 180).data == RowJpeg.encode(a, 100).data  # quality clamped as encode_jpeg clamps it


def test_parsing_round_trips_and_assembles_the_same_bytes() -> None:
    data = pillow_rows(picture(721, 1283, seed=9), 95)
    jpeg = RowJpeg.parse(data, 95)
    rebuilt = RowJpeg(jpeg.header, jpeg.segments, jpeg.size, 95, jpeg.mcu_height, jpeg.height_at)
    assert rebuilt.data == data and bytes(rebuilt) == data
    assert len(jpeg.segments) == 81 and not any(b"\xff\xd0" in s or b"\xff\xd7" in s for s in jpeg.segments)
    gray = io.BytesIO()
    picture(721, 100).convert("L").save(gray, format="JPEG", quality=80, restart_marker_rows=1)
    one = RowJpeg.parse(gray.getvalue(), 80)  # one component: 8 x 8 MCUs
    assert one.mcu_height == 8 and len(one.segments) == 13 and one.data == gray.getvalue()


def save(img: Image.Image, **kwargs: object) -> bytes:
    buf = io.BytesIO()
    img.save(buf, format="JPEG", **kwargs)
    return buf.getvalue()


def test_what_cannot_be_split_by_rows_is_refused() -> None:
    img = picture(200, 100, seed=4)
    good = save(img, quality=80, restart_marker_rows=1)
    refused = {
        "no restart interval": save(img, quality=80),
        "restart interval is 1 MCUs": save(img, quality=80, restart_marker_blocks=1),
        "not a baseline JPEG": save(img, quality=80, progressive=True, restart_marker_rows=1),
        "not a JPEG": b"\x89PNG\r\n",
        "does not end with EOI": good[:-2],
        "no SOS": good[: good.index(b"\xff\xda")],
        "FFC4 at byte [0-9]+ is cut short": good[:300],
        "marker 2 is FFD3, not RST2": good.replace(b"\xff\xd2", b"\xff\xd3", 1),
        "6 restart segments, not one per MCU row \\(7\\)": good.replace(b"\xff\xd5", b"", 1),
        "8 restart segments": good[:-2] + b"\xff\xd6\x00\xff\xd9",
        "marker 0 is FFD9": good.replace(b"\xff\xd0", b"\xff\xd9", 1),
        "sampling factors": good.replace(b"\x03\x01\x22\x00", b"\x03\x01\x20\x00", 1),
    }
    for message, data in refused.items():
        with pytest.raises(ValueError, match=message):
            RowJpeg.parse(data, 80)
    other_quality = RowJpeg.parse(good, 50)  # the file is quality 80's: its bands would not fit
    with pytest.raises(ValueError, match="other tables"):
        other_quality.updated(changed(img, [(0, 1)]), [(0, 1)])
    with pytest.raises(ValueError, match="header changed"):
        other_quality.updated(changed(img, [(0, 100)]), [(0, 100)])


def diff_bands(a: Image.Image, b: Image.Image) -> Bands:
    """The runs of pixel rows where two frames differ."""
    rows = np.flatnonzero((np.asarray(a) != np.asarray(b)).any(axis=(1, 2)))
    if not len(rows):
        return []
    cuts = np.flatnonzero(np.diff(rows) > 1) + 1
    return [(int(run[0]), int(run[-1]) + 1) for run in np.split(rows, cuts)]


def test_the_devices_frames() -> None:
    m = VirtualDeviceModel(clock="virtual")
    shots = [m.screenshot().copy()]
    assert decoded(RowJpeg.encode(shots[0], 80).data) == decoded(m.screenshot_jpeg(1.0, 80))  # the device's pixels
    m.start_activity("com.android.settings")
    shots.append(m.screenshot().copy())
    m.tap(540, 600)
    shots.append(m.screenshot().copy())
    m.go_home()
    shots.append(m.screenshot().copy())  # most of the screen changes: a whole encode
    drawn = shots[-1].copy()
    ImageDraw.Draw(drawn).rectangle((100, 1000, 700, 1010), fill=(255, 0, 0))
    ImageDraw.Draw(drawn).text((30, 2380), "hello", fill=(0, 0, 0))
    shots.append(drawn)
    jpeg = RowJpeg.encode(shots[0], 80)
    for before, after in zip(shots, shots[1:], strict=False):
        bands = diff_bands(before, after)
        assert bands, "two frames alike: nothing tested"
        jpeg = jpeg.updated(after, bands)
        assert jpeg.data == pillow_rows(after, 80), bands
    assert sum(r1 - r0 for r0, r1 in jpeg.mcu_runs(diff_bands(shots[-2], shots[-1]))) < 0.1 * len(jpeg.segments)
