"""System UI windows: the status bar (fixed clock, notification icons, wifi, signal, battery) and the navigation bar.

The status bar clock is fixed at 12:00 so screenshots are reproducible; `settings put system
droidharness_clock 09:41` changes it. Navigation mode follows `settings secure navigation_mode`
(2 = gesture handle, the Pixel default; 0 = three buttons: Back, Home, Overview).
"""

from __future__ import annotations

import datetime
from collections.abc import Callable
from typing import TYPE_CHECKING

from ..clock import zone_named
from .fonts import text_width
from .textlayout import sp_px
from .theme import Color, Theme
from .view import View

if TYPE_CHECKING:  # pragma: no cover
    from .host import Device

SYSTEMUI = "com.android.systemui"
# the roots of the status and navigation bar windows: drawn and touchable, but not in a device's compressed
# `uiautomator dump` / uiautomator2 dumpWindowHierarchy, which give the app window (and the IME when shown)
SYSTEM_BAR_ROOT_IDS = (f"{SYSTEMUI}:id/status_bar_container", f"{SYSTEMUI}:id/navigation_bar_frame")
DEFAULT_CLOCK = "12:00"


def clock_text(model: Device) -> str:
    """The status bar's clock: `system droidharness_clock` when set, else the device's time once its clock was set
    by hand (`cmd alarm set-time`, root's `date`), else the fixed reproducible 12:00."""
    fixed = model.settings.get("system", {}).get("droidharness_clock", "")
    if fixed:
        return fixed
    if model.clock_set:
        return datetime.datetime.fromtimestamp(model.now(), zone_named(model.time_zone)).strftime("%H:%M")
    return DEFAULT_CLOCK


def gesture_nav(model: Device) -> bool:
    return str(model.settings.get("secure", {}).get("navigation_mode", "2")) != "0"


def bar_heights(model: Device) -> tuple[int, int]:
    """(status bar, navigation bar) heights in px."""
    s = model.scale
    return int(round(24 * s)), int(round((20 if gesture_nav(model) else 48) * s))


def _v(cls: str, bounds: tuple[int, int, int, int], rid: str = "", **kw) -> View:
    style = kw.pop("style", {})
    v = View(cls=cls, bounds=bounds, package=SYSTEMUI, resource_id=f"{SYSTEMUI}:id/{rid}" if rid else "", **kw)
    v.style.update(style)
    return v


def status_bar(model: Device, width: int, height: int, fg: Color, battery: int | None = None) -> View:
    s = model.scale
    zh = model.locale == "zh"
    if battery is None:
        battery = model.hw.battery.level  # the emulator console's `power capacity`
    root = _v("android.widget.FrameLayout", (0, 0, width, height), "status_bar_container")
    bar = _v("android.widget.FrameLayout", (0, 0, width, height), "status_bar")
    root.children.append(bar)
    pad = int(16 * s)
    size = sp_px(14, s, model.settings)  # SystemUI's status_bar_clock_size: 14 sp
    clock = clock_text(model)
    clock_w = max(int(56 * s), int(text_width(clock, size)) + int(8 * s))
    bar.children.append(
        _v(
            "android.widget.TextView",
            (pad, 0, pad + clock_w, height),
            "clock",
            text=clock,
            desc=clock,
            style={"fg": fg, "size": size, "valign": "c"},
        )
    )
    isz = int(16 * s)
    top = (height - isz) // 2
    # the posting apps' notification icons after the clock, newest first (at most four)
    posters = list(dict.fromkeys(n.package for n in model.notifications.newest_first()))[:4]
    if posters:
        nx = pad + clock_w
        icons = _v(
            "android.widget.LinearLayout", (nx, 0, nx + len(posters) * (isz + int(6 * s)), height), "notificationIcons"
        )
        for p in posters:
            glyph = "message" if p == "com.google.android.apps.messaging" else "bell"
            icons.children.append(
                _v("android.widget.ImageView", (nx, top, nx + isz, top + isz), style={"icon": glyph, "icon_color": fg})
            )
            nx += isz + int(6 * s)
        bar.children.append(icons)
    x = width - pad
    # battery text + icon
    pct, pct_size = f"{battery}%", sp_px(12, s, model.settings)
    bx = x - max(int(58 * s), isz + int(2 * s) + int(text_width(pct, pct_size)) + int(2 * s))
    batt = _v(
        "android.widget.LinearLayout",
        (bx, 0, x, height),
        "battery",
        desc=(f"电池电量为百分之 {battery}。" if zh else f"Battery {battery} percent."),
    )
    batt.children.append(
        _v("android.widget.ImageView", (bx, top, bx + isz, top + isz), style={"icon": "battery", "icon_color": fg})
    )
    batt.children.append(
        _v(
            "android.widget.TextView",
            (bx + isz + int(2 * s), 0, x, height),
            "battery_percentage_view",
            text=pct,
            style={"fg": fg, "size": pct_size, "align": "r"},
        )
    )
    x = bx - int(4 * s)
    wifi_on = model.settings.get("global", {}).get("wifi_on", "1") == "1"
    airplane = model.settings.get("global", {}).get("airplane_mode_on", "0") == "1"
    if not airplane:
        bar.children.append(
            _v(
                "android.widget.ImageView",
                (x - isz, top, x, top + isz),
                "mobile_signal",
                desc="手机信号满格。" if zh else "Phone signal full.",
                style={"icon": "signal", "icon_color": fg},
            )
        )
        x -= isz + int(4 * s)
    else:
        bar.children.append(
            _v(
                "android.widget.ImageView",
                (x - isz, top, x, top + isz),
                "airplane",
                desc="飞行模式。" if zh else "Airplane mode.",
                style={"icon": "A", "icon_color": fg},
            )
        )
        x -= isz + int(4 * s)
    if wifi_on:
        bar.children.append(
            _v(
                "android.widget.ImageView",
                (x - isz, top, x, top + isz),
                "wifi_signal",
                desc="WLAN 信号满格。" if zh else "Wifi signal full.",
                style={"icon": "wifi", "icon_color": fg},
            )
        )
        x -= isz + int(4 * s)
    if model.settings.get("global", {}).get("bluetooth_on", "0") == "1":
        bar.children.append(
            _v(
                "android.widget.ImageView",
                (x - isz, top, x, top + isz),
                "bluetooth",
                desc="蓝牙已开启。" if zh else "Bluetooth on.",
                style={"icon": "bluetooth", "icon_color": fg},
            )
        )
    bar.children.append(batt)
    return root


def navigation_bar(
    model: Device,
    width: int,
    height: int,
    screen_h: int,
    theme: Theme,
    fg: Color,
    bg: Color | None,
    press: Callable[[int], None],
) -> View:
    s = model.scale
    zh = model.locale == "zh"
    top = screen_h - height
    root = _v(
        "android.widget.FrameLayout",
        (0, top, width, screen_h),
        "navigation_bar_frame",
        style={"bg": bg} if bg is not None else {},
    )
    if gesture_nav(model):
        hw, hh = int(108 * s), max(2, int(4 * s))
        cx, cy = width // 2, top + height // 2
        root.children.append(
            _v(
                "android.view.View",
                (cx - hw // 2, cy - hh // 2, cx + hw // 2, cy + hh // 2 + 1),
                "home_handle",
                style={"bg": fg, "radius": hh // 2},
            )
        )
        return root
    bw = int(72 * s)
    items = [
        ("nav_back", "back", "返回" if zh else "Back", 4),
        ("nav_home", "home", "主屏幕" if zh else "Home", 3),
        ("nav_recents", "recent_apps", "概览" if zh else "Overview", 187),
    ]
    gap = min(int(48 * s), max(0, (width - 3 * bw) // 4))
    total = 3 * bw + 2 * gap
    x = (width - total) // 2
    for icon, rid, desc, code in items:
        b = _v(
            "android.widget.ImageView",
            (x, top, x + bw, screen_h),
            rid,
            desc=desc,
            clickable=True,
            focusable=True,
            long_clickable=code == 3,
            style={"icon": icon, "icon_color": fg, "inset": max(2, (height - int(22 * s)) // 2)},
        )
        b.on_click = lambda code=code: press(code)
        root.children.append(b)
        x += bw + gap
    return root
