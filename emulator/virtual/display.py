"""The display's logical size and density, as WindowManager derives them from the physical panel and the
`wm size` / `wm density` overrides.

The physical size and density are the profile's (what `wm size` / `wm density` print as Physical). `wm size WxH`
stores Settings.Global `display_size_forced` "W,H" (the natural orientation) and `wm density D` Settings.Secure
`display_density_forced`; the display's logical size and density - what apps lay out in, what screenshots,
uiautomator dumps, `dumpsys` and uiautomator2 report - are these overrides when set, else the physical ones. As
DisplayContent.setForcedSize does, a forced size is kept within 200 px and three times the panel's longer side
on each axis, and a size or density equal to the physical one is no override at all (cleared). A value the
device cannot read (set by hand with `settings put`) is ignored.
"""

from __future__ import annotations

from collections.abc import Mapping

SIZE_SETTING = ("global", "display_size_forced")
DENSITY_SETTING = ("secure", "display_density_forced")
MIN_SIZE = 200  # DisplayContent: the smallest forced width or height
MAX_SCALE = 3  # ... and the largest, as a multiple of the panel's longer side
MIN_DENSITY = 72  # WindowManagerShellCommand: "Error: density must be >= 72"
DENSITY_DEFAULT = 160  # DisplayMetrics.DENSITY_DEFAULT: 1 dp = 1 px


def valid_size(size: tuple[int, int], physical: tuple[int, int]) -> tuple[int, int]:
    """`size` within the bounds WindowManager keeps a forced size in."""
    top = max(physical) * MAX_SCALE
    return min(max(size[0], MIN_SIZE), top), min(max(size[1], MIN_SIZE), top)


def forced_size(settings: Mapping[str, Mapping[str, str]], physical: tuple[int, int]) -> tuple[int, int] | None:
    """The `wm size` override in the natural orientation, or None."""
    parts = str(settings.get(SIZE_SETTING[0], {}).get(SIZE_SETTING[1], "") or "").split(",")
    if len(parts) != 2 or not all(p.strip().isdigit() for p in parts):
        return None
    size = valid_size((int(parts[0]), int(parts[1])), physical)
    return None if size == physical else size


def forced_density(settings: Mapping[str, Mapping[str, str]], physical: int) -> int | None:
    """The `wm density` override, or None."""
    value = str(settings.get(DENSITY_SETTING[0], {}).get(DENSITY_SETTING[1], "") or "").strip()
    if not value.isdigit() or int(value) < MIN_DENSITY or int(value) == physical:
        return None
    return int(value)
