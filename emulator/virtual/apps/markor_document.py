"""Markor's DocumentActivity: one note in the editor (`document__fragment__edit__highlighting_editor`), its file
name in the toolbar (`note__activity__text_note_title`), Save (`action_save`). The text is read from the file when
the activity opens and written back on Save and when the editor is left (BACK, the toolbar's arrow), only when it
differs from what the file holds - leaving a note unchanged keeps its modification time, as Markor does. A note
that does not exist yet (To-Do's todo.txt, QuickNote.md) is made by its first save of some text."""

from __future__ import annotations

import posixpath

from ..ui import widgets as w
from ..ui.layout import Ctx, Row
from ..ui.view import View
from .base import page
from .markor_files import read_text, write_text

FIELD = "document_text"


def _path(ctx: Ctx) -> str:
    return str(ctx.extras.get("path", ""))


def open_document(ctx: Ctx) -> None:
    """The activity opened: the file's text into the editor; an empty note gets the cursor and the keyboard."""
    text = read_text(ctx.model.fs, _path(ctx))
    ctx.set_field(FIELD, text)
    ctx.extras["_loaded"] = text
    if not text:
        ctx.set_focus(FIELD)


def save(ctx: Ctx) -> None:
    path = _path(ctx)
    if not path:
        return
    fs = ctx.model.fs
    text = ctx.field_value(FIELD)
    exists = fs.exists(path)
    if (exists and text == read_text(fs, path)) or (not exists and not text):
        return
    write_text(fs, path, text)
    ctx.extras["_loaded"] = text


def document_back(ctx: Ctx) -> bool:
    """BACK (after the keyboard): the note saved, the activity finishes."""
    save(ctx)
    return False


def _close(ctx: Ctx) -> None:
    save(ctx)
    ctx.finish()


def _save_clicked(ctx: Ctx) -> None:
    save(ctx)
    ctx.toast(ctx.tr("Saved", "已保存"))


def screen(ctx: Ctx) -> list[View]:
    l, t, r, b = ctx.area
    name = posixpath.basename(_path(ctx))
    tb = w.toolbar(
        ctx,
        name,
        ("back", ctx.tr("Navigate up", "向上导航"), lambda: _close(ctx)),
        [("check", ctx.tr("Save", "保存"), lambda: _save_clicked(ctx), "action_save")],
        title_rid="note__activity__text_note_title",
    )
    text = ctx.field_value(FIELD)
    body_h = max(ctx.dp(160), b - tb.bounds[3] - ctx.dp(8))

    def body(x: int, y: int, wd: int) -> View:
        v = w.edit(
            ctx,
            (x + ctx.dp(8), y + ctx.dp(4), x + wd - ctx.dp(8), y + body_h),
            FIELD,
            text,
            "",
            lambda v: ctx.set_field(FIELD, v),
            "document__fragment__edit__highlighting_editor",
            multiline=True,
            size=16,
            box="none",
            lines=max(1, (body_h - ctx.dp(8)) // int(ctx.sp(16) * 1.35)),
        )
        v.style["pad_top"] = ctx.dp(4)
        return v

    return page(
        ctx,
        [tb],
        [Row(body_h, body, (FIELD,))],
        key="document",
        rid="document__fragment__edit__content_editor__scrolling_parent",
        cls="android.widget.ScrollView",
    )
