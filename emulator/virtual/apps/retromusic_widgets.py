"""Pieces Retro Music's screens share: its strings in the device's language, the top app bar (TopAppBarLayout's
MaterialToolbar: the search navigation icon, the centred title, "More options"), the song row of `item_list` /
`item_queue` (`image`, `title`, `text`, the overflow `menu`), AppCompat's PopupMenu (one `title` row an item), a
list's empty view (`emptyText`), and a MaterialAlertDialog."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from ..ui import dialogs
from ..ui import widgets as w
from ..ui.fonts import text_width
from ..ui.layout import Ctx, Row, V, vlist
from ..ui.view import View
from .retromusic_data import Song, tr

ACCENT = (93, 95, 239)  # the default accent (Material You off: #5D5FEF)
Click = w.Click
MENU_ITEM = "androidx.appcompat.view.menu.ListMenuItemView"
TOOLBAR = "androidx.appcompat.widget.Toolbar"


def s(ctx: Ctx, key: str, *args: Any) -> str:
    text = tr(ctx.zh, key)
    return text % args if args else text


# --- navigation (the nav graph's back stack over the tab shown, and the player panel) ------------------------------
def routes(ctx: Ctx) -> list[dict[str, Any]]:
    """The destinations over the tab, innermost last (a playlist, an album, the playing queue, search...)."""
    stack: list[dict[str, Any]] = ctx.ui.setdefault("routes", [])
    return stack


def push(ctx: Ctx, route: dict[str, Any]) -> None:
    routes(ctx).append(route)
    ctx.ui["panel"] = False
    ctx.ui["selected"] = []
    ctx.dismiss_dialog()


def pop(ctx: Ctx) -> bool:
    stack = routes(ctx)
    if not stack:
        return False
    stack.pop()
    ctx.ui["selected"] = []
    return True


def toolbar(
    ctx: Ctx,
    title: str,
    nav: tuple[str, str, Click] | None,
    actions: Sequence[tuple[str, str, Click, str]] = (),
    overflow: Click | None = None,
    top: int | None = None,
    subtitle: str = "",
    centered: bool = True,
    rid: str = "toolbar",
) -> View:
    """A MaterialToolbar (`toolbar`): the navigation icon (icon, description, click), the title (centred on the
    library's tabs), action icons (icon, description, click, id) and the overflow button."""
    l, t, r, _ = ctx.area
    t = t if top is None else top
    h = ctx.dp(64)
    th = ctx.theme
    bar = V(ctx, TOOLBAR, (l, t, r, t + h), rid, style={"bg": th.bg})
    isz = ctx.dp(48)
    y = t + (h - isz) // 2
    left = l + ctx.dp(16)
    if nav is not None:
        icon, desc, cb = nav
        bar.children.append(w.icon_button(ctx, (l + ctx.dp(4), y, l + ctx.dp(4) + isz, y + isz), icon, desc, cb))
        left = l + ctx.dp(4) + isz + ctx.dp(8)
    right = r - ctx.dp(4)
    icons: list[View] = []
    if overflow is not None:
        icons.insert(0, w.icon_button(ctx, (right - isz, y, right, y + isz), "more", s(ctx, "more_options"), overflow))
        right -= isz
    for icon, desc, cb, rid in reversed(list(actions)):
        icons.insert(0, w.icon_button(ctx, (right - isz, y, right, y + isz), icon, desc, cb, rid=rid))
        right -= isz
    if centered:
        half = max(0, min((l + r) // 2 - left, right - (l + r) // 2))
        box = ((l + r) // 2 - half, t, (l + r) // 2 + half, t + h)
    else:
        box = (left, t, max(left, right), t + h)
    if subtitle:
        th_h = ctx.line_h(20)
        y0 = t + (h - th_h - ctx.line_h(14)) // 2
        bar.children.append(
            w.text(ctx, (box[0], y0, box[2], y0 + th_h), title, size=20, align="c" if centered else "l")
        )
        bar.children.append(
            w.text(
                ctx,
                (box[0], y0 + th_h, box[2], y0 + th_h + ctx.line_h(14)),
                subtitle,
                size=14,
                color=th.text2,
                align="c" if centered else "l",
            )
        )
    else:
        bar.children.append(w.text(ctx, box, title, size=20, align="c" if centered else "l", style={"ellipsize": True}))
    bar.children.extend(icons)
    return bar


def song_row(
    ctx: Ctx,
    song: Song,
    on_click: Click,
    on_menu: Callable[[int], None] | None,
    playing: bool = False,
    text: str | None = None,
    rid: str = "",
    on_long_click: Click = None,
    activated: bool = False,
) -> Row:
    """A song as `item_list` shows it: its cover (`image`), `title`, `text` (the artist), the overflow `menu`
    (the popup opens under it: `on_menu(its bottom)`)."""
    h = max(ctx.dp(64), ctx.line_h(16) + ctx.line_h(14) + ctx.dp(16))
    th = ctx.theme

    def build(x: int, y: int, wd: int) -> View:
        row = V(
            ctx,
            "android.view.ViewGroup",
            (x, y, x + wd, y + h),
            rid,
            clickable=True,
            focusable=True,
            long_clickable=True,
            on_click=on_click,
            on_long_click=on_long_click or (lambda: None),
            style={"bg": th.primary_container} if activated else {},
        )
        isz = ctx.dp(45)
        iy = y + (h - isz) // 2
        row.children.append(
            V(
                ctx,
                w.IMAGE,
                (x + ctx.dp(16), iy, x + ctx.dp(16) + isz, iy + isz),
                "image",
                style={"bg": th.surface2, "radius": ctx.dp(8), "icon": "sound", "icon_color": th.text2},
            )
        )
        tx = x + ctx.dp(16) + isz
        mx = x + wd - ctx.dp(48) if on_menu is not None else x + wd - ctx.dp(8)
        ty = y + (h - ctx.line_h(16) - ctx.line_h(14)) // 2
        color = ACCENT if playing else th.text
        row.children.append(
            w.text(
                ctx,
                (tx + ctx.dp(16), ty, mx - ctx.dp(16), ty + ctx.line_h(16)),
                song.title,
                "title",
                size=16,
                color=color,
                style={"ellipsize": True},
            )
        )
        row.children.append(
            w.text(
                ctx,
                (tx + ctx.dp(16), ty + ctx.line_h(16), mx - ctx.dp(16), ty + ctx.line_h(16) + ctx.line_h(14)),
                song.artist_name if text is None else text,
                "text",
                size=14,
                color=th.text2,
                style={"ellipsize": True},
            )
        )
        if on_menu is not None:
            my = y + (h - ctx.dp(48)) // 2
            row.children.append(
                w.icon(
                    ctx,
                    (mx, my, mx + ctx.dp(48), my + ctx.dp(48)),
                    "more",
                    th.text2,
                    "menu",
                    on_click=lambda: on_menu(my + ctx.dp(48)),
                )
            )
        return row

    return Row(h, build)


def popup_menu(ctx: Ctx, items: Sequence[tuple[str, Click]], top: int) -> View:
    """AppCompat's PopupMenu at the end of the window, under its anchor (`top`) or above it when it does not fit:
    a `title` a row."""
    l, t, r, b = ctx.mgr.dialog_area()
    item_h = ctx.dp(48)
    widest = max(int(text_width(label, ctx.sp(16))) for label, _ in items)
    wd = min(r - l - ctx.dp(16), max(ctx.dp(180), widest + ctx.dp(40)))
    h = min(b - t - ctx.dp(16), ctx.dp(16) + len(items) * item_h)
    y0 = top if top + h <= b - ctx.dp(8) else max(t + ctx.dp(8), top - ctx.dp(48) - h)
    box = (r - wd - ctx.dp(8), y0, r - ctx.dp(8), y0 + h)
    root = dialogs.popup_window(ctx, box)
    rows = []
    for label, cb in items:

        def build(x: int, y: int, wd: int, label: str = label, cb: Click = cb) -> View:
            item = V(ctx, MENU_ITEM, (x, y, x + wd, y + item_h), clickable=True, focusable=True, on_click=cb)
            item.children.append(
                w.text(ctx, (x + ctx.dp(16), y, x + wd - ctx.dp(16), y + item_h), label, "title", size=16)
            )
            return item

        rows.append(Row(item_h, build))
    root.children.append(
        vlist(
            ctx, "popup", (box[0], box[1] + ctx.dp(8), box[2], box[3] - ctx.dp(8)), rows, cls="android.widget.ListView"
        )
    )
    return root


def empty_row(ctx: Ctx, text: str, height: int) -> Row:
    """A list's empty view (`android:id/empty`): the emoji and `emptyText`."""

    def build(x: int, y: int, wd: int) -> View:
        box = V(ctx, w.LINEAR, (x, y, x + wd, y + height), "android:id/empty")
        mid = y + height // 2
        box.children.append(
            w.text(ctx, (x, mid - ctx.dp(64), x + wd, mid - ctx.dp(8)), "\U0001f631", "emptyEmoji", size=36, align="c")
        )
        box.children.append(w.text(ctx, (x, mid, x + wd, mid + ctx.dp(32)), text, "emptyText", size=18, align="c"))
        return box

    return Row(height, build)


def alert(
    ctx: Ctx,
    title: str,
    message: str = "",
    buttons: Sequence[tuple[str, str, Click]] = (),
    rows: list[Row] | None = None,
) -> View:
    """A MaterialAlertDialog of the app (`alertTitle`, `android:id/message`, `android:id/button1` / `button2`)."""
    return dialogs.dialog(ctx, title, message, list(buttons), rows=rows, on_cancel=ctx.dismiss_dialog)


__all__ = [
    "ACCENT",
    "MENU_ITEM",
    "Click",
    "alert",
    "empty_row",
    "pop",
    "popup_menu",
    "push",
    "routes",
    "s",
    "song_row",
    "toolbar",
]
