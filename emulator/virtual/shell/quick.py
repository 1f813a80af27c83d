"""Command lines that end at once: made only of commands that read the device's state or change it and print
their answer as they end (`dumpsys`, `settings`, `pm`, `am start`, `content`, `echo`, a `grep` that reads a pipe,
...), with no loop, no job (`&`), no `sleep`, nothing that follows a log or waits for the host.

The shell services hold such a line's output until it ends (`streams.Stream.hold_output`), so the output, the exit
status and the CLSE leave as one WRTE instead of the exit status waiting a round trip for the host's OKAY. A line
that is not recognised here is not held: its output streams as it is written. A wrong "yes" would only delay a
command's output to its end, so the lists are short and strict.
"""

from __future__ import annotations

from functools import lru_cache

from .ast_nodes import Command, Group, If, Pipeline, Script, ShellSyntaxError, Simple, Sub, Word
from .parser import parse

# commands that print their answer and end, whatever their arguments
ANSWERS_AT_ONCE = frozenset(
    {
        "dumpsys",
        "getprop",
        "setprop",
        "settings",
        "pm",
        "content",
        "echo",
        "printf",
        "wm",
        "ime",
        "svc",
        "input",
        "screencap",
        "id",
        "true",
        "false",
        "test",
        "[",
        "ls",
        "stat",
        "pidof",
        "ps",
        "date",
        "service",
    }
)
# ... and these when they read a pipe, not the host: as the first command of a line they read the host's stdin,
# and an interactive host (`adb shell cat`) waits for each answer
FILTERS = frozenset({"grep", "egrep", "fgrep", "cat", "head", "wc", "sort", "uniq", "cut", "tr"})
# `am` and `cmd` subcommands that end at once (`am instrument -w`, `am monitor` and the like do not)
AM_AT_ONCE = frozenset(
    {
        "start",
        "start-activity",
        "force-stop",
        "kill",
        "kill-all",
        "broadcast",
        "startservice",
        "start-service",
        "stack",
        "task",
    }
)
CMD_AT_ONCE = frozenset({"package", "connectivity", "uimode", "settings", "wifi", "alarm"})


@lru_cache(maxsize=256)
def ends_at_once(line: str) -> bool:
    """Whether the command line `line` is known to end as soon as it has printed (see the module's docstring)."""
    try:
        script = parse(line)
    except (ShellSyntaxError, RecursionError):
        return True  # the shell prints the error and ends
    return _script(script)


def _script(script: Script) -> bool:
    return all(
        not item.background and all(_pipeline(p) for p in (item.first, *(p for _, p in item.rest)))
        for item in script.items
    )


def _pipeline(pipeline: Pipeline) -> bool:
    return all(_command(c, first=i == 0) for i, c in enumerate(pipeline.commands))


def _command(command: Command, first: bool) -> bool:
    if isinstance(command, Group):
        return _script(command.body)
    if isinstance(command, If):
        bodies = [s for clause in command.clauses for s in clause]
        return all(_script(s) for s in bodies + ([command.else_body] if command.else_body else []))
    if not isinstance(command, Simple):
        return False  # loops, case, functions, [[ ]]: not worth telling apart
    if not all(_word(w) for w in command.words) or not all(_word(w) for _, w in command.assigns):
        return False
    if not command.words:
        return True  # assignments only
    name = command.words[0].literal()
    if name is None:
        return False
    name = name.rsplit("/", 1)[-1]
    sub = command.words[1].literal() if len(command.words) > 1 else None
    if name == "am":
        return sub in AM_AT_ONCE
    if name == "cmd":
        return sub in CMD_AT_ONCE
    if name == "sh" and sub == "-c" and len(command.words) > 2:  # `sh -c LINE`: as LINE is
        inner = command.words[2].literal()
        return inner is not None and ends_at_once(inner)
    if name == "cat" and _reads_files_only(command):
        return True  # `cat FILE...` reads its files, not the host, even as a line's first command
    if name in FILTERS:
        return not first
    return name in ANSWERS_AT_ONCE


def _reads_files_only(command: Simple) -> bool:
    """`cat` given files (literal paths, none that streams: nothing under /dev, not /proc/kmsg) and no `-`."""
    args = [w.literal() for w in command.words[1:]]
    files = [a for a in args if a is not None and not (a.startswith("-") and a != "-")]
    return (
        bool(files)
        and None not in args
        and all(f != "-" and not f.startswith("/dev/") and f != "/proc/kmsg" for f in files)
    )


def _word(word: Word) -> bool:
    """No command substitution in it that might not end at once."""
    return all(_script(p.script) for p in word.parts if isinstance(p, Sub))
