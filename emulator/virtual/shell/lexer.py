"""The lexer of the mksh subset (see `parser`): tokens (words, operators, redirections), words with their quoting,
`$...` expansions, arithmetic, backticks and here-documents. Words keep their quoting: a `Lit` part remembers
whether it was quoted. The grammar on top is `parser._Parser`."""

from __future__ import annotations

import re
from dataclasses import dataclass

from .ast_nodes import (
    Arith,
    Lit,
    Part,
    Redirect,
    Script,
    ShellSyntaxError,
    Sub,
    Var,
    Word,
)


# --- tokens ------------------------------------------------------------------------------------------
@dataclass
class Tok:
    kind: str  # "word" | "op" | "redir" | "eof"
    value: str = ""  # op text or redir op
    word: Word | None = None
    fd: int = -1
    pos: int = 0  # where the token starts in the source


META = set(" \t\n;&|()<>")
NAME_RE = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
ASSIGN_RE = re.compile(r"([A-Za-z_][A-Za-z0-9_]*)=")
SPECIAL_VARS = set("?$#!@*-0123456789")
RESERVED = {
    "if",
    "then",
    "else",
    "elif",
    "fi",
    "for",
    "while",
    "until",
    "do",
    "done",
    "case",
    "esac",
    "function",
    "select",
    "time",
    "{",
    "}",
    "[[",
    "]]",
    "!",
    "in",
}
UNSUPPORTED_WORDS = {"select", "time"}
CLOSERS = {"then", "else", "elif", "fi", "do", "done", "esac", "}"}  # end a list where a command would start
DQ_ESCAPABLE = set('$`"\\\n')


class Lexer:
    """The tokens and words of a command line (quoting, expansions, here-documents); a command substitution's
    script is parsed by the grammar (`script`, `nested`), which `parser` gives."""

    def __init__(self, src: str) -> None:
        self.s = src
        self.i = 0
        self._peeked: Tok | None = None
        self.nesting: list[str] = []  # open compound commands: an EOF inside one is "unmatched 'for'"
        self.heredocs: list[tuple[Redirect, str, bool]] = []  # (redirect, delimiter, quoted) awaiting a body

    # --- lexer ------------------------------------------------------------------------------
    def _ch(self, k: int = 0) -> str:
        j = self.i + k
        return self.s[j] if j < len(self.s) else ""

    def peek(self) -> Tok:
        if self._peeked is None:
            self._peeked = self._lex()
        return self._peeked

    def take(self) -> Tok:
        t = self.peek()
        self._peeked = None
        return t

    def _lex(self) -> Tok:
        tok = self._lex_one()
        if tok.kind == "op" and tok.value == "\n" and self.heredocs:
            self._read_heredocs()
        return tok

    def _lex_one(self) -> Tok:
        s = self.s
        while True:
            c = self._ch()
            if c in (" ", "\t"):
                self.i += 1
            elif c == "\\" and self._ch(1) == "\n":
                self.i += 2
            elif c == "#":
                while self.i < len(s) and s[self.i] != "\n":
                    self.i += 1
            else:
                break
        if self.i >= len(s):
            return Tok("eof", pos=self.i)
        c = s[self.i]
        pos = self.i
        if c == "\n":
            self.i += 1
            return Tok("op", "\n", pos=pos)
        two = s[self.i : self.i + 2]
        if two in ("&&", "||", ";;"):
            self.i += 2
            return Tok("op", two, pos=pos)
        if two == "&>":  # mksh: &>file is >file 2>&1
            self.i += 2
            return Tok("redir", "&>", fd=1, pos=pos)
        if c in ";&|()":
            self.i += 1
            return Tok("op", c, pos=pos)
        # [n]redir
        m = re.match(r"(\d*)(<<-|>>|>&|>\||<<|<&|<>|>|<)", s[self.i :])
        if m and (m.group(1) or c in "<>"):
            self.i += m.end()
            op = m.group(2)
            if op == ">|":
                op = ">"
            fd = int(m.group(1)) if m.group(1) else (0 if op[0] == "<" else 1)
            return Tok("redir", op, fd=fd, pos=pos)
        return Tok("word", word=self._word(), pos=pos)

    def _read_heredocs(self) -> None:
        """The bodies of the here documents of the line just ended: each up to its delimiter line."""
        s = self.s
        for redirect, delim, quoted in self.heredocs:
            strip = redirect.op == "<<-"
            lines: list[str] = []
            while True:
                if self.i >= len(s):
                    raise ShellSyntaxError(f"here document '{delim}' unclosed")
                end = s.find("\n", self.i)
                line = s[self.i : end if end >= 0 else len(s)]
                self.i = end + 1 if end >= 0 else len(s)
                if strip:
                    line = line.lstrip("\t")
                if line == delim:
                    break
                lines.append(line + "\n")
            body = "".join(lines)
            redirect.op = "<<"
            redirect.target = Word([Lit(body, True)]) if quoted else Word(type(self)(body)._heredoc_parts())
        self.heredocs.clear()

    def _heredoc_parts(self) -> list[Part]:
        """An unquoted here document's body: parameters, substitutions and `\\$ \\` \\\\` as in double quotes."""
        parts = self._double_quoted(heredoc=True)
        return [Lit(p.text, True) if isinstance(p, Lit) else p for p in parts]

    def _word(self) -> Word:
        parts: list[Part] = []
        buf: list[str] = []

        def flush() -> None:
            if buf:
                parts.append(Lit("".join(buf), False))
                buf.clear()

        s = self.s
        while self.i < len(s):
            c = s[self.i]
            if c in META:
                break
            if c == "\\":
                nxt = self._ch(1)
                if nxt == "\n":
                    self.i += 2
                    continue
                flush()
                self.i += 2 if nxt else 1
                parts.append(Lit(nxt if nxt else "\\", True))
            elif c == "'":
                end = s.find("'", self.i + 1)
                if end < 0:
                    raise ShellSyntaxError("no closing quote")
                flush()
                parts.append(Lit(s[self.i + 1 : end], True))
                self.i = end + 1
            elif c == '"':
                flush()
                self.i += 1
                parts.extend(self._double_quoted())
            elif c == "$":
                flush()
                parts.append(self._dollar(quoted=False))
            elif c == "`":
                flush()
                parts.append(self._backtick(quoted=False))
            else:
                buf.append(c)
                self.i += 1
        flush()
        return Word(merge(parts))

    def _double_quoted(self, heredoc: bool = False) -> list[Part]:
        parts: list[Part] = []
        buf: list[str] = []
        s = self.s
        while True:
            if self.i >= len(s):
                if heredoc:
                    break
                raise ShellSyntaxError("no closing quote")
            c = s[self.i]
            if c == '"' and not heredoc:
                self.i += 1
                break
            if c == "\\":
                nxt = self._ch(1)
                if nxt in DQ_ESCAPABLE and nxt and not (heredoc and nxt == '"'):
                    if nxt != "\n":
                        buf.append(nxt)
                    self.i += 2
                else:
                    buf.append("\\")
                    self.i += 1
            elif c == "$":
                if buf:
                    parts.append(Lit("".join(buf), True))
                    buf.clear()
                parts.append(self._dollar(quoted=True))
            elif c == "`":
                if buf:
                    parts.append(Lit("".join(buf), True))
                    buf.clear()
                parts.append(self._backtick(quoted=True))
            else:
                buf.append(c)
                self.i += 1
        if buf or not parts:
            parts.append(Lit("".join(buf), True))  # "" is an (empty) argument
        return parts

    def _dollar(self, quoted: bool) -> Part:
        s = self.s
        self.i += 1  # past '$'
        c = self._ch()
        if c == "(":
            if self._ch(1) == "(":
                arith = self._arith(quoted)
                if arith is not None:
                    return arith
            self.i += 1
            body = self._script_until(")")
            return Sub(body, quoted)
        if c == "{":
            end = self.i + 1
            length = s.startswith("#", end) and re.match(r"#([A-Za-z_]|[?$#!@*\-0-9])", s[end:]) is not None
            start = end + 1 if length else end
            m = re.match(r"[A-Za-z_][A-Za-z0-9_]*|[?$#!@*\-0-9]", s[start:])
            if not m:
                raise ShellSyntaxError(f"${{{s[end : end + 10]}: bad substitution")
            name = m.group(0)
            end = start
            j = end + m.end()
            op = ""
            arg: Word | None = None
            if length:
                op = "#"
            elif s.startswith(("##", "%%"), j):
                op = s[j : j + 2]
                j += 2
            elif j < len(s) and s[j] in "#%":
                op = s[j]
                j += 1
            elif s.startswith((":-", ":=", ":+", ":?"), j):
                op = s[j : j + 2]
                j += 2
            elif j < len(s) and s[j] in "-=+?":
                op = s[j]
                j += 1
            if op and not (op == "#" and length):
                self.i = j
                arg = self._brace_arg()
                j = self.i
            if j >= len(s) or s[j] != "}":
                raise ShellSyntaxError(
                    f"${{{s[end : j + 1]}: bad substitution" if j < len(s) else "syntax error: unexpected EOF"
                )
            self.i = j + 1
            return Var(name, quoted, op, arg)
        if c and c in SPECIAL_VARS:
            self.i += 1
            return Var(c, quoted)
        m = NAME_RE.match(s, self.i)
        if m:
            self.i = m.end()
            return Var(m.group(0), quoted)
        return Lit("$", True)

    def _arith(self, quoted: bool) -> Arith | None:
        """`$((expr))` starting at the first '(' (self.i); None when the parentheses do not close as `))`
        (then it is `$( (subshell) )`, a command substitution)."""
        s = self.s
        start = self.i + 2
        depth, j = 0, start
        while j < len(s):
            c = s[j]
            if c == "(":
                depth += 1
            elif c == ")":
                if depth == 0:
                    if j + 1 < len(s) and s[j + 1] == ")":
                        break
                    return None
                depth -= 1
            elif c in "'\"":
                return None
            j += 1
        else:
            raise ShellSyntaxError("syntax error: unexpected EOF")
        source = s[start:j]
        inner = type(self)(source + '"')
        parts = inner._double_quoted()
        self.i = j + 2
        return Arith(Word(merge([Lit(p.text, True) if isinstance(p, Lit) else p for p in parts])), quoted, source)

    def _brace_arg(self) -> Word:
        """The word after ${VAR:-...} up to the closing brace (quotes and expansions allowed)."""
        parts: list[Part] = []
        buf: list[str] = []
        s = self.s
        while self.i < len(s) and s[self.i] != "}":
            c = s[self.i]
            if c in "'\"$`\\":
                if buf:
                    parts.append(Lit("".join(buf), False))
                    buf.clear()
                if c == "'":
                    end = s.find("'", self.i + 1)
                    if end < 0:
                        raise ShellSyntaxError("no closing quote")
                    parts.append(Lit(s[self.i + 1 : end], True))
                    self.i = end + 1
                elif c == '"':
                    self.i += 1
                    parts.extend(self._double_quoted())
                elif c == "$":
                    parts.append(self._dollar(quoted=False))
                elif c == "`":
                    parts.append(self._backtick(quoted=False))
                else:
                    parts.append(Lit(self._ch(1), True))
                    self.i += 2
            else:
                buf.append(c)
                self.i += 1
        if buf:
            parts.append(Lit("".join(buf), False))
        return Word(merge(parts))

    def _backtick(self, quoted: bool) -> Sub:
        s = self.s
        j = self.i + 1
        raw: list[str] = []
        while True:
            if j >= len(s):
                raise ShellSyntaxError("no closing quote")
            c = s[j]
            if c == "`":
                break
            if c == "\\" and j + 1 < len(s) and s[j + 1] in "`\\$":
                raw.append(s[j + 1])
                j += 2
                continue
            raw.append(c)
            j += 1
        self.i = j + 1
        return Sub(self.nested("".join(raw)), quoted)

    def _script_until(self, closer: str) -> Script:
        """Parse a nested script up to the matching `closer` op token (consumed)."""
        assert self._peeked is None
        script = self.script(stop={closer})
        t = self.take()
        if t.kind != "op" or t.value != closer:
            raise ShellSyntaxError(unexpected(t))
        return script

    # --- given by the grammar (parser._Parser) -------------------------------------------------
    def script(self, stop: set[str]) -> Script:
        raise NotImplementedError

    def nested(self, src: str) -> Script:
        """A command substitution's text, parsed as a script of its own."""
        raise NotImplementedError


def unexpected(t: Tok) -> str:
    if t.kind == "eof":
        return "syntax error: unexpected EOF"
    if t.kind == "op":
        return "syntax error: unexpected 'newline'" if t.value == "\n" else f"syntax error: unexpected '{t.value}'"
    if t.kind == "redir":
        return f"syntax error: unexpected '{t.value}'"
    text = t.word.literal() if t.word is not None else None
    return f"syntax error: unexpected '{text if text is not None else '(word)'}'"


def merge(parts: list[Part]) -> list[Part]:
    out: list[Part] = []
    for p in parts:
        if out and isinstance(p, Lit) and isinstance(out[-1], Lit) and out[-1].quoted == p.quoted:
            prev = out[-1]
            assert isinstance(prev, Lit)
            out[-1] = Lit(prev.text + p.text, p.quoted)
        else:
            out.append(p)
    return out
