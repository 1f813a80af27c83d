"""content://sms (Telephony.Sms) over the Messages app's conversations, so what the app shows and what the
provider answers are one thing, in both directions.

Tables: `sms` (every message), `sms/inbox` (type 1, received), `sms/sent` (type 2), `sms/outbox` (4, being sent),
`sms/failed` (5), `sms/queued` (6), `sms/ID`; columns _id, thread_id, address, person, date, date_sent, read, seen,
status, type, body. A message's `_id` is given once and kept (the seeded messages get theirs in conversation
order); `date` is milliseconds since the epoch: the seeded messages' are on the device's frozen day, a message added
later (sent in an app, received, inserted) gets the device's wall clock (`date +%s`), as SmsProvider stamps it -
or a millisecond after the newest when the clock is behind it; rows come newest first (`date DESC`, SmsProvider's
default order). `insert` into sms/inbox, sent, outbox, failed or queued (address, body; read, date) adds the message
to the conversation with that number (the last ten digits match), or to a new one named as the contact with that
number; `delete` removes messages; `update` changes read / body / type / date (an SMS app marks its outgoing message
sent or failed, and a resent one outgoing again). Drafts (type 3) are not kept.

The incoming SMS is announced by the SMS role's holder (`roles`): Messages, or Simple SMS Messenger once it is the
default SMS app.
"""

from __future__ import annotations

import datetime as dt
import re
from typing import Any

from ..apps.common import (
    DEVICE_DATE,
    DEVICE_HOUR,
    DEVICE_MINUTE,
    MESSAGES_CONVERSATION,
    SMS_MESSENGER_PKG,
    SMS_MESSENGER_THREAD,
    WEEKDAYS_SHORT_EN,
    WEEKDAYS_SHORT_ZH,
    fmt_time,
)
from ..apps.contacts import PKG as CONTACTS_PKG
from ..apps.messages import PKG
from ..notifications import FLAG_AUTO_CANCEL, IMPORTANCE_HIGH, Notification
from ..procs import app_uid
from ..records import INTENT_ACTION, INTENT_DATA
from ..roles import ROLE_SMS, role_holder
from ..ui.host import Device
from .base import ProviderError, Table, UnknownUri, Values, app_data, as_int
from .contacts import name_for
from .where import Predicate

COLUMNS = ["_id", "thread_id", "address", "person", "date", "date_sent", "read", "seen", "status", "type", "body"]
INBOX, SENT, OUTBOX, FAILED, QUEUED = 1, 2, 4, 5, 6  # Telephony.TextBasedSmsColumns.MESSAGE_TYPE_*
_BOXES = {"inbox": INBOX, "sent": SENT, "outbox": OUTBOX, "failed": FAILED, "queued": QUEUED}
OUTGOING = (SENT, OUTBOX, FAILED, QUEUED)
DEVICE_TZ = dt.timezone(dt.timedelta(hours=-7))  # the device's zone (America/Los_Angeles in June)
_NOW_MS = (
    int(
        dt.datetime(
            DEVICE_DATE.year, DEVICE_DATE.month, DEVICE_DATE.day, DEVICE_HOUR, DEVICE_MINUTE, tzinfo=DEVICE_TZ
        ).timestamp()
    )
    * 1000
)


def _digits(s: str) -> str:
    return re.sub(r"\D", "", s)


def _seed_date(shown: str, fallback: int) -> int:
    """The date (ms) of a seeded message from the time the app shows for it ("11:42 AM", "上午11:42": that time on
    the device's day; "Sun", "周日": that day of the week before it, at 10:00), else `fallback`."""
    day = dt.datetime(DEVICE_DATE.year, DEVICE_DATE.month, DEVICE_DATE.day, tzinfo=DEVICE_TZ)
    clock = re.fullmatch(r"(上午|下午)?(\d{1,2}):(\d{2})\s*(AM|PM)?", shown.strip())
    if clock:
        half, hour, minute, ampm = clock.groups()
        pm = half == "下午" or ampm == "PM"
        h = int(hour) % 12 + (12 if pm else 0)
        return int((day + dt.timedelta(hours=h, minutes=int(minute))).timestamp()) * 1000
    for names in (WEEKDAYS_SHORT_EN, WEEKDAYS_SHORT_ZH):
        if shown.strip() in names:
            back = (DEVICE_DATE.weekday() - names.index(shown.strip())) % 7 or 7
            return int((day - dt.timedelta(days=back) + dt.timedelta(hours=10)).timestamp()) * 1000
    return fallback


def _ids(data: dict[str, Any], now_ms: int) -> None:
    """Give every message without one its lasting `_id` (threads by id, messages in order) and `date`: the seeded
    messages at the times the app shows for them (else a minute apart up to the device's time), each later one
    (sent in an app, inserted) the device's time (`_next_date`), so `date DESC` puts the newest first."""
    first = "next_sms_id" not in data
    nxt = int(data.get("next_sms_id", 1))
    for t in sorted(data.get("threads", []), key=lambda t: t["id"]):
        n = len(t["messages"])
        for i, m in enumerate(t["messages"]):
            if "_id" not in m:
                m["_id"] = nxt
                nxt += 1
            if "date" not in m:
                fallback = _NOW_MS - (n - i) * 60_000
                m["date"] = _seed_date(str(m.get("time") or ""), fallback) if first else _next_date(data, now_ms)
    data["next_sms_id"] = nxt


def _next_date(data: dict[str, Any], now_ms: int) -> int:
    """The date of a message added now: the device's wall clock, or a millisecond after the newest message when
    that is later (so `date DESC` puts it first)."""
    newest = max((int(m.get("date") or 0) for t in data.get("threads", []) for m in t["messages"]), default=0)
    return max(now_ms, newest + 1)


def message_type(m: dict[str, Any]) -> int:
    """A stored message's type (Telephony's MESSAGE_TYPE_*)."""
    return int(m.get("type") or (SENT if m.get("me") else INBOX))


def message_rows(model: Device) -> list[dict[str, Any]]:
    data = app_data(model, PKG)
    _ids(data, _now_ms(model))
    rows = []
    for t in data.get("threads", []):
        n = len(t["messages"])
        for i, m in enumerate(t["messages"]):
            kind = message_type(m)
            if kind != INBOX or not t.get("unread"):
                read = 1
            else:  # an unread conversation: its last message, or those stored unread
                read = int(m["read"]) if "read" in m else (0 if i == n - 1 else 1)
            date = int(m["date"])
            rows.append(
                {
                    "_id": m["_id"],
                    "thread_id": t["id"],
                    "address": t["phone"],
                    "person": None,
                    "date": date,
                    "date_sent": date if kind == INBOX else 0,
                    "read": read,
                    "seen": 1,
                    "status": -1,
                    "type": kind,
                    "body": m["text"],
                }
            )
    return sorted(rows, key=lambda r: (-r["date"], -r["_id"]))  # Telephony.Sms.DEFAULT_SORT_ORDER "date DESC"


def _now_ms(model: Device) -> int:
    return int(model.now() * 1000)


def _box(path: str) -> tuple[int | None, int | None]:
    """(type filter, message id) of a path."""
    parts = path.split("/")
    if parts[0] != "sms" or len(parts) > 3:
        raise UnknownUri(path)
    rest = parts[1:]
    kind = _BOXES.get(rest[0]) if rest else None
    if rest and kind is None and not rest[0].isdigit():
        raise UnknownUri(path)
    ident = rest[-1] if rest and rest[-1].isdigit() else None
    if len(rest) == 2 and (kind is None or ident is None):
        raise UnknownUri(path)
    return kind, int(ident) if ident else None


class SmsProvider:
    authorities: tuple[str, ...] = ("sms",)

    def query(self, model: Device, path: str) -> Table:
        kind, ident = _box(path)
        rows = [
            r
            for r in message_rows(model)
            if (kind is None or r["type"] == kind) and (ident is None or r["_id"] == ident)
        ]
        return Table(list(COLUMNS), rows)

    def insert(self, model: Device, path: str, values: Values) -> str:
        kind, ident = _box(path)
        kind = kind or as_int(values, "type", INBOX)
        if ident is not None or kind not in (INBOX, *OUTGOING):
            raise ProviderError(f"cannot insert into {path} with type {kind}")
        address, body = str(values.get("address") or ""), str(values.get("body") or "")
        if not _digits(address):
            raise ProviderError("address is required")
        with model.lock:
            data = app_data(model, PKG)
            now_ms = _now_ms(model)
            _ids(data, now_ms)
            threads = data.setdefault("threads", [])
            t = next((t for t in threads if _digits(t["phone"])[-10:] == _digits(address)[-10:]), None)
            if t is None:
                people = app_data(model, CONTACTS_PKG).get("contacts", [])
                who = next(
                    (c for c in people if c.get("phone") and _digits(c["phone"])[-10:] == _digits(address)[-10:]), None
                )
                tid = int(data.get("next_id", 1))
                data["next_id"] = tid + 1
                t = {
                    "id": tid,
                    "name": who["name"] if who else address,
                    "phone": address,
                    "unread": False,
                    "messages": [],
                }
            else:
                threads.remove(t)
            threads.insert(0, t)
            mid = int(data.get("next_sms_id", 1))
            data["next_sms_id"] = mid + 1
            read = as_int(values, "read", 0 if kind == INBOX else 1)
            date = as_int(values, "date") or _next_date(data, now_ms)
            m = {
                "_id": mid,
                "date": date,
                "me": kind != INBOX,
                "text": body,
                "read": read,
                "time": fmt_time(DEVICE_HOUR, DEVICE_MINUTE, model.locale == "zh"),
            }
            if kind not in (INBOX, SENT):
                m["type"] = kind
            t["messages"].append(m)
            if kind == INBOX and not read:
                t["unread"] = True
        model.events.log("sms", action="insert", box=kind, to=address, text=body)
        return f"content://sms/{mid}"

    def update(self, model: Device, path: str, values: Values, where: Predicate) -> int:
        kind = as_int(values, "type")
        if kind is not None and kind not in (INBOX, *OUTGOING):
            raise ProviderError(f"cannot keep a message of type {kind}")
        hits = {r["_id"] for r in self.query(model, path).rows if where(r)}
        with model.lock:
            for t in app_data(model, PKG).get("threads", []):
                for m in t["messages"]:
                    if m.get("_id") in hits:
                        if "body" in values:
                            m["text"] = str(values["body"] or "")
                        if "read" in values:
                            m["read"] = as_int(values, "read")
                        if "date" in values:
                            m["date"] = as_int(values, "date") or 0
                        if kind is not None:
                            m["me"] = kind != INBOX
                            m.pop("type", None)
                            if kind not in (INBOX, SENT):
                                m["type"] = kind
                if hits and all(m.get("read", 1) for m in t["messages"] if not m.get("me")):
                    t["unread"] = False
        if hits:
            model.events.log("sms", action="update", rows=len(hits), **{k: values[k] for k in ("type",) if k in values})
        return len(hits)

    def clear(self, model: Device) -> None:
        """The telephony provider's data cleared (`pm clear com.android.providers.telephony`): no messages left, in
        the provider and in the Messages app (not seeded again)."""
        with model.lock:
            app_data(model, PKG)["threads"] = []
        model.events.log("sms", action="clear")

    def delete(self, model: Device, path: str, where: Predicate) -> int:
        hits = {r["_id"] for r in self.query(model, path).rows if where(r)}
        with model.lock:
            data = app_data(model, PKG)
            for t in data.get("threads", []):
                t["messages"] = [m for m in t["messages"] if m.get("_id") not in hits]
            data["threads"] = [t for t in data.get("threads", []) if t["messages"]]
        model.events.log("sms", action="delete", rows=len(hits))
        return len(hits)


def receive(model: Device, address: str, body: str) -> None:
    """An SMS arrives from `address` (the radio hands it to the default SMS app's SmsReceiver): a new unread row of
    content://sms/inbox, which the SMS apps list, and the default SMS app's notification of it (title the sender's
    contact name, else the number; text the body; a tap opens the conversation) - what the console's `sms send` and
    the gRPC door's `sendSms` both do."""
    SmsProvider().insert(model, "sms/inbox", {"address": address, "body": body, "read": 0})
    model.log("I", "SmsReceiver", f"Received SMS from {address}", buffer="radio")
    with model.lock:
        thread = next(
            (t for t in app_data(model, PKG).get("threads", []) if _digits(t["phone"])[-10:] == _digits(address)[-10:]),
            None,
        )
        if thread is None:
            return
        holder = role_holder(model, ROLE_SMS)
        if holder == SMS_MESSENGER_PKG and holder in model.packages:
            # Simple SMS Messenger's NotificationHelper: channel "simple_sms_messenger", id the thread's, the sender
            # as the title, a tap opens ThreadActivity with the thread's id
            package, title, channel = holder, name_for(model, address) or address, "simple_sms_messenger"
            intent = {"package": holder, "activity": SMS_MESSENGER_THREAD, "extras": {"thread_id": thread["id"]}}
        else:
            package, title, channel = PKG, str(thread["name"]), "incoming_messages"
            intent = {
                "package": PKG,
                "activity": MESSAGES_CONVERSATION,
                "extras": {INTENT_ACTION: "android.intent.action.VIEW", INTENT_DATA: f"sms:{thread['phone']}"},
            }
        n = Notification(
            package=package,
            id=int(thread["id"]),
            tag=None,
            uid=app_uid(package),
            title=title,
            text=body,
            channel=channel,
            post_time_ms=_now_ms(model),
            flags=FLAG_AUTO_CANCEL,
            importance=IMPORTANCE_HIGH,
            category="msg",
            intent=intent,
        )
        model.notifications.post(n)
        model.events.log("notification", action="post", package=n.package, title=title)
