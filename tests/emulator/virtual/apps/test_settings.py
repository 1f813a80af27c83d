"""Settings > Display's brightness slider as a Pixel's: `system screen_brightness` 1..255, the track in SettingsLib's
gamma space. Driven as clients drive it - `input tap` / `input swipe` through the real adb server, uiautomator2's
swipe - and read back with `settings get`, the hierarchy and the screenshot (where the thumb is drawn)."""

from __future__ import annotations

import io
import re

import pytest
from PIL import Image

from tests.emulator.virtual.apps.devshell import sh

SEEKBAR = "com.android.settings:id/brightness_seekbar"


def _dump(adb_cli, vdevice) -> str:
    return sh(adb_cli, vdevice.serial, "uiautomator dump /dev/tty", stderr=False)


def _bounds(dump: str, rid: str) -> tuple[int, int, int, int]:
    m = re.search(rf'{rid}"[^>]*bounds="\[(\d+),(\d+)\]\[(\d+),(\d+)\]"', dump)
    assert m is not None, rid
    return tuple(int(g) for g in m.groups())  # type: ignore[return-value]


def _brightness(adb_cli, vdevice) -> str:
    return sh(adb_cli, vdevice.serial, "settings get system screen_brightness", stderr=False).strip()


def _summary(dump: str) -> str:
    """The percentage under "Brightness level"."""
    m = re.search(r'text="Brightness level"[^>]*/>\s*<node [^>]*text="(\d+%)"', dump)
    assert m is not None, dump
    return m.group(1)


def _open_display(adb_cli, vdevice) -> tuple[int, int, int, int]:
    sh(adb_cli, vdevice.serial, "am start -a android.settings.DISPLAY_SETTINGS")
    dump = _dump(adb_cli, vdevice)
    assert f'resource-id="{SEEKBAR}" class="android.widget.SeekBar"' in dump
    assert 'content-desc="Brightness level"' in dump
    return _bounds(dump, SEEKBAR)


def _thumb_fraction(adb_cli, vdevice, bounds: tuple[int, int, int, int]) -> float:
    """Where the thumb is drawn on the screencap, as a fraction of the track (the SeekBar less half its height at
    each end): the middle of what differs from the background on a row above the track line but inside the thumb."""
    png = adb_cli("-s", vdevice.serial, "exec-out", "screencap -p").stdout
    img = Image.open(io.BytesIO(png)).convert("RGB")
    l, t, r, b = bounds
    h = b - t
    y = (t + b) // 2 - h // 5  # the thumb's radius is a quarter of the height, the track line a tenth
    background = img.getpixel((l + 1, t + 1))
    xs = [x for x in range(l, r) if img.getpixel((x, y)) != background]
    assert xs, "no thumb drawn"
    inset = h / 2
    return ((min(xs) + max(xs)) / 2 - l - inset) / (r - l - 2 * inset)


def test_the_slider_ends_write_1_and_255(vdevice, adb_cli):
    l, t, r, b = _open_display(adb_cli, vdevice)
    cy = (t + b) // 2
    sh(adb_cli, vdevice.serial, f"input tap {r - 1} {cy}")
    assert _brightness(adb_cli, vdevice) == "255"
    assert _summary(_dump(adb_cli, vdevice)) == "100%"
    # dragged to the minimum, as a finger does
    sh(adb_cli, vdevice.serial, f"input swipe {r - 10} {cy} {l + 1} {cy} 300")
    assert _brightness(adb_cli, vdevice) == "1"  # a Pixel's minimum, not 0
    assert _summary(_dump(adb_cli, vdevice)) == "0%"
    sh(adb_cli, vdevice.serial, f"input swipe {l + 10} {cy} {r + 50} {cy} 300")  # past the end: the maximum
    assert _brightness(adb_cli, vdevice) == "255"


def test_the_track_is_in_gamma_space(vdevice, adb_cli):
    """Half the track is not half the range: SettingsLib's hybrid log-gamma puts 22 there (the lower half of the
    track covers 1..22), and a quarter 6."""
    l, t, r, b = _open_display(adb_cli, vdevice)
    cy, inset = (t + b) // 2, (b - t) // 2
    track = r - l - 2 * inset
    sh(adb_cli, vdevice.serial, f"input tap {l + inset + track // 2} {cy}")
    assert int(_brightness(adb_cli, vdevice)) in range(21, 24)
    assert _summary(_dump(adb_cli, vdevice)) in ("49%", "50%", "51%")
    sh(adb_cli, vdevice.serial, f"input tap {l + inset + track // 4} {cy}")
    assert int(_brightness(adb_cli, vdevice)) in range(5, 8)


@pytest.mark.parametrize(("level", "fraction", "percent"), [("1", 0.0, "0%"), ("22", 0.5, "50%"), ("102", 0.83, "83%")])
def test_settings_put_moves_the_thumb(vdevice, adb_cli, level, fraction, percent):
    """A value written with `settings put` (AndroidWorld's set_brightness writes 1 and 255) is where the thumb
    stands and what the summary says; 255 at the end of the track."""
    bounds = _open_display(adb_cli, vdevice)
    sh(adb_cli, vdevice.serial, f"settings put system screen_brightness {level}")
    sh(adb_cli, vdevice.serial, "am start -a android.settings.DISPLAY_SETTINGS")  # the page drawn again
    assert _summary(_dump(adb_cli, vdevice)) == percent
    assert _thumb_fraction(adb_cli, vdevice, bounds) == pytest.approx(fraction, abs=0.02)
    sh(adb_cli, vdevice.serial, "settings put system screen_brightness 255")
    sh(adb_cli, vdevice.serial, "am start -a android.settings.DISPLAY_SETTINGS")
    assert _summary(_dump(adb_cli, vdevice)) == "100%"
    assert _thumb_fraction(adb_cli, vdevice, bounds) == pytest.approx(1.0, abs=0.02)


def test_uiautomator2_drags_the_thumb_to_the_minimum(u2dev, vdevice, adb_cli):
    # as AndroidWorld's SystemBrightnessMin starts
    sh(adb_cli, vdevice.serial, "settings put system screen_brightness 255")
    l, t, r, b = _open_display(adb_cli, vdevice)
    slider = u2dev(resourceId=SEEKBAR)
    assert slider.info["className"] == "android.widget.SeekBar"
    cy = (t + b) // 2
    u2dev.swipe(r - (b - t) // 2, cy, l, cy, duration=0.3)
    assert _brightness(adb_cli, vdevice) == "1"
    assert u2dev(text="0%").exists
