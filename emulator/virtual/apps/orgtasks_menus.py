"""Tasks' menus and sheets over the task list: the sort sheet (SortSettingsActivity: Grouping, Sorting, "Move
completed tasks to bottom", Completed - each mode picked from a second sheet and kept in the app's preferences with
its default direction), the bottom app bar's overflow menu (Clear Completed, Show completed, Show unstarted) and the
navigation drawer's filters (My Tasks, Today)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..ui import dialogs
from ..ui import widgets as w
from ..ui.fonts import text_width, wrap
from ..ui.layout import Ctx, Row, V, vlist
from ..ui.view import View
from .orgtasks_data import (
    DB,
    GROUP_NONE,
    SORT_ALPHA,
    SORT_AUTO,
    SORT_COMPLETED,
    SORT_CREATED,
    SORT_DUE,
    SORT_IMPORTANCE,
    SORT_MODIFIED,
    SORT_START,
    list_prefs,
    mode_ascending,
    now_ms,
    put_pref,
    tr,
)

TODAY_FILTER = "today"
# SortSettingsActivity's pickers: (label key, mode)
GROUP_OPTIONS = (
    ("none", GROUP_NONE),
    ("SSD_sort_due", SORT_DUE),
    ("SSD_sort_start", SORT_START),
    ("SSD_sort_importance", SORT_IMPORTANCE),
    ("SSD_sort_modified", SORT_MODIFIED),
    ("sort_created", SORT_CREATED),
)
SORT_OPTIONS = (
    ("SSD_sort_due", SORT_DUE),
    ("SSD_sort_start", SORT_START),
    ("SSD_sort_importance", SORT_IMPORTANCE),
    ("SSD_sort_alpha", SORT_ALPHA),
    ("SSD_sort_modified", SORT_MODIFIED),
    ("SSD_sort_auto", SORT_AUTO),
    ("sort_created", SORT_CREATED),
)
COMPLETED_OPTIONS = (
    ("sort_completed", SORT_COMPLETED),
    ("SSD_sort_due", SORT_DUE),
    ("SSD_sort_start", SORT_START),
    ("SSD_sort_importance", SORT_IMPORTANCE),
    ("SSD_sort_alpha", SORT_ALPHA),
    ("SSD_sort_modified", SORT_MODIFIED),
    ("sort_created", SORT_CREATED),
)
PICKERS = {"group": GROUP_OPTIONS, "sort": SORT_OPTIONS, "completed": COMPLETED_OPTIONS}


def mode_label(ctx: Ctx, mode: int) -> str:
    for key, m in (*GROUP_OPTIONS, *SORT_OPTIONS, *COMPLETED_OPTIONS):
        if m == mode:
            return tr(ctx, key)
    return tr(ctx, "SSD_sort_auto")


# --- what the bars open ------------------------------------------------------------------------------------------
def _sheet(ctx: Ctx, rows: list[tuple[int, Callable[[int, int, int], View]]], on_cancel: Callable[[], None]) -> View:
    """A modal bottom sheet holding `rows` (height, builder(x, y, width)) from the bottom of the screen up; taller
    than the screen leaves, it scrolls."""
    l, t, r, b = ctx.mgr.dialog_area()
    total = sum(h for h, _ in rows) + ctx.dp(24)
    top = max(t + ctx.dp(48), b - total)
    root = V(
        ctx,
        w.FRAME,
        (l, top, r, b),
        style={"bg": ctx.theme.surface, "radius": ctx.dp(16), "modal": True, "dim": True, "on_cancel": on_cancel},
    )
    body = [Row(h, build) for h, build in rows]
    root.children.append(vlist(ctx, "sheet", (l, top, r, b), body, pad_top=ctx.dp(12), pad_bottom=ctx.dp(12)))
    return root


def sort_sheet(ctx: Ctx, spec: dict[str, Any]) -> View:
    prefs = list_prefs(ctx)
    h = ctx.dp(32) + ctx.line_h(16) + ctx.line_h(14)

    def sort_row(
        title: str, mode: int, picker: str, ascending: bool, show_ascending: bool, ascending_key: str, rid: str
    ) -> tuple[int, Callable[[int, int, int], View]]:
        def build(x: int, y: int, wd: int) -> View:
            row = V(
                ctx,
                "android.view.View",
                (x, y, x + wd, y + h),
                clickable=True,
                focusable=True,
                on_click=lambda: ctx.show_dialog({"id": "picker", "picker": picker}),
            )
            row.key = rid
            row.children.append(
                w.icon(
                    ctx,
                    (x + ctx.dp(16), y + (h - ctx.dp(24)) // 2, x + ctx.dp(40), y + (h + ctx.dp(24)) // 2),
                    "drop_down",
                    ctx.theme.text2,
                )
            )
            tx = x + ctx.dp(56)
            shown = not ascending if mode in (SORT_AUTO, SORT_IMPORTANCE) else ascending
            label = tr(ctx, "sort_ascending" if shown else "sort_descending")
            label_w = int(text_width(label, ctx.sp(14))) + ctx.dp(8)
            right = x + wd - (label_w + ctx.dp(32) if show_ascending else ctx.dp(16))
            row.children.append(
                w.text(ctx, (tx, y + ctx.dp(16), right, y + ctx.dp(16) + ctx.line_h(16)), title, size=16)
            )
            row.children.append(
                w.text(
                    ctx,
                    (tx, y + ctx.dp(16) + ctx.line_h(16), right, y + h - ctx.dp(16)),
                    mode_label(ctx, mode),
                    size=14,
                    color=ctx.theme.text2,
                )
            )
            if show_ascending:
                row.children.append(
                    w.text(
                        ctx,
                        (
                            x + wd - ctx.dp(16) - label_w,
                            y + (h - ctx.dp(32)) // 2,
                            x + wd - ctx.dp(16),
                            y + (h + ctx.dp(32)) // 2,
                        ),
                        label,
                        size=14,
                        align="r",
                        clickable=True,
                        focusable=True,
                        on_click=lambda: put_pref(ctx, ascending_key, not ascending),
                    )
                )
            return row

        return h, build

    def switch_row() -> tuple[int, Callable[[int, int, int], View]]:
        text = tr(ctx, "completed_tasks_at_bottom")
        lines = len(wrap(text, ctx.sp(16), ctx.area[2] - ctx.area[0] - ctx.dp(96)))
        sh = max(ctx.dp(56), ctx.line_h(16, lines) + ctx.dp(16))

        def toggle() -> None:
            put_pref(ctx, "completed_tasks_at_bottom", not prefs.completed_at_bottom)

        def build(x: int, y: int, wd: int) -> View:
            row = V(ctx, "android.view.View", (x, y, x + wd, y + sh), clickable=True, focusable=True, on_click=toggle)
            row.children.append(
                w.text(ctx, (x + ctx.dp(16), y, x + wd - ctx.dp(80), y + sh), text, size=16, lines=lines)
            )
            row.children.append(
                w.switch(
                    ctx,
                    (x + wd - ctx.dp(72), y + ctx.dp(12), x + wd - ctx.dp(16), y + sh - ctx.dp(12)),
                    prefs.completed_at_bottom,
                    "",
                    toggle,
                )
            )
            return row

        return sh, build

    rows = [
        sort_row(
            tr(ctx, "sort_grouping"),
            prefs.group_mode,
            "group",
            prefs.group_ascending,
            prefs.group_mode != GROUP_NONE,
            "group_ascending",
            "grouping",
        ),
        sort_row(
            tr(ctx, "sort_sorting"), prefs.sort_mode, "sort", prefs.sort_ascending, True, "sort_ascending", "sorting"
        ),
        switch_row(),
    ]
    if prefs.completed_at_bottom:
        rows.append(
            sort_row(
                tr(ctx, "completed"),
                prefs.completed_mode,
                "completed",
                prefs.completed_ascending,
                True,
                "completed_ascending",
                "completed",
            )
        )
    return _sheet(ctx, rows, ctx.dismiss_dialog)


def picker_sheet(ctx: Ctx, spec: dict[str, Any]) -> View:
    """A mode picked from the second sheet: the mode saved with its default direction; back to the sort sheet."""
    which = str(spec.get("picker", "sort"))
    prefs = list_prefs(ctx)
    selected = {"group": prefs.group_mode, "sort": prefs.sort_mode, "completed": prefs.completed_mode}[which]
    h = ctx.dp(16) + ctx.line_h(20)

    def pick(mode: int) -> None:
        put_pref(ctx, f"{which}_mode", mode)
        put_pref(ctx, f"{which}_ascending", mode_ascending(mode))
        ctx.show_dialog({"id": "sort"})

    def option(key: str, mode: int) -> tuple[int, Callable[[int, int, int], View]]:
        def build(x: int, y: int, wd: int) -> View:
            row = V(
                ctx,
                "android.view.View",
                (x, y, x + wd, y + h),
                clickable=True,
                focusable=True,
                on_click=lambda: pick(mode),
            )
            row.children.append(
                w.text(
                    ctx,
                    (x + ctx.dp(16), y, x + wd - ctx.dp(16), y + h),
                    tr(ctx, key),
                    size=20,
                    color=ctx.theme.primary if mode == selected else ctx.theme.text,
                )
            )
            return row

        return h, build

    return _sheet(ctx, [option(k, m) for k, m in PICKERS[which]], lambda: ctx.show_dialog({"id": "sort"}))


def overflow_menu(ctx: Ctx, spec: dict[str, Any]) -> View:
    """The bottom app bar's overflow: Clear Completed, Show completed / Show unstarted (checkable)."""
    prefs = list_prefs(ctx)
    l, _, r, b = ctx.area
    item_h = ctx.dp(48)

    def flip(key: str, value: bool) -> Callable[[], None]:
        def done() -> None:
            put_pref(ctx, key, not value)
            ctx.dismiss_dialog()

        return done

    items: list[tuple[str, bool | None, Callable[[], None]]] = [
        (tr(ctx, "gtasks_GTA_clear_completed"), None, lambda: ctx.show_dialog({"id": "clear_completed"})),
        (tr(ctx, "show_completed"), prefs.show_completed, flip("show_completed_tasks", prefs.show_completed)),
        (tr(ctx, "show_unstarted"), prefs.show_hidden, flip("show_hidden_tasks", prefs.show_hidden)),
    ]
    widest = max(int(text_width(label, ctx.sp(16))) for label, _, _ in items)
    wd = min(r - l - ctx.dp(16), max(ctx.dp(200), widest + ctx.dp(16 + 56)))
    box = (r - wd - ctx.dp(8), b - ctx.dp(8) - len(items) * item_h - ctx.dp(16), r - ctx.dp(8), b - ctx.dp(8))
    root = dialogs.popup_window(ctx, box)
    lst = V(ctx, "android.widget.ListView", box)
    y = box[1] + ctx.dp(8)
    for label, checked, cb in items:
        row = V(ctx, w.LINEAR, (box[0], y, box[2], y + item_h), clickable=True, focusable=True, on_click=cb)
        row.children.append(
            w.text(ctx, (box[0] + ctx.dp(16), y, box[2] - ctx.dp(56), y + item_h), label, "android:id/title", size=16)
        )
        if checked is not None:
            row.children.append(
                w.checkbox(
                    ctx,
                    (box[2] - ctx.dp(52), y + ctx.dp(8), box[2] - ctx.dp(12), y + item_h - ctx.dp(8)),
                    checked,
                    "checkbox",
                )
            )
        lst.children.append(row)
        y += item_h
    root.children.append(lst)
    return root


def clear_completed(ctx: Ctx) -> None:
    """Clear Completed: the completed tasks marked deleted (deletion date now)."""
    t = now_ms(ctx.model)
    DB.execute(ctx.model.fs, "UPDATE tasks SET deleted = ?, modified = ? WHERE completed > 0 AND deleted = 0", (t, t))
    ctx.dismiss_dialog()


def drawer(ctx: Ctx, spec: dict[str, Any]) -> View:
    """The navigation drawer's filters: My Tasks and Today."""
    l, t, r, b = ctx.mgr.dialog_area()
    wd = min(r - l - ctx.dp(56), ctx.dp(320))
    root = V(
        ctx,
        w.FRAME,
        (l, t, l + wd, b),
        style={"bg": ctx.theme.surface, "modal": True, "dim": True, "on_cancel": ctx.dismiss_dialog},
    )
    lst = V(ctx, "androidx.recyclerview.widget.RecyclerView", (l, t, l + wd, b), "recycler_view")
    root.children.append(lst)
    y = t + ctx.dp(8)
    current = ctx.ui.get("filter") or ""
    for key, value, glyph in (("BFE_Active", "", "home"), ("today", TODAY_FILTER, "clock")):

        def choose(value: str = value) -> None:
            ctx.ui["filter"] = value
            ctx.ui.setdefault("scroll", {}).pop("tasks", None)
            ctx.dismiss_dialog()

        row = w.list_item(
            ctx,
            (l, y, l + wd, y + ctx.dp(48)),
            tr(ctx, key),
            "",
            choose,
            leading=(glyph, ctx.theme.text2),
            title_rid="text",
            checked=None,
        )
        row.selected = value == current
        lst.children.append(row)
        y += ctx.dp(48)
    return root
