"""The dark theme (`cmd uimode night yes`) reaches every screen the walk visits (`walk.py`): every app, the
launcher, the system bars, the shade, Overview, dialogs and the keyboard, in English and Chinese. What the light
theme draws light, the dark theme draws dark; texts keep their contrast in both (`test_layout.py` checks that on
every screen)."""

from __future__ import annotations

import pytest

from emulator.virtual.ui.systembars import SYSTEMUI
from tests.emulator.virtual.ui.walk import LOCALES, Screen, contrast, walk_param, walked

# what is dark in the light theme too, as on a phone: the wallpaper and Overview (the launcher's), the shade's
# scrim (System UI's), the in-call screen, the camera's viewfinder and bars, Audio Recorder (its own blue-grey
# theme, whatever the system's), OsmAnd's map markers bar over the map
DARK_BY_DESIGN = (
    "com.google.android.apps.nexuslauncher",
    SYSTEMUI,
    "com.android.camera2",
    "com.dimowner.audiorecorder",
    "net.osmand net.osmand:id/map_markers_top_bar",
)
# what stays light in the dark theme, as the real app draws it: a drawing's own canvas (Simple Draw's background
# colour, white unless the user picks another) and Audio Recorder's welcome button (its own colours, not the
# system's)
LIGHT_BY_DESIGN = ("com.simplemobiletools.draw.pro:id/my_canvas", "com.dimowner.audiorecorder:id/btn_action")


def _luminance(c: tuple[int, int, int]) -> float:
    return (0.2126 * c[0] + 0.7152 * c[1] + 0.0722 * c[2]) / 255


def _surfaces(screen: Screen) -> list[tuple[str, tuple[int, int, int]]]:
    """(what, colour) of each background that covers a twentieth of the screen or more (not bitmaps or icons)."""
    W, H = screen.size
    out = []
    for root in screen.roots:
        for v in root.walk():
            bg, (l, t, r, b) = v.style.get("bg"), v.bounds
            if isinstance(bg, tuple) and not v.style.get("icon") and (r - l) * (b - t) >= 0.05 * W * H:
                out.append((f"{v.package} {v.resource_id or v.cls}", bg))
    return out


def _status_bar_fg(screen: Screen) -> tuple[int, int, int]:
    bar = next(r for r in screen.roots if r.resource_id == f"{SYSTEMUI}:id/status_bar_container")
    return next(v.style["fg"] for v in bar.walk() if v.resource_id.endswith("id/clock"))


@pytest.mark.parametrize("locale", [walk_param(lc, locale=lc, conditions=("dark", "default")) for lc in LOCALES])
def test_the_dark_theme_reaches_every_screen(locale):
    dark, light = walked("dark", locale), walked("default", locale)
    assert len(dark) > 90
    bad = sorted(
        {
            f"{s.name}: {what} {bg}"
            for s in dark
            for what, bg in _surfaces(s)
            if _luminance(bg) > 0.25 and not what.endswith(LIGHT_BY_DESIGN)
        }
    )
    assert not bad, "\n".join(bad[:20])
    for s in dark:  # the status bar's icons and clock are light on every screen
        assert _luminance(_status_bar_fg(s)) > 0.8, s.name
    # and the light theme is light where it is not dark by design
    bad = sorted(
        {
            f"{s.name}: {what} {bg}"
            for s in light
            if not s.name.startswith("in call")
            for what, bg in _surfaces(s)
            if _luminance(bg) < 0.5 and not what.startswith(DARK_BY_DESIGN)
        }
    )
    assert not bad, "\n".join(bad[:20])
    # the status bar's clock reads against the window under it in both themes
    for s in dark + light:
        window = s.roots[0].style.get("bg")
        if isinstance(window, tuple):
            assert contrast(_status_bar_fg(s), window) >= 3, s.name
