"""content://sms (Telephony.Sms) over the Messages app's conversations, so what the app shows and what the
provider answers are one thing, in both directions.

Tables: `sms` (every message), `sms/inbox` (type 1, received), `sms/sent` (type 2), `sms/ID`; columns _id,
thread_id, address, person, date, date_sent, read, seen, status, type, body. A message's `_id` is given once
and kept (the seeded messages get theirs in conversation order); `date` is milliseconds since the epoch on the
device's frozen clock; rows come newest first (`date DESC`, SmsProvider's default order). `insert` into
sms/inbox or sms/sent (address, body; read) adds the message to the conversation with that number (the last ten
digits match), or to a new one named as the contact with that number; `delete` removes messages; `update`
changes read / body.
"""

from __future__ import annotations

import datetime as dt
import re
from typing import Any

from ..apps.common import DEVICE_DATE, DEVICE_HOUR, DEVICE_MINUTE, MESSAGES_CONVERSATION, fmt_time
from ..apps.contacts import PKG as CONTACTS_PKG
from ..apps.messages import PKG
from ..notifications import FLAG_AUTO_CANCEL, IMPORTANCE_HIGH, Notification
from ..procs import app_uid
from ..records import INTENT_ACTION, INTENT_DATA
from .base import ProviderError, Table, UnknownUri, Values, app_data, as_int
from .where import Predicate

COLUMNS = ["_id", "thread_id", "address", "person", "date", "date_sent", "read", "seen", "status", "type", "body"]
INBOX, SENT = 1, 2
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


def _ids(data: dict[str, Any]) -> None:
    """Give every message without one its lasting `_id` (threads by id, messages in order) and `date`: the seeded
    messages a minute apart up to the device's time, each later one (sent in the app, inserted) a minute after
    the newest, so `date DESC` puts the newest first."""
    first = "next_sms_id" not in data
    nxt = int(data.get("next_sms_id", 1))
    for t in sorted(data.get("threads", []), key=lambda t: t["id"]):
        n = len(t["messages"])
        for i, m in enumerate(t["messages"]):
            if "_id" not in m:
                m["_id"] = nxt
                nxt += 1
            if "date" not in m:
                m["date"] = _NOW_MS - (n - i) * 60_000 if first else _next_date(data)
    data["next_sms_id"] = nxt


def _next_date(data: dict[str, Any]) -> int:
    """The date of a message added now: a minute after the newest one."""
    newest = max((int(m.get("date") or 0) for t in data.get("threads", []) for m in t["messages"]), default=0)
    return max(newest, _NOW_MS) + 60_000


def message_rows(model: Any) -> list[dict[str, Any]]:
    data = app_data(model, PKG)
    _ids(data)
    rows = []
    for t in data.get("threads", []):
        n = len(t["messages"])
        for i, m in enumerate(t["messages"]):
            kind = SENT if m.get("me") else INBOX
            if kind == SENT or not t.get("unread"):
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


def _box(path: str) -> tuple[int | None, int | None]:
    """(type filter, message id) of a path."""
    parts = path.split("/")
    if parts[0] != "sms" or len(parts) > 3:
        raise UnknownUri(path)
    rest = parts[1:]
    kind = {"inbox": INBOX, "sent": SENT}.get(rest[0]) if rest else None
    if rest and kind is None and not rest[0].isdigit():
        raise UnknownUri(path)
    ident = rest[-1] if rest and rest[-1].isdigit() else None
    if len(rest) == 2 and (kind is None or ident is None):
        raise UnknownUri(path)
    return kind, int(ident) if ident else None


class SmsProvider:
    authorities: tuple[str, ...] = ("sms",)

    def query(self, model: Any, path: str) -> Table:
        kind, ident = _box(path)
        rows = [
            r
            for r in message_rows(model)
            if (kind is None or r["type"] == kind) and (ident is None or r["_id"] == ident)
        ]
        return Table(list(COLUMNS), rows)

    def insert(self, model: Any, path: str, values: Values) -> str:
        kind, ident = _box(path)
        kind = kind or as_int(values, "type", INBOX)
        if ident is not None or kind not in (INBOX, SENT):
            raise ProviderError(f"cannot insert into {path} with type {kind}")
        address, body = str(values.get("address") or ""), str(values.get("body") or "")
        if not _digits(address):
            raise ProviderError("address is required")
        with model.lock:
            data = app_data(model, PKG)
            _ids(data)
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
            read = as_int(values, "read", 1 if kind == SENT else 0)
            t["messages"].append(
                {
                    "_id": mid,
                    "date": _next_date(data),
                    "me": kind == SENT,
                    "text": body,
                    "read": read,
                    "time": fmt_time(DEVICE_HOUR, DEVICE_MINUTE, model.locale == "zh"),
                }
            )
            if kind == INBOX and not read:
                t["unread"] = True
        model.events.log("sms", action="insert", box=kind, to=address, text=body)
        return f"content://sms/{mid}"

    def update(self, model: Any, path: str, values: Values, where: Predicate) -> int:
        hits = {r["_id"] for r in self.query(model, path).rows if where(r)}
        with model.lock:
            for t in app_data(model, PKG).get("threads", []):
                for m in t["messages"]:
                    if m.get("_id") in hits:
                        if "body" in values:
                            m["text"] = str(values["body"] or "")
                        if "read" in values:
                            m["read"] = as_int(values, "read")
                if hits and all(m.get("read", 1) for m in t["messages"] if not m.get("me")):
                    t["unread"] = False
        return len(hits)

    def clear(self, model: Any) -> None:
        """The telephony provider's data cleared (`pm clear com.android.providers.telephony`): no messages left, in
        the provider and in the Messages app (not seeded again)."""
        with model.lock:
            app_data(model, PKG)["threads"] = []
        model.events.log("sms", action="clear")

    def delete(self, model: Any, path: str, where: Predicate) -> int:
        hits = {r["_id"] for r in self.query(model, path).rows if where(r)}
        with model.lock:
            data = app_data(model, PKG)
            for t in data.get("threads", []):
                t["messages"] = [m for m in t["messages"] if m.get("_id") not in hits]
            data["threads"] = [t for t in data.get("threads", []) if t["messages"]]
        model.events.log("sms", action="delete", rows=len(hits))
        return len(hits)


def receive(model: Any, address: str, body: str) -> None:
    """An SMS arrives from `address` (the radio hands it to the SmsReceiver): a new unread row of
    content://sms/inbox, which the Messages app lists, and Messages' notification of it (title the sender's contact
    name, else the number; text the body; a tap opens the conversation) - what the console's `sms send` and the
    gRPC door's `sendSms` both do."""
    SmsProvider().insert(model, "sms/inbox", {"address": address, "body": body, "read": 0})
    model.log("I", "SmsReceiver", f"Received SMS from {address}", buffer="radio")
    with model.lock:
        thread = next(
            (t for t in app_data(model, PKG).get("threads", []) if _digits(t["phone"])[-10:] == _digits(address)[-10:]),
            None,
        )
        if thread is None:
            return
        model.notifications.post(
            Notification(
                package=PKG,
                id=int(thread["id"]),
                tag=None,
                uid=app_uid(PKG),
                title=str(thread["name"]),
                text=body,
                channel="incoming_messages",
                post_time_ms=int(model.now() * 1000),
                flags=FLAG_AUTO_CANCEL,
                importance=IMPORTANCE_HIGH,
                category="msg",
                intent={
                    "package": PKG,
                    "activity": MESSAGES_CONVERSATION,
                    "extras": {INTENT_ACTION: "android.intent.action.VIEW", INTENT_DATA: f"sms:{thread['phone']}"},
                },
            )
        )
        model.events.log("notification", action="post", package=PKG, title=thread["name"])
