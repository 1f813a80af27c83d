"""Pro Expense: an expense with a name, an amount, a category and a note, added on a fresh install (the app's
first-run configuration comes first: NEXT, CONTINUE). Judged by the app's database: `accounting.db`'s `expense`
table holds a row with that name, the amount in hundredths, the category's number and the note, as AndroidWorld's
Expense classes judge it.

The app shows its own language (English until the user picks another), so the instruction in Chinese names the
category as the app's screen writes it. The entry's category list is a horizontal list: the reference drags it
along (SCROLL right) as many times as the category's card needs on the embedded device's default phone."""

from __future__ import annotations

from collections.abc import Mapping
from decimal import Decimal
from typing import Any

from .base import Family
from .build import click, milestone, open_app, steps_for_both, type_into
from .params import ChoiceParam, Text, TextParam

EXPENSE = "com.arduia.expense"
DB_PATH = f"/data/data/{EXPENSE}/databases/accounting.db"

NAMES = (
    ("Coffee beans", "咖啡豆"),
    ("Taxi to airport", "打车去机场"),
    ("Concert tickets", "音乐会门票"),
    ("Winter jacket", "冬季外套"),
    ("Dentist visit", "看牙医"),
    ("Textbooks", "教科书"),
    ("Monthly rent", "月租"),
    ("Birthday gift", "生日礼物"),
)
NOTES = (
    ("Paid by card", "刷卡支付"),
    ("Split with Sam", "和小林平摊"),
    ("Reimbursable", "可以报销"),
    ("Monthly recurring", "每月固定"),
    ("Cash", "现金"),
)
AMOUNTS = (450, 1299, 2000, 3575, 4999, 8640, 12000, 25050)  # hundredths, as the app stores them
# the app's number of each category, its name on the app's screen (English), the Chinese the instruction gives it,
# and how many SCROLLs (right, distance 0.7) bring its card into view in the entry's list on the default phone
CATEGORIES: dict[str, tuple[int, str, str, int]] = {
    "food": (3, "Food", "食品", 0),
    "income": (2, "Income", "收入", 0),
    "housing": (4, "Housing", "家用", 0),
    "social": (5, "Social", "社交", 0),
    "entertainment": (6, "Entertainment", "娱乐", 1),
    "transportation": (7, "Transportation", "交通", 1),
    "clothes": (8, "Clothes", "服饰", 2),
    "health_care": (9, "Health Care", "医疗保健", 2),
    "education": (10, "Education", "教育", 2),
    "donation": (11, "Donation", "捐赠", 3),
    "others": (1, "Others", "其他", 3),
}


def typed(hundredths: int) -> str:
    """The amount as typed into the entry ("4.50", "20")."""
    text = f"{Decimal(hundredths) / 100:.2f}"
    return text[:-3] if text.endswith(".00") else text


def build_expense(v: Mapping[str, Any]) -> dict[str, Any]:
    name: Text = v["name"]
    note: Text = v["note"]
    amount = int(v["amount"])
    number, shown, zh_category, scrolls = CATEGORIES[v["category"]]
    money = f"{Decimal(amount) / 100:.2f}"
    row = {
        "name": {"equals": name.loc(), "case_sensitive": True},
        "amount": {"equals": str(amount)},
        "category": {"equals": str(number)},
        "note": {"equals": note.loc(), "case_sensitive": True},
    }
    saved = {"sqlite": {"path": DB_PATH, "table": "expense", "row": row}}
    steps: list[dict[str, Any]] = [
        open_app("Pro Expense", "Pro Expense", EXPENSE),
        click("btn_continue", text="NEXT"),
        click("btn_continue", text="CONTINUE"),
        click("fb_main_add"),
    ]
    scroll = {"type": "SCROLL", "direction": "right", "distance": 0.7, "locate": {"resource_id": "rv_category"}}
    steps += [scroll] * scrolls
    steps += [
        click("tv_name", text=shown),
        type_into(name.loc(), "edt_name"),
        type_into(typed(amount), "edt_amount"),
        type_into(note.loc(), "edt_note"),
        click("btn_save"),
        {"type": "COMPLETE"},
    ]
    return {
        "category": "1-1",
        "apps": [EXPENSE],
        "instruction": {
            "en": f'In Pro Expense, add an expense "{name.en}" of ${money} in the {shown} category with the note '
            f'"{note.en}".',
            "zh": f"在 Pro Expense 里记一笔开支“{name.zh}”，金额 {money} 美元，类别选 {shown}（{zh_category}），"
            f"附注写“{note.zh}”。",
        },
        "start": {"reset_apps": [EXPENSE]},
        "max_steps": 20,
        "milestones": {
            "order": "ordered",
            "children": [
                milestone(
                    "entry",
                    "Open the expense entry",
                    "打开记一笔开支的页面",
                    {"package": EXPENSE, "element": {"resource_id": "edt_name"}},
                ),
                milestone(
                    "saved",
                    "The expense is saved with its amount, category and note",
                    "开支已保存，金额、类别和附注都正确",
                    {
                        "package": EXPENSE,
                        "element": {"resource_id": "tv_name", "text": name.loc(), "case_sensitive": True},
                        "state": saved,
                    },
                ),
            ],
        },
        "end_state": [{"check": {"state": saved}}],
        "reference": steps_for_both(steps),
    }


EXPENSE_ADD = Family(
    name="expense",
    description="an expense with a name, an amount, a category and a note, added on a fresh install (Pro Expense;"
    " judged by its database's expense row)",
    params={
        "name": TextParam(NAMES),
        "amount": ChoiceParam(AMOUNTS),
        "category": ChoiceParam(tuple(CATEGORIES)),
        "note": TextParam(NOTES),
    },
    build=build_expense,
)
