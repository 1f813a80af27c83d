"""content://com.android.deskclock/alarms (DeskClock's ClockContract.AlarmsColumns) over the Clock app's alarms,
so what the app shows and what the provider answers are one thing, in both directions. Also answered under the
installed clock's own package name (com.google.android.deskclock).

Columns: _id, hour, minutes, daysofweek (a bit per day, Monday 1, Tuesday 2, ... Sunday 64), enabled (0/1),
vibrate, label, ringtone, delete_after_use. `update` (enabled, hour, minutes, label, daysofweek), `insert` and
`delete` change the app's alarms. On a phone DeskClock's provider is not exported: the shell reads it only
as root (an emulator image after `adb root`); elsewhere `content query` answers "Permission Denial".

Timers are not here: DeskClock keeps them in its private shared preferences, which the shell cannot read.
"""

from __future__ import annotations

from typing import Any

from ..apps.clock import PKG
from ..ui.host import Device
from .base import ProviderError, Table, UnknownUri, Values, app_data, as_int
from .where import Predicate

COLUMNS = ["_id", "hour", "minutes", "daysofweek", "enabled", "vibrate", "label", "ringtone", "delete_after_use"]


def _bits(days: list[bool]) -> int:
    return sum(1 << i for i, on in enumerate(days) if on)


def days_of(bits: int) -> list[bool]:
    return [bool(bits & (1 << i)) for i in range(7)]


def alarm_row(a: dict[str, Any]) -> dict[str, Any]:
    return {
        "_id": a["id"],
        "hour": a["hour"],
        "minutes": a["minute"],
        "daysofweek": _bits(a.get("days", [False] * 7)),
        "enabled": 1 if a.get("enabled") else 0,
        "vibrate": 1,
        "label": a.get("label", ""),
        "ringtone": None,
        "delete_after_use": 0,
    }


def _check(path: str) -> int | None:
    parts = path.split("/")
    if parts[0] != "alarms" or len(parts) > 2 or (len(parts) == 2 and not parts[1].isdigit()):
        raise UnknownUri(path)
    return int(parts[1]) if len(parts) == 2 else None


def _apply(a: dict[str, Any], values: Values) -> None:
    if "hour" in values:
        hour = as_int(values, "hour")
        if hour is None or not 0 <= hour <= 23:
            raise ProviderError(f"hour must be 0-23, got {values['hour']!r}")
        a["hour"] = hour
    if "minutes" in values:
        minute = as_int(values, "minutes")
        if minute is None or not 0 <= minute <= 59:
            raise ProviderError(f"minutes must be 0-59, got {values['minutes']!r}")
        a["minute"] = minute
    if "enabled" in values:
        a["enabled"] = bool(as_int(values, "enabled"))
    if "label" in values:
        a["label"] = str(values["label"] or "")
    if "daysofweek" in values:
        a["days"] = days_of(as_int(values, "daysofweek") or 0)


class ClockProvider:
    authorities: tuple[str, ...] = ("com.android.deskclock", PKG)

    def query(self, model: Device, path: str) -> Table:
        ident = _check(path)
        alarms = sorted(app_data(model, PKG).get("alarms", []), key=lambda a: a["id"])
        return Table(list(COLUMNS), [alarm_row(a) for a in alarms if ident is None or a["id"] == ident])

    def insert(self, model: Device, path: str, values: Values) -> str:
        if _check(path) is not None:
            raise UnknownUri(path)
        with model.lock:
            data = app_data(model, PKG)
            aid = int(data.get("next_id", 1))
            a = {"id": aid, "hour": 0, "minute": 0, "label": "", "enabled": True, "days": [False] * 7}
            _apply(a, values)
            data["next_id"] = aid + 1
            data.setdefault("alarms", []).append(a)
            data["alarms"].sort(key=lambda x: (x["hour"], x["minute"], x["id"]))
        model.events.log("alarms", action="insert", alarm_id=aid)
        return f"content://com.android.deskclock/alarms/{aid}"

    def update(self, model: Device, path: str, values: Values, where: Predicate) -> int:
        hits = {r["_id"] for r in self.query(model, path).rows if where(r)}
        with model.lock:
            data = app_data(model, PKG)
            for a in data.get("alarms", []):
                if a["id"] in hits:
                    _apply(a, values)
            data.get("alarms", []).sort(key=lambda x: (x["hour"], x["minute"], x["id"]))
        model.events.log("alarms", action="update", rows=len(hits))
        return len(hits)

    def delete(self, model: Device, path: str, where: Predicate) -> int:
        hits = {r["_id"] for r in self.query(model, path).rows if where(r)}
        with model.lock:
            data = app_data(model, PKG)
            data["alarms"] = [a for a in data.get("alarms", []) if a["id"] not in hits]
        model.events.log("alarms", action="delete", rows=len(hits))
        return len(hits)
