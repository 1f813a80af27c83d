"""A frame's JPEG in restart segments, one per MCU row (`ui.jpegsplit`): its halves encoded at once, byte for byte
Pillow's whole encoding with a restart marker after every MCU row, the plain encoding's pixels, and a whole encoding
wherever the halves cannot be spliced; a frame that differs from the one before in some bands patched from that
frame's JPEG, byte for byte its own encoding."""

from __future__ import annotations

import io
import os
import random
import threading

import pytest
from PIL import Image, ImageChops, ImageDraw

from emulator.virtual.ui import jpegsplit


def _frame(w: int, h: int, seed: int = 0) -> Image.Image:
    """Text, gradients and hard edges across the frame, so every MCU row codes something of its own."""
    img = Image.new("RGB", (w, h), (250, 250, 245))
    draw = ImageDraw.Draw(img)
    for y in range(0, h, 37):
        draw.rectangle((0, y, w, y + 9), fill=((y * 7 + seed) % 256, (y * 3) % 256, (seed * 11 + y) % 256))
        draw.text((5 + seed % 13, y + 12), f"row {y} ·{seed}", fill=(20, 20, 20))
    for x in range(0, w, 53):
        draw.line((x, 0, w - x, h), fill=(x % 256, 90, 200), width=3)
    return img


def _pixels_equal(a: bytes, b: bytes) -> bool:
    ia, ib = Image.open(io.BytesIO(a)), Image.open(io.BytesIO(b))
    return ia.size == ib.size and ImageChops.difference(ia.convert("RGB"), ib.convert("RGB")).getbbox() is None


def _half(h: int) -> int:
    return (-(-h // 16) + 1) // 2


def _cut(img: Image.Image, top: int, bottom: int, rows: int = 1) -> bytes:
    return jpegsplit.save(img.crop((0, top, img.width, bottom)), 80, rows)


@pytest.mark.parametrize(
    ("w", "h", "quality"),
    [
        (1080, 2400, 80),  # the default screen: 150 MCU rows, an even split
        (1080, 2424, 80),  # 151.5 rows: the bottom half ends in a partial MCU row
        (720, 1280, 50),
        (1080, 2400, 100),
        (1079, 2401, 80),  # neither side a whole MCU
        (640, 16 * jpegsplit.SPLIT_MIN_ROWS, 80),  # exactly the smallest split frame
    ],
)
def test_the_spliced_file_is_pillows_whole_encoding_with_a_restart_marker_after_every_mcu_row(w, h, quality):
    img = _frame(w, h, seed=w + h)
    data = jpegsplit.encode(img, quality)
    assert data == jpegsplit.save(img, quality, 1)
    rows = -(-h // 16)
    assert sum(data.count(bytes((0xFF, m))) for m in range(0xD0, 0xD8)) == rows - 1  # RST0..RST7 between rows
    assert b"\xff\xdd\x00\x04" + (-(-w // 16)).to_bytes(2, "big") in data  # DRI: one MCU row
    assert _pixels_equal(data, jpegsplit.save(img, quality)), "a restart marker changes no pixel"
    assert len(data) < len(jpegsplit.save(img, quality)) * 1.02, "a marker, its padding, a DC coded afresh a row"


def test_a_frame_under_the_split_size_is_a_plain_jpeg() -> None:
    img = _frame(640, 16 * (jpegsplit.SPLIT_MIN_ROWS - 1))  # one MCU row short
    data = jpegsplit.encode(img, 80)
    assert data == jpegsplit.save(img, 80) and b"\xff\xdd" not in data


def test_stripes_that_are_not_one_frames_are_not_spliced() -> None:
    img = _frame(1080, 2400)
    h, cut = img.height, _half(img.height) * 16
    top, bottom = _cut(img, 0, cut), _cut(img, cut, h)
    assert jpegsplit.splice([top, bottom], h) == jpegsplit.save(img, 80, 1)
    assert jpegsplit.splice([_cut(img, 0, 512), _cut(img, 512, 1024), _cut(img, 1024, h)], h) == jpegsplit.encode(
        img, 80
    )
    assert jpegsplit.splice([top, jpegsplit.save(img.crop((0, cut, 1080, h)), 70, 1)], h) is None, "other tables"
    assert jpegsplit.splice([top, jpegsplit.save(img.crop((0, cut, 1080, h)), 80)], h) is None, "no restarts"
    assert jpegsplit.splice([top, _cut(img, cut, h, 2)], h) is None, "a restart every two rows"
    assert jpegsplit.splice([top, _cut(img, cut + 16, h)], h) is None, "a row short"
    assert jpegsplit.splice([b"not a jpeg", bottom], h) is None


@pytest.mark.parametrize(("w", "h"), [(1080, 2400), (1080, 2424), (1079, 2401), (720, 1280)])
def test_a_frame_patched_from_the_one_before_is_its_own_encoding(w, h):
    before = _frame(w, h, seed=1)
    old = jpegsplit.encode(before, 80)
    rnd = random.Random(w * h)
    rows = -(-h // 16)
    for _ in range(6):
        bands: list[tuple[int, int]] = []
        top = rnd.randrange(rows)
        while top < rows:
            end = min(rows, top + rnd.randrange(1, 24))
            bands.append((top * 16, min(h, end * 16)))
            top = end + rnd.randrange(1, 40)
        after = before.copy()
        draw = ImageDraw.Draw(after)
        for t, b in bands:  # changes inside the bands only, up to their edges
            draw.rectangle((rnd.randrange(w // 2), t, w - 1, b - 1), fill=(rnd.randrange(256), 40, 99))
        assert jpegsplit.patch(old, after, bands, 80) == jpegsplit.save(after, 80, 1), bands


def test_what_cannot_be_patched_is_none() -> None:
    img = _frame(1080, 2400)
    old = jpegsplit.encode(img, 80)
    assert jpegsplit.patch(jpegsplit.save(img, 80), img, [(0, 64)], 80) is None, "the old file has no restarts"
    assert jpegsplit.patch(old, img.crop((0, 0, 1080, 2384)), [(0, 64)], 80) is None, "another size"
    assert jpegsplit.patch(old, img, [(8, 64)], 80) is None, "a band off the MCU rows"
    assert jpegsplit.patch(old, img, [], 80) is None
    assert jpegsplit.patch(old, img, [(0, 64)], 70) is None, "another quality: other tables"
    assert jpegsplit.patch(b"\xff\xd8junk\xff\xd9", img, [(0, 64)], 80) is None


def test_a_pillow_that_writes_no_restart_marker_gets_a_whole_encoding(monkeypatch: pytest.MonkeyPatch) -> None:
    img = _frame(1080, 2400)
    plain = jpegsplit.save(img, 80)
    monkeypatch.setattr(jpegsplit, "save", lambda im, q, rows=0: plain if im is img else b"\xff\xd8garbage\xff\xd9")
    assert jpegsplit.encode(img, 80) == plain


def test_frames_encoded_from_several_threads_at_once_are_each_their_own() -> None:
    frames = [_frame(720, 1600, seed=i) for i in range(6)]
    expected = [jpegsplit.save(f, 80, 1) for f in frames]
    got: dict[int, bytes] = {}

    def run(i: int) -> None:
        got[i] = jpegsplit.encode(frames[i], 80)

    threads = [threading.Thread(target=run, args=(i,)) for i in range(len(frames))]
    for t in threads:
        t.start()
    for t in threads:
        t.join(30)
    assert [got[i] for i in range(len(frames))] == expected


@pytest.mark.skipif(not hasattr(os, "fork"), reason="needs fork")
def test_a_forked_child_encodes_with_its_own_helper_thread() -> None:
    img = _frame(720, 1600)
    expected = jpegsplit.encode(img, 80)  # the parent's helper thread exists now
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: its copy of the executor has no thread behind it
        try:
            os.write(w, b"1" if jpegsplit.encode(img, 80) == expected else b"0")
        finally:
            os._exit(0)
    os.close(w)
    try:
        assert os.read(r, 1) == b"1"
    finally:
        os.close(r)
        os.waitpid(pid, 0)


def test_a_patch_reads_the_same_from_a_jpeg_it_assembled_as_from_its_copy() -> None:
    before = _frame(1080, 2400, seed=3)
    old = jpegsplit.encode(before, 80)
    copy = bytes(bytearray(old))  # equal bytes, another object: cut up again
    after = before.copy()
    ImageDraw.Draw(after).rectangle((10, 320, 900, 1500), fill=(200, 10, 10))
    bands = [(320, 512), (512, 1504)]
    expected = jpegsplit.save(after, 80, 1)
    assert jpegsplit.patch(copy, after, bands, 80) == expected
    assert jpegsplit.patch(old, after, bands, 80) == expected
    twice = jpegsplit.patch(jpegsplit.patch(old, after, bands, 80) or b"", before, bands, 80)
    assert twice == jpegsplit.save(before, 80, 1), "patched from a patch it assembled"


@pytest.mark.parametrize(
    ("bands", "mine", "theirs"),
    [
        ([(0, 64)], [(0, 64)], []),  # under SPLIT_MIN_BAND rows: one encoder
        ([(0, 256)], [(0, 128)], [(128, 256)]),
        ([(0, 160), (320, 480)], [(0, 160)], [(320, 480)]),
        ([(0, 64), (320, 640)], [(0, 64), (320, 448)], [(448, 640)]),
        ([(2384, 2400), (0, 128)], [(2384, 2400), (0, 48)], [(48, 128)]),
        ([(2400, 2410), (0, 128)], [(2400, 2410), (0, 48)], [(48, 128)]),  # a last band of 10 rows
    ],
)
def test_the_rows_patched_are_shared_between_two_encoders(bands, mine, theirs) -> None:
    assert jpegsplit.halves(bands) == (mine, theirs)
