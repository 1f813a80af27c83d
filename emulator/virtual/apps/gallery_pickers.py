"""Simple Gallery Pro's destination pickers for Copy to / Move to, and the copy itself (Simple-Commons'
copyMoveFilesTo).

- PickDirectoryDialog ("Select destination"): the search field ("Search folders") and the folders holding media, as
  the folders grid shows them; a folder picked is the destination (its own folder: "Source and destination cannot
  be the same"). OK and Cancel close it; "Other folder" (`android:id/button3`) opens the file picker.
- FilePickerDialog ("Select a folder"), from the last destination used (`last_copy_path`) or else the medium's
  folder: the breadcrumbs (`filepicker_breadcrumbs`: "Internal", "> DCIM", ... - a tap goes there), the folder's
  items (`filepicker_list`: `list_item_name`, `list_item_details` - a folder's "N items", a file's size; a folder
  opens), the "Create new folder" button (`filepicker_fab`), OK (this folder is the destination) and Cancel; BACK
  goes up a breadcrumb, and closes the picker at the first.
- The copy (or move) keeps the name and the modification time; a name taken at the destination asks what to do
  (FileConflictDialog: Skip, Overwrite, Keep both - "name(1).jpg"); done: "File copied successfully" /
  "File moved successfully".
"""

from __future__ import annotations

import posixpath
from collections.abc import Callable
from typing import Any

from ..fs import FileSystem, FsError
from ..ui import dialogs
from ..ui import widgets as w
from ..ui.fonts import text_width
from ..ui.layout import Ctx, Row, V, grid_rows, hlist
from ..ui.view import View
from .gallery_data import (
    LAST_COPY_PATH,
    PREFS,
    ROOT,
    copy_file,
    folders,
    format_size,
    free_name,
    media,
    pref,
    subfolders,
    tr,
)
from .gallery_viewer import leave_if_empty
from .gallery_widgets import folder_cell

Spec = dict[str, Any]


def _close(ctx: Ctx) -> None:
    ctx.dismiss_dialog()
    ctx.set_focus(None)


# --- the copy ---------------------------------------------------------------------------------------------------------
def copy_to(ctx: Ctx, spec: Spec, dest_dir: str) -> None:
    """The medium of `spec` copied (moved) into `dest_dir`, asking first when its name is taken there."""
    src = str(spec.get("src", ""))
    if posixpath.dirname(src) == dest_dir.rstrip("/"):
        ctx.toast(tr(ctx, "source_and_destination_same"))
        return
    dest = posixpath.join(dest_dir, posixpath.basename(src))
    if ctx.model.fs.exists(dest):
        ctx.show_dialog({"id": "conflict", "src": src, "move": bool(spec.get("move")), "dest_dir": dest_dir})
        return
    _transfer(ctx, src, dest, bool(spec.get("move")))


def _transfer(ctx: Ctx, src: str, dest: str, move: bool) -> None:
    _close(ctx)
    if not copy_file(ctx.model.fs, src, dest, move=move):
        ctx.toast(tr(ctx, "unknown_error_occurred"))
        return
    ctx.toast(tr(ctx, "moving_success_one" if move else "copying_success_one"))
    if move:
        leave_if_empty(ctx)


def conflict_dialog(ctx: Ctx, spec: Spec) -> View:
    src, dest_dir = str(spec["src"]), str(spec["dest_dir"])
    choice = str(spec.get("choice", "skip"))
    name = posixpath.basename(src)

    def ok() -> None:
        if choice == "skip":
            _close(ctx)
        elif choice == "overwrite":
            _transfer(ctx, src, posixpath.join(dest_dir, name), bool(spec.get("move")))
        else:
            _transfer(
                ctx, src, posixpath.join(dest_dir, free_name(ctx.model.fs, dest_dir, name)), bool(spec.get("move"))
            )

    rows = []
    for key, rid in (
        ("skip", "conflict_dialog_radio_skip"),
        ("overwrite", "conflict_dialog_radio_overwrite"),
        ("keep_both", "conflict_dialog_radio_keep_both"),
    ):

        def build(x: int, y: int, wd: int, key: str = key, rid: str = rid) -> View:
            box = (x + ctx.dp(20), y, x + wd - ctx.dp(24), y + ctx.dp(48))
            pick = lambda: ctx.show_dialog({**spec, "choice": key})  # noqa: E731
            return w.checkbox(ctx, box, choice == key, rid, pick, tr(ctx, key), radio=True)

        rows.append(Row(ctx.dp(48), build))
    return dialogs.dialog(
        ctx,
        "",
        tr(ctx, "file_already_exists") % name,
        dialogs.confirm_buttons(ctx, tr(ctx, "ok"), ok, lambda: _close(ctx), tr(ctx, "cancel")),
        rows=rows,
        on_cancel=lambda: _close(ctx),
        message_rid="conflict_dialog_title",
    )


# --- PickDirectoryDialog ----------------------------------------------------------------------------------------------
def pick_dir_dialog(ctx: Ctx, spec: Spec) -> View:
    query = ctx.field_value("pick_search").strip().lower()
    dirs = [f for f in folders(media(ctx.model)) if query in f.name.lower()]
    _, _, sr, _ = ctx.mgr.dialog_area()
    inner = min(ctx.dp(312), sr - ctx.mgr.dialog_area()[0] - ctx.dp(32))
    cell = inner // 2

    def search(x: int, y: int, wd: int) -> View:
        box = (x + ctx.dp(16), y + ctx.dp(4), x + wd - ctx.dp(16), y + ctx.dp(52))
        return w.edit(
            ctx,
            box,
            "pick_search",
            ctx.field_value("pick_search"),
            tr(ctx, "search_folders"),
            lambda v: ctx.set_field("pick_search", v),
            "top_toolbar_search",
            box="filled",
        )

    def picked(path: str) -> Callable[[], None]:
        return lambda: copy_to(ctx, spec, path)

    rows: list[Row] = [Row(ctx.dp(56), search, ("pick_search",))]
    rows += grid_rows(
        len(dirs), 2, cell, lambda i, x, y, cw, ch: folder_cell(ctx, dirs[i], x, y, cw, picked(dirs[i].path))
    )
    if not dirs:
        rows.append(w.text_row(ctx, tr(ctx, "no_items_found"), "directories_empty_placeholder", align="c", width=inner))

    def other() -> None:
        src_dir = posixpath.dirname(str(spec.get("src", "")))
        last = str(pref(ctx.model.fs, LAST_COPY_PATH, "") or "")
        start = last if last and ctx.model.fs.is_dir(last) else src_dir
        ctx.set_field("pick_search", "")
        ctx.set_focus(None)
        ctx.show_dialog({"id": "file_picker", "src": spec.get("src"), "move": spec.get("move"), "path": start})

    return dialogs.dialog(
        ctx,
        tr(ctx, "select_destination"),
        "",
        [
            (tr(ctx, "ok"), "android:id/button1", lambda: _close(ctx)),
            (tr(ctx, "cancel"), "android:id/button2", lambda: _close(ctx)),
            (tr(ctx, "other_folder"), "android:id/button3", other),
        ],
        rows=rows,
        on_cancel=lambda: _close(ctx),
    )


# --- FilePickerDialog -------------------------------------------------------------------------------------------------
def _crumbs(path: str) -> list[tuple[str, str]]:
    """The breadcrumbs of `path`: ("Internal", /sdcard), then each folder below it ("> NAME", its path)."""
    out = [("", ROOT)]
    rel = path[len(ROOT) :].strip("/")
    here = ROOT
    for part in [p for p in rel.split("/") if p]:
        here = posixpath.join(here, part)
        out.append((part, here))
    return out


def file_picker_dialog(ctx: Ctx, spec: Spec) -> View:
    fs = ctx.model.fs
    path = str(spec.get("path") or ROOT)
    if not (path == ROOT or path.startswith(ROOT + "/")) or not fs.is_dir(path):
        path = ROOT

    def go(to: str) -> Callable[[], None]:
        return lambda: ctx.show_dialog({**spec, "path": to})

    def up() -> None:
        if path == ROOT:
            _close(ctx)
        else:
            ctx.show_dialog({**spec, "path": posixpath.dirname(path)})

    def confirm() -> None:
        PREFS.put(fs, LAST_COPY_PATH, path)
        copy_to(ctx, spec, path)

    def crumb(label: str, to: str, cw: int) -> Callable[[int, int, int], View]:
        def build(bx: int, by: int, bh: int) -> View:
            color = ctx.theme.primary if to == path else ctx.theme.text
            box = (bx, by, bx + cw, by + bh)
            return w.text(
                ctx,
                box,
                label,
                "breadcrumb_text",
                16,
                color,
                align="c",
                clickable=True,
                focusable=True,
                on_click=go(to),
            )

        return build

    def crumbs(x: int, y: int, wd: int) -> View:
        items: list[tuple[int, Callable[[int, int, int], View]]] = []
        for i, (name, to) in enumerate(_crumbs(path)):
            label = tr(ctx, "internal") if i == 0 else f"> {name}"
            cw = int(text_width(label, ctx.sp(16))) + ctx.dp(16)
            items.append((cw, crumb(label, to, cw)))
        box = (x + ctx.dp(16), y, x + wd - ctx.dp(16), y + ctx.dp(48))
        return hlist(ctx, "crumbs", box, items, "filepicker_breadcrumbs", cls="android.widget.HorizontalScrollView")

    entries = sorted(
        ((n, node) for n, node in _listing(fs, path) if not n.startswith(".")),
        key=lambda e: (not e[1], e[0].lower()),
    )
    counts = dict(subfolders(fs, path))
    rows: list[Row] = [Row(ctx.dp(48), crumbs)]
    item_h = ctx.dp(64)
    for name, is_dir in entries:
        sub = posixpath.join(path, name)
        n = counts.get(name, 0)
        details = (tr(ctx, "item") if n == 1 else tr(ctx, "items")) % n if is_dir else format_size(_size(fs, sub))

        def build(
            x: int, y: int, wd: int, name: str = name, sub: str = sub, is_dir: bool = is_dir, details: str = details
        ) -> View:
            holder = V(
                ctx,
                "android.widget.RelativeLayout",
                (x, y, x + wd, y + item_h),
                "list_item_holder",
                clickable=True,
                focusable=True,
                on_click=go(sub) if is_dir else (lambda: None),
            )
            isz = ctx.dp(48)
            icon_box = (x + ctx.dp(8), y + (item_h - isz) // 2, x + ctx.dp(8) + isz, y + (item_h + isz) // 2)
            holder.children.append(
                w.icon(ctx, icon_box, "storage" if is_dir else "image", ctx.theme.text2, "list_item_icon")
            )
            tx = icon_box[2] + ctx.dp(8)
            holder.children.append(
                w.text(ctx, (tx, y + ctx.dp(8), x + wd - ctx.dp(16), y + ctx.dp(34)), name, "list_item_name", size=16)
            )
            holder.children.append(
                w.text(
                    ctx,
                    (tx, y + ctx.dp(34), x + wd - ctx.dp(16), y + ctx.dp(56)),
                    details,
                    "list_item_details",
                    color=ctx.theme.text2,
                )
            )
            return holder

        rows.append(Row(item_h, build))

    def new_folder(x: int, y: int, wd: int) -> View:
        box = (x + wd - ctx.dp(72), y + ctx.dp(4), x + wd - ctx.dp(16), y + ctx.dp(60))
        v = w.icon(
            ctx,
            box,
            "add",
            ctx.theme.on_primary_container,
            "filepicker_fab",
            tr(ctx, "create_new_folder"),
            bg=ctx.theme.primary_container,
            on_click=lambda: _ask_folder(ctx, spec, path),
        )
        v.cls = w.IMAGE_BUTTON
        v.style["inset"] = ctx.dp(16)
        return v

    rows.append(Row(ctx.dp(64), new_folder))
    return dialogs.dialog(
        ctx,
        tr(ctx, "select_folder"),
        "",
        dialogs.confirm_buttons(ctx, tr(ctx, "ok"), confirm, lambda: _close(ctx), tr(ctx, "cancel")),
        rows=rows,
        on_cancel=up,
    )


def _listing(fs: FileSystem, path: str) -> list[tuple[str, bool]]:
    try:
        return [(name, node.is_dir) for name, node in fs.listdir(path)]
    except FsError:
        return []


def _size(fs: FileSystem, path: str) -> int:
    node = fs.stat(path)
    return node.size if node is not None else 0


# --- CreateNewFolderDialog --------------------------------------------------------------------------------------------
def _ask_folder(ctx: Ctx, spec: Spec, parent: str) -> None:
    ctx.set_field("new_folder_name", "")
    ctx.show_dialog({"id": "new_folder", "back": {**spec, "path": parent}})
    ctx.set_focus("new_folder_name")


def new_folder_dialog(ctx: Ctx, spec: Spec) -> View:
    back: Spec = dict(spec.get("back") or {})
    parent = str(back.get("path") or ROOT)

    def cancel() -> None:
        ctx.set_focus(None)
        ctx.show_dialog(back)

    def ok() -> None:
        name = ctx.field_value("new_folder_name").strip()
        if not name:
            ctx.toast(tr(ctx, "empty_name"))
            return
        if "/" in name or name.startswith("."):
            ctx.toast(tr(ctx, "invalid_name"))
            return
        target = posixpath.join(parent, name)
        if ctx.model.fs.exists(target):
            ctx.toast(tr(ctx, "name_taken"))
            return
        ctx.model.fs.mkdir(target, parents=True)
        ctx.set_focus(None)
        PREFS.put(ctx.model.fs, LAST_COPY_PATH, target)
        copy_to(ctx, back, target)

    def field(x: int, y: int, wd: int) -> View:
        box = (x + ctx.dp(24), y + ctx.dp(4), x + wd - ctx.dp(24), y + ctx.dp(60))
        key = "new_folder_name"
        return w.edit(
            ctx, box, key, ctx.field_value(key), tr(ctx, "title"), lambda v: ctx.set_field(key, v), "folder_name"
        )

    return dialogs.dialog(
        ctx,
        tr(ctx, "create_new_folder"),
        "",
        dialogs.confirm_buttons(ctx, tr(ctx, "ok"), ok, cancel, tr(ctx, "cancel")),
        rows=[Row(ctx.dp(68), field, ("new_folder_name",))],
        on_cancel=cancel,
    )


PICKER_DIALOGS: dict[str, Callable[[Ctx, Spec], View]] = {
    "pick_dir": pick_dir_dialog,
    "file_picker": file_picker_dialog,
    "conflict": conflict_dialog,
    "new_folder": new_folder_dialog,
}
