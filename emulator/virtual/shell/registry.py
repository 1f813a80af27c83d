"""What every shell command sees: the `Ctx` (model, I/O, the `Shell` running it) and the command registry.

A command is `fn(ctx, argv) -> exit status`, registered with `@command("name", ...)`. Commands act on the
device only through `VirtualDeviceModel` methods and its `fs`; they never touch UI internals.
"""

from __future__ import annotations

import errno
import posixpath
import re
import zlib
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol

from ..fs import R_OK, W_OK, Creds, FileSystem, FsError, Node, normalize
from ..procs import SYSTEM_PROCESSES, DeviceProcs, app_uid  # noqa: F401 - re-exported for the commands
from .procfs import read as read_proc
from .users import name_of

if TYPE_CHECKING:  # pragma: no cover
    from ..model import VirtualDeviceModel
    from .ast_nodes import AndOr, Command, Script, Word
    from .plumbing import CmdIO, Fds
    from .process import Job, ProcIO
    from .users import User

SH = "/system/bin/sh"

CommandFn = Callable[["Ctx", list[str]], int]
COMMANDS: dict[str, CommandFn] = {}
TOYBOX_APPLETS: set[str] = set()  # commands that `toybox X` runs


DumpFn = Callable[["Ctx", list[str]], str]
DUMPSYS: dict[str, DumpFn] = {}  # `dumpsys NAME` services registered from command modules (cmd_hardware)


def dumpsys_service(name: str) -> Callable[[DumpFn], DumpFn]:
    def deco(fn: DumpFn) -> DumpFn:
        DUMPSYS[name] = fn
        return fn

    return deco


def command(*names: str, toybox: bool = False) -> Callable[[CommandFn], CommandFn]:
    def deco(fn: CommandFn) -> CommandFn:
        for n in names:
            COMMANDS[n] = fn
            if toybox:
                TOYBOX_APPLETS.add(n)
        return fn

    return deco


DEBUG_ONLY = {"su"}  # commands only a userdebug / eng build has (/system/xbin/su)


def find_command(model: VirtualDeviceModel, name: str) -> CommandFn | None:
    """The command `name` runs on this device: None when there is none, or it is one a user build lacks."""
    if name in DEBUG_ONLY and model.props.get("ro.debuggable") != "1":
        return None
    return COMMANDS.get(name)


def split_opts(argv: list[str]) -> tuple[str, list[str]]:
    """A toybox command's flags (short options run together, `--long` ones dropped) and its operands; `--`
    ends the options."""
    opts, args, done = "", [], False
    for a in argv[1:]:
        if not done and a == "--":
            done = True
        elif not done and a.startswith("-") and len(a) > 1:
            opts += a.lstrip("-") if not a.startswith("--") else ""
        else:
            args.append(a)
    return opts, args


class UsageError(Exception):
    """Raised by a command to print `message` on stderr and exit with `status`."""

    def __init__(self, message: str, status: int = 1) -> None:
        super().__init__(message)
        self.status = status


class Shell(Protocol):
    """The shell a command runs in, as commands, builtins and job control use it (`runner.ShellState` is one):
    its variables, working directory, `$?`, functions and jobs, and running more shell code in it."""

    model: VirtualDeviceModel
    root: ProcIO  # this shell process's I/O and signal state
    jobs: list[Job]  # this shell process's jobs
    spawned: list[Job]  # every job the command line started
    last_bg: str | None  # $!
    vars: dict[str, str]
    exported: set[str]
    cwd: str
    status: int  # $?
    pid: int
    params: list[str]  # $1 ...
    funcs: dict[str, Command]
    loops: int  # enclosing loops (break/continue)
    user: User  # whom it runs as (`id`, `whoami`, `su`)

    def child(self) -> Shell: ...

    def run_script(self, script: Script, fds: Fds) -> int: ...

    def run_and_or(self, node: AndOr, fds: Fds) -> int: ...

    def run_source(self, text: str, fds: Fds, argv: list[str] | None = None, same_state: bool = False) -> int: ...

    def dispatch(self, argv: list[str], fds: Fds, env: dict[str, str]) -> int: ...

    def expand_str(self, w: Word, fds: Fds) -> str: ...

    def pattern_regex(self, w: Word, fds: Fds) -> re.Pattern[str]: ...

    def arith(self, source: str) -> int: ...


@dataclass
class Ctx:
    model: VirtualDeviceModel
    io: CmdIO
    state: Shell
    env: dict[str, str] = field(default_factory=dict)  # VAR=x prefixes of this command

    # --- output -------------------------------------------------------------------------------
    def out(self, text: str) -> None:
        if text:
            self.io.write_stdout(text.encode("utf-8", "surrogateescape"))

    def outln(self, text: str = "") -> None:
        self.out(text + "\n")

    def err(self, text: str) -> None:
        if text:
            self.io.write_stderr(text.encode("utf-8", "surrogateescape"))

    def errln(self, text: str) -> None:
        self.err(text + "\n")

    def stdin_all(self) -> bytes:
        chunks = []
        while True:
            b = self.io.read_stdin(-1)
            if not b:
                break
            chunks.append(b)
        return b"".join(chunks)

    # --- paths --------------------------------------------------------------------------------
    def path(self, p: str) -> str:
        """Absolute device path of `p` relative to the shell's working directory."""
        if not p.startswith("/"):
            p = posixpath.join(self.state.cwd, p)
        return normalize(p)

    def read_file(self, p: str) -> bytes:
        path = self.path(p)
        data = read_proc(self.model, path, self.state.pid)  # /proc files are generated from the device state
        if data is not None:
            return data
        self.model.fs.check_access(path, self.state.user, R_OK)
        return self.model.fs.read(path)

    # --- permissions --------------------------------------------------------------------------
    def write_error(self, p: str) -> str | None:
        """None when the shell's user may create or modify `p`, else the errno text."""
        return access_error(self.model.fs, self.state.user, self.path(p), W_OK)

    def remove_error(self, p: str) -> str | None:
        """None when the shell's user may remove (or rename) `p`: write on its directory."""
        try:
            self.model.fs.check_parent(self.path(p), self.state.user)
        except FsError as e:
            return e.message
        return None

    @property
    def owner(self) -> tuple[int, int]:
        """(uid, gid) of the files this shell makes."""
        return self.state.user.uid, self.state.user.gid


XBIN_COMMANDS = frozenset({"sqlite3", "su"})  # in /system/xbin on emulator images, not toybox's /system/bin


def command_path(name: str) -> str:
    """Where a command's binary is: /system/xbin/NAME or /system/bin/NAME."""
    return f"/system/{'xbin' if name in XBIN_COMMANDS else 'bin'}/{name}"


# --- permissions: the file system decides (`FileSystem.check_access`), for the shell's user ------------------
def access_error(fs: FileSystem, creds: Creds | None, path: str, want: int = W_OK) -> str | None:
    """None when `creds` may access `path` as `want` says (default: create or modify it), else the errno text
    a phone prints."""
    try:
        fs.check_access(path, creds, want)
    except FsError as e:
        return e.message
    return None


def owner_names(node: Node) -> tuple[str, str]:
    """(user, group) that `ls -l` and `stat` show for a file."""
    return name_of(node.uid), name_of(node.gid)


def fs_error_text(e: BaseException) -> str:
    if isinstance(e, FsError):
        return e.message
    if isinstance(e, OSError) and e.errno is not None:
        return {errno.ENOENT: "No such file or directory"}.get(e.errno, e.strerror or "error")
    return str(e)


# --- per-device process table (`emulator.virtual.procs`, owned by the model; rows in `proctable`) ------------
def procs(model: VirtualDeviceModel) -> DeviceProcs:
    return model.procs


def short_hash(*parts: Any) -> str:
    """A stable 7-hex-digit identity hash, as Android prints for records (Window{1a2b3c4 ...})."""
    return format(zlib.crc32("|".join(map(str, parts)).encode()) & 0xFFFFFFF, "07x")


def short_component(package: str, cls: str) -> str:
    """ComponentName.flattenToShortString(): pkg/.Cls when the class is inside the package."""
    if cls.startswith(package + "."):
        return f"{package}/{cls[len(package) :]}"
    return f"{package}/{cls}"
