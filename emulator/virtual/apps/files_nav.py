"""Files (DocumentsUI)' navigation: where an activity's list is (its root and the folders opened below it, kept in
the activity's record as DocumentsUI keeps its DocumentStack), the titles that follow from it (the toolbar's, the
breadcrumb's, `header_title`), and the navigation drawer and popup menus that move it."""

from __future__ import annotations

import posixpath
from collections.abc import Callable

from ..ui import dialogs
from ..ui import widgets as w
from ..ui.fonts import text_width
from ..ui.layout import Ctx, Row, V, vlist
from ..ui.view import View
from .files_data import AVAILABLE_BYTES, BUCKET, HOME_ROOT, ROOTS, Doc, Root, format_size, root_title
from .files_views import Click, tr


# --- the drawer and menus ---------------------------------------------------------------------------------------
def drawer(
    ctx: Ctx, roots: tuple[Root, ...], current: str, on_pick: Callable[[Root], None], summary: Callable[[Root], str]
) -> View:
    """The navigation drawer (`drawer_roots`): `roots_toolbar` titled Files, then `roots_list` - each root's icon,
    title and summary (the storage's free space); the current root is activated."""
    l, t, r, b = ctx.mgr.dialog_area()
    wd = min(r - l - ctx.dp(56), ctx.dp(320))
    th = ctx.theme
    root = V(
        ctx,
        w.LINEAR,
        (l, t, l + wd, b),
        "drawer_roots",
        style={"bg": th.bg, "modal": True, "dim": True, "on_cancel": ctx.dismiss_dialog},
    )
    bar_h = ctx.dp(64)
    bar = V(ctx, "android.view.ViewGroup", (l, t, l + wd, t + bar_h), "roots_toolbar")
    bar.children.append(
        w.text(ctx, (l + ctx.dp(24), t, l + wd - ctx.dp(16), t + bar_h), tr(ctx, "Files", "文件"), size=22)
    )
    root.children.append(bar)
    rows: list[Row] = []
    for i, rt in enumerate(roots):
        if i and rt.key == "downloads":
            rows.append(Row(ctx.dp(17), lambda x, y, wd_: w.divider(ctx, x, y + ctx.dp(8), wd_)))
        text = summary(rt)
        h = max(ctx.dp(56), ctx.line_h(16) + (ctx.line_h(14) if text else 0) + ctx.dp(16))

        def build(x: int, y: int, wd_: int, rt: Root = rt, text: str = text, h: int = h) -> View:
            on = rt.key == current
            item = V(
                ctx,
                w.LINEAR,
                (x + ctx.dp(8), y, x + wd_ - ctx.dp(8), y + h),
                clickable=True,
                focusable=True,
                selected=on,
                on_click=lambda: on_pick(rt),
                style={"bg": th.primary_container if on else None, "radius": h // 2},
            )
            isz = ctx.dp(24)
            ix = x + ctx.dp(24)
            iy = y + (h - isz) // 2
            item.children.append(
                w.icon(
                    ctx,
                    (ix, iy, ix + isz, iy + isz),
                    rt.icon,
                    th.on_primary_container if on else th.text2,
                    "android:id/icon",
                )
            )
            tx = ix + isz + ctx.dp(24)
            ty = y + (h - ctx.line_h(16) - (ctx.line_h(14) if text else 0)) // 2
            item.children.append(
                w.text(
                    ctx,
                    (tx, ty, x + wd_ - ctx.dp(24), ty + ctx.line_h(16)),
                    root_title(ctx.model, rt),
                    "android:id/title",
                    size=16,
                    style={"ellipsize": True},
                )
            )
            if text:
                sy = ty + ctx.line_h(16)
                item.children.append(
                    w.text(
                        ctx,
                        (tx, sy, x + wd_ - ctx.dp(24), sy + ctx.line_h(14)),
                        text,
                        "android:id/summary",
                        size=14,
                        color=th.text2,
                    )
                )
            return item

        rows.append(Row(h, build))
    root.children.append(
        vlist(ctx, "roots", (l, t + bar_h, l + wd, b), rows, "roots_list", cls="android.widget.ListView")
    )
    return root


def popup_menu(ctx: Ctx, items: list[tuple[str, Click]]) -> View:
    """An overflow menu's popup at the top right (each item a `title` TextView in its row)."""
    l, t, r, b = ctx.mgr.dialog_area()
    ih = max(ctx.dp(48), ctx.line_h(16) + ctx.dp(16))
    wd = max([ctx.dp(112)] + [int(text_width(label, ctx.sp(16))) + ctx.dp(48) for label, _ in items])
    wd = min(wd, r - l - ctx.dp(16))
    top = t + ctx.dp(8)
    box = (r - ctx.dp(8) - wd, top, r - ctx.dp(8), min(b, top + ih * len(items) + ctx.dp(16)))
    win = dialogs.popup_window(ctx, box)
    lst = V(ctx, "android.widget.ListView", box)
    y = top + ctx.dp(8)
    for label, cb in items:
        row = V(ctx, w.LINEAR, (box[0], y, box[2], y + ih), clickable=True, focusable=True, on_click=cb)
        row.children.append(w.text(ctx, (box[0] + ctx.dp(16), y, box[2] - ctx.dp(16), y + ih), label, "title", size=16))
        lst.children.append(row)
        y += ih
    win.children.append(lst)
    return win


def root_for(key: str) -> Root:
    return next((r for r in ROOTS if r.key == key), ROOTS[-1])


# --- where the list is ------------------------------------------------------------------------------------------
def doc_name(ctx: Ctx, doc_id: str) -> str:
    """A folder's name in the title and the breadcrumb (a media folder: its bucket's name)."""
    if doc_id.startswith(BUCKET):
        rel = doc_id.split(":", 2)[2].rstrip("/")
        return rel.rsplit("/", 1)[-1] if rel else root_title(ctx.model, root_for("primary"))
    return posixpath.basename(doc_id.rstrip("/"))


def location_title(ctx: Ctx, root: Root, stack: list[str]) -> str:
    return doc_name(ctx, stack[-1]) if stack else root_title(ctx.model, root)


def header_title(ctx: Ctx, root: Root, stack: list[str]) -> str:
    """BaseActivity.updateHeaderTitle: Recent files, Files in Downloads, Files on DEVICE, Files in FOLDER ..."""
    if root.key == "recent":
        return tr(ctx, "Recent files", "近期的文件")
    if root.key == "downloads" and not stack:
        return tr(ctx, "Files in Downloads", "“下载”中的文件")
    if root.key in ("primary", "downloads"):
        if stack:
            name = doc_name(ctx, stack[-1])
            return ctx.tr(f"Files in {name}", f"{name} 中的文件")
        name = root_title(ctx.model, root)
        return ctx.tr(f"Files on {name}", f"{name} 上的文件")
    return root_title(ctx.model, root)


def summary(ctx: Ctx, root: Root) -> str:
    """A root's line under its title in the drawer: the storage's free space."""
    if root.key != "primary":
        return ""
    size = format_size(AVAILABLE_BYTES, ctx.zh)
    return ctx.tr(f"{size} free", f"可用空间：{size}")


def nav(ctx: Ctx) -> tuple[Root, list[str]]:
    """The activity's root and the folders opened below it (its DocumentStack)."""
    ex = ctx.extras
    root = root_for(str(ex.get("root") or HOME_ROOT))
    stack = [s for s in ex.get("stack") or [] if s.startswith(BUCKET) or ctx.model.fs.is_dir(s)]
    ex["root"], ex["stack"] = root.key, stack
    return root, stack


def go_root(ctx: Ctx, root: Root) -> None:
    ctx.extras.update(root=root.key, stack=[], sel=[])
    ctx.ui.pop("search", None)
    ctx.set_field("search", "")
    ctx.ui.setdefault("scroll", {}).pop(ctx.activity, None)
    ctx.dismiss_dialog()


def open_dir(ctx: Ctx, doc: Doc) -> None:
    ctx.extras.setdefault("stack", []).append(doc.id)
    ctx.ui.setdefault("scroll", {}).pop(ctx.activity, None)


def pop_to(ctx: Ctx, depth: int) -> None:
    ctx.extras["stack"] = list(ctx.extras.get("stack") or [])[:depth]
    ctx.ui.setdefault("scroll", {}).pop(ctx.activity, None)


def crumbs(ctx: Ctx, root: Root, stack: list[str]) -> list[tuple[str, Click]]:
    """The breadcrumb's items: the root, then each folder opened (a tap goes back up to it)."""

    def up_to(depth: int) -> Click:
        return lambda: pop_to(ctx, depth)

    return [(root_title(ctx.model, root), up_to(0))] + [(doc_name(ctx, d), up_to(i + 1)) for i, d in enumerate(stack)]
