"""Broccoli's shared pieces: its green app bars (Material's PrimarySurface toolbars) and the popup menus its
toolbars and Spinner open (AppCompat's ListPopupWindow over the screen)."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Sequence
from typing import Any

from ..ui import dialogs
from ..ui import widgets as w
from ..ui.layout import Ctx, Row, V, vlist
from ..ui.theme import Color
from ..ui.view import View
from .broccoli_data import DETAILS

GREEN_800: Color = (46, 125, 50)  # colorPrimary (the app's launcher icon, its accents)
GREEN_100: Color = (200, 230, 201)  # the app bars, kept light as this device's light theme keeps its surfaces
GREEN_200: Color = (165, 214, 167)  # the recipe list's filter bar (colorSecondaryToolbar's place)
PHOTO_DARK: Color = (20, 60, 24)  # the photo placeholder on the dark theme
CHECKED_TEXT = "android.widget.CheckedTextView"


def bar_colors(ctx: Ctx, secondary: bool = False) -> tuple[Color, Color]:
    """(background, foreground) of an app bar: light green with the theme's text on the light theme (the real app
    draws them dark green with white; this device keeps a light theme's large surfaces light), the surface on the
    dark."""
    if ctx.theme.dark:
        return ctx.theme.surface, ctx.theme.text
    return (GREEN_200 if secondary else GREEN_100), ctx.theme.text


def app_bar(
    ctx: Ctx,
    title: str,
    nav: tuple[str, str, w.Click] | None = None,
    actions: list[tuple[str, str, w.Click, str]] | None = None,
    rid: str = "toolbar",
    secondary: bool = False,
    top: int | None = None,
) -> View:
    """A Toolbar (56dp) in the app's colours: its navigation button (an ImageButton without an id, as Toolbar
    makes it), its title (a TextView without an id), its action views."""
    bg, fg = bar_colors(ctx, secondary)
    area = ctx.area
    if top is not None:
        ctx = dataclasses.replace(ctx, area=(area[0], top, area[2], area[3]))
    bar = w.toolbar(ctx, title, nav, actions, rid=rid, bg=bg, height_dp=56)
    for v in bar.walk():
        if v is bar:
            continue
        if v.resource_id.endswith(("android:id/home", ":id/navigation")):
            v.resource_id = ""
        if "icon_color" in v.style:
            v.style["icon_color"] = fg
        if v.cls == w.TEXT:
            v.style["fg"] = fg
            v.style["size"] = ctx.sp(20)
            v.style["bold"] = True
            v.style["ellipsize"] = True
    return bar


def popup_menu(
    ctx: Ctx,
    items: Sequence[tuple[str, Callable[[], Any], bool | None]],
    anchor: tuple[int, int],
    width_dp: float = 200,
    right: bool = True,
    rid: str = "title",
    cls: str = w.TEXT,
) -> View:
    """A popup list of (label, on_click, checked or None) dropped from `anchor` (x, y): at the screen's right edge
    (an overflow menu) or its left (a Spinner's drop-down)."""
    l, t, r, b = ctx.area
    item_h, margin = ctx.dp(48), ctx.dp(8)
    wd = min(ctx.dp(width_dp), r - l - 2 * margin)
    height = min(len(items) * item_h + 2 * margin, b - t - 2 * margin)
    y0 = max(t + margin, min(anchor[1], b - margin - height))
    x0 = (r - margin - wd) if right else max(l + margin, min(anchor[0], r - margin - wd))
    box = (x0, y0, x0 + wd, y0 + height)
    rows = []
    for label, cb, checked in items:

        def build(x: int, y: int, iw: int, label: str = label, cb: Callable[[], Any] = cb, on: Any = checked) -> View:
            row = V(ctx, w.LINEAR, (x, y, x + iw, y + item_h), clickable=True, focusable=True, on_click=cb)
            item = w.text(
                ctx,
                (x + ctx.dp(16), y, x + iw - ctx.dp(16), y + item_h),
                label,
                rid,
                size=16,
                cls=cls,
                style={"ellipsize": True},
            )
            if on is not None:
                item.checkable, item.checked = True, bool(on)
            row.children.append(item)
            return row

        rows.append(Row(item_h, build))
    root = dialogs.popup_window(ctx, box)
    root.children.append(vlist(ctx, "popup_menu", box, rows, cls="android.widget.ListView", pad_top=margin))
    return root


def open_recipe(ctx: Ctx, r: dict[str, Any]) -> None:
    """The list's onListInteraction (and a new recipe saved): the details of the recipe (a copy of it rides along
    in the intent)."""
    ctx.push(DETAILS, {"recipe_id": int(r["recipeId"]), "recipe": dict(r)})
