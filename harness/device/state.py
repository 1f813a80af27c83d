"""Device state read through the device's own shell, as on any Android device: `settings get`, `content query`,
`getprop`, `cat` and `sqlite3`, every argument quoted by `harness.shellquote`, and their output parsed.

    state = DeviceState(device.shell)
    state.setting("global", "wifi_on")                                 # "1", or None when unset ("null")
    state.query("content://sms/sent", ("address", "body"), "type=2")   # [{"address": "...", "body": "..."}]
    state.prop("ro.build.version.sdk")                                 # "34", or None when empty
    state.file("/sdcard/Download/notes.txt")                           # the text, or None when there is none
    state.table("/data/data/PKG/databases/app.db", "notes", ("title",))  # [{"title": "..."}]: a database's rows

A value that cannot be read (the command is missing, the provider is unknown or refuses the shell user, the file
is unreadable) raises `StateUnreadable` naming the command and the device's answer: the caller decides what that
means (a state check treats it as "does not hold", with the reason). Device failures (the device or adb server
gone) propagate as `DeviceError`s, as everywhere.

`content query` prints one line per row, `Row: N col=value, col=value, ...` (NULL for a null), or
"No result found."; a value may itself contain ", " or "=" or a newline, so `parse_rows` splits a row only
before the columns it expects (the projection) when it knows them.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence

from harness.device.fastadb import ShellResult
from harness.errors import HarnessError

Shell = Callable[[Sequence[str]], ShellResult]  # argv -> result (the device quotes and runs it)
Row = dict[str, str | None]

_ROW = re.compile(r"^Row: (\d+) ?(.*)$")
_COLUMN = re.compile(r"(?:^|, )([A-Za-z_][A-Za-z0-9_]*)=")
# how Android's shell tools start what they print when they cannot answer (with shell v1, stderr comes on stdout
# and there is no exit status to go by)
_FAILURES = (
    "Error while accessing provider",
    "java.lang.",
    "Exception occurred",
    "[ERROR]",
    "cat: ",
    "/system/bin/sh: ",
)


_DENIED = re.compile(r"permission denied|unable to open|not permitted|readonly", re.IGNORECASE)


def _sqlite_failure(result: ShellResult) -> str | None:
    """What sqlite3 said when it could not answer (its errors start with "Error:"), else None."""
    out = (result.stdout + result.stderr).decode("utf-8", errors="replace").strip()
    return out if out.startswith("Error") else None


class StateUnreadable(HarnessError):
    """Device state could not be read (names the command and what the device said)."""


def parse_rows(text: str, projection: Sequence[str] = ()) -> list[Row]:
    """The rows of `content query` output. "No result found." (or nothing) is no row. With a `projection` the
    columns are exactly those, in that order, so a value may contain ", x=" safely; without one, a row is split
    before every ", name=" (a value containing such text is then split too). NULL reads as None."""
    lines = text.replace("\r\n", "\n").split("\n")
    raw: list[str] = []
    for line in lines:
        if _ROW.match(line):
            raw.append(line)
        elif raw:  # a value with a newline continues on the next line
            raw[-1] += "\n" + line
        elif line.strip() and line.strip() != "No result found.":
            raise ValueError(f"not content query output: {line.strip()[:120]!r}")
    rows = []
    for r in raw:
        first, nl, rest = r.partition("\n")
        m = _ROW.match(first)
        assert m is not None
        rows.append(_split_row((m.group(2) + nl + rest).rstrip("\n"), tuple(projection)))
    return rows


def _split_row(body: str, projection: tuple[str, ...]) -> Row:
    cuts: list[tuple[int, int, str]] = []  # (start of "name=", start of its value, name)
    if projection:
        pos = 0
        for i, col in enumerate(projection):
            marker = f"{col}=" if i == 0 else f", {col}="
            at = body.find(marker, pos) if i else (0 if body.startswith(marker) else -1)
            if at < 0:
                raise ValueError(f"content query row has no column {col!r}: {body[:120]!r}")
            start = at if i == 0 else at + 2
            cuts.append((at, start + len(col) + 1, col))
            pos = start + len(col) + 1
    else:
        cuts = [(m.start(), m.end(), m.group(1)) for m in _COLUMN.finditer(body)]
        if body and (not cuts or cuts[0][0] != 0):
            raise ValueError(f"content query row does not start with a column: {body[:120]!r}")
    row: Row = {}
    for i, (_, value_at, name) in enumerate(cuts):
        end = cuts[i + 1][0] if i + 1 < len(cuts) else len(body)
        value = body[value_at:end]
        row[name] = None if value == "NULL" else value
    return row


def _failure(result: ShellResult) -> str | None:
    """What the device said when a command failed, else None."""
    out = (result.stdout + result.stderr).decode("utf-8", errors="replace").strip()
    if result.exit_code not in (0, None):
        return out or f"exit status {result.exit_code}"
    head = out.splitlines()[0] if out else ""
    return out if head.startswith(_FAILURES) else None


class DeviceState:
    """Typed reads of device state over a shell (`Device.shell`)."""

    def __init__(self, shell: Shell) -> None:
        self._shell = shell

    def _run(self, argv: Sequence[str]) -> str:
        result = self._shell(argv)
        why = _failure(result)
        if why is not None:
            raise StateUnreadable(f"{' '.join(argv[:2])}: {' '.join(why.split())[:300]}")
        return result.stdout.decode("utf-8", errors="replace")

    def setting(self, namespace: str, key: str) -> str | None:
        """`settings get NAMESPACE KEY`; None when unset (`null`)."""
        out = self._run(("settings", "get", namespace, key)).rstrip("\r\n")
        return None if out == "null" else out

    def query(self, uri: str, projection: Sequence[str] = (), where: str | None = None) -> list[Row]:
        """`content query --uri URI [--projection a:b] [--where SQL]`: the rows (column -> value, None = NULL)."""
        argv = ["content", "query", "--uri", uri]
        if projection:
            argv += ["--projection", ":".join(projection)]
        if where:
            argv += ["--where", where]
        text = self._run(argv)
        try:
            return parse_rows(text, projection)
        except ValueError as e:
            raise StateUnreadable(f"content query {uri}: {e}") from None

    def insert(self, uri: str, values: dict[str, str | int | float | bool | None]) -> None:
        """`content insert --uri URI --bind COLUMN:TYPE:VALUE ...` (TYPE from the value: s, i, d, b, n for
        None); what the device refuses raises `StateUnreadable` naming the command and its answer."""
        argv = ["content", "insert", "--uri", uri]
        for col, v in values.items():
            kind = "n" if v is None else "b" if isinstance(v, bool) else "i" if isinstance(v, int) else "s"
            kind = "d" if isinstance(v, float) else kind
            text = "" if v is None else str(v).lower() if isinstance(v, bool) else str(v)
            argv += ["--bind", f"{col}:{kind}:{text}"]
        self._run(argv)

    def prop(self, name: str) -> str | None:
        """`getprop NAME`; None when the property is empty or unset."""
        out = self._run(("getprop", name)).rstrip("\r\n")
        return out or None

    def table(self, path: str, table: str, columns: Sequence[str], where: str | None = None) -> list[Row]:
        """`sqlite3 PATH "SELECT ... FROM TABLE [WHERE W]"` on a database file (an app's, read as root through `su 0`
        when the shell user may not open it): the rows (column -> text, None = NULL). Each value is selected as
        its NULL flag and its hex, so no text in it can split a row or a line."""
        cols = ", ".join(f'("{c}" IS NULL), hex("{c}")' for c in columns)
        sql = f'SELECT {cols} FROM "{table}"' + (f" WHERE {where}" if where else "")
        argv = ("sqlite3", path, sql)
        result = self._shell(argv)
        why = _failure(result) or _sqlite_failure(result)
        if why is not None and _DENIED.search(why):
            result = self._shell(("su", "0", *argv))
            why = _failure(result) or _sqlite_failure(result)
        if why is not None:
            raise StateUnreadable(f"sqlite3 {path}: {' '.join(why.split())[:300]}")
        rows: list[Row] = []
        for line in result.stdout.decode("utf-8", errors="replace").replace("\r\n", "\n").split("\n"):
            if not line.strip():
                continue
            cells = line.split("|")
            if len(cells) != 2 * len(columns):
                raise StateUnreadable(f"sqlite3 {path}: not {len(columns)} column(s): {line[:120]!r}")
            row: Row = {}
            for i, col in enumerate(columns):
                null, value = cells[2 * i].strip(), cells[2 * i + 1].strip()
                try:
                    row[col] = None if null == "1" else bytes.fromhex(value).decode("utf-8", errors="replace")
                except ValueError:
                    raise StateUnreadable(f"sqlite3 {path}: not a hex value: {value[:60]!r}") from None
            rows.append(row)
        return rows

    def file(self, path: str) -> str | None:
        """`cat PATH`: the file's text; None when there is no such file (unreadable: `StateUnreadable`)."""
        result = self._shell(("cat", path))
        why = _failure(result)
        if why is None:
            return result.stdout.decode("utf-8", errors="replace")
        if "No such file or directory" in why:
            return None
        raise StateUnreadable(f"cat {path}: {' '.join(why.split())[:300]}")


__all__ = ["DeviceState", "Row", "Shell", "StateUnreadable", "parse_rows"]
