"""State checks: a check's `state` (tasks/state_checks.py `StateCheck`) judged on device state read through the
device's shell (`harness.device.state`) instead of the screen.

THE RULE (docs/milestones.md, "State checks"): every kind given must hold.
- `settings`: `settings get NAMESPACE KEY` matches `value` (unset reads as None: only `null: true` and
  `not_equals` hold on it).
- `content`: `content query --uri URI --projection P --where W` (P: the check's projection, else the columns
  `row` names); with `exists` true (default) some row matches every column matcher of `row` (no `row`: any
  row); with `exists` false no row does.
- `prop`: `getprop NAME` matches `value` (empty reads as None).
- `file`: `cat PATH`; with `exists` the file must be there and its text match `content` (when given); with
  `exists` false there must be no such file.
- `sqlite`: `sqlite3 PATH "SELECT ... FROM TABLE WHERE W"` (through `su 0` when the shell user may not open an
  app's database) over the columns `row` names; `exists` as for `content`.
A value match (`ValueMatch`) holds when every given field does: `equals` (trimmed text, case-insensitive unless
`case_sensitive`; two numbers compare as numbers), `not_equals` (unset, or not equal), `contains`, `regex`
(re.search), `digits` (the value's digits end with the expected digits: "+1 650-555-0199" ~ "6505550199"),
`gt` / `ge` / `lt` / `le` (the value is a number and compares so), `null` (unset / NULL or not). Localized
expectations use the episode's language.

State that cannot be read (no such command, an unknown provider or one the shell user may not read, an
unreadable file) makes the check NOT hold, with the reason recorded: the task asks for state this device does
not show, which no retry on a device of the same kind changes, so it is the task's (or the device's) answer,
not an infrastructure failure. Device failures (the device or the adb server gone) propagate as everywhere.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

from harness.device.controller import Device
from harness.device.state import DeviceState, Row, StateUnreadable
from tasks.schema_base import localized
from tasks.state_checks import ContentState, SqliteState, StateCheck, ValueMatch

UNREADABLE = "state unreadable"  # how the reason of a verdict on unreadable state starts


@dataclass(frozen=True)
class StateVerdict:
    held: bool
    reason: str | None = None  # why it does not hold
    unreadable: bool = False  # the state could not be read at all (the reason says why)


StateJudge = Callable[[StateCheck, str], StateVerdict]  # (check, language) -> verdict


def judge_on(device: Device) -> StateJudge:
    """The state judge of one device: reads through its shell."""
    state = DeviceState(device.shell)
    return lambda check, lang: evaluate_state(check, state, lang)


def _number(s: str | None) -> float | None:
    try:
        return float(s.strip()) if s is not None else None
    except ValueError:
        return None


def _fold(s: str, case_sensitive: bool) -> str:
    s = s.strip()
    return s if case_sensitive else s.casefold()


def _equal(value: str, want: str, case_sensitive: bool) -> bool:
    a, b = _number(value), _number(want)
    if a is not None and b is not None:
        return a == b
    return _fold(value, case_sensitive) == _fold(want, case_sensitive)


def value_matches(value: str | None, m: ValueMatch, lang: str) -> bool:
    """Does one value read from the device satisfy `m` (the rule above)?"""
    cs = m.case_sensitive
    if m.null is not None and (value is None) != m.null:
        return False
    if value is None:  # unset / NULL: only `null: true` and `not_equals` can hold on it
        return all(getattr(m, k) is None for k in ("equals", "contains", "regex", "digits", "gt", "ge", "lt", "le"))
    equals, not_equals = localized(m.equals, lang), localized(m.not_equals, lang)
    contains, regex, digits = localized(m.contains, lang), localized(m.regex, lang), localized(m.digits, lang)
    if equals is not None and not _equal(value, equals, cs):
        return False
    if not_equals is not None and _equal(value, not_equals, cs):
        return False
    if contains is not None and _fold(contains, cs) not in _fold(value, cs):
        return False
    if regex is not None and re.search(regex, value, 0 if cs else re.IGNORECASE) is None:
        return False
    if digits is not None:
        want, got = re.sub(r"\D", "", digits), re.sub(r"\D", "", value)
        if not got or not got.endswith(want):
            return False
    bounds = [(m.gt, float.__gt__), (m.ge, float.__ge__), (m.lt, float.__lt__), (m.le, float.__le__)]
    if any(b is not None for b, _ in bounds):
        n = _number(value)
        if n is None or not all(op(n, float(b)) for b, op in bounds if b is not None):
            return False
    return True


def _show(value: str | None) -> str:
    return "unset" if value is None else repr(value if len(value) <= 60 else value[:57] + "...")


def _want(m: ValueMatch) -> str:
    return ", ".join(
        f"{k} {getattr(m, k)!r}" for k in type(m).model_fields if k != "case_sensitive" and getattr(m, k) is not None
    )


def _content(state: DeviceState, c: ContentState, lang: str) -> str | None:
    projection = c.projection or tuple(c.row)
    rows = state.query(c.uri, projection, c.where)
    hits = [r for r in rows if _row_matches(r, c, lang)]
    where = f" where {c.where}" if c.where else ""
    if c.exists and not hits:
        what = f"row with {', '.join(f'{k}: {_want(v)}' for k, v in c.row.items())}" if c.row else "row"
        return f"content {c.uri}{where}: no {what} among {len(rows)} row(s)"
    if not c.exists and hits:
        return f"content {c.uri}{where}: {len(hits)} row(s) that must not exist, e.g. {_brief(hits[0])}"
    return None


def _sqlite(state: DeviceState, q: SqliteState, lang: str) -> str | None:
    columns = tuple(q.row) or ("rowid",)
    rows = state.table(q.path, q.table, columns, q.where)
    hits = [r for r in rows if all(value_matches(r.get(col), m, lang) for col, m in q.row.items())]
    where = f"{q.path} {q.table}" + (f" where {q.where}" if q.where else "")
    if q.exists and not hits:
        what = f"row with {', '.join(f'{k}: {_want(v)}' for k, v in q.row.items())}" if q.row else "row"
        return f"sqlite {where}: no {what} among {len(rows)} row(s)"
    if not q.exists and hits:
        return f"sqlite {where}: {len(hits)} row(s) that must not exist, e.g. {_brief(hits[0])}"
    return None


def _row_matches(row: Row, c: ContentState, lang: str) -> bool:
    return all(value_matches(row.get(col), m, lang) for col, m in c.row.items())


def _brief(row: Row) -> str:
    text = ", ".join(f"{k}={v}" for k, v in row.items())
    return text if len(text) <= 120 else text[:117] + "..."


def evaluate_state(check: StateCheck, state: DeviceState, lang: str) -> StateVerdict:
    """Judge `check` on the device behind `state` (the rule above)."""
    try:
        if check.settings is not None:
            s = check.settings
            value = state.setting(s.namespace, s.key)
            if not value_matches(value, s.value, lang):
                return StateVerdict(
                    False, f"settings {s.namespace} {s.key} is {_show(value)}, expected {_want(s.value)}"
                )
        if check.content is not None:
            why = _content(state, check.content, lang)
            if why is not None:
                return StateVerdict(False, why)
        if check.prop is not None:
            p = check.prop
            value = state.prop(p.name)
            if not value_matches(value, p.value, lang):
                return StateVerdict(False, f"getprop {p.name} is {_show(value)}, expected {_want(p.value)}")
        if check.file is not None:
            f = check.file
            text = state.file(f.path)
            if f.exists and text is None:
                return StateVerdict(False, f"file {f.path} does not exist")
            if not f.exists and text is not None:
                return StateVerdict(False, f"file {f.path} exists")
            if f.content is not None and not value_matches(text, f.content, lang):
                return StateVerdict(False, f"file {f.path} is {_show(text)}, expected {_want(f.content)}")
        if check.sqlite is not None:
            why = _sqlite(state, check.sqlite, lang)
            if why is not None:
                return StateVerdict(False, why)
    except StateUnreadable as e:
        return StateVerdict(False, f"{UNREADABLE}: {e}", unreadable=True)
    return StateVerdict(True)


__all__ = ["UNREADABLE", "StateJudge", "StateVerdict", "evaluate_state", "judge_on", "value_matches"]
