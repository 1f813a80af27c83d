"""Which shell command lines only observe the screen: their latency delays are one observation's, which a virtual
clock overlaps with the other observations' of the same moment (emulator/virtual/clock.py), as a phone serves a
screenshot, a hierarchy dump and a focus query at once.

A line observes only when every command in it is one of:

- `screencap ...`, `uiautomator dump ...`, `dumpsys window ...`: the screen, its views, the window manager's state
  (what is focused);
- `grep` filtering the output of the command before it in a pipeline (flags and a pattern, no file);
- `cat` of absolute paths outside /proc, /sys and /dev (the file a dump just wrote);
- `echo` (a line's end marker: `echo TOKEN$?`);

with words that are literal text (`$?` in echo's), redirects only to /dev/null or between stdout and stderr, no
`&`, no shell function of the same name. The rule is narrow on purpose: what reads the device's clock through a
door (`cat /proc/uptime`, `date`, `uptime`, `dumpsys alarm`) or changes anything is a plain line, whose delays
commit the observations before it.

`changes_nothing` is a wider rule for another question, whether a line leaves the screen's state as it was (the
views built before it are reused after it, `emulator/virtual/statelock.py`): the same commands, plus `cat` of the
kernel's files (a clock read) and `sleep` (time passes; views that read it are kept for their time only).
"""

from __future__ import annotations

import posixpath
from collections.abc import Collection

from .ast_nodes import Command, Lit, Redirect, Script, Simple, Var, Word

GREP_FLAGS = frozenset({"-E", "-F", "-G", "-i", "-v", "-w", "-x", "-c", "-n", "-o", "-q", "-s", "-a"})
HIDDEN_TREES = ("/proc", "/sys", "/dev")  # the kernel's files: /proc/uptime, /proc/stat, ... tell the time
SCREEN_COMMANDS = {"screencap": None, "uiautomator": "dump", "dumpsys": "window"}  # name -> first argument


def observes_only(script: Script, functions: Collection[str] = ()) -> bool:
    """True when every command of `script` only observes the screen (the module doc); `functions`: the names the
    shell has functions for (they would run instead of the command)."""
    return _every_command(script, functions, files=False)


def changes_nothing(script: Script, functions: Collection[str] = ()) -> bool:
    """True when `script` only observes the screen, reads files (`cat` of any absolute path, /proc's included: a
    clock read) or sleeps: the views of the state before it stay the state's after it (`statelock`)."""
    return _every_command(script, functions, files=True)


def _every_command(script: Script, functions: Collection[str], files: bool) -> bool:
    """Does every command of `script`, none in the background, pass `_observes` (with `files`: reads too)?"""
    if not script.items:
        return False
    for item in script.items:
        if item.background:
            return False
        for pipe in (item.first, *(p for _, p in item.rest)):
            for i, cmd in enumerate(pipe.commands):
                if not _observes(cmd, first=i == 0, functions=functions, files=files):
                    return False
    return True


def _observes(cmd: Command, first: bool, functions: Collection[str], files: bool = False) -> bool:
    if not isinstance(cmd, Simple) or cmd.assigns or not cmd.words:
        return False
    if not all(_quiet(r) for r in cmd.redirects):
        return False
    name = cmd.words[0].literal()
    if name is None or name in functions:
        return False
    if name == "echo":
        return all(_echo_word(w) for w in cmd.words[1:])
    argv = [w.literal() for w in cmd.words]
    if None in argv:
        return False
    args = [a for a in argv[1:] if a is not None]
    if name in SCREEN_COMMANDS:
        want = SCREEN_COMMANDS[name]
        return want is None or (bool(args) and args[0] == want)
    if name == "grep":  # a filter of the pipe: flags and one pattern
        return not first and len([a for a in args if a not in GREP_FLAGS]) == 1
    if name == "cat":
        return bool(args) and all(_plain_file(a, files) for a in args)
    if name == "sleep" and files:  # time passes: views that read it are kept for their time only (statelock)
        return bool(args) and all(a.replace(".", "", 1).isdigit() for a in args)
    return False


def _echo_word(w: Word) -> bool:
    return all(isinstance(p, Lit) or (isinstance(p, Var) and p.name == "?" and not p.op) for p in w.parts)


def _quiet(r: Redirect) -> bool:
    target = r.target.literal()
    if r.op in (">", ">>"):
        return target == "/dev/null"
    return r.op == ">&" and target in ("1", "2")


def _plain_file(path: str, hidden: bool = False) -> bool:
    if not path.startswith("/") or any(c in path for c in "*?["):
        return False
    if hidden:  # the kernel's files too: reading them changes nothing
        return True
    norm = posixpath.normpath(path)
    return not any(norm == t or norm.startswith(t + "/") for t in HIDDEN_TREES)
