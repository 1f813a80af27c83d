"""Shell builtins that need the shell's own state: cd, exit, export, unset, eval, ., sh -c, set, `:`, exec,
break/continue/return, shift, read, command/type/whence, let, local/typeset."""

from __future__ import annotations

from collections.abc import Callable

from ..fs import FsError
from .arith import ArithError
from .jobs import JOB_BUILTINS
from .plumbing import ExitShell, LoopControl, ReturnFunc
from .registry import SH, Ctx, command_path, find_command


def _cd(ctx: Ctx, argv: list[str]) -> int:
    target = argv[1] if len(argv) > 1 else ctx.state.vars.get("HOME", "/")
    if target == "-":
        target = ctx.state.vars.get("OLDPWD", ctx.state.cwd)
    path = ctx.path(target)
    if not ctx.model.fs.exists(path):
        ctx.errln(f"{SH}: cd: {path}: No such file or directory")
        return 2
    if not ctx.model.fs.is_dir(path):
        ctx.errln(f"{SH}: cd: {path}: Not a directory")
        return 2
    ctx.state.vars["OLDPWD"] = ctx.state.cwd
    ctx.state.cwd = path
    ctx.state.vars["PWD"] = path
    return 0


def _exit(ctx: Ctx, argv: list[str]) -> int:
    code = ctx.state.status
    if len(argv) > 1:
        try:
            code = int(argv[1])
        except ValueError:
            ctx.errln(f"{SH}: exit: {argv[1]}: bad number")
            code = 1
    raise ExitShell(code & 0xFF)


def _export(ctx: Ctx, argv: list[str]) -> int:
    args = [a for a in argv[1:] if not a.startswith("-")]
    if not args:
        for k in sorted(ctx.state.exported):
            if k in ctx.state.vars:
                ctx.outln(f"{k}={ctx.state.vars[k]}")
        return 0
    for a in args:
        name, eq, value = a.partition("=")
        if eq:
            ctx.state.vars[name] = value
        ctx.state.exported.add(name)
    return 0


def _unset(ctx: Ctx, argv: list[str]) -> int:
    for a in argv[1:]:
        if not a.startswith("-"):
            ctx.state.vars.pop(a, None)
            ctx.state.exported.discard(a)
    return 0


def _eval(ctx: Ctx, argv: list[str]) -> int:
    return ctx.state.run_source(" ".join(argv[1:]), ctx.io.fds, same_state=True)


def _source(ctx: Ctx, argv: list[str]) -> int:
    if len(argv) < 2:
        ctx.errln(f"{SH}: {argv[0]}: missing argument")
        return 1
    try:
        text = ctx.read_file(argv[1]).decode("utf-8", "replace")
    except (FsError, OSError):
        ctx.errln(f"{SH}: {argv[0]}: {argv[1]}: not found")
        return 1
    return ctx.state.run_source(text, ctx.io.fds, same_state=True)


def _sh(ctx: Ctx, argv: list[str]) -> int:
    args = argv[1:]
    while args and args[0].startswith("-") and args[0] != "-c":
        args = args[1:]
    if args and args[0] == "-c":
        if len(args) < 2:
            ctx.errln(f"{SH}: -c: option requires an argument")
            return 1
        return ctx.state.run_source(args[1], ctx.io.fds, [args[2] if len(args) > 2 else argv[0]] + args[3:])
    if args:
        try:
            text = ctx.read_file(args[0]).decode("utf-8", "replace")
        except (FsError, OSError):
            ctx.errln(f"{SH}: {args[0]}: No such file or directory")
            return 127
        return ctx.state.run_source(text, ctx.io.fds, args)
    data = ctx.stdin_all().decode("utf-8", "replace")
    return ctx.state.run_source(data, ctx.io.fds)


def _set(ctx: Ctx, argv: list[str]) -> int:
    if len(argv) == 1:
        for k in sorted(ctx.state.vars):
            ctx.outln(f"{k}={ctx.state.vars[k]}")
        return 0
    args = argv[1:]
    while args and args[0][:1] in "-+" and args[0] != "--" and len(args[0]) > 1:
        args = args[1:]  # options (-e, -x, -o pipefail ...) are accepted and ignored
    if args and args[0] == "--":
        args = args[1:]
        ctx.state.params = list(args)
    elif args:
        ctx.state.params = list(args)
    return 0


def _loop_control(ctx: Ctx, argv: list[str]) -> int:
    n = 1
    if len(argv) > 1:
        if not argv[1].isdigit() or int(argv[1]) < 1:
            ctx.errln(f"{SH}: {argv[0]}: {argv[1]}: bad number")
            return 1
        n = int(argv[1])
    if ctx.state.loops < 1:
        ctx.errln(f"{SH}: {argv[0]}: can't {argv[0]}")
        return 1
    raise LoopControl(min(n, ctx.state.loops), argv[0])


def _return(ctx: Ctx, argv: list[str]) -> int:
    code = ctx.state.status
    if len(argv) > 1:
        try:
            code = int(argv[1])
        except ValueError:
            ctx.errln(f"{SH}: return: {argv[1]}: bad number")
            code = 1
    raise ReturnFunc(code & 0xFF)


def _shift(ctx: Ctx, argv: list[str]) -> int:
    n = int(argv[1]) if len(argv) > 1 and argv[1].isdigit() else 1
    if n > len(ctx.state.params):
        ctx.errln(f"{SH}: shift: {n}: bad number")
        return 1
    ctx.state.params = ctx.state.params[n:]
    return 0


def _read_line(ctx: Ctx) -> tuple[str, bool]:
    """One line from stdin without its newline; (text, True) when a newline ended it."""
    buf = bytearray()
    while True:
        b = ctx.io.read_stdin(1)
        if not b:
            return buf.decode("utf-8", "replace"), False
        if b == b"\n":
            return buf.decode("utf-8", "replace"), True
        buf += b


def _read(ctx: Ctx, argv: list[str]) -> int:
    args = argv[1:]
    raw = False
    while args and args[0].startswith("-") and len(args[0]) > 1:
        opt = args.pop(0)
        if "r" in opt:
            raw = True
        if opt in ("-p", "-u", "-d", "-n", "-N", "-t") and args:
            args.pop(0)
    names = args or ["REPLY"]
    line, complete = _read_line(ctx)
    if not raw:
        while line.endswith("\\") and complete:
            more, complete = _read_line(ctx)
            line = line[:-1] + more
        line = line.replace("\\", "")
    if not line and not complete:
        for n in names:
            ctx.state.vars[n] = ""
        return 1
    ifs = ctx.state.vars.get("IFS", " \t\n")
    ws = "".join(c for c in ifs if c in " \t\n")
    rest = line.strip(ws) if ws else line
    for k, n in enumerate(names):
        if k == len(names) - 1:
            ctx.state.vars[n] = rest.rstrip(ws) if ws else rest
            break
        j = 0
        while j < len(rest) and rest[j] not in ifs:
            j += 1
        ctx.state.vars[n] = rest[:j]
        rest = rest[j + 1 :].lstrip(ws) if j < len(rest) else ""
    return 0 if complete else 1


# mksh's builtins (funcs.c) that this shell has: `command -v` prints their names instead of a path
MKSH_BUILTINS = {
    ".",
    ":",
    "[",
    "alias",
    "break",
    "builtin",
    "cd",
    "chdir",
    "command",
    "continue",
    "echo",
    "eval",
    "exec",
    "exit",
    "export",
    "false",
    "fc",
    "getopts",
    "jobs",
    "kill",
    "let",
    "print",
    "pwd",
    "read",
    "readonly",
    "return",
    "set",
    "shift",
    "source",
    "test",
    "times",
    "trap",
    "true",
    "typeset",
    "ulimit",
    "umask",
    "unalias",
    "unset",
    "wait",
    "whence",
}
SPECIAL_BUILTINS = {
    ".",
    ":",
    "break",
    "continue",
    "eval",
    "exec",
    "exit",
    "export",
    "readonly",
    "return",
    "set",
    "shift",
    "times",
    "trap",
    "unset",
}
RESERVED_WORDS = {
    "!",
    "[[",
    "]]",
    "case",
    "do",
    "done",
    "elif",
    "else",
    "esac",
    "fi",
    "for",
    "function",
    "if",
    "in",
    "select",
    "then",
    "time",
    "until",
    "while",
    "{",
    "}",
}
# mksh's predefined aliases (those a command line may name)
MKSH_ALIASES = {
    "autoload": "\\builtin typeset -fu",
    "functions": "\\builtin typeset -f",
    "hash": "\\builtin alias -t",
    "history": "\\builtin fc -l",
    "integer": "\\builtin typeset -i",
    "local": "\\builtin typeset",
    "login": "\\exec login",
    "nameref": "\\builtin typeset -n",
    "nohup": "nohup ",
    "r": "\\builtin fc -e -",
    "type": "\\builtin whence -v",
}


def _whence(ctx: Ctx, names: list[str], verbose: bool, is_command: bool) -> int:
    status = 0
    for name in names:
        if not verbose and status:
            break
        if name in RESERVED_WORDS:
            ctx.outln(f"{name} is a reserved word" if verbose else name)
        elif name in MKSH_ALIASES:
            value = MKSH_ALIASES[name]
            ctx.outln(
                f"{name} is an alias for '{value}'"
                if verbose
                else (f"alias {name}='{value}'" if is_command else f"'{value}'")
            )
        elif name in ctx.state.funcs:
            ctx.outln(f"{name} is a function" if verbose else name)
        elif name in MKSH_BUILTINS or name in (
            "break",
            "continue",
            "return",
            "shift",
            "read",
            "command",
            "whence",
            "let",
            "typeset",
        ):
            special = "special " if name in SPECIAL_BUILTINS else ""
            ctx.outln(f"{name} is a {special}shell builtin" if verbose else name)
        elif "/" not in name and (find_command(ctx.model, name) is not None or name in SHELL_BUILTINS):
            ctx.outln(f"{name} is {command_path(name)}" if verbose else command_path(name))
        elif "/" in name and ctx.model.fs.stat(ctx.path(name)) is not None and not ctx.model.fs.is_dir(ctx.path(name)):
            ctx.outln(f"{name} is {name}" if verbose else name)
        else:
            if verbose:
                ctx.outln(f"{name} not found")  # mksh prints this on stdout
            status = 1
    return status


def _command(ctx: Ctx, argv: list[str]) -> int:
    args = argv[1:]
    verbose = None
    while args and args[0].startswith("-") and len(args[0]) > 1 and args[0] != "--":
        opt = args.pop(0)
        if "V" in opt:
            verbose = True
        elif "v" in opt:
            verbose = False
    if args and args[0] == "--":
        args = args[1:]
    if verbose is not None:
        return _whence(ctx, args, verbose, is_command=True)
    if not args:
        return 0
    name = args[0]
    if name in SHELL_BUILTINS:  # `command` skips functions, not builtins
        return SHELL_BUILTINS[name](ctx, args)
    saved = ctx.state.funcs
    ctx.state.funcs = {}
    try:
        return ctx.state.dispatch(args, ctx.io.fds, ctx.env)
    finally:
        ctx.state.funcs = saved


def _whence_builtin(ctx: Ctx, argv: list[str]) -> int:
    args = argv[1:]
    verbose = False
    while args and args[0].startswith("-") and len(args[0]) > 1:
        verbose = verbose or "v" in args.pop(0)
    return _whence(ctx, args, verbose, is_command=False)


def _type(ctx: Ctx, argv: list[str]) -> int:
    return _whence(ctx, argv[1:], True, is_command=False)


def _let(ctx: Ctx, argv: list[str]) -> int:
    if len(argv) < 2:
        ctx.errln(f"{SH}: let: missing expression")
        return 1
    value = 0
    for expr in argv[1:]:
        try:
            value = ctx.state.arith(expr)
        except ArithError as e:
            ctx.errln(f"{SH}: {e}")
            return 2
    return 0 if value else 1


def _typeset(ctx: Ctx, argv: list[str]) -> int:
    for a in argv[1:]:
        if a.startswith("-") or a.startswith("+"):
            continue
        name, eq, value = a.partition("=")
        if eq:
            ctx.state.vars[name] = value
        else:
            ctx.state.vars.setdefault(name, "")
    return 0


def _colon(ctx: Ctx, argv: list[str]) -> int:
    return 0


def _exec(ctx: Ctx, argv: list[str]) -> int:
    """`exec CMD ARGS`: CMD replaces the shell, so nothing after it runs and its status is the shell's.
    (`exec` with only redirections applies them to itself only: a documented difference.)"""
    if len(argv) == 1:
        return 0
    args = argv[1:]
    if args[0] == "-a" and len(args) > 2:  # exec -a NAME CMD: argv[0] does not change which command runs
        args = args[2:]
    raise ExitShell(ctx.state.dispatch(args, ctx.io.fds, ctx.env))


SHELL_BUILTINS: dict[str, Callable[[Ctx, list[str]], int]] = {
    "cd": _cd,
    "exit": _exit,
    "export": _export,
    "unset": _unset,
    "eval": _eval,
    ".": _source,
    "source": _source,
    "exec": _exec,
    "sh": _sh,
    "mksh": _sh,
    "set": _set,
    ":": _colon,
    "readonly": _export,
    "break": _loop_control,
    "continue": _loop_control,
    "return": _return,
    "shift": _shift,
    "read": _read,
    "command": _command,
    "whence": _whence_builtin,
    "type": _type,
    "let": _let,
    "typeset": _typeset,
    "local": _typeset,
    **JOB_BUILTINS,
}
