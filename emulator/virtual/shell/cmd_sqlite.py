"""`sqlite3` as google_apis emulator images ship it (/system/xbin/sqlite3; toybox has none), over a database file of
the device's file system, so a provider's database (`providers.store`) read or changed here is the provider's data.

    sqlite3 [-header|-noheader] [-separator SEP] [-list] [-batch] [-bail] DB ["SQL"]

With SQL on the command line it runs that; else it reads SQL (and the dot-commands `.tables`, `.schema [TABLE]`,
`.headers on|off`, `.separator SEP`, `.quit`/`.exit`) from stdin. Rows print in the default list mode: values joined
by `|` (or SEP), NULL as nothing, a header line of column names with `-header`. An error prints as the CLI prints it
(`Error: in prepare, no such table: x (1)`; from stdin `Error: near line N: ...`) and makes the status 1; with SQL on
the command line, or `-bail`, the rest is not run. A changed database is written back to its file.
"""

from __future__ import annotations

import sqlite3
from typing import Any

from ..fs import FsError
from ..sqlitefile import open_bytes, to_bytes
from .registry import Ctx, command

_USAGE = "Usage: sqlite3 [OPTIONS] FILENAME [SQL]\nUse the -help option for additional information"


def _value(v: Any) -> str:
    if v is None:
        return ""
    if isinstance(v, float):
        text = f"{v:.15g}"
        return text if any(c in text for c in ".eninf") else text + ".0"
    if isinstance(v, bytes):
        return v.decode("utf-8", "replace")
    return str(v)


def _statements(sql: str) -> list[str]:
    """The statements of a text, each up to the `;` that completes it (a trailing incomplete one too)."""
    out: list[str] = []
    cur = ""
    for part in sql.split(";"):
        cur += part + ";"
        if sqlite3.complete_statement(cur):
            if cur.strip(" \t\n;"):
                out.append(cur)
            cur = ""
    cur = cur[:-1]
    if cur.strip():
        out.append(cur)
    return out


class _Session:
    def __init__(self, ctx: Ctx, conn: sqlite3.Connection, header: bool, sep: str) -> None:
        self.ctx, self.conn, self.header, self.sep = ctx, conn, header, sep

    def run_sql(self, sql: str) -> str | None:
        """Run one statement (several, as the CLI does, for a line with more); the error text or None."""
        for stmt in _statements(sql):
            try:
                cur = self.conn.execute(stmt)
                rows = cur.fetchall()
            except sqlite3.Error as e:
                return self._error(e)
            if cur.description and (rows or self.header):
                if self.header:
                    self.ctx.outln(self.sep.join(d[0] for d in cur.description))
                for r in rows:
                    self.ctx.outln(self.sep.join(_value(v) for v in r))
        return None

    @staticmethod
    def _error(e: sqlite3.Error) -> str:
        code = getattr(e, "sqlite_errorcode", 19 if isinstance(e, sqlite3.IntegrityError) else 1) & 0xFF
        phase = "stepping" if isinstance(e, sqlite3.IntegrityError) else "in prepare"
        return f"{phase}, {e} ({code})"

    def dot(self, line: str) -> str | None:
        words = line.split()
        name, args = words[0], words[1:]
        if name in (".tables", ".table"):
            names = [
                r[0]
                for r in self.conn.execute(
                    "SELECT name FROM sqlite_master WHERE type IN ('table', 'view') AND name NOT LIKE 'sqlite_%' "
                    "ORDER BY name"
                )
            ]
            if names:
                self.ctx.outln("  ".join(names))
        elif name == ".schema":
            where = "AND tbl_name = ?" if args else ""
            for (sql,) in self.conn.execute(
                f"SELECT sql FROM sqlite_master WHERE sql IS NOT NULL {where} ORDER BY rowid", args[:1]
            ):
                self.ctx.outln(sql + ";")
        elif name in (".headers", ".header") and args:
            self.header = args[0].lower() in ("on", "1", "yes", "true")
        elif name == ".separator" and args:
            self.sep = args[0]
        elif name in (".quit", ".exit"):
            return "quit"
        else:
            return f'unknown command or invalid arguments:  "{name[1:]}". Enter ".help" for help'
        return None


@command("sqlite3")
def sqlite3_cmd(ctx: Ctx, argv: list[str]) -> int:
    header, sep, bail = False, "|", False
    rest: list[str] = []
    args = argv[1:]
    i = 0
    while i < len(args):
        a = args[i]
        opt = a[1:] if a.startswith("--") else a
        if rest or not a.startswith("-") or a == "-":
            rest.append(a)
        elif opt in ("-header", "-noheader"):
            header = opt == "-header"
        elif opt == "-separator" and i + 1 < len(args):
            i += 1
            sep = args[i]
        elif opt == "-bail":
            bail = True
        elif opt in ("-list", "-batch"):
            pass
        elif opt == "-version":
            ctx.outln(f"{sqlite3.sqlite_version} 2022-07-21 15:24:47 (64-bit)")
            return 0
        else:
            ctx.errln(f"sqlite3: Error: unknown option: {a}\nUse -help for a list of options.")
            return 1
        i += 1
    if not rest:
        ctx.errln(_USAGE)
        return 1
    path = ctx.path(rest[0])
    fs = ctx.model.fs
    if fs.is_dir(path) or not fs.is_dir(path.rsplit("/", 1)[0] or "/"):
        ctx.errln(f'Error: unable to open database "{rest[0]}": unable to open database file')
        return 1
    try:
        before = fs.read(path) if fs.exists(path) else b""
        conn = open_bytes(before)
    except (FsError, sqlite3.DatabaseError) as e:
        ctx.errln(f"Error: {e}")
        return 1
    conn.isolation_level = None  # autocommit, as the CLI: each statement is its own transaction
    session = _Session(ctx, conn, header, sep)
    status = 0
    try:
        if len(rest) > 1:
            for sql in rest[1:]:
                err = session.dot(sql) if sql.startswith(".") else session.run_sql(sql)
                if err and err != "quit":
                    ctx.errln(f"Error: {err}")
                    status = 1
                    break
        else:
            status = _script(ctx, session, bail)
        after = to_bytes(conn)
    finally:
        conn.close()
    if after != before:
        if ctx.write_error(path):
            ctx.errln("Error: attempt to write a readonly database (8)")
            return 1
        fs.write(path, after, mode=0o660)
    return status


def _script(ctx: Ctx, session: _Session, bail: bool) -> int:
    status = 0
    text = ctx.stdin_all().decode("utf-8", "replace")
    lines = text.splitlines()
    sql, start = "", 1
    for n, line in enumerate(lines, 1):
        if not sql.strip() and line.strip().startswith("."):
            err = session.dot(line.strip())
            if err == "quit":
                return status
            if err:
                ctx.errln(f"Error: {err}")
                status = 1
                if bail:
                    return status
            continue
        if not sql.strip():
            start = n
        sql += line + "\n"
        if sqlite3.complete_statement(sql):
            err = session.run_sql(sql)
            sql = ""
            if err:
                ctx.errln(f"Error: near line {start}: {err}")
                status = 1
                if bail:
                    return status
    if sql.strip():
        err = session.run_sql(sql)
        if err:
            ctx.errln(f"Error: near line {start}: {err}")
            status = 1
    return status
