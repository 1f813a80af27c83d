"""`[[ ... ]]` as mksh evaluates it: words are expanded without field splitting or globbing, `==`/`=`/`!=` match
the right side as a pattern unless it is quoted, `&&`/`||`/`!`/`( )` combine, the rest are `test` primaries."""

from __future__ import annotations

from .ast_nodes import CondExpr, Lit, Word
from .cmd_text import evaluate_test
from .plumbing import CmdIO, Fds
from .registry import SH, Ctx, Shell

_UNARY = {
    "-a",
    "-b",
    "-c",
    "-d",
    "-e",
    "-f",
    "-g",
    "-G",
    "-h",
    "-k",
    "-L",
    "-n",
    "-O",
    "-o",
    "-p",
    "-r",
    "-S",
    "-s",
    "-t",
    "-u",
    "-v",
    "-w",
    "-x",
    "-z",
}
_BINARY = {"=", "==", "!=", "<", ">", "-eq", "-ne", "-lt", "-le", "-gt", "-ge", "-ef", "-nt", "-ot"}


class _CondError(Exception):
    pass


def evaluate_cond(state: Shell, cmd: CondExpr, fds: Fds) -> int:
    ctx = Ctx(state.model, CmdIO(fds, state.root), state, {})
    items = cmd.items
    pos = 0

    def peek() -> Word | str | None:
        return items[pos] if pos < len(items) else None

    def text(w: Word | str) -> str:
        return w if isinstance(w, str) else state.expand_str(w, fds)

    def literal(w: Word | str | None) -> str | None:
        return w.literal() if isinstance(w, Word) and all(not p.quoted for p in w.parts if isinstance(p, Lit)) else None

    def or_expr() -> bool:
        nonlocal pos
        v = and_expr()
        while peek() == "||":
            pos += 1
            rhs = and_expr()
            v = v or rhs
        return v

    def and_expr() -> bool:
        nonlocal pos
        v = not_expr()
        while peek() == "&&":
            pos += 1
            rhs = not_expr()
            v = v and rhs
        return v

    def not_expr() -> bool:
        nonlocal pos
        if peek() == "!":
            pos += 1
            return not not_expr()
        return primary()

    def primary() -> bool:
        nonlocal pos
        t = peek()
        if t is None:
            raise _CondError("unexpected end of expression")
        if t == "(":
            pos += 1
            v = or_expr()
            if peek() != ")":
                raise _CondError("missing )")
            pos += 1
            return v
        if isinstance(t, str):
            raise _CondError(f"unexpected '{t}'")
        op = literal(t)
        nxt = items[pos + 1] if pos + 1 < len(items) else None
        if op in _UNARY and nxt is not None and not (isinstance(nxt, str) and nxt in ("&&", "||", ")")):
            pos += 2
            return evaluate_test(ctx, [op, text(nxt)])
        left = text(t)
        bop = literal(nxt) if isinstance(nxt, Word) else None
        if bop in _BINARY and pos + 2 < len(items) and isinstance(items[pos + 2], Word):
            right_word = items[pos + 2]
            assert isinstance(right_word, Word)
            pos += 3
            if bop in ("=", "==", "!="):
                matched = state.pattern_regex(right_word, fds).fullmatch(left) is not None
                return matched if bop != "!=" else not matched
            right = text(right_word)
            if bop in ("<", ">"):
                return left < right if bop == "<" else left > right
            return evaluate_test(ctx, [left, bop, right])
        pos += 1
        return left != ""

    try:
        value = or_expr()
        if pos != len(items):
            raise _CondError(f"unexpected '{text(items[pos])}'")
    except (_CondError, ValueError) as e:
        fds.stderr.write(f"{SH}: [[: {e}\n".encode())
        return 2
    return 0 if value else 1
