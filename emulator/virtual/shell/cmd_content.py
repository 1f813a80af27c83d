"""`content` (the shell's content-provider client, Android's `cmd content`) over the virtual device's providers
(`emulator.virtual.providers`: settings, contacts, sms, the clock's alarms).

    content query --uri URI [--user N] [--projection a:b] [--where SQL] [--sort "col [ASC|DESC]"]
    content insert --uri URI --bind name:TYPE:value ...        (TYPE: s, i, l, f, d, b; n for null)
    content update --uri URI --bind name:TYPE:value ... [--where SQL]
    content delete --uri URI [--where SQL]

`query` prints "Row: N col=value, col=value" per row (NULL for a null) or "No result found."; insert, update
and delete print nothing. An unknown URI, a column the table lacks, a selection the provider cannot evaluate
or a change it refuses print "Error while accessing provider:AUTHORITY" and the exception, exit status 1.
"""

from __future__ import annotations

from typing import Any

from ..providers import ProviderError, SelectionError, UnknownUri, Values, resolve, selection
from .registry import Ctx, command

_USAGE = (
    "usage: adb shell content [subcommand] [options]\n\nusage: adb shell content query --uri <URI> "
    "[--user <USER_ID>] [--projection <PROJECTION>] [--where <WHERE>] [--sort <SORT_ORDER>]"
)


def _format(value: Any) -> str:
    return "NULL" if value is None else str(value)


def _opts(args: list[str]) -> dict[str, list[str]]:
    out: dict[str, list[str]] = {}
    i = 0
    while i < len(args):
        a = args[i]
        if a.startswith("--") and i + 1 < len(args):
            out.setdefault(a[2:], []).append(args[i + 1])
            i += 2
        else:
            i += 1
    return out


def _first(opts: dict[str, list[str]], name: str) -> str | None:
    """The first value given for `--name`, None when absent."""
    values = opts.get(name)
    return values[0] if values else None


def _binds(specs: list[str]) -> Values:
    out: Values = {}
    for b in specs:
        name, _, rest = b.partition(":")
        kind, _, value = rest.partition(":")
        if not name or kind not in ("s", "i", "l", "f", "d", "b", "n"):
            raise ProviderError(f"Invalid binding: {b}")
        try:
            out[name] = (
                None
                if kind == "n"
                else int(value)
                if kind in ("i", "l")
                else float(value)
                if kind in ("f", "d")
                else (1 if value.lower() == "true" else 0)
                if kind == "b"
                else value
            )
        except ValueError:
            raise ProviderError(f"Invalid binding value: {b}") from None
    return out


def _error(ctx: Ctx, uri: str, exception: str) -> int:
    authority = uri[len("content://") :].split("/", 1)[0] if uri.startswith("content://") else uri
    ctx.errln(f"Error while accessing provider:{authority}")
    ctx.errln(exception)
    return 1


def _query(ctx: Ctx, uri: str, opts: dict[str, list[str]]) -> int:
    provider, path = resolve(uri)
    where = selection(_first(opts, "where"))
    with ctx.model.lock:
        table = provider.query(ctx.model, path)
    rows = [r for r in table.rows if where(r)]
    projection = _first(opts, "projection")
    columns = [c for c in projection.replace(",", ":").split(":") if c] if projection else table.columns
    unknown = [c for c in columns if c not in table.columns]
    if unknown:
        return _error(ctx, uri, f"android.database.sqlite.SQLiteException: no such column: {unknown[0]}")
    sort = _first(opts, "sort")
    if sort:
        key, _, direction = sort.strip().partition(" ")
        rows.sort(key=lambda r: (r.get(key) is None, r.get(key)), reverse=direction.strip().upper() == "DESC")
    if not rows:
        ctx.outln("No result found.")
        return 0
    for i, r in enumerate(rows):
        ctx.outln(f"Row: {i} " + ", ".join(f"{c}={_format(r.get(c))}" for c in columns))
    return 0


@command("content")
def content(ctx: Ctx, argv: list[str]) -> int:
    args = argv[1:]
    if not args or args[0] not in ("query", "insert", "update", "delete"):
        ctx.errln(_USAGE)
        return 1
    verb, opts = args[0], _opts(args[1:])
    uri = _first(opts, "uri") or ""
    if not uri:
        ctx.errln("[ERROR] Content provider URI not specified")
        return 1
    try:
        if verb == "query":
            return _query(ctx, uri, opts)
        provider, path = resolve(uri)
        if verb == "insert":
            binds = _binds(opts.get("bind", []))
            if not binds:
                ctx.errln("[ERROR] Bindings not specified")
                return 1
            provider.insert(ctx.model, path, binds)
        elif verb == "update":
            binds = _binds(opts.get("bind", []))
            if not binds:
                ctx.errln("[ERROR] Bindings not specified")
                return 1
            provider.update(ctx.model, path, binds, selection(_first(opts, "where")))
        else:
            provider.delete(ctx.model, path, selection(_first(opts, "where")))
    except UnknownUri:
        return _error(ctx, uri, f"java.lang.IllegalArgumentException: Unknown URI {uri}")
    except (SelectionError, ProviderError) as e:
        return _error(ctx, uri, f"java.lang.IllegalArgumentException: {e}")
    return 0
