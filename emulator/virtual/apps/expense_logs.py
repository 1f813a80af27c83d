"""Pro Expense's Expense Logs (ExpenseFragment): every expense, newest first (or oldest first, the filter's Asc),
in `rv_expense`; without any, "NO EXPENSE LOGS" (`layout_no_data`).

A row (`item_expense_log`, a SwipeFrameLayout) is the expense's card (`cd_expense`: category, `tv_name`,
`tv_date`, `tv_amount`, `tv_currency_symbol`, and `view_bg` over it, which a tap opens the detail sheet with)
over its back (`fl_back`: `imv_check` at the start, `imv_delete_icon` with "Delete" at the end). As the app's
ItemTouchHelper does, a swipe right moves the card 46 dp along and selects the row (it must travel 30 dp: the card
follows the finger at 0.4), a swipe left moves it 80 dp back and uncovers the row's delete button (40 dp of travel;
any other row's state is cleared then), and a swipe on a moved card puts it back. A long press on a row uncovers its
delete button (or covers it again). The row's delete button asks to delete that row.

With rows selected the toolbar (`tb_expense`) says how many ("3 items"), its navigation icon clears the selection
and its Delete item (`delete`) asks to delete them all; otherwise it is "Expense Logs" over the range of the rows'
dates and the order ("2023 Oct 1 - 15 . DESC"), with the drawer's icon and Filter (`filter`). The menu is disabled
while there are no expenses.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..ui import widgets as w
from ..ui.layout import Ctx, Row, V
from ..ui.view import View
from .base import page
from .expense_data import currency, expenses, now, range_text, tr
from .expense_sheets import date_limits
from .expense_widgets import RELATIVE, expense_views, toolbar

SELECTED, PREPARED = 1, 2  # SwipeItemState.STATE_LOCK_START / STATE_LOCK_END
POSITIVE = (67, 160, 71)  # colorPositive
NEGATIVE = (239, 83, 80)  # red_400


def _swipes(ctx: Ctx) -> dict[str, int]:
    """The rows' swipe states by expense id (SwipeStateHolder, kept by the fragment's view model)."""
    st: dict[str, int] = ctx.ui.setdefault("swipe", {})
    return st


def _swiped(ctx: Ctx, eid: str) -> Callable[[int, int], bool]:
    def on_scroll(dx: int, dy: int) -> bool:
        if abs(dx) <= abs(dy):
            return False  # the list scrolls
        states = _swipes(ctx)
        travel = dx * 0.4  # SwipeFrameLayout's swipeDxFactor
        if states.get(eid):
            states.pop(eid)  # a moved card goes back
        elif travel >= ctx.dp(30):
            states[eid] = SELECTED
        elif travel <= -ctx.dp(40):
            states.clear()
            states[eid] = PREPARED
        return True

    return on_scroll


def _long_press(ctx: Ctx, eid: str) -> None:
    states = _swipes(ctx)
    state = states.get(eid)
    if state == PREPARED:
        states.pop(eid)
    elif not state:
        states.clear()
        states[eid] = PREPARED


def _row(ctx: Ctx, box: tuple[int, int, int, int], e: dict[str, Any], symbol: str) -> View:
    l, t, r, b = box
    th = ctx.theme
    eid = str(e["expense_id"])
    state = _swipes(ctx).get(eid)
    frame = V(ctx, w.FRAME, box)
    frame.on_scroll = _swiped(ctx, eid)
    back_bg = POSITIVE if state == SELECTED else NEGATIVE  # red_400 until a swipe right turns it colorPositive
    back = V(ctx, w.FRAME, box, "fl_back", style={"bg": back_bg})
    frame.children.append(back)
    end = V(ctx, w.LINEAR, (r - ctx.dp(80), t, r, b))
    back.children.append(end)
    cx, cy = r - ctx.dp(40), (t + b) // 2

    def delete_one() -> None:
        ctx.show_dialog({"id": "delete", "ids": [int(eid)], "count": 1, "mode": "single"})

    icon_box = (cx - ctx.dp(16), cy - ctx.dp(22), cx + ctx.dp(16), cy + ctx.dp(6))
    end.children.append(w.icon(ctx, icon_box, "delete", (255, 255, 255), "imv_delete_icon", on_click=delete_one))
    undo = (r - ctx.dp(80), cy + ctx.dp(6), r, cy + ctx.dp(24))
    end.children.append(w.text(ctx, undo, tr(ctx, "swipe_delete"), "tv_undo", 12, (255, 255, 255), align="c"))
    check = (l + ctx.dp(11), cy - ctx.dp(12), l + ctx.dp(35), cy + ctx.dp(12))
    back.children.append(w.icon(ctx, check, "check", (255, 255, 255), "imv_check"))
    shift = ctx.dp(46) if state == SELECTED else -ctx.dp(80) if state == PREPARED else 0
    card_box = (l + shift, t, r + shift, b)
    card = V(ctx, RELATIVE, card_box, "cd_expense", style={"bg": th.bg})
    frame.children.append(card)
    card.children.extend(expense_views(ctx, card_box, e, symbol))
    card.children.append(
        V(
            ctx,
            "android.view.View",
            card_box,
            "view_bg",
            clickable=True,
            focusable=True,
            long_clickable=True,
            on_click=lambda: ctx.show_dialog({"id": "detail", "expense_id": int(eid)}),
            on_long_click=lambda: _long_press(ctx, eid),
        )
    )
    return frame


def logs_screen(ctx: Ctx) -> list[View]:
    fs = ctx.model.fs
    asc = bool(ctx.ui.get("logs_asc", False))
    rows = expenses(fs, ascending=asc)
    present = {str(e["expense_id"]) for e in rows}
    states = _swipes(ctx)
    for gone in [i for i in states if i not in present]:
        states.pop(gone)
    selected = sum(1 for s in states.values() if s == SELECTED)
    drawer: w.Click = lambda: ctx.show_dialog({"id": "drawer"})  # noqa: E731
    if selected:
        title = f"{selected} {tr(ctx, 'single_item_suffix' if selected <= 1 else 'multi_item_suffix')}"

        def ask() -> None:
            ctx.show_dialog({"id": "delete", "count": selected, "mode": "multi"})

        bar = toolbar(
            ctx, title, "back", states.clear, [("delete", tr(ctx, "delete"), ask, "delete")], rid="tb_expense"
        )
    else:
        limits = date_limits(ctx)
        sub = ""
        if limits is not None:
            sub = f"{range_text(limits[0], limits[1], now(ctx.model).tzinfo)} . {'ASC' if asc else 'DESC'}"

        def filter_() -> None:
            ctx.show_dialog({"id": "filter", "asc": asc})

        bar = toolbar(
            ctx,
            tr(ctx, "expense_logs"),
            "menu",
            drawer,
            [("filter", tr(ctx, "filter"), filter_, "filter")],
            subtitle=sub,
            rid="tb_expense",
            enabled=bool(rows),
        )
    symbol = currency(fs).symbol
    h = ctx.dp(68)
    items: list[Row] = []
    for e in rows:

        def build(x: int, y: int, wd: int, e: dict[str, Any] = e) -> View:
            return _row(ctx, (x, y, x + wd, y + h - 1), e, symbol)

        items.append(Row(h, build))
    overlays: list[View] = []
    if not rows:
        l, t, r, b = ctx.area
        top = bar.bounds[3] + ctx.dp(96)
        empty = V(ctx, RELATIVE, (l, top, r, top + ctx.dp(96)), "layout_no_data")
        cx = (l + r) // 2
        empty.children.append(
            w.icon(
                ctx,
                (cx - ctx.dp(24), top, cx + ctx.dp(24), top + ctx.dp(48)),
                "info",
                ctx.theme.primary,
                "imv_no_expense",
            )
        )
        label = (l, top + ctx.dp(56), r, top + ctx.dp(84))
        empty.children.append(
            w.text(ctx, label, tr(ctx, "no_expense_logs").upper(), "tv_no_expense_logs", 16, align="c")
        )
        overlays.append(empty)
    return page(ctx, [bar], items, key="logs", rid="rv_expense", overlays=overlays)
