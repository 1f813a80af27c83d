"""Shell arithmetic as mksh evaluates it in `$(( ))` and `let`: 32-bit signed integers that wrap, C operators
and precedence, variables by name (unset or empty = 0, a variable's text is itself evaluated), assignments,
`++`/`--`, `a ? b : c`, `0x` hex and `base#digits` constants (a leading 0 is decimal, as in mksh's default
mode). Errors raise `ArithError` with mksh's message text ("zero divisor", "unexpected end of expression").
"""

from __future__ import annotations

import re
from collections.abc import Callable

__all__ = ["ArithError", "evaluate"]


class ArithError(Exception):
    pass


def _wrap(v: int) -> int:
    v &= 0xFFFFFFFF
    return v - (1 << 32) if v & 0x80000000 else v


_TOKEN = re.compile(
    r"\s*(?:(?P<num>\d+#[0-9A-Za-z@_]+|0[xX][0-9A-Fa-f]+|\d+)|(?P<name>[A-Za-z_][A-Za-z0-9_]*)|"
    r"(?P<op><<=|>>=|\+\+|--|\|\||&&|<<|>>|<=|>=|==|!=|\+=|-=|\*=|/=|%=|&=|\^=|\|=|[-+*/%<>=!~&^|?:(),]))"
)

_BINARY = {  # operator -> precedence (higher binds tighter)
    ",": 1,
    "||": 4,
    "&&": 5,
    "|": 6,
    "^": 7,
    "&": 8,
    "==": 9,
    "!=": 9,
    "<": 10,
    "<=": 10,
    ">": 10,
    ">=": 10,
    "<<": 11,
    ">>": 11,
    "+": 12,
    "-": 12,
    "*": 13,
    "/": 13,
    "%": 13,
}
_ASSIGN = {"=", "+=", "-=", "*=", "/=", "%=", "<<=", ">>=", "&=", "^=", "|="}


def _number(text: str) -> int:
    if "#" in text:
        base_s, digits = text.split("#", 1)
        base = int(base_s)
        if not 2 <= base <= 36:
            raise ArithError(f"{text}: bad number")
        try:
            return _wrap(int(digits, base))
        except ValueError:
            raise ArithError(f"{text}: bad number") from None
    if text[:2].lower() == "0x":
        return _wrap(int(text, 16))
    return _wrap(int(text, 10))


class _Eval:
    def __init__(
        self, src: str, get: Callable[[str], str | None], set_: Callable[[str, str], None], depth: int
    ) -> None:
        self.src, self.get, self.set, self.depth = src, get, set_, depth
        self.toks: list[tuple[str, str]] = []
        pos = 0
        while pos < len(src):
            m = _TOKEN.match(src, pos)
            if not m or m.end() == pos:
                if src[pos:].strip() == "":
                    break
                raise ArithError(f"{src}: unexpected '{src[pos:].strip()[:1]}'")
            pos = m.end()
            kind = m.lastgroup or "op"
            self.toks.append((kind, m.group(kind)))
        self.k = 0
        self.noassign = 0  # > 0 inside the branch that && || ?: do not evaluate

    def peek(self) -> tuple[str, str] | None:
        return self.toks[self.k] if self.k < len(self.toks) else None

    def take(self) -> tuple[str, str]:
        t = self.peek()
        if t is None:
            raise ArithError(f"{self.src}: unexpected end of expression")
        self.k += 1
        return t

    def value_of(self, name: str) -> int:
        text = self.get(name)
        if text is None or text.strip() == "":
            return 0
        text = text.strip()
        if re.fullmatch(r"-?\d+", text):
            return _wrap(int(text))
        if self.depth > 20:
            raise ArithError(f"{name}: expression recurses on parameter")
        return evaluate(text, self.get, self.set, self.depth + 1)

    def assign(self, name: str, value: int) -> int:
        value = _wrap(value)
        if not self.noassign:
            self.set(name, str(value))
        return value

    # --- grammar: assignment > ternary > binary (precedence climbing) > unary > primary ---------------------------
    def expr(self) -> int:
        v = self.assignment()
        while self.peek() == ("op", ","):
            self.take()
            v = self.assignment()
        return v

    def assignment(self) -> int:
        t = self.peek()
        nxt = self.toks[self.k + 1] if self.k + 1 < len(self.toks) else None
        if t is not None and t[0] == "name" and nxt is not None and nxt[0] == "op" and nxt[1] in _ASSIGN:
            self.k += 2
            rhs = self.assignment()
            op = nxt[1]
            if op == "=":
                return self.assign(t[1], rhs)
            return self.assign(t[1], self.apply(op[:-1], self.value_of(t[1]), rhs))
        return self.ternary()

    def ternary(self) -> int:
        cond = self.binary(2)
        if self.peek() != ("op", "?"):
            return cond
        self.take()
        if not cond:
            self.noassign += 1
        a = self.assignment()
        if not cond:
            self.noassign -= 1
        if self.take() != ("op", ":"):
            raise ArithError(f"{self.src}: unexpected end of expression")
        if cond:
            self.noassign += 1
        b = self.assignment()
        if cond:
            self.noassign -= 1
        return a if cond else b

    def binary(self, min_prec: int) -> int:
        left = self.unary()
        while True:
            t = self.peek()
            if t is None or t[0] != "op" or t[1] not in _BINARY or _BINARY[t[1]] < min_prec or t[1] == ",":
                return left
            op = t[1]
            self.take()
            if op in ("&&", "||"):
                short = (op == "&&" and not left) or (op == "||" and left)
                if short:
                    self.noassign += 1
                right = self.binary(_BINARY[op] + 1)
                if short:
                    self.noassign -= 1
                left = int(bool(left) and bool(right)) if op == "&&" else int(bool(left) or bool(right))
                continue
            right = self.binary(_BINARY[op] + 1)
            left = self.apply(op, left, right)

    def apply(self, op: str, a: int, b: int) -> int:
        if op in ("/", "%"):
            if b == 0:
                if self.noassign:
                    return 0
                raise ArithError(f"{self.src}: zero divisor")
            q = abs(a) // abs(b)
            q = q if (a >= 0) == (b >= 0) else -q  # C: truncate toward zero
            return _wrap(q if op == "/" else a - q * b)
        if op == "<<":
            return _wrap(a << (b & 31))
        if op == ">>":
            return _wrap(a >> (b & 31))
        return _wrap(
            {
                "+": lambda: a + b,
                "-": lambda: a - b,
                "*": lambda: a * b,
                "&": lambda: a & b,
                "|": lambda: a | b,
                "^": lambda: a ^ b,
                "==": lambda: int(a == b),
                "!=": lambda: int(a != b),
                "<": lambda: int(a < b),
                "<=": lambda: int(a <= b),
                ">": lambda: int(a > b),
                ">=": lambda: int(a >= b),
            }[op]()
        )

    def unary(self) -> int:
        t = self.peek()
        if t is not None and t[0] == "op":
            if t[1] in ("++", "--"):
                self.take()
                name = self.take()
                if name[0] != "name":
                    raise ArithError(f"{self.src}: {t[1]} requires lvalue")
                return self.assign(name[1], self.value_of(name[1]) + (1 if t[1] == "++" else -1))
            if t[1] in ("+", "-", "!", "~"):
                self.take()
                v = self.unary()
                return _wrap({"+": v, "-": -v, "!": int(not v), "~": ~v}[t[1]])
        return self.postfix()

    def postfix(self) -> int:
        t = self.take()
        if t == ("op", "("):
            v = self.expr()
            if self.take() != ("op", ")"):
                raise ArithError(f"{self.src}: unexpected end of expression")
            return v
        if t[0] == "num":
            return _number(t[1])
        if t[0] == "name":
            v = self.value_of(t[1])
            nxt = self.peek()
            if nxt is not None and nxt[0] == "op" and nxt[1] in ("++", "--"):
                self.take()
                self.assign(t[1], v + (1 if nxt[1] == "++" else -1))
            return v
        raise ArithError(f"{self.src}: unexpected '{t[1]}'")


def evaluate(src: str, get: Callable[[str], str | None], set_: Callable[[str, str], None], depth: int = 0) -> int:
    """The value of arithmetic expression `src` (already expanded); `get`/`set_` read and write variables."""
    if not src.strip():
        return 0
    e = _Eval(src, get, set_, depth)
    v = e.expr()
    rest = e.peek()
    if rest is not None:
        raise ArithError(f"{src}: unexpected '{rest[1]}'")
    return v
