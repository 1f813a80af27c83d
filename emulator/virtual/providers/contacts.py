"""content://com.android.contacts (ContactsContract) over the Contacts app's people, so what the app shows and
what the provider answers are one thing, in both directions.

Tables: `contacts` (_id, display_name, has_phone_number, starred, lookup), `raw_contacts` (_id, contact_id,
display_name, account_type, account_name, deleted), `data` (one row per name / phone / email: _id,
raw_contact_id, contact_id, display_name, mimetype, data1, data2, data3, data4), `data/phones` and `data/emails`
(those rows only), `phone_lookup/NUMBER` (_id, display_name, number: contacts whose number ends like NUMBER),
and under the legacy authority `contacts` also `people` and `phones` (Contacts.Phones: _id, person, type, label,
number, number_key, isprimary, name, display_name).
A contact here has one raw contact with the contact's id; its data rows have ids 3*id-2 (name: data1 display name,
data2 given, data3 family name), 3*id-1 (phone: data1 number, data2 its TYPE_*, data3 a custom type's label, data4
normalized), 3*id (email). Changes as a client makes them: `insert raw_contacts` (a new, empty contact), `insert
data` (raw_contact_id + mimetype + data1 / data2 data3 set its name - the display name joined from given and family
name when data1 is left out -, phone - data2 its type - or email), `update data`, `delete raw_contacts` /
`contacts` (the contact goes) and `delete data` (the field is emptied).
"""

from __future__ import annotations

import re
from typing import Any

from ..apps.contacts_data import PKG, TYPE_CUSTOM, join_name, phone_type_of, structured_name
from ..ui.host import Device
from .base import ProviderError, Table, UnknownUri, Values, app_data, as_int
from .where import Predicate

NAME = "vnd.android.cursor.item/name"
PHONE = "vnd.android.cursor.item/phone_v2"
EMAIL = "vnd.android.cursor.item/email_v2"
_FIELD = {NAME: ("name", 2), PHONE: ("phone", 1), EMAIL: ("email", 0)}  # mimetype -> (field, id offset)
DATA_COLUMNS = ["_id", "raw_contact_id", "contact_id", "display_name", "mimetype", "data1", "data2", "data3", "data4"]


def _people(model: Device) -> list[dict[str, Any]]:
    data = app_data(model, PKG)
    return list(data.setdefault("contacts", []))


def _digits(s: str) -> str:
    return re.sub(r"\D", "", s)


def _e164(phone: str) -> str | None:
    d = _digits(phone)
    return ("+" + d) if phone.strip().startswith("+") and d else (d or None)


def matches(phone: str, number: str) -> bool:
    """`phone` is the number `number` (as phone_lookup matches: the last ten digits)."""
    want = _digits(number)
    return bool(want) and bool(phone) and _digits(phone)[-10:] == want[-10:]


def name_for(model: Device, number: str) -> str | None:
    """The name of the contact whose phone is `number` (what caller id shows), or None."""
    return next((c["name"] for c in _people(model) if c.get("name") and matches(c.get("phone") or "", number)), None)


def data_rows(c: dict[str, Any]) -> list[dict[str, Any]]:
    cid, name = c["id"], c.get("name") or None
    base = {"raw_contact_id": cid, "contact_id": cid, "display_name": name}
    rows = []
    if c.get("name"):
        given, family = structured_name(c)
        rows.append(
            {
                **base,
                "_id": 3 * cid - 2,
                "mimetype": NAME,
                "data1": c["name"],
                "data2": given or None,
                "data3": family or None,
                "data4": None,
            }
        )
    if c.get("phone"):
        rows.append(
            {
                **base,
                "_id": 3 * cid - 1,
                "mimetype": PHONE,
                "data1": c["phone"],
                "data2": phone_type_of(c),
                "data3": _custom_label(c),
                "data4": _e164(c["phone"]),
            }
        )
    if c.get("email"):
        rows.append(
            {**base, "_id": 3 * cid, "mimetype": EMAIL, "data1": c["email"], "data2": 1, "data3": None, "data4": None}
        )
    return rows


def _custom_label(c: dict[str, Any]) -> str | None:
    """Phone.LABEL: a TYPE_CUSTOM phone's own label (null for the other types)."""
    return (c.get("phone_label") or None) if phone_type_of(c) == TYPE_CUSTOM else None


def _data(model: Device) -> list[dict[str, Any]]:
    return [r for c in sorted(_people(model), key=lambda c: c["id"]) for r in data_rows(c)]


class ContactsProvider:
    authorities: tuple[str, ...] = ("com.android.contacts", "contacts")

    def query(self, model: Device, path: str) -> Table:
        people = sorted(_people(model), key=lambda c: c["id"])
        if path in ("contacts", "people"):
            rows = [
                {
                    "_id": c["id"],
                    "display_name": c.get("name") or None,
                    "has_phone_number": 1 if c.get("phone") else 0,
                    "starred": 0,
                    "lookup": f"0r{c['id']}-{(c.get('name') or '').replace(' ', '')}",
                }
                for c in people
            ]
            return Table(["_id", "display_name", "has_phone_number", "starred", "lookup"], rows)
        if path == "raw_contacts":
            rows = [
                {
                    "_id": c["id"],
                    "contact_id": c["id"],
                    "display_name": c.get("name") or None,
                    "account_type": None,
                    "account_name": None,
                    "deleted": 0,
                }
                for c in people
            ]
            return Table(["_id", "contact_id", "display_name", "account_type", "account_name", "deleted"], rows)
        if path in ("data", "data/phones", "data/emails"):
            kind = {"data/phones": PHONE, "data/emails": EMAIL}.get(path)
            return Table(list(DATA_COLUMNS), [r for r in _data(model) if kind is None or r["mimetype"] == kind])
        if path == "phones":  # the legacy Contacts.Phones table (content://contacts/phones) clients still read
            rows = [
                {
                    "_id": 3 * c["id"] - 1,
                    "person": c["id"],
                    "type": phone_type_of(c),
                    "label": _custom_label(c),
                    "number": c["phone"],
                    "number_key": _digits(c["phone"])[::-1],
                    "isprimary": 1,
                    "name": c.get("name") or None,
                    "display_name": c.get("name") or None,
                }
                for c in people
                if c.get("phone")
            ]
            return Table(
                ["_id", "person", "type", "label", "number", "number_key", "isprimary", "name", "display_name"], rows
            )
        if path.startswith("phone_lookup/"):
            want = path.split("/", 1)[1]
            rows = [
                {"_id": c["id"], "display_name": c.get("name") or None, "number": c["phone"]}
                for c in people
                if matches(c.get("phone") or "", want)
            ]
            return Table(["_id", "display_name", "number"], rows)
        raise UnknownUri(path)

    def clear(self, model: Device) -> None:
        """The provider package's data cleared (`pm clear com.android.providers.contacts`): no contacts left, in
        the provider and in the Contacts app (which shows the provider's data; it is not seeded again)."""
        with model.lock:
            data = app_data(model, PKG)
            data["contacts"] = []
        model.events.log("contacts", action="clear")

    def _contact(self, model: Device, cid: int | None) -> dict[str, Any]:
        c = next((c for c in app_data(model, PKG).get("contacts", []) if c["id"] == cid), None)
        if c is None:
            raise ProviderError(f"no raw contact {cid}")
        return c

    def insert(self, model: Device, path: str, values: Values) -> str:
        with model.lock:
            data = app_data(model, PKG)
            if path == "raw_contacts":
                cid = int(data.get("next_id", 1))
                data["next_id"] = cid + 1
                data.setdefault("contacts", []).append({"id": cid, "name": "", "phone": "", "email": "", "sort": ""})
                model.events.log("contacts", action="insert", raw_contact_id=cid)
                return f"content://com.android.contacts/raw_contacts/{cid}"
            if path == "data":
                c = self._contact(model, as_int(values, "raw_contact_id"))
                field, offset = self._field(values.get("mimetype"))
                self._set(c, field, values)
                model.events.log("contacts", action="insert", raw_contact_id=c["id"], field=field)
                return f"content://com.android.contacts/data/{3 * c['id'] - offset}"
        raise UnknownUri(path)

    def _field(self, mimetype: Any) -> tuple[str, int]:
        if mimetype not in _FIELD:
            raise ProviderError(f"mimetype must be one of {sorted(_FIELD)}, got {mimetype!r}")
        return _FIELD[mimetype]

    def _set(self, c: dict[str, Any], field: str, values: Values) -> None:
        if field == "name":
            given, family = (str(values.get(k) or "") for k in ("data2", "data3"))
            c["name"] = str(values.get("data1") or join_name(given, family))
            c["given"], c["family"] = given, family
            c["sort"] = c["name"].lower()
        else:
            c[field] = "" if values.get("data1") is None else str(values["data1"])
        if field == "phone" and values.get("data2") is not None:  # Phone.TYPE (and Phone.LABEL for a custom one)
            c["phone_type"] = phone_type_of({"phone_type": values["data2"]})
            c["phone_label"] = str(values.get("data3") or "")
        if not c.get("name") and c.get("phone"):  # as the app names a contact saved with a number only
            c["sort"] = c["phone"].lower()

    def update(self, model: Device, path: str, values: Values, where: Predicate) -> int:
        if path not in ("data", "data/phones", "data/emails"):
            raise UnknownUri(path)
        with model.lock:
            hits = [r for r in self.query(model, path).rows if where(r)]
            for r in hits:
                c = self._contact(model, r["raw_contact_id"])
                self._set(c, _FIELD[r["mimetype"]][0], {**{k: r[k] for k in ("data1", "data2", "data3")}, **values})
        model.events.log("contacts", action="update", rows=len(hits))
        return len(hits)

    def delete(self, model: Device, path: str, where: Predicate) -> int:
        with model.lock:
            data = app_data(model, PKG)
            if path in ("raw_contacts", "contacts"):
                gone = {r["_id"] for r in self.query(model, path).rows if where(r)}
                data["contacts"] = [c for c in data.get("contacts", []) if c["id"] not in gone]
                n = len(gone)
            elif path in ("data", "data/phones", "data/emails"):
                hits = [r for r in self.query(model, path).rows if where(r)]
                for r in hits:
                    self._contact(model, r["raw_contact_id"])[_FIELD[r["mimetype"]][0]] = ""
                n = len(hits)
            else:
                raise UnknownUri(path)
        model.events.log("contacts", action="delete", path=path, rows=n)
        return n
