"""harness.coords: every conversion, with hypothesis round trips."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from harness import coords

SIZES = st.tuples(st.integers(1, 4000), st.integers(1, 4000))
UNIT = st.floats(0.0, 1.0, allow_nan=False)


@st.composite
def size_and_pixel(draw):
    w, h = draw(SIZES)
    return (w, h), (draw(st.integers(0, w - 1)), draw(st.integers(0, h - 1)))


@st.composite
def size_and_box(draw):
    w, h = draw(SIZES)
    l, r = sorted((draw(st.integers(0, w)), draw(st.integers(0, w))))
    t, b = sorted((draw(st.integers(0, h)), draw(st.integers(0, h))))
    return (w, h), (l, t, r, b)


# --- normalized <-> pixels ------------------------------------------------------------------------------
def test_to_pixels_examples():
    assert coords.to_pixels((0.0, 0.0), (1440, 3120)) == (0, 0)
    assert coords.to_pixels((1.0, 1.0), (1440, 3120)) == (1439, 3119)  # 1.0 lands on the last pixel
    assert coords.to_pixels((0.5, 0.5), (1440, 3120)) == (720, 1560)
    assert coords.from_pixels((0, 0), (10, 10)) == (0.05, 0.05)  # pixel centre
    assert coords.to_pixels((0.3, 0.7), (10, 10)) == (3, 7)  # dataset px / width comes back exactly


@given(size_and_pixel())
def test_pixel_round_trip_exact(sp):
    size, px = sp
    assert coords.to_pixels(coords.from_pixels(px, size), size) == px


@given(size_and_pixel())
def test_dataset_normalization_maps_back_to_same_pixel(sp):
    (w, h), (x, y) = sp
    assert coords.to_pixels((x / w, y / h), (w, h)) == (x, y)


@given(SIZES, UNIT, UNIT)
def test_normalized_to_pixel_stays_within_one_pixel(size, x, y):
    px = coords.to_pixels((x, y), size)
    assert 0 <= px[0] < size[0] and 0 <= px[1] < size[1]
    back = coords.from_pixels(px, size)
    assert abs(back[0] - x) <= 1 / size[0] and abs(back[1] - y) <= 1 / size[1]


@pytest.mark.parametrize("point", [(1.2, 0.5), (0.5, -0.1), (float("nan"), 0.5), (0.5, float("inf"))])
def test_to_pixels_rejects_out_of_range(point):
    with pytest.raises(ValueError, match=r"^(x|y): "):
        coords.to_pixels(point, (100, 100))


@pytest.mark.parametrize("size", [(0, 10), (10, -1), (10.5, 10), (10,)])
def test_bad_size(size):
    with pytest.raises(ValueError, match="size"):
        coords.to_pixels((0.5, 0.5), size)


def test_from_pixels_outside_screen():
    with pytest.raises(ValueError, match="outside the 10x10 screen"):
        coords.from_pixels((10, 3), (10, 10))


# --- [0, 1000] ------------------------------------------------------------------------------------------
@given(st.integers(0, 1000), st.integers(0, 1000))
def test_1000_round_trip(x, y):
    assert coords.to_1000(coords.from_1000((x, y))) == (x, y)


def test_1000_examples():
    assert coords.from_1000((500, 250)) == (0.5, 0.25)
    assert coords.to_pixels(coords.from_1000((1000, 1000)), (1080, 2400)) == (1079, 2399)
    with pytest.raises(ValueError, match=r"x: 1001"):
        coords.from_1000((1001, 3))


# --- (y, x) -------------------------------------------------------------------------------------------
def test_parse_yx_strings():
    assert coords.parse_yx("[0.52, 0.31]") == (0.31, 0.52)
    assert coords.parse_yx("[-1.0, -1.0]") is None
    assert coords.parse_yx(" [ -1 , -1 ] ") is None
    assert coords.parse_yx([0.1, 0.9]) == (0.9, 0.1)
    assert coords.yx_to_xy((0.2, 0.7)) == (0.7, 0.2)
    assert coords.xy_to_yx((0.7, 0.2)) == (0.2, 0.7)


@pytest.mark.parametrize("bad", ["0.5, 0.5", "[0.5]", "[a, b]", "[0.5, 1.5]", "[-0.5, 0.2]", "[1, 2, 3]"])
def test_parse_yx_rejects(bad):
    with pytest.raises(ValueError):
        coords.parse_yx(bad)


@given(UNIT, UNIT)
def test_yx_string_round_trip(x, y):
    assert coords.parse_yx(coords.format_yx((x, y))) == (x, y)
    assert coords.yx_to_xy(coords.xy_to_yx((x, y))) == (x, y)


def test_format_yx_none():
    assert coords.format_yx(None) == "[-1.0, -1.0]"
    assert coords.parse_yx(coords.format_yx(None)) is None


# --- resized screenshots --------------------------------------------------------------------------------
def test_screen_mapping_example():
    m = coords.ScreenMapping(device_size=(1440, 3120), image_size=(1092, 2366))
    assert m.image_to_device((0, 0)) == (0, 0)
    assert m.image_to_device((1091, 2365)) == (1439, 3119)
    assert m.image_to_device((546, 1183)) == (720, 1560)
    assert m.device_to_image((720, 1560)) == (546, 1183)
    assert m.image_to_device((1092, 2366)) == (1439, 3119)  # the far edge clamps
    with pytest.raises(ValueError, match="image x"):
        m.image_to_device((1200, 5))


@st.composite
def downscale(draw):
    dw, dh = draw(SIZES)
    iw, ih = draw(st.integers(1, dw)), draw(st.integers(1, dh))
    return coords.ScreenMapping((dw, dh), (iw, ih)), (draw(st.integers(0, iw - 1)), draw(st.integers(0, ih - 1)))


@given(downscale())
def test_image_device_image_round_trip(case):
    m, px = case
    dev = m.image_to_device(px)
    assert 0 <= dev[0] < m.device_size[0] and 0 <= dev[1] < m.device_size[1]
    assert m.device_to_image(dev) == px


@given(downscale())
def test_device_image_device_round_trip_when_upscaled(case):
    m, px = case
    up = coords.ScreenMapping(device_size=m.image_size, image_size=m.device_size)
    assert up.image_to_device(up.device_to_image(px)) == px


@given(downscale())
def test_mapping_agrees_with_normalized_space(case):
    m, px = case
    # the model's pixel, normalized, lands within one device pixel of the mapped device pixel
    via_norm = coords.to_pixels(coords.from_pixels(px, m.image_size), m.device_size)
    dev = m.image_to_device(px)
    assert abs(via_norm[0] - dev[0]) <= 1 and abs(via_norm[1] - dev[1]) <= 1


# --- boxes ------------------------------------------------------------------------------------------------
def test_box_examples():
    assert coords.yxhw_norm_to_ltrb((0.1, 0.2, 0.5, 0.25), (1000, 2000)) == (200, 200, 450, 1200)
    assert coords.yxhw_px_to_ltrb((10, 20, 30, 40)) == (20, 10, 60, 40)
    assert coords.ltrb_to_yxhw_px((20, 10, 60, 40)) == (10, 20, 30, 40)
    assert coords.xyxy_norm_to_ltrb((0.25, 0.5, 0.75, 1.0), (1080, 2400)) == (270, 1200, 810, 2400)
    assert coords.xyxy_1000_to_ltrb((250, 500, 750, 1000), (1080, 2400)) == (270, 1200, 810, 2400)
    assert coords.ltrb_to_xyxy_1000((270, 1200, 810, 2400), (1080, 2400)) == (250, 500, 750, 1000)


def test_box_errors_name_the_problem():
    with pytest.raises(ValueError, match="inverted"):
        coords.yxhw_px_to_ltrb((10, 20, -5, 4))
    with pytest.raises(ValueError, match="x1"):
        coords.xyxy_norm_to_ltrb((1.5, 0, 1, 1), (100, 100))
    with pytest.raises(ValueError, match="inverted"):
        coords.xyxy_norm_to_ltrb((0.8, 0, 0.2, 1), (100, 100))
    with pytest.raises(ValueError, match="outside"):
        coords.ltrb_to_yxhw_norm((0, 0, 101, 5), (100, 100))


@given(size_and_box())
def test_aitw_box_round_trip(case):
    size, box = case
    assert coords.yxhw_norm_to_ltrb(coords.ltrb_to_yxhw_norm(box, size), size) == box


@given(size_and_box())
def test_aitz_box_round_trip(case):
    _, box = case
    assert coords.yxhw_px_to_ltrb(coords.ltrb_to_yxhw_px(box)) == box


@given(size_and_box())
def test_xyxy_norm_box_round_trip(case):
    size, box = case
    assert coords.xyxy_norm_to_ltrb(coords.ltrb_to_xyxy_norm(box, size), size) == box


@given(st.tuples(st.integers(1, 1000), st.integers(1, 1000)), st.data())
def test_xyxy_1000_box_round_trip_when_screen_at_most_1000(size, data):
    w, h = size
    l, r = sorted(data.draw(st.tuples(st.integers(0, w), st.integers(0, w))))
    t, b = sorted(data.draw(st.tuples(st.integers(0, h), st.integers(0, h))))
    box = (l, t, r, b)
    assert coords.xyxy_1000_to_ltrb(coords.ltrb_to_xyxy_1000(box, size), size) == box


@given(st.tuples(*[st.integers(0, 1000)] * 4), SIZES)
def test_xyxy_1000_to_pixels_is_within_rounding(box1000, size):
    x1, x2 = sorted(box1000[0::2])
    y1, y2 = sorted(box1000[1::2])
    l, t, r, b = coords.xyxy_1000_to_ltrb((x1, y1, x2, y2), size)
    w, h = size
    assert abs(l - x1 / 1000 * w) <= 0.5 and abs(r - x2 / 1000 * w) <= 0.5
    assert abs(t - y1 / 1000 * h) <= 0.5 and abs(b - y2 / 1000 * h) <= 0.5


# --- rotation --------------------------------------------------------------------------------------------
def test_rotation_corners():
    natural = (1440, 3120)
    assert coords.rotated_size(natural, 1) == (3120, 1440)
    assert coords.rotated_size(natural, 2) == natural
    # ROTATION_90: device turned counter-clockwise; the natural top-right corner becomes the display's top-left
    assert coords.rotate_point((1439, 0), natural, 1) == (0, 0)
    assert coords.rotate_point((0, 0), natural, 1) == (0, 1439)
    assert coords.rotate_point((0, 0), natural, 2) == (1439, 3119)
    assert coords.rotate_point((0, 0), natural, 3) == (3119, 0)
    assert coords.rotate_normalized((1.0, 0.0), 1) == (0.0, 0.0)


@pytest.mark.parametrize("rotation", [-1, 4, True, 1.5])
def test_bad_rotation(rotation):
    with pytest.raises(ValueError, match="rotation"):
        coords.rotated_size((10, 20), rotation)


@given(size_and_pixel(), st.integers(0, 3))
def test_rotation_round_trip(sp, rotation):
    size, px = sp
    shown = coords.rotate_point(px, size, rotation)
    dw, dh = coords.rotated_size(size, rotation)
    assert 0 <= shown[0] < dw and 0 <= shown[1] < dh
    assert coords.unrotate_point(shown, size, rotation) == px


@given(size_and_pixel())
def test_rotation_composes(sp):
    # rotating by 1 twice (in the continuous sense) equals rotating by 2; checked on pixel centres
    size, px = sp
    once = coords.rotate_point(px, size, 1)
    twice = coords.rotate_point(once, coords.rotated_size(size, 1), 1)
    assert twice == coords.rotate_point(px, size, 2)


@given(size_and_pixel(), st.integers(0, 3))
def test_rotation_agrees_with_normalized(sp, rotation):
    size, px = sp
    via_norm = coords.to_pixels(
        coords.rotate_normalized(coords.from_pixels(px, size), rotation), coords.rotated_size(size, rotation)
    )
    assert via_norm == coords.rotate_point(px, size, rotation)


@settings(max_examples=200)
@given(UNIT, UNIT, st.integers(0, 3))
def test_normalized_rotation_round_trip(x, y, rotation):
    # 1 - (1 - y) is y up to one float ulp; exact equality is only promised for integer pixels
    back = coords.unrotate_normalized(coords.rotate_normalized((x, y), rotation), rotation)
    assert back == pytest.approx((x, y), abs=1e-15)
