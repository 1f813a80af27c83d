"""SQL selections as `content query/update/delete --where` passes them to a provider, for the subset the virtual
device's providers evaluate: `col OP literal` clauses joined by AND, where OP is =, ==, !=, <>, <, <=, >, >=,
LIKE (% and _ wildcards, ASCII case-insensitive as SQLite's), IS NULL, IS NOT NULL, and a literal is a
'quoted string' ('' for a quote), a "quoted string" or a number. As in SQLite, a comparison with NULL is false,
and a number literal compares numerically with a column value that is a number."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

Predicate = Callable[[dict[str, Any]], bool]

_CLAUSE = re.compile(
    r"\s*([A-Za-z_][A-Za-z0-9_.]*)\s*"
    r"(?:(IS\s+NOT\s+NULL|IS\s+NULL)|(==|=|!=|<>|<=|>=|<|>|LIKE\b)\s*"
    r"(?:'((?:[^']|'')*)'|\"([^\"]*)\"|(-?\d+(?:\.\d+)?)))\s*",
    re.IGNORECASE,
)


class SelectionError(ValueError):
    """A selection the provider cannot evaluate."""


def _split_and(expr: str) -> list[str]:
    parts, cur, quote, i = [], "", "", 0
    while i < len(expr):
        ch = expr[i]
        if quote:
            cur += ch
            if ch == quote:
                quote = ""
        elif ch in "'\"":
            quote = ch
            cur += ch
        elif m := re.match(r"\s+AND\s+", expr[i:], re.IGNORECASE):
            parts.append(cur)
            cur = ""
            i += m.end()
            continue
        else:
            cur += ch
        i += 1
    if quote:
        raise SelectionError(f"unterminated string in selection: {expr}")
    parts.append(cur)
    return parts


def _number(v: Any) -> float | None:
    if isinstance(v, bool):
        return float(v)
    if isinstance(v, (int, float)):
        return float(v)
    try:
        return float(str(v))
    except ValueError:
        return None


def _like(value: str, pattern: str) -> bool:
    rx = "".join(".*" if c == "%" else "." if c == "_" else re.escape(c) for c in pattern)
    return re.fullmatch(rx, value, re.IGNORECASE | re.DOTALL) is not None


def _clause(text: str) -> Predicate:
    m = _CLAUSE.fullmatch(text)
    if not m:
        raise SelectionError(f"unsupported selection: {text.strip()}")
    col, isnull, op, sq, dq, num = m.groups()
    if isnull:
        want_null = "NOT" not in isnull.upper()
        return lambda row: (row.get(col) is None) == want_null
    literal: Any = num if num is not None else (sq.replace("''", "'") if sq is not None else dq)
    op = op.upper()

    def holds(row: dict[str, Any]) -> bool:
        v = row.get(col)
        if v is None:
            return False
        if op == "LIKE":
            return _like(str(v), str(literal))
        a, b = (_number(v), _number(literal)) if num is not None else (None, None)
        left: Any
        right: Any
        left, right = (a, b) if a is not None and b is not None else (str(v), str(literal))
        return {
            "=": left == right,
            "==": left == right,
            "!=": left != right,
            "<>": left != right,
            "<": left < right,
            "<=": left <= right,
            ">": left > right,
            ">=": left >= right,
        }[op]

    return holds


def selection(expr: str | None) -> Predicate:
    """The predicate of a `--where` selection (no selection: every row). Raises `SelectionError`."""
    if not expr or not expr.strip():
        return lambda row: True
    clauses = [_clause(p) for p in _split_and(expr)]
    return lambda row: all(c(row) for c in clauses)
