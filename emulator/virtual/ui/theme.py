"""Colours of the light and dark themes (Settings > Display > Dark theme switches every app at once)."""

from __future__ import annotations

from dataclasses import dataclass

Color = tuple[int, int, int]


@dataclass(frozen=True)
class Theme:
    dark: bool
    bg: Color
    surface: Color  # cards, dialogs, bars
    surface2: Color  # fields, chips, secondary containers
    text: Color
    text2: Color  # secondary text, hints
    primary: Color
    on_primary: Color
    primary_container: Color
    on_primary_container: Color
    divider: Color
    bubble_in: Color
    bubble_out: Color
    on_bubble_out: Color
    error: Color
    wallpaper: Color
    wallpaper2: Color
    keyboard_bg: Color
    key_bg: Color
    key_fn_bg: Color
    switch_off_track: Color
    switch_off_thumb: Color
    on_error: Color = (255, 255, 255)  # text on `error` (a badge)


LIGHT = Theme(
    dark=False,
    bg=(254, 251, 255),
    surface=(255, 255, 255),
    surface2=(238, 240, 245),
    text=(27, 27, 31),
    text2=(95, 99, 104),
    primary=(26, 115, 232),
    on_primary=(255, 255, 255),
    primary_container=(211, 227, 253),
    on_primary_container=(4, 30, 73),
    divider=(218, 220, 224),
    bubble_in=(233, 236, 242),
    bubble_out=(11, 87, 208),
    on_bubble_out=(255, 255, 255),
    error=(179, 38, 30),
    wallpaper=(60, 96, 150),
    wallpaper2=(118, 148, 190),
    keyboard_bg=(232, 234, 237),
    key_bg=(255, 255, 255),
    key_fn_bg=(206, 210, 217),
    switch_off_track=(225, 226, 236),
    switch_off_thumb=(117, 117, 128),
)

DARK = Theme(
    dark=True,
    bg=(28, 27, 31),
    surface=(41, 42, 45),
    surface2=(53, 55, 60),
    text=(230, 225, 229),
    text2=(154, 160, 166),
    primary=(138, 180, 248),
    on_primary=(0, 40, 100),
    primary_container=(0, 67, 140),
    on_primary_container=(211, 227, 253),
    divider=(68, 71, 78),
    bubble_in=(53, 55, 60),
    bubble_out=(168, 199, 250),
    on_bubble_out=(6, 46, 111),
    error=(242, 184, 181),
    wallpaper=(22, 34, 56),
    wallpaper2=(40, 58, 90),
    keyboard_bg=(32, 33, 36),
    key_bg=(60, 64, 67),
    key_fn_bg=(45, 48, 52),
    switch_off_track=(54, 52, 59),
    switch_off_thumb=(147, 143, 153),
    on_error=(96, 20, 16),
)


def theme_for(dark: bool) -> Theme:
    return DARK if dark else LIGHT


def is_dark(settings: dict[str, dict[str, str]]) -> bool:
    """`settings put secure ui_night_mode 2` = dark, 1 (or anything else) = light."""
    return str(settings.get("secure", {}).get("ui_night_mode", "1")) == "2"


def mix(a: Color, b: Color, t: float) -> Color:
    return (round(a[0] + (b[0] - a[0]) * t), round(a[1] + (b[1] - a[1]) * t), round(a[2] + (b[2] - a[2]) * t))
