"""THE one quoting function for every string that reaches a device shell, and the command-line builder on top.

A device shell (mksh / toybox sh on Android) is POSIX: inside single quotes every character is literal except
the single quote itself, which is written as `'"'"'` (close, a double-quoted quote, reopen). So

    quote("it's $(reboot); `id` && echo >x | y")  ->  'it'"'"'s $(reboot); `id` && echo >x | y'

arrives as exactly one argument, byte for byte, whatever it contains (quotes, `;`, `&&`, `$()`, backticks, `|`,
`>`, newlines, tabs, `%`, emoji, CJK). A NUL byte cannot be carried by any shell argument and is refused.

`input text` adds a rule of its own (Android's InputShellCommand turns `%s` into a space and types nothing
else specially): `input_text_args()` encodes text for it -- spaces become `%s`, and a literal `%s` in the text is
split across two `input text` calls (`%` then `s...`) so it is never read as a space. The result still goes
through `quote()`.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

_SAFE = re.compile(r"[A-Za-z0-9_@%+=:,./-]+")


def quote(arg: str) -> str:
    """Quote one argument for a POSIX device shell so it arrives verbatim as a single word."""
    if not isinstance(arg, str):
        raise TypeError(f"shell arguments must be str, got {type(arg).__name__}")
    if "\x00" in arg:
        raise ValueError("a NUL character cannot be passed to a device shell")
    if _SAFE.fullmatch(arg):
        return arg
    return "'" + arg.replace("'", "'\"'\"'") + "'"


def command(*argv: str | int) -> str:
    """A command line from argv, every argument through `quote()`: `command("am", "start", "-n", comp)`."""
    if not argv:
        raise ValueError("empty command")
    return " ".join(quote(str(a)) for a in argv)


def is_input_text_typeable(text: str) -> bool:
    """True when `input text` can type every character: printable ASCII only (no newline, tab or non-ASCII:
    `input text` turns newline / tab into ENTER / TAB key presses, and phones refuse non-ASCII)."""
    return all(0x20 <= ord(c) <= 0x7E for c in text)


def input_text_args(text: str, max_chars: int = 200) -> list[str]:
    """Encode printable-ASCII `text` into the arguments of successive `input text` calls (NOT yet quoted).

    Spaces become `%s`; a literal `%s` is split between two calls; each argument encodes at most `max_chars`
    characters of the text. Joining what the device types for each argument gives back `text` exactly.
    """
    if not is_input_text_typeable(text):
        raise ValueError("input text can only type printable ASCII (no newline, tab or non-ASCII)")
    if max_chars < 1:
        raise ValueError(f"max_chars must be >= 1, got {max_chars}")
    parts = text.split("%s")
    pieces = [p for p in ([parts[0] + "%"] if len(parts) > 1 else [parts[0]])]
    for i, p in enumerate(parts[1:], start=1):
        pieces.append("s" + p + ("%" if i < len(parts) - 1 else ""))
    out: list[str] = []
    for piece in pieces:
        for i in range(0, len(piece), max_chars):
            chunk = piece[i : i + max_chars]
            if chunk:
                out.append(chunk.replace(" ", "%s"))
    return out


def join_commands(commands: Iterable[str], max_len: int = 3000) -> list[str]:
    """Group already-quoted commands into `a && b && c` lines of at most `max_len` characters (old adbd takes
    4 KiB service strings), so a long TYPE costs a few round trips instead of one per chunk."""
    lines: list[str] = []
    cur = ""
    for cmd in commands:
        if cur and len(cur) + 4 + len(cmd) > max_len:
            lines.append(cur)
            cur = ""
        cur = f"{cur} && {cmd}" if cur else cmd
    if cur:
        lines.append(cur)
    return lines


def adb_client_join(args: Iterable[str]) -> str:
    """The command line `adb shell ARG...` sends: the arguments joined with single spaces, unquoted, as the adb
    client joins them - so the device shell reads `*`, `|`, `;` and `if` in them. Only for command lines an
    outside suite's own code builds (AndroidWorld's set-up and judges through `harness.androidworld`), never for
    an agent's output, which goes through `quote()`."""
    return " ".join(args)
