"""run-as PACKAGE [--user N] [COMMAND [ARGS...]] (AOSP system/core/run-as): run COMMAND (default: a shell reading
stdin) as a debuggable app's uid, in its data directory.

Only the shell user and root may call it; an unknown package and one not marked debuggable (`PackageMeta.debuggable`;
no app of the virtual device is, as no app from a store is) are refused with run-as's own words. The app's data
directory (/data/user/0/PKG, which /data/data/PKG is) is made 0700 for the app's uid on first use, so the file
system's access check then lets the app - and not the shell - in.
"""

from __future__ import annotations

from .pkgmeta import meta
from .plumbing import Fds
from .registry import Ctx, app_uid, command
from .users import User

_USAGE = "run-as: usage: run-as <package-name> [--user <uid>] <command> [<args>]"


@command("run-as")
def run_as(ctx: Ctx, argv: list[str]) -> int:
    args = argv[1:]
    if not args:
        ctx.errln(_USAGE)
        return 1
    caller = ctx.state.user
    if caller.uid not in (0, 2000):
        ctx.errln("run-as: only 'shell' or 'root' users can run this program")
        return 1
    package, rest = args[0], args[1:]
    if len(rest) >= 2 and rest[0] == "--user":
        if rest[1] != "0":
            ctx.errln(f"run-as: unknown package: {package}")
            return 1
        rest = rest[2:]
    if package not in ctx.model.packages:
        ctx.errln(f"run-as: unknown package: {package}")
        return 1
    if not meta(ctx, package).debuggable:
        ctx.errln(f"run-as: package not debuggable: {package}")
        return 1
    uid = app_uid(package)
    home = f"/data/data/{package}"
    fs = ctx.model.fs
    if not fs.is_dir(home):
        fs.mkdir(home, parents=True, owner=(uid, uid))
        fs.chmod(home, 0o700)
    shell = ctx.state.child()
    shell.user = User(uid, uid, (uid, 3003, 9997, 20000 + uid % 10000, 50000 + uid % 10000), "u:r:runas_app:s0")
    shell.cwd = home
    shell.vars["HOME"] = home
    shell.vars["USER"] = shell.vars["LOGNAME"] = shell.user.name
    ctx.model.events.log("run-as", package=package, argv=rest)
    fds: Fds = ctx.io.fds
    if rest:
        return shell.dispatch(rest, fds, dict(ctx.env))
    return shell.run_source(ctx.stdin_all().decode("utf-8", "replace"), fds)
