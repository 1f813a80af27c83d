"""The syntax tree of a parsed command line (see `parser`). Words keep per-part quoting."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Union


class ShellSyntaxError(Exception):
    """A syntax error; the message is what mksh prints after `/system/bin/sh: `."""


# --- AST ---------------------------------------------------------------------------------------------
@dataclass
class Lit:
    text: str
    quoted: bool  # quoted text is neither field-split nor globbed


@dataclass
class Var:
    name: str  # "HOME", "?", "$", "#", "1" ...
    quoted: bool
    op: str = ""  # "", ":-", "-", ":=", "=", ":+", "+", "#" (length)
    arg: Word | None = None


@dataclass
class Arith:
    """Arithmetic expansion $(( expr )): `expr` is expanded (parameters, substitutions) then evaluated."""

    expr: Word
    quoted: bool
    source: str = ""  # the text between $(( and )), for error messages


@dataclass
class Sub:
    """Command substitution $(...) or `...`."""

    script: Script
    quoted: bool


Part = Union[Lit, Var, Sub, Arith]


@dataclass
class Word:
    parts: list[Part] = field(default_factory=list)

    def literal(self) -> str | None:
        """The text when the word has no expansion at all (quoted or not), else None."""
        out = []
        for p in self.parts:
            if not isinstance(p, Lit):
                return None
            out.append(p.text)
        return "".join(out)

    def plain(self) -> str | None:
        """The text when the word is entirely unquoted literal text (reserved-word candidates)."""
        if len(self.parts) == 1 and isinstance(self.parts[0], Lit) and not self.parts[0].quoted:
            return self.parts[0].text
        return None


@dataclass
class Redirect:
    fd: int
    op: str  # ">", ">>", "<", ">&", "<&", "<>", "<<" (a here document: `target` is its body)
    target: Word


@dataclass
class Simple:
    assigns: list[tuple[str, Word]] = field(default_factory=list)
    words: list[Word] = field(default_factory=list)
    redirects: list[Redirect] = field(default_factory=list)


@dataclass
class Group:
    body: Script
    subshell: bool
    redirects: list[Redirect] = field(default_factory=list)


@dataclass
class If:
    clauses: list[tuple[Script, Script]]  # (condition, body) for `if` and each `elif`
    else_body: Script | None = None
    redirects: list[Redirect] = field(default_factory=list)


@dataclass
class For:
    var: str
    items: list[Word] | None  # None: `for x; do` iterates over "$@"
    body: Script
    redirects: list[Redirect] = field(default_factory=list)


@dataclass
class While:
    cond: Script
    body: Script
    until: bool = False
    redirects: list[Redirect] = field(default_factory=list)


@dataclass
class Case:
    word: Word
    items: list[tuple[list[Word], Script]]
    redirects: list[Redirect] = field(default_factory=list)


@dataclass
class CondExpr:
    """`[[ ... ]]`: words and the operators && || ! ( ) kept apart from words that merely look like them."""

    items: list[Union[Word, str]]  # str = an operator token
    redirects: list[Redirect] = field(default_factory=list)


@dataclass
class FuncDef:
    name: str
    body: Command


Command = Union[Simple, Group, If, For, While, Case, CondExpr, FuncDef]


@dataclass
class Pipeline:
    commands: list[Command]
    negate: bool = False


@dataclass
class AndOr:
    first: Pipeline
    rest: list[tuple[str, Pipeline]] = field(default_factory=list)  # ("&&" | "||", pipeline)
    background: bool = False  # ended by `&`: runs as a job
    text: str = ""  # the source text (what `jobs` shows)


@dataclass
class Script:
    items: list[AndOr] = field(default_factory=list)
