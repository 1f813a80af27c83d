"""Rendering: the pixels come from the same views as the XML (colours found inside bounds), dark theme, fonts."""

from __future__ import annotations

import threading
from typing import Any

import numpy as np
import pytest
from PIL import Image

from emulator.virtual.model import VirtualDeviceModel
from emulator.virtual.profiles import PROFILES
from emulator.virtual.ui import fonts
from emulator.virtual.ui.keyboard import IME_PACKAGE
from emulator.virtual.ui.theme import DARK, LIGHT
from emulator.virtual.ui.view import View

SETTINGS = "com.android.settings"
SHOP = "com.droidharness.shop"
NOTES = "com.droidharness.notes"


def views(m: VirtualDeviceModel) -> list[View]:
    return [v for r in m.view_roots() for v in r.walk()]


def find(m: VirtualDeviceModel, rid: str = "", text: str | None = None, package: str | None = None) -> View:
    for v in views(m):
        if (
            v.resource_id.endswith(rid)
            and (text is None or v.text == text)
            and (package is None or v.package == package)
        ):
            return v
    raise AssertionError(f"no view {rid!r} {text!r}")


def share(img: Image.Image, bounds: tuple[int, int, int, int], color: tuple[int, int, int], tol: int = 6) -> float:
    """Fraction of the pixels inside `bounds` within `tol` of `color`."""
    arr = np.asarray(img.crop(bounds), dtype=np.int16)
    if arr.size == 0:
        return 0.0
    return float(np.all(np.abs(arr - np.array(color, dtype=np.int16)) <= tol, axis=2).mean())


def test_render_size_and_mode_follow_rotation() -> None:
    m = VirtualDeviceModel(profile="pixel_fold")
    assert m.screenshot().size == (1840, 2208)
    m.set_rotation(1)
    img = m.screenshot()
    assert img.size == (2208, 1840) and img.mode == "RGB"


def test_dark_theme_changes_pixels_of_every_app() -> None:
    m = VirtualDeviceModel()
    m.start_activity(SETTINGS)
    content = find(m, "android:id/content")
    probe = (content.bounds[0] + 4, content.bounds[3] - 4)  # empty space under the list
    assert m.screenshot().getpixel(probe) == LIGHT.bg
    m.settings["secure"]["ui_night_mode"] = "2"
    assert m.screenshot().getpixel(probe) == DARK.bg
    m.start_activity(NOTES)
    c = find(m, "android:id/content")
    assert m.screenshot().getpixel((c.bounds[0] + 2, c.bounds[3] - 2)) == DARK.bg


def test_switch_pixels_follow_checked_state() -> None:
    m = VirtualDeviceModel()
    m.start_activity(SETTINGS, ".SubSettings", {"page": "network"})
    sw = [v for v in find(m, "wifi_row").walk() if v.cls == "android.widget.Switch"][0]
    assert sw.checked
    assert share(m.screenshot(), sw.bounds, LIGHT.primary) > 0.2
    m.tap(*find(m, "wifi_row").center)
    sw = [v for v in find(m, "wifi_row").walk() if v.cls == "android.widget.Switch"][0]
    assert not sw.checked
    img = m.screenshot()
    assert share(img, sw.bounds, LIGHT.primary) == 0.0
    assert share(img, sw.bounds, LIGHT.switch_off_track) > 0.1


@pytest.mark.parametrize("profile", list(PROFILES))
def test_button_and_image_colours_are_inside_their_bounds(profile: str) -> None:
    m = VirtualDeviceModel(profile=profile)
    m.start_activity(SHOP)
    m.tap(*find(m, "ad_close").center)
    img = m.screenshot()
    thumb = find(m, "product_image")
    from emulator.virtual.apps.shop import PRODUCTS

    assert share(img, thumb.bounds, PRODUCTS[0]["color"]) > 0.5
    m.tap(*find(m, "product_item").center)
    btn = find(m, "add_to_cart_button")
    img = m.screenshot()
    assert share(img, btn.bounds, LIGHT.primary_container) > 0.4
    buy = find(m, "buy_now_button")
    assert share(img, buy.bounds, LIGHT.primary) > 0.4
    # and not outside: the strip just above the button is the bar's surface colour
    l, t, r, b = btn.bounds
    assert share(img, (l, t - 6, r, t - 2), LIGHT.primary_container) == 0.0


def test_focused_field_cursor_and_keyboard_are_drawn() -> None:
    m = VirtualDeviceModel()
    m.start_activity(NOTES)
    m.tap(*find(m, "fab_add").center)
    field = find(m, "note_title_edit")
    assert field.focused
    img = m.screenshot()
    assert share(img, field.bounds, LIGHT.primary, tol=2) > 0.002  # underline + cursor in the accent colour
    kb = [r for r in m.view_roots() if r.package == IME_PACKAGE][0]
    assert share(img, kb.bounds, LIGHT.keyboard_bg) > 0.05
    m.key(4)  # hide keyboard
    img2 = m.screenshot()
    assert share(img2, kb.bounds, LIGHT.keyboard_bg) < 0.01


def test_dialog_dims_the_screen_behind() -> None:
    m = VirtualDeviceModel()
    m.start_activity(NOTES)
    probe = find(m, "android:id/content")
    pt = (probe.bounds[0] + 2, probe.bounds[3] - 2)
    before = m.screenshot().getpixel(pt)
    m.long_press(*find(m, "note_card").center)
    after = m.screenshot().getpixel(pt)
    assert sum(after) < sum(before) * 0.7


def test_selected_chip_and_text_pixels() -> None:
    m = VirtualDeviceModel()
    m.start_activity("com.droidharness.weather")
    img = m.screenshot()
    f_chip, c_chip = find(m, "unit_fahrenheit"), find(m, "unit_celsius")
    assert f_chip.checked and not c_chip.checked
    assert share(img, f_chip.bounds, LIGHT.primary_container) > 0.3
    assert share(img, c_chip.bounds, LIGHT.primary_container) == 0.0
    temp = find(m, "current_temp")
    assert share(img, temp.bounds, LIGHT.text, tol=40) > 0.01  # the digits are drawn inside their bounds


def test_launcher_icons_drawn_in_app_colours() -> None:
    m = VirtualDeviceModel()
    img = m.screenshot()
    from emulator.virtual.apps.notes import NotesApp

    icon = [v for v in views(m) if v.text == "Notes"][0]
    assert share(img, icon.bounds, NotesApp.color) > 0.1


def test_fonts_never_crash_without_cjk_face(monkeypatch) -> None:
    monkeypatch.setattr(fonts, "cjk_font_path", lambda: None)
    fonts.get_font.cache_clear()
    fonts.text_width.cache_clear()
    try:
        assert fonts.text_width("你好 world", 20) > 0
        m = VirtualDeviceModel(locale="zh")
        assert m.screenshot().size == m.display_size
    finally:
        fonts.get_font.cache_clear()
        fonts.text_width.cache_clear()


def test_ellipsize_and_wrap() -> None:
    long = "A very long product name that cannot fit"
    cut = fonts.ellipsize(long, 20, 120)
    assert cut.endswith("…") and fonts.text_width(cut, 20) <= 120
    assert fonts.ellipsize("ok", 20, 500) == "ok"
    lines = fonts.wrap("hello world foo bar\n你好世界你好世界", 20, 100)
    assert len(lines) >= 3 and all(fonts.text_width(x, 20) <= 100 for x in lines if len(x) > 1)
    assert fonts.needs_cjk("你好") and not fonts.needs_cjk("hello")


def test_cjk_text_renders_real_glyphs_when_a_cjk_font_is_installed():
    """Missing glyphs all draw the same box; real glyphs of two different characters differ."""
    from emulator.virtual.ui import fonts

    if fonts.cjk_font_path() is None:
        pytest.skip("no CJK font on this machine (install the `cjk` extra)")
    font = fonts.font_for("你好", 48)
    a, b = font.getmask("你"), font.getmask("好")
    assert a.getbbox() is not None and bytes(a) != bytes(b)
    if fonts.cjk_font_path().endswith("NotoSansCJK-VF.otf.ttc"):  # the `cjk` extra: SC face, real weights
        assert font.getname() == ("Noto Sans CJK SC", "Regular")
        assert fonts.font_for("你好", 48, bold=True).getname() == ("Noto Sans CJK SC", "Bold")


def test_frame_cache_serves_an_unchanged_screen_and_never_a_stale_one() -> None:
    """A frame is drawn (and encoded) once while the screen is unchanged; any change in what is drawn (text,
    state, theme) draws afresh, and the cached JPEG is the same bytes a fresh encoding gives."""
    from emulator.virtual.ui.frames import encode_jpeg

    m = VirtualDeviceModel()
    m.start_activity(SETTINGS)
    frames = m.ui.frames
    first = m.screenshot_jpeg(1.0, 80)
    misses = frames.misses
    assert m.screenshot_jpeg(1.0, 80) is first and frames.misses == misses  # served, not drawn again
    assert m.screenshot_jpeg(0.5, 80) != first  # another scale is another encoding of the same frame
    assert frames.misses == misses
    fresh = encode_jpeg(m.screenshot().copy(), 1.0, 80)
    assert fresh == first
    light = m.screenshot().copy()
    m.settings["secure"]["ui_night_mode"] = "2"  # the theme is part of what is drawn
    assert m.screenshot_jpeg(1.0, 80) != first and frames.misses == misses + 1
    assert np.any(np.asarray(m.screenshot()) != np.asarray(light))
    m.settings["secure"]["ui_night_mode"] = "1"
    assert m.screenshot_jpeg(1.0, 80) == first  # back to the light frame, still remembered
    m.screen_on = False
    assert m.screenshot().getbbox() is None  # screen off: black, not the cached frame


def test_a_screenshot_being_drawn_holds_up_no_other_request(monkeypatch: pytest.MonkeyPatch) -> None:
    """The device lock is held while a frame's views are built, not while they are drawn and encoded (on a phone
    a screenshot does not stop a hierarchy dump): a dump and a state change go ahead while a screenshot is being
    drawn, and that screenshot still shows the screen as it was when it was taken."""
    import emulator.virtual.ui.manager as manager

    m = VirtualDeviceModel()
    m.start_activity(SETTINGS)
    light = m.screenshot_jpeg(1.0, 80)
    m.ui.frames.clear()  # drawn again below
    drawing, release = threading.Event(), threading.Event()
    real = manager.render_roots

    def held(roots: list[View], size: tuple[int, int], theme: Any, **kwargs: Any) -> Image.Image:
        drawing.set()
        assert release.wait(30)
        return real(roots, size, theme, **kwargs)

    monkeypatch.setattr(manager, "render_roots", held)
    shot: list[bytes] = []
    shooter = threading.Thread(target=lambda: shot.append(m.screenshot_jpeg(1.0, 80)))
    shooter.start()
    try:
        assert drawing.wait(30)
        dumped: list[str] = []
        dumper = threading.Thread(target=lambda: dumped.append(m.hierarchy_xml(u2=True)))
        dumper.start()
        dumper.join(10)
        assert dumped and "com.android.settings" in dumped[0]  # answered while the screenshot is being drawn
        m.settings["secure"]["ui_night_mode"] = "2"
    finally:
        release.set()
        shooter.join(30)
    assert shot == [light]  # the frame as it was taken: light
    monkeypatch.setattr(manager, "render_roots", real)
    assert m.screenshot_jpeg(1.0, 80) != light  # the next one is dark


def test_frame_key_of_an_unknown_style_value_never_matches() -> None:
    from emulator.virtual.ui.frames import draw_key

    class Opaque:
        pass

    box = (0, 0, 10, 10)
    v = View(bounds=box, style={"thing": Opaque()})
    assert draw_key([v], (10, 10), LIGHT) != draw_key([v], (10, 10), LIGHT)
    w = View(bounds=box, text="a", style={"bg": (1, 2, 3), "on_cancel": print})
    same, other = (View(bounds=box, text=t, style={"bg": (1, 2, 3)}) for t in "ab")
    assert draw_key([w], (10, 10), LIGHT) == draw_key([same], (10, 10), LIGHT)
    assert draw_key([w], (10, 10), LIGHT) != draw_key([other], (10, 10), LIGHT)
    # a view with no area draws nothing, nor its children: it does not name another frame
    hidden = View(bounds=(5, 5, 5, 9), text="x", children=[View(bounds=box, style={"thing": Opaque()})])
    assert draw_key([w, hidden], (10, 10), LIGHT) == draw_key([w], (10, 10), LIGHT)


def test_frame_key_leaves_out_an_editable_fields_binding() -> None:
    """A field's binding (how it is read and written, what ENTER does) is made afresh with every build of its
    screen and never drawn: two builds of the same field name the same frame, a different text another one."""
    from emulator.virtual.ui.frames import draw_key
    from emulator.virtual.ui.layout import FieldBinding

    def field(text: str) -> View:
        binding = FieldBinding(lambda: text, print)
        return View(bounds=(0, 0, 10, 10), text=text, style={"kind": "field", "size": 40, "field": binding})

    assert draw_key([field("a")], (10, 10), LIGHT) == draw_key([field("a")], (10, 10), LIGHT)
    assert draw_key([field("a")], (10, 10), LIGHT) != draw_key([field("b")], (10, 10), LIGHT)


def test_text_from_remembered_masks_is_pixel_identical_to_imagedraw(monkeypatch: pytest.MonkeyPatch) -> None:
    """`glyphs.draw_text` (a line rasterized once, blended through its mask) draws exactly what
    `ImageDraw.text` draws, on every app's first screen in both scripts, fractional positions included."""
    from PIL import ImageDraw

    from emulator.virtual.ui import glyphs, render

    def plain(
        img: Image.Image, xy: tuple[float, float], text: str, font: object, fill: tuple[int, int, int]
    ) -> tuple[int, int]:
        ImageDraw.Draw(img).text(xy, text, font=font, fill=fill)  # type: ignore[arg-type]
        return 0, img.height  # every row: the frame's items' rows are not what this compares

    def screens() -> list[bytes]:
        out = []
        for locale in ("en", "zh"):
            m = VirtualDeviceModel(locale=locale)
            for pkg in (SETTINGS, SHOP, NOTES, "com.google.android.deskclock", "com.google.android.apps.messaging"):
                m.start_activity(pkg)
                out.append(m.screenshot().tobytes())
        return out

    monkeypatch.setattr(render, "draw_text", plain)
    expected = screens()
    monkeypatch.setattr(render, "draw_text", glyphs.draw_text)
    assert screens() == expected
    img = Image.new("RGB", (200, 60), (255, 255, 255))
    ref = img.copy()
    font = fonts.font_for("Ag 设置", 18)
    # fractional positions, and lines whose mask starts left of / above the image or runs past its edges
    for xy in ((10.0, 5.0), (10.5, 20.25), (-3.5, 40.75), (150.2, 50.9), (0.0, 0.0), (0.5, 0.25), (190.0, 2.0)):
        glyphs.draw_text(img, xy, "Ag 设置", font, (20, 30, 200))
        ImageDraw.Draw(ref).text(xy, "Ag 设置", font=font, fill=(20, 30, 200))
    assert img.tobytes() == ref.tobytes()


def test_a_frame_with_a_bitmap_is_remembered_by_that_bitmap() -> None:
    """PIL images do not hash: a style bitmap names its frame by identity - the same bitmap is the same frame,
    another bitmap (even of equal pixels) another one."""
    from emulator.virtual.ui.frames import FrameCache, draw_key

    bitmap = Image.new("RGB", (4, 4), (9, 9, 9))
    twin = bitmap.copy()
    cache = FrameCache()
    drawn: list[int] = []

    def frame(img: Image.Image) -> Image.Image:
        key = draw_key([View(bounds=(0, 0, 4, 4), style={"image": img})], (4, 4), LIGHT)
        return cache.image(key, lambda: drawn.append(1) or Image.new("RGB", (4, 4)))

    first = frame(bitmap)
    assert frame(bitmap) is first and len(drawn) == 1 and cache.hits == 1
    assert frame(twin) is not first and len(drawn) == 2


@pytest.mark.parametrize("clip", [(0, 100, 400, 300), (0, 100, 400, 790)], ids=["small clip", "most of the screen"])
def test_a_clipping_container_keeps_its_children_inside_it(clip: tuple[int, int, int, int]) -> None:
    """A scrolling container clips its children whichever way the renderer makes the clip (a copy of a small
    region, or drawing over most of the screen and putting back what lies outside it); a first root whose square
    background covers the screen is the image's colour."""
    from emulator.virtual.ui.render import render

    red, green, grey = (200, 30, 30), (30, 160, 60), (240, 240, 240)
    l, t, r, b = clip
    child = View(bounds=(l, t, r, b), style={"draw": (l - 50, t - 50, r + 50, b + 50), "bg": red})
    box = View(bounds=clip, style={"clip": True, "bg": green}, children=[child])
    root = View(bounds=(0, 0, 400, 800), style={"bg": grey}, children=[box])
    img = render([root], (400, 800), LIGHT)
    px = np.asarray(img)
    assert (px[t:b, l:r] == red).all(), "inside the container: the child"
    assert (px[: t - 1, :] == grey).all() and (px[b + 1 :, :] == grey).all(), "outside: untouched"
    assert (px[t - 1] == grey).all() and (px[b] == grey).all()
