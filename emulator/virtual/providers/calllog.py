"""content://call_log/calls (CallLog.Calls): the device's call log, empty on a fresh image (nothing rings here),
held by the contacts provider's package as on a phone, so `pm clear com.android.providers.contacts` empties it.

Columns _id, number, date, duration, type (1 incoming, 2 outgoing, 3 missed), name, new, is_read; rows newest
first (`date DESC`, the provider's default order). `insert` (number; date, duration, type, name) adds a call,
`delete` removes calls (AndroidWorld clears the log with `content delete --uri content://call_log/calls`)."""

from __future__ import annotations

from typing import Any

from ..ui.host import Device
from .base import Table, UnknownUri, Values, app_data, as_int
from .where import Predicate

PROVIDER_PKG = "com.android.providers.contacts"
COLUMNS = ["_id", "number", "date", "duration", "type", "name", "new", "is_read"]


def _calls(model: Device) -> list[dict[str, Any]]:
    return app_data(model, PROVIDER_PKG).setdefault("calls", [])


def _check(path: str) -> None:
    if path.split("/")[0] != "calls" or path.count("/") > 1:
        raise UnknownUri(path)


class CallLogProvider:
    authorities: tuple[str, ...] = ("call_log",)

    def query(self, model: Device, path: str) -> Table:
        _check(path)
        ident = path.partition("/")[2]
        with model.lock:
            rows = [dict(r) for r in _calls(model) if not ident or str(r["_id"]) == ident]
        return Table(list(COLUMNS), sorted(rows, key=lambda r: (-(r["date"] or 0), -r["_id"])))

    def insert(self, model: Device, path: str, values: Values) -> str:
        _check(path)
        with model.lock:
            data = app_data(model, PROVIDER_PKG)
            cid = int(data.get("next_call_id", 1))
            data["next_call_id"] = cid + 1
            _calls(model).append(
                {
                    "_id": cid,
                    "number": str(values.get("number") or ""),
                    "date": as_int(values, "date", 0),
                    "duration": as_int(values, "duration", 0),
                    "type": as_int(values, "type", 1),
                    "name": values.get("name"),
                    "new": as_int(values, "new", 1),
                    "is_read": as_int(values, "is_read", 0),
                }
            )
        model.events.log("call_log", action="insert", id=cid)
        return f"content://call_log/calls/{cid}"

    def update(self, model: Device, path: str, values: Values, where: Predicate) -> int:
        hits = {r["_id"] for r in self.query(model, path).rows if where(r)}
        with model.lock:
            for r in _calls(model):
                if r["_id"] in hits:
                    r.update({k: v for k, v in values.items() if k in COLUMNS and k != "_id"})
        return len(hits)

    def delete(self, model: Device, path: str, where: Predicate) -> int:
        hits = {r["_id"] for r in self.query(model, path).rows if where(r)}
        with model.lock:
            data = app_data(model, PROVIDER_PKG)
            data["calls"] = [r for r in _calls(model) if r["_id"] not in hits]
        model.events.log("call_log", action="delete", rows=len(hits))
        return len(hits)

    def clear(self, model: Device) -> None:
        """The provider package's data cleared (`pm clear com.android.providers.contacts`)."""
        with model.lock:
            model.app_data[PROVIDER_PKG] = {}
