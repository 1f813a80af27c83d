"""A frame's JPEG encoded in two halves at once (`ui.jpegsplit`): byte for byte Pillow's whole encoding with a
restart marker between the halves, the plain encoding's pixels, and a whole encoding wherever the halves cannot be
spliced."""

from __future__ import annotations

import io
import os
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
def test_the_spliced_file_is_pillows_whole_encoding_with_a_restart_marker_between_the_halves(w, h, quality):
    img = _frame(w, h, seed=w + h)
    data = jpegsplit.encode(img, quality)
    assert data == jpegsplit.save(img, quality, _half(h))
    assert data.count(b"\xff\xd0") >= 1 and b"\xff\xdd\x00\x04" in data  # RST0 and a DRI segment
    assert _pixels_equal(data, jpegsplit.save(img, quality)), "a restart marker changes no pixel"
    assert len(data) < len(jpegsplit.save(img, quality)) * 1.001, "a marker, its padding, a DC coded afresh"


def test_a_frame_under_the_split_size_is_a_plain_jpeg() -> None:
    img = _frame(640, 16 * (jpegsplit.SPLIT_MIN_ROWS - 1))  # one MCU row short
    data = jpegsplit.encode(img, 80)
    assert data == jpegsplit.save(img, 80) and b"\xff\xdd" not in data


def test_halves_that_are_not_one_frames_are_not_spliced() -> None:
    img = _frame(1080, 2400)
    h, half = img.height, _half(img.height)
    cut = half * 16
    top = jpegsplit.save(img.crop((0, 0, 1080, cut)), 80, half)
    bottom = jpegsplit.save(img.crop((0, cut, 1080, h)), 80, half)
    assert jpegsplit.splice(top, bottom, h, half) == jpegsplit.save(img, 80, half)
    other_quality = jpegsplit.save(img.crop((0, cut, 1080, h)), 70, half)
    assert jpegsplit.splice(top, other_quality, h, half) is None, "different tables"
    no_marker = jpegsplit.save(img.crop((0, cut, 1080, h)), 80)
    assert jpegsplit.splice(top, no_marker, h, half) is None, "no restart interval"
    too_tall = jpegsplit.save(img.crop((0, 0, 1080, cut + 32)), 80, half)
    assert jpegsplit.splice(too_tall, bottom, h, half) is None, "a half of more than one restart segment"
    assert jpegsplit.splice(b"not a jpeg", bottom, h, half) is None


def test_a_pillow_that_writes_no_restart_marker_gets_a_whole_encoding(monkeypatch: pytest.MonkeyPatch) -> None:
    img = _frame(1080, 2400)
    plain = jpegsplit.save(img, 80)
    monkeypatch.setattr(jpegsplit, "save", lambda im, q, rows=0: plain if im is img else b"\xff\xd8garbage\xff\xd9")
    assert jpegsplit.encode(img, 80) == plain


def test_frames_encoded_from_several_threads_at_once_are_each_their_own() -> None:
    frames = [_frame(720, 1600, seed=i) for i in range(6)]
    expected = [jpegsplit.save(f, 80, _half(f.height)) for f in frames]
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
