"""Parser for the mksh subset that adb clients send: lists, pipelines, quoting, expansions, redirections.

Grammar (POSIX shell as mksh takes it, reduced):
    script    := and_or ((';' | '&' | NEWLINE) and_or)*
    and_or    := pipeline (('&&' | '||') NEWLINE* pipeline)*
    pipeline  := ['!'] command ('|' NEWLINE* command)*
    command   := simple | compound redir* | NAME '(' ')' compound | 'function' NAME compound
    compound  := '(' script ')' | '{' script '}' | if | for | while | until | case | '[[' cond ']]'
    if        := 'if' script 'then' script ('elif' script 'then' script)* ['else' script] 'fi'
    for       := 'for' NAME [NEWLINE* 'in' WORD*] (';' | NEWLINE)* 'do' script 'done'
    while     := ('while' | 'until') script 'do' script 'done'
    case      := 'case' WORD NEWLINE* 'in' NEWLINE* (['('] WORD ('|' WORD)* ')' script [';;'] NEWLINE*)* 'esac'
    simple    := (ASSIGNMENT | WORD | redir)+
Reserved words count only where a command starts (`echo done` prints "done").

Words keep their quoting: a `Lit` part remembers whether it was quoted, so that expansion results and
globs are split only when unquoted, and text inside single quotes is never interpreted at all. Command
substitutions are parsed here (so syntax errors surface before anything runs) and executed by the runner.
Nothing is executed by this module.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from .ast_nodes import (
    AndOr,
    Arith,
    Case,
    Command,
    CondExpr,
    For,
    FuncDef,
    Group,
    If,
    Lit,
    Part,
    Pipeline,
    Redirect,
    Script,
    ShellSyntaxError,
    Simple,
    Sub,
    Var,
    While,
    Word,
)

__all__ = [
    "AndOr",
    "Arith",
    "Case",
    "Command",
    "CondExpr",
    "For",
    "FuncDef",
    "Group",
    "If",
    "Lit",
    "Part",
    "Pipeline",
    "Redirect",
    "Script",
    "ShellSyntaxError",
    "Simple",
    "Sub",
    "Var",
    "While",
    "Word",
    "parse",
]


# --- tokens ------------------------------------------------------------------------------------------
@dataclass
class _Tok:
    kind: str  # "word" | "op" | "redir" | "eof"
    value: str = ""  # op text or redir op
    word: Word | None = None
    fd: int = -1
    pos: int = 0  # where the token starts in the source


_META = set(" \t\n;&|()<>")
_NAME_RE = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_ASSIGN_RE = re.compile(r"([A-Za-z_][A-Za-z0-9_]*)=")
_SPECIAL_VARS = set("?$#!@*-0123456789")
_RESERVED = {
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
_UNSUPPORTED_WORDS = {"select", "time"}
_CLOSERS = {"then", "else", "elif", "fi", "do", "done", "esac", "}"}  # end a list where a command would start
_DQ_ESCAPABLE = set('$`"\\\n')


class _Parser:
    def __init__(self, src: str) -> None:
        self.s = src
        self.i = 0
        self._peeked: _Tok | None = None
        self.nesting: list[str] = []  # open compound commands: an EOF inside one is "unmatched 'for'"
        self.heredocs: list[tuple[Redirect, str, bool]] = []  # (redirect, delimiter, quoted) awaiting a body

    # --- lexer ------------------------------------------------------------------------------
    def _ch(self, k: int = 0) -> str:
        j = self.i + k
        return self.s[j] if j < len(self.s) else ""

    def peek(self) -> _Tok:
        if self._peeked is None:
            self._peeked = self._lex()
        return self._peeked

    def take(self) -> _Tok:
        t = self.peek()
        self._peeked = None
        return t

    def _lex(self) -> _Tok:
        tok = self._lex_one()
        if tok.kind == "op" and tok.value == "\n" and self.heredocs:
            self._read_heredocs()
        return tok

    def _lex_one(self) -> _Tok:
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
            return _Tok("eof", pos=self.i)
        c = s[self.i]
        pos = self.i
        if c == "\n":
            self.i += 1
            return _Tok("op", "\n", pos=pos)
        two = s[self.i : self.i + 2]
        if two in ("&&", "||", ";;"):
            self.i += 2
            return _Tok("op", two, pos=pos)
        if two == "&>":  # mksh: &>file is >file 2>&1
            self.i += 2
            return _Tok("redir", "&>", fd=1, pos=pos)
        if c in ";&|()":
            self.i += 1
            return _Tok("op", c, pos=pos)
        # [n]redir
        m = re.match(r"(\d*)(<<-|>>|>&|>\||<<|<&|<>|>|<)", s[self.i :])
        if m and (m.group(1) or c in "<>"):
            self.i += m.end()
            op = m.group(2)
            if op == ">|":
                op = ">"
            fd = int(m.group(1)) if m.group(1) else (0 if op[0] == "<" else 1)
            return _Tok("redir", op, fd=fd, pos=pos)
        return _Tok("word", word=self._word(), pos=pos)

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
            redirect.target = Word([Lit(body, True)]) if quoted else Word(_Parser(body)._heredoc_parts())
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
            if c in _META:
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
        return Word(_merge(parts))

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
                if nxt in _DQ_ESCAPABLE and nxt and not (heredoc and nxt == '"'):
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
        if c and c in _SPECIAL_VARS:
            self.i += 1
            return Var(c, quoted)
        m = _NAME_RE.match(s, self.i)
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
        inner = _Parser(source + '"')
        parts = inner._double_quoted()
        self.i = j + 2
        return Arith(Word(_merge([Lit(p.text, True) if isinstance(p, Lit) else p for p in parts])), quoted, source)

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
        return Word(_merge(parts))

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
        return Sub(parse("".join(raw)), quoted)

    def _script_until(self, closer: str) -> Script:
        """Parse a nested script up to the matching `closer` op token (consumed)."""
        assert self._peeked is None
        script = self.script(stop={closer})
        t = self.take()
        if t.kind != "op" or t.value != closer:
            raise ShellSyntaxError(_unexpected(t))
        return script

    # --- grammar ----------------------------------------------------------------------------
    def script(self, stop: set[str]) -> Script:
        items: list[AndOr] = []
        while True:
            t = self.peek()
            while t.kind == "op" and t.value == "\n":
                self.take()
                t = self.peek()
            if t.kind == "eof" or (t.kind == "op" and t.value in stop) or self._is_closing_brace(t, stop):
                return Script(items)
            start = t.pos
            items.append(self.and_or())
            t = self.peek()
            items[-1].text = self.s[start : t.pos].strip()
            if t.kind == "op" and t.value in (";", "&", "\n"):
                items[-1].background = t.value == "&"
                self.take()
                continue
            if t.kind == "eof" or (t.kind == "op" and t.value in stop) or self._is_closing_brace(t, stop):
                return Script(items)
            raise ShellSyntaxError(_unexpected(t))

    @staticmethod
    def _is_closing_brace(t: _Tok, stop: set[str]) -> bool:
        """A reserved word in `stop` (`}`, `fi`, `done`, ...) where a command would start."""
        return t.kind == "word" and t.word is not None and t.word.plain() in stop

    def _expect_word(self, word: str) -> None:
        t = self.take()
        if not (t.kind == "word" and t.word is not None and t.word.plain() == word):
            raise ShellSyntaxError(_unexpected(t))

    def _peek_word(self, *words: str) -> bool:
        t = self.peek()
        return t.kind == "word" and t.word is not None and t.word.plain() in words

    def _body(self, stop: set[str], what: str) -> Script:
        body = self.script(stop=stop)
        if not body.items:
            raise ShellSyntaxError(_unexpected(self.peek()))
        return body

    def _skip_newlines(self) -> None:
        while self.peek().kind == "op" and self.peek().value == "\n":
            self.take()

    def and_or(self) -> AndOr:
        node = AndOr(self.pipeline())
        while True:
            t = self.peek()
            if t.kind == "op" and t.value in ("&&", "||"):
                self.take()
                self._skip_newlines()
                node.rest.append((t.value, self.pipeline()))
            else:
                return node

    def pipeline(self) -> Pipeline:
        negate = False
        t = self.peek()
        if t.kind == "word" and t.word is not None and t.word.plain() == "!":
            self.take()
            negate = True
        cmds = [self.command()]
        while True:
            t = self.peek()
            if t.kind == "op" and t.value == "|":
                self.take()
                self._skip_newlines()
                cmds.append(self.command())
            else:
                return Pipeline(cmds, negate)

    def command(self) -> Command:
        t = self.peek()
        opener = (
            t.value
            if t.kind == "op" and t.value == "("
            else (t.word.plain() if t.kind == "word" and t.word is not None else None)
        )
        if opener in ("(", "{", "if", "while", "until", "for", "case", "[["):
            self.nesting.append(opener)
            node = self._command()
            self.nesting.pop()
            return node
        return self._command()

    def _command(self) -> Command:
        t = self.peek()
        if t.kind == "op" and t.value == "(":
            self.take()
            body = self._script_until(")")
            if not body.items:
                raise ShellSyntaxError("syntax error: unexpected ')'")
            return Group(body, True, self._redirects())
        if t.kind == "word" and t.word is not None and t.word.plain() == "{":
            self.take()
            body = self.script(stop={"}"})
            end = self.take()
            if not (end.kind == "word" and end.word is not None and end.word.plain() == "}"):
                raise ShellSyntaxError(_unexpected(end))
            if not body.items:
                raise ShellSyntaxError("syntax error: unexpected '}'")
            return Group(body, False, self._redirects())
        word = t.word.plain() if t.kind == "word" and t.word is not None else None
        if word in _UNSUPPORTED_WORDS:
            raise ShellSyntaxError(f"syntax error: '{word}' is not supported by this shell")
        if word in _CLOSERS or word == "]]":
            raise ShellSyntaxError(f"syntax error: unexpected '{word}'")
        if word == "if":
            return self._if()
        if word in ("while", "until"):
            self.take()
            cond = self._body({"do"}, word)
            self._expect_word("do")
            body = self._body({"done"}, "do")
            self._expect_word("done")
            return While(cond, body, word == "until", self._redirects())
        if word == "for":
            return self._for()
        if word == "case":
            return self._case()
        if word == "[[":
            return self._cond()
        if word == "function":
            self.take()
            name = self.take()
            if (
                name.kind != "word"
                or name.word is None
                or name.word.plain() is None
                or not _NAME_RE.fullmatch(name.word.plain() or "")
            ):
                raise ShellSyntaxError(_unexpected(name))
            self._skip_newlines()
            return FuncDef(name.word.plain() or "", self.command())
        return self.simple()

    def _if(self) -> If:
        self.take()
        clauses = []
        cond = self._body({"then"}, "if")
        self._expect_word("then")
        body = self._body({"elif", "else", "fi"}, "then")
        clauses.append((cond, body))
        else_body = None
        while True:
            t = self.take()
            w = t.word.plain() if t.kind == "word" and t.word is not None else None
            if w == "elif":
                cond = self._body({"then"}, "elif")
                self._expect_word("then")
                clauses.append((cond, self._body({"elif", "else", "fi"}, "then")))
            elif w == "else":
                else_body = self._body({"fi"}, "else")
                self._expect_word("fi")
                break
            elif w == "fi":
                break
            else:
                raise ShellSyntaxError(_unexpected(t))
        return If(clauses, else_body, self._redirects())

    def _for(self) -> For:
        self.take()
        name = self.take()
        var = name.word.plain() if name.kind == "word" and name.word is not None else None
        if var is None or not _NAME_RE.fullmatch(var):
            raise ShellSyntaxError(_unexpected(name))
        self._skip_newlines()
        items: list[Word] | None = None
        if self._peek_word("in"):
            self.take()
            items = []
            while self.peek().kind == "word" and self.peek().word is not None:
                w = self.take().word
                assert w is not None
                items.append(w)
        t = self.peek()
        while t.kind == "op" and t.value in (";", "\n"):
            self.take()
            t = self.peek()
        self._expect_word("do")
        body = self._body({"done"}, "do")
        self._expect_word("done")
        return For(var, items, body, self._redirects())

    def _case(self) -> Case:
        self.take()
        t = self.take()
        if t.kind != "word" or t.word is None:
            raise ShellSyntaxError(_unexpected(t))
        subject = t.word
        self._skip_newlines()
        self._expect_word("in")
        self._skip_newlines()
        items: list[tuple[list[Word], Script]] = []
        while not self._peek_word("esac"):
            t = self.take()
            if t.kind == "op" and t.value == "(":
                t = self.take()
            patterns = []
            while True:
                if t.kind != "word" or t.word is None:
                    raise ShellSyntaxError(_unexpected(t))
                patterns.append(t.word)
                t = self.take()
                if t.kind == "op" and t.value == "|":
                    t = self.take()
                    continue
                if t.kind == "op" and t.value == ")":
                    break
                raise ShellSyntaxError(_unexpected(t))
            body = self.script(stop={";;", "esac"})
            items.append((patterns, body))
            if self.peek().kind == "op" and self.peek().value == ";;":
                self.take()
            self._skip_newlines()
        self.take()
        return Case(subject, items, self._redirects())

    def _cond(self) -> CondExpr:
        """`[[ ... ]]`: operators are tokens here, words are expanded without splitting or globbing."""
        self.take()
        items: list[Word | str] = []
        while True:
            t = self.take()
            if t.kind == "eof":
                raise ShellSyntaxError("syntax error: unexpected EOF")
            if t.kind == "word" and t.word is not None:
                if t.word.plain() == "]]":
                    break
                items.append("!" if t.word.plain() == "!" else t.word)
            elif t.kind == "op" and t.value in ("&&", "||", "(", ")"):
                items.append(t.value)
            elif t.kind == "redir" and t.value in ("<", ">"):
                items.append(Word([Lit(t.value, True)]))
            elif t.kind == "op" and t.value == "\n":
                continue
            else:
                raise ShellSyntaxError(_unexpected(t))
        if not items:
            raise ShellSyntaxError("syntax error: unexpected ']]'")
        return CondExpr(items, self._redirects())

    def _redirects(self) -> list[Redirect]:
        out: list[Redirect] = []
        while self.peek().kind == "redir":
            out.extend(self._redirect(self.take()))
        return out

    def _redirect(self, t: _Tok) -> list[Redirect]:
        target = self.take()
        if target.kind != "word" or target.word is None:
            raise ShellSyntaxError(_unexpected(target))
        if t.value == "&>":
            return [Redirect(1, ">", target.word), Redirect(2, ">&", Word([Lit("1", False)]))]
        redirect = Redirect(t.fd, t.value, target.word)
        if t.value in ("<<", "<<-"):  # the body follows the next newline
            delim = "".join(p.text if isinstance(p, Lit) else "$" + getattr(p, "name", "") for p in target.word.parts)
            quoted = any(isinstance(p, Lit) and p.quoted for p in target.word.parts)
            self.heredocs.append((redirect, delim, quoted))
        return [redirect]

    def simple(self) -> Simple | FuncDef:
        node = Simple()
        while True:
            t = self.peek()
            if t.kind == "redir":
                node.redirects.extend(self._redirect(self.take()))
            elif t.kind == "word" and t.word is not None:
                self.take()
                w = t.word
                if not node.words and (a := _assignment(w)) is not None:
                    node.assigns.append(a)
                else:
                    node.words.append(w)
                    name = w.plain()
                    if (
                        len(node.words) == 1
                        and not node.assigns
                        and not node.redirects
                        and name is not None
                        and _NAME_RE.fullmatch(name)
                        and self.peek().kind == "op"
                        and self.peek().value == "("
                    ):
                        self.take()
                        close = self.take()
                        if close.kind != "op" or close.value != ")":
                            raise ShellSyntaxError(_unexpected(close))
                        self._skip_newlines()
                        return FuncDef(name, self.command())
            else:
                break
        if not node.words and not node.assigns and not node.redirects:
            raise ShellSyntaxError(_unexpected(self.peek()))
        return node


def _unexpected(t: _Tok) -> str:
    if t.kind == "eof":
        return "syntax error: unexpected EOF"
    if t.kind == "op":
        return "syntax error: unexpected 'newline'" if t.value == "\n" else f"syntax error: unexpected '{t.value}'"
    if t.kind == "redir":
        return f"syntax error: unexpected '{t.value}'"
    text = t.word.literal() if t.word is not None else None
    return f"syntax error: unexpected '{text if text is not None else '(word)'}'"


def _merge(parts: list[Part]) -> list[Part]:
    out: list[Part] = []
    for p in parts:
        if out and isinstance(p, Lit) and isinstance(out[-1], Lit) and out[-1].quoted == p.quoted:
            prev = out[-1]
            assert isinstance(prev, Lit)
            out[-1] = Lit(prev.text + p.text, p.quoted)
        else:
            out.append(p)
    return out


def _assignment(w: Word) -> tuple[str, Word] | None:
    if not w.parts or not isinstance(w.parts[0], Lit) or w.parts[0].quoted:
        return None
    m = _ASSIGN_RE.match(w.parts[0].text)
    if not m:
        return None
    rest = w.parts[0].text[m.end() :]
    value_parts: list[Part] = ([Lit(rest, False)] if rest else []) + list(w.parts[1:])
    return m.group(1), Word(value_parts)


def parse(src: str) -> Script:
    """Parse a command line. Raises ShellSyntaxError with mksh's message text."""
    p = _Parser(src)
    try:
        script = p.script(stop=set())
        t = p.take()
        if t.kind != "eof":
            raise ShellSyntaxError(_unexpected(t))
        if p.heredocs:
            raise ShellSyntaxError(f"here document '{p.heredocs[0][1]}' unclosed")
    except ShellSyntaxError as e:
        if str(e) == "syntax error: unexpected EOF" and p.nesting:
            raise ShellSyntaxError(f"syntax error: unmatched '{p.nesting[-1]}'") from None
        raise
    return script
