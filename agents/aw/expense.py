"""Pro Expense: expenses added through its entry and deleted from its Expense Logs (AndroidWorld's Expense classes),
from the instance's parameters alone.

The rows arrive as their dataclass's text (`Expense(name='...', amount=2185, category=7, note='...', ...)`, the
amount in hundredths, the category by the app's number) and are read back field by field (`recipe.row_fields`).

- Adding: the add button on Home (`fb_main_add`), the category's card in the entry's horizontal list (dragged
  along until the card shows whole), the name, the amount as typed (`21.85`), the note, SAVE.
- Deleting: MORE on Home (`btn_more_logs`) opens the logs, newest first; each row is sought by its name and its
  amount as the list shows them (`1,234.5`), dragging the list down (up once the end is reached), the rows taken
  in the order the list shows them (by date, newest first). One row: tapped, its detail's delete (`btn_delete`),
  CONFIRM. Several: each swiped right (selected), then the toolbar's Delete and CONFIRM.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any

from harness.actions import Action, Click, Complete, Point, Swipe
from tasks.schema import ReferenceStep

from .recipe import row_fields
from .steps import Step, click, open_app, type_into, when_shown

EXPENSE = ("Pro Expense", "com.arduia.expense")
RID = EXPENSE[1] + ":id/"
# the categories by the app's number, named as its English strings name them
CATEGORIES = {
    1: "Others",
    2: "Income",
    3: "Food",
    4: "Housing",
    5: "Social",
    6: "Entertainment",
    7: "Transportation",
    8: "Clothes",
    9: "Health Care",
    10: "Education",
    11: "Donation",
}
ONBOARDING = (  # the first start's configuration, when the app still shows it
    when_shown(resource_id="btn_continue", text="NEXT"),
    when_shown(resource_id="btn_continue", text="CONTINUE"),
)
SEEKS = 14  # list drags at most, looking for one row
CHIP_SEEKS = 4  # category list drags at most
CHIP_ORDER = [CATEGORIES[c] for c in (3, 2, 4, 5, 6, 7, 8, 9, 10, 11, 1)]  # a new entry's cards: Food first
DRAG_SECONDS = 1.5  # slow: the list moves about as far as the finger


def _rows(p: Mapping[str, Any], key: str) -> list[Mapping[str, Any]]:
    return [r for r in (row_fields(v) for v in p.get(key) or []) if r is not None]


def typed_amount(hundredths: int) -> str:
    """An amount as a person types it into the entry: `21.85`, `20`."""
    text = f"{Decimal(int(hundredths)) / 100:.2f}"
    return text[:-3] if text.endswith(".00") else text


def shown_amount(hundredths: int) -> str:
    """An amount as the lists show it (DecimalFormat: grouped, at most two decimals): `1,234.5`."""
    value = Decimal(int(hundredths)) / 100
    text = f"{abs(value):,.2f}".rstrip("0").rstrip(".")
    return ("-" if value < 0 else "") + text


# --- the screen ----------------------------------------------------------------------------------------------------
def _by_id(screen: Any, name: str) -> list[Any]:
    return [e for e in screen.tree.visible() if e.resource_id == RID + name]


def _row_of(screen: Any, row: Mapping[str, Any]) -> tuple[Any, Any] | None:
    """The first row of the list showing the expense: (its card `cd_expense`, its name's element)."""
    name, amount = str(row.get("name") or ""), shown_amount(int(row.get("amount") or 0))
    tree = screen.tree
    for e in _by_id(screen, "tv_name"):
        if e.text != name[:20] or e.parent is None:
            continue
        card = tree[e.parent]
        if card.resource_id != RID + "cd_expense":
            continue
        texts = {tree[i].text for i in card.children} | {tree[j].text for i in card.children for j in tree[i].children}
        if amount in texts:
            return card, e
    return None


def _drag(box: tuple[int, int, int, int], size: tuple[int, int], direction: str, fraction: float) -> Swipe:
    """A slow vertical drag over `box` moving its content `direction` ("down": further down the list)."""
    l, t, r, b = box
    w, h = size
    x = (l + r) / 2 / w
    low, high = b - (b - t) * 0.1, b - (b - t) * (0.1 + fraction)
    start, end = (low, high) if direction == "down" else (high, low)
    return Swipe(start=Point(x=x, y=start / h), end=Point(x=x, y=end / h), duration=DRAG_SECONDS)


@dataclass
class _Seeking:
    """The state of one search along the list: the way it goes, the screen the last drag left."""

    direction: str = "down"
    signature: str | None = None
    turned: bool = False


@dataclass
class SeekRow:
    """Drag the logs until the row shows whole (nothing to do once it does)."""

    row: Mapping[str, Any]
    state: _Seeking
    type: str = field(default="DECIDE", init=False)

    def choose(self, screen: Any, lang: str) -> ReferenceStep | Action | None:
        lists = _by_id(screen, "rv_expense")
        if not lists:
            return None
        box = lists[0].bounds
        found = _row_of(screen, self.row)
        if found is not None:
            card = found[0].bounds
            if card[1] >= box[1] and card[3] <= box[3]:
                return None
            return _drag(box, tuple(screen.size), "up" if card[1] < box[1] else "down", 0.3)
        st = self.state
        signature = screen.tree.signature()
        if signature == st.signature:  # the last drag moved nothing: the end of the list
            if st.turned:
                return None
            st.turned = True
            st.direction = "up" if st.direction == "down" else "down"
        st.signature = signature
        return _drag(box, tuple(screen.size), st.direction, 0.7)


@dataclass
class OnRow:
    """On the row: tap it (its detail), or swipe it right (select it)."""

    row: Mapping[str, Any]
    swipe: bool = False
    type: str = field(default="DECIDE", init=False)

    def choose(self, screen: Any, lang: str) -> ReferenceStep | Action | None:
        found = _row_of(screen, self.row)
        if found is None:
            return ReferenceStep(type="CLICK", locate={"resource_id": "tv_name", "text": str(self.row.get("name"))})
        card, name = found
        if not self.swipe:
            return Click(element=name.index)
        l, t, r, b = card.bounds
        w, h = screen.size
        y = (t + b) / 2 / h
        return Swipe(
            start=Point(x=(l + (r - l) * 0.15) / w, y=y), end=Point(x=(l + (r - l) * 0.75) / w, y=y), duration=0.5
        )


@dataclass
class SeekChip:
    """Drag the entry's category list until the category's card shows whole: towards it (the cards' order is the
    app's, Food first on a new entry), far while it is three cards away or more, less once it shows in part."""

    name: str
    type: str = field(default="DECIDE", init=False)

    def choose(self, screen: Any, lang: str) -> ReferenceStep | Action | None:
        lists = _by_id(screen, "rv_category")
        if not lists:
            return None
        l, t, r, b = lists[0].bounds
        shown = {e.text: e.bounds for e in _by_id(screen, "tv_name")}
        w, h = screen.size
        y = (t + b) / 2 / h
        box = shown.get(self.name)
        if box is not None and box[0] > l and box[2] < r:
            return None
        if box is not None:  # partly shown, cut at an edge (how much is hidden does not show): 40% of the list
            move = (r - l) * 0.4 * (1 if box[0] <= l else -1)
        else:
            whole = [CHIP_ORDER.index(n) for n, bx in shown.items() if n in CHIP_ORDER and bx[0] > l and bx[2] < r]
            target = CHIP_ORDER.index(self.name) if self.name in CHIP_ORDER else len(CHIP_ORDER)
            ahead = target > max(whole, default=-1)
            far = not whole or abs(target - (max(whole) if ahead else min(whole))) >= 3
            move = (r - l) * (0.8 if far else 0.5) * (-1 if ahead else 1)
        x0 = (l + r) / 2 - move / 2
        return Swipe(start=Point(x=x0 / w, y=y), end=Point(x=(x0 + move) / w, y=y), duration=1.0)


# --- the classes -----------------------------------------------------------------------------------------------------
def new_expense(row: Mapping[str, Any]) -> list[Step]:
    """One expense through the entry: its category first (the keyboard not up yet), then the fields, SAVE."""
    category = CATEGORIES.get(int(row.get("category") or 1), "Others")
    steps: list[Step] = [click(resource_id="fb_main_add")]
    steps += [SeekChip(category) for _ in range(CHIP_SEEKS)]
    steps.append(click(resource_id="tv_name", text=category))
    steps.append(type_into(str(row.get("name") or ""), resource_id="edt_name"))
    steps.append(type_into(typed_amount(int(row.get("amount") or 0)), resource_id="edt_amount"))
    if row.get("note"):
        steps.append(type_into(str(row["note"]), resource_id="edt_note"))
    steps.append(click(resource_id="btn_save"))
    return steps


def add_expenses(p: Mapping[str, Any]) -> list[Step]:
    """ExpenseAddSingle, ExpenseAddMultiple (and FromMarkor: the note's reimbursable rows are the parameters'
    targets): each row of `row_objects` entered and saved."""
    steps: list[Step] = [open_app(EXPENSE), *ONBOARDING]
    for row in _rows(p, "row_objects"):
        steps += new_expense(row)
    return [*steps, Complete()]


def _list_order(rows: Sequence[Mapping[str, Any]]) -> list[Mapping[str, Any]]:
    """The rows in the order the logs show them: newest modified_date first (ties: the later added first)."""
    indexed = list(enumerate(rows))
    indexed.sort(key=lambda ir: (-int(ir[1].get("modified_date") or 0), -ir[0]))
    return [r for _, r in indexed]


def delete_expenses(p: Mapping[str, Any]) -> list[Step]:
    """ExpenseDeleteSingle / Multiple / Multiple2: the rows of `row_objects` (names unique among all rows) deleted;
    one through its detail, several selected and deleted at once."""
    return delete_rows(_list_order(_rows(p, "row_objects")))


def delete_duplicate(p: Mapping[str, Any]) -> list[Step]:
    """ExpenseDeleteDuplicates / Duplicates2: one of the two identical rows (`row_objects`) deleted through its
    detail (rows of the same name but another amount left alone)."""
    rows = _rows(p, "row_objects")
    return delete_rows(rows[:1])


def delete_rows(rows: Sequence[Mapping[str, Any]]) -> list[Step]:
    steps: list[Step] = [open_app(EXPENSE), *ONBOARDING, click(resource_id="btn_more_logs")]
    several = len(rows) > 1
    for row in rows:
        state = _Seeking()
        steps += [SeekRow(row, state) for _ in range(SEEKS)]
        steps.append(OnRow(row, swipe=several))
        if not several:
            steps.append(click(resource_id="btn_delete"))
    if several:
        steps.append(click(resource_id="delete", desc="Delete"))
    steps += [click(resource_id="btn_confirm"), Complete()]
    return steps


SOLVERS: dict[str, Callable[[Mapping[str, Any]], list[Step]]] = {
    "ExpenseAddSingle": add_expenses,
    "ExpenseAddMultiple": add_expenses,
    "ExpenseAddMultipleFromMarkor": add_expenses,
    "ExpenseDeleteSingle": delete_expenses,
    "ExpenseDeleteMultiple": delete_expenses,
    "ExpenseDeleteMultiple2": delete_expenses,
    "ExpenseDeleteDuplicates": delete_duplicate,
    "ExpenseDeleteDuplicates2": delete_duplicate,
}
