"""Joplin's screen header (its ScreenHeader component), shared by the lists and the note screen."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..ui import widgets as w
from ..ui.layout import Ctx, V
from ..ui.view import View

GROUP = "android.view.ViewGroup"
HEADER_DP = 56


def header(
    ctx: Ctx,
    title: str,
    left: tuple[str, str, Callable[[], Any]] | None,
    right: list[tuple[str, str, Callable[[], Any]]] | None = None,
) -> View:
    """ScreenHeader: a button at the start (Sidebar or Back), the title, buttons at the end (by their labels)."""
    l, t, r, _ = ctx.area
    h = ctx.dp(HEADER_DP)
    bar = V(ctx, GROUP, (l, t, r, t + h), style={"bg": ctx.theme.surface})
    isz = ctx.dp(48)
    y0 = t + (h - isz) // 2
    x = l + ctx.dp(4)
    if left is not None:
        icon, label, cb = left
        b = w.icon_button(ctx, (x, y0, x + isz, y0 + isz), icon, label, cb)
        b.cls = GROUP
        bar.children.append(b)
        x += isz + ctx.dp(4)
    else:
        x = l + ctx.dp(16)
    ax = r - ctx.dp(4)
    buttons: list[View] = []
    for icon, label, cb in reversed(right or []):
        b = w.icon_button(ctx, (ax - isz, y0, ax, y0 + isz), icon, label, cb)
        b.cls = GROUP
        buttons.insert(0, b)
        ax -= isz
    bar.children.append(w.text(ctx, (x, t, ax, t + h), title, size=18, bold=True, style={"ellipsize": True}))
    bar.children.extend(buttons)
    return bar
