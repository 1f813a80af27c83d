"""Simple SMS Messenger's data: what it reads from and writes to the telephony provider (content://sms, the one truth
it shares with Messages), its activities and its strings (the app's and Simple-Commons' English and zh-CN ones).

Reading: the conversations are the provider's threads, newest message first, titled with the contact's name when the
number is a contact's (looked up when shown, as the app does through PhoneLookup), else the number; a thread's
messages are its rows, oldest first. Writing, as the app's MessagingUtils does: a message goes in as type 4
(outbox; read, seen, dated now), then the radio's answer marks it sent (2) - or failed (5) with the radio off
(airplane mode); resending a failed message updates that row (outbox again, dated now) instead of adding one. Opening
a thread marks its received messages read.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from typing import Any

from ..clock import zone_named
from ..providers.contacts import matches, name_for
from ..providers.sms import DEVICE_TZ, FAILED, INBOX, OUTBOX, SENT, SmsProvider, message_rows
from ..ui.host import Device
from .common import DEVICE_DATE, DEVICE_HOUR, DEVICE_MINUTE, SMS_MESSENGER_PKG, SMS_MESSENGER_THREAD

PKG = SMS_MESSENGER_PKG
_ACT = PKG + ".activities."
SPLASH = _ACT + "SplashActivity.Orange"  # the launcher's alias (the orange icon, the default one)
MAIN = _ACT + "MainActivity"
THREAD = SMS_MESSENGER_THREAD
NEW = _ACT + "NewConversationActivity"
VERSION_NAME, VERSION_CODE = "5.19.3", 85  # the build AndroidWorld installs (com.simplemobiletools.smsmessenger_85)

STRINGS: dict[str, tuple[str, str]] = {
    "app_launcher_name": ("SMS Messenger", "短信"),
    "type_a_message": ("Type a message…", "输入一则消息…"),
    "message_not_sent_touch_retry": ("Not sent. Touch to retry.", "未发送。 轻触重试。"),
    "attachment": ("Attachment", "附件"),
    "no_conversations_found": ("No stored conversations have been found", "未找到保存的对话"),
    "start_conversation": ("Start a conversation", "开始一个对话"),
    "no_reply_support": ("Sender doesn't support replies", "发信人不支持回复"),
    "draft": ("Draft", "草稿"),
    "sending": ("Sending…", "发送中…"),
    "forward_message": ("Forward", "转发"),
    "new_conversation": ("New conversation", "新的对话"),
    "add_contact_or_number": ("Add Contact or Number…", "添加联系人或者号码…"),
    "suggestions": ("Suggestions", "建议"),
    "error_radio_turned_off": ("Couldn't send message, radio turned off", "无法发送消息，无线电收发器关闭"),
    "delete_whole_conversation_confirmation": (
        "Are you sure you want to delete all messages of this conversation?",
        "您确定要删除此对话的所有消息吗?",
    ),
    "sms": ("SMS", "SMS"),
    # Simple-Commons
    "ok": ("OK", "确认"),
    "back": ("Back", "返回"),
    "search": ("Search", "搜索"),
    "type_2_characters": ("Type in at least 2 characters to start the search.", "请输入至少两个字符来开始搜索。"),
    "no_items_found": ("No items found.", "找不到任何项目。"),
    "no_contacts_found": ("No contacts found", "未发现联系人"),
    "copy_to_clipboard": ("Copy to clipboard", "复制到剪贴板"),
    "value_copied_to_clipboard": ("Value copied to clipboard", "内容已复制到剪贴板"),
    "delete": ("Delete", "删除"),
    "dial_number": ("Dial number", "拨号"),
    "yes": ("Yes", "是"),
    "no": ("No", "否"),
    "done": ("Done", "完成"),  # the action mode's close button (AOSP's action_mode_done)
}


def tr(ctx: Any, key: str) -> str:
    en, zh = STRINGS[key]
    return zh if ctx.zh else en


@dataclass
class Conversation:
    thread_id: int
    address: str
    title: str
    snippet: str
    date: int  # ms, of its newest message
    read: bool


def title_for(model: Device, number: str) -> str:
    """What the app calls a number: its contact's name, else the number."""
    return name_for(model, number) or number


def normalized(number: str) -> str:
    """PhoneNumber.normalizedNumber: the number without spaces, dashes and brackets (a leading + kept)."""
    return "".join(ch for ch in number if ch.isdigit() or ch == "+")


def same_number(a: str, b: str) -> bool:
    return matches(a, b)


def conversations(model: Device) -> list[Conversation]:
    """The provider's threads, the one with the newest message first."""
    out: dict[int, Conversation] = {}
    for r in message_rows(model):  # newest first
        c = out.get(r["thread_id"])
        if c is None:
            address = str(r["address"])
            out[r["thread_id"]] = c = Conversation(
                r["thread_id"], address, title_for(model, address), str(r["body"]), int(r["date"]), True
            )
        if r["type"] == INBOX and not r["read"]:
            c.read = False
    return sorted(out.values(), key=lambda c: -c.date)


def thread_rows(model: Device, thread_id: int | None) -> list[dict[str, Any]]:
    """A thread's messages, oldest first."""
    if thread_id is None:
        return []
    return sorted((r for r in message_rows(model) if r["thread_id"] == thread_id), key=lambda r: (r["date"], r["_id"]))


def thread_for(model: Device, number: str) -> int | None:
    """The thread with `number` (Threads.getOrCreateThreadId's match), or None while it has no messages."""
    return next((r["thread_id"] for r in message_rows(model) if same_number(str(r["address"]), number)), None)


def mark_read(model: Device, thread_id: int) -> None:
    unread = [r["_id"] for r in thread_rows(model, thread_id) if r["type"] == INBOX and not r["read"]]
    for mid in unread:
        SmsProvider().update(model, f"sms/{mid}", {"read": 1, "seen": 1}, lambda r: True)


def delete_thread(model: Device, thread_id: int) -> None:
    SmsProvider().delete(model, "sms", lambda r: r["thread_id"] == thread_id)


def radio_off(model: Device) -> bool:
    return str(model.settings["global"].get("airplane_mode_on", "0")) == "1"


def send(model: Device, number: str, text: str, resend: int | None = None) -> tuple[int, bool]:
    """Send `text` to `number` as the app does (module docstring): (the message's id, whether it went out)."""
    provider = SmsProvider()
    now_ms = int(model.now() * 1000)
    values: dict[str, Any] = {"address": number, "body": text, "read": 1, "seen": 1, "type": OUTBOX}
    mid = resend
    if mid is not None and not provider.update(model, f"sms/{mid}", {**values, "date": now_ms}, lambda r: True):
        mid = None  # the failed message is gone: a new one
    if mid is None:
        mid = int(provider.insert(model, "sms", values).rsplit("/", 1)[1])
    sent = not radio_off(model)
    provider.update(model, f"sms/{mid}", {"type": SENT if sent else FAILED}, lambda r: True)
    model.events.log("sms", action="send", package=PKG, to=number, text=text, sent=sent, resent=resend is not None)
    return mid, sent


# --- dates as the app shows them (Simple-Commons' formatDateOrTime) ---------------------------------------------
def _now(model: Device) -> dt.datetime:
    """The device's now in its zone: its wall clock once the clock was set by hand (`date`, AndroidWorld's set-up),
    else the fixed reproducible moment the status bar shows."""
    if model.clock_set:
        return dt.datetime.fromtimestamp(model.now(), zone_named(model.time_zone))
    return dt.datetime(
        DEVICE_DATE.year, DEVICE_DATE.month, DEVICE_DATE.day, DEVICE_HOUR, DEVICE_MINUTE, tzinfo=DEVICE_TZ
    )


def _time(when: dt.datetime, model: Device) -> str:
    if str(model.settings["system"].get("time_12_24", "12")) == "24":
        return f"{when.hour:02d}:{when.minute:02d}"
    marker = ("上午" if when.hour < 12 else "下午") if model.locale == "zh" else ("AM" if when.hour < 12 else "PM")
    return f"{when.hour % 12 or 12:02d}:{when.minute:02d} {marker}"


def shown_date(model: Device, date_ms: int, with_time: bool = False) -> str:
    """A message's date as the lists show it: the time today, else the day (dd.MM, with the year when not this one)
    and, `with_time`, the time after it. On the fixed clock a message dated after the fixed moment (sent or received
    during the run) shows at that moment, as the status bar does."""
    now = _now(model)
    when = dt.datetime.fromtimestamp(date_ms / 1000, now.tzinfo)
    if not model.clock_set and when > now:
        when = now
    if when.date() == now.date():
        return _time(when, model)
    day = f"{when.day:02d}.{when.month:02d}" + ("" if when.year == now.year else f".{when.year}")
    return f"{day}, {_time(when, model)}" if with_time else day
