"""Pro Expense's data: its Room database (`accounting.db`, schema version 6, as the build AndroidWorld installs
creates it), its preferences file (the default SharedPreferences), the categories, the strings of its two string
tables the twin carries (English, and Chinese: `values-cn`) and how it formats amounts and dates.

- `expense`: one row an expense (`expense_id` AUTOINCREMENT, `name`, `amount` in hundredths of the currency unit
  - the app stores the typed amount times 100 -, `category` (1 Others, 2 Income, 3 Food, ... 11 Donation),
  `note`, `created_date` / `modified_date` in epoch milliseconds); the lists sort by `modified_date`, newest
  first. `backup` is the app's backup log (empty here). Room's `room_master_table` (the schema's identity hash)
  and the framework's `android_metadata` are there as on the phone.
- Preferences (`shared_prefs/com.arduia.expense_preferences.xml`): `isFirstTime` (the onboarding until it is
  false), `selected_language` ("en", "cn" or "my": the app shows its own language, not the system's),
  `selected_currency_number` ("840", USD, by default).
- Amounts show as `DecimalFormat` (English) does them: grouped thousands, at most two decimals ("1,234.5").
  Dates as the app's ExpenseRecentDateFormatter: "Today 5:00 PM", "Yesterday 5:00 PM" (same month only), "Dec 31"
  (this year, another month) and "2023 Oct 9" (otherwise, this month's other days included, as the app does).
"""

from __future__ import annotations

import datetime as dt
import re
from dataclasses import dataclass
from decimal import ROUND_HALF_EVEN, Decimal, InvalidOperation
from typing import Any

from ..appstorage import AppDatabase, SharedPrefs
from ..clock import zone_named
from ..fs import FileSystem
from ..providers.sms import DEVICE_TZ
from ..ui.host import Device
from .common import DEVICE_DATE, DEVICE_HOUR, DEVICE_MINUTE

PKG = "com.arduia.expense"
MAIN = f"{PKG}.ui.MainActivity"
VERSION_NAME, VERSION_CODE = "1.0.0-beta05", 11  # com.arduia.expense_11.apk
RID = f"{PKG}:id/"

IDENTITY_HASH = "27085a6798a70569f4984067458b86b2"  # Room's hash of the version 6 schema
DDL = f"""
CREATE TABLE android_metadata (locale TEXT);
INSERT INTO android_metadata VALUES ('en_US');
CREATE TABLE IF NOT EXISTS `expense` (`expense_id` INTEGER PRIMARY KEY AUTOINCREMENT NOT NULL, `name` TEXT,
 `amount` INTEGER NOT NULL, `category` INTEGER NOT NULL, `note` TEXT, `created_date` INTEGER NOT NULL,
 `modified_date` INTEGER NOT NULL);
CREATE TABLE IF NOT EXISTS `backup` (`backup_id` INTEGER PRIMARY KEY AUTOINCREMENT NOT NULL, `name` TEXT NOT NULL,
 `path` TEXT NOT NULL, `created_date` INTEGER NOT NULL, `item_total` INTEGER NOT NULL, `worker_id` TEXT NOT NULL,
 `is_completed` INTEGER NOT NULL);
CREATE TABLE IF NOT EXISTS room_master_table (id INTEGER PRIMARY KEY,identity_hash TEXT);
INSERT OR REPLACE INTO room_master_table (id,identity_hash) VALUES(42, '{IDENTITY_HASH}');
"""
DB = AppDatabase(PKG, "accounting.db", DDL, 6)

# ExpenseCategory ids, in the order the entry's category list (ExpenseCategoryProviderImpl) shows them
CATEGORY_ORDER = (2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 1)
CATEGORY_KEYS = {
    1: "others",
    2: "income",
    3: "food",
    4: "housing",
    5: "social",
    6: "entertainment",
    7: "transportation",
    8: "clothes",
    9: "health_care",
    10: "education",
    11: "donation",
}
INCOME, FOOD = 2, 3
# the glyphs of the device's renderer standing in for the app's category drawables
CATEGORY_ICONS = {1: "more", 2: "add", 3: "cart", 4: "home", 5: "person", 6: "play"}
CATEGORY_ICONS.update({7: "location", 8: "star", 9: "bell", 10: "info", 11: "mail"})

LANGUAGES = (("my", "Myanmar(Burma)"), ("en", "United States(English)"), ("cn", "China (Chinese)"))


@dataclass(frozen=True)
class Currency:
    name: str
    code: str
    symbol: str
    number: str


# the first of the 151 in the app's assets/currencies.json, in its rank order
CURRENCIES = tuple(
    Currency(*c)
    for c in (
        ("United State Dollar", "USD", "$", "840"),
        ("Euro", "EUR", "€", "978"),
        ("United Kingdom Pound", "GBP", "£", "826"),
        ("India Rupees", "INR", "INR", "356"),
        ("Australia Dollar", "AUD", "AUD", "036"),
        ("Canada Dollar", "CAD", "CAD", "124"),
        ("South Africa Rand", "ZAR", "R", "710"),
        ("New Zealand Dollar", "NZD", "NZD", "554"),
        ("Japan Yen", "JPY", "¥", "392"),
        ("Singapore Dollar", "SGD", "SGD", "702"),
        ("China Yuan Renminbi", "CNY", "¥", "156"),
        ("Switzerland Francs", "CHF", "CHF", "756"),
        ("Malaysia Ringgits", "MYR", "RM", "458"),
        ("Hong Kong Dollar", "HKD", "HKD", "344"),
        ("Myanmar (Burma) Kyats", "MMK", "MMK", "104"),
    )
)

STRINGS: dict[str, tuple[str, str]] = {
    "app_name": ("Pro Expense", "Pro Expense"),
    "home": ("Home", "主页"),
    "expense_logs": ("Expense Logs", "开支记录"),
    "statistics": ("Statistics", "统计数据"),
    "backup": ("Backup", "备份"),
    "feedback": ("Feedback", "反馈"),
    "about": ("About", "关于"),
    "settings": ("Settings", "设置"),
    "beta": ("beta", "测试"),
    "next": ("Next", "下一步"),
    "continue_home": ("Continue", "继续"),
    "app_welcome": ("Hello! Welcome to Pro Expense", "你好！欢迎来到 Pro Expense"),
    "choose_language": ("Choose Language", "选择语言:"),
    "choose_currency": ("Choose Currency", "选择币种："),
    "search": ("Search", "搜索"),
    "no_item": ("No Items", "无项目"),
    "totals": ("Totals", "总数"),
    "income": ("Income", "收入"),
    "outcome": ("Outcome", "结果"),
    "expenses_in_this_week": ("Expenses in this Week", "本周开支"),
    "recent": ("Recent", "最近"),
    "more": ("More", "更多"),
    "expense_entry": ("Expense Entry", "开支项"),
    "update_data": ("Update Data", "更新数据"),
    "name": ("Name", "名称"),
    "amount": ("Amount", "数额"),
    "note": ("Note", "附注"),
    "date": ("Date", "日期"),
    "save": ("Save", "保存"),
    "update": ("Update", "更新"),
    "empty_cost": ("Cost is Empty", "费用为空"),
    "data_updated": ("Data Updated!", "数据已更新！"),
    "item_deleted": ("Item Deleted", "项目被删除"),
    "expnese_detail": ("Expense Detail", "开支详情"),
    "edit": ("Edit", "编辑"),
    "delete": ("Delete", "删除"),
    "delete_items": ("Delete Items", "删除多个项目"),
    "will_be_deleted": ("will be deleted!", "这些项目将被删除！"),
    "single_item_suffix": ("item", "项目"),  # " item" in the XML: aapt trims the space
    "multi_item_suffix": ("items", "多个项目"),
    "confirm": ("Confirm", "确认"),
    "filter": ("Filter", "过滤器"),
    "order_date_in": ("Order by Date in", "日期排序方法"),
    "from": ("From", "从"),
    "to": ("To", "到"),
    "asc": ("Asc", "升序"),
    "desc": ("Desc", "降序"),
    "apply_filter": ("Apply Filter", "应用过滤器"),
    "today": ("Today", "今天"),
    "yesterday": ("Yesterday", "昨天"),
    "others": ("Others", "其他"),
    "food": ("Food", "食品"),
    "housing": ("Housing", "家用"),
    "social": ("Social", "社交"),
    "entertainment": ("Entertainment", "娱乐"),
    "transportation": ("Transportation", "交通"),
    "clothes": ("Clothes", "服饰"),
    "health_care": ("Health Care", "医疗保健"),
    "education": ("Education", "教育"),
    "donation": ("Donation", "捐赠"),
    # written in the app's code or layouts, not its string tables: the same in every language
    "saved": ("Saved!", "Saved!"),
    "no_expense_logs": ("No Expense Logs", "No Expense Logs"),
    "swipe_delete": ("Delete", "Delete"),
}


# --- preferences ---------------------------------------------------------------------------------------------
PREFS = SharedPrefs(PKG)


def write_prefs(fs: FileSystem, **values: bool | str | int) -> None:
    for key, value in values.items():
        PREFS.put(fs, key, value)


def first_time(fs: FileSystem) -> bool:
    return PREFS.read(fs).get("isFirstTime", True) is not False


def language(fs: FileSystem) -> str:
    return str(PREFS.read(fs).get("selected_language", "en"))


def currency(fs: FileSystem) -> Currency:
    number = str(PREFS.read(fs).get("selected_currency_number", "840"))
    return next((c for c in CURRENCIES if c.number == number), CURRENCIES[0])


def tr(ctx: Any, key: str) -> str:
    """A string in the app's own language (its preference; Myanmar is shown in English here)."""
    en, cn = STRINGS[key]
    return cn if language(ctx.model.fs) == "cn" else en


def category_name(ctx: Any, category: int) -> str:
    return tr(ctx, CATEGORY_KEYS.get(category, "others"))


# --- amounts ---------------------------------------------------------------------------------------------------
AMOUNT_PATTERN = re.compile(r"[+-]?([0-9]{0,8}([.][0-9]{0,2})?|[.][0-9]{0,2})")  # FloatingInputFilter


def shown_amount(store: int) -> str:
    """A stored amount (hundredths) as the app shows it: DecimalFormat, English, at most two decimals."""
    value = (Decimal(int(store)) / 100).quantize(Decimal("0.01"), ROUND_HALF_EVEN)
    text = f"{abs(value):,.2f}".rstrip("0").rstrip(".")
    return ("-" if value < 0 else "") + text


def stored_amount(text: str) -> int | None:
    """A typed amount as the app stores it (times 100), or None when it is no number."""
    try:
        return int(Decimal(text.strip()) * 100)
    except (InvalidOperation, ValueError):
        return None


# --- dates -----------------------------------------------------------------------------------------------------
def now(model: Device) -> dt.datetime:
    """The device's now in its zone: its wall clock once the clock was set (`date`, AndroidWorld's set-up), else the
    fixed moment the status bar shows."""
    if not model.clock_set:
        return dt.datetime(
            DEVICE_DATE.year, DEVICE_DATE.month, DEVICE_DATE.day, DEVICE_HOUR, DEVICE_MINUTE, tzinfo=DEVICE_TZ
        )
    return dt.datetime.fromtimestamp(model.now(), zone_named(model.time_zone))


def now_ms(model: Device) -> int:
    """What the app stores as now (System.currentTimeMillis): the device's wall clock, as `date` reads it."""
    return int(model.now() * 1000)


def shown_moment(model: Device, ms: int) -> dt.datetime:
    """A stored moment in the device's zone; on the fixed clock one after the fixed moment (stored during the run)
    shows at that moment, as the status bar does."""
    today = now(model)
    when = dt.datetime.fromtimestamp(ms / 1000, today.tzinfo)
    return today if not model.clock_set and when > today else when


def _time(when: dt.datetime) -> str:
    return f"{when.hour % 12 or 12}:{when.minute:02d} {'AM' if when.hour < 12 else 'PM'}"


def shown_date(ctx: Any, ms: int) -> str:
    """ExpenseRecentDateFormatter (English month names whatever the language)."""
    today = now(ctx.model)
    when = shown_moment(ctx.model, ms)
    same_month = (when.year, when.month) == (today.year, today.month)
    if same_month and when.day == today.day:
        return f"{tr(ctx, 'today')} {_time(when)}"
    if same_month and when.day == today.day - 1:
        return f"{tr(ctx, 'yesterday')} {_time(when)}"
    if when.year == today.year and when.month != today.month:
        return when.strftime("%b ") + str(when.day)
    return f"{when.year} {when.strftime('%b')} {when.day}"


def week_start(model: Device) -> dt.datetime:
    """The start of this week (Sunday 00:00), as the home screen's totals take it."""
    today = now(model)
    back = (today.weekday() + 1) % 7
    return (today - dt.timedelta(days=back)).replace(hour=0, minute=0, second=0, microsecond=0)


def week_range(model: Device) -> str:
    """MonthDateRangeFormatter over this week, upper-cased as the card shows it ("OCT 15 - 21")."""
    start = week_start(model)
    end = start + dt.timedelta(days=6)
    tail = str(end.day) if end.month == start.month else end.strftime("%b ") + str(end.day)
    return f"{start.strftime('%b')} {start.day} - {tail}".upper()


def range_text(start_ms: int, end_ms: int, zone: dt.tzinfo | None) -> str:
    """StatisticDateRangeFormatter: "2023 Oct 1 - 15", "2023 Nov 1 - Dec 4", "2019 Dec 2 - 2020 Dec 1"."""
    a = dt.datetime.fromtimestamp(start_ms / 1000, zone)
    b = dt.datetime.fromtimestamp(end_ms / 1000, zone)
    first = f"{a.year} {a.strftime('%b')} {a.day}"
    if a.year != b.year:
        return f"{first} - {b.year} {b.strftime('%b')} {b.day}"
    if a.month != b.month:
        return f"{first} - {b.strftime('%b')} {b.day}"
    return first if a.day == b.day else f"{first} - {b.day}"


# --- rows ------------------------------------------------------------------------------------------------------
def expenses(fs: FileSystem, ascending: bool = False, limit: int | None = None) -> list[dict[str, Any]]:
    """The expense rows, by modified_date (newest first unless `ascending`)."""
    sql = f"SELECT * FROM `expense` ORDER BY modified_date {'ASC' if ascending else 'DESC'}"
    return DB.rows(fs, sql + (f" LIMIT {int(limit)}" if limit else ""))


def expense(fs: FileSystem, expense_id: Any) -> dict[str, Any] | None:
    rows = DB.rows(fs, "SELECT * FROM `expense` WHERE expense_id = ?", (expense_id,))
    return rows[0] if rows else None


def delete_expenses(fs: FileSystem, ids: list[int]) -> None:
    with DB.change(fs) as conn:
        conn.executemany("DELETE FROM `expense` WHERE expense_id = ?", [(i,) for i in ids])
