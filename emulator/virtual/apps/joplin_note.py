"""Joplin's Note screen: the header (Back, the notebook's title, Actions), a to-do's checkbox beside the title field
(Add title), the body - in view mode the Markdown rendered (paragraphs, list items, headings) with the Edit button,
in edit mode the Markdown text field (Add body). Every change is saved as it is typed, as the app's scheduled save
does: a new note is written once its title or body is not empty, in the notebook it was created from. BACK leaves
edit mode for view mode, then the note. Actions: Convert to todo / Convert to note, Delete (to the trash)."""

from __future__ import annotations

import re
from typing import Any

from ..ui import widgets as w
from ..ui.fonts import wrap
from ..ui.layout import Ctx, Row, V
from ..ui.view import View
from .base import page
from .joplin_data import folder, note, save_note, set_todo_completed, tr, trash_note
from .joplin_widgets import header

GROUP = "android.view.ViewGroup"


def _route(ctx: Ctx) -> dict[str, Any]:
    r: dict[str, Any] = ctx.ui.get("route") or {}
    return r


def _current(ctx: Ctx) -> dict[str, Any]:
    """The note shown: its row, or a new one's values until it is written."""
    r = _route(ctx)
    n = note(ctx, r.get("note"))
    if n is not None:
        return n
    return {
        "id": None,
        "title": "",
        "body": "",
        "is_todo": int(bool(r.get("todo"))),
        "todo_completed": 0,
        "parent_id": r.get("folder") or "",
    }


def _change(ctx: Ctx, **values: Any) -> None:
    """Saved as typed: the new note written on its first text, with its notebook and kind."""
    r = _route(ctx)
    n = _current(ctx)
    if n["id"] is None:
        if not any(str(v).strip() for v in values.values()):
            return
        values = {"parent_id": n["parent_id"], "is_todo": n["is_todo"], **values}
    r["note"] = save_note(ctx, n["id"], **values)


def back(ctx: Ctx, app: Any) -> bool:
    r = _route(ctx)
    if r.get("mode") == "edit" and r.get("note"):
        r["mode"] = "view"
        ctx.set_focus(None)
        return True
    target = dict(r.get("back") or {"name": "Notes", "folder": r.get("folder")})
    app.go(ctx, **target)
    return True


def _blocks(body: str) -> list[tuple[str, str, str]]:
    """The rendered Markdown's blocks: (kind, marker, text) - paragraphs (their lines joined), list items, headings."""
    out: list[tuple[str, str, str]] = []
    para: list[str] = []

    def flush() -> None:
        if para:
            out.append(("p", "", " ".join(para)))
            para.clear()

    for line in body.split("\n"):
        s = line.strip()
        bullet = re.match(r"^[-*+]\s+(.*)$", s)
        number = re.match(r"^(\d+)[.)]\s+(.*)$", s)
        heading = re.match(r"^(#{1,6})\s+(.*)$", s)
        if not s:
            flush()
        elif heading:
            flush()
            out.append(("h", "", heading.group(2)))
        elif bullet:
            flush()
            out.append(("li", "•", bullet.group(1)))
        elif number:
            flush()
            out.append(("li", f"{number.group(1)}.", number.group(2)))
        else:
            para.append(s)
    flush()
    return out


def screen(ctx: Ctx, app: Any) -> list[View]:
    r = _route(ctx)
    n = _current(ctx)
    f = folder(ctx, n["parent_id"] or r.get("folder"))
    editing = r.get("mode") == "edit" or n["id"] is None
    bar = header(
        ctx,
        str(f["title"]) if f else "",
        ("back", tr(ctx, "Back"), lambda: back(ctx, app)),
        [("more", tr(ctx, "Actions"), lambda: ctx.show_dialog({"id": "note_menu"}))],
    )
    todo = int(n["is_todo"] or 0) == 1
    title_h = ctx.dp(56)
    title_key, body_key = "note_title", "note_body"

    def title_row(x: int, y: int, wd: int) -> list[View]:
        out: list[View] = []
        left = x + ctx.dp(16)
        if todo:
            done = int(n["todo_completed"] or 0) > 0

            def toggle() -> None:
                if n["id"] is not None:
                    set_todo_completed(ctx, n["id"], not done)

            out.append(
                V(
                    ctx,
                    "android.widget.CheckBox",
                    (left, y + ctx.dp(8), left + ctx.dp(40), y + title_h - ctx.dp(8)),
                    clickable=True,
                    focusable=True,
                    checkable=True,
                    checked=done,
                    on_click=toggle,
                    style={"kind": "checkbox"},
                )
            )
            left += ctx.dp(48)
        out.append(
            w.edit(
                ctx,
                (left, y + ctx.dp(4), x + wd - ctx.dp(16), y + title_h - ctx.dp(4)),
                title_key,
                str(n["title"] or ""),
                tr(ctx, "Add title"),
                lambda v: _change(ctx, title=v),
                size=20,
                box="none",
                getter=lambda: str(_current(ctx)["title"] or ""),
            )
        )
        return out

    rows: list[Row] = [Row(title_h, title_row, (title_key,))]
    body = str(n["body"] or "")
    overlays: list[View] = []
    if editing:
        l, t, rr, b = ctx.area
        body_h = max(ctx.dp(160), b - t - ctx.dp(56) - title_h - ctx.dp(8))

        def body_row(x: int, y: int, wd: int) -> View:
            lines = max(1, (body_h - ctx.dp(16)) // ctx.line_h(16))
            return w.edit(
                ctx,
                (x + ctx.dp(16), y, x + wd - ctx.dp(16), y + body_h),
                body_key,
                body,
                tr(ctx, "Add body"),
                lambda v: _change(ctx, body=v),
                multiline=True,
                size=16,
                box="none",
                lines=lines,
                getter=lambda: str(_current(ctx)["body"] or ""),
            )

        rows.append(Row(body_h, body_row, (body_key,)))
    elif body.strip():
        rows += _rendered(ctx, body)
        sz = ctx.dp(56)
        x1, y1 = ctx.area[2] - ctx.dp(16), ctx.area[3] - ctx.dp(16)

        def edit() -> None:
            r["mode"] = "edit"
            ctx.set_focus(body_key)

        if not ctx.keyboard:
            overlays.append(
                V(
                    ctx,
                    w.BUTTON,
                    (x1 - sz, y1 - sz, x1, y1),
                    desc=tr(ctx, "Edit"),
                    clickable=True,
                    focusable=True,
                    on_click=edit,
                    style={
                        "bg": (46, 125, 204),
                        "radius": sz // 2,
                        "icon": "edit",
                        "icon_color": (255, 255, 255),
                        "inset": ctx.dp(16),
                        "shadow": True,
                    },
                )
            )
    return page(ctx, [bar], rows, key="note", cls="android.widget.ScrollView", overlays=overlays, pad_bottom=ctx.dp(96))


def _rendered(ctx: Ctx, body: str) -> list[Row]:
    """NoteBodyViewer: the Markdown as the WebView shows it - a text node per block, a list item after its marker."""
    width = ctx.area[2] - ctx.area[0] - ctx.dp(32)
    rows: list[Row] = []
    for kind, marker, text in _blocks(body):
        size = 20 if kind == "h" else 16
        indent = ctx.dp(28) if kind == "li" else 0
        n = max(1, len(wrap(text, ctx.sp(size), width - indent, kind == "h")))
        h = ctx.line_h(size, n) + ctx.dp(8 if kind == "li" else 14)

        def build(
            x: int,
            y: int,
            wd: int,
            kind: str = kind,
            marker: str = marker,
            text: str = text,
            size: int = size,
            indent: int = indent,
            n: int = n,
            h: int = h,
        ) -> View:
            block = V(ctx, "android.webkit.WebView", (x, y, x + wd, y + h))
            x0 = x + ctx.dp(16)
            if marker:
                block.children.append(w.text(ctx, (x0, y, x0 + indent, y + ctx.line_h(size)), marker, size=size))
            block.children.append(
                w.text(
                    ctx,
                    (x0 + indent, y, x + wd - ctx.dp(16), y + h),
                    text,
                    size=size,
                    bold=kind == "h",
                    lines=n,
                    valign="t",
                )
            )
            return block

        rows.append(Row(h, build))
    return rows


def menu(ctx: Ctx, app: Any, spec: dict[str, Any]) -> View:
    """The header's Actions menu: Convert to todo / note, Delete (the note to the trash, its notebook shown)."""
    n = _current(ctx)
    r = _route(ctx)
    l, t, rr, _ = ctx.area
    todo = int(n["is_todo"] or 0) == 1

    def convert() -> None:
        ctx.dismiss_dialog()
        if n["id"] is None:
            r["todo"] = not todo
        else:
            save_note(ctx, n["id"], is_todo=0 if todo else 1, todo_completed=0)

    def delete() -> None:
        if n["id"] is not None:
            trash_note(ctx, n["id"])
        app.go(ctx, name="Notes", folder=n["parent_id"] or r.get("folder"))

    items = [(tr(ctx, "Convert to note" if todo else "Convert to todo"), convert), (tr(ctx, "Delete"), delete)]
    item_h = ctx.dp(48)
    wd = ctx.dp(220)
    box = (rr - wd - ctx.dp(8), t + ctx.dp(8), rr - ctx.dp(8), t + ctx.dp(8) + item_h * len(items))
    root = V(
        ctx,
        GROUP,
        box,
        style={
            "bg": ctx.theme.surface,
            "radius": ctx.dp(4),
            "shadow": True,
            "modal": True,
            "on_cancel": ctx.dismiss_dialog,
        },
    )
    for i, (label, cb) in enumerate(items):
        y = box[1] + i * item_h
        item = V(ctx, GROUP, (box[0], y, box[2], y + item_h), clickable=True, focusable=True, on_click=cb)
        item.children.append(w.text(ctx, (box[0] + ctx.dp(16), y, box[2] - ctx.dp(16), y + item_h), label, size=16))
        root.children.append(item)
    return root
