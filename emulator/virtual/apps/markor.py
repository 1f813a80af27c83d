"""Markor (`net.gsantner.markor` 2.11.1, version code 146: the build AndroidWorld installs), the Markdown notes
app. Notes are files under /storage/emulated/0/Documents/Markor (`markor_files`): the app lists, shows and changes
exactly what the file system holds, so what `adb shell` writes there is what it shows, and what it saves is what
`cat` reads.

- MainActivity, the Files tab: the toolbar (the folder's name, "Markor" at the notebook), the folder's files and
  folders (`ui__filesystem_dialog__list`; each `opoc_filesystem_item__root` with its `..._title` and
  `..._description` - the modification time -, described "File NAME TIME" / "Folder NAME TIME"), folders first,
  by name; `..` goes up a folder (BACK too); a tap opens a file in DocumentActivity or a folder. A long press
  selects (described "Selected NAME ..."), taps then add or remove; the selection's toolbar has Delete, Rename (one
  item) and Move, and BACK ends it. The `fab_add_new_item` ("Create a new file or folder") opens the New file
  dialog (`markor_dialogs`). The bottom navigation (Files, To-Do, QuickNote, More) is shown; To-Do and QuickNote
  open `todo.txt` and `QuickNote.md` of the notebook in the editor (made when first saved), More shows the version.
- DocumentActivity (`markor_document`): the note's name in the toolbar, its text in the editor, Save, and the
  text saved when the editor is left (only when it changed: an unchanged note keeps its modification time).
- First start (`markor_intro`): the introduction's pages (NEXT, DONE), then the storage dialog (OK) that opens
  Settings' "All files access" page, as AndroidWorld's one-time set-up of the app goes through them.
Left out: view mode (rendered Markdown), the formatting bar, search, sort options, favourites, copy, share,
encryption, templates other than an empty file, the settings screens.
"""

from __future__ import annotations

import posixpath
from typing import Any

from ..ui import widgets as w
from ..ui.layout import Ctx, Row, V
from ..ui.theme import Color
from ..ui.view import View
from .base import App, page
from .markor_dialogs import DIALOGS
from .markor_document import document_back, open_document
from .markor_document import screen as document_screen
from .markor_files import (
    DOCUMENT,
    MAIN,
    NOTEBOOK,
    PKG,
    STORAGE_ROOT,
    VERSION_CODE,
    VERSION_NAME,
    display_path,
    entries,
    modified,
)
from .markor_intro import INTRO, intro_back, intro_done, intro_screen, storage_granted

MARKOR_BLUE: Color = (56, 142, 60)  # Markor's primary colour is green
NAV = (("nav_notebook", "Files", "文件"), ("nav_todo", "To-Do", "待办"), ("nav_quicknote", "QuickNote", "快记"))
NAV_MORE = ("nav_more", "More", "更多")


def folder(ctx: Ctx) -> str:
    """The folder the browser shows (the notebook until the user goes elsewhere)."""
    return str(ctx.ui.get("folder") or NOTEBOOK)


def selection(ctx: Ctx) -> list[str]:
    sel: list[str] = ctx.ui.setdefault("selected", [])
    return sel


class MarkorApp(App):
    package = PKG
    labels = {"en": "Markor", "zh": "Markor"}
    activities = {MAIN: "main", DOCUMENT: "document", INTRO: "intro"}
    launcher = MAIN
    color = MARKOR_BLUE
    glyph = "edit"
    version_name = VERSION_NAME
    version_code = VERSION_CODE
    installed = True  # as AndroidWorld installs it

    # --- lifecycle -----------------------------------------------------------------------------------
    def on_create(self, ctx: Ctx) -> None:
        fs = ctx.model.fs
        if not fs.is_dir(NOTEBOOK):  # the notebook folder is made on the first start
            fs.mkdir(NOTEBOOK, parents=True)

    def on_foreground(self, ctx: Ctx) -> None:
        ex = ctx.extras
        if ctx.activity == MAIN and not ex.get("_created"):
            ex["_created"] = True
            if not intro_done(ctx):
                ctx.push(INTRO)
            elif not storage_granted(ctx):
                ctx.show_dialog({"id": "storage"})
        elif ctx.activity == DOCUMENT and not ex.get("_created"):
            ex["_created"] = True
            open_document(ctx)

    def on_back(self, ctx: Ctx) -> bool:
        if ctx.activity == DOCUMENT:
            return document_back(ctx)
        if ctx.activity == INTRO:
            return intro_back(ctx)
        if ctx.activity == MAIN:
            if selection(ctx):
                selection(ctx).clear()
                return True
            if ctx.ui.get("tab", "nav_notebook") != "nav_notebook":
                ctx.ui["tab"] = "nav_notebook"
                return True
            here = folder(ctx)
            if here != NOTEBOOK and here != STORAGE_ROOT:
                ctx.ui["folder"] = posixpath.dirname(here)
                return True
        return False

    # --- the file browser -------------------------------------------------------------------------------
    def _tap(self, ctx: Ctx, path: str, is_dir: bool) -> None:
        sel = selection(ctx)
        if sel:
            if path in sel:
                sel.remove(path)
            else:
                sel.append(path)
            return
        if is_dir:
            ctx.ui["folder"] = path
            ctx.ui.setdefault("scroll", {}).pop("files", None)
        else:
            ctx.push(DOCUMENT, {"path": path})

    def _long_tap(self, ctx: Ctx, path: str) -> None:
        sel = selection(ctx)
        if path not in sel:
            sel.append(path)

    def _toolbar(self, ctx: Ctx) -> View:
        sel = selection(ctx)
        if sel:
            acts: list[tuple[str, str, Any, str]] = [
                (
                    "delete",
                    ctx.tr("Delete", "删除"),
                    lambda: ctx.show_dialog({"id": "delete"}),
                    "action_delete_selected_items",
                ),
            ]
            if len(sel) == 1:
                acts.append(
                    ("edit", ctx.tr("Rename", "重命名"), lambda: _rename(ctx), "action_rename_selected_item"),
                )
            acts.append(("forward", ctx.tr("Move", "移动"), lambda: _move(ctx), "action_move_selected_items"))
            return w.toolbar(
                ctx,
                str(len(sel)),
                ("close", ctx.tr("Cancel", "取消"), lambda: sel.clear()),
                acts,
            )
        here = folder(ctx)
        title = "Markor" if here == NOTEBOOK else posixpath.basename(here) or "/"
        return w.toolbar(ctx, title, None, [])

    def _rows(self, ctx: Ctx) -> list[Row]:
        here = folder(ctx)
        fs = ctx.model.fs
        sel = selection(ctx)
        h = ctx.dp(64)
        rows: list[Row] = []
        if here != STORAGE_ROOT:
            parent = posixpath.dirname(here)

            def up(x: int, y: int, wd: int, parent: str = parent) -> View:
                return _item(
                    ctx, (x, y, x + wd, y + h), "..", display_path(parent), "", True, False, lambda: _go(ctx, parent)
                )

            rows.append(Row(h, up))
        for e in entries(fs, here):
            when = modified(ctx.model, e.mtime)
            chosen = e.path in sel
            kind = (
                ctx.tr("Selected", "已选择")
                if chosen
                else (ctx.tr("Folder", "文件夹") if e.is_dir else ctx.tr("File", "文件"))
            )

            def build(
                x: int, y: int, wd: int, e: Any = e, when: str = when, kind: str = kind, chosen: bool = chosen
            ) -> View:
                return _item(
                    ctx,
                    (x, y, x + wd, y + h),
                    e.name,
                    when,
                    kind,
                    e.is_dir,
                    chosen,
                    lambda: self._tap(ctx, e.path, e.is_dir),
                    lambda: self._long_tap(ctx, e.path),
                )

            rows.append(Row(h, build))
        return rows

    def _bottom_nav(self, ctx: Ctx) -> View:
        l, _, r, b = ctx.area
        bh = ctx.dp(80)
        bar = V(
            ctx,
            "android.widget.FrameLayout",
            (l, b - bh, r, b),
            "bottom_navigation_bar",
            style={"bg": ctx.theme.surface},
        )
        items = [*NAV, NAV_MORE]
        iw = (r - l) // len(items)
        current = ctx.ui.get("tab", "nav_notebook")
        icons = {"nav_notebook": "storage", "nav_todo": "check", "nav_quicknote": "edit", "nav_more": "more"}
        for i, (rid, en, zh) in enumerate(items):
            label = ctx.tr(en, zh)
            box = (l + i * iw, b - bh, l + (i + 1) * iw, b)
            item = V(
                ctx,
                "android.widget.FrameLayout",
                box,
                rid,
                desc=label,
                clickable=True,
                focusable=True,
                selected=current == rid,
                on_click=lambda rid=rid: _tab(ctx, rid),
            )
            cx = (box[0] + box[2]) // 2
            item.children.append(
                w.icon(
                    ctx,
                    (cx - ctx.dp(12), box[1] + ctx.dp(14), cx + ctx.dp(12), box[1] + ctx.dp(38)),
                    icons[rid],
                    ctx.theme.primary if current == rid else ctx.theme.text2,
                )
            )
            item.children.append(
                w.text(
                    ctx,
                    (box[0], box[1] + ctx.dp(44), box[2], box[1] + ctx.dp(64)),
                    label,
                    "navigation_bar_item_large_label_view",
                    size=12,
                    align="c",
                    color=ctx.theme.text if current == rid else ctx.theme.text2,
                )
            )
            bar.children.append(item)
        return bar

    # --- screens -----------------------------------------------------------------------------------------
    def screen_main(self, ctx: Ctx) -> list[View]:
        nav = self._bottom_nav(ctx)
        bh = nav.bounds[3] - nav.bounds[1]
        tab = ctx.ui.get("tab", "nav_notebook")
        if tab == "nav_more":
            tb = w.toolbar(ctx, ctx.tr("More", "更多"))
            about = w.text_row(ctx, f"Markor v{VERSION_NAME}", "more__fragment__about", color=ctx.theme.text2)
            return page(ctx, [tb], [about], key="more", rid="more__fragment", footer=[nav], footer_h=bh)
        rows = self._rows(ctx)
        if len(rows) <= 1:
            rows.append(w.text_row(ctx, "¯\\_(ツ)_/¯", "empty_hint", color=ctx.theme.text2, align="c", height_dp=120))
        fab = w.fab(
            ctx,
            "add",
            ctx.tr("Create a new file or folder", "新建文件或文件夹"),
            lambda: _new_file(ctx),
            "fab_add_new_item",
            bottom_dp=16 + bh / ctx.scale,
        )
        return page(
            ctx,
            [self._toolbar(ctx)],
            rows,
            key="files",
            rid="ui__filesystem_dialog__list",
            footer=[nav],
            footer_h=bh,
            overlays=[] if ctx.keyboard else [fab],
            pad_bottom=ctx.dp(88),
        )

    def screen_document(self, ctx: Ctx) -> list[View]:
        return document_screen(ctx)

    def screen_intro(self, ctx: Ctx) -> list[View]:
        return intro_screen(ctx)

    def dialog(self, ctx: Ctx) -> View | None:
        spec = ctx.ui.get("dialog")
        if not spec:
            return None
        fn = DIALOGS.get(str(spec.get("id", "")))
        return fn(ctx, spec) if fn else None


def _go(ctx: Ctx, path: str) -> None:
    if selection(ctx):
        return
    ctx.ui["folder"] = path
    ctx.ui.setdefault("scroll", {}).pop("files", None)


def _tab(ctx: Ctx, rid: str) -> None:
    """The bottom navigation: To-Do and QuickNote open their note in the editor (the Files tab stays selected)."""
    if rid == "nav_todo":
        ctx.push(DOCUMENT, {"path": posixpath.join(NOTEBOOK, "todo.txt")})
    elif rid == "nav_quicknote":
        ctx.push(DOCUMENT, {"path": posixpath.join(NOTEBOOK, "QuickNote.md")})
    else:
        ctx.ui["tab"] = rid


def _new_file(ctx: Ctx) -> None:
    ctx.set_field("new_file_name", "")
    ctx.set_field("new_file_ext", str(ctx.ui.get("last_ext", ".md")))
    ctx.show_dialog({"id": "new_file", "folder": folder(ctx), "type": int(ctx.ui.get("last_type", 0))})
    ctx.set_focus("new_file_name")


def _rename(ctx: Ctx) -> None:
    sel = selection(ctx)
    if len(sel) != 1:
        return
    ctx.set_field("new_name", posixpath.basename(sel[0]))
    ctx.show_dialog({"id": "rename", "path": sel[0]})
    ctx.set_focus("new_name")


def _move(ctx: Ctx) -> None:
    ctx.show_dialog({"id": "move", "folder": folder(ctx)})


def _item(
    ctx: Ctx,
    bounds: tuple[int, int, int, int],
    title: str,
    description: str,
    kind: str,
    is_dir: bool,
    chosen: bool,
    on_click: Any,
    on_long_click: Any = None,
) -> View:
    """One row of the file browser (opoc_filesystem_item): its icon, name and description."""
    l, t, r, b = bounds
    th = ctx.theme
    row = V(
        ctx,
        "android.widget.LinearLayout",
        bounds,
        "opoc_filesystem_item__root",
        clickable=True,
        focusable=True,
        long_clickable=on_long_click is not None,
        on_click=on_click,
        on_long_click=on_long_click,
        desc=" ".join(p for p in (kind, title, description) if p),
        selected=chosen,
        style={"bg": th.surface2} if chosen else {},
    )
    isz = ctx.dp(40)
    iy = t + (b - t - isz) // 2
    glyph = "check" if chosen else ("storage" if is_dir else "edit")
    row.children.append(
        w.icon(
            ctx,
            (l + ctx.dp(12), iy, l + ctx.dp(12) + isz, iy + isz),
            glyph,
            th.primary if chosen else th.text2,
            "opoc_filesystem_item__image",
        )
    )
    x = l + ctx.dp(64)
    row.children.append(
        w.text(
            ctx,
            (x, t + ctx.dp(8), r - ctx.dp(16), t + ctx.dp(34)),
            title,
            "opoc_filesystem_item__title",
            size=16,
            style={"ellipsize": True},
        )
    )
    row.children.append(
        w.text(
            ctx,
            (x, t + ctx.dp(34), r - ctx.dp(16), b - ctx.dp(8)),
            description,
            "opoc_filesystem_item__description",
            size=13,
            color=th.text2,
            style={"ellipsize": True},
        )
    )
    return row


__all__ = ["MarkorApp", "folder", "selection"]
