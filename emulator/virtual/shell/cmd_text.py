"""Shell basics (mksh builtins and toybox applets): echo, printf, true/false, sleep, test/[, seq, basename,
dirname, which, toybox. Text filters (grep, head, ...) are in `cmd_filters`."""

from __future__ import annotations

import re
import time

from .registry import COMMANDS, SH, TOYBOX_APPLETS, Ctx, command

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
    # interruptible: a closed stream ends the sleep as SIGHUP would
    deadline = time.monotonic() + max(0.0, secs)
    while not ctx.io.closed:
        left = deadline - time.monotonic()
        if left <= 0:
            break
        step = min(0.2, left)
        t0 = time.monotonic()
        if ctx.io.wait_closed(step):
            break
        if time.monotonic() - t0 < step / 2:  # wait_closed returned early: do not spin
            time.sleep(step)
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


@command("seq", toybox=True)
def seq(ctx: Ctx, argv: list[str]) -> int:
    try:
        nums = [int(a) for a in argv[1:]]
    except ValueError:
        ctx.errln("seq: invalid number")
        return 1
    if not nums or len(nums) > 3:
        ctx.errln("seq: Needs 1 argument")
        return 1
    first, step, last = (
        (1, 1, nums[0])
        if len(nums) == 1
        else ((nums[0], 1, nums[1]) if len(nums) == 2 else (nums[0], nums[1], nums[2]))
    )
    if step == 0:
        return 1
    vals = range(first, last + (1 if step > 0 else -1), step)
    ctx.out("".join(f"{v}\n" for v in list(vals)[:100000]))
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
        if name in COMMANDS and name not in ("[", "cd", "echo", "printf", "test"):
            ctx.outln(f"/system/bin/{name}")
        else:
            status = 1
    return status


@command("toybox")
def toybox(ctx: Ctx, argv: list[str]) -> int:
    """Bare `toybox`: the applet list (toybox X ... is dispatched by the runner)."""
    names = sorted(TOYBOX_APPLETS)
    ctx.outln(" ".join(names))
    return 0
