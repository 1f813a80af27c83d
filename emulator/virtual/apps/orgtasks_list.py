"""Tasks' task list (TaskListFragment in MainActivity): the top app bar with the filter's title and Search, the
rows (task_adapter_row: the priority-coloured `completeBox`, `title`, `due_date`, `description`) with the section
headers of a grouping (task_adapter_header: `header`, a tap collapses its section), the bottom app bar (the
drawer's menu icon, Sort, More options) with the `fab`; what the bars open is `orgtasks_menus`."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..ui import widgets as w
from ..ui.fonts import text_width, wrap
from ..ui.layout import Ctx, Row, V
from ..ui.view import View
from .base import page
from .orgtasks_data import (
    ListPrefs,
    header_text,
    list_prefs,
    now,
    now_ms,
    priority_color,
    relative_date_time,
    sections,
    set_completed,
    start_of_day_ms,
    task_rows,
    tr,
)
from .orgtasks_menus import TODAY_FILTER

TOOLBAR_DP, BOTTOM_BAR_DP = 56, 56


def searching(ctx: Ctx) -> bool:
    return bool(ctx.ui.get("searching"))


def filter_title(ctx: Ctx) -> str:
    return tr(ctx, "today") if ctx.ui.get("filter") == TODAY_FILTER else tr(ctx, "BFE_Active")


def visible_rows(ctx: Ctx, prefs: ListPrefs) -> list[dict[str, Any]]:
    query = ctx.field_value("search") if searching(ctx) else ""
    rows = task_rows(ctx, prefs, query)
    if ctx.ui.get("filter") == TODAY_FILTER and not query:  # TodayFilter: due by the end of today
        day = now(ctx.model).date()
        eod = start_of_day_ms(ctx.model, day) + 86_400_000 - 1
        rows = [t for t in rows if 0 < int(t["dueDate"] or 0) <= eod]
    return rows


# --- the screen ----------------------------------------------------------------------------------------------------
def screen(ctx: Ctx, open_task: Callable[[int | None], None]) -> list[View]:
    prefs = list_prefs(ctx)
    rows = visible_rows(ctx, prefs)
    header = [_top_bar(ctx)]
    body: list[Row] = []
    collapsed: list[int] = ctx.ui.setdefault("collapsed", [])
    hidden = False
    for head, t in sections(ctx, rows, prefs):
        if head is not None:
            body.append(_header_row(ctx, head, prefs.group_mode, head in collapsed))
            hidden = head in collapsed
        if not hidden:
            body.append(_task_row(ctx, t, open_task))
    if not rows:
        body.append(w.text_row(ctx, tr(ctx, "TLA_no_items"), "", size=16, align="c", height_dp=160))
    bar_h = ctx.dp(BOTTOM_BAR_DP)
    overlays = [] if ctx.keyboard else [_bottom_bar(ctx), _fab(ctx, lambda: open_task(None))]
    return page(
        ctx,
        header,
        body,
        key="tasks",
        rid="recycler_view",
        footer_h=0 if ctx.keyboard else bar_h + ctx.dp(28),  # the fab sits in the bar's cradle, half above it
        overlays=overlays,
        pad_bottom=ctx.dp(16),
    )


def _top_bar(ctx: Ctx) -> View:
    l, t, r, _ = ctx.area
    h = ctx.dp(TOOLBAR_DP)
    bar = V(ctx, "android.widget.LinearLayout", (l, t, r, t + h), "appbarlayout", style={"bg": ctx.theme.bg})
    tb = V(ctx, "android.view.ViewGroup", (l, t, r, t + h), "toolbar")
    bar.children.append(tb)
    isz = ctx.dp(48)
    y0 = t + (h - isz) // 2
    if searching(ctx):

        def close() -> None:
            close_search(ctx)

        tb.children.append(
            w.icon_button(ctx, (l + ctx.dp(4), y0, l + ctx.dp(4) + isz, y0 + isz), "back", tr(ctx, "collapse"), close)
        )
        query = ctx.field_value("search")
        right = r - ctx.dp(4) - (isz if query else 0)
        tb.children.append(
            w.edit(
                ctx,
                (l + ctx.dp(60), y0, right, y0 + isz),
                "search",
                query,
                tr(ctx, "search_hint"),
                lambda v: ctx.set_field("search", v),
                "search_src_text",
                action=ctx.hide_keyboard,
                action_kind="search",
                box="none",
            )
        )
        if query:
            tb.children.append(
                w.icon_button(
                    ctx,
                    (right, y0, right + isz, y0 + isz),
                    "close",
                    tr(ctx, "clear_query"),
                    lambda: ctx.set_field("search", ""),
                    "search_close_btn",
                )
            )
        return bar
    tb.children.append(
        w.text(ctx, (l + ctx.dp(16), t, r - ctx.dp(60), t + h), filter_title(ctx), size=20, style={"ellipsize": True})
    )

    def open_search() -> None:
        ctx.ui["searching"] = True
        ctx.set_field("search", "")
        ctx.set_focus("search")

    tb.children.append(
        w.icon_button(
            ctx,
            (r - ctx.dp(4) - isz, y0, r - ctx.dp(4), y0 + isz),
            "search",
            tr(ctx, "TLA_menu_search"),
            open_search,
            "menu_search",
        )
    )
    return bar


def close_search(ctx: Ctx) -> None:
    ctx.ui["searching"] = False
    ctx.set_field("search", "")
    ctx.set_focus(None)


def _header_row(ctx: Ctx, value: int, group_mode: int, collapsed: bool) -> Row:
    h = ctx.dp(32) + ctx.line_h(14)

    def toggle() -> None:
        c: list[int] = ctx.ui.setdefault("collapsed", [])
        if value in c:
            c.remove(value)
        else:
            c.append(value)

    def build(x: int, y: int, wd: int) -> View:
        row = V(
            ctx,
            "android.widget.RelativeLayout",
            (x, y, x + wd, y + h),
            "header_row",
            clickable=True,
            focusable=True,
            on_click=toggle,
        )
        row.children.append(
            w.text(
                ctx,
                (x + ctx.dp(16), y, x + wd - ctx.dp(56), y + h),
                header_text(ctx, value, group_mode),
                "header",
                size=14,
                bold=True,
                color=ctx.theme.text2,
            )
        )
        row.children.append(
            w.icon(
                ctx,
                (x + wd - ctx.dp(48), y + (h - ctx.dp(24)) // 2, x + wd - ctx.dp(24), y + (h + ctx.dp(24)) // 2),
                "drop_down" if collapsed else "chevron",
                ctx.theme.text2,
                "chevron",
            )
        )
        return row

    return Row(h, build)


def _due_text(ctx: Ctx, t: dict[str, Any]) -> tuple[str, bool]:
    """The row's due date (DateUtilities.getRelativeDateTime) and whether it is overdue (shown in red)."""
    due = int(t["dueDate"] or 0)
    if due <= 0:
        return "", False
    done = int(t["completed"] or 0) > 0
    if due % 60_000 > 0:  # Task.isOverdue: past its time, or (without a time) before today
        overdue = due < now_ms(ctx.model)
    else:
        overdue = due < start_of_day_ms(ctx.model, now(ctx.model).date())
    return relative_date_time(ctx, due), overdue and not done


def _task_row(ctx: Ctx, t: dict[str, Any], open_task: Callable[[int | None], None]) -> Row:
    th = ctx.theme
    width = ctx.area[2] - ctx.area[0]
    due, overdue = _due_text(ctx, t)
    due_w = int(text_width(due, ctx.sp(14))) + ctx.dp(16) if due else 0
    notes = str(t["notes"] or "")
    line = ctx.line_h(16)
    desc_lines = min(2, len(wrap(notes, ctx.sp(16), width - ctx.dp(56 + 16)))) if notes.strip() else 0
    pad = ctx.dp(16)
    h = pad + line + (ctx.dp(4) + desc_lines * line if desc_lines else 0) + pad
    done = int(t["completed"] or 0) > 0
    tid = int(t["_id"])
    title = str(t["title"] or "")

    def build(x: int, y: int, wd: int) -> View:
        row = V(ctx, w.FRAME, (x, y, x + wd, y + h), "row", style={"bg": th.bg})
        body = V(
            ctx,
            "android.widget.RelativeLayout",
            (x, y, x + wd, y + h),
            "rowBody",
            clickable=True,
            focusable=True,
            long_clickable=True,
            on_click=lambda: open_task(tid),
            on_long_click=lambda: None,
        )
        row.children.append(body)
        color = priority_color(int(t["importance"] or 0), th.dark)
        box = V(
            ctx,
            w.IMAGE,
            (x, y, x + ctx.dp(56), y + pad + line + pad),
            "completeBox",
            clickable=True,
            focusable=True,
            on_click=lambda: set_completed(ctx, tid, not done),
        )
        s = ctx.dp(18)
        cx, cy = x + ctx.dp(28), y + pad + line // 2
        mark = V(
            ctx,
            "android.view.View",
            (cx - s // 2, cy - s // 2, cx + s // 2, cy + s // 2),
            style={
                "bg": color if done else None,
                "border": None if done else color,
                "radius": ctx.dp(2),
                "icon": "check" if done else "",
                "icon_color": (255, 255, 255),
                "inset": ctx.dp(2),
            },
        )
        body.children.append(box)
        box.style["noclip"] = True
        box.children.append(mark)
        right = x + wd - ctx.dp(8)
        if due:
            body.children.append(
                w.text(
                    ctx,
                    (right - due_w, y + pad, right, y + pad + line),
                    due,
                    "due_date",
                    size=14,
                    color=(211, 47, 47) if overdue else th.text2,
                    align="r",
                    clickable=True,
                    focusable=True,
                    on_click=lambda: open_task(tid),
                )
            )
        body.children.append(
            w.text(
                ctx,
                (x + ctx.dp(56), y + pad, right - due_w - ctx.dp(8), y + pad + line),
                title,
                "title",
                size=16,
                color=th.text2 if done else th.text,
                style={"ellipsize": True},
            )
        )
        if desc_lines:
            top = y + pad + line + ctx.dp(4)
            body.children.append(
                w.text(
                    ctx,
                    (x + ctx.dp(56), top, x + wd - ctx.dp(16), top + desc_lines * line),
                    notes,
                    "description",
                    size=16,
                    color=th.text2,
                    lines=desc_lines,
                    valign="t",
                    style={"ellipsize": True},
                )
            )
        row.children.append(V(ctx, "android.view.View", (x, y + h - 1, x + wd, y + h), style={"bg": th.divider}))
        return row

    return Row(h, build)


def _bottom_bar(ctx: Ctx) -> View:
    l, _, r, b = ctx.area
    h = ctx.dp(BOTTOM_BAR_DP)
    bar = V(ctx, "android.view.ViewGroup", (l, b - h, r, b), "bottomAppBar", style={"bg": ctx.theme.surface})
    isz = ctx.dp(48)
    y0 = b - h + (h - isz) // 2
    bar.children.append(
        w.icon_button(
            ctx,
            (l + ctx.dp(4), y0, l + ctx.dp(4) + isz, y0 + isz),
            "menu",
            "",
            lambda: ctx.show_dialog({"id": "drawer"}),
        )
    )
    more = (r - ctx.dp(4) - isz, y0, r - ctx.dp(4), y0 + isz)
    sort = (more[0] - isz, y0, more[0], y0 + isz)
    bar.children.append(
        w.icon_button(
            ctx, sort, "drop_down", tr(ctx, "TLA_menu_sort"), lambda: ctx.show_dialog({"id": "sort"}), "menu_sort"
        )
    )
    bar.children.append(
        w.icon_button(ctx, more, "more", tr(ctx, "more_options"), lambda: ctx.show_dialog({"id": "overflow"}))
    )
    return bar


def _fab(ctx: Ctx, on_click: Callable[[], None]) -> View:
    l, _, r, b = ctx.area
    sz = ctx.dp(56)
    cx, cy = (l + r) // 2, b - ctx.dp(BOTTOM_BAR_DP)
    th = ctx.theme
    return V(
        ctx,
        w.IMAGE_BUTTON,
        (cx - sz // 2, cy - sz // 2, cx + sz // 2, cy + sz // 2),
        "fab",
        desc=tr(ctx, "action_create_new_task"),
        clickable=True,
        focusable=True,
        on_click=on_click,
        style={
            "bg": th.primary_container,
            "radius": sz // 2,
            "icon": "add",
            "icon_color": th.on_primary_container,
            "shadow": True,
            "inset": ctx.dp(16),
        },
    )
