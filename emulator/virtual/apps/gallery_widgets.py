"""Pieces Simple Gallery Pro's screens share: a folder's square cell (the folders grid's and the destination
picker's `dir_holder`) and a popup menu at the top right (the viewer's overflow and Rotate submenu)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..ui import dialogs
from ..ui import widgets as w
from ..ui.fonts import text_width
from ..ui.layout import Ctx, Row, V, vlist
from ..ui.picture import picture_view
from ..ui.theme import Color
from ..ui.view import View
from .gallery_data import Folder

WHITE: Color = (255, 255, 255)
SCRIM: Color = (38, 38, 38)  # the gradient behind the texts over a thumbnail, at its darkest
RELATIVE = "android.widget.RelativeLayout"


def folder_cell(ctx: Ctx, f: Folder, x: int, y: int, size: int, on_click: Callable[[], Any]) -> View:
    """directory_item_grid_square: the newest medium's picture cropped square, the name and the count over it."""
    box = (x + 1, y + 1, x + size - 1, y + size - 1)
    holder = V(
        ctx,
        RELATIVE,
        (x, y, x + size, y + size),
        "dir_holder",
        clickable=True,
        focusable=True,
        long_clickable=True,
        on_click=on_click,
    )
    holder.children.append(picture_view(ctx, box, f.thumbnail, "crop", rid="dir_thumbnail"))
    pad = ctx.dp(8)
    line = ctx.line_h(14)
    band = (box[0], max(box[1], box[3] - 2 * line - 2 * pad), box[2], box[3])
    holder.children.append(V(ctx, w.IMAGE, band, "dir_shadow_holder", style={"bg": SCRIM}))
    bottom = V(ctx, w.LINEAR, band, "dir_bottom_holder", style={"bg": SCRIM})
    name_box = (band[0] + pad, band[1] + pad // 2, band[2] - pad, band[1] + pad // 2 + line)
    bottom.children.append(w.text(ctx, name_box, f.name, "dir_name", color=WHITE))
    cnt_box = (name_box[0], name_box[3], name_box[2], name_box[3] + line)
    bottom.children.append(w.text(ctx, cnt_box, str(f.count), "photo_cnt", color=WHITE))
    holder.children.append(bottom)
    return holder


def top_menu(ctx: Ctx, items: list[tuple[str, Callable[[], Any]]]) -> View:
    """A popup menu at the top right of the screen (an overflow menu): a ListView of rows titled
    `android:id/title`; a tap outside closes it."""
    l, t, r, b = ctx.area
    item_h = ctx.dp(48)
    top = t + ctx.dp(4)
    widest = max(int(text_width(label, ctx.sp(16))) for label, _ in items)
    wd = min(r - l - ctx.dp(16), max(ctx.dp(180), widest + ctx.dp(48)))
    h = min(b - top - ctx.dp(8), len(items) * item_h + ctx.dp(16))
    box = (r - wd - ctx.dp(8), top, r - ctx.dp(8), top + h)
    root = dialogs.popup_window(ctx, box)
    rows = []
    for label, cb in items:

        def build(x: int, y: int, wd: int, label: str = label, cb: Callable[[], Any] = cb) -> View:
            row = V(ctx, w.LINEAR, (x, y, x + wd, y + item_h), clickable=True, focusable=True, on_click=cb)
            row.children.append(
                w.text(ctx, (x + ctx.dp(16), y, x + wd - ctx.dp(16), y + item_h), label, "android:id/title", size=16)
            )
            return row

        rows.append(Row(item_h, build))
    inner = (box[0], box[1] + ctx.dp(8), box[2], box[3] - ctx.dp(8))
    lst = vlist(ctx, "top_menu", inner, rows, cls="android.widget.ListView")
    root.children.append(lst)
    return root
