"""Device-state checks of the task file format: a screen check's `state` (`StateCheck`) - a setting
(`SettingState`), a content provider's rows (`ContentState`), a system property (`PropState`), a file
(`FileState`), a database table's rows (`SqliteState`) - each value judged by a `ValueMatch`. Judged on the device
by `harness.run.judge.state_check` (docs/milestones.md, "State checks").
"""

from __future__ import annotations

import re
from typing import Any, Literal

from pydantic import Field, field_validator, model_validator

from .schema_base import Localized, TaskModel, check_content_uri, check_regexes


def _as_value_match(v: Any) -> Any:
    """A scalar stands for `{"equals": value}` (True / False for "1" / "0", as Android stores booleans)."""
    if isinstance(v, bool):
        return {"equals": "1" if v else "0"}
    if isinstance(v, (str, int, float)):
        return {"equals": str(v)}
    return v


class ValueMatch(TaskModel):
    """A predicate over one value read from the device (a setting, a provider column, a property; None = unset
    / NULL). Every given field must hold. Text compares trimmed, case-insensitively unless `case_sensitive`."""

    equals: Localized | None = None  # equal text, or equal numbers when both are numbers ("1.0" == "1")
    not_equals: Localized | None = None  # the value is unset or differs
    contains: Localized | None = None
    regex: Localized | None = None  # re.search
    digits: Localized | None = None  # a phone number: the value's digits end with these digits ("+1 650-555-0199")
    gt: float | None = None  # numeric comparisons: the value must be a number
    ge: float | None = None
    lt: float | None = None
    le: float | None = None
    null: bool | None = None  # True: unset / NULL; False: set
    case_sensitive: bool = False

    @model_validator(mode="after")
    def _valid(self) -> ValueMatch:
        given = [k for k in type(self).model_fields if k != "case_sensitive" and getattr(self, k) is not None]
        if not given:
            raise ValueError(
                "a value match needs one of equals, not_equals, contains, regex, digits, gt, ge, lt, le, null"
            )
        check_regexes([self.regex])
        for v in [self.digits] if isinstance(self.digits, str) else list((self.digits or {}).values()):
            if not any(ch.isdigit() for ch in v):
                raise ValueError(f"digits {v!r} has no digit")
        return self


def _value_matches(v: Any) -> Any:
    return {k: _as_value_match(x) for k, x in v.items()} if isinstance(v, dict) else v


class SettingState(TaskModel):
    """`settings get NAMESPACE KEY` (unset: None)."""

    namespace: Literal["global", "secure", "system"]
    key: str = Field(pattern=r"^[A-Za-z0-9_.\-]+$")
    value: ValueMatch

    @field_validator("value", mode="before")
    @classmethod
    def _scalar(cls, v: Any) -> Any:
        return _as_value_match(v)


class ContentState(TaskModel):
    """`content query --uri URI [--projection a:b] [--where SQL]`: a row whose columns match `row` must exist
    (`exists`: true, the default) or must not exist (`exists`: false). Without `row` any row counts; the
    projection defaults to the columns `row` names."""

    uri: str
    projection: tuple[str, ...] = ()
    where: str | None = None
    row: dict[str, ValueMatch] = {}
    exists: bool = True

    @field_validator("uri")
    @classmethod
    def _content_uri(cls, v: str) -> str:
        return check_content_uri(v)

    @field_validator("row", mode="before")
    @classmethod
    def _scalars(cls, v: Any) -> Any:
        return _value_matches(v)

    @field_validator("projection")
    @classmethod
    def _columns(cls, v: tuple[str, ...]) -> tuple[str, ...]:
        bad = [c for c in v if not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", c)]
        if bad:
            raise ValueError(f"projection columns must be column names, got {bad}")
        return v

    @model_validator(mode="after")
    def _row_in_projection(self) -> ContentState:
        bad = [c for c in self.row if not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", c)]
        if bad:
            raise ValueError(f"row columns must be column names, got {bad}")
        missing = [c for c in self.row if self.projection and c not in self.projection]
        if missing:
            raise ValueError(f"row names column(s) {missing} the projection {list(self.projection)} leaves out")
        return self


class PropState(TaskModel):
    """`getprop NAME` (empty: None)."""

    name: str = Field(pattern=r"^[A-Za-z0-9_.\-]+$")
    value: ValueMatch

    @field_validator("value", mode="before")
    @classmethod
    def _scalar(cls, v: Any) -> Any:
        return _as_value_match(v)


class FileState(TaskModel):
    """`cat PATH`: the file exists (or, `exists`: false, does not) and its text matches `content`."""

    path: str

    @field_validator("path")
    @classmethod
    def _absolute(cls, v: str) -> str:
        if not v.startswith("/") or "\x00" in v:
            raise ValueError(f"path must be an absolute device path, got {v!r}")
        return v

    exists: bool = True
    content: ValueMatch | None = None

    @field_validator("content", mode="before")
    @classmethod
    def _scalar(cls, v: Any) -> Any:
        return _as_value_match(v)

    @model_validator(mode="after")
    def _content_needs_file(self) -> FileState:
        if self.content is not None and not self.exists:
            raise ValueError("a file that must not exist has no content to match")
        return self


class SqliteState(TaskModel):
    """`sqlite3 PATH` on a database file of the device (an app's Room / SQLiteOpenHelper database): the rows of
    TABLE (`where`: an SQL condition on them) - a row whose columns match `row` must exist (`exists`: true, the
    default) or must not exist (`exists`: false); without `row` any row counts."""

    path: str
    table: str = Field(pattern=r"^[A-Za-z_][A-Za-z0-9_]*$")
    where: str | None = None
    row: dict[str, ValueMatch] = {}
    exists: bool = True

    @field_validator("path")
    @classmethod
    def _absolute(cls, v: str) -> str:
        if not v.startswith("/") or "\x00" in v:
            raise ValueError(f"path must be an absolute device path, got {v!r}")
        return v

    @field_validator("row", mode="before")
    @classmethod
    def _scalars(cls, v: Any) -> Any:
        return _value_matches(v)

    @model_validator(mode="after")
    def _column_names(self) -> SqliteState:
        bad = [c for c in self.row if not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", c)]
        if bad:
            raise ValueError(f"row columns must be column names, got {bad}")
        return self


class StateCheck(TaskModel):
    """A predicate over device state read through the device's shell instead of the screen; every given kind
    must hold (see harness.run.judge.state_check and docs/milestones.md, "State checks")."""

    settings: SettingState | None = None
    content: ContentState | None = None
    prop: PropState | None = None
    file: FileState | None = None
    sqlite: SqliteState | None = None

    @model_validator(mode="after")
    def _not_empty(self) -> StateCheck:
        if not (self.settings or self.content or self.prop or self.file or self.sqlite):
            raise ValueError("a state check needs settings, content, prop, file or sqlite")
        return self
