"""The errors of the dataset adapters, at the bottom of `tasks.datasets` (every other module imports them).

`DatasetError` is what a caller sees: the message names the file, the record (index / episode / step) and the
field. `FieldError` is a converter's complaint about one field, which a loader turns into a `DatasetError` that
also names the file and the record.
"""

from __future__ import annotations

from pathlib import Path

from harness.errors import HarnessError


class DatasetError(HarnessError):
    """A dataset file could not be read: the message names the file, the record (index / episode / step) and
    the field."""


class FieldError(ValueError):
    """A converter / parser complaint about one field of a record; loaders turn it into a `DatasetError` that also
    names the file and the record."""

    def __init__(self, field_name: str, message: str):
        super().__init__(f"field {field_name!r}: {message}")
        self.field = field_name
        self.detail = message


def where(
    file: str | Path | None, record: int | None = None, episode: str | None = None, step: int | None = None
) -> str:
    """`"path/x.json: record 3 (episode 42, step 1)"` -- the location prefix of every DatasetError."""
    parts = []
    if record is not None:
        parts.append(f"record {record}")
    inner = ", ".join(
        p
        for p in (f"episode {episode}" if episode is not None else "", f"step {step}" if step is not None else "")
        if p
    )
    loc = " ".join(parts)
    if inner:
        loc = f"{loc} ({inner})" if loc else inner
    head = str(file) if file is not None else "<record>"
    return f"{head}: {loc}" if loc else head


def error(
    file: str | Path | None,
    message: str,
    *,
    record: int | None = None,
    episode: str | None = None,
    step: int | None = None,
    field_name: str | None = None,
) -> DatasetError:
    """Build a `DatasetError` with the standard location prefix."""
    f = f"field {field_name!r}: " if field_name else ""
    return DatasetError(f"{where(file, record, episode, step)}: {f}{message}")
