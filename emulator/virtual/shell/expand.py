"""Word expansion: parameters (`$X`, `${X:-y}`, `$?`), command substitution (run through the same shell),
field splitting of unquoted results, and pathname expansion against the device file system."""

from __future__ import annotations

import fnmatch
import posixpath
import re
from typing import TYPE_CHECKING

from ..fs import FsError
from .arith import ArithError, evaluate
from .ast_nodes import Arith, Lit, Part, Script, Sub, Var, Word
from .plumbing import BufSink, ExitShell, Fds
from .registry import SH

if TYPE_CHECKING:  # pragma: no cover
    from ..model import VirtualDeviceModel

MAX_DEPTH = 32


class Expander:
    """Mixed into `ShellState`: needs `model`, `vars`, `status`, `pid`, `cwd`, `depth`, `child()`,
    `run_script()` and `_abs()`."""

    model: VirtualDeviceModel
    vars: dict[str, str]
    status: int
    pid: int
    cwd: str
    depth: int
    params: list[str]
    _subst_status: int | None = None

    if TYPE_CHECKING:  # provided by ShellState

        def child(self) -> Expander: ...

        def run_script(self, script: Script, fds: Fds) -> int: ...

        def _abs(self, p: str) -> str: ...

    # --- expansion ------------------------------------------------------------------------------
    def expand_str(self, w: Word, fds: Fds) -> str:
        """Expansion without field splitting or globbing (assignments, ${x:-word})."""
        out = []
        for part in w.parts:
            if isinstance(part, Lit):
                out.append(part.text)
            else:
                out.append(self._value(part, fds))
        return "".join(out)

    def expand(self, w: Word, fds: Fds) -> list[str]:
        """Expand one word into fields: parameters, command substitution, field splitting, globbing."""
        fields: list[list[tuple[str, bool]]] = []  # each field: (text, glob-active) chunks
        cur: list[tuple[str, bool]] = []
        cur_exists = False
        ifs = self.vars.get("IFS", " \t\n")
        for part in w.parts:
            if isinstance(part, Lit):
                cur.append((part.text, not part.quoted))
                cur_exists = cur_exists or part.quoted or bool(part.text)
                continue
            if part.quoted and isinstance(part, Var) and part.name == "@" and not part.op:
                # "$@": one field per positional parameter, joined to the text around it at both ends
                for k, param in enumerate(self.params):
                    if k:
                        fields.append(cur)
                        cur = []
                    cur.append((param, False))
                    cur_exists = True
                continue
            value = self._value(part, fds)
            if part.quoted:
                cur.append((value, False))
                cur_exists = True
                continue
            # unquoted expansion: split on IFS whitespace
            pieces = _split_ifs(value, ifs)
            if not pieces:
                if value and any(c in ifs for c in value):  # all separators: ends the field
                    if cur_exists:
                        fields.append(cur)
                    cur, cur_exists = [], False
                continue
            lead = value[:1] in ifs if value else False
            trail = value[-1:] in ifs if value else False
            for i, piece in enumerate(pieces):
                if i > 0 or lead:
                    if cur_exists:
                        fields.append(cur)
                    cur, cur_exists = [], False
                cur.append((piece, True))
                cur_exists = True
            if trail:
                fields.append(cur)
                cur, cur_exists = [], False
        if cur_exists:
            fields.append(cur)
        out: list[str] = []
        for f in fields:
            text = "".join(t for t, _ in f)
            if any(active and any(c in "*?[" for c in t) for t, active in f):
                matches = self._glob(f)
                out.extend(matches if matches else [text])
            else:
                out.append(text)
        return out

    def arith(self, source: str) -> int:
        """Evaluate an (expanded) arithmetic expression against the shell's variables."""

        def setvar(name: str, value: str) -> None:
            self.vars[name] = value

        return evaluate(source, self.vars.get, setvar)

    def _value(self, part: Part, fds: Fds) -> str:
        if isinstance(part, Sub):
            return self._substitute(part.script, fds)
        if isinstance(part, Arith):
            text = self.expand_str(part.expr, fds)
            try:
                return str(self.arith(text))
            except ArithError as e:
                fds.stderr.write(f"{SH}: {e}\n".encode())
                raise ExitShell(1) from None  # an expansion error ends a non-interactive shell
        assert isinstance(part, Var)
        name = part.name
        if name == "?":
            val: str | None = str(self.status)
        elif name == "$":
            val = str(self.pid)
        elif name in ("#",):
            val = str(len(self.params))
        elif name == "0":
            val = getattr(self, "argv0", SH)
        elif name in ("@", "*"):
            val = " ".join(self.params) if name == "@" else self.vars.get("IFS", " ")[:1].join(self.params)
        elif name.isdigit():
            k = int(name)
            val = self.params[k - 1] if 0 < k <= len(self.params) else None
        elif name == "!":
            val = getattr(self, "last_bg", None)
        elif name == "-":
            val = ""
        else:
            val = self.vars.get(name)
        op = part.op
        if op == "#" and part.arg is None:
            return str(len(val or ""))
        if op in ("#", "##", "%", "%%"):
            text = val or ""
            if part.arg is None:
                return text
            rx = self.pattern_regex(part.arg, fds)
            if op.startswith("#"):
                cuts = [k for k in range(len(text) + 1) if rx.fullmatch(text[:k])]
                if cuts:
                    k = max(cuts) if op == "##" else min(cuts)
                    return text[k:]
                return text
            cuts = [k for k in range(len(text) + 1) if rx.fullmatch(text[k:])]
            if cuts:
                k = min(cuts) if op == "%%" else max(cuts)
                return text[:k]
            return text
        if op:
            colon = op.startswith(":")
            unset = val is None or (colon and val == "")
            base = op[-1]
            if base == "-":
                return self.expand_str(part.arg, fds) if unset and part.arg else ("" if unset else val or "")
            if base == "=":
                if unset:
                    val = self.expand_str(part.arg, fds) if part.arg else ""
                    self.vars[name] = val
                return val or ""
            if base == "+":
                return "" if unset else (self.expand_str(part.arg, fds) if part.arg else "")
            if base == "?":
                if unset:
                    msg = self.expand_str(part.arg, fds) if part.arg else "parameter null or not set"
                    fds.stderr.write(f"{SH}: {name}: {msg}\n".encode())
                    raise ExitShell(1)
                return val or ""
        return val or ""

    def pattern_regex(self, w: Word, fds: Fds) -> re.Pattern[str]:
        """A shell pattern (case, [[ == ]], ${x#pat}) as a regex: quoted characters match literally."""
        out: list[str] = []
        for part in w.parts:
            if isinstance(part, Lit):
                out.append(re.escape(part.text) if part.quoted else glob_regex(part.text))
            else:
                value = self._value(part, fds)
                out.append(re.escape(value) if part.quoted else glob_regex(value))
        return re.compile("".join(out), re.DOTALL)

    def _substitute(self, script: Script, fds: Fds) -> str:
        if self.depth >= MAX_DEPTH:
            return ""
        buf = BufSink()
        f = Fds(fds.stdin, buf, fds.stderr)
        sub = self.child()
        try:
            status = sub.run_script(script, f)
        except ExitShell as e:
            status = e.status
        self._subst_status = status
        return buf.buf.decode("utf-8", "surrogateescape").rstrip("\n")

    def _glob(self, chunks: list[tuple[str, bool]]) -> list[str]:
        """Pathname expansion against the device file system (quoted characters match literally)."""
        pat = "".join(t if active else "".join(f"[{c}]" if c in "*?[" else c for c in t) for t, active in chunks)
        segs = [s for s in pat.split("/") if s]
        bases = ["/"] if pat.startswith("/") else [""]
        for i, seg in enumerate(segs):
            last = i == len(segs) - 1
            nxt: list[str] = []
            for b in bases:
                if not any(c in seg for c in "*?["):
                    lit = fnmatch_unescape(seg)
                    cand = posixpath.join(b, lit) if b else lit
                    if self.model.fs.exists(self._abs(cand)):
                        nxt.append(cand)
                    continue
                try:
                    entries = self.model.fs.listdir(self._abs(b) if b else self.cwd)
                except (FsError, OSError):
                    continue
                for name, node in entries:
                    if name.startswith(".") and not seg.startswith("."):
                        continue
                    if fnmatch.fnmatchcase(name, seg) and (last or node.is_dir):
                        nxt.append(posixpath.join(b, name) if b else name)
            bases = nxt
            if not bases:
                return []
        return sorted(bases)


def glob_regex(pat: str) -> str:
    """Regex text for an unquoted glob: * ? [...] ([!...] negates); a backslash quotes the next character."""
    out, i = [], 0
    while i < len(pat):
        c = pat[i]
        if c == "*":
            out.append(".*")
        elif c == "?":
            out.append(".")
        elif c == "[":
            j = i + 1
            if j < len(pat) and pat[j] in "!^":
                j += 1
            if j < len(pat) and pat[j] == "]":
                j += 1
            while j < len(pat) and pat[j] != "]":
                j += 1
            if j >= len(pat):
                out.append(re.escape(c))
            else:
                body = pat[i + 1 : j]
                neg = body[:1] in ("!", "^")
                body = body[1:] if neg else body
                out.append("[" + ("^" if neg else "") + body.replace("\\", "\\\\") + "]")
                i = j
        elif c == "\\" and i + 1 < len(pat):
            i += 1
            out.append(re.escape(pat[i]))
        else:
            out.append(re.escape(c))
        i += 1
    return "".join(out)


def fnmatch_unescape(seg: str) -> str:
    out, i = [], 0
    while i < len(seg):
        if seg[i] == "[" and i + 2 < len(seg) and seg[i + 2] == "]":
            out.append(seg[i + 1])
            i += 3
        else:
            out.append(seg[i])
            i += 1
    return "".join(out)


def _split_ifs(value: str, ifs: str) -> list[str]:
    out: list[str] = []
    cur: list[str] = []
    for c in value:
        if c in ifs:
            if cur:
                out.append("".join(cur))
                cur = []
        else:
            cur.append(c)
    if cur:
        out.append("".join(cur))
    return out
