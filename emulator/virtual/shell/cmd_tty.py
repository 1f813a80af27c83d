"""toybox tty [-s]: the terminal on standard input (/dev/pts/N in a shell adbd gave a PTY), else "not a tty" and
exit status 1; -s prints nothing."""

from __future__ import annotations

from .registry import Ctx, command, split_opts
from .ttys import fd_terminal, pts_name


@command("tty", toybox=True)
def tty(ctx: Ctx, argv: list[str]) -> int:
    opts, _ = split_opts(argv)
    bad = next((c for c in opts if c != "s"), None)
    if bad is not None:
        ctx.errln(f"tty: Unknown option '{bad}' (see \"tty --help\")")
        return 1
    pty = fd_terminal(ctx.io.fds, 0)
    if "s" not in opts:
        ctx.outln(pts_name(pty) if pty is not None else "not a tty")
    return 0 if pty is not None else 1
