"""Files: Android's DocumentsUI as the Google build an emulator image carries (`com.google.android.documentsui`,
launcher label "Files"), over the device's shared storage as its one truth - what `adb shell ls`, `adb push` and
the media index see is what it lists, and what it moves, copies, renames or deletes is done on those files.

Modeled (`files_data` for the roots, documents and operations; `files_views` for the views; `files_picker` for the
destination picker):
- FilesActivity (`com.android.documentsui.files.FilesActivity`, the launcher's and AndroidWorld's): it opens on the
  home root (Downloads: config.xml's default_root_uri). The toolbar: the hamburger "Show roots", the title (the root,
  or the folder), Search (`option_menu_search`) and More options (New folder where the root takes new documents,
  Select all, Show / Don't show hidden files); in Recent the search bar ("Search this device") instead of the title.
  The directory header: the breadcrumb (the root and the folders opened: a tap goes back there), `header_title`
  (Recent files, Files in Downloads, Files on DEVICE, Files in FOLDER) and the grid / list toggle (`sub_menu_grid`,
  `sub_menu_list`, kept per root in the preferences file as DocumentsUI keeps it). `dir_list` shows folders first,
  as grid cards (the default) or list rows (title, then date, size and type in `metadata`).
- The navigation drawer: Recent, Images, Videos, Audio, Documents, Downloads and the device's storage (titled with
  the device's name, summarised "108 GB free").
- Selection: a long press selects (a tap then adds or removes); the action mode bar ("N selected", Done, Delete,
  More options: Select all / Deselect all, Copy to…, Move to…, Rename). Delete asks ('Delete "NAME"?', OK /
  Cancel); Rename and New folder ask for the name (`android:id/text1`).
- Copy to… / Move to… open PickActivity on the home root: the roots that take new documents in its drawer, files
  shown disabled, Cancel and Copy / Move (`android:id/button1`) doing the operation in the folder shown.
- Search: the names holding the query under the root (from Recent: the whole storage).
Left out: opening a file in another app (a tap on a file says "Can't open file"), Share, Get info, Compress /
Extract, New window, sorting choices, the search chips and history, drag and drop, the progress notifications of
file operations, work profiles, other storage providers and apps' roots.
"""

from __future__ import annotations

import posixpath
from typing import Any

from ..ui import dialogs
from ..ui import widgets as w
from ..ui.layout import Ctx, Row, V, vlist
from ..ui.view import View
from . import files_picker
from .base import App
from .files_data import (
    BUCKET,
    FILES,
    HOME_ROOT,
    PICK,
    PKG,
    ROOTS,
    Doc,
    Root,
    children,
    delete,
    make_dir,
    rename,
    root_dir,
    search,
    set_show_hidden,
    set_view_mode,
    show_hidden,
    stat_doc,
    view_mode,
)
from .files_nav import (
    crumbs,
    drawer,
    go_root,
    header_title,
    location_title,
    nav,
    open_dir,
    pop_to,
    popup_menu,
    root_for,
    summary,
)
from .files_views import (
    action_bar,
    doc_rows,
    empty_row,
    header_rows,
    toolbar,
    tr,
)


class FilesApp(App):
    package = PKG
    labels = {"en": "Files", "zh": "文件"}
    activities = {FILES: "files", PICK: "picker"}
    launcher = FILES
    color = (26, 115, 232)
    glyph = "storage"

    # --- state --------------------------------------------------------------------------------------------------
    def _selection(self, ctx: Ctx) -> list[str]:
        sel = [p for p in ctx.extras.get("sel") or [] if p.startswith(BUCKET) or ctx.model.fs.exists(p)]
        ctx.extras["sel"] = sel
        return sel

    def _docs(self, ctx: Ctx, root: Root, stack: list[str]) -> list[Doc]:
        hidden = show_hidden(ctx.model.fs)
        query = ctx.field_value("search") if ctx.ui.get("search") else ""
        if query.strip():
            where = root_for("primary") if root.key == "recent" else root
            return search(ctx.model, where, query, hidden)
        return children(ctx.model, root, stack[-1] if stack else None, hidden)

    def on_back(self, ctx: Ctx) -> bool:
        if ctx.activity == PICK:
            return files_picker.on_back(ctx)
        if ctx.ui.get("search"):
            ctx.ui.pop("search", None)
            ctx.set_field("search", "")
            return True
        if self._selection(ctx):
            ctx.extras["sel"] = []
            return True
        _, stack = nav(ctx)
        if stack:
            pop_to(ctx, len(stack) - 1)
            return True
        return False

    # --- actions ------------------------------------------------------------------------------------------------
    def _click(self, ctx: Ctx, doc: Doc) -> None:
        sel = self._selection(ctx)
        if sel:
            self._toggle(ctx, doc)
        elif doc.is_dir:
            open_dir(ctx, doc)
        else:
            ctx.toast(tr(ctx, "Can\u2019t open file", "无法打开文件"))

    def _toggle(self, ctx: Ctx, doc: Doc) -> None:
        if doc.id.startswith(BUCKET):
            return
        sel = self._selection(ctx)
        ctx.extras["sel"] = [p for p in sel if p != doc.id] if doc.id in sel else [*sel, doc.id]

    def _set_mode(self, ctx: Ctx, mode: int) -> None:
        root, _ = nav(ctx)
        set_view_mode(ctx.model.fs, root, mode)

    def _pick(self, ctx: Ctx, move: bool) -> None:
        paths = self._selection(ctx)
        ctx.dismiss_dialog()
        ctx.extras["sel"] = []
        if paths:
            ctx.push(PICK, {"op": "move" if move else "copy", "src": paths, "root": HOME_ROOT, "stack": []})

    def _delete(self, ctx: Ctx, paths: list[str]) -> None:
        delete(ctx.model.fs, paths)
        ctx.extras["sel"] = []
        ctx.dismiss_dialog()

    # --- screens ------------------------------------------------------------------------------------------------
    def screen_files(self, ctx: Ctx) -> list[View]:
        root, stack = nav(ctx)
        sel = self._selection(ctx)
        docs = self._docs(ctx, root, stack)
        searching = bool(ctx.ui.get("search"))

        def open_search() -> None:
            ctx.ui["search"] = True
            ctx.set_focus("search")

        if sel:
            ids = {d.id for d in docs}
            bar = action_bar(
                ctx,
                len(sel),
                lambda: ctx.extras.update(sel=[]),
                [
                    (
                        "delete",
                        tr(ctx, "Delete", "删除"),
                        "action_menu_delete",
                        lambda: ctx.show_dialog({"id": "delete"}),
                    )
                ],
                lambda: ctx.show_dialog({"id": "selection_menu", "all": ids <= set(sel)}),
            )
        elif searching:
            bar = self._search_bar(ctx)
        else:
            in_bar = root.key == "recent" and not stack  # Recent shows the search bar instead of the title
            bar = toolbar(
                ctx,
                location_title(ctx, root, stack),
                lambda: ctx.show_dialog({"id": "drawer"}),
                [] if in_bar else [("search", tr(ctx, "Search", "搜索"), "option_menu_search", open_search)],
                lambda: ctx.show_dialog({"id": "menu"}),
                search_bar=open_search if in_bar else None,
            )
        rows: list[Row] = []
        mode = view_mode(ctx.model.fs, root)
        if not searching:
            trail = [] if root.key == "recent" else crumbs(ctx, root, stack)
            rows += header_rows(ctx, trail, header_title(ctx, root, stack), mode, lambda m: self._set_mode(ctx, m))
        rows += doc_rows(ctx, docs, mode, lambda d: self._click(ctx, d), lambda d: self._toggle(ctx, d), set(sel))
        if not docs:
            query = ctx.field_value("search")
            where = location_title(ctx, root, stack)
            rows.append(
                empty_row(
                    ctx,
                    ctx.tr(f"No matches in {where}", f"“{where}”中没有任何相符项")
                    if query
                    else tr(ctx, "No items", "无任何文件"),
                )
            )
        l, _, r, b = ctx.area
        body = vlist(ctx, ctx.activity, (l, bar.bounds[3], r, b), rows, "dir_list", pad_bottom=ctx.dp(16))
        return [bar, body]

    def _search_bar(self, ctx: Ctx) -> View:
        l, t, r, _ = ctx.area
        h = ctx.dp(64)
        bar = V(ctx, "android.view.ViewGroup", (l, t, r, t + h), "toolbar", style={"bg": ctx.theme.bg})
        isz = ctx.dp(48)
        y0 = t + (h - isz) // 2

        def close() -> None:
            ctx.ui.pop("search", None)
            ctx.set_field("search", "")
            ctx.set_focus(None)

        bar.children.append(
            w.icon_button(
                ctx, (l + ctx.dp(4), y0, l + ctx.dp(4) + isz, y0 + isz), "back", tr(ctx, "Back", "返回"), close
            )
        )
        bar.children.append(
            w.edit(
                ctx,
                (l + ctx.dp(60), y0, r - ctx.dp(16), y0 + isz),
                "search",
                ctx.field_value("search"),
                tr(ctx, "Search this device", "在此设备上搜索"),
                lambda v: ctx.set_field("search", v),
                "search_src_text",
                action=ctx.hide_keyboard,
                action_kind="search",
                box="none",
            )
        )
        return bar

    def screen_picker(self, ctx: Ctx) -> list[View]:
        return files_picker.screen(ctx)

    # --- dialogs ------------------------------------------------------------------------------------------------
    def dialog_drawer(self, ctx: Ctx, spec: dict[str, Any]) -> View:
        root, _ = nav(ctx)
        roots = tuple(r for r in ROOTS if r.create) if ctx.activity == PICK else ROOTS
        return drawer(ctx, roots, root.key, lambda r: go_root(ctx, r), lambda r: summary(ctx, r))

    def dialog_menu(self, ctx: Ctx, spec: dict[str, Any]) -> View:
        root, stack = nav(ctx)
        fs = ctx.model.fs
        hidden = show_hidden(fs)
        items: list[tuple[str, Any]] = []
        if root.create:
            items.append((tr(ctx, "New folder", "新建文件夹"), lambda: ctx.show_dialog({"id": "name", "op": "mkdir"})))

        def select_all() -> None:
            ctx.extras["sel"] = [d.id for d in self._docs(ctx, root, stack) if not d.id.startswith(BUCKET)]
            ctx.dismiss_dialog()

        def flip_hidden() -> None:
            set_show_hidden(fs, not hidden)
            ctx.dismiss_dialog()

        items.append((tr(ctx, "Select all", "全选"), select_all))
        items.append(
            (
                tr(ctx, "Don\u2019t show hidden files", "不显示隐藏的文件")
                if hidden
                else tr(ctx, "Show hidden files", "显示隐藏的文件"),
                flip_hidden,
            )
        )
        return popup_menu(ctx, items)

    def dialog_selection_menu(self, ctx: Ctx, spec: dict[str, Any]) -> View:
        root, stack = nav(ctx)
        sel = self._selection(ctx)

        def select_all(on: bool) -> None:
            ctx.extras["sel"] = (
                [d.id for d in self._docs(ctx, root, stack) if not d.id.startswith(BUCKET)] if on else []
            )
            ctx.dismiss_dialog()

        items: list[tuple[str, Any]] = []
        if spec.get("all"):
            items.append((tr(ctx, "Deselect all", "取消全选"), lambda: select_all(False)))
        else:
            items.append((tr(ctx, "Select all", "全选"), lambda: select_all(True)))
        items.append((tr(ctx, "Copy to\u2026", "复制到…"), lambda: self._pick(ctx, False)))
        items.append((tr(ctx, "Move to\u2026", "移至…"), lambda: self._pick(ctx, True)))
        if len(sel) == 1:
            items.append(
                (tr(ctx, "Rename", "重命名"), lambda: ctx.show_dialog({"id": "name", "op": "rename", "path": sel[0]}))
            )
        return popup_menu(ctx, items)

    def dialog_delete(self, ctx: Ctx, spec: dict[str, Any]) -> View:
        paths = self._selection(ctx)
        docs = [d for d in (stat_doc(ctx.model.fs, p) for p in paths) if d is not None]
        dirs = sum(1 for d in docs if d.is_dir)
        n = len(docs)
        if n == 1:
            name = docs[0].name
            if dirs:
                msg = ctx.tr(f'Delete folder "{name}" and its contents?', f"要删除文件夹“{name}”及其中的内容吗？")
            else:
                msg = ctx.tr(f'Delete "{name}"?', f"要删除“{name}”吗？")
        elif dirs == 0:
            msg = ctx.tr(f"Delete {n} files?", f"要删除 {n} 个文件吗？")
        elif dirs == n:
            msg = ctx.tr(f"Delete {n} folders and their contents?", f"要删除 {n} 个文件夹及其中的内容吗？")
        else:
            msg = ctx.tr(f"Delete {n} items?", f"要删除 {n} 项内容吗？")
        buttons = dialogs.confirm_buttons(
            ctx, tr(ctx, "OK", "确定"), lambda: self._delete(ctx, paths), ctx.dismiss_dialog
        )
        return dialogs.dialog(ctx, "", msg, buttons, on_cancel=ctx.dismiss_dialog, message_rid="")

    def dialog_name(self, ctx: Ctx, spec: dict[str, Any]) -> View:
        """New folder / Rename: the name field (`android:id/text1` in `input_wrapper`), OK and Cancel."""
        op = spec.get("op")
        path = str(spec.get("path") or "")
        if "init" not in spec:
            spec["init"] = True
            ctx.set_field("file_name", posixpath.basename(path) if op == "rename" else "")
            ctx.set_focus("file_name")
        value = ctx.field_value("file_name")
        error = str(spec.get("error") or "")

        def ok() -> None:
            name = ctx.field_value("file_name")
            fs = ctx.model.fs
            if op == "rename":
                if not rename(fs, path, name):
                    spec["error"] = tr(ctx, "A file with this name already exists.", "已存在同名文件。")
                    return
                ctx.extras["sel"] = []
            else:
                if not name.strip():
                    spec["error"] = tr(ctx, "You need to add a folder name", "您需要添加文件夹名称")
                    return
                root, stack = nav(ctx)
                parent = stack[-1] if stack else root_dir(root)
                if parent is None or not make_dir(fs, parent, name):
                    ctx.toast(tr(ctx, "Failed to create folder", "无法创建文件夹"))
            ctx.set_focus(None)
            ctx.dismiss_dialog()

        def typed(v: str) -> None:
            ctx.set_field("file_name", v)
            spec.pop("error", None)

        field_h = ctx.dp(56) + (ctx.line_h(12) + ctx.dp(4) if error else 0)

        def field(x: int, y: int, wd: int) -> list[View]:
            hint = tr(ctx, "New name", "新名称") if op == "rename" else tr(ctx, "Folder name", "文件夹名称")
            out = [
                w.edit(
                    ctx,
                    (x + ctx.dp(24), y + ctx.dp(4), x + wd - ctx.dp(24), y + ctx.dp(56)),
                    "file_name",
                    value,
                    hint,
                    typed,
                    "android:id/text1",
                    action=ok,
                )
            ]
            if error:
                ey = y + ctx.dp(58)
                out.append(
                    w.text(
                        ctx,
                        (x + ctx.dp(40), ey, x + wd - ctx.dp(24), ey + ctx.line_h(12)),
                        error,
                        "textinput_error",
                        size=12,
                        color=ctx.theme.error,
                    )
                )
            return out

        title = tr(ctx, "Rename", "重命名") if op == "rename" else tr(ctx, "New folder", "新建文件夹")

        def cancel() -> None:
            ctx.set_focus(None)
            ctx.dismiss_dialog()

        buttons = dialogs.confirm_buttons(ctx, tr(ctx, "OK", "确定"), ok, cancel)
        return dialogs.dialog(ctx, title, "", buttons, rows=[Row(field_h, field, ("file_name",))], on_cancel=cancel)


__all__ = ["FilesApp"]
