"""SystemUI's notification windows: the heads-up (one notification as a card at the top, over the app) and the
notification shade (every notification, newest first, with "Clear all"), both of package com.android.systemui.

A notification is a row as a phone's dump shows one: `com.android.systemui:id/expandableNotificationRow` holding
`android:id/icon`, `android:id/app_name_text`, `android:id/title` and `android:id/text`, inside
`com.android.systemui:id/notification_stack_scroller`. Tapping a row opens it; swiping it sideways dismisses it
(in the shade); swiping the heads-up up puts it away into the shade.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from .systembars import SYSTEMUI
from .textlayout import LINE_SPACING, pill_size, sp_px
from .theme import Theme, mix
from .view import View

if TYPE_CHECKING:  # pragma: no cover
    from ..notifications import Notification
    from .host import Device

SHADE_ROOT_ID = f"{SYSTEMUI}:id/notification_panel"
HEADS_UP_ROOT_ID = f"{SYSTEMUI}:id/heads_up_notification"
SHELL_LABELS = {"en": "Shell", "zh": "Shell"}  # com.android.shell posts `cmd notification post`


def _v(cls: str, bounds: tuple[int, int, int, int], rid: str = "", **kw: Any) -> View:
    style = kw.pop("style", {})
    if rid and ":" not in rid:
        rid = f"{SYSTEMUI}:id/{rid}"
    v = View(cls=cls, bounds=bounds, package=SYSTEMUI, resource_id=rid, **kw)
    v.style.update(style)
    return v


def app_name(model: Device, package: str) -> str:
    pkg = model.packages.get(package)
    if pkg is not None:
        return pkg.label(model.locale)
    return SHELL_LABELS.get(model.locale, package) if package == "com.android.shell" else package


def _row(
    model: Device,
    theme: Theme,
    n: Notification,
    box: tuple[int, int, int, int],
    icon_style: Callable[[str], dict[str, Any]],
    open_it: Callable[[str], None],
    swipe: Callable[[str, int, int], bool],
) -> View:
    s = model.scale
    l, t, r, b = box
    pad = int(16 * s)
    row = _v(
        "android.widget.FrameLayout",
        box,
        "expandableNotificationRow",
        desc=f"{app_name(model, n.package)} notification: {n.title}",
        clickable=True,
        focusable=True,
        long_clickable=True,
        style={"bg": theme.surface, "radius": int(24 * s)},
    )
    row.on_click = lambda key=n.key: open_it(key)
    row.on_scroll = lambda dx, dy, key=n.key: swipe(key, dx, dy)
    isz = int(32 * s)
    row.children.append(
        _v(
            "android.widget.ImageView",
            (l + pad, t + pad, l + pad + isz, t + pad + isz),
            "android:id/icon",
            style=dict(icon_style(n.package), radius=isz // 2),
        )
    )
    x = l + pad + isz + int(12 * s)
    y = t + int(12 * s)
    for rid, text, size, fg, bold in (
        ("android:id/app_name_text", app_name(model, n.package), 12, theme.text2, False),
        ("android:id/title", n.title, 15, theme.text, True),
        ("android:id/text", n.text, 14, theme.text2, False),
    ):
        if text:
            line = _line(model, size)
            row.children.append(
                _v(
                    "android.widget.TextView",
                    (x, y, r - pad, y + line),
                    rid,
                    text=text,
                    # a collapsed notification shows one line of each, cut with an ellipsis
                    style={"fg": fg, "size": _sp(model, size), "bold": bold, "valign": "c", "ellipsize": True},
                )
            )
            y += line
    return row


def _sp(model: Device, v: float) -> int:
    return sp_px(v, model.scale, model.settings)


def _line(model: Device, size: float) -> int:
    """A line of `size` sp text in a row: 20 dp, more when the font scale makes the text taller."""
    return max(int(20 * model.scale), int(_sp(model, size) * LINE_SPACING))


def row_height(model: Device) -> int:
    """A notification row: 12 dp above and below its three lines, 92 dp at least."""
    return max(int(92 * model.scale), int(24 * model.scale) + sum(_line(model, v) for v in (12, 15, 14)))


def build_heads_up(
    model: Device,
    theme: Theme,
    n: Notification,
    width: int,
    top: int,
    icon_style: Callable[[str], dict[str, Any]],
    open_it: Callable[[str], None],
    put_away: Callable[[], None],
) -> View:
    """The heads-up card of `n` below the status bar; swiping it up puts it away (it stays in the shade)."""
    s = model.scale
    m = int(8 * s)
    box = (m, top + m, width - m, top + m + row_height(model))
    root = _v("android.widget.FrameLayout", box, HEADS_UP_ROOT_ID)
    stack = _v("android.view.ViewGroup", box, "notification_stack_scroller")
    root.children.append(stack)

    def swipe(key: str, dx: int, dy: int) -> bool:
        if dy < -abs(dx) or abs(dx) > 60 * s:
            put_away()
            return True
        return False

    stack.children.append(_row(model, theme, n, box, icon_style, open_it, swipe))
    return root


def build_shade(
    model: Device,
    theme: Theme,
    size: tuple[int, int],
    status_h: int,
    nav_h: int,
    icon_style: Callable[[str], dict[str, Any]],
    open_it: Callable[[str], None],
    dismiss: Callable[[str], None],
    clear_all: Callable[[], None],
    collapse: Callable[[], None],
) -> View:
    """The expanded shade over the whole screen: the notifications newest first, "Clear all" under them (when one
    can be cleared), "No notifications" when there are none. Swiping up on it collapses it."""
    W, H = size
    s = model.scale
    zh = model.locale == "zh"
    root = _v(
        "android.widget.FrameLayout",
        (0, 0, W, H),
        SHADE_ROOT_ID,
        style={"bg": mix(theme.bg, (0, 0, 0), 0.55 if not theme.dark else 0.3)},
    )

    def scroll(dx: int, dy: int) -> bool:
        if dy < -abs(dx) and -dy > 48 * s:
            collapse()
            return True
        return False

    root.on_scroll = scroll
    m = int(12 * s)
    top = status_h + int(16 * s)
    bottom = H - nav_h - int(72 * s)
    clip = {"clip": True, "scroll": "v"}
    stack = _v("android.view.ViewGroup", (0, top, W, bottom), "notification_stack_scroller", style=clip)
    root.children.append(stack)
    records = model.notifications.newest_first()
    if not records:
        stack.children.append(
            _v(
                "android.widget.TextView",
                (m, top, W - m, top + int(64 * s)),
                "no_notifications",
                text="无通知" if zh else "No notifications",
                style={"fg": (255, 255, 255), "size": _sp(model, 16), "align": "c", "valign": "c"},
            )
        )

    def swipe(key: str, dx: int, dy: int) -> bool:
        if abs(dx) > abs(dy) and abs(dx) > 60 * s:
            dismiss(key)
            return True
        return False

    y = top
    h = row_height(model)
    for n in records:
        if y + h > bottom:
            break
        stack.children.append(_row(model, theme, n, (m, y, W - m, y + h), icon_style, open_it, swipe))
        y += h + int(4 * s)
    if any(n.clearable for n in records):
        label = "全部清除" if zh else "Clear all"
        bw, bh = pill_size(label, _sp(model, 14), s)
        clear = _v(
            "android.widget.Button",
            (W - m - bw, y + int(8 * s), W - m, y + int(8 * s) + bh),
            "dismiss_text",
            text=label,
            clickable=True,
            focusable=True,
            style={
                "bg": theme.surface,
                "fg": theme.text,
                "radius": bh // 2,
                "size": _sp(model, 14),
                "align": "c",
                "valign": "c",
                "bold": True,
            },
        )
        clear.on_click = clear_all
        root.children.append(clear)
    return root
