"""Every screen lays out inside the display, at any size and density, in portrait and landscape, at a larger font
scale and in the dark theme, in English and Chinese: the walk (`walk.py`) visits every app, the launcher, the
system bars, the shade, Overview, dialogs and the keyboard, and on each screen no view lies outside its parent or
the screen, every text shows whole inside its box (or is cut with an ellipsis where TextView would cut it), no
text is drawn over another or under an icon, and every text stands out from what is under it."""

from __future__ import annotations

import pytest

from emulator.virtual.ui.theme import DARK, LIGHT
from emulator.virtual.ui.view import View
from tests.emulator.virtual.ui.walk import CONDITIONS, LOCALES, Screen, problems, walk_param, walked


@pytest.mark.parametrize(
    ("condition", "locale"), [walk_param(c, lc, locale=lc, conditions=(c,)) for lc in LOCALES for c in CONDITIONS]
)
def test_every_screen_lays_out_inside_the_display(condition, locale):
    found = walked(condition, locale)
    names = {s.name.partition(" > ")[0] for s in found}
    assert len(found) > 90 and {"home", "in call", "shade", "recents", "heads-up"} <= names  # the walk got around
    assert any(" > " in s.name and "(scrolled)" in s.name for s in found)
    bad: dict[str, str] = {}
    for screen in found:
        for p in problems(screen):
            bad.setdefault(p, screen.name)
    assert not bad, f"{len(bad)} problems:\n" + "\n".join(f"{name}: {p}" for p, name in list(bad.items())[:30])


def _text(bounds, s, size=40, **style) -> View:
    return View(cls="android.widget.TextView", text=s, bounds=bounds, style={"size": size, **style})


def _screen(*children: View, theme=LIGHT, bg=(255, 255, 255)) -> Screen:
    root = View(bounds=(0, 0, 1000, 1000), style={"bg": bg}, children=list(children))
    return Screen("test", [root], (1000, 1000), theme)


@pytest.mark.parametrize(
    "case",
    ["outside parent", "outside screen", "cut", "taller", "overlap", "under icon", "contrast", "dark text on dark"],
)
def test_the_checks_catch_what_they_claim(case):
    """Each problem the walk looks for, laid out on purpose, is reported; the same layout done right is not."""
    fine = _screen(_text((10, 10, 500, 70), "Hello"), _text((10, 100, 500, 160), "World"))
    assert problems(fine) == []
    if case == "outside parent":
        row = View(bounds=(0, 0, 500, 100), children=[_text((10, 10, 600, 70), "Hi")])
        bad = _screen(row)
    elif case == "outside screen":
        bad = Screen("test", [_text((900, 10, 1100, 70), "Hi")], (1000, 1000), LIGHT)
    elif case == "cut":
        bad = _screen(_text((10, 10, 100, 70), "A label far too long for its box"))
        # TextView's ellipsize="end" may cut it; a multi-line box that holds it all is fine too
        assert problems(_screen(_text((10, 10, 100, 70), "A label far too long", ellipsize=True))) == []
        assert problems(_screen(_text((10, 10, 300, 400), "A label far too long", lines=6, valign="t"))) == []
    elif case == "taller":
        bad = _screen(_text((10, 10, 500, 30), "Hello"))
    elif case == "overlap":
        bad = _screen(_text((10, 10, 500, 70), "Hello"), _text((100, 20, 600, 80), "World"))
        # a snackbar over the text is on a surface of its own
        bar = View(bounds=(0, 0, 700, 100), style={"bg": (50, 50, 54)}, children=[_text((100, 20, 600, 80), "Saved")])
        bar.children[0].style["fg"] = (242, 242, 242)
        assert problems(_screen(_text((10, 10, 500, 70), "Hello"), bar)) == []
    elif case == "under icon":
        icon = View(cls="android.widget.ImageView", bounds=(50, 0, 150, 100), style={"icon": "phone"})
        bad = _screen(_text((10, 10, 500, 70), "Hello"), icon)
    elif case == "contrast":
        bad = _screen(_text((10, 10, 500, 70), "Hello", fg=(200, 200, 200)))
    else:  # a view left in the light theme's text colour on the dark theme's background
        bad = _screen(_text((10, 10, 500, 70), "Hello", fg=LIGHT.text), theme=DARK, bg=DARK.bg)
    assert problems(bad), case
