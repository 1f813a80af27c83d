"""The contacts provider's databases as AOSP's ContactsProvider2 keeps them (the tables and columns clients
read, not every one): `contacts2.db` (`raw_contacts`, `data` with `mimetype_id` into `mimetypes`, `contacts`,
`android_metadata`, and a `view_data` view with the mimetype and contact id joined in) and, since Android 7,
the call log in its own `calllog.db` (`calls`), both under /data/data/com.android.providers.contacts/databases.

A contact of the Contacts app is one raw contact and one aggregate with its id; its name, phone and email are
`data` rows (vnd.android.cursor.item/name: data1 display name, data2 given, data3 family; phone_v2: data1
number, data2 type, data3 a custom type's label, data4 normalized; email_v2: data1 address, data2 type)."""

from __future__ import annotations

import sqlite3
from typing import Any

from ..apps.contacts_data import PKG, TYPE_MOBILE, join_name, phone_type_of
from ..ui.host import Device
from .base import app_data
from .calllog import PROVIDER_PKG
from .contacts import EMAIL, NAME, PHONE, data_rows
from .store import Rows, Schema, query

DIR = f"/data/data/{PROVIDER_PKG}/databases"
# mimetypes in the order a fresh provider registers them (ids are the provider's own; clients join by name)
MIMETYPES = [
    "vnd.android.cursor.item/email_v2",
    "vnd.android.cursor.item/im",
    "vnd.android.cursor.item/nickname",
    "vnd.android.cursor.item/organization",
    PHONE,
    "vnd.android.cursor.item/sip_address",
    NAME,
    "vnd.android.cursor.item/postal-address_v2",
    "vnd.android.cursor.item/identity",
    "vnd.android.cursor.item/photo",
    "vnd.android.cursor.item/group_membership",
]
_MIME_ID = {m: i + 1 for i, m in enumerate(MIMETYPES)}
_DATA_COLS = ", ".join(f"data{i} TEXT" for i in range(1, 16))

CONTACTS_DDL = f"""
CREATE TABLE android_metadata (locale TEXT);
CREATE TABLE mimetypes (_id INTEGER PRIMARY KEY AUTOINCREMENT, mimetype TEXT NOT NULL);
CREATE UNIQUE INDEX mime_type ON mimetypes (mimetype);
CREATE TABLE contacts (_id INTEGER PRIMARY KEY AUTOINCREMENT, name_raw_contact_id INTEGER REFERENCES
 raw_contacts(_id), photo_id INTEGER, photo_file_id INTEGER, custom_ringtone TEXT, send_to_voicemail INTEGER NOT NULL
 DEFAULT 0, times_contacted INTEGER NOT NULL DEFAULT 0, last_time_contacted INTEGER, starred INTEGER NOT NULL
 DEFAULT 0, pinned INTEGER NOT NULL DEFAULT 0, has_phone_number INTEGER NOT NULL DEFAULT 0, lookup TEXT,
 status_update_id INTEGER REFERENCES data(_id), contact_last_updated_timestamp INTEGER);
CREATE TABLE raw_contacts (_id INTEGER PRIMARY KEY AUTOINCREMENT, account_id INTEGER, sourceid TEXT,
 version INTEGER NOT NULL DEFAULT 1, dirty INTEGER NOT NULL DEFAULT 0, deleted INTEGER NOT NULL DEFAULT 0,
 contact_id INTEGER REFERENCES contacts(_id), aggregation_mode INTEGER NOT NULL DEFAULT 0, custom_ringtone TEXT,
 send_to_voicemail INTEGER NOT NULL DEFAULT 0, starred INTEGER NOT NULL DEFAULT 0, pinned INTEGER NOT NULL
 DEFAULT 0, display_name TEXT, display_name_alt TEXT, display_name_source INTEGER NOT NULL DEFAULT 0,
 phonetic_name TEXT, sort_key TEXT, sort_key_alt TEXT);
CREATE TABLE data (_id INTEGER PRIMARY KEY AUTOINCREMENT, package_id INTEGER, mimetype_id INTEGER REFERENCES
 mimetypes(_id) NOT NULL, raw_contact_id INTEGER REFERENCES raw_contacts(_id) NOT NULL, is_read_only INTEGER NOT
 NULL DEFAULT 0, is_primary INTEGER NOT NULL DEFAULT 0, is_super_primary INTEGER NOT NULL DEFAULT 0,
 data_version INTEGER NOT NULL DEFAULT 0, {_DATA_COLS});
CREATE INDEX data_raw_contact_id ON data (raw_contact_id);
CREATE VIEW view_data AS SELECT data.*, mimetypes.mimetype AS mimetype, raw_contacts.contact_id AS contact_id,
 raw_contacts.display_name AS display_name FROM data JOIN mimetypes ON data.mimetype_id = mimetypes._id
 JOIN raw_contacts ON data.raw_contact_id = raw_contacts._id WHERE raw_contacts.deleted = 0;
"""


def _people(model: Device) -> list[dict[str, Any]]:
    return sorted(app_data(model, PKG).get("contacts", []), key=lambda c: c["id"])


def dump_contacts(model: Device) -> Rows:
    people = _people(model)
    contacts, raws, data = [], [], []
    for c in people:
        cid, name = c["id"], c.get("name") or None
        contacts.append(
            {
                "_id": cid,
                "name_raw_contact_id": cid,
                "has_phone_number": 1 if c.get("phone") else 0,
                "lookup": f"0r{cid}-{(c.get('name') or '').replace(' ', '')}",
            }
        )
        raws.append(
            {
                "_id": cid,
                "contact_id": cid,
                "display_name": name,
                "display_name_alt": name,
                "display_name_source": 40 if name else (20 if c.get("phone") else 0),
                "sort_key": c.get("sort") or None,
                "sort_key_alt": c.get("sort") or None,
            }
        )
        for r in data_rows(c):
            data.append(
                {
                    "_id": r["_id"],
                    "mimetype_id": _MIME_ID[r["mimetype"]],
                    "raw_contact_id": cid,
                    "data1": r["data1"],
                    "data2": r["data2"],
                    "data3": r["data3"],
                    "data4": r["data4"],
                }
            )
    return {
        "android_metadata": [{"locale": "en_US"}],
        "mimetypes": [{"_id": i, "mimetype": m} for m, i in _MIME_ID.items()],
        "contacts": contacts,
        "raw_contacts": raws,
        "data": data,
    }


def load_contacts(model: Device, conn: sqlite3.Connection) -> None:
    """The file's live raw contacts become the app's contacts (a raw contact's first name, phone and email rows
    its fields; other fields the app keeps on a contact stay)."""
    raws = query(conn, "SELECT _id, display_name, sort_key FROM raw_contacts WHERE deleted = 0 ORDER BY _id")
    rows = query(
        conn,
        "SELECT data.raw_contact_id AS rid, mimetypes.mimetype AS mimetype, data.data1 AS data1, "
        "data.data2 AS data2, data.data3 AS data3 FROM data JOIN mimetypes ON data.mimetype_id = mimetypes._id "
        "ORDER BY data.is_super_primary DESC, data.is_primary DESC, data._id",
    )
    data = app_data(model, PKG)
    old = {c["id"]: c for c in data.get("contacts", [])}
    people = []
    for r in raws:
        cid = int(r["_id"])
        fields: dict[str, Any] = {}
        for d in rows:
            if d["rid"] != cid:
                continue
            if d["mimetype"] == NAME and "name" not in fields:
                given, family = (str(d[k] or "") for k in ("data2", "data3"))
                fields.update(name=str(d["data1"] or join_name(given, family)), given=given, family=family)
            elif d["mimetype"] == PHONE and "phone" not in fields:
                kind = phone_type_of({"phone_type": d["data2"] if d["data2"] not in (None, "") else TYPE_MOBILE})
                fields.update(phone=str(d["data1"] or ""), phone_type=kind, phone_label=str(d["data3"] or ""))
            elif d["mimetype"] == EMAIL and "email" not in fields:
                fields["email"] = str(d["data1"] or "")
        if "name" not in fields and r["display_name"] and not fields.get("phone"):
            fields["name"] = str(r["display_name"])
        blank = {"name": "", "given": "", "family": "", "phone": "", "phone_type": TYPE_MOBILE, "phone_label": ""}
        c = {**old.get(cid, {}), "id": cid, **blank, "email": "", **fields}
        c["sort"] = (c["name"] or c["phone"]).lower()
        people.append(c)
    data["contacts"] = people
    data["next_id"] = max([int(data.get("next_id", 1))] + [c["id"] + 1 for c in people])
    model.events.log("contacts", action="load", rows=len(people))


CALLLOG_DDL = """
CREATE TABLE android_metadata (locale TEXT);
CREATE TABLE calls (_id INTEGER PRIMARY KEY AUTOINCREMENT, number TEXT, presentation INTEGER NOT NULL DEFAULT 1,
 date INTEGER, duration INTEGER, data_usage INTEGER, type INTEGER, features INTEGER NOT NULL DEFAULT 0,
 subscription_component_name TEXT, subscription_id TEXT, phone_account_address TEXT, new INTEGER, name TEXT,
 numbertype INTEGER, numberlabel TEXT, countryiso TEXT, voicemail_uri TEXT, is_read INTEGER,
 geocoded_location TEXT, lookup_uri TEXT, matched_number TEXT, normalized_number TEXT, photo_id INTEGER NOT NULL
 DEFAULT 0, formatted_number TEXT, last_modified INTEGER DEFAULT 0);
"""
CALL_COLUMNS = ("_id", "number", "date", "duration", "type", "name", "new", "is_read")


def dump_calls(model: Device) -> Rows:
    calls = sorted(app_data(model, PROVIDER_PKG).get("calls", []), key=lambda r: r["_id"])
    return {"android_metadata": [{"locale": "en_US"}], "calls": [{k: r.get(k) for k in CALL_COLUMNS} for r in calls]}


def load_calls(model: Device, conn: sqlite3.Connection) -> None:
    calls = query(conn, f"SELECT {', '.join(CALL_COLUMNS)} FROM calls ORDER BY _id")
    data = app_data(model, PROVIDER_PKG)
    data["calls"] = calls
    data["next_call_id"] = max([int(data.get("next_call_id", 1))] + [int(r["_id"]) + 1 for r in calls])
    model.events.log("call_log", action="load", rows=len(calls))


CONTACTS = Schema(
    f"{DIR}/contacts2.db", CONTACTS_DDL, ("raw_contacts", "data", "mimetypes"), dump_contacts, load_contacts
)
CALLLOG = Schema(f"{DIR}/calllog.db", CALLLOG_DDL, ("calls",), dump_calls, load_calls)
