"""What every record of the task file format (`tasks.schema`, `tasks.state_checks`) stands on: `TaskModel`
(frozen; a key the format does not know is an error), `Localized` values (one for every language, or one per
language) and `localized`, and the validators records share (regexes that must compile, content URIs).
"""

from __future__ import annotations

import re
from typing import Union

from pydantic import BaseModel, ConfigDict

Localized = Union[str, dict[str, str]]  # one value for every language, or one per language


class TaskModel(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


def localized(value: Localized | None, lang: str) -> str | None:
    """The value for `lang` (falling back to en, then any)."""
    if value is None or isinstance(value, str):
        return value
    return value.get(lang) or value.get("en") or next(iter(value.values()), None)


def check_regexes(values: list[Localized | None]) -> None:
    """ValueError naming the first pattern among `values` (each localized) that does not compile."""
    for v in values:
        for pattern in [v] if isinstance(v, str) else list((v or {}).values()):
            try:
                re.compile(pattern)
            except re.error as e:
                raise ValueError(f"bad regex {pattern!r}: {e}") from None


def check_content_uri(v: str) -> str:
    """`v` when it is a content URI (content://AUTHORITY[/PATH], no spaces), else ValueError."""
    if not re.fullmatch(r"content://[A-Za-z0-9_.\-]+(/\S*)?", v):
        raise ValueError(f"uri must be content://AUTHORITY[/PATH] with no spaces, got {v!r}")
    return v
