"""VLC's building blocks, with the real layouts' resource ids and content descriptions: the main toolbar and the
contextual action bar of a selection, the bottom navigation, an item of a media list - a card of the video grid
(`video_grid_card`), a row of the video list (`video_list_card`), of the file browser (`browser_item`) or of a
playlist (`audio_browser_item`) -, the empty / missing-permission state (`view_empty_loading`), a bottom sheet and a
popup menu."""

from __future__ import annotations

import functools
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from ..ui import dialogs
from ..ui import widgets as w
from ..ui.fonts import text_width, wrap
from ..ui.layout import Ctx, Row, V, vlist
from ..ui.theme import Color
from ..ui.view import View

ORANGE: Color = (255, 136, 0)  # VLC's orange500
THUMB_BG: Color = (66, 66, 66)
BUTTON_BG: Color = (230, 81, 0)  # a filled button's orange, white text readable on it in both themes
NAV = (
    ("nav_video", "Video", "视频", "play"),
    ("nav_audio", "Audio", "音频", "sound"),
    ("nav_directories", "Browse", "浏览", "storage"),
    ("nav_playlists", "Playlists", "播放列表", "menu"),
    ("nav_more", "More", "更多", "more"),
)
Click = Callable[[], Any] | None
VIDEO_ROW_IDS = ("", "ml_item_thumbnail", "ml_item_title", "ml_item_time")  # video_list_card


@dataclass(frozen=True)
class Entry:
    """One item of a list: `key` names it for the selection ("m:ID" a media, "g:NAME" a video group, "f:PATH" a
    file, "d:PATH" a folder, "p:ID" a playlist)."""

    key: str
    title: str
    subtitle: str
    desc: str
    kind: str  # video | group | audio | folder | file | playlist
    seen: bool = False


def toolbar(ctx: Ctx, title: str, actions: list[tuple[str, str, Click, str]], up: Click = None) -> View:
    """The app bar (`main_toolbar`): an up arrow on secondary screens, the title, the action icons."""
    nav = ("back", ctx.tr("Navigate up", "向上导航"), up) if up else None
    return w.toolbar(ctx, title, nav, actions, rid="main_toolbar", bg=ctx.theme.surface)


def action_bar(ctx: Ctx, count: int, items: list[tuple[str, str, str, Click]], close: Click) -> View:
    """The contextual action bar of a selection: Done, "N selected", the mode's items (icon, title, id, click)."""
    l, t, r, _ = ctx.area
    h = ctx.dp(64)
    bar = V(ctx, w.VIEWGROUP, (l, t, r, t + h), "action_mode_bar", style={"bg": ctx.theme.surface2})
    isz = ctx.dp(48)
    top = t + (h - isz) // 2
    bar.children.append(
        w.icon_button(
            ctx,
            (l + ctx.dp(4), top, l + ctx.dp(4) + isz, top + isz),
            "close",
            ctx.tr("Done", "完成"),
            close,
            "action_mode_close_button",
        )
    )
    x = r - ctx.dp(4)
    icons: list[View] = []
    for name, label, rid, cb in reversed(items):
        icons.insert(0, w.icon_button(ctx, (x - isz, top, x, top + isz), name, label, cb, rid))
        x -= isz
    title_box = (l + ctx.dp(64), t, max(l + ctx.dp(64), x - ctx.dp(4)), t + h)
    bar.children.append(
        w.text(ctx, title_box, ctx.tr(f"{count} selected", f"已选择 {count} 项"), "action_bar_title", size=20)
    )
    bar.children.extend(icons)
    return bar


def bottom_nav(ctx: Ctx, current: str, select: Callable[[str], None]) -> tuple[View, int]:
    """The BottomNavigationView (`navigation`): Video, Audio, Browse, Playlists, More."""
    l, _, r, b = ctx.area
    h = max(ctx.dp(80), ctx.dp(52) + ctx.line_h(12))
    items: list[tuple[str, bool, Click, str]] = [
        (ctx.tr(en, zh), rid == current, functools.partial(select, rid), rid) for rid, en, zh, _ in NAV
    ]
    bar = w.tabs(ctx, (l, b - h, r, b), items, bottom_nav=True, icons=[i for *_, i in NAV], rid="navigation")
    return bar, h


def _thumb(ctx: Ctx, box: tuple[int, int, int, int], entry: Entry, rid: str) -> View:
    icon = {"group": "menu", "folder": "storage", "audio": "sound", "playlist": "menu"}.get(entry.kind, "play")
    v = w.icon(ctx, box, icon, (200, 200, 200), rid, bg=THUMB_BG, radius=ctx.dp(4))
    v.style["inset"] = (box[3] - box[1]) // 4
    return v


def _more(ctx: Ctx, box: tuple[int, int, int, int], on_more: Click) -> View:
    v = w.icon(
        ctx,
        box,
        "more",
        ctx.theme.text2,
        "item_more",
        ctx.tr("More Actions", "更多操作"),
        cls=w.IMAGE,
        on_click=on_more,
    )
    v.style["inset"] = ctx.dp(10)
    return v


def card(
    ctx: Ctx,
    box: tuple[int, int, int, int],
    entry: Entry,
    selected: bool,
    on_click: Click,
    on_long: Click,
    on_more: Click,
) -> View:
    """A card of the video grid (`video_grid_card`): the thumbnail, the title, the duration (a group: its count)."""
    l, t, r, b = box
    th = ctx.theme
    m = ctx.dp(6)
    root = V(
        ctx,
        w.VIEWGROUP,
        box,
        "",
        desc=entry.desc,
        clickable=True,
        long_clickable=True,
        focusable=True,
        selected=selected,
        on_click=on_click,
        on_long_click=on_long,
        style={"bg": th.primary_container} if selected else {},
    )
    thumb_h = (r - l - 2 * m) * 10 // 16
    tb = (l + m, t + m, r - m, t + m + thumb_h)
    container = V(ctx, "android.widget.FrameLayout", tb, "container")
    container.children.append(_thumb(ctx, tb, entry, "ml_item_thumbnail"))
    if entry.seen:
        sz = ctx.dp(20)
        container.children.append(w.icon(ctx, (tb[2] - sz - m, tb[1] + m, tb[2] - m, tb[1] + m + sz), "check", ORANGE))
    if selected:
        sz = ctx.dp(28)
        cx, cy = (tb[0] + tb[2]) // 2, (tb[1] + tb[3]) // 2
        box2 = (cx - sz // 2, cy - sz // 2, cx + sz // 2, cy + sz // 2)
        container.children.append(w.icon(ctx, box2, "check", (255, 255, 255), "selected_check", bg=ORANGE))
    root.children.append(container)
    y = tb[3] + ctx.dp(4)
    more_w = ctx.dp(36)
    title_h = ctx.line_h(16)
    root.children.append(
        w.text(
            ctx, (l + m, y, r - m - more_w, y + title_h), entry.title, "ml_item_title", 16, style={"ellipsize": True}
        )
    )
    y += title_h
    sub_h = ctx.line_h(12)
    root.children.append(
        w.text(ctx, (l + m, y, r - m - more_w, y + sub_h), entry.subtitle, "ml_item_time", 12, th.text2)
    )
    root.children.append(_more(ctx, (r - m - more_w, tb[3], r - m, tb[3] + title_h + sub_h + ctx.dp(8)), on_more))
    return root


def card_height(ctx: Ctx, width: int) -> int:
    return (width - ctx.dp(12)) * 10 // 16 + ctx.dp(6 + 4 + 12) + ctx.line_h(16) + ctx.line_h(12)


def row(
    ctx: Ctx,
    box: tuple[int, int, int, int],
    entry: Entry,
    selected: bool,
    on_click: Click,
    on_long: Click,
    on_more: Click,
    ids: tuple[str, str, str, str] = ("", "ml_item_thumbnail", "ml_item_title", "ml_item_time"),  # VIDEO_ROW_IDS
) -> View:
    """A list row: thumbnail or icon, title, subtitle, More Actions. `ids`: (row, icon, title, subtitle) - the
    video list's, the browser's (`browser_container`, `item_icon`, `title`, `text`) or a playlist's."""
    l, t, r, b = box
    th = ctx.theme
    root = V(
        ctx,
        w.VIEWGROUP,
        box,
        ids[0],
        desc=entry.desc,
        clickable=on_click is not None,
        long_clickable=on_long is not None,
        focusable=True,
        selected=selected,
        on_click=on_click,
        on_long_click=on_long,
        style={"bg": th.primary_container} if selected else {},
    )
    h = b - t
    wide = entry.kind in ("video", "group") and ids[1] == "ml_item_thumbnail"
    iw = ctx.dp(96) if wide else ctx.dp(40)
    ih = iw * 10 // 16 if wide else iw
    x = l + ctx.dp(16)
    ib = (x, t + (h - ih) // 2, x + iw, t + (h + ih) // 2)
    if entry.kind in ("folder", "file") and not selected:
        icon = "storage" if entry.kind == "folder" else "play"
        root.children.append(w.icon(ctx, ib, icon, ORANGE if entry.kind == "folder" else th.text2, ids[1]))
    elif selected and not wide:
        root.children.append(w.icon(ctx, ib, "check", (255, 255, 255), "selected_check", bg=ORANGE))
    else:
        root.children.append(_thumb(ctx, ib, entry, ids[1]))
    x = ib[2] + ctx.dp(16)
    more_w = ctx.dp(48)
    right = r - more_w - ctx.dp(4)
    th1, th2 = ctx.line_h(16), ctx.line_h(13) if entry.subtitle else 0
    top = t + (h - th1 - th2) // 2
    root.children.append(w.text(ctx, (x, top, right, top + th1), entry.title, ids[2], 16, style={"ellipsize": True}))
    if entry.subtitle:
        root.children.append(w.text(ctx, (x, top + th1, right, top + th1 + th2), entry.subtitle, ids[3], 13, th.text2))
    if on_more is not None:
        root.children.append(
            _more(ctx, (r - more_w - ctx.dp(4), t + (h - more_w) // 2, r - ctx.dp(4), t + (h + more_w) // 2), on_more)
        )
    return root


def row_height(ctx: Ctx) -> int:
    return max(ctx.dp(72), ctx.line_h(16) + ctx.line_h(13) + ctx.dp(24))


def header_row(ctx: Ctx, label: str) -> Row:
    h = ctx.line_h(14) + ctx.dp(20)
    return Row(
        h,
        lambda x, y, wd: w.text(
            ctx, (x + ctx.dp(16), y + ctx.dp(8), x + wd - ctx.dp(16), y + h), label, "title", 14, accent(ctx), bold=True
        ),
    )


def accent(ctx: Ctx) -> Color:
    """VLC's orange for text and buttons: orange500 on the dark theme, a deeper orange (900) on the light one, where
    orange500 does not stand out from white."""
    return (255, 152, 0) if ctx.theme.dark else (230, 81, 0)


def para(ctx: Ctx, text: str, rid: str, size: float = 16, color: Color | None = None, bold: bool = False) -> Row:
    """A centred paragraph as a row, as tall as its lines wrapped to the width."""
    pad = ctx.dp(24)
    lines = max(1, len(wrap(text, ctx.sp(size), (ctx.area[2] - ctx.area[0]) - 2 * pad - ctx.dp(4), bold)))
    h = ctx.line_h(size, lines) + ctx.dp(8)
    return Row(
        h,
        lambda x, y, wd: w.text(
            ctx, (x + pad, y, x + wd - pad, y + h), text, rid, size, color, bold, "c", lines, valign="t"
        ),
    )


def icon_row(ctx: Ctx, name: str, rid: str, size_dp: int = 96) -> Row:
    h = ctx.dp(size_dp + 16)

    def build(x: int, y: int, wd: int) -> View:
        sz = ctx.dp(size_dp)
        return w.icon(ctx, (x + (wd - sz) // 2, y, x + (wd + sz) // 2, y + sz), name, ORANGE, rid)

    return Row(h, build)


def button_row(ctx: Ctx, label: str, on_click: Click, rid: str) -> Row:
    h = ctx.dp(64)

    def build(x: int, y: int, wd: int) -> View:
        bw = min(wd - ctx.dp(32), int(text_width(label, ctx.sp(14), True)) + ctx.dp(48))
        btn = w.button(
            ctx, (x + (wd - bw) // 2, y + ctx.dp(8), x + (wd + bw) // 2, y + h - ctx.dp(8)), label, on_click, rid
        )
        btn.style.update(bg=BUTTON_BG, fg=(255, 255, 255))
        return btn

    return Row(h, build)


def empty_state(ctx: Ctx, box: tuple[int, int, int, int], missing_permission: bool, on_grant: Click, text: str) -> View:
    """`empty_loading`: without storage access, "Permission not granted", why, GRANT PERMISSION; else the empty
    text (scrolling when the window is short)."""
    th = ctx.theme
    rows = [Row(max(0, (box[3] - box[1]) // 10), lambda x, y, wd: None), icon_row(ctx, "play", "emptyImageView")]
    if not missing_permission:
        rows.append(para(ctx, text, "emptyTextView", 16, th.text2))
    else:
        body = ctx.tr(
            "You won't be able to auto-discover your media nor use external subtitles\n\nYou will be able to only "
            "play streams or network media",
            "您将无法自动发现媒体或使用外部字幕\n\n您只能播放流或网络媒体",
        )
        rows += [
            para(ctx, ctx.tr("Permission not granted", "未授予权限"), "permissionTitle", 22),
            para(ctx, body, "permissionTextView", 16, th.text2),
            button_row(ctx, ctx.tr("GRANT PERMISSION", "授予权限"), on_grant, "grantPermissionButton"),
        ]
    return vlist(ctx, "empty_loading", box, rows, "empty_loading", cls=w.VIEWGROUP)


def sheet(ctx: Ctx, rows: list[Row], on_cancel: Click, key: str = "sheet") -> View:
    """A modal bottom sheet (`design_bottom_sheet`) holding `rows`, scrolling when taller than the screen allows."""
    l, t, r, b = ctx.mgr.dialog_area()
    total = sum(rw.height for rw in rows) + ctx.dp(16)
    top = max(t + ctx.dp(48), b - total)
    root = V(
        ctx,
        w.FRAME,
        (l, top, r, b),
        "design_bottom_sheet",
        style={"bg": ctx.theme.surface, "radius": ctx.dp(16), "modal": True, "dim": True, "on_cancel": on_cancel},
    )
    root.children.append(vlist(ctx, key, (l, top, r, b), rows, pad_top=ctx.dp(8), pad_bottom=ctx.dp(8)))
    return root


def popup_menu(ctx: Ctx, items: list[tuple[str, Click]]) -> View:
    """An overflow / popup menu at the top right: one row (`android:id/title`) per item."""
    l, t, r, b = ctx.area
    row_h = max(ctx.dp(48), ctx.line_h(16) + ctx.dp(16))
    width = max([int(text_width(label, ctx.sp(16))) for label, _ in items] + [ctx.dp(112)]) + ctx.dp(48)
    width = min(width, r - l - ctx.dp(16))
    box = (r - width - ctx.dp(8), t + ctx.dp(8), r - ctx.dp(8), t + ctx.dp(8) + row_h * len(items))
    root = dialogs.popup_window(ctx, box)
    lst = V(ctx, "android.widget.ListView", box)
    for i, (label, cb) in enumerate(items):
        y = box[1] + i * row_h
        item = V(ctx, w.LINEAR, (box[0], y, box[2], y + row_h), clickable=True, focusable=True, on_click=cb)
        item.children.append(
            w.text(ctx, (box[0] + ctx.dp(16), y, box[2] - ctx.dp(16), y + row_h), label, "android:id/title", 16)
        )
        lst.children.append(item)
    root.children.append(lst)
    return root


def option_rows(ctx: Ctx, title: str, options: list[tuple[str, str, Click]]) -> list[Row]:
    """The ContextSheet's content: the item's title (`ctx_title`), then one row per option (icon, title)."""
    out: list[Row] = []
    th_ = ctx.line_h(18) + ctx.dp(24)
    out.append(
        Row(
            th_,
            lambda x, y, wd: w.text(
                ctx,
                (x + ctx.dp(24), y, x + wd - ctx.dp(24), y + th_),
                title,
                "ctx_title",
                18,
                bold=True,
                style={"ellipsize": True},
            ),
        )
    )
    rh = max(ctx.dp(52), ctx.line_h(16) + ctx.dp(20))
    for icon, label, cb in options:

        def build(x: int, y: int, wd: int, icon: str = icon, label: str = label, cb: Click = cb) -> View:
            item = V(ctx, w.LINEAR, (x, y, x + wd, y + rh), clickable=True, focusable=True, on_click=cb)
            isz = ctx.dp(24)
            ib = (x + ctx.dp(24), y + (rh - isz) // 2, x + ctx.dp(24) + isz, y + (rh + isz) // 2)
            item.children.append(w.icon(ctx, ib, icon, ctx.theme.text2, "context_option_icon"))
            tb = (ib[2] + ctx.dp(24), y, x + wd - ctx.dp(16), y + rh)
            item.children.append(w.text(ctx, tb, label, "context_option_title", 16))
            return item

        out.append(Row(rh, build))
    return out
