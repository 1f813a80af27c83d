"""Markor's dialogs over the file browser:
- New file (NewFileDialog): Name (`new_file_dialog__name`, hint "my_note") and extension (`new_file_dialog__ext`,
  the last one used, ".md" at first), the Type spinner (`new_file_dialog__type`: picking a type sets its extension),
  the Template spinner (`new_file_dialog__template`: Empty file); OK makes NAME+EXT in the folder (characters a
  file name cannot hold become "_") and opens it in the editor, an existing file just opens; Folder makes a folder
  of the name; Cancel. An empty name does nothing.
- Rename (`new_name`): OK renames the selected file or folder; a name in use shows "File/folder already exists!
  Please use a different name" (`dialog_message`) and keeps the dialog.
- Confirm Delete: "Do you really want to delete this document?" and the paths; OK deletes the selection.
- Move: a folder browser from the current folder within the notebook (`..` up to the notebook, the selected items
  left out), titled "Move → FOLDER"; "Select this folder" moves the selection there.
- The storage-permission dialog of the first start (`markor_intro`).
"""

from __future__ import annotations

import posixpath
from collections.abc import Callable
from typing import Any

from ..ui import dialogs
from ..ui import widgets as w
from ..ui.layout import Ctx, Row
from ..ui.view import View
from .markor_files import DOCUMENT, NOTEBOOK, TYPES, display_path, folders, move, normalize_name, remove, rename
from .markor_intro import storage_dialog

Spec = dict[str, Any]


def _selection(ctx: Ctx) -> list[str]:
    sel: list[str] = ctx.ui.setdefault("selected", [])
    return sel


def _close(ctx: Ctx) -> None:
    ctx.dismiss_dialog()
    ctx.set_focus(None)


# --- New file ----------------------------------------------------------------------------------------------------
def _create_file(ctx: Ctx, spec: Spec) -> None:
    name = normalize_name(ctx.field_value("new_file_name"))
    if not name:
        return
    ext = ctx.field_value("new_file_ext").strip()
    path = posixpath.join(str(spec["folder"]), name + ext)
    fs = ctx.model.fs
    if not fs.exists(path):
        fs.write(path, b"", parents=True)
    ctx.ui["last_ext"], ctx.ui["last_type"] = ext, int(spec.get("type", 0))
    _close(ctx)
    ctx.push(DOCUMENT, {"path": path})


def _create_folder(ctx: Ctx, spec: Spec) -> None:
    name = normalize_name(ctx.field_value("new_file_name"))
    if not name:
        return
    path = posixpath.join(str(spec["folder"]), name)
    fs = ctx.model.fs
    if not fs.exists(path):
        fs.mkdir(path, parents=True)
    _close(ctx)


def _spinner(
    ctx: Ctx, box: tuple[int, int, int, int], text: str, rid: str, on_click: Callable[[], None] | None
) -> View:
    v = w.text(
        ctx,
        box,
        text,
        rid,
        size=16,
        cls="android.widget.Spinner",
        clickable=on_click is not None,
        focusable=on_click is not None,
        on_click=on_click,
        style={"border": ctx.theme.divider, "radius": ctx.dp(4), "pad": ctx.dp(8)},
    )
    return v


def new_file_dialog(ctx: Ctx, spec: Spec) -> View:
    type_index = int(spec.get("type", 0))
    name, ext = ctx.field_value("new_file_name"), ctx.field_value("new_file_ext")

    def label(text: str) -> Row:
        return w.text_row(ctx, text, "", size=12, color=ctx.theme.text2, pad_dp=24)

    def fields(x: int, y: int, wd: int) -> View:
        row = w.card_bg(ctx, (x, y, x + wd, y + ctx.dp(56)), "", cls=w.LINEAR)
        split = x + wd - ctx.dp(24) - ctx.dp(88)
        row.children.append(
            w.edit(
                ctx,
                (x + ctx.dp(24), y + ctx.dp(4), split - ctx.dp(8), y + ctx.dp(52)),
                "new_file_name",
                name,
                "my_note",
                lambda v: ctx.set_field("new_file_name", v),
                "new_file_dialog__name",
                box="underline",
            )
        )
        row.children.append(
            w.edit(
                ctx,
                (split, y + ctx.dp(4), x + wd - ctx.dp(24), y + ctx.dp(52)),
                "new_file_ext",
                ext,
                ".md",
                lambda v: ctx.set_field("new_file_ext", v),
                "new_file_dialog__ext",
                box="underline",
            )
        )
        return row

    def type_row(x: int, y: int, wd: int) -> View:
        box = (x + ctx.dp(24), y + ctx.dp(4), x + wd - ctx.dp(24), y + ctx.dp(44))
        pick = lambda: ctx.show_dialog({**spec, "id": "new_file_type", "back": spec})  # noqa: E731
        return _spinner(ctx, box, TYPES[type_index][0], "new_file_dialog__type", pick)

    def template_row(x: int, y: int, wd: int) -> View:
        box = (x + ctx.dp(24), y + ctx.dp(4), x + wd - ctx.dp(24), y + ctx.dp(44))
        return _spinner(ctx, box, ctx.tr("Empty file", "空文件"), "new_file_dialog__template", None)

    rows = [
        label(ctx.tr("Name", "名称")),
        Row(ctx.dp(56), fields, ("new_file_name", "new_file_ext")),
        label(ctx.tr("Type", "类型")),
        Row(ctx.dp(48), type_row),
        label(ctx.tr("Template", "模板")),
        Row(ctx.dp(48), template_row),
    ]
    return dialogs.dialog(
        ctx,
        "",
        "",
        [
            (ctx.tr("OK", "确定"), "android:id/button1", lambda: _create_file(ctx, spec)),
            (ctx.tr("Cancel", "取消"), "android:id/button2", lambda: _close(ctx)),
            (ctx.tr("Folder", "文件夹"), "android:id/button3", lambda: _create_folder(ctx, spec)),
        ],
        rows=rows,
        on_cancel=lambda: _close(ctx),
    )


def new_file_type_dialog(ctx: Ctx, spec: Spec) -> View:
    """The Type spinner's list: a pick sets the extension field to the type's and goes back to New file."""
    back: Spec = dict(spec.get("back") or {})

    def pick(i: int) -> None:
        ctx.set_field("new_file_ext", TYPES[i][1])
        ctx.show_dialog({**back, "type": i})

    rows = []
    for i, (name, _) in enumerate(TYPES):

        def build(x: int, y: int, wd: int, i: int = i, name: str = name) -> View:
            return w.list_item(
                ctx,
                (x, y, x + wd, y + ctx.dp(48)),
                name,
                on_click=lambda: pick(i),
                title_rid="android:id/text1",
                cls="android.widget.CheckedTextView",
                checked=i == int(back.get("type", 0)),
            )

        rows.append(Row(ctx.dp(48), build))
    return dialogs.dialog(ctx, "", "", [], rows=rows, on_cancel=lambda: ctx.show_dialog(back))


# --- Rename, Delete, Move ---------------------------------------------------------------------------------------------
def rename_dialog(ctx: Ctx, spec: Spec) -> View:
    src = str(spec.get("path", ""))
    text = ctx.field_value("new_name")

    def ok() -> None:
        new = normalize_name(ctx.field_value("new_name"))
        if not new:
            return
        dest = posixpath.join(posixpath.dirname(src), new)
        if dest != src and rename(ctx.model.fs, src, dest) is None:
            ctx.show_dialog({**spec, "error": True})
            return
        _selection(ctx).clear()
        _close(ctx)

    def field(x: int, y: int, wd: int) -> View:
        return w.edit(
            ctx,
            (x + ctx.dp(24), y, x + wd - ctx.dp(24), y + ctx.dp(48)),
            "new_name",
            text,
            "",
            lambda v: ctx.set_field("new_name", v),
            "new_name",
            action=ok,
            box="underline",
        )

    rows = [Row(ctx.dp(56), field, ("new_name",))]
    if spec.get("error"):
        error = ctx.tr("File/folder already exists! Please use a different name", "文件或文件夹已存在！请换一个名称")
        rows.append(w.text_row(ctx, error, "dialog_message", color=(211, 47, 47), lines=2, pad_dp=24))
    return dialogs.dialog(
        ctx,
        ctx.tr("Rename", "重命名"),
        "",
        dialogs.confirm_buttons(ctx, ctx.tr("OK", "确定"), ok, lambda: _close(ctx)),
        rows=rows,
        on_cancel=lambda: _close(ctx),
    )


def delete_dialog(ctx: Ctx, spec: Spec) -> View:
    sel = list(_selection(ctx))
    what = ctx.tr("document" if len(sel) == 1 else "documents", "文档")
    paths = "\n".join(display_path(p) for p in sel)
    message = ctx.tr(f"Do you really want to delete this {what}?", f"确定要删除此{what}吗？") + "\n\n" + paths

    def ok() -> None:
        for p in sel:
            remove(ctx.model.fs, p)
        _selection(ctx).clear()
        ctx.dismiss_dialog()

    return dialogs.dialog(
        ctx,
        ctx.tr("Confirm Delete", "确认删除"),
        message,
        dialogs.confirm_buttons(ctx, ctx.tr("OK", "确定"), ok, ctx.dismiss_dialog),
        on_cancel=ctx.dismiss_dialog,
    )


def move_dialog(ctx: Ctx, spec: Spec) -> View:
    here = str(spec.get("folder") or NOTEBOOK)
    sel = list(_selection(ctx))

    def go(path: str) -> None:
        ctx.show_dialog({**spec, "folder": path})

    def ok() -> None:
        fs = ctx.model.fs
        failed = [p for p in sel if move(fs, p, here) is None]
        _selection(ctx).clear()
        ctx.dismiss_dialog()
        if failed:
            ctx.toast(ctx.tr("File/folder already exists! Please use a different name", "文件或文件夹已存在！"))

    rows: list[Row] = []
    h = ctx.dp(56)
    if here != NOTEBOOK:
        parent = posixpath.dirname(here)
        rows.append(Row(h, lambda x, y, wd: _folder_row(ctx, (x, y, x + wd, y + h), "..", lambda: go(parent))))
    for e in folders(ctx.model.fs, here):
        if e.path in sel:
            continue

        def build(x: int, y: int, wd: int, p: str = e.path, n: str = e.name) -> View:
            return _folder_row(ctx, (x, y, x + wd, y + h), n, lambda: go(p))

        rows.append(Row(h, build))
    name = "Markor" if here == NOTEBOOK else posixpath.basename(here)
    return dialogs.dialog(
        ctx,
        ctx.tr(f"Move → {name}", f"移动 → {name}"),
        "",
        [
            (ctx.tr("Select this folder", "选择此文件夹"), "android:id/button1", ok),
            (ctx.tr("Cancel", "取消"), "android:id/button2", ctx.dismiss_dialog),
        ],
        rows=rows,
        on_cancel=ctx.dismiss_dialog,
    )


def _folder_row(ctx: Ctx, box: tuple[int, int, int, int], name: str, on_click: Callable[[], None]) -> View:
    return w.list_item(
        ctx,
        box,
        name,
        on_click=on_click,
        leading=("storage", ctx.theme.text2),
        rid="opoc_filesystem_item__root",
        title_rid="opoc_filesystem_item__title",
        desc=ctx.tr("Folder", "文件夹") + " " + name,
    )


DIALOGS: dict[str, Callable[[Ctx, Spec], View]] = {
    "new_file": new_file_dialog,
    "new_file_type": new_file_type_dialog,
    "rename": rename_dialog,
    "delete": delete_dialog,
    "move": move_dialog,
    "storage": storage_dialog,
}
