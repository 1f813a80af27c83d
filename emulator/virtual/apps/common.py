"""Shared constants of the built-in apps: the fixed device date/time and locale-aware formatting, and the
activities one app opens in another.

The virtual device's clock is frozen (status bar 12:00, Monday 3 June 2024) so every screenshot and every
screen question has one right answer.
"""

from __future__ import annotations

import datetime as _dt

DEVICE_DATE = _dt.date(2024, 6, 3)  # a Monday
DEVICE_HOUR, DEVICE_MINUTE = 12, 0

# Messages' conversation screen, which Contacts' "Text" opens (an app starts another by its address, not its code)
MESSAGES_PKG = "com.google.android.apps.messaging"
MESSAGES_CONVERSATION = "com.google.android.apps.messaging.ui.conversation.ConversationActivity"
# Simple SMS Messenger's conversation, which its notification of an SMS opens (the telephony provider posts it when
# the app holds the SMS role)
SMS_MESSENGER_PKG = "com.simplemobiletools.smsmessenger"
SMS_MESSENGER_THREAD = "com.simplemobiletools.smsmessenger.activities.ThreadActivity"

WEEKDAYS_EN = ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"]
WEEKDAYS_ZH = ["星期一", "星期二", "星期三", "星期四", "星期五", "星期六", "星期日"]
WEEKDAYS_SHORT_EN = ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"]
WEEKDAYS_SHORT_ZH = ["周一", "周二", "周三", "周四", "周五", "周六", "周日"]
MONTHS_EN = [
    "January",
    "February",
    "March",
    "April",
    "May",
    "June",
    "July",
    "August",
    "September",
    "October",
    "November",
    "December",
]


def fmt_time(hour: int, minute: int, zh: bool) -> str:
    """12-hour clock: "7:05 AM" / "上午7:05"."""
    h12 = hour % 12 or 12
    if zh:
        return f"{'上午' if hour < 12 else '下午'}{h12}:{minute:02d}"
    return f"{h12}:{minute:02d} {'AM' if hour < 12 else 'PM'}"


def fmt_date_long(d: _dt.date, zh: bool) -> str:
    if zh:
        return f"{d.month}月{d.day}日{WEEKDAYS_ZH[d.weekday()]}"
    return f"{WEEKDAYS_EN[d.weekday()]}, {MONTHS_EN[d.month - 1][:3]} {d.day}"


def weekday(d: _dt.date, zh: bool, short: bool = True) -> str:
    if zh:
        return (WEEKDAYS_SHORT_ZH if short else WEEKDAYS_ZH)[d.weekday()]
    return (WEEKDAYS_SHORT_EN if short else WEEKDAYS_EN)[d.weekday()]


def avatar_color(name: str) -> tuple[int, int, int]:
    palette = [
        (219, 68, 55),
        (15, 157, 88),
        (66, 133, 244),
        (171, 71, 188),
        (255, 112, 67),
        (0, 150, 136),
        (121, 85, 72),
        (63, 81, 181),
        (233, 30, 99),
        (124, 179, 66),
    ]
    return palette[sum(ord(c) for c in name) % len(palette)]
