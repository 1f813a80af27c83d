"""Text filters (toybox applets) for pipes and files: grep, head, tail, wc, cut, sort, uniq, tr, base64."""

from __future__ import annotations

import base64 as b64
import binascii
import re

from ..fs import FsError
from .cmd_dd import parse_size
from .cmd_text import backslash_unescape
from .devnodes import open_input
from .registry import Ctx, UsageError, command, fs_error_text


def _inputs(ctx: Ctx, files: list[str], name: str) -> list[tuple[str, bytes | None]]:
    """(name, data) per input; data None when unreadable (an error was printed)."""
    if not files or files == ["-"]:
        return [("(standard input)", ctx.stdin_all())]
    out: list[tuple[str, bytes | None]] = []
    for f in files:
        if f == "-":
            out.append(("(standard input)", ctx.stdin_all()))
            continue
        try:
            out.append((f, ctx.read_file(f)))
        except (FsError, OSError) as e:
            ctx.errln(f"{name}: {f}: {fs_error_text(e)}")
            out.append((f, None))
    return out


def _lines(data: bytes) -> list[str]:
    return data.decode("utf-8", "surrogateescape").splitlines()


def _bre_to_re(p: str) -> str:
    """POSIX basic regex -> Python: \\( \\) \\{ \\} \\| \\+ \\? are operators, their bare forms literal."""
    out, i = [], 0
    while i < len(p):
        c = p[i]
        if c == "\\" and i + 1 < len(p):
            n = p[i + 1]
            out.append(n if n in "(){}|+?" else "\\" + n)
            i += 2
            continue
        out.append("\\" + c if c in "(){}|+?" else c)
        i += 1
    return "".join(out)


@command("grep", "egrep", "fgrep", toybox=True)
def grep(ctx: Ctx, argv: list[str]) -> int:
    args = argv[1:]
    opts: set[str] = {"E"} if argv[0] == "egrep" else ({"F"} if argv[0] == "fgrep" else set())
    patterns: list[str] = []
    files: list[str] = []
    max_count = -1
    positional: list[str] = []
    i = 0
    while i < len(args):
        a = args[i]
        if a == "--":
            positional.extend(args[i + 1 :])
            break
        if a in ("-e", "-m") or (a.startswith("-e") and len(a) > 2) or (a.startswith("-m") and len(a) > 2):
            val = a[2:] if len(a) > 2 else (args[i + 1] if i + 1 < len(args) else "")
            i += 1 if len(a) > 2 else 2
            if a.startswith("-e"):
                patterns.append(val)
            else:
                max_count = int(val) if val.isdigit() else -1
            continue
        if a.startswith("-") and len(a) > 1:
            opts.update(a[1:])
            i += 1
            continue
        positional.append(a)
        i += 1
    if not patterns and positional:
        patterns.append(positional.pop(0))
    files.extend(positional)
    if not patterns:
        ctx.errln("usage: grep [-EFinovclqsw] PATTERN [FILE...]")
        return 2
    flags = re.IGNORECASE if "i" in opts else 0
    try:
        regs = []
        for p in patterns:
            src = re.escape(p) if "F" in opts else (p if "E" in opts else _bre_to_re(p))
            if "w" in opts:
                src = rf"(?<!\w)(?:{src})(?!\w)"
            if "x" in opts:
                src = rf"^(?:{src})$"
            regs.append(re.compile(src, flags))
    except re.error as e:
        ctx.errln(f"grep: bad regex '{patterns[0]}': {e}")
        return 2
    inputs = _inputs(ctx, files, "grep")
    many = len(inputs) > 1
    found = False
    for name, data in inputs:
        if data is None:
            continue
        count = 0
        for n, line in enumerate(_lines(data), 1):
            hits = [m for r in regs for m in r.finditer(line)] if "o" in opts else None
            matched = bool(hits) if hits is not None else any(r.search(line) for r in regs)
            if matched == ("v" in opts):
                continue
            count += 1
            found = True
            if "q" in opts:
                return 0
            if "c" not in opts and "l" not in opts:
                prefix = (name + ":" if many else "") + (f"{n}:" if "n" in opts else "")
                if hits and "v" not in opts:
                    for m in hits:
                        ctx.outln(prefix + m.group(0))
                else:
                    ctx.outln(prefix + line)
            if max_count >= 0 and count >= max_count:
                break
        if "c" in opts:
            ctx.outln((name + ":" if many else "") + str(count))
        elif "l" in opts and count:
            ctx.outln(name)
    if any(d is None for _, d in inputs) and "s" not in opts:
        return 2
    return 0 if found else 1


def _count_arg(args: list[str], default: int) -> tuple[str, list[str]]:
    """head/tail: -n N, -nN, -N -> (count text, remaining args)."""
    n = str(default)
    rest: list[str] = []
    i = 0
    while i < len(args):
        a = args[i]
        if a == "-n" and i + 1 < len(args):
            n = args[i + 1]
            i += 2
            continue
        if a.startswith("-n") and len(a) > 2:
            n = a[2:]
        elif re.fullmatch(r"-\d+", a):
            n = a[1:]
        else:
            rest.append(a)
        i += 1
    return n, rest


def _byte_count(args: list[str]) -> tuple[str | None, list[str]]:
    """head/tail -c N (or -cN): (N's text, the other args); None without -c."""
    for i, a in enumerate(args):
        if a == "-c" and i + 1 < len(args):
            return args[i + 1], args[:i] + args[i + 2 :]
        if a.startswith("-c") and len(a) > 2:
            return a[2:], args[:i] + args[i + 1 :]
    return None, args


def _bytes_of(ctx: Ctx, name: str, text: str, limit: int | None) -> int:
    """Write the first `limit` bytes (None: all) of the command's input `name` (files, "-", endless /dev nodes)."""
    try:
        src = open_input(ctx, name)
    except (FsError, OSError) as e:
        ctx.errln(f"{text}: {name}: {fs_error_text(e)}")
        return 1
    left = limit
    while left is None or left > 0:
        chunk = src.read(65536 if left is None else min(left, 65536))
        if not chunk:
            break
        ctx.io.write_stdout(chunk)
        if left is not None:
            left -= len(chunk)
    return 0


@command("head", toybox=True)
def head(ctx: Ctx, argv: list[str]) -> int:
    nbytes, rest = _byte_count(argv[1:])
    if nbytes is not None:
        try:
            limit = parse_size(nbytes, 0)
        except UsageError:
            raise UsageError(f"head: not integer: {nbytes}") from None
        _, files = _count_arg(rest, 10)
        return max([_bytes_of(ctx, f, "head", limit) for f in files or ["-"]])
    n, files = _count_arg(argv[1:], 10)
    count = int(n) if n.lstrip("-").isdigit() else 10
    status = 0
    for _name, data in _inputs(ctx, files, "head"):
        if data is None:
            status = 1
            continue
        lines = data.splitlines(keepends=True)
        ctx.io.write_stdout(b"".join(lines[:count] if count >= 0 else lines[:count]))
    return status


@command("tail", toybox=True)
def tail(ctx: Ctx, argv: list[str]) -> int:
    nbytes, rest = _byte_count(argv[1:])
    n, files = _count_arg(rest, 10)
    status = 0
    if nbytes is not None:
        try:
            k = parse_size(nbytes.lstrip("+-"), 0)
        except UsageError:
            raise UsageError(f"tail: not integer: {nbytes}") from None
        for _name, data in _inputs(ctx, files, "tail"):
            if data is None:
                status = 1
                continue
            ctx.io.write_stdout(data[max(0, k - 1) :] if nbytes.startswith("+") else (data[-k:] if k else b""))
        return status
    for _name, data in _inputs(ctx, files, "tail"):
        if data is None:
            status = 1
            continue
        lines = data.splitlines(keepends=True)
        if n.startswith("+") and n[1:].isdigit():
            chunk = lines[max(0, int(n[1:]) - 1) :]
        else:
            k = int(n.lstrip("-")) if n.lstrip("-").isdigit() else 10
            chunk = lines[-k:] if k else []
        ctx.io.write_stdout(b"".join(chunk))
    return status


@command("wc", toybox=True)
def wc(ctx: Ctx, argv: list[str]) -> int:
    opts = "".join(a[1:] for a in argv[1:] if a.startswith("-") and len(a) > 1) or "lwc"
    files = [a for a in argv[1:] if not (a.startswith("-") and len(a) > 1)]
    status = 0
    for name, data in _inputs(ctx, files, "wc"):
        if data is None:
            status = 1
            continue
        vals = []
        for o in "lwcm":
            if o in opts:
                vals.append(
                    {
                        "l": data.count(b"\n"),
                        "w": len(data.split()),
                        "c": len(data),
                        "m": len(data.decode("utf-8", "replace")),
                    }[o]
                )
        text = " ".join(str(v) for v in vals) if len(vals) == 1 else " ".join(f"{v:7d}" for v in vals)
        ctx.outln(text + ("" if not files else f" {name}"))
    return status


def _ranges(spec: str) -> list[tuple[int, int]]:
    out = []
    for part in spec.split(","):
        a, dash, b = part.partition("-")
        lo = int(a) if a else 1
        hi = (int(b) if b else 1 << 30) if dash else lo
        out.append((lo, hi))
    return out


@command("cut", toybox=True)
def cut(ctx: Ctx, argv: list[str]) -> int:
    delim, fields, chars, files = "\t", None, None, []
    args = argv[1:]
    i = 0
    while i < len(args):
        a = args[i]
        for flag in ("-d", "-f", "-c", "-b"):
            if a.startswith(flag):
                val = a[2:] if len(a) > 2 else (args[i + 1] if i + 1 < len(args) else "")
                if len(a) == 2:
                    i += 1
                if flag == "-d":
                    delim = val[:1] or "\t"
                elif flag == "-f":
                    fields = _ranges(val)
                else:
                    chars = _ranges(val)
                break
        else:
            files.append(a)
        i += 1
    if fields is None and chars is None:
        ctx.errln("cut: Needs -fcb")
        return 1
    for _, data in _inputs(ctx, files, "cut"):
        if data is None:
            continue
        for line in _lines(data):
            if chars is not None:
                ctx.outln("".join(c for k, c in enumerate(line, 1) if any(lo <= k <= hi for lo, hi in chars)))
            elif delim not in line:
                ctx.outln(line)
            else:
                parts = line.split(delim)
                ctx.outln(
                    delim.join(p for k, p in enumerate(parts, 1) if any(lo <= k <= hi for lo, hi in fields or []))
                )
    return 0


@command("sort", toybox=True)
def sort(ctx: Ctx, argv: list[str]) -> int:
    opts = "".join(a[1:] for a in argv[1:] if a.startswith("-") and len(a) > 1)
    files = [a for a in argv[1:] if not (a.startswith("-") and len(a) > 1)]
    lines: list[str] = []
    for _, data in _inputs(ctx, files, "sort"):
        lines += _lines(data or b"")

    def numeric(s: str) -> tuple[float, str]:
        m = re.match(r"\s*(-?\d+(?:\.\d+)?)", s)
        return (float(m.group(1)) if m else 0.0, s)

    if "n" in opts:
        lines.sort(key=numeric, reverse="r" in opts)
    else:
        lines.sort(reverse="r" in opts)
    if "u" in opts:
        lines = list(dict.fromkeys(lines))
    ctx.out("".join(line + "\n" for line in lines))
    return 0


@command("uniq", toybox=True)
def uniq(ctx: Ctx, argv: list[str]) -> int:
    files = [a for a in argv[1:] if not a.startswith("-")]
    count = "-c" in argv
    prev: str | None = None
    n = 0
    out = []
    for _, data in _inputs(ctx, files[:1], "uniq"):
        for line in _lines(data or b""):
            if line == prev:
                n += 1
                continue
            if prev is not None:
                out.append(f"{n:7d} {prev}" if count else prev)
            prev, n = line, 1
    if prev is not None:
        out.append(f"{n:7d} {prev}" if count else prev)
    ctx.out("".join(o + "\n" for o in out))
    return 0


@command("tr", toybox=True)
def tr(ctx: Ctx, argv: list[str]) -> int:
    args = [a for a in argv[1:]]
    delete = "-d" in args
    args = [a for a in args if a not in ("-d", "-s")]

    def expand(s: str) -> str:
        s = backslash_unescape(s)[0]
        s = s.replace("[:upper:]", "A-Z").replace("[:lower:]", "a-z").replace("[:digit:]", "0-9")
        s = s.replace("[:space:]", " \t\n\r\v\f")
        return re.sub(r"(.)-(.)", lambda m: "".join(chr(c) for c in range(ord(m.group(1)), ord(m.group(2)) + 1)), s)

    text = ctx.stdin_all().decode("utf-8", "surrogateescape")
    if delete and args:
        table: dict[int, str | None] = {ord(c): None for c in expand(args[0])}
    elif len(args) >= 2:
        a, b = expand(args[0]), expand(args[1])
        b = (b + b[-1:] * len(a))[: len(a)] if b else ""
        table = {ord(x): y for x, y in zip(a, b, strict=False)}  # b is empty or as long as a
    else:
        ctx.errln("tr: Needs 1 argument")
        return 1
    ctx.out(text.translate(table))
    return 0


@command("base64", toybox=True)
def base64(ctx: Ctx, argv: list[str]) -> int:
    files = [a for a in argv[1:] if not a.startswith("-")]
    data = b"".join(d or b"" for _, d in _inputs(ctx, files, "base64"))
    if "-d" in argv or "--decode" in argv:
        try:
            ctx.io.write_stdout(b64.b64decode(b"".join(data.split()), validate=False))
        except (binascii.Error, ValueError):
            ctx.errln("base64: bad input")
            return 1
        return 0
    enc = b64.b64encode(data).decode()
    ctx.out("".join(enc[i : i + 76] + "\n" for i in range(0, len(enc), 76)))
    return 0
