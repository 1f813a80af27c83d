"""Pro Expense's entry (ExpenseEntryFragment): "Expense Entry" for a new expense (the add button), "Update Data"
for one opened from its detail; the toolbar's subtitle is the entry's date and time ("15 Oct 2023 12:00 PM": now
for a new one, the expense's own otherwise).

The form (`sv_entry`): Name (`edt_name`, at most 20 characters), Amount (`edt_amount`, at most 10, a number with up
to eight digits and two decimals as the app's input filter lets through, the currency's code after it), the
category list (`rv_category`, a horizontal list of `cd_category` cards with `tv_name`; Food chosen for a new
expense; the chosen one first, checked), Note (`edt_note`, at most 100), SAVE (`btn_save`) and the lock
(`cv_lock`, new expenses only: locked, SAVE turns NEXT and the form stays for the next expense).

SAVE with no amount says "Cost is Empty" on the field. Otherwise the row is written (`amount` times 100,
`created_date` now, `modified_date` the entry's date) and the entry closes (locked: the form empties, "Saved!");
UPDATE rewrites the row ("Data Updated!") and closes. Left out: the toolbar's time and calendar pickers.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..ui import widgets as w
from ..ui.fonts import text_width
from ..ui.layout import SCROLLVIEW, Ctx, Row, V, hlist
from ..ui.view import View
from .base import page
from .expense_data import (
    AMOUNT_PATTERN,
    CATEGORY_ORDER,
    DB,
    FOOD,
    category_name,
    currency,
    expense,
    now_ms,
    shown_amount,
    shown_moment,
    stored_amount,
    tr,
)
from .expense_widgets import button, navigate, pop, toolbar

NAME, AMOUNT, NOTE = "entry_name", "entry_amount", "entry_note"
MAX_LENGTH = {NAME: 20, AMOUNT: 10, NOTE: 100}
CARD = "androidx.cardview.widget.CardView"
INPUT_LAYOUT = "android.widget.LinearLayout"  # TextInputLayout


def _state(ctx: Ctx) -> dict[str, Any]:
    st: dict[str, Any] = ctx.ui.setdefault("entry", {})
    return st


def _order(selected: int) -> list[int]:
    """updateCategoryList: the provider's order with the chosen category moved first."""
    return [selected] + [c for c in CATEGORY_ORDER if c != selected]


def open_entry(ctx: Ctx, expense_id: int | None) -> None:
    """The entry for a new expense (None) or for the row `expense_id`."""
    e = expense(ctx.model.fs, expense_id) if expense_id is not None else None
    category = int(e["category"]) if e else FOOD
    ctx.ui["entry"] = {
        "id": int(e["expense_id"]) if e else None,
        "category": category,
        "order": _order(category),
        "time": int(e["modified_date"]) if e else now_ms(ctx.model),
        "created": int(e["created_date"]) if e else None,
        "locked": False,
        "error": False,
    }
    ctx.set_field(NAME, str(e["name"] or "") if e else "")
    ctx.set_field(AMOUNT, shown_amount(e["amount"]).replace(",", "") if e else "")
    ctx.set_field(NOTE, str(e["note"] or "") if e else "")
    ctx.ui.setdefault("scroll", {}).pop("categories", None)
    ctx.ui["scroll"].pop("entry", None)
    navigate(ctx, "entry", expense_id=expense_id if expense_id is not None else -100)
    if e is None:
        ctx.set_focus(NAME, keyboard=False)  # edtName.requestFocus(): focused, no keyboard yet


def _save(ctx: Ctx) -> None:
    st = _state(ctx)
    text = ctx.field_value(AMOUNT)
    store = stored_amount(text) if text else None
    if store is None:
        st["error"] = True  # edtAmount.error = "Cost is Empty"
        return
    fs = ctx.model.fs
    name, note, category = ctx.field_value(NAME), ctx.field_value(NOTE), int(st.get("category", FOOD))
    if st.get("id") is not None:
        DB.execute(
            fs,
            "UPDATE `expense` SET name = ?, amount = ?, category = ?, note = ?, created_date = ?, modified_date = ?"
            " WHERE expense_id = ?",
            (name, store, category, note, st.get("created") or now_ms(ctx.model), st["time"], st["id"]),
        )
        ctx.toast(tr(ctx, "data_updated"))
        pop(ctx)
        return
    DB.execute(
        fs,
        "INSERT INTO `expense` (name, amount, category, note, created_date, modified_date) VALUES (?, ?, ?, ?, ?, ?)",
        (name, store, category, note, now_ms(ctx.model), st.get("time") or now_ms(ctx.model)),
    )
    if st.get("locked"):  # onNext: the form empties for the next one
        for key in (NAME, AMOUNT, NOTE):
            ctx.set_field(key, "")
        st.update(time=now_ms(ctx.model), error=False)
        ctx.set_focus(NAME)
        ctx.toast(tr(ctx, "saved"))
        return
    pop(ctx)


def _setter(ctx: Ctx, key: str) -> Any:
    def change(value: str) -> None:
        if key == AMOUNT:  # FloatingInputFilter: each character that would not leave a number is dropped
            old = ctx.field_value(AMOUNT)
            if not AMOUNT_PATTERN.fullmatch(value):
                kept = old if value.startswith(old) else ""
                for ch in value[len(kept) :]:
                    if AMOUNT_PATTERN.fullmatch(kept + ch):
                        kept += ch
                value = kept
            _state(ctx)["error"] = False
        ctx.set_field(key, value[: MAX_LENGTH[key]])

    return change


def _field(
    ctx: Ctx, box: tuple[int, int, int, int], key: str, hint: str, rid: str, layout_rid: str, multiline: bool = False
) -> View:
    layout = V(ctx, INPUT_LAYOUT, box, layout_rid)
    edit = w.edit(
        ctx,
        box,
        key,
        ctx.field_value(key),
        hint,
        _setter(ctx, key),
        rid,
        multiline=multiline,
        action=None if multiline else (lambda: ctx.set_focus(AMOUNT if key == NAME else NOTE)),
        action_kind="next",
        lines=3 if multiline else 1,
    )
    edit.style["field"].max_length = MAX_LENGTH[key]
    layout.children.append(edit)
    return layout


def entry_screen(ctx: Ctx) -> list[View]:
    st = _state(ctx)
    th = ctx.theme
    updating = st.get("id") is not None
    when = shown_moment(ctx.model, int(st.get("time") or now_ms(ctx.model)))
    clock = f"{when.hour % 12 or 12}:{when.minute:02d} {'AM' if when.hour < 12 else 'PM'}"
    sub = f"{when.day} {when.strftime('%b %Y')} {clock}"  # "d MMM yyyy h:mm a"
    title = tr(ctx, "update_data" if updating else "expense_entry")
    bar = toolbar(ctx, title, "back", lambda: pop(ctx), subtitle=sub)
    m = ctx.dp(24)
    field_h = ctx.dp(56)
    rows: list[Row] = []

    def name_row(x: int, y: int, wd: int) -> View:
        return _field(
            ctx,
            (x + m, y + ctx.dp(16), x + wd - m, y + ctx.dp(16) + field_h),
            NAME,
            tr(ctx, "name"),
            "edt_name",
            "edl_name",
        )

    rows.append(Row(field_h + ctx.dp(16), name_row, (NAME,)))
    error = bool(st.get("error"))
    amount_h = field_h + ctx.dp(16) + (ctx.line_h(12) if error else 0)

    def amount_row(x: int, y: int, wd: int) -> View:
        box = (x + m, y + ctx.dp(16), x + wd - m, y + ctx.dp(16) + field_h)
        layout = _field(ctx, box, AMOUNT, tr(ctx, "amount"), "edt_amount", "edl_amount")
        code = currency(ctx.model.fs).code
        cw = int(text_width(code, ctx.sp(16))) + ctx.dp(16)
        layout.children.append(
            w.text(ctx, (box[2] - cw, box[1], box[2] - ctx.dp(8), box[3]), code, "textinput_suffix_text", 16, th.text2)
        )
        if error:
            err = (box[0] + ctx.dp(16), box[3], box[2], box[3] + ctx.line_h(12))
            red = (242, 184, 181) if th.dark else (179, 38, 30)  # colorError
            layout.children.append(w.text(ctx, err, tr(ctx, "empty_cost"), "textinput_error", 12, red))
            layout.bounds = (box[0], box[1], box[2], err[3])  # the TextInputLayout holds its error line
        return layout

    rows.append(Row(amount_h, amount_row, (AMOUNT,)))
    chip_h = ctx.dp(40)

    chosen = int(st.get("category", FOOD))

    def chip(cid: int, label: str, cw: int) -> Callable[[int, int, int], View]:
        def build(cx: int, cy: int, ch: int) -> View:
            on = cid == chosen
            box = (cx + ctx.dp(4), cy + ctx.dp(8), cx + cw + ctx.dp(4), cy + ctx.dp(8) + chip_h)
            card = V(
                ctx,
                CARD,
                box,
                "cd_category",
                clickable=True,
                focusable=True,
                checkable=True,
                checked=on,
                on_click=lambda: st.update(category=cid),
                style={"bg": th.primary if on else th.surface2, "radius": ctx.dp(8)},
            )
            fg = th.on_primary if on else th.text
            card.children.append(w.text(ctx, box, label, "tv_name", 16, fg, align="c"))
            return card

        return build

    def categories(x: int, y: int, wd: int) -> View:
        items = []
        for cid in st.get("order") or _order(chosen):
            label = category_name(ctx, cid)
            cw = int(text_width(label, ctx.sp(16))) + ctx.dp(32)
            items.append((cw + ctx.dp(8), chip(cid, label, cw)))
        return hlist(ctx, "categories", (x, y, x + wd, y + chip_h + ctx.dp(16)), items, "rv_category", pad=ctx.dp(20))

    rows.append(Row(chip_h + ctx.dp(16), categories))
    note_h = ctx.dp(100)

    def note_row(x: int, y: int, wd: int) -> View:
        return _field(
            ctx,
            (x + m, y + ctx.dp(16), x + wd - m, y + ctx.dp(16) + note_h),
            NOTE,
            tr(ctx, "note"),
            "edt_note",
            "edl_description",
            True,
        )

    rows.append(Row(note_h + ctx.dp(16), note_row, (NOTE,)))

    def save_row(x: int, y: int, wd: int) -> list[View]:
        top = y + ctx.dp(24)
        lock_w = 0 if updating else ctx.dp(48) + ctx.dp(16)
        label = tr(ctx, "update" if updating else "next" if st.get("locked") else "save")
        out = [button(ctx, (x + m, top, x + wd - m - lock_w, top + ctx.dp(48)), label, lambda: _save(ctx), "btn_save")]
        if not updating:
            locked = bool(st.get("locked"))
            box = (x + wd - m - ctx.dp(48), top, x + wd - m, top + ctx.dp(48))
            lock = V(
                ctx,
                CARD,
                box,
                "cv_lock",
                clickable=True,
                focusable=True,
                on_click=lambda: st.update(locked=not locked),
                style={"bg": th.primary if locked else th.surface2, "radius": ctx.dp(16)},
            )
            lock.children.append(w.icon(ctx, box, "lock", th.on_primary if locked else (97, 97, 97), "imv_lock"))
            out.append(lock)
        return out

    rows.append(Row(ctx.dp(24 + 48 + 32), save_row))
    return page(ctx, [bar], rows, key="entry", rid="sv_entry", cls=SCROLLVIEW)
