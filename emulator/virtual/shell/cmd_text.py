"""Shell basics (mksh builtins and toybox applets): echo, printf, true/false, sleep, test/[, seq, basename,
dirname, which, toybox. Text filters (grep, head, ...) are in `cmd_filters`."""

from __future__ import annotations

import re

from .plumbing import RootSink, RootSource
from .registry import SH, TOYBOX_APPLETS, Ctx, UsageError, command, command_path, find_command

_ESCAPES = {"a": "\a", "b": "\b", "e": "\x1b", "f": "\f", "n": "\n", "r": "\r", "t": "\t", "v": "\v", "\\": "\\"}


def backslash_unescape(s: str) -> tuple[str, bool]:
    """Backslash escapes as echo -e / printf interpret them. Returns (text, stop) where \\c stops output."""
    out, i = [], 0
    while i < len(s):
        c = s[i]
        if c == "\\" and i + 1 < len(s):
            n = s[i + 1]
            if n in _ESCAPES:
                out.append(_ESCAPES[n])
                i += 2
                continue
            if n == "c":
                return "".join(out), True
            if n == "0" or n.isdigit():
                m = re.match(r"0?([0-7]{1,3})", s[i + 1 :])
                if m:
                    out.append(chr(int(m.group(1), 8) & 0xFF))
                    i += 1 + m.end()
                    continue
            if n == "x":
                m = re.match(r"[0-9a-fA-F]{1,2}", s[i + 2 :])
                if m:
                    out.append(chr(int(m.group(0), 16)))
                    i += 2 + m.end()
                    continue
        out.append(c)
        i += 1
    return "".join(out), False


@command("echo", toybox=True)
def echo(ctx: Ctx, argv: list[str]) -> int:
    args = argv[1:]
    newline, escapes = True, True  # mksh's echo interprets backslash escapes unless -E
    while args and re.fullmatch(r"-[neE]+", args[0]):
        for f in args[0][1:]:
            if f == "n":
                newline = False
            elif f == "e":
                escapes = True
            elif f == "E":
                escapes = False
        args = args[1:]
    text = " ".join(args)
    if escapes:
        text, stop = backslash_unescape(text)
        if stop:
            newline = False
    ctx.out(text + ("\n" if newline else ""))
    return 0


@command("printf", toybox=True)
def printf(ctx: Ctx, argv: list[str]) -> int:
    """Escapes are interpreted in the format only; %s arguments are printed as given (%b interprets them)."""
    if len(argv) < 2:
        ctx.errln("printf: Needs 1 argument")
        return 1
    fmt, args = argv[1], argv[2:]
    spec = re.compile(r"%([-+ #0]*\d*(?:\.\d+)?)([sdixXocbu%])")
    out: list[str] = []
    while True:
        used = 0
        pos = 0
        for m in spec.finditer(fmt):
            literal, stop = backslash_unescape(fmt[pos : m.start()])
            out.append(literal)
            if stop:
                ctx.out("".join(out))
                return 0
            pos = m.end()
            flags, conv = m.group(1), m.group(2)
            if conv == "%":
                out.append("%")
                continue
            arg = args[used] if used < len(args) else ""
            used += 1
            if conv == "b":
                out.append(backslash_unescape(arg)[0])
            elif conv in "sc":
                out.append(("%" + flags + "s") % (arg[:1] if conv == "c" else arg))
            else:
                try:
                    num = int(arg, 0) if arg else 0
                except ValueError:
                    ctx.errln(f"printf: invalid number '{arg}'")
                    num = 0
                out.append(("%" + flags + ("d" if conv in "iu" else conv)) % num)
        out.append(backslash_unescape(fmt[pos:])[0])
        args = args[used:]
        if not used or not args:
            break
    ctx.out("".join(out))
    return 0


@command("true", toybox=True)
def true_(ctx: Ctx, argv: list[str]) -> int:
    return 0


@command("false", toybox=True)
def false_(ctx: Ctx, argv: list[str]) -> int:
    return 1


@command("sleep", toybox=True)
def sleep(ctx: Ctx, argv: list[str]) -> int:
    try:
        secs = float(argv[1].rstrip("s")) if len(argv) > 1 else None
    except ValueError:
        secs = None
    if secs is None:
        ctx.errln("sleep: Needs 1 argument" if len(argv) < 2 else f"sleep: invalid number '{argv[1]}'")
        return 1
    # on the device's clock (a virtual one moves on at once); a signal or a closed stream ends it as SIGHUP would
    ctx.model.clock.wait(secs, ctx.io.wait_closed)
    return 0


@command("test", "[", toybox=True)
def test(ctx: Ctx, argv: list[str]) -> int:
    args = argv[1:]
    if argv[0] == "[":
        if not args or args[-1] != "]":
            ctx.errln(f"{SH}: [: missing ]")
            return 2
        args = args[:-1]
    try:
        return 0 if evaluate_test(ctx, args) else 1
    except ValueError as e:
        ctx.errln(f"{SH}: {argv[0]}: {e}")
        return 2


def evaluate_test(ctx: Ctx, a: list[str]) -> bool:
    if not a:
        return False
    if a[0] == "!":
        return not evaluate_test(ctx, a[1:])
    for op in ("-o", "-a"):
        if op in a:
            i = a.index(op)
            left, right = evaluate_test(ctx, a[:i]), evaluate_test(ctx, a[i + 1 :])
            return (left or right) if op == "-o" else (left and right)
    if len(a) == 1:
        return a[0] != ""
    if len(a) == 2:
        op, x = a
        fs = ctx.model.fs
        if op == "-n":
            return x != ""
        if op == "-z":
            return x == ""
        if op == "-t":
            return x.strip().isdigit() and is_terminal(ctx, int(x))
        node = fs.stat(ctx.path(x)) if op in ("-e", "-f", "-d", "-s", "-r", "-w", "-x", "-L", "-h") else None
        if op == "-e" or op in ("-r", "-w", "-x"):
            return node is not None
        if op == "-f":
            return node is not None and not node.is_dir
        if op == "-d":
            return node is not None and node.is_dir
        if op == "-s":
            return node is not None and node.size > 0
        if op in ("-L", "-h"):
            return False
        raise ValueError(f"{op}: unknown operator")
    if len(a) == 3:
        x, op, y = a
        if op in ("=", "=="):
            return x == y
        if op == "!=":
            return x != y
        ints = {
            "-eq": int.__eq__,
            "-ne": int.__ne__,
            "-lt": int.__lt__,
            "-le": int.__le__,
            "-gt": int.__gt__,
            "-ge": int.__ge__,
        }
        if op in ints:
            try:
                return bool(ints[op](int(x), int(y)))
            except ValueError:
                raise ValueError(f"{x if not x.lstrip('-').isdigit() else y}: bad number") from None
    raise ValueError("syntax error")


def is_terminal(ctx: Ctx, fd: int) -> bool:
    """isatty(fd): the fd is the session's own stdin/stdout/stderr and the session has a terminal (a PTY)."""
    fds = ctx.io.fds
    target = {0: fds.stdin, 1: fds.stdout, 2: fds.stderr}.get(fd, fds.extra.get(fd))
    if not isinstance(target, (RootSource, RootSink)):
        return False
    return bool(getattr(target.io, "is_terminal", False))


_SEQ_CONVERSION = re.compile(r"%[-+ #0']*\d*(?:\.\d*)?(?:hh|h|ll|l|L|q|j|z|t)?([A-Za-z%])")
SEQ_CHUNK = 4096  # lines per write: seq streams, and stops when its output goes away


def _seq_number(text: str) -> float:
    """toybox's xstrtod: strtod must take the whole argument."""
    try:
        return float(text)
    except ValueError:
        try:
            return float.fromhex(text) if "0x" in text.lower() else float(int(text, 0))
        except ValueError:
            raise UsageError(f"seq: strtod {text}: Argument list too long") from None


def _seq_format(fmt: str) -> str:
    """toybox's insanitize(): exactly one floating-point conversion (a, e, f, g), `%%` aside."""
    found = [m for m in _SEQ_CONVERSION.finditer(fmt) if m.group(1) != "%"]
    if not found:
        raise UsageError("seq: bad -f no %f")
    bad = found[0] if found[0].group(1) not in "aAeEfFgG" else (found[1] if len(found) > 1 else None)
    if bad is not None:
        raise UsageError(f"seq: bad -f '{fmt}'@{bad.end()}")
    return fmt


def _c_float(fmt: str, value: float) -> str:
    """printf(fmt, value) for a format _seq_format accepted (%a as C prints it: 0x1.8p+1)."""
    m = next(m for m in _SEQ_CONVERSION.finditer(fmt) if m.group(1) != "%")
    conv = m.group(1)
    if conv in "aA":
        mantissa, _, exponent = value.hex().partition("p")
        mantissa = mantissa.rstrip("0").rstrip(".") if "." in mantissa else mantissa
        body = mantissa + ("p" + exponent if exponent else "")
        body = body.upper().replace("0X", "0X") if conv == "A" else body
    else:
        body = re.sub(r"(hh|h|ll|l|L|q|j|z|t)(?=[A-Za-z]$)", "", m.group(0)).replace("'", "") % value
    return fmt[: m.start()].replace("%%", "%") + body + fmt[m.end() :].replace("%%", "%")


def _seq_integers(ctx: Ctx, first: int, increment: int, last: int) -> int:
    if not increment:
        return 0
    stop = last + (1 if increment > 0 else -1)
    for start in range(first, stop, increment * SEQ_CHUNK):
        if ctx.io.closed:
            return 0
        end = start + increment * SEQ_CHUNK
        end = min(end, stop) if increment > 0 else max(end, stop)
        ctx.out("".join(f"{v}\n" for v in range(start, end, increment)))
    return 0


@command("seq", toybox=True)
def seq(ctx: Ctx, argv: list[str]) -> int:
    """toybox seq [-w|-f FMT] [-s SEP] [FIRST [INCREMENT]] LAST: floating point (negative and fractional steps,
    precision from the arguments' decimals), streamed in chunks with no line cap (it stops when the reader is
    gone); INCREMENT 0 prints nothing. Items are joined by SEP and the output ends with a newline."""
    fmt: str | None = None
    sep = "\n"
    width = False
    nums: list[str] = []
    args = argv[1:]
    i = 0
    while i < len(args):
        a = args[i]
        i += 1
        if a == "--":
            nums += args[i:]
            break
        if a[:2] in ("-f", "-s") and not nums:
            value = a[2:] if len(a) > 2 else (args[i] if i < len(args) else None)
            if value is None:
                raise UsageError(f"seq: Missing argument to {a}")
            i += 0 if len(a) > 2 else 1
            if a[1] == "f":
                fmt = value
            else:
                sep = value
        elif a == "-w" and not nums:
            width = True
        else:  # "?" in toybox's optstring: anything else, -5 included, is an argument
            nums.append(a)
    if width and fmt is not None:
        raise UsageError("seq: No 'w' with 'f'")
    if not nums:
        raise UsageError("seq: Needs 1 argument")
    if len(nums) > 3:
        raise UsageError("seq: Max 3 arguments")
    precision = 0
    for n in nums:  # parsef(): the most digits after a '.', up to an exponent
        if "." in n:
            precision = max(precision, len(re.split(r"[eE]", n.split(".", 1)[1])[0]))
    values = [_seq_number(n) for n in nums]
    first, increment, last = (1.0, 1.0, values[0]) if len(values) == 1 else (values[0], 1.0, values[1])
    if len(values) == 3:
        first, increment, last = values
    if fmt is None and sep == "\n" and not width and not precision and all(v.is_integer() for v in values):
        return _seq_integers(ctx, int(first), int(increment), int(last))  # toybox's fast path, same output
    fmt = _seq_format(fmt) if fmt is not None else f"%.{precision}f"
    if width:
        size = max(len(_c_float(fmt, v)) for v in (first, increment, last))
        fmt = f"%0{size}.{precision}f"
    if not increment:
        return 0
    out: list[str] = []
    k = 0
    while True:
        item = first + k * increment  # multiplied, not summed: no accumulated rounding
        if (increment < 0 and item < last) or (increment > 0 and item > last):
            break
        if k:
            out.append(sep)
        out.append(_c_float(fmt, item))
        k += 1
        if k % SEQ_CHUNK == 0:
            if ctx.io.closed:
                return 0
            ctx.out("".join(out))
            out.clear()
    if k:
        out.append("\n")
    ctx.out("".join(out))
    return 0


@command("basename", toybox=True)
def basename(ctx: Ctx, argv: list[str]) -> int:
    if len(argv) < 2:
        ctx.errln("basename: Needs 1 argument")
        return 1
    name = argv[1].rstrip("/").rsplit("/", 1)[-1] or "/"
    if len(argv) > 2 and name.endswith(argv[2]) and name != argv[2]:
        name = name[: -len(argv[2])]
    ctx.outln(name)
    return 0


@command("dirname", toybox=True)
def dirname(ctx: Ctx, argv: list[str]) -> int:
    if len(argv) < 2:
        ctx.errln("dirname: Needs 1 argument")
        return 1
    p = argv[1].rstrip("/")
    ctx.outln(p.rsplit("/", 1)[0] or "/" if "/" in p else ".")
    return 0


@command("which", toybox=True)
def which(ctx: Ctx, argv: list[str]) -> int:
    status = 0
    for name in argv[1:]:
        if name.startswith("-"):
            continue
        if find_command(ctx.model, name) is not None and name not in ("[", "cd", "echo", "printf", "test"):
            ctx.outln(command_path(name))
        else:
            status = 1
    return status


@command("toybox")
def toybox(ctx: Ctx, argv: list[str]) -> int:
    """Bare `toybox`: the applet list (toybox X ... is dispatched by the runner)."""
    names = sorted(TOYBOX_APPLETS)
    ctx.outln(" ".join(names))
    return 0
