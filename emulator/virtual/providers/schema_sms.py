"""The telephony provider's `mmssms.db` as AOSP's MmsSmsDatabaseHelper keeps it (the tables and columns clients
read): `sms` (one row per message: _id, thread_id, address, person, date, date_sent, protocol, read, status, type,
subject, body, service_center, locked, sub_id, error_code, creator, seen), `threads` (one per conversation:
date of its newest message, message_count, recipient_ids into `canonical_addresses`, snippet, read) and
`canonical_addresses`, at /data/data/com.android.providers.telephony/databases/mmssms.db.

The rows are the Messages app's conversations (what content://sms serves); a file taken in becomes its
conversations: messages grouped by thread_id, a thread's number its canonical address (or its messages'
address), a new thread named as the contact with that number."""

from __future__ import annotations

import datetime as dt
import re
import sqlite3
from typing import Any

from ..apps.common import fmt_time
from ..apps.contacts import PKG as CONTACTS_PKG
from ..apps.messages import PKG
from ..ui.host import Device
from .base import app_data
from .sms import DEVICE_TZ, INBOX, OUTGOING, SENT, message_rows
from .store import Rows, Schema, query

PATH = "/data/data/com.android.providers.telephony/databases/mmssms.db"

DDL = """
CREATE TABLE android_metadata (locale TEXT);
CREATE TABLE sms (_id INTEGER PRIMARY KEY, thread_id INTEGER, address TEXT, person INTEGER, date INTEGER,
 date_sent INTEGER DEFAULT 0, protocol INTEGER, read INTEGER DEFAULT 0, status INTEGER DEFAULT -1, type INTEGER,
 reply_path_present INTEGER, subject TEXT, body TEXT, service_center TEXT, locked INTEGER DEFAULT 0,
 sub_id INTEGER DEFAULT -1, error_code INTEGER DEFAULT -1, creator TEXT, seen INTEGER DEFAULT 0);
CREATE TABLE threads (_id INTEGER PRIMARY KEY AUTOINCREMENT, date INTEGER DEFAULT 0, message_count INTEGER
 DEFAULT 0, recipient_ids TEXT, snippet TEXT, snippet_cs INTEGER DEFAULT 0, read INTEGER DEFAULT 1,
 archived INTEGER DEFAULT 0, type INTEGER DEFAULT 0, error INTEGER DEFAULT 0, has_attachment INTEGER DEFAULT 0);
CREATE TABLE canonical_addresses (_id INTEGER PRIMARY KEY AUTOINCREMENT, address TEXT);
"""
_SMS_COLUMNS = ("_id", "thread_id", "address", "person", "date", "date_sent", "read", "seen", "status", "type", "body")


def _digits(s: str) -> str:
    return re.sub(r"\D", "", s)


def dump(model: Device) -> Rows:
    rows = message_rows(model)  # newest first
    sms = [{k: r[k] for k in _SMS_COLUMNS} for r in sorted(rows, key=lambda r: r["_id"])]
    threads, addresses = [], []
    for t in sorted(app_data(model, PKG).get("threads", []), key=lambda t: t["id"]):
        mine = [r for r in rows if r["thread_id"] == t["id"]]
        addresses.append({"_id": t["id"], "address": t["phone"]})
        threads.append(
            {
                "_id": t["id"],
                "date": mine[0]["date"] if mine else 0,
                "message_count": len(mine),
                "recipient_ids": str(t["id"]),
                "snippet": mine[0]["body"] if mine else None,
                "read": 0 if any(not r["read"] for r in mine) else 1,
            }
        )
    return {
        "android_metadata": [{"locale": "en_US"}],
        "sms": sms,
        "threads": threads,
        "canonical_addresses": addresses,
    }


def load(model: Device, conn: sqlite3.Connection) -> None:
    """The file's messages become the app's conversations (module docstring); a thread keeps the name and order
    it had, a new one comes first."""
    rows = query(conn, "SELECT _id, thread_id, address, date, read, type, body FROM sms ORDER BY date, _id")
    numbers = {
        int(r["_id"]): str(r["address"] or "")
        for r in query(
            conn,
            "SELECT threads._id AS _id, canonical_addresses.address AS address FROM threads "
            "JOIN canonical_addresses ON CAST(threads.recipient_ids AS INTEGER) = canonical_addresses._id",
        )
    }
    data = app_data(model, PKG)
    old = {t["id"]: t for t in data.get("threads", [])}
    old_messages = {m.get("_id"): m for t in old.values() for m in t["messages"]}
    people = app_data(model, CONTACTS_PKG).get("contacts", [])
    zh = model.locale == "zh"
    by_thread: dict[int, list[dict[str, Any]]] = {}
    fresh = max([int(data.get("next_id", 1))] + [t + 1 for t in numbers] + [int(r["thread_id"] or 0) + 1 for r in rows])
    for r in rows:
        if r["type"] not in (INBOX, *OUTGOING):  # drafts are not kept
            continue
        tid = int(r["thread_id"] or 0)
        if not tid:  # a row written without a thread: the conversation with its number, or a new one
            want = _digits(str(r["address"] or ""))[-10:]
            tid = next((t for t, a in numbers.items() if want and _digits(a)[-10:] == want), fresh)
            fresh += tid == fresh
        when = dt.datetime.fromtimestamp(int(r["date"] or 0) / 1000, DEVICE_TZ)
        m = {
            **old_messages.get(r["_id"], {"time": fmt_time(when.hour, when.minute, zh)}),
            "_id": int(r["_id"]),
            "date": int(r["date"] or 0),
            "me": r["type"] != INBOX,
            "text": str(r["body"] or ""),
            "read": 1 if r["type"] != INBOX else int(r["read"] or 0),
        }
        m.pop("type", None)
        if r["type"] not in (INBOX, SENT):  # outbox, failed, queued
            m["type"] = int(r["type"])
        by_thread.setdefault(tid, []).append(m)
        numbers.setdefault(tid, str(r["address"] or ""))
    threads = []
    for tid, messages in by_thread.items():
        t = old.get(tid)
        if t is None:
            phone = numbers[tid]
            who = next(
                (c for c in people if c.get("phone") and _digits(c["phone"])[-10:] == _digits(phone)[-10:]), None
            )
            t = {"id": tid, "name": who["name"] if who else phone, "phone": phone}
        threads.append({**t, "messages": messages, "unread": any(not m["read"] for m in messages if not m["me"])})
    order = [t["id"] for t in data.get("threads", [])]
    threads.sort(key=lambda t: order.index(t["id"]) if t["id"] in order else -1)
    data["threads"] = threads
    data["next_id"] = max([int(data.get("next_id", 1))] + [t["id"] + 1 for t in threads])
    data["next_sms_id"] = max([int(data.get("next_sms_id", 1))] + [int(r["_id"]) + 1 for r in rows])
    model.events.log("sms", action="load", rows=len(rows))


SMS = Schema(PATH, DDL, ("sms",), dump, load)
