"""content://settings/{system,secure,global}[/NAME]: the settings store (`model.settings`), rows _id, name, value."""

from __future__ import annotations

from ..ui.host import Device
from .base import ProviderError, Table, UnknownUri, Values
from .where import Predicate

NAMESPACES = ("system", "secure", "global")


def _split(path: str) -> tuple[str, str | None]:
    ns, _, name = path.partition("/")
    if ns not in NAMESPACES or "/" in name:
        raise UnknownUri(path)
    return ns, name or None


class SettingsProvider:
    authorities: tuple[str, ...] = ("settings",)

    def query(self, model: Device, path: str) -> Table:
        ns, name = _split(path)
        values = model.settings.get(ns, {})
        rows = [{"_id": i + 1, "name": k, "value": v} for i, (k, v) in enumerate(values.items())]
        return Table(["_id", "name", "value"], [r for r in rows if name is None or r["name"] == name])

    def insert(self, model: Device, path: str, values: Values) -> str:
        ns, _ = _split(path)
        if "name" not in values:
            raise ProviderError("name is required")
        with model.lock:
            model.settings.setdefault(ns, {})[str(values["name"])] = (
                "" if values.get("value") is None else str(values["value"])
            )
        model.events.log("settings", action="insert", table=ns, binds=dict(values))
        return f"content://settings/{ns}/{values['name']}"

    def _matching(self, model: Device, path: str, where: Predicate) -> tuple[dict[str, str], list[str]]:
        ns, name = _split(path)
        table = model.settings.setdefault(ns, {})
        keys = [k for k in table if (name is None or k == name) and where({"name": k, "value": table[k]})]
        return table, keys

    def update(self, model: Device, path: str, values: Values, where: Predicate) -> int:
        with model.lock:
            table, keys = self._matching(model, path, where)
            for k in keys:
                if "value" in values:
                    table[k] = "" if values["value"] is None else str(values["value"])
        model.events.log("settings", action="update", table=path, binds=dict(values))
        return len(keys)

    def delete(self, model: Device, path: str, where: Predicate) -> int:
        with model.lock:
            table, keys = self._matching(model, path, where)
            for k in keys:
                del table[k]
        model.events.log("settings", action="delete", table=path)
        return len(keys)
