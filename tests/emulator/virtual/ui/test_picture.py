"""ui/picture: an image file drawn in a view - fitted or cropped, decoded once at most at the drawn size, named by the
file's content, the broken-image glyph for what does not decode."""

from __future__ import annotations

import io

from PIL import Image, ImageDraw

from emulator.virtual.model import VirtualDeviceModel
from emulator.virtual.ui.frames import draw_key
from emulator.virtual.ui.layout import Ctx
from emulator.virtual.ui.picture import PictureCache, decode, fit_rect, picture_view
from emulator.virtual.ui.render import render
from emulator.virtual.ui.theme import LIGHT


def _png(size: tuple[int, int], color: tuple[int, int, int] = (200, 30, 30), fmt: str = "PNG") -> bytes:
    img = Image.new("RGB", size, (255, 255, 255))
    ImageDraw.Draw(img).rectangle((0, 0, size[0] // 2, size[1] - 1), fill=color)  # left half coloured
    buf = io.BytesIO()
    img.save(buf, format=fmt)
    return buf.getvalue()


def _ctx(m: VirtualDeviceModel) -> Ctx:
    w, h = m.display_size
    return Ctx(model=m, mgr=m.ui, pkg="com.example.pics", record=None, theme=LIGHT, area=(0, 0, w, h), screen=(w, h))


def test_fit_rect_scales_up_and_down_keeping_the_aspect():
    assert fit_rect((500, 1000), (0, 0, 1000, 1000)) == (250, 0, 750, 1000)  # taller: bars left and right
    assert fit_rect((4000, 1000), (0, 100, 1000, 1100)) == (0, 475, 1000, 725)


def test_decode_keeps_at_most_the_drawn_size():
    big = decode(_png((2000, 1000), fmt="JPEG"), (400, 400), "fit")
    assert big is not None and big.image.size == (400, 200) and (big.width, big.height) == (2000, 1000)
    small = decode(_png((100, 50)), (400, 400), "fit")
    assert small is not None and small.image.size == (100, 50)  # scaled up only when drawn
    crop = decode(_png((2000, 1000)), (300, 300), "crop")
    assert crop is not None and crop.image.size == (300, 300)
    turned = decode(_png((200, 100)), (400, 400), "fit", rotation=90)
    assert turned is not None and (turned.width, turned.height) == (100, 200)
    assert decode(b"not a picture", (10, 10), "fit") is None


def test_the_cache_decodes_once_and_follows_the_file():
    m = VirtualDeviceModel()
    fs = m.fs
    fs.write("/sdcard/DCIM/a.png", _png((300, 200)))
    cache = PictureCache(max_bytes=1 << 20)
    first = cache.load(fs, "/sdcard/DCIM/a.png", (150, 150), "crop")
    again = cache.load(fs, "/storage/emulated/0/DCIM/a.png", (150, 150), "crop")
    assert first is not None and again is not None
    assert cache.load(fs, "/sdcard/DCIM/a.png", (150, 150), "crop") is first and cache.misses == 2
    fs.write("/sdcard/DCIM/a.png", _png((300, 200), (10, 200, 10)))  # new content: decoded again
    changed = cache.load(fs, "/sdcard/DCIM/a.png", (150, 150), "crop")
    assert changed is not None and changed is not first
    assert changed.image.convert("RGB").getpixel((5, 75)) != first.image.convert("RGB").getpixel((5, 75))
    assert cache.load(fs, "/sdcard/DCIM/missing.png", (150, 150), "crop") is None


def test_the_cache_stays_within_its_budget():
    m = VirtualDeviceModel()
    cache = PictureCache(max_bytes=3 * 100 * 100 * 3)  # three fitted pictures, or nine thumbnails in 256 colours
    for i in range(12):
        m.fs.write(f"/sdcard/Pictures/p{i}.png", _png((400, 400)))
        thumb = cache.load(m.fs, f"/sdcard/Pictures/p{i}.png", (100, 100), "crop")
        assert thumb is not None and thumb.image.mode == "P" and thumb.nbytes == 100 * 100
    assert len(cache) == 9 and cache.nbytes <= cache.max_bytes
    for i in range(6):
        assert cache.load(m.fs, f"/sdcard/Pictures/p{i}.png", (100, 100), "fit") is not None
    assert len(cache) == 3 and cache.nbytes <= cache.max_bytes


def test_a_view_draws_the_picture_and_frames_name_it_the_same():
    m = VirtualDeviceModel()
    m.fs.write("/sdcard/DCIM/r.png", _png((100, 200)))
    ctx = _ctx(m)
    cache = PictureCache()
    box = (0, 0, 400, 400)
    v = picture_view(ctx, box, "/sdcard/DCIM/r.png", "fit", rid="photo", cache=cache)
    assert v.cls == "android.widget.ImageView" and v.resource_id == "com.example.pics:id/photo"
    assert v.bounds == box and v.style["draw"] == (100, 0, 300, 400)
    img = render([v], (400, 400), LIGHT)
    assert img.getpixel((10, 200)) == (0, 0, 0)  # outside the fitted picture: nothing drawn
    red, white = img.getpixel((140, 200)), img.getpixel((260, 200))
    assert isinstance(red, tuple) and red[0] > 150 and red[1] < 100 and white == (255, 255, 255)
    again = picture_view(ctx, box, "/sdcard/DCIM/r.png", "fit", rid="photo", cache=cache)
    assert draw_key([again], (400, 400), LIGHT) == draw_key([v], (400, 400), LIGHT)
    broken = picture_view(ctx, box, "/sdcard/DCIM/none.jpg", "crop", cache=cache)
    assert "image" not in broken.style and broken.style["icon"] == "image"
