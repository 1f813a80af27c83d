"""Files (DocumentsUI)' views, shared by the browser (FilesActivity) and the destination picker (PickActivity): the
toolbar (the roots' hamburger "Show roots", the title, action items and "More options"), the directory header (the
horizontal breadcrumb, `header_title` and the grid / list toggle of `sub_menu`), the documents of `dir_list` as grid
cards (item_dir_grid, item_doc_grid) or list rows (item_doc_list: title and `metadata`), the navigation drawer
(roots_toolbar, roots_list: each root's icon, title and summary) and the popup menus - with the resource ids and
texts of DocumentsUI's layouts and strings."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from PIL import Image, ImageDraw

from ..ui import widgets as w
from ..ui.fonts import text_width
from ..ui.layout import RECYCLER, Ctx, Row, V
from ..ui.theme import Color
from ..ui.view import View
from .files_data import (
    MODE_GRID,
    Doc,
    format_size,
    format_time,
    type_label,
)

Click = Callable[[], Any]
ACTION_ITEM = "androidx.appcompat.widget.ActionMenuView"
_ICONS: dict[tuple[str, Color, Color, int], Image.Image] = {}


def tr(ctx: Ctx, en: str, zh: str) -> str:
    return ctx.tr(en, zh)


# --- icons ------------------------------------------------------------------------------------------------------
def _kind(doc: Doc) -> str:
    if doc.is_dir:
        return "folder"
    top = doc.mime.split("/", 1)[0]
    if top in ("image", "audio", "video"):
        return top
    return "pdf" if doc.mime == "application/pdf" else "file"


def _icon_image(kind: str, bg: Color, fg: Color, size: int) -> Image.Image:
    """A mime type's icon (ic_doc_folder, ic_doc_image ...) drawn once per colour pair and size."""
    key = (kind, bg, fg, size)
    img = _ICONS.get(key)
    if img is not None:
        return img
    img = Image.new("RGB", (size, size), bg)
    d = ImageDraw.Draw(img)
    s = size / 24
    if kind == "folder":
        d.polygon([(2 * s, 5 * s), (9 * s, 5 * s), (11 * s, 7 * s), (2 * s, 7 * s)], fill=fg)
        d.rounded_rectangle((2 * s, 7 * s, 22 * s, 19 * s), radius=int(s), fill=fg)
    else:
        d.rounded_rectangle((4 * s, 2 * s, 20 * s, 22 * s), radius=int(2 * s), fill=fg)
        inner = bg
        if kind == "image":
            d.polygon(
                [(7 * s, 17 * s), (10.5 * s, 12 * s), (13 * s, 15 * s), (15 * s, 13 * s), (17 * s, 17 * s)], fill=inner
            )
        elif kind == "audio":
            d.ellipse((8 * s, 13 * s, 12 * s, 17 * s), fill=inner)
            d.rectangle((11 * s, 6 * s, 12.5 * s, 15 * s), fill=inner)
        elif kind == "video":
            d.polygon([(9 * s, 8 * s), (16 * s, 12 * s), (9 * s, 16 * s)], fill=inner)
        else:
            for y in (8, 11, 14, 17):
                d.rectangle((7 * s, y * s, 17 * s, (y + 1) * s), fill=inner)
    if len(_ICONS) >= 24:
        _ICONS.clear()
    _ICONS[key] = img
    return img


_COLORS = {"folder": (95, 99, 104), "image": (217, 48, 37), "audio": (242, 153, 0), "video": (217, 48, 37)}


def mime_icon(ctx: Ctx, bounds: tuple[int, int, int, int], doc: Doc, bg: Color, rid: str) -> View:
    kind = _kind(doc)
    fg = _COLORS.get(kind, (26, 115, 232) if kind == "file" else (234, 67, 53))
    size = max(8, min(bounds[2] - bounds[0], bounds[3] - bounds[1]))
    return V(ctx, w.IMAGE, bounds, rid, style={"image": _icon_image(kind, bg, fg, size)})


# --- bars -------------------------------------------------------------------------------------------------------
def toolbar(
    ctx: Ctx,
    title: str,
    on_roots: Click | None,
    actions: list[tuple[str, str, str, Click]],
    overflow: Click | None,
    search_bar: Click | None = None,
) -> View:
    """The app bar's Toolbar (`toolbar`): the hamburger (Show roots), the title - or, in Recent, the search bar
    (`searchbar_title`) -, action items (icon, content description, id, click) and the overflow (More options)."""
    l, t, r, _ = ctx.area
    h = ctx.dp(64)
    th = ctx.theme
    bar = V(ctx, "android.view.ViewGroup", (l, t, r, t + h), "toolbar", style={"bg": th.bg})
    isz = ctx.dp(48)
    y0 = t + (h - isz) // 2
    x = l + ctx.dp(4)
    if on_roots is not None:
        bar.children.append(
            w.icon_button(ctx, (x, y0, x + isz, y0 + isz), "menu", tr(ctx, "Show roots", "显示根目录"), on_roots)
        )
        x += isz + ctx.dp(8)
    ax = r - ctx.dp(4)
    right: list[View] = []
    if overflow is not None:
        right.append(
            w.icon(
                ctx,
                (ax - isz, y0, ax, y0 + isz),
                "more",
                th.text,
                desc=tr(ctx, "More options", "更多选项"),
                on_click=overflow,
            )
        )
        right[-1].style["inset"] = ctx.dp(12)
        ax -= isz
    for icon, desc, rid, cb in reversed(actions):
        item = w.icon(ctx, (ax - isz, y0, ax, y0 + isz), icon, th.text, rid, desc, cls=w.BUTTON, on_click=cb)
        item.style["inset"] = ctx.dp(12)
        right.append(item)
        ax -= isz
    if search_bar is not None:
        box = (x, y0, ax - ctx.dp(4), y0 + isz)
        bar.children.append(
            w.text(
                ctx,
                box,
                tr(ctx, "Search this device", "在此设备上搜索"),
                "searchbar_title",
                size=16,
                color=th.text2,
                clickable=True,
                focusable=True,
                on_click=search_bar,
                style={"bg": th.surface2, "radius": isz // 2, "pad": ctx.dp(16)},
            )
        )
    else:
        bar.children.append(
            w.text(ctx, (x, t, max(x, ax - ctx.dp(4)), t + h), title, size=22, style={"ellipsize": True})
        )
    bar.children.extend(reversed(right))
    return bar


def action_bar(
    ctx: Ctx, count: int, on_close: Click, actions: list[tuple[str, str, str, Click]], overflow: Click
) -> View:
    """The selection's action mode bar (`action_mode_bar`): Done, "N selected", Share / Delete, More options."""
    l, t, r, _ = ctx.area
    h = ctx.dp(64)
    th = ctx.theme
    bar = V(ctx, "android.view.ViewGroup", (l, t, r, t + h), "action_mode_bar", style={"bg": th.surface2})
    isz = ctx.dp(48)
    y0 = t + (h - isz) // 2
    close = w.icon(
        ctx,
        (l + ctx.dp(4), y0, l + ctx.dp(4) + isz, y0 + isz),
        "close",
        th.text,
        "action_mode_close_button",
        tr(ctx, "Done", "完成"),
        on_click=on_close,
    )
    close.style["inset"] = ctx.dp(12)
    bar.children.append(close)
    ax = r - ctx.dp(4)
    right = [
        w.icon(
            ctx,
            (ax - isz, y0, ax, y0 + isz),
            "more",
            th.text,
            desc=tr(ctx, "More options", "更多选项"),
            on_click=overflow,
        )
    ]
    ax -= isz
    for icon, desc, rid, cb in reversed(actions):
        right.append(w.icon(ctx, (ax - isz, y0, ax, y0 + isz), icon, th.text, rid, desc, cls=w.BUTTON, on_click=cb))
        ax -= isz
    for v in right:
        v.style["inset"] = ctx.dp(12)
    label = ctx.tr(f"{count} selected", f"已选择 {count} 项")
    x = l + ctx.dp(4) + isz + ctx.dp(16)
    bar.children.append(w.text(ctx, (x, t, ax, t + h), label, "action_bar_title", size=20))
    bar.children.extend(reversed(right))
    return bar


# --- the directory header ---------------------------------------------------------------------------------------
def header_rows(
    ctx: Ctx, crumbs: list[tuple[str, Click]], title: str, mode: int | None, on_mode: Callable[[int], None]
) -> list[Row]:
    """The breadcrumb (root > folder > ...: a tap goes back up there), then `header_title` with the view toggle."""
    th = ctx.theme
    rows: list[Row] = []
    if crumbs:
        ch = ctx.dp(48)

        def crumb_row(x: int, y: int, wd: int) -> View:
            box = V(ctx, RECYCLER, (x, y, x + wd, y + ch), "horizontal_breadcrumb")
            cx = x + ctx.dp(16)
            for i, (label, cb) in enumerate(crumbs):
                last = i == len(crumbs) - 1
                tw = int(text_width(label, ctx.sp(14), last)) + ctx.dp(16)
                if cx >= x + wd:
                    break
                item = V(
                    ctx,
                    w.LINEAR,
                    (cx, y, min(x + wd, cx + tw + ctx.dp(24)), y + ch),
                    clickable=True,
                    focusable=True,
                    on_click=cb,
                )
                item.children.append(
                    w.text(
                        ctx,
                        (cx, y, min(x + wd, cx + tw), y + ch),
                        label,
                        "breadcrumb_text",
                        size=14,
                        color=th.primary if last else th.text2,
                        bold=last,
                    )
                )
                if not last:
                    item.children.append(
                        w.icon(
                            ctx,
                            (cx + tw, y + ctx.dp(14), cx + tw + ctx.dp(20), y + ctx.dp(34)),
                            "chevron",
                            th.text2,
                            "breadcrumb_arrow",
                        )
                    )
                box.children.append(item)
                cx += tw + ctx.dp(24)
            return box

        rows.append(Row(ch, crumb_row))
    hh = max(ctx.dp(48), ctx.line_h(14) + ctx.dp(16))

    def title_row(x: int, y: int, wd: int) -> View:
        box = V(ctx, w.LINEAR, (x, y, x + wd, y + hh), "header_container")
        isz = ctx.dp(48)
        right = x + wd - ctx.dp(4)
        box.children.append(
            w.text(
                ctx,
                (x + ctx.dp(16), y, right - isz, y + hh),
                title,
                "header_title",
                size=14,
                color=th.text2,
                style={"ellipsize": True},
            )
        )
        if mode is not None:
            menu = V(ctx, ACTION_ITEM, (right - isz, y, right, y + hh), "sub_menu")
            to_list = mode == MODE_GRID
            rid, desc = (
                ("sub_menu_list", tr(ctx, "List view", "列表视图"))
                if to_list
                else ("sub_menu_grid", tr(ctx, "Grid view", "网格视图"))
            )
            item = w.icon(
                ctx,
                (right - isz, y + (hh - isz) // 2, right, y + (hh + isz) // 2),
                "menu" if to_list else "apps",
                th.text2,
                rid,
                desc,
                cls=w.BUTTON,
                on_click=lambda: on_mode(1 if to_list else MODE_GRID),
            )
            item.style["inset"] = ctx.dp(12)
            menu.children.append(item)
            box.children.append(menu)
        return box

    rows.append(Row(hh, title_row))
    return rows


# --- the documents ----------------------------------------------------------------------------------------------
def doc_rows(
    ctx: Ctx,
    docs: list[Doc],
    mode: int,
    on_click: Callable[[Doc], None],
    on_long: Callable[[Doc], None] | None,
    selected: set[str],
    files_enabled: bool = True,
) -> list[Row]:
    """The documents as grid cards (folders in a row of their own cards first) or list rows."""
    if mode == MODE_GRID:
        return _grid(ctx, docs, on_click, on_long, selected, files_enabled)
    th = ctx.theme
    h = max(ctx.dp(72), ctx.line_h(16) + ctx.line_h(14) + ctx.dp(24))
    rows: list[Row] = []
    for doc in docs:
        enabled = files_enabled or doc.is_dir

        def build(x: int, y: int, wd: int, doc: Doc = doc, enabled: bool = enabled) -> View:
            sel = doc.id in selected
            item = _item_root(
                ctx, (x, y, x + wd, y + h), doc, enabled, sel, on_click, on_long, th.primary_container if sel else None
            )
            isz = ctx.dp(40)
            ix = x + ctx.dp(16)
            iy = y + (h - isz) // 2
            bg = th.primary_container if sel else th.bg
            item.children.append(mime_icon(ctx, (ix, iy, ix + isz, iy + isz), doc, bg, "icon_mime"))
            if sel:
                item.children.append(w.icon(ctx, (ix, iy, ix + isz, iy + isz), "check", th.primary, "icon_check"))
            tx = ix + isz + ctx.dp(16)
            ty = y + (h - ctx.line_h(16) - ctx.line_h(14)) // 2
            color = th.text if enabled else th.text2
            item.children.append(
                w.text(
                    ctx,
                    (tx, ty, x + wd - ctx.dp(16), ty + ctx.line_h(16)),
                    doc.name,
                    "android:id/title",
                    size=16,
                    color=color,
                    style={"ellipsize": True},
                )
            )
            meta = [format_time(ctx.model, doc.mtime)] if doc.mtime else []
            if not doc.is_dir:
                meta.append(format_size(doc.size, ctx.zh))
            meta.append(type_label(doc, ctx.zh))
            my = ty + ctx.line_h(16)
            item.children.append(
                w.text(
                    ctx,
                    (tx, my, x + wd - ctx.dp(16), my + ctx.line_h(14)),
                    ", ".join(meta),
                    "metadata",
                    size=14,
                    color=th.text2,
                    style={"ellipsize": True},
                )
            )
            return item

        rows.append(Row(h, build))
    return rows


def _item_root(
    ctx: Ctx,
    box: tuple[int, int, int, int],
    doc: Doc,
    enabled: bool,
    sel: bool,
    on_click: Callable[[Doc], None],
    on_long: Callable[[Doc], None] | None,
    bg: Color | None,
    radius: int = 0,
) -> View:
    style: dict[str, Any] = {"bg": bg} if bg is not None else {}
    if radius:
        style["radius"] = radius
    return V(
        ctx,
        w.LINEAR if not radius else w.FRAME,
        box,
        "item_root",
        clickable=enabled,
        focusable=enabled,
        long_clickable=enabled and on_long is not None,
        enabled=enabled,
        selected=sel,
        on_click=(lambda: on_click(doc)) if enabled else None,
        on_long_click=(lambda: on_long(doc)) if enabled and on_long is not None else None,
        style=style,
    )


def _grid(
    ctx: Ctx,
    docs: list[Doc],
    on_click: Callable[[Doc], None],
    on_long: Callable[[Doc], None] | None,
    selected: set[str],
    files_enabled: bool,
) -> list[Row]:
    th = ctx.theme
    width = ctx.area[2] - ctx.area[0]
    cols = max(2, int(ctx.width_dp // 180))
    gap = ctx.dp(8)
    cw = (width - ctx.dp(16) - gap * (cols - 1)) // cols
    dirs = [d for d in docs if d.is_dir]
    files = [d for d in docs if not d.is_dir]
    rows: list[Row] = []
    dir_h = max(ctx.dp(56), ctx.line_h(16) + ctx.dp(24)) + gap
    file_h = int(cw * 0.75) + max(ctx.dp(64), ctx.line_h(16) + ctx.line_h(14) + ctx.dp(20)) + gap

    def cells(group: list[Doc], h: int, card: Callable[[Doc, tuple[int, int, int, int]], View]) -> None:
        for start in range(0, len(group), cols):

            def build(x: int, y: int, wd: int, start: int = start) -> list[View]:
                out = []
                for i, doc in enumerate(group[start : start + cols]):
                    cx = x + ctx.dp(8) + i * (cw + gap)
                    out.append(card(doc, (cx, y + gap // 2, cx + cw, y + h - gap // 2)))
                return out

            rows.append(Row(h, build))

    def dir_card(doc: Doc, box: tuple[int, int, int, int]) -> View:
        l, t, r, b = box
        sel = doc.id in selected
        bg = th.primary_container if sel else th.surface2
        item = _item_root(ctx, box, doc, True, sel, on_click, on_long, bg, ctx.dp(12))
        isz = ctx.dp(24)
        iy = t + (b - t - isz) // 2
        item.children.append(
            mime_icon(ctx, (l + ctx.dp(16), iy, l + ctx.dp(16) + isz, iy + isz), doc, bg, "icon_mime_sm")
        )
        if sel:
            item.children.append(
                w.icon(ctx, (l + ctx.dp(16), iy, l + ctx.dp(16) + isz, iy + isz), "check", th.primary, "icon_check")
            )
        item.children.append(
            w.text(
                ctx,
                (l + ctx.dp(56), t, r - ctx.dp(8), b),
                doc.name,
                "android:id/title",
                size=16,
                style={"ellipsize": True},
            )
        )
        return item

    def file_card(doc: Doc, box: tuple[int, int, int, int]) -> View:
        l, t, r, b = box
        sel = doc.id in selected
        bg = th.primary_container if sel else th.surface2
        enabled = files_enabled
        item = _item_root(ctx, box, doc, enabled, sel, on_click, on_long, bg, ctx.dp(12))
        thumb_b = t + int(cw * 0.75)
        big = min(ctx.dp(64), (thumb_b - t) // 2)
        cx, cy = (l + r) // 2, (t + thumb_b) // 2
        thumb = V(
            ctx, w.FRAME, (l, t, r, thumb_b), "thumbnail", style={"bg": th.bg if not sel else bg, "radius": ctx.dp(12)}
        )
        thumb.children.append(
            mime_icon(
                ctx,
                (cx - big // 2, cy - big // 2, cx + big // 2, cy + big // 2),
                doc,
                th.bg if not sel else bg,
                "icon_mime_lg",
            )
        )
        item.children.append(thumb)
        plate = V(ctx, w.LINEAR, (l, thumb_b, r, b), "nameplate")
        isz = ctx.dp(24)
        iy = thumb_b + ctx.dp(10)
        plate.children.append(
            mime_icon(ctx, (l + ctx.dp(12), iy, l + ctx.dp(12) + isz, iy + isz), doc, bg, "icon_mime_sm")
        )
        if sel:
            plate.children.append(
                w.icon(ctx, (l + ctx.dp(12), iy, l + ctx.dp(12) + isz, iy + isz), "check", th.primary, "icon_check")
            )
        tx = l + ctx.dp(44)
        color = th.text if enabled else th.text2
        plate.children.append(
            w.text(
                ctx,
                (tx, iy - ctx.dp(2), r - ctx.dp(8), iy - ctx.dp(2) + ctx.line_h(16)),
                doc.name,
                "android:id/title",
                size=16,
                color=color,
                style={"ellipsize": True},
            )
        )
        dy = iy - ctx.dp(2) + ctx.line_h(16)
        half = (r - tx) // 2
        plate.children.append(
            w.text(
                ctx,
                (tx, dy, tx + half, dy + ctx.line_h(12)),
                format_size(doc.size, ctx.zh),
                "details",
                size=12,
                color=th.text2,
            )
        )
        plate.children.append(
            w.text(
                ctx,
                (tx + half, dy, r - ctx.dp(8), dy + ctx.line_h(12)),
                format_time(ctx.model, doc.mtime),
                "date",
                size=12,
                color=th.text2,
                align="r",
            )
        )
        item.children.append(plate)
        return item

    cells(dirs, dir_h, dir_card)
    cells(files, file_h, file_card)
    return rows


def empty_row(ctx: Ctx, text: str) -> Row:
    h = ctx.dp(160)
    return Row(
        h,
        lambda x, y, wd: w.text(ctx, (x, y, x + wd, y + h), text, "message", size=16, color=ctx.theme.text2, align="c"),
    )
