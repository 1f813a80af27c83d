"""Executes parsed command lines: expansion, redirections, pipes, `&&`/`||`, builtins and command dispatch.

Every simple command that is executed is logged as `model.events.log("exec", argv=[...])` before it runs, so
tests can prove which programs ran (and that quoted text never ran as a command).
"""

from __future__ import annotations

import logging
import posixpath
import random
import threading
from collections.abc import Callable
from contextlib import nullcontext
from typing import TYPE_CHECKING

from ..fs import FsError, normalize
from ..procs import ADBD_PID
from ..streams import ShellIO, StreamClosed
from .ast_nodes import (
    AndOr,
    Case,
    Command,
    CondExpr,
    For,
    FuncDef,
    Group,
    If,
    Lit,
    Pipeline,
    Redirect,
    Script,
    ShellSyntaxError,
    Simple,
    While,
    Word,
)
from .builtins import MKSH_BUILTINS, SHELL_BUILTINS, SPECIAL_BUILTINS
from .expand import MAX_DEPTH, Expander
from .jobs import end_process, run_body, run_process, spawn, wait_for_stream
from .jobs import run_command as run_catching_signals
from .observers import changes_nothing, observes_only
from .parser import parse
from .plumbing import (
    Abort,
    BufSink,
    BytesSource,
    CmdIO,
    ExitShell,
    Fds,
    FileSink,
    LoopControl,
    NullSink,
    ReturnFunc,
    RootSink,
    RootSource,
    Sink,
    Source,
)
from .process import Job, ProcIO, new_process
from .registry import (
    COMMANDS,
    SH,
    TOYBOX_APPLETS,
    Ctx,
    UsageError,
    access_error,
    find_command,
    fs_error_text,
)
from .users import adbd_user

if TYPE_CHECKING:  # pragma: no cover
    from ..model import VirtualDeviceModel

log = logging.getLogger(__name__)

BIN_DIRS = {
    "/system/bin",
    "/system/xbin",
    "/vendor/bin",
    "/bin",
    "/sbin",
    "/product/bin",
    "/system_ext/bin",
    "/apex/com.android.runtime/bin",
}


# --- the shell ---------------------------------------------------------------------------------------
def default_vars() -> dict[str, str]:
    return {
        "PATH": "/product/bin:/apex/com.android.runtime/bin:/apex/com.android.art/bin:/system_ext/bin:"
        "/system/bin:/system/xbin:/odm/bin:/vendor/bin:/vendor/xbin",
        "HOME": "/",
        "SHELL": "/bin/sh",
        "USER": "shell",
        "LOGNAME": "shell",
        "HOSTNAME": "localhost",
        "TMPDIR": "/data/local/tmp",
        "ANDROID_DATA": "/data",
        "ANDROID_ROOT": "/system",
        "ANDROID_STORAGE": "/storage",
        "EXTERNAL_STORAGE": "/sdcard",
        "ASEC_MOUNTPOINT": "/mnt/asec",
        "IFS": " \t\n",
        "PS1": "$ ",
    }


class ShellState(Expander):
    """One `/system/bin/sh -c` invocation: variables, working directory, `$?`, its jobs and signal state (`root`)."""

    def __init__(self, model: VirtualDeviceModel, root: ProcIO, depth: int = 0) -> None:
        self.model = model
        self.root = root
        self.jobs: list[Job] = []  # this shell process's jobs (`jobs`, `wait`, `kill %N`)
        self.spawned: list[Job] = []  # every job the command line started (shared with subshells)
        self.processes = [0]  # commands run as processes of their own so far (shared with subshells)
        self.last_bg: str | None = None  # $!
        self.user = adbd_user(model)  # whom the shell runs as (adbd's uid; `su` changes a child's)
        self.vars = default_vars()
        self.vars["USER"] = self.vars["LOGNAME"] = self.user.name  # as adbd sets them from the uid's passwd entry
        self.exported: set[str] = set(self.vars) - {"IFS", "PS1"}
        self.cwd = "/"
        self.status = 0
        self.pid = random.randint(5000, 30000)
        self.depth = depth
        self.params: list[str] = []  # $1 ... (sh -c 'script' $0 $1 ..., function arguments, set --)
        self.argv0 = SH
        self.funcs: dict[str, Command] = {}
        self.loops = 0  # enclosing loops (break/continue), per function body
        self.in_func = 0

    def child(self) -> ShellState:
        c = ShellState(self.model, self.root, self.depth + 1)
        c.vars, c.exported, c.cwd, c.status, c.pid = (
            dict(self.vars),
            set(self.exported),
            self.cwd,
            self.status,
            self.pid,
        )
        c.params, c.argv0, c.funcs, c.user = list(self.params), self.argv0, dict(self.funcs), self.user
        c.spawned, c.last_bg, c.processes = self.spawned, self.last_bg, self.processes
        return c

    # --- lists ----------------------------------------------------------------------------------
    def run_script(self, script: Script, fds: Fds) -> int:
        for item in script.items:
            if item.background:
                spawn(self, item, fds)
                self.status = 0
            else:
                self.status = self.run_and_or(item, fds)
        if self.root.pending:
            self.run_traps(fds)
        return self.status

    def run_traps(self, fds: Fds) -> None:
        """Run the actions of trapped signals that arrived (between commands, as mksh does); `$?` is kept."""
        while self.root.pending:
            action = self.root.traps.get(self.root.pending.pop(0))
            if action:
                saved = self.status
                self.run_source(action, fds, same_state=True)
                self.status = saved

    def run_and_or(self, node: AndOr, fds: Fds) -> int:
        status = self.run_pipeline(node.first, fds)
        for op, pipe in node.rest:
            self.status = status
            if (op == "&&" and status == 0) or (op == "||" and status != 0):
                status = self.run_pipeline(pipe, fds)
        return status

    def run_pipeline(self, pipe: Pipeline, fds: Fds) -> int:
        data: bytes | None = None
        status = 0
        for i, cmd in enumerate(pipe.commands):
            f = fds.copy()
            if data is not None:
                f.stdin = BytesSource(data)
            buf: BufSink | None = None
            if i < len(pipe.commands) - 1:
                buf = BufSink()
                f.stdout = buf
            status = self.run_command(cmd, f)
            data = bytes(buf.buf) if buf is not None else None
        if pipe.negate:
            status = 0 if status else 1
        return status

    def run_command(self, cmd: Command, fds: Fds) -> int:
        if isinstance(cmd, Simple):
            return self.run_simple(cmd, fds)
        if isinstance(cmd, FuncDef):
            self.funcs[cmd.name] = cmd.body
            return 0
        if self.root.closed:
            raise Abort()
        if not isinstance(cmd, Group):
            f = fds.copy()
            err = self.apply_redirects(cmd.redirects, f)
            if err is not None:
                return err
            if isinstance(cmd, If):
                return self._run_if(cmd, f)
            if isinstance(cmd, (For, While)):
                self.loops += 1
                try:
                    return self._run_for(cmd, f) if isinstance(cmd, For) else self._run_while(cmd, f)
                finally:
                    self.loops -= 1
            if isinstance(cmd, Case):
                return self._run_case(cmd, f)
            if isinstance(cmd, CondExpr):
                from .cond import evaluate_cond

                return evaluate_cond(self, cmd, f)
        if isinstance(cmd, Group):
            f = fds.copy()
            err = self.apply_redirects(cmd.redirects, f)
            if err is not None:
                return err
            if cmd.subshell:
                sub = self.child()
                try:
                    return sub.run_script(cmd.body, f)
                except ExitShell as e:
                    return e.status
            return self.run_script(cmd.body, f)
        return self.run_simple(cmd, fds)

    # --- compound commands ----------------------------------------------------------------------
    def _run_if(self, cmd: If, fds: Fds) -> int:
        for cond, body in cmd.clauses:
            if self.run_script(cond, fds) == 0:
                return self.run_script(body, fds)
        if cmd.else_body is not None:
            return self.run_script(cmd.else_body, fds)
        return 0

    def _loop_body(self, body: Script, fds: Fds) -> tuple[int, str | None]:
        """Run one iteration; returns (status, "break" | "continue" | None) for this loop."""
        try:
            return self.run_script(body, fds), None
        except LoopControl as e:
            if e.levels > 1:
                raise LoopControl(e.levels - 1, e.kind) from None
            return 0, e.kind

    def _run_for(self, cmd: For, fds: Fds) -> int:
        if cmd.items is None:
            items = list(self.params)
        else:
            items = [f for w in cmd.items for f in self.expand(w, fds)]
        status = 0
        for item in items:
            if self.root.closed:
                raise Abort()
            self.vars[cmd.var] = item
            status, control = self._loop_body(cmd.body, fds)
            if control == "break":
                break
        return status

    def _run_while(self, cmd: While, fds: Fds) -> int:
        status = 0
        while True:
            if self.root.closed:
                raise Abort()
            try:
                ok = self.run_script(cmd.cond, fds) == 0
            except LoopControl as e:
                if e.levels > 1:
                    raise LoopControl(e.levels - 1, e.kind) from None
                if e.kind == "break":
                    return 0
                continue
            if ok == cmd.until:
                return status
            status, control = self._loop_body(cmd.body, fds)
            if control == "break":
                return status

    def _run_case(self, cmd: Case, fds: Fds) -> int:
        subject = self.expand_str(cmd.word, fds)
        for patterns, body in cmd.items:
            if any(self.pattern_regex(p, fds).fullmatch(subject) for p in patterns):
                return self.run_script(body, fds)
        return 0

    def call_function(self, name: str, argv: list[str], fds: Fds) -> int:
        body = self.funcs[name]
        saved, saved_loops = self.params, self.loops
        self.params, self.loops = list(argv[1:]), 0
        self.in_func += 1
        try:
            return self.run_command(body, fds)
        except ReturnFunc as e:
            return e.status
        finally:
            self.params, self.loops = saved, saved_loops
            self.in_func -= 1

    # --- simple commands ------------------------------------------------------------------------
    def run_simple(self, cmd: Simple, fds: Fds) -> int:
        if self.root.pending:
            self.run_traps(fds)
        if self.root.closed:
            raise Abort()
        self._subst_status: int | None = None
        argv: list[str] = []
        for w in cmd.words:
            argv.extend(self.expand(w, fds))
        assigns = [(name, self.expand_str(value, fds)) for name, value in cmd.assigns]
        f = fds.copy()
        err = self.apply_redirects(cmd.redirects, f)
        if err is not None:
            return err
        if not argv:
            for name, value in assigns:
                self.vars[name] = value
            return self._subst_status if self._subst_status is not None else 0
        self.model.events.log("exec", argv=list(argv))
        env = dict(assigns)
        return self.dispatch(argv, f, env)

    def dispatch(self, argv: list[str], fds: Fds, env: dict[str, str]) -> int:
        name = argv[0]
        ctx = Ctx(self.model, CmdIO(fds, self.root), self, env)
        if name in ("toybox", "busybox") and len(argv) > 1:
            applet = posixpath.basename(argv[1])
            if applet in COMMANDS and (name == "busybox" or applet in TOYBOX_APPLETS or applet in SHELL_BUILTINS):
                self._exec()
                return self._call(COMMANDS[applet], ctx, argv[1:])
            ctx.errln(f"{name}: Unknown command {argv[1]}")
            return 1
        if name in self.funcs and name not in SPECIAL_BUILTINS:
            return self.call_function(name, argv, fds)
        if name in SHELL_BUILTINS:
            return self._call(SHELL_BUILTINS[name], ctx, argv)
        fn = find_command(self.model, name)
        if fn is None and "/" in name:
            head, base = posixpath.split(normalize(name if name.startswith("/") else posixpath.join(self.cwd, name)))
            if head in BIN_DIRS:
                fn = find_command(self.model, base)
            else:
                script = self._script_file(ctx, name)
                if script is not None:
                    return self.run_source(script, fds, argv)
        if fn is None:
            ctx.errln(f"{SH}: {name}: inaccessible or not found")
            return 127
        command = fn
        if name not in MKSH_BUILTINS:  # echo, test, kill, ...: mksh runs them itself
            self._exec()
        own = name not in MKSH_BUILTINS  # a process of its own (listed by ps, signalled by pid) while it runs
        return run_catching_signals(self, argv, lambda: self._call(command, ctx, argv), own)

    def _exec(self) -> None:
        """A command that runs as a process of its own: the command line's first one is part of the shell round
        trip (latency `shell`); each further one costs a process start of its own (`exec`)."""
        if self.processes[0]:
            self.model.latency.delay("exec")
        self.processes[0] += 1

    def _script_file(self, ctx: Ctx, name: str) -> str | None:
        try:
            data = ctx.read_file(name)
        except (FsError, OSError):
            return None
        return data.decode("utf-8", "replace")

    def _call(self, fn: Callable[[Ctx, list[str]], int], ctx: Ctx, argv: list[str]) -> int:
        try:
            status = fn(ctx, argv)
        except (ExitShell, Abort, StreamClosed, LoopControl, ReturnFunc):
            raise
        except UsageError as e:
            if str(e):
                ctx.errln(str(e))
            status = e.status
        except Exception as e:  # a command bug must not kill the shell service
            log.exception("shell command %r failed", argv)
            ctx.errln(f"{argv[0]}: {type(e).__name__}: {e}")
            status = 1
        return int(status or 0) & 0xFF

    def run_source(self, text: str, fds: Fds, argv: list[str] | None = None, same_state: bool = False) -> int:
        """Run shell source text (sh -c, sh FILE, eval, scripts on the device)."""
        if self.depth >= MAX_DEPTH:
            fds.stderr.write(f"{SH}: too deeply nested\n".encode())
            return 2
        try:
            script = parse(text)
        except ShellSyntaxError as e:
            fds.stderr.write(f"{SH}: {e}\n".encode())
            return 1
        if same_state:
            return self.run_script(script, fds)
        sub = self.child()  # a new sh process: its own functions, positional parameters, pid, traps and jobs
        sub.funcs, sub.params = {}, []
        shown = " ".join(argv) if argv else f"{SH} -c {text}"
        sub.pid = self.model.procs.add_shell_process(posixpath.basename(argv[0]) if argv else "sh", shown, self.pid)
        sub.root = new_process(self.root, sub.pid)
        if argv:
            sub.argv0, sub.params = argv[0], list(argv[1:])
        try:
            return run_process(sub, lambda: sub.run_script(script, fds), fds)
        finally:
            self.model.procs.remove_daemon(sub.pid)

    # --- redirections ---------------------------------------------------------------------------
    def apply_redirects(self, redirects: list[Redirect], fds: Fds) -> int | None:
        """Apply in order onto `fds`; returns an exit status on failure (the command does not run)."""
        for r in redirects:
            fields = self.expand(r.target, fds) if r.op != "<<" else [""]
            if len(fields) != 1:
                fds.stderr.write(f"{SH}: {self._word_src(r.target)}: ambiguous redirect\n".encode())
                return 1
            target = fields[0]
            if r.op in (">&", "<&"):
                if target == "-":
                    fds.set(r.fd, NullSink() if r.op == ">&" else Source())
                    continue
                if not target.isdigit():
                    fds.stderr.write(f"{SH}: {target}: illegal file descriptor name\n".encode())
                    return 1
                src = fds.get(int(target))
                if src is None:
                    fds.stderr.write(f"{SH}: {target}: bad file descriptor\n".encode())
                    return 1
                fds.set(r.fd, src)
                continue
            if r.op == "<<":
                fds.set(r.fd, BytesSource(self.expand_str(r.target, fds).encode("utf-8", "surrogateescape")))
                continue
            if r.op in ("<", "<>"):
                if target == "/dev/null":
                    fds.set(r.fd, Source())
                    continue
                try:
                    ctx = Ctx(self.model, CmdIO(fds, self.root), self, {})
                    fds.set(r.fd, BytesSource(ctx.read_file(self._abs(target))))
                except (FsError, OSError) as e:
                    fds.stderr.write(f"{SH}: can't open {target}: {fs_error_text(e)}\n".encode())
                    return 1
                continue
            # > and >>
            sink = self._special_sink(target, fds)
            if sink is None:
                path = self._abs(target)
                denied = access_error(self.model.fs, self.user, path)
                try:
                    if denied is not None and not self.model.fs.exists(posixpath.dirname(path)):
                        raise FsError(2, path)
                    if denied is not None:
                        fds.stderr.write(f"{SH}: can't create {target}: {denied}\n".encode())
                        return 1
                    if r.op == ">" or not self.model.fs.exists(path):
                        self.model.fs.write(path, b"", owner=(self.user.uid, self.user.gid))
                    elif self.model.fs.is_dir(path):
                        raise FsError(21, path)
                except (FsError, OSError) as e:
                    fds.stderr.write(f"{SH}: can't create {target}: {fs_error_text(e)}\n".encode())
                    return 1
                sink = FileSink(self.model, path)
            fds.set(r.fd, sink)
        return None

    def _special_sink(self, target: str, fds: Fds) -> Sink | None:
        if target in ("/dev/null", "/dev/zero", "/dev/random", "/dev/urandom"):
            return NullSink()
        if target in ("/dev/stdout", "/proc/self/fd/1"):
            return fds.stdout
        if target in ("/dev/stderr", "/proc/self/fd/2"):
            return fds.stderr
        if target == "/dev/tty":
            return RootSink(self.root, False)
        return None

    def _abs(self, p: str) -> str:
        return normalize(p if p.startswith("/") else posixpath.join(self.cwd, p))

    @staticmethod
    def _word_src(w: Word) -> str:
        return "".join(p.text if isinstance(p, Lit) else "$" + getattr(p, "name", "(...)") for p in w.parts)


# --- entry ---------------------------------------------------------------------------------------------
def run(model: VirtualDeviceModel, command_line: str, io: ShellIO, wait_jobs: bool = True) -> int:
    """Run one command line as `/system/bin/sh -c` would: a `Session` of one line. Returns the exit status; never
    raises for bad input. With `wait_jobs` it returns only when the jobs still writing to `io` have ended (adbd
    keeps the stream open)."""
    session = Session(model, io, f"/system/bin/sh -c {command_line}")
    session.run_line(command_line)
    status = session.close()
    if wait_jobs:
        wait_for_stream(session.state)
    return status


class Session:
    """One shell process reading its command lines one at a time (`adb shell` with no command: `sh` reading its
    stdin or its terminal): every line runs in the same state - `cd`, variables, functions, traps, `$?` and jobs carry
    over, as in mksh - until `exit` (anywhere in a line) or a signal ends the shell, or the input ends (`close`);
    its EXIT trap runs then. A line does not wait for the jobs it started: the shell goes on reading."""

    def __init__(self, model: VirtualDeviceModel, io: ShellIO, cmdline: str = "/system/bin/sh -") -> None:
        self.model = model
        self.io = io
        pid = model.procs.add_shell_process("sh", cmdline, ADBD_PID)  # adbd forks the session's sh
        self.proc = ProcIO(io, threading.RLock(), pid)
        self.state = ShellState(model, self.proc)
        self.state.pid = pid
        self.fds = Fds(RootSource(self.proc), RootSink(self.proc, False), RootSink(self.proc, True))
        self.ended: int | None = None  # the shell's exit status once it ended
        model.procs.signal_targets[pid] = self.proc.deliver

    def run_line(self, text: str) -> int:
        """Run one complete line; its status (`ended` is set when the shell ended with it)."""
        if self.ended is not None:
            return self.ended
        latency = self.model.latency
        try:
            script = parse(text)
        except ShellSyntaxError as e:
            latency.delay("shell")
            _safe_write(self.io, f"{SH}: {e}\n".encode())
            self.state.status = 1
            return 1
        except RecursionError:
            latency.delay("shell")
            _safe_write(self.io, f"{SH}: syntax error: expression too deeply nested\n".encode())
            self.state.status = 1
            return 1
        observes = observes_only(script, self.state.funcs)
        reads = observes or changes_nothing(script, self.state.funcs)  # else it may change the screen (statelock)
        lock = self.model.lock
        with latency.observing(observes), lock.door(), lock.only_reading() if reads else nullcontext():
            latency.delay("shell")  # a screen capture's delays overlap
            status, ended = self._contained(
                text, lambda: run_body(self.state, lambda: self.state.run_script(script, self.fds))
            )
        if not reads:  # it may have changed what is on screen without the model's lock: views built before go
            self.model.changed()
        self.state.status = status
        if ended:
            self._end(status)
        return status

    def close(self) -> int:
        """The input ended: the shell ends (its EXIT trap runs); its exit status."""
        if self.ended is None:
            self._end(self.state.status)
        assert self.ended is not None
        return self.ended

    def _end(self, status: int) -> None:
        try:
            self.ended = self._contained("EXIT", lambda: (end_process(self.state, self.fds, status), True))[0]
        finally:
            self.model.procs.signal_targets.pop(self.proc.pid, None)
            self.model.procs.remove_daemon(self.proc.pid)

    def _contained(self, what: str, call: Callable[[], tuple[int, bool]]) -> tuple[int, bool]:
        """`call()`; past the nesting limit (status 2) or on an internal error (status 1) the shell says so on
        stderr and goes on."""
        try:
            return call()
        except RecursionError:
            _safe_write(self.io, f"{SH}: too deeply nested\n".encode())
            return 2, False
        except Exception:  # pragma: no cover - defensive: the service must survive anything
            log.exception("mini shell crashed on %r", what[:200])
            _safe_write(self.io, f"{SH}: internal error\n".encode())
            return 1, False


def _safe_write(io: ShellIO, data: bytes) -> None:
    try:
        io.write_stderr(data)
    except Exception:  # noqa: BLE001 - the stream may be gone
        pass
