"""The reference agent on AndroidWorld's Pro Expense classes, without AndroidWorld: each solver played on the virtual
device from an instance's parameters - its rows as they arrive through JSON (the dataclass's repr) - over a database
holding the rows AndroidWorld's set-up inserts, within AndroidWorld's budget (10 steps a unit of complexity), and
the rows read back as its judge reads them."""

from __future__ import annotations

import dataclasses
from typing import Any

import pytest

from agents import androidworld_reference as awr
from agents.aw import expense
from emulator.virtual.apps.expense_data import DB, MAIN, PKG, write_prefs
from emulator.virtual.model import VirtualDeviceModel
from harness.plugins import create_agent
from tests.agents_helpers import make_task, run

OCT = 1696100000000  # the start of October 2023 (ms), when AndroidWorld's rows are dated
FIELDS = ("name", "amount", "category", "note")


@dataclasses.dataclass(frozen=True)
class Expense:
    """AndroidWorld's row type (sqlite_schema_utils.Expense): its fields, its repr."""

    name: str
    amount: int
    category: int = 0
    note: str = ""
    created_date: int = 0
    modified_date: int = 0
    expense_id: int = -1


def _row(name: str, amount: int, category: int, note: str, day: int) -> Expense:
    when = OCT + day * 86_400_000
    return Expense(name, amount, category, note, when, when)


def _device(*rows: Expense, onboarded: bool = True) -> VirtualDeviceModel:
    """A device whose database holds `rows`, inserted as AndroidWorld inserts them, the app then stopped (its first
    start's configuration done, as AndroidWorld's set-up does it, unless not `onboarded`)."""
    m = VirtualDeviceModel()
    m.start_activity(PKG, MAIN)  # the first start makes the database
    if onboarded:
        write_prefs(m.fs, isFirstTime=False)
    with DB.change(m.fs) as conn:
        for r in rows:
            values = {k: v for k, v in dataclasses.asdict(r).items() if k != "expense_id"}
            marks = ", ".join("?" * len(values))
            conn.execute(f"INSERT INTO expense ({', '.join(values)}) VALUES ({marks})", tuple(values.values()))
    m.force_stop(PKG)
    m.go_home()
    return m


def _rows(m: VirtualDeviceModel) -> list[tuple[Any, ...]]:
    return [tuple(r[f] for f in FIELDS) for r in DB.rows(m.fs, "SELECT * FROM expense ORDER BY expense_id")]


def _as_row(r: Expense) -> tuple[Any, ...]:
    return tuple(getattr(r, f) for f in FIELDS)


def play(m: VirtualDeviceModel, cls: str, max_steps: int, **params: Any) -> list[Any]:
    task = make_task(f"AndroidWorld {cls}", outside={"suite": "androidworld", "class": cls, "params": params})
    steps = run(create_agent("reference"), m, task, max_steps=max_steps)
    last = steps[-1].action
    assert last is not None and last.type == "COMPLETE", [s.action for s in steps]
    assert not any(s.invalid for s in steps), [s.error for s in steps if s.invalid]
    return steps


NOISE = [_row(f"Noise {i}", 1000 + 37 * i, 1 + i % 11, "A need", i % 14) for i in range(30)]


def test_the_solved_classes_are_registered_and_amounts_read_as_the_app_shows_them() -> None:
    assert set(expense.SOLVERS) <= set(awr.SOLVERS)
    assert {"ExpenseAddSingle", "ExpenseDeleteMultiple2", "ExpenseDeleteDuplicates2"} <= set(expense.SOLVERS)
    assert expense.typed_amount(2185) == "21.85" and expense.typed_amount(2000) == "20"
    assert expense.shown_amount(123450) == "1,234.5" and expense.shown_amount(1000) == "10"


def test_expenses_are_added_past_the_first_start_configuration() -> None:
    old = _row("Rent Payment", 120000, 4, "Monthly recurring", 2)
    m = _device(old, onboarded=False)
    new = [_row("Laundry", 2185, 8, "Paid by card", 5), _row("Charity", 5000, 11, "Want to have", 6)]
    new.append(_row("Salary", 310000, 2, "Urgent", 7))
    play(m, "ExpenseAddMultiple", 60, row_objects=[repr(new[0]), repr(new[1]), dataclasses.asdict(new[2])])
    assert _rows(m) == [_as_row(old), *(_as_row(r) for r in new)]


def test_a_single_expense_is_added_within_its_budget() -> None:
    m = _device()
    row = _row("Others Thing", 999, 1, "I may repeat this", 3)  # Others: the last card of the category list
    play(m, "ExpenseAddSingle", 12, row_objects=[repr(row)])
    assert _rows(m) == [_as_row(row)]


def test_the_named_expenses_are_deleted_from_a_long_list_and_no_other() -> None:
    targets = [_row("Pet Supplies", 19095, 1, "Urgent", 13), _row("Taxi Fare", 2500, 7, "", 0)]
    targets.append(_row("Books", 4200, 6, "Want to have", 7))
    m = _device(*NOISE, *targets)
    play(m, "ExpenseDeleteMultiple2", 34, row_objects=[repr(r) for r in targets])
    assert _rows(m) == [_as_row(r) for r in NOISE]


def test_a_single_expense_is_deleted_from_its_detail() -> None:
    target = _row("Gym Membership", 4500, 9, "Monthly recurring", 4)
    m = _device(target)
    play(m, "ExpenseDeleteSingle", 10, row_objects=[repr(target)])
    assert _rows(m) == []


@pytest.mark.parametrize("first", [True, False])
def test_one_of_two_duplicates_goes_and_variants_of_its_name_stay(first: bool) -> None:
    dup = _row("Parking Fees", 23736, 7, "Paid by card", 8)
    variants = [dataclasses.replace(dup, amount=dup.amount + d, modified_date=OCT + d * 1000) for d in (60, 570)]
    noise = [*NOISE[:12], *variants]
    m = _device(*noise, dup, dup) if first else _device(dup, *noise, dup)
    play(m, "ExpenseDeleteDuplicates2", 18, row_objects=[repr(dup)] * 2, noise_row_objects=[repr(r) for r in noise])
    rows = _rows(m)
    assert rows.count(_as_row(dup)) == 1 and len(rows) == len(noise) + 1
    assert all(_as_row(r) in rows for r in noise)
