"""`content` (the shell's content-provider client) for the providers clients read: settings (system, secure,
global) and contacts (com.android.contacts: contacts, data/phones, raw_contacts). `query` prints
"Row: N col=value, ..." lines or "No result found."; `insert`/`update`/`delete` change settings.
Projections are `--projection a:b`, selections `--where "name='x'"` (equality on one column, AND-joined)."""

from __future__ import annotations

import re
from typing import Any

from .registry import Ctx, command

_USAGE = (
    "usage: adb shell content [subcommand] [options]\n\nusage: adb shell content query --uri <URI> "
    "[--user <USER_ID>] [--projection <PROJECTION>] [--where <WHERE>] [--sort <SORT_ORDER>]"
)


def _settings_rows(ctx: Ctx, table: str) -> list[dict[str, Any]]:
    values = ctx.model.settings.get(table, {})
    return [{"_id": i + 1, "name": k, "value": v} for i, (k, v) in enumerate(values.items())]


def _contacts(ctx: Ctx) -> list[dict[str, Any]]:
    from ..apps.contacts import contacts_of

    return contacts_of(ctx.model)


def _rows(ctx: Ctx, uri: str) -> tuple[list[str], list[dict[str, Any]]] | None:
    m = re.fullmatch(r"content://settings/(system|secure|global)(?:/([^/]+))?", uri)
    if m:
        rows = _settings_rows(ctx, m.group(1))
        if m.group(2):
            rows = [r for r in rows if r["name"] == m.group(2)]
        return ["_id", "name", "value"], rows
    if uri in ("content://com.android.contacts/contacts", "content://contacts/people"):
        rows = [
            {
                "_id": c["id"],
                "display_name": c["name"],
                "has_phone_number": 1 if c.get("phone") else 0,
                "starred": 0,
                "lookup": f"0r{c['id']}-{c['name'].replace(' ', '')}",
            }
            for c in _contacts(ctx)
        ]
        return ["_id", "display_name", "has_phone_number", "starred", "lookup"], rows
    if uri == "content://com.android.contacts/raw_contacts":
        rows = [
            {"_id": c["id"], "contact_id": c["id"], "display_name": c["name"], "account_type": None, "deleted": 0}
            for c in _contacts(ctx)
        ]
        return ["_id", "contact_id", "display_name", "account_type", "deleted"], rows
    if uri in ("content://com.android.contacts/data/phones", "content://com.android.contacts/data"):
        rows = [
            {
                "_id": 100 + c["id"],
                "contact_id": c["id"],
                "display_name": c["name"],
                "mimetype": "vnd.android.cursor.item/phone_v2",
                "data1": c["phone"],
                "data2": 2,
            }
            for c in _contacts(ctx)
            if c.get("phone")
        ]
        return ["_id", "contact_id", "display_name", "mimetype", "data1", "data2"], rows
    return None


def _where(expr: str | None) -> list[tuple[str, str]]:
    if not expr:
        return []
    out = []
    for part in re.split(r"\s+AND\s+", expr.strip(), flags=re.I):
        m = re.fullmatch(r"\s*([A-Za-z_][A-Za-z0-9_]*)\s*=\s*(?:'([^']*)'|\"([^\"]*)\"|(-?\d+))\s*", part)
        if not m:
            raise ValueError(f"unsupported selection: {part}")
        out.append((m.group(1), next(g for g in m.groups()[1:] if g is not None)))
    return out


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


def _provider_error(ctx: Ctx, uri: str) -> int:
    authority = uri[len("content://") :].split("/", 1)[0] if uri.startswith("content://") else uri
    ctx.errln(f"Error while accessing provider:{authority}")
    ctx.errln(f"java.lang.IllegalArgumentException: Unknown URI {uri}")
    return 1


@command("content")
def content(ctx: Ctx, argv: list[str]) -> int:
    args = argv[1:]
    if not args or args[0] not in ("query", "insert", "update", "delete"):
        ctx.errln(_USAGE)
        return 1
    verb, opts = args[0], _opts(args[1:])
    uri = (opts.get("uri") or [""])[0]
    if not uri:
        ctx.errln("[ERROR] Content provider URI not specified")
        return 1
    try:
        where = _where(_first(opts, "where"))
    except ValueError as e:
        ctx.errln(f"Error while accessing provider:{uri}\njava.lang.IllegalArgumentException: {e}")
        return 1
    if verb == "query":
        found = _rows(ctx, uri)
        if found is None:
            return _provider_error(ctx, uri)
        columns, rows = found
        rows = [r for r in rows if all(_format(r.get(k)) == v for k, v in where)]
        projection = _first(opts, "projection")
        if projection:
            columns = [c for c in re.split(r"[:,]", projection) if c]
        sort = _first(opts, "sort")
        if sort:
            key, _, direction = sort.partition(" ")
            rows.sort(key=lambda r: (r.get(key) is None, r.get(key)), reverse=direction.upper() == "DESC")
        if not rows:
            ctx.outln("No result found.")
            return 0
        for i, r in enumerate(rows):
            ctx.outln(f"Row: {i} " + ", ".join(f"{c}={_format(r.get(c))}" for c in columns))
        return 0
    m = re.fullmatch(r"content://settings/(system|secure|global)", uri)
    if not m:
        return _provider_error(ctx, uri)
    table = ctx.model.settings.setdefault(m.group(1), {})
    binds = {}
    for b in opts.get("bind", []):
        name, _, rest = b.partition(":")
        _kind, _, value = rest.partition(":")
        binds[name] = value
    with ctx.model.lock:
        if verb == "insert":
            if "name" not in binds:
                ctx.errln("[ERROR] Bindings not specified")
                return 1
            table[binds["name"]] = binds.get("value", "")
        elif verb == "update":
            targets = [k for k in table if all(_format({"name": k, "value": table[k]}.get(c)) == v for c, v in where)]
            for k in targets:
                table[k] = binds.get("value", table[k])
        else:
            for k in [k for k in table if all(_format({"name": k, "value": table[k]}.get(c)) == v for c, v in where)]:
                del table[k]
    ctx.model.events.log("settings", action=verb, table=m.group(1), binds=binds)
    return 0
