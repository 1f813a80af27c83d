"""Shell builtins that need the shell's own state: cd, exit, export, unset, eval, ., sh -c, set, `:`."""

from __future__ import annotations

from typing import Callable

from ..fs import FsError
from .plumbing import ExitShell
from .registry import SH, Ctx


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
        return ctx.state.run_source(args[1], ctx.io.fds)
    if args:
        try:
            text = ctx.read_file(args[0]).decode("utf-8", "replace")
        except (FsError, OSError):
            ctx.errln(f"{SH}: {args[0]}: No such file or directory")
            return 127
        return ctx.state.run_source(text, ctx.io.fds)
    data = ctx.stdin_all().decode("utf-8", "replace")
    return ctx.state.run_source(data, ctx.io.fds)


def _set(ctx: Ctx, argv: list[str]) -> int:
    if len(argv) == 1:
        for k in sorted(ctx.state.vars):
            ctx.outln(f"{k}={ctx.state.vars[k]}")
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
    "cd": _cd, "exit": _exit, "export": _export, "unset": _unset, "eval": _eval, ".": _source,
    "source": _source, "exec": _exec, "sh": _sh, "mksh": _sh, "set": _set, ":": _colon, "readonly": _export,
}


