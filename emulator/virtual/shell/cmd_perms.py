"""Changing who may do what to a file (toybox applets): chmod, chown, chgrp.

Only a file's owner (or root) may chmod it; only root may chown (Linux's CAP_CHOWN: the shell user gets
"Operation not permitted", worded as toybox words it). The checks that then honour the bits are the file system's
(`FileSystem.check_access`).
"""

from __future__ import annotations

import errno
import posixpath
import stat as statmod
from collections.abc import Iterator

from ..fs import W_OK, X_OK, FsError, Node, under_fuse
from .registry import Ctx, command
from .users import UIDS

_WHO = {"u": 0o4700, "g": 0o2070, "o": 0o1007}  # the bits each class covers (with its setid / sticky bit)


def parse_mode(spec: str, old: int, is_dir: bool) -> int | None:
    """The permission bits `spec` (octal, or comma-separated [ugoa]*[+-=][rwxXstugo]* clauses) makes of `old`;
    None when it is not a mode."""
    if spec and all(c in "01234567" for c in spec):
        value = int(spec, 8)
        return value if value <= 0o7777 else None
    mode = old & 0o7777
    for clause in spec.split(","):
        i = 0
        who = 0
        while i < len(clause) and clause[i] in "ugoa":
            who |= 0o7777 if clause[i] == "a" else _WHO[clause[i]]
            i += 1
        if i == len(clause):
            return None
        who = who or 0o7777  # no class named: all of them (toybox applies no umask here)
        while i < len(clause):
            op = clause[i]
            if op not in "+-=":
                return None
            i += 1
            bits = 0
            while i < len(clause) and clause[i] not in "+-=":
                c = clause[i]
                if c == "r":
                    bits |= 0o444
                elif c == "w":
                    bits |= 0o222
                elif c == "x":
                    bits |= 0o111
                elif c == "X":
                    bits |= 0o111 if is_dir or old & 0o111 else 0
                elif c == "s":
                    bits |= 0o6000
                elif c == "t":
                    bits |= 0o1000
                elif c in "ugo":
                    shift = {"u": 6, "g": 3, "o": 0}[c]
                    perm = (mode >> shift) & 7
                    bits |= perm << 6 | perm << 3 | perm
                else:
                    return None
                i += 1
            bits &= who
            if op == "+":
                mode |= bits
            elif op == "-":
                mode &= ~bits
            else:
                mode = (mode & ~(who & 0o777 | (who & 0o7000))) | bits
    return mode


def _operands(argv: list[str], flags: str) -> tuple[set[str], list[str]]:
    """The `-X` options of `flags` wherever they stand before `--` (toybox takes options after operands too:
    `chmod 777 -R DIR`, as AndroidWorld runs it; anything else, like chmod's `-w`, is an operand) and the operands."""
    opts: set[str] = set()
    args: list[str] = []
    rest = argv[1:]
    while rest:
        a = rest.pop(0)
        if a == "--":
            args.extend(rest)
            break
        if a.startswith("-") and len(a) > 1 and all(c in flags for c in a[1:]):
            opts.update(a[1:])
        else:
            args.append(a)
    return opts, args


def _walk(ctx: Ctx, path: str, node: Node, recursive: bool) -> list[tuple[str, Node]]:
    out = [(path, node)]
    if recursive and node.is_dir:
        for name, child in ctx.model.fs.listdir(path):
            out += _walk(ctx, posixpath.join(path, name), child, recursive)
    return out


def _targets(
    ctx: Ctx, name: str, files: list[str], recursive: bool, missing: list[str]
) -> Iterator[tuple[str, str, Node]]:
    """(the name to show, path, node) of each FILE operand, and with `recursive` of everything under it; a missing
    operand is reported as toybox does and added to `missing`."""
    for f in files:
        top = ctx.path(f)
        node = ctx.model.fs.stat(top)
        if node is None:
            ctx.errln(f"{name}: {f}: No such file or directory")
            missing.append(f)
            continue
        for p, n in _walk(ctx, top, node, recursive):
            yield (f if p == top else posixpath.join(f, posixpath.relpath(p, top))), p, n


@command("chmod", toybox=True)
def chmod(ctx: Ctx, argv: list[str]) -> int:
    """chmod [-Rfv] MODE FILE...: only the owner or root may; missing files and bad modes fail."""
    opts, args = _operands(argv, "Rfv")
    if len(args) < 2:
        ctx.errln('chmod: Need 2 arguments (see "chmod --help")')
        return 1
    spec, files = args[0], args[1:]
    user = ctx.state.user
    status = 0
    missing: list[str] = []
    for shown, p, n in _targets(ctx, "chmod", files, "R" in opts, missing):
        mode = parse_mode(spec, statmod.S_IMODE(n.mode), n.is_dir)
        if mode is None:
            ctx.errln(f"chmod: bad mode '{spec}'")
            return 1
        if "v" in opts:
            ctx.outln(f"chmod '{shown}' to {mode:04o}")
        try:
            ctx.model.fs.check_access(posixpath.dirname(p) or "/", user, X_OK)  # search on the way
            if not user.root and user.uid != n.uid and not under_fuse(p):
                raise FsError(errno.EPERM, p)
            ctx.model.fs.check_access(p, None, W_OK)  # a read-only mount refuses everyone
            ctx.model.fs.chmod(p, mode)
        except FsError as e:
            if "f" not in opts:
                ctx.errln(f"chmod: chmod '{shown}' to {mode:04o}: {e.message}")
            status = 1
    return 1 if missing else status


def _id_of(text: str, names: dict[str, int]) -> int | None:
    if text in names:
        return names[text]
    if text.isdigit():
        return int(text)
    if text.startswith("u0_a") and text[4:].isdigit():
        return 10000 + int(text[4:])
    return None


@command("chown", "chgrp", toybox=True)
def chown(ctx: Ctx, argv: list[str]) -> int:
    """chown [-Rfv] [OWNER][:GROUP] FILE... / chgrp [-Rfv] GROUP FILE...: root only (CAP_CHOWN)."""
    name = argv[0]
    opts, args = _operands(argv, "RfvhHLP")
    if len(args) < 2:
        ctx.errln(f'{name}: Need 2 arguments (see "{name} --help")')
        return 1
    spec, files = args[0], args[1:]
    owner_name: str | None
    group_name: str | None
    if name == "chown":
        sep = ":" if ":" in spec else ("." if "." in spec else None)
        owner_name, group_name = spec.split(sep, 1) if sep else (spec, None)
        owner_name = owner_name or None
    else:
        owner_name, group_name = None, spec
    uid = gid = None
    if owner_name is not None:
        uid = _id_of(owner_name, UIDS)
        if uid is None:
            ctx.errln(f"{name}: no user '{owner_name}'")
            return 1
    if group_name:
        gid = _id_of(group_name, UIDS)
        if gid is None:
            ctx.errln(f"{name}: no group '{group_name}'")
            return 1
    status = 0
    missing: list[str] = []
    for shown, p, n in _targets(ctx, name, files, "R" in opts, missing):
        if "v" in opts:
            ctx.outln(f"{name} {spec} {shown}")
        # an unprivileged chown succeeds only when it changes nothing (or the group to one of the user's)
        user = ctx.state.user
        same = (uid is None or uid == n.uid) and (gid is None or gid == n.gid or gid in user.groups)
        if not user.root and not (same and user.uid == n.uid):
            if "f" not in opts:
                ctx.errln(
                    f"{name}: changing owner:group of '{shown}' to "
                    f"'{owner_name or '(null)'}:{group_name or '(null)'}': Operation not permitted"
                )
            status = 1
            continue
        ctx.model.fs.chown(p, uid, gid)
    return 1 if missing else status
