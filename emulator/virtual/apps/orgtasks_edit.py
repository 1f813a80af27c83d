"""Tasks' task editor (TaskEditFragment, in MainActivity's place of the list): the `toolbar` (its navigation
button saves, content description Save; Delete task for a saved task), the `title` field (Task name), the `fab`
that completes the task (or makes it active again), and the rows of the default layout the twin models: the due
date (No due date, or the date as the app shows it; DateTimePicker's Today / Tomorrow / Next week / No date with
OK / Cancel), the priority (Priority and four radio buttons: none, low, medium, high, in that order), the
description (Description) and the info row (Created / Modified / Completion yyyy-MM-dd HH:mm).

Saving writes the row through the database (a new task: created and modified now, a new remoteId; nothing typed
into a new one: nothing saved); BACK discards, asking "Are you sure you want to discard your changes?" (Keep
editing / Discard) when something changed, as the app does with its default "back button saves task" off.
"""

from __future__ import annotations

import datetime as dt
from typing import Any

from ..ui import dialogs
from ..ui import widgets as w
from ..ui.layout import Ctx, Row, V
from ..ui.view import View
from .base import page
from .orgtasks_data import (
    DB,
    HIGH,
    LOW,
    MEDIUM,
    NONE,
    due_at_noon,
    local,
    new_remote_id,
    now,
    now_ms,
    priority_color,
    relative_date_time,
    set_completed,
    task,
    tr,
)

PRIORITY_BUTTONS = (NONE, LOW, MEDIUM, HIGH)  # PriorityRow: Task.Priority.NONE downTo HIGH


def open_editor(ctx: Ctx, task_id: int | None, defaults: dict[str, Any] | None = None) -> None:
    """The editor over the list: a saved task's values, or a new task's (low priority, as the app's default)."""
    t = task(ctx, task_id) if task_id is not None else None
    state: dict[str, Any] = {
        "id": task_id if t else None,
        "due": int(t["dueDate"] or 0) if t else int((defaults or {}).get("due", 0)),
        "importance": int(t["importance"]) if t else LOW,
    }
    title = str(t["title"] or "") if t else ""
    notes = str(t["notes"] or "") if t else ""
    state["orig"] = {"title": title, "notes": notes, "due": state["due"], "importance": state["importance"]}
    ctx.ui["edit"] = state
    ctx.set_field("task_title", title)
    ctx.set_field("task_notes", notes)
    ctx.ui.setdefault("scroll", {}).pop("task_edit", None)
    if t is None:
        ctx.set_focus("task_title")  # a new task: the keyboard up on its empty title
    else:
        ctx.set_focus(None)


def _state(ctx: Ctx) -> dict[str, Any]:
    st: dict[str, Any] = ctx.ui.get("edit") or {}
    return st


def has_changes(ctx: Ctx) -> bool:
    st = _state(ctx)
    orig = st.get("orig", {})
    title = ctx.field_value("task_title").strip()
    return (
        title != str(orig.get("title", "")).strip()
        or ctx.field_value("task_notes") != orig.get("notes", "")
        or st.get("due") != orig.get("due")
        or st.get("importance") != orig.get("importance")
    )


def close(ctx: Ctx) -> None:
    ctx.ui.pop("edit", None)
    ctx.set_focus(None)
    ctx.dismiss_dialog()


def save(ctx: Ctx) -> None:
    """TaskEditViewModel.save: nothing changed - nothing written; a blank title is "(No title)"."""
    st = _state(ctx)
    if not has_changes(ctx):
        close(ctx)
        return
    title = ctx.field_value("task_title").strip() or tr(ctx, "no_title")
    notes = ctx.field_value("task_notes")
    t = now_ms(ctx.model)
    values = (title, int(st.get("importance", LOW)), int(st.get("due", 0)), notes or None, t)
    if st.get("id") is None:
        DB.execute(
            ctx.model.fs,
            "INSERT INTO tasks (title, importance, dueDate, notes, modified, created, hideUntil, completed, deleted,"
            " estimatedSeconds, elapsedSeconds, timerStart, notificationFlags, lastNotified, repeat_from, remoteId,"
            " collapsed, parent, read_only) VALUES (?, ?, ?, ?, ?, ?, 0, 0, 0, 0, 0, 0, 0, 0, 0, ?, 0, 0, 0)",
            (*values, t, new_remote_id()),
        )
    else:
        DB.execute(
            ctx.model.fs,
            "UPDATE tasks SET title = ?, importance = ?, dueDate = ?, notes = ?, modified = ? WHERE _id = ?",
            (*values, int(st["id"])),
        )
    close(ctx)


def back(ctx: Ctx) -> None:
    """BACK (and Discard changes): asks first when something changed."""
    if has_changes(ctx):
        ctx.show_dialog({"id": "discard"})
    else:
        close(ctx)


def _fmt(ctx: Ctx, ms: int) -> str:
    d = local(ctx.model, ms)
    return f"{d.year:04d}-{d.month:02d}-{d.day:02d} {d.hour:02d}:{d.minute:02d}"


def screen(ctx: Ctx) -> list[View]:
    st = _state(ctx)
    th = ctx.theme
    saved = task(ctx, st.get("id")) if st.get("id") is not None else None
    done = bool(saved and int(saved["completed"] or 0) > 0)
    l, t, r, _ = ctx.area
    bar_h = ctx.dp(56)
    tb = V(ctx, "android.view.ViewGroup", (l, t, r, t + bar_h), "toolbar", style={"bg": th.bg})
    isz = ctx.dp(48)
    y0 = t + (bar_h - isz) // 2
    tb.children.append(
        w.icon_button(
            ctx,
            (l + ctx.dp(4), y0, l + ctx.dp(4) + isz, y0 + isz),
            "check",
            tr(ctx, "save"),
            lambda: save(ctx),
        )
    )
    if saved is not None:
        tb.children.append(
            w.icon_button(
                ctx,
                (r - ctx.dp(4) - isz, y0, r - ctx.dp(4), y0 + isz),
                "delete",
                tr(ctx, "delete_task"),
                lambda: ctx.show_dialog({"id": "delete"}),
                "menu_delete",
            )
        )
    title_h = ctx.dp(32) + ctx.line_h(24, 2)

    def title_row(x: int, y: int, wd: int) -> View:
        v = w.edit(
            ctx,
            (x + ctx.dp(16), y, x + wd - ctx.dp(16), y + title_h - ctx.dp(16)),
            "task_title",
            ctx.field_value("task_title"),
            tr(ctx, "TEA_title_hint"),
            lambda s: ctx.set_field("task_title", s),
            "title",
            multiline=True,
            action=lambda: save(ctx),
            size=24,
            box="none",
            lines=2,
        )
        if done:
            v.style["fg"] = th.text2
        return v

    rows: list[Row] = [Row(title_h, title_row, ("task_title",))]
    rows.append(_due_row(ctx, int(st.get("due", 0))))
    rows.append(_priority_row(ctx, int(st.get("importance", LOW))))
    rows.append(_description_row(ctx))
    if saved is not None:
        lines = [tr(ctx, "sort_created_group").replace("%s", _fmt(ctx, int(saved["created"] or 0)))]
        lines.append(tr(ctx, "sort_modified_group").replace("%s", _fmt(ctx, int(saved["modified"] or 0))))
        if done:
            lines.append(tr(ctx, "sort_completion_group").replace("%s", _fmt(ctx, int(saved["completed"]))))
        rows.append(_info_row(ctx, lines))
    sz = ctx.dp(56)
    fx1, fy = r - ctx.dp(16), t + bar_h + title_h
    fab = V(
        ctx,
        w.IMAGE_BUTTON,
        (fx1 - sz, fy - sz // 2, fx1, fy + sz // 2),
        "fab",
        clickable=True,
        focusable=True,
        on_click=lambda: _toggle_done(ctx, saved, done),
        style={
            "bg": th.primary_container,
            "radius": ctx.dp(16),
            "icon": "close" if done else "check",
            "icon_color": th.on_primary_container,
            "shadow": True,
            "inset": ctx.dp(16),
        },
    )
    return page(
        ctx,
        [tb],
        rows,
        key="task_edit",
        rid="compose_view",
        cls="android.widget.ScrollView",
        overlays=[] if ctx.keyboard else [fab],
    )


def _toggle_done(ctx: Ctx, saved: dict[str, Any] | None, done: bool) -> None:
    """The fab: a saved task completed (or made active again) and the editor closed, the edits saved with it."""
    if saved is None:
        save(ctx)  # a new task: saved first, then completed
        rows = DB.rows(ctx.model.fs, "SELECT _id FROM tasks ORDER BY _id DESC LIMIT 1")
        if rows:
            set_completed(ctx, int(rows[0]["_id"]), True)
        return
    if has_changes(ctx):
        save(ctx)
    set_completed(ctx, int(saved["_id"]), not done)
    close(ctx)


def _edit_row(ctx: Ctx, icon: str, h: int, content: Any, on_click: Any = None) -> Row:
    """TaskEditRow: an icon at the start, the content beside it (the whole row clickable when it opens a picker)."""

    def build(x: int, y: int, wd: int) -> View:
        row = V(
            ctx,
            "android.view.View",
            (x, y, x + wd, y + h),
            clickable=on_click is not None,
            focusable=on_click is not None,
            on_click=on_click,
        )
        row.children.append(
            w.icon(ctx, (x + ctx.dp(16), y + ctx.dp(16), x + ctx.dp(40), y + ctx.dp(40)), icon, ctx.theme.text2)
        )
        content(row, x + ctx.dp(72), y, x + wd - ctx.dp(16), y + h)
        row.children.append(V(ctx, "android.view.View", (x, y + h - 1, x + wd, y + h), style={"bg": ctx.theme.divider}))
        return row

    return Row(h, build)


def _due_row(ctx: Ctx, due: int) -> Row:
    def content(row: View, x0: int, y0: int, x1: int, y1: int) -> None:
        text = relative_date_time(ctx, due, "FULL") if due else tr(ctx, "no_due_date")
        row.children.append(
            w.text(ctx, (x0, y0, x1, y1), text, size=16, color=ctx.theme.text if due else ctx.theme.text2)
        )

    return _edit_row(ctx, "clock", ctx.dp(56), content, lambda: ctx.show_dialog({"id": "due", "due": due}))


def _priority_row(ctx: Ctx, importance: int) -> Row:
    def content(row: View, x0: int, y0: int, x1: int, y1: int) -> None:
        row.children.append(w.text(ctx, (x0, y0, x0 + ctx.dp(96), y1), tr(ctx, "TEA_importance_label"), size=16))
        bw = (x1 - x0 - ctx.dp(96)) // 4
        for i, p in enumerate(PRIORITY_BUTTONS):
            bx = x0 + ctx.dp(96) + i * bw

            def pick(p: int = p) -> None:
                _state(ctx)["importance"] = p

            rb = w.checkbox(ctx, (bx, y0 + ctx.dp(8), bx + bw, y1 - ctx.dp(8)), p == importance, "", pick, radio=True)
            rb.style["accent"] = priority_color(p, ctx.theme.dark)
            row.children.append(rb)

    return _edit_row(ctx, "star", ctx.dp(64), content)


def _description_row(ctx: Ctx) -> Row:
    h = ctx.dp(32) + ctx.line_h(16, 3)

    def content(row: View, x0: int, y0: int, x1: int, y1: int) -> None:
        row.children.append(
            w.edit(
                ctx,
                (x0, y0 + ctx.dp(8), x1, y1 - ctx.dp(8)),
                "task_notes",
                ctx.field_value("task_notes"),
                tr(ctx, "TEA_note_label"),
                lambda s: ctx.set_field("task_notes", s),
                multiline=True,
                box="none",
                lines=3,
            )
        )

    return Row(h, _edit_row(ctx, "edit", h, content).build, ("task_notes",))


def _info_row(ctx: Ctx, lines: list[str]) -> Row:
    line = ctx.line_h(16)
    h = ctx.dp(40) + line * len(lines)

    def content(row: View, x0: int, y0: int, x1: int, y1: int) -> None:
        for i, text in enumerate(lines):
            top = y0 + ctx.dp(20) + i * line
            row.children.append(w.text(ctx, (x0, top, x1, top + line), text, size=16))

    return _edit_row(ctx, "info", h, content)


# --- dialogs ---------------------------------------------------------------------------------------------------
def discard_dialog(ctx: Ctx, spec: dict[str, Any]) -> View:
    return dialogs.dialog(
        ctx,
        "",
        tr(ctx, "discard_confirmation"),
        [
            (tr(ctx, "keep_editing"), "android:id/button1", ctx.dismiss_dialog),
            (tr(ctx, "discard"), "android:id/button2", lambda: close(ctx)),
        ],
        on_cancel=ctx.dismiss_dialog,
    )


def delete_dialog(ctx: Ctx, spec: dict[str, Any]) -> View:
    def delete() -> None:
        st = _state(ctx)
        if st.get("id") is not None:
            t = now_ms(ctx.model)
            DB.execute(ctx.model.fs, "UPDATE tasks SET deleted = ?, modified = ? WHERE _id = ?", (t, t, int(st["id"])))
        close(ctx)

    return dialogs.dialog(
        ctx,
        "",
        tr(ctx, "DLG_delete_this_task_question"),
        dialogs.confirm_buttons(ctx, tr(ctx, "ok"), delete, ctx.dismiss_dialog, tr(ctx, "cancel")),
        on_cancel=ctx.dismiss_dialog,
    )


def due_dialog(ctx: Ctx, spec: dict[str, Any]) -> View:
    """DateTimePicker's date shortcuts (today_button, tomorrow_button, next_week_button, no_date_button) over the
    date picked so far (current_date_selection), with OK / Cancel; a day is stored at noon."""
    today = now(ctx.model).date()
    picked = int(spec.get("due", 0))

    def choose(day: dt.date | None) -> None:
        ctx.ui["dialog"] = {**spec, "due": due_at_noon(ctx.model, day) if day else 0}

    def ok() -> None:
        _state(ctx)["due"] = picked
        ctx.dismiss_dialog()

    shortcuts = (
        ("today_button", tr(ctx, "today"), today),
        ("tomorrow_button", tr(ctx, "tomorrow"), today + dt.timedelta(days=1)),
        ("next_week_button", tr(ctx, "next_week"), today + dt.timedelta(days=7)),
        ("no_date_button", tr(ctx, "no_date"), None),
    )
    h = ctx.dp(48)
    rows: list[Row] = [
        w.text_row(
            ctx,
            relative_date_time(ctx, picked, "FULL") if picked else tr(ctx, "no_date"),
            "current_date_selection",
            size=18,
            bold=True,
        )
    ]
    for rid, label, day in shortcuts:

        def build(x: int, y: int, wd: int, rid: str = rid, label: str = label, day: dt.date | None = day) -> View:
            sel = (due_at_noon(ctx.model, day) if day else 0) == picked
            return w.button(
                ctx,
                (x + ctx.dp(24), y + ctx.dp(4), x + wd - ctx.dp(24), y + h - ctx.dp(4)),
                label,
                lambda: choose(day),
                rid,
                kind="tonal" if sel else "outlined",
            )

        rows.append(Row(h, build))
    return dialogs.dialog(
        ctx,
        "",
        "",
        [(tr(ctx, "ok"), "ok_button", ok), (tr(ctx, "cancel"), "cancel_button", ctx.dismiss_dialog)],
        rows=rows,
        on_cancel=ctx.dismiss_dialog,
    )
