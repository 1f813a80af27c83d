"""Files (DocumentsUI)' destination picker: PickActivity as Copy to… / Move to… start it (ACTION_PICK_COPY_DESTINATION).
It opens on the home root (Downloads: the picker never restores the last location for a copy destination), its
drawer lists the roots that take new documents (Downloads and the device's storage), files are shown disabled and
folders open, and the bottom bar (`container_save`: fragment_pick's Cancel `android:id/button2` and Copy / Move
`android:id/button1`) copies or moves the documents into the folder shown, then closes."""

from __future__ import annotations

from ..ui import widgets as w
from ..ui.fonts import text_width
from ..ui.layout import Ctx, V, vlist
from ..ui.view import View
from .files_data import children, root_dir, show_hidden, transfer, view_mode
from .files_nav import (
    crumbs,
    header_title,
    location_title,
    nav,
    open_dir,
    pop_to,
)
from .files_views import (
    doc_rows,
    empty_row,
    header_rows,
    tr,
)
from .files_views import toolbar as app_toolbar


def on_back(ctx: Ctx) -> bool:
    _, stack = nav(ctx)
    if stack:
        pop_to(ctx, len(stack) - 1)
        return True
    return False


def _done(ctx: Ctx) -> None:
    root, stack = nav(ctx)
    folder = stack[-1] if stack else root_dir(root)
    if folder is not None:
        failed = transfer(ctx.model.fs, list(ctx.extras.get("src") or []), folder, ctx.extras.get("op") == "move")
        if failed:
            moved = ctx.extras.get("op") == "move"
            ctx.toast(
                tr(ctx, "This file wasn\u2019t moved: ", "此文件未移动：") + ", ".join(failed)
                if moved
                else tr(ctx, "This file wasn\u2019t copied: ", "此文件未复制：") + ", ".join(failed)
            )
    ctx.finish()


def screen(ctx: Ctx) -> list[View]:
    root, stack = nav(ctx)
    fs = ctx.model.fs
    docs = children(ctx.model, root, stack[-1] if stack else None, show_hidden(fs))
    bar = app_toolbar(ctx, location_title(ctx, root, stack), lambda: ctx.show_dialog({"id": "drawer"}), [], None)
    mode = view_mode(fs, root)
    rows = header_rows(ctx, crumbs(ctx, root, stack), header_title(ctx, root, stack), None, lambda m: None)
    rows += doc_rows(
        ctx, docs, mode, lambda d: open_dir(ctx, d) if d.is_dir else None, None, set(), files_enabled=False
    )
    if not docs:
        rows.append(empty_row(ctx, tr(ctx, "No items", "无任何文件")))
    l, _, r, b = ctx.area
    th = ctx.theme
    foot_h = ctx.dp(72)
    body = vlist(ctx, ctx.activity, (l, bar.bounds[3], r, b - foot_h), rows, "dir_list", pad_bottom=ctx.dp(16))
    foot = V(ctx, w.FRAME, (l, b - foot_h, r, b), "container_save", style={"bg": th.surface2})
    bh = ctx.dp(40)
    y0 = b - foot_h + (foot_h - bh) // 2
    label = tr(ctx, "Move", "移动") if ctx.extras.get("op") == "move" else tr(ctx, "Copy", "复制")
    cancel_w = max(ctx.dp(88), ctx.dp(24) + int(text_width(tr(ctx, "Cancel", "取消"), ctx.sp(14), True)))
    ok_w = max(ctx.dp(88), ctx.dp(24) + int(text_width(label, ctx.sp(14), True)))
    x1 = r - ctx.dp(16)
    foot.children.append(w.button(ctx, (x1 - ok_w, y0, x1, y0 + bh), label, lambda: _done(ctx), "android:id/button1"))
    x1 -= ok_w + ctx.dp(8)
    foot.children.append(
        w.button(
            ctx,
            (x1 - cancel_w, y0, x1, y0 + bh),
            tr(ctx, "Cancel", "取消"),
            ctx.finish,
            "android:id/button2",
            kind="text",
        )
    )
    return [bar, body, foot]
