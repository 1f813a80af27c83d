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
Nothing is executed by this module. Tokens and words come from `lexer.Lexer`; this is the grammar on top.
"""

from __future__ import annotations

from functools import lru_cache

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
from .lexer import ASSIGN_RE, CLOSERS, NAME_RE, UNSUPPORTED_WORDS, Lexer, Tok, unexpected

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


class _Parser(Lexer):
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
            raise ShellSyntaxError(unexpected(t))

    @staticmethod
    def _is_closing_brace(t: Tok, stop: set[str]) -> bool:
        """A reserved word in `stop` (`}`, `fi`, `done`, ...) where a command would start."""
        return t.kind == "word" and t.word is not None and t.word.plain() in stop

    def _expect_word(self, word: str) -> None:
        t = self.take()
        if not (t.kind == "word" and t.word is not None and t.word.plain() == word):
            raise ShellSyntaxError(unexpected(t))

    def _peek_word(self, *words: str) -> bool:
        t = self.peek()
        return t.kind == "word" and t.word is not None and t.word.plain() in words

    def _body(self, stop: set[str], what: str) -> Script:
        body = self.script(stop=stop)
        if not body.items:
            raise ShellSyntaxError(unexpected(self.peek()))
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
                raise ShellSyntaxError(unexpected(end))
            if not body.items:
                raise ShellSyntaxError("syntax error: unexpected '}'")
            return Group(body, False, self._redirects())
        word = t.word.plain() if t.kind == "word" and t.word is not None else None
        if word in UNSUPPORTED_WORDS:
            raise ShellSyntaxError(f"syntax error: '{word}' is not supported by this shell")
        if word in CLOSERS or word == "]]":
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
                or not NAME_RE.fullmatch(name.word.plain() or "")
            ):
                raise ShellSyntaxError(unexpected(name))
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
                raise ShellSyntaxError(unexpected(t))
        return If(clauses, else_body, self._redirects())

    def _for(self) -> For:
        self.take()
        name = self.take()
        var = name.word.plain() if name.kind == "word" and name.word is not None else None
        if var is None or not NAME_RE.fullmatch(var):
            raise ShellSyntaxError(unexpected(name))
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
            raise ShellSyntaxError(unexpected(t))
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
                    raise ShellSyntaxError(unexpected(t))
                patterns.append(t.word)
                t = self.take()
                if t.kind == "op" and t.value == "|":
                    t = self.take()
                    continue
                if t.kind == "op" and t.value == ")":
                    break
                raise ShellSyntaxError(unexpected(t))
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
                raise ShellSyntaxError(unexpected(t))
        if not items:
            raise ShellSyntaxError("syntax error: unexpected ']]'")
        return CondExpr(items, self._redirects())

    def _redirects(self) -> list[Redirect]:
        out: list[Redirect] = []
        while self.peek().kind == "redir":
            out.extend(self._redirect(self.take()))
        return out

    def _redirect(self, t: Tok) -> list[Redirect]:
        target = self.take()
        if target.kind != "word" or target.word is None:
            raise ShellSyntaxError(unexpected(target))
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
                        and NAME_RE.fullmatch(name)
                        and self.peek().kind == "op"
                        and self.peek().value == "("
                    ):
                        self.take()
                        close = self.take()
                        if close.kind != "op" or close.value != ")":
                            raise ShellSyntaxError(unexpected(close))
                        self._skip_newlines()
                        return FuncDef(name, self.command())
            else:
                break
        if not node.words and not node.assigns and not node.redirects:
            raise ShellSyntaxError(unexpected(self.peek()))
        return node

    def nested(self, src: str) -> Script:
        return parse(src)


def _assignment(w: Word) -> tuple[str, Word] | None:
    if not w.parts or not isinstance(w.parts[0], Lit) or w.parts[0].quoted:
        return None
    m = ASSIGN_RE.match(w.parts[0].text)
    if not m:
        return None
    rest = w.parts[0].text[m.end() :]
    value_parts: list[Part] = ([Lit(rest, False)] if rest else []) + list(w.parts[1:])
    return m.group(1), Word(value_parts)


@lru_cache(maxsize=256)
def parse(src: str) -> Script:
    """Parse a command line. Raises ShellSyntaxError with mksh's message text. A line parsed lately is not parsed
    again (a harness sends the same few lines every step, and an interactive line is parsed to see whether it is
    complete, whether it ends at once, and to run it): the tree is shared, and nothing changes a tree once parsed
    (the runner only reads it)."""
    p = _Parser(src)
    try:
        script = p.script(stop=set())
        t = p.take()
        if t.kind != "eof":
            raise ShellSyntaxError(unexpected(t))
        if p.heredocs:
            raise ShellSyntaxError(f"here document '{p.heredocs[0][1]}' unclosed")
    except ShellSyntaxError as e:
        if str(e) == "syntax error: unexpected EOF" and p.nesting:
            raise ShellSyntaxError(f"syntax error: unmatched '{p.nesting[-1]}'") from None
        raise
    return script
