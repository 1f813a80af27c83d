"""How text is laid out (`emulator/virtual/ui/textlayout.py`): one line cut with an ellipsis or lines wrapped,
whether it shows whole and inside its box, CJK and Latin faces centred alike; and the font scale (`settings put
system font_scale`) reaching every text of every screen the walk visits (`walk.py`), but the keyboard's, as
Gboard keeps its own sizes."""

from __future__ import annotations

import pytest

from emulator.virtual.ui.fonts import cjk_font_path, wrap
from emulator.virtual.ui.keyboard import IME_PACKAGE
from emulator.virtual.ui.textlayout import font_scale, label_box, layout_text
from tests.emulator.virtual.ui.walk import LOCALES, walk_param, walked


def test_one_line_is_cut_with_an_ellipsis_and_lines_wrap():
    one = layout_text((0, 0, 200, 60), "A sentence far too long for the box", {"size": 30})
    assert one is not None and len(one.lines) == 1 and one.lines[0].endswith("…") and not one.whole
    assert not one.fits
    wrapped = layout_text((0, 0, 200, 400), "A sentence far too long for the box", {"size": 30, "lines": 8})
    assert wrapped is not None and wrapped.whole and wrapped.fits and len(wrapped.lines) > 2
    assert " ".join(wrapped.lines) == "A sentence far too long for the box"
    short = layout_text((0, 0, 200, 60), "Short", {"size": 30})
    assert short is not None and short.fits and short.lines == ["Short"]
    low = layout_text((0, 0, 200, 20), "Short", {"size": 30})  # a box lower than its text
    assert low is not None and low.whole and not low.fits
    assert layout_text((0, 0, 10, 60), "Pad", {"size": 30, "pad": 8}) is None  # no width left


def test_a_space_ending_a_line_takes_no_room():
    from emulator.virtual.ui.fonts import text_width

    width = text_width("Can you send me", 40)
    assert wrap("Can you send me the slides", 40, width + 1) == ["Can you send me", "the slides"]


@pytest.mark.skipif(cjk_font_path() is None, reason="no CJK face on this machine")
def test_chinese_text_sits_in_the_middle_of_its_line_as_latin_does():
    """The face's ascent and descent are centred in the line box, so the taller CJK face is not drawn low."""
    for s in ("设置", "Settings"):
        lay = layout_text((0, 0, 400, 60), s, {"size": 40})
        assert lay is not None and lay.fits, s
        top, bottom = lay.extent()
        assert abs((top - 0) - (60 - bottom)) <= 12, (s, top, bottom)


def test_the_font_scale_setting():
    assert font_scale({"system": {"font_scale": "1.3"}}) == 1.3
    assert (
        font_scale({})
        == font_scale({"system": {"font_scale": "big"}})
        == font_scale({"system": {"font_scale": "0"}})
        == 1.0
    )


def _sizes(condition: str, locale: str) -> dict[tuple[str, str, str, str], int]:
    """The text size of each text on each screen of the walk, by (screen, package, resource id, text)."""
    out: dict[tuple[str, str, str, str], int] = {}
    for s in walked(condition, locale):
        for root in s.roots:
            for v in root.walk():
                label = label_box(v, v.style.get("draw", v.bounds))
                if label is not None and label[1]:
                    out.setdefault((s.name, v.package, v.resource_id, v.text), int(label[2].get("size", 14)))
    return out


@pytest.mark.parametrize(
    "locale", [walk_param(lc, locale=lc, conditions=("default", "font_scale_1.3")) for lc in LOCALES]
)
def test_the_font_scale_reaches_every_text(locale):
    plain, larger = _sizes("default", locale), _sizes("font_scale_1.3", locale)
    common = set(plain) & set(larger)
    assert len(common) > 1000
    packages = {k[1] for k in common}
    assert {"com.android.systemui", "com.google.android.apps.nexuslauncher", "com.android.settings"} <= packages
    bad = sorted(
        f"{k[0]}: {k[1]} {k[2]} {k[3]!r} {plain[k]} -> {larger[k]} px"
        for k in common
        if k[1] != IME_PACKAGE and not 1.25 <= larger[k] / plain[k] <= 1.35
    )
    assert not bad, "\n".join(bad[:20])
    keys = [k for k in common if k[1] == IME_PACKAGE]
    assert keys and all(larger[k] == plain[k] for k in keys)  # Gboard's keys keep their size
