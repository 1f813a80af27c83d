"""Pro Expense's bottom sheets (BottomSheetDialogFragments):

- the expense detail (`expense_detail_dialog`): "Expense Detail" (`tv_expense_detail`), close (`btn_close`), the
  card (`cd_info`) with the category, delete (`btn_delete`), the name (`tv_name_value`), Amount
  (`tv_amount_value`, `tv_currency_symbol`: the currency's code from Home, its symbol from the logs), Date
  (`tv_date_value`), Note (`tv_note_value`, hidden when there is none) and EDIT (`btn_edit`, the entry in update
  mode); delete asks the delete confirmation;
- the delete confirmation (`frag_delete_confirm_dialog`): "Delete Items" (`tv_delete_item`), close
  (`imv_drop_close`), "<n> items will be deleted!" (`tv_items`, `tv_delete_description`; one: "item will be
  deleted!") and CONFIRM (`btn_confirm`), which deletes the rows (from Home, with the "Item Deleted" message);
- the logs' filter (`filter_expense_dialog`): the range's From / To dates (shown; their pickers left out), the
  order (`btn_date_order_desc` / `btn_date_order_asc`) and APPLY FILTER (`btn_apply_filter`).
"""

from __future__ import annotations

import datetime as dt
from typing import Any

from ..ui import widgets as w
from ..ui.layout import Ctx, V
from ..ui.view import View
from .expense_data import (
    DB,
    currency,
    delete_expenses,
    expense,
    now,
    shown_amount,
    shown_date,
    tr,
)
from .expense_entry import open_entry
from .expense_widgets import RELATIVE, button, button_width, category_circle, sheet

NEGATIVE = (229, 57, 53)  # colorNegative (red)


def detail_sheet(ctx: Ctx, spec: dict[str, Any]) -> View | None:
    e = expense(ctx.model.fs, spec.get("expense_id"))
    if e is None:
        return None
    th = ctx.theme
    cur = currency(ctx.model.fs)
    symbol = cur.code if spec.get("home") else cur.symbol
    note = str(e["note"] or "")
    lh = ctx.line_h
    card_h = ctx.dp(16 + 48 + 16 + 16) + 3 * (lh(14) + lh(16)) + ctx.dp(24)
    height = ctx.dp(16) + ctx.dp(48) + ctx.dp(8) + card_h + ctx.dp(16 + 48 + 24)
    root = sheet(ctx, height, ctx.dismiss_dialog)
    l, t, r, b = root.bounds
    body = V(ctx, "android.view.ViewGroup", root.bounds)
    root.children.append(body)
    m = ctx.dp(16)
    isz = ctx.dp(48)
    body.children.append(
        w.text(
            ctx, (l + m, t + m, r - isz - m, t + m + isz), tr(ctx, "expnese_detail"), "tv_expense_detail", 20, th.text2
        )
    )
    body.children.append(
        w.icon_button(ctx, (r - m - isz, t + m, r - m, t + m + isz), "drop_down", "", ctx.dismiss_dialog, "btn_close")
    )
    cy0 = t + m + isz + ctx.dp(8)
    card = V(ctx, "androidx.cardview.widget.CardView", (l + m, cy0, r - m, cy0 + card_h), "cd_info")
    card.style.update(bg=th.surface2, radius=ctx.dp(12))
    body.children.append(card)
    inner = V(ctx, "android.view.ViewGroup", card.bounds)
    card.children.append(inner)
    x0, x1 = card.bounds[0] + m, card.bounds[2] - m
    y = cy0 + m
    inner.children.append(category_circle(ctx, (x0, y, x0 + isz, y + isz), e["category"]))

    def delete() -> None:
        mode = "home" if spec.get("home") else "single"
        ctx.show_dialog({"id": "delete", "ids": [e["expense_id"]], "count": 1, "mode": mode})

    delete_btn = w.icon(ctx, (x1 - isz, y, x1, y + isz), "delete", th.text, "btn_delete", on_click=delete)
    inner.children.append(delete_btn)
    name_box = (x0 + isz + m, y, x1 - isz - ctx.dp(8), y + isz)
    inner.children.append(w.text(ctx, name_box, str(e["name"] or ""), "tv_name_value", 20, style={"ellipsize": True}))
    y += isz + m
    amount = shown_amount(e["amount"])
    aw = int(w.text_width(amount, ctx.sp(16), True)) + ctx.dp(4)
    fields = (
        ("tv_amount", "amount", "tv_amount_value", amount),
        ("tv_date", "date", "tv_date_value", shown_date(ctx, int(e["modified_date"]))),
        ("tv_note", "note", "tv_note_value", note),
    )
    for label_rid, key, value_rid, value in fields:
        if key == "note" and not note:
            break  # INVISIBLE: not in the tree
        inner.children.append(w.text(ctx, (x0, y, x1, y + lh(14)), tr(ctx, key), label_rid, 14, th.text2))
        y += lh(14)
        if key == "amount":
            inner.children.append(w.text(ctx, (x0, y, x0 + aw, y + lh(16)), value, value_rid, 16, bold=True))
            sym = (x0 + aw, y, x1, y + lh(16))
            inner.children.append(w.text(ctx, sym, symbol, "tv_currency_symbol", 12, th.text2))
        else:
            inner.children.append(w.text(ctx, (x0, y, x1, y + lh(16)), value, value_rid, 16, style={"ellipsize": True}))
        y += lh(16) + ctx.dp(8)

    def edit() -> None:
        ctx.dismiss_dialog()
        open_entry(ctx, int(e["expense_id"]))

    by = card.bounds[3] + m
    body.children.append(button(ctx, (l + m, by, r - m, by + ctx.dp(48)), tr(ctx, "edit"), edit, "btn_edit"))
    return root


def delete_sheet(ctx: Ctx, spec: dict[str, Any]) -> View:
    th = ctx.theme
    count = int(spec.get("count", 1))
    m = ctx.dp(16)
    isz = ctx.dp(48)
    height = ctx.dp(16 + 48 + 8 + 72 + 16 + 48 + 24)
    root = sheet(ctx, height, ctx.dismiss_dialog)
    l, t, r, b = root.bounds
    body = V(ctx, RELATIVE, root.bounds)
    root.children.append(body)
    body.children.append(
        w.text(ctx, (l + m, t + m, r - isz - m, t + m + isz), tr(ctx, "delete_items"), "tv_delete_item", 20)
    )
    body.children.append(
        w.icon(
            ctx,
            (r - m - isz, t + m, r - m, t + m + isz),
            "drop_down",
            th.text,
            "imv_drop_close",
            on_click=ctx.dismiss_dialog,
        )
    )
    cy = t + m + isz + ctx.dp(8)
    card = V(ctx, "androidx.cardview.widget.CardView", (l + m, cy, r - m, cy + ctx.dp(72)), "cv_description_bg")
    card.style.update(bg=th.surface2, radius=ctx.dp(12))
    body.children.append(card)
    line = V(ctx, w.LINEAR, card.bounds)
    card.children.append(line)
    items = f"{tr(ctx, 'single_item_suffix')} " if count == 1 else f"{count} {tr(ctx, 'multi_item_suffix')} "
    iw = int(w.text_width(items, ctx.sp(16), True)) + ctx.dp(4)
    dw = int(w.text_width(tr(ctx, "will_be_deleted"), ctx.sp(16))) + ctx.dp(4)
    x = (l + r - iw - dw) // 2
    mid = (card.bounds[1] + card.bounds[3]) // 2
    line.children.append(w.text(ctx, (x, mid - ctx.dp(14), x + iw, mid + ctx.dp(14)), items, "tv_items", 16, bold=True))
    desc = (x + iw, mid - ctx.dp(14), x + iw + dw, mid + ctx.dp(14))
    line.children.append(w.text(ctx, desc, tr(ctx, "will_be_deleted"), "tv_delete_description", 16))

    def confirm() -> None:
        mode = spec.get("mode")
        if mode == "multi":  # onMultiDeleteConfirmed: the selected rows, then the selection cleared
            swipe: dict[Any, int] = ctx.ui.get("swipe", {})
            ids = [int(i) for i, s in swipe.items() if s == 1]
            ctx.ui.pop("swipe", None)
        else:
            ids = [int(i) for i in spec.get("ids", [])]
        delete_expenses(ctx.model.fs, ids)
        ctx.dismiss_dialog()
        if mode == "home":
            ctx.toast(tr(ctx, "item_deleted"))

    bw = max(button_width(ctx, tr(ctx, "confirm")), ctx.dp(160))
    by = card.bounds[3] + m
    cx = (l + r) // 2
    body.children.append(
        button(
            ctx,
            (cx - bw // 2, by, cx + bw // 2, by + ctx.dp(48)),
            tr(ctx, "confirm"),
            confirm,
            "btn_confirm",
            color=NEGATIVE,
        )
    )
    return root


def date_limits(ctx: Ctx) -> tuple[int, int] | None:
    """getMaxAndMiniDateRange: the oldest and newest modified_date (None without rows)."""
    rows = DB.rows(ctx.model.fs, "SELECT MIN(modified_date) AS lo, MAX(modified_date) AS hi FROM `expense`")
    if not rows or rows[0]["lo"] is None:
        return None
    return int(rows[0]["lo"]), int(rows[0]["hi"])


def filter_sheet(ctx: Ctx, spec: dict[str, Any]) -> View:
    th = ctx.theme
    m = ctx.dp(16)
    asc = bool(spec.get("asc", ctx.ui.get("logs_asc", False)))
    height = ctx.dp(16 + 32 + 24 + 72 + 24 + 24 + 48 + 24 + 48 + 24)
    root = sheet(ctx, height, ctx.dismiss_dialog)
    l, t, r, b = root.bounds
    body = V(ctx, "android.view.ViewGroup", root.bounds)
    root.children.append(body)
    y = t + m
    body.children.append(w.text(ctx, (l + m, y, r - m, y + ctx.dp(32)), tr(ctx, "filter"), "tv_filter", 20))
    y += ctx.dp(32 + 8)
    limits = date_limits(ctx)
    zone = now(ctx.model).tzinfo
    half = (r - l - 3 * m) // 2
    for i, (key, prefix) in enumerate((("from", "start"), ("to", "end"))):
        x = l + m + i * (half + m)
        body.children.append(w.text(ctx, (x, y, x + half, y + ctx.dp(24)), tr(ctx, key), f"tv_{key}", 14, th.text2))
        box = (x, y + ctx.dp(24), x + half, y + ctx.dp(24 + 72))
        card = V(
            ctx,
            "androidx.cardview.widget.CardView",
            box,
            f"cv_{prefix}_date",
            style={"bg": th.surface2, "radius": ctx.dp(12)},
        )
        body.children.append(card)
        if limits is not None:
            day = dt.datetime.fromtimestamp(limits[i] / 1000, zone)
            third = (box[2] - box[0]) // 3
            for j, (part, value) in enumerate(
                (("month", day.strftime("%b")), ("day", str(day.day)), ("year", str(day.year)))
            ):
                cell = (box[0] + j * third, box[1], box[0] + (j + 1) * third, box[3])
                card.children.append(w.text(ctx, cell, value, f"tv_{prefix}_{part}", 16, align="c"))
    y += ctx.dp(24 + 72 + 24)
    body.children.append(
        w.text(ctx, (l + m, y, r - m, y + ctx.dp(24)), tr(ctx, "order_date_in"), "tv_sorted_by", 14, th.text2)
    )
    y += ctx.dp(24)
    group = V(ctx, w.LINEAR, (l + m, y, r - m, y + ctx.dp(48)), "tg_date_order")
    body.children.append(group)
    for i, (key, rid, on) in enumerate((("desc", "btn_date_order_desc", not asc), ("asc", "btn_date_order_asc", asc))):
        x = l + m + i * (half + m)

        def order(a: bool = key == "asc") -> None:
            ctx.show_dialog({**spec, "asc": a})

        btn = button(
            ctx, (x, y, x + half, y + ctx.dp(48)), tr(ctx, key), order, rid, kind="filled" if on else "outlined"
        )
        btn.checkable, btn.checked = True, on
        group.children.append(btn)
    y += ctx.dp(48 + 24)

    def apply() -> None:
        ctx.ui["logs_asc"] = asc
        ctx.ui.setdefault("scroll", {}).pop("logs", None)
        ctx.dismiss_dialog()

    body.children.append(
        button(ctx, (l + m, y, r - m, y + ctx.dp(48)), tr(ctx, "apply_filter"), apply, "btn_apply_filter")
    )
    return root


__all__ = ["date_limits", "delete_sheet", "detail_sheet", "filter_sheet"]
