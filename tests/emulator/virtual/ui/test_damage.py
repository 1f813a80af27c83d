"""Frames drawn as the frame before with only the rows that differ drawn again (`ui.damage`), and their JPEGs patched
from the frame before's (`jpegsplit.patch`): the same pixels and the same bytes as drawing and encoding them whole,
on screens the apps really show (taps, typing, scrolling, dialogs, keyboards), and a whole frame wherever the
planning cannot vouch for its bands."""

from __future__ import annotations

import random

import pytest
from PIL import ImageChops

from emulator.virtual import VirtualDeviceModel
from emulator.virtual.keycodes import KEYCODES
from emulator.virtual.ui import damage, jpegsplit
from emulator.virtual.ui.damage import Drawn, PaintList

APPS = (
    "com.android.settings",
    "com.droidharness.notes",
    "com.droidharness.shop",
    "com.google.android.deskclock",
    "com.google.android.contacts",
)


def _clickables(m: VirtualDeviceModel) -> list[tuple[float, float]]:
    out: list[tuple[float, float]] = []

    def walk(v) -> None:  # noqa: ANN001 - a View
        l, t, r, b = v.bounds
        if v.clickable and r > l and b > t:
            out.append(((l + r) / 2, (t + b) / 2))
        for c in v.children:
            walk(c)

    for root in m.view_roots():
        walk(root)
    return out


def _walk(m: VirtualDeviceModel, seed: int, steps: int = 14) -> int:
    """Taps, typing, swipes and back presses through the apps; every frame compared with its whole drawing and
    encoding. Returns the number of frames compared."""
    rnd = random.Random(seed)
    W, H = m.display_size
    compared = 0
    for pkg in APPS:
        m.start_activity(pkg)
        for _ in range(steps):
            shot = m.screenshot()
            whole = m.ui.frame().draw()
            assert ImageChops.difference(shot, whole).getbbox() is None, (pkg, m.ui.frames.partial)
            assert m.screenshot_jpeg(1.0, 80) == jpegsplit.save(whole, 80, 1)
            del shot, whole  # the cached frame then has no other holder: the next is drawn over it
            compared += 1
            roll = rnd.random()
            targets = _clickables(m)
            if roll < 0.6 and targets:
                m.tap(*rnd.choice(targets))
            elif roll < 0.75 and m.focused_text() is not None:
                m.commit_text(rnd.choice(["a", "hello ", "设置", "12"]))
            elif roll < 0.88:
                m.swipe(W / 2, H * 0.7, W / 2, H * 0.35, 200)
            else:
                m.key(KEYCODES["BACK"])
    return compared


@pytest.mark.parametrize("seed", [1, 2])
def test_frames_drawn_in_bands_are_the_whole_frames_pixels_and_bytes(seed: int) -> None:
    m = VirtualDeviceModel(locale="zh" if seed == 2 else "en")
    assert _walk(m, seed) == 14 * len(APPS)
    cache = m.ui.frames
    assert cache.partial >= 5, cache.partial  # the bands were drawn alone
    assert cache.patched > cache.partial, cache.patched  # and frames drawn whole had JPEGs patched too


def test_a_new_item_drawn_outside_its_predicted_rows_gets_the_whole_frame(monkeypatch: pytest.MonkeyPatch) -> None:
    """Predicting no rows for any view: a frame whose new drawings fall outside its bands is drawn whole again,
    the pixels still the whole frame's (`_walk` compares them)."""
    verdicts: list[bool] = []
    check = damage.Trace.new_items_inside

    def counted(trace: damage.Trace) -> bool:
        verdicts.append(check(trace))
        return verdicts[-1]

    monkeypatch.setattr(damage.Trace, "new_items_inside", counted)
    monkeypatch.setattr(damage, "predict", lambda v, rows, height: (0, 0))
    m = VirtualDeviceModel()
    _walk(m, 3, steps=6)
    assert verdicts.count(False) >= 3  # drawn outside the bands: each of those frames drawn whole
    assert m.ui.frames.partial <= verdicts.count(True)


def _paint(items: list[str], size: tuple[int, int] = (100, 400)) -> PaintList:
    return PaintList(size, tuple(items), tuple(range(1, len(items) + 1)), tuple((0, size[1]) for _ in items))


def test_two_overlapping_items_that_swap_places_are_drawn_again() -> None:
    old = _paint(["fill", "A", "B"])
    drawn = [Drawn(0, 400), Drawn(100, 180), Drawn(140, 220)]
    new = _paint(["fill", "B", "A"])
    new = PaintList(new.size, new.items, new.ends, ((0, 400), (140, 220), (100, 180)))
    planned = damage.plan(old, drawn, new)
    assert planned is not None
    bands, known = planned
    assert known[0] is drawn[0] and sum(k is None for k in known) == 1  # one of the two matched, one drawn anew
    assert any(t <= 100 and 220 <= b for t, b in bands) or any(t <= 140 and 220 <= b for t, b in bands)


def test_a_frame_mostly_changed_is_drawn_whole() -> None:
    old = _paint(["fill", "A"])
    new = PaintList((100, 400), ("fill", "Z"), (1, 2), ((0, 400), (0, 300)))
    planned = damage.plan(old, [Drawn(0, 400), Drawn(0, 300)], new)
    assert planned is not None and planned[0] == [(0, 304)]
    assert not damage.worth_bands(planned[0], 400)  # 304 of 400 rows > MAX_SHARE: drawn in one pass
    assert damage.worth_bands([(0, 240)], 400) and not damage.worth_bands([(0, 128), (200, 320)], 400)
    assert damage.plan(old, [Drawn(0, 400)], new) is None, "the old frame's rows do not match its items"
    other_size = PaintList((100, 416), ("fill", "A"), (1, 2), ((0, 416), (0, 10)))
    assert damage.plan(old, [Drawn(0, 400), Drawn(0, 10)], other_size) is None


def test_bands_are_whole_block_rows_joined_when_close_and_cut_at_the_frame() -> None:
    assert damage.merge([(5, 20)], 2400) == [(0, 32)]
    assert damage.merge([(5, 20), (60, 70)], 2400) == [(0, 80)]  # 16 rows apart: one band
    assert damage.merge([(5, 20), (100, 110)], 2400) == [(0, 32), (96, 112)]  # 64 rows apart: two
    assert damage.merge([(2390, 2410), (-5, 3)], 2400) == [(0, 16), (2384, 2400)]
    assert damage.merge([(30, 30)], 2400) == []


def test_a_band_never_starts_inside_a_drawing_at_a_fractional_row() -> None:
    icon = Drawn(300, 340, fractional=True)
    assert damage.widen([(320, 400)], [icon], 2400) == [(288, 400)]
    chain = [Drawn(300, 340, True), Drawn(250, 310, True)]  # moving up into another one moves it again
    assert damage.widen([(320, 400)], chain, 2400) == [(240, 400)]
    assert damage.covered(Drawn(300, 340), [(288, 400)]) and not damage.covered(Drawn(280, 340), [(288, 400)])
    assert damage.covered(Drawn(), [])  # drew nothing
