"""What a content provider of the virtual device is: an authority's tables as rows, and the changes `content
insert / update / delete` make to them, over the same data the app's UI shows (both directions)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Protocol

from ..ui.host import Device
from .where import Predicate

Values = dict[str, Any]  # column -> value, from `--bind name:TYPE:value`


class UnknownUri(ValueError):
    """The provider has no table at this URI (Android: IllegalArgumentException: Unknown URI)."""


class ProviderError(ValueError):
    """The provider refused the change (names why, as the provider's exception would)."""


@dataclass
class Table:
    columns: list[str]  # the default projection, in order
    rows: list[dict[str, Any]]


class Provider(Protocol):
    authorities: tuple[str, ...]

    def query(self, model: Device, path: str) -> Table: ...

    def insert(self, model: Device, path: str, values: Values) -> str: ...  # the new row's URI

    def update(self, model: Device, path: str, values: Values, where: Predicate) -> int: ...  # rows changed

    def delete(self, model: Device, path: str, where: Predicate) -> int: ...  # rows deleted


def app_data(model: Device, package: str) -> dict[str, Any]:
    """A built-in app's persistent data, seeded as the app seeds it on first use."""
    app = model.ui.apps.get(package)
    return app.data(model) if app is not None else model.app_data.setdefault(package, {})


def as_int(values: Values, name: str, default: int | None = None) -> int | None:
    v = values.get(name, default)
    if v is None:
        return None
    try:
        return int(float(v))
    except (TypeError, ValueError):
        raise ProviderError(f"column {name}: not a number: {v!r}") from None
