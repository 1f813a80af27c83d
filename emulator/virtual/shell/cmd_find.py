"""toybox `find PATH... EXPRESSION` over the in-memory file system.

The expression as toybox parses it: tests `-name`/`-iname PATTERN`, `-path`/`-ipath PATTERN`, `-type [fdlcbps]`,
`-empty`, `-newer FILE`, `-mtime [+-]N`, `-size [+-]N[ckMG]`; actions `-print`, `-print0`, `-delete`, `-prune`;
options `-maxdepth N`, `-mindepth N`, `-depth` (true where they stand); operators `!`/`-not`, `-a`/`-and` (or
nothing), `-o`/`-or`, `( )`. With no action in the expression, matches are printed. `-delete` works children first
(it implies `-depth`) and removes a directory only once it is empty ("Directory not empty" otherwise). Paths are
printed as reached from the operand given.
"""

from __future__ import annotations

import errno
import fnmatch
import posixpath
from collections.abc import Callable
from dataclasses import dataclass, field

from ..fs import FsError, Node
from .registry import Ctx, command, fs_error_text

Test = Callable[["Visit"], bool]


@dataclass
class Visit:
    shown: str  # the path as printed (from the operand as typed)
    real: str  # the absolute path
    node: Node
    depth: int
    pruned: bool = False


class FindError(ValueError):
    pass


@dataclass
class Parsed:
    test: Test
    has_action: bool = False
    maxdepth: int = 1 << 30
    mindepth: int = 0
    depth_first: bool = False
    deletes: list[Visit] = field(default_factory=list)


def _size_test(arg: str) -> Test:
    sign = arg[0] if arg[:1] in "+-" else ""
    body = arg[len(sign) :]
    unit = body[-1:] if body[-1:] in "ckMGb" else "b"
    num = int(body.rstrip("ckMGb") or "0")
    scale = {"c": 1, "k": 1024, "M": 1 << 20, "G": 1 << 30, "b": 512}[unit]

    def test(v: Visit) -> bool:
        size = -(-v.node.size // scale)  # rounded up, as find counts units
        return size > num if sign == "+" else size < num if sign == "-" else size == num

    return test


def parse(ctx: Ctx, tokens: list[str]) -> Parsed:
    out = Parsed(test=lambda v: True)
    pos = 0

    def peek() -> str | None:
        return tokens[pos] if pos < len(tokens) else None

    def take_arg(name: str) -> str:
        nonlocal pos
        if pos >= len(tokens):
            raise FindError(f"find: '{name}' needs 1 arg")
        pos += 1
        return tokens[pos - 1]

    def primary() -> Test:
        nonlocal pos
        tok = tokens[pos]
        pos += 1
        if tok == "(":
            inner = or_expr()
            if peek() != ")":
                raise FindError("find: Missing ')'")
            pos += 1
            return inner
        if tok in ("!", "-not"):
            t = primary()
            return lambda v: not t(v)
        if tok in ("-name", "-iname"):
            pat = take_arg(tok)
            fold = tok == "-iname"
            return lambda v: fnmatch.fnmatchcase(
                (posixpath.basename(v.shown.rstrip("/")) or v.shown).lower()
                if fold
                else posixpath.basename(v.shown.rstrip("/")) or v.shown,
                pat.lower() if fold else pat,
            )
        if tok in ("-path", "-ipath", "-wholename"):
            pat = take_arg(tok)
            fold = tok == "-ipath"
            return lambda v: fnmatch.fnmatchcase(v.shown.lower() if fold else v.shown, pat.lower() if fold else pat)
        if tok == "-type":
            kinds = take_arg(tok).split(",")
            return lambda v: ("d" if v.node.is_dir else "c" if v.node.is_chr else "f") in kinds
        if tok == "-empty":
            return lambda v: (not v.node.children) if v.node.is_dir else v.node.size == 0
        if tok == "-newer":
            ref = ctx.model.fs.stat(ctx.path(take_arg(tok)))
            if ref is None:
                raise FindError(f"find: '{tokens[pos - 1]}': No such file or directory")
            when = ref.mtime
            return lambda v: v.node.mtime > when
        if tok == "-mtime":
            arg = take_arg(tok)
            now = ctx.model.now()
            n = int(arg.lstrip("+-") or "0")

            def mtime(v: Visit, arg: str = arg, n: int = n) -> bool:
                days = int((now - v.node.mtime) // 86400)
                return days > n if arg.startswith("+") else days < n if arg.startswith("-") else days == n

            return mtime
        if tok == "-size":
            return _size_test(take_arg(tok))
        if tok in ("-maxdepth", "-mindepth"):
            val = take_arg(tok)
            if not val.isdigit():
                raise FindError(f"find: bad {tok} '{val}'")
            if tok == "-maxdepth":
                out.maxdepth = int(val)
            else:
                out.mindepth = int(val)
            return lambda v: True
        if tok == "-depth":
            out.depth_first = True
            return lambda v: True
        if tok in ("-print", "-print0"):
            out.has_action = True
            end = "\0" if tok == "-print0" else "\n"

            def show(v: Visit) -> bool:
                ctx.out(v.shown + end)
                return True

            return show
        if tok == "-delete":
            out.has_action = True
            out.depth_first = True

            def delete(v: Visit) -> bool:
                out.deletes.append(v)
                return True

            return delete
        if tok == "-prune":

            def prune(v: Visit) -> bool:
                v.pruned = True
                return True

            return prune
        raise FindError(f"find: Unknown option '{tok}'")

    def and_expr() -> Test:
        nonlocal pos
        parts = [primary()]
        while peek() is not None and peek() not in ("-o", "-or", ")"):
            if peek() in ("-a", "-and"):
                pos += 1
            parts.append(primary())
        return lambda v: all(p(v) for p in parts)

    def or_expr() -> Test:
        nonlocal pos
        parts = [and_expr()]
        while peek() in ("-o", "-or"):
            pos += 1
            parts.append(and_expr())
        return lambda v: any(p(v) for p in parts)

    if tokens:
        out.test = or_expr()
        if pos < len(tokens):
            raise FindError(f"find: Unknown option '{tokens[pos]}'")
    return out


@command("find", toybox=True)
def find(ctx: Ctx, argv: list[str]) -> int:
    args = argv[1:]
    roots = []
    while args and not (args[0].startswith("-") or args[0] in ("!", "(")):
        roots.append(args.pop(0))
    try:
        expr = parse(ctx, args)
    except FindError as e:
        ctx.errln(str(e))
        return 1
    fs = ctx.model.fs
    status = 0

    def visit(v: Visit) -> None:
        if v.depth >= expr.mindepth:
            matched = expr.test(v)
            if matched and not expr.has_action:
                ctx.outln(v.shown)

    def walk(v: Visit) -> None:
        nonlocal status
        if not expr.depth_first:
            visit(v)
        if v.node.is_dir and v.depth < expr.maxdepth and not v.pruned:
            try:
                children = fs.listdir(v.real)
            except FsError as e:
                ctx.errln(f"find: {v.shown}: {fs_error_text(e)}")
                status = 1
                children = []
            for name, child in children:
                walk(Visit(posixpath.join(v.shown, name), posixpath.join(v.real, name), child, v.depth + 1))
        if expr.depth_first:
            visit(v)

    for r in roots or ["."]:
        node = fs.stat(ctx.path(r))
        if node is None:
            ctx.errln(f"find: {r}: No such file or directory")
            status = 1
            continue
        walk(Visit(r, ctx.path(r), node, 0))
    for v in expr.deletes:  # children were listed before their parents
        try:
            node = fs.stat(v.real)
            if node is not None and node.is_dir and node.children:
                raise FsError(errno.ENOTEMPTY, v.real)
            denied = ctx.remove_error(v.real)
            if denied:
                ctx.errln(f"find: {v.shown}: {denied}")
                status = 1
                continue
            fs.remove(v.real, recursive=True)
        except FsError as e:
            ctx.errln(f"find: {v.shown}: {fs_error_text(e)}")
            status = 1
    return status
