"""Job control as mksh has it without a terminal (a non-interactive `sh -c`, or `adb shell` with no pty).

- `CMD &` runs CMD as a job in its own thread while the shell goes on (and keeps reading its stdin); the job's
  stdin is /dev/null unless it redirects it, and it ignores SIGINT and SIGQUIT (mksh's exchild() without
  FMONITOR), so only commands that install their own handlers (`screenrecord`) see those.
- A shell process is a `ProcIO`: the `ShellIO` its commands see, wrapping the stream's. A signal delivered to it
  (`kill -SIG PID`, `kill %N`) either runs the shell's trap, is ignored, reaches the running command's own
  handler (the command sees its stream as closed, finishes its work and returns), or ends the process with
  status 128+SIG (the command sees its stream closed, and the runner unwinds).
- `wait [PID|%N]`, `jobs [-l|-p]` and `$!` read the shell's job list; a job that is waited for leaves it.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from ..streams import ShellIO, StreamClosed
from .ast_nodes import AndOr, Simple
from .plumbing import Abort, ExitShell, Fds, LoopControl, ReturnFunc, RootSink, Source
from .registry import SH, Ctx

if TYPE_CHECKING:  # pragma: no cover
    from .runner import ShellState

log = logging.getLogger(__name__)

SIGNALS: dict[str, int] = {
    "HUP": 1,
    "INT": 2,
    "QUIT": 3,
    "ILL": 4,
    "TRAP": 5,
    "ABRT": 6,
    "BUS": 7,
    "FPE": 8,
    "KILL": 9,
    "USR1": 10,
    "SEGV": 11,
    "USR2": 12,
    "PIPE": 13,
    "ALRM": 14,
    "TERM": 15,
    "STKFLT": 16,
    "CHLD": 17,
    "CONT": 18,
    "STOP": 19,
    "TSTP": 20,
    "TTIN": 21,
    "TTOU": 22,
    "URG": 23,
    "XCPU": 24,
    "XFSZ": 25,
    "VTALRM": 26,
    "PROF": 27,
    "WINCH": 28,
    "IO": 29,
    "PWR": 30,
    "SYS": 31,
}
SIGNAL_NAMES = {n: name for name, n in SIGNALS.items()}
# bionic's strsignal() texts, which mksh's `jobs` prints for a job a signal ended
MESSAGES = {
    1: "Hangup",
    2: "Interrupt",
    3: "Quit",
    6: "Aborted",
    9: "Killed",
    10: "User signal 1",
    12: "User signal 2",
    13: "Broken pipe",
    14: "Alarm clock",
    15: "Terminated",
}
SIGHUP, SIGINT, SIGQUIT, SIGKILL, SIGTERM = 1, 2, 3, 9, 15
_DEFAULT_IGNORED = {0, 17, 18, 23, 28}  # signal 0 (existence check), CHLD, CONT, URG, WINCH
# commands that install their own handlers: screenrecord finishes its file on SIGINT/SIGHUP
HANDLERS: dict[str, frozenset[int]] = {"screenrecord": frozenset({SIGHUP, SIGINT})}


def signal_number(spec: str) -> int | None:
    """`INT`, `SIGINT`, `int` or `2` -> 2; None for a name or number Android does not have."""
    s = spec.upper()
    if s.isdigit():
        n = int(s)
        return n if n < 65 else None
    return SIGNALS.get(s[3:] if s.startswith("SIG") else s)


class ProcIO:
    """One shell process's standard I/O over the command line's stream, with its signal state. Writes from jobs
    running at the same time are serialised by a lock shared per command line."""

    def __init__(self, stream: ShellIO, lock: threading.RLock, pid: int, background: bool = False) -> None:
        self.stream, self.lock, self.pid, self.background = stream, lock, pid, background
        self.ignored: set[int] = {SIGINT, SIGQUIT} if background else set()
        self.traps: dict[int, str] = {}  # signal (0 = EXIT) -> action; "" ignores the signal
        self.pending: list[int] = []  # trapped signals whose action has not run yet
        self.catching: frozenset[int] = frozenset()  # the signals the running command handles itself
        self.interrupted = False  # the running command's own handler was called
        self.command_killed: int | None = None  # a signal ended the running command (not the shell)
        self.killed: int | None = None  # the signal that ended this process
        self._wake = threading.Event()  # set by a signal and by the stream closing
        self._watching = False
        self._watch_lock = threading.Lock()

    # --- ShellIO --------------------------------------------------------------------------------------
    def read_stdin(self, n: int = -1, timeout: float | None = None) -> bytes:
        return b"" if self.background else self.stream.read_stdin(n, timeout)

    def write_stdout(self, data: bytes) -> None:
        with self.lock:
            self.stream.write_stdout(data)

    def write_stderr(self, data: bytes) -> None:
        with self.lock:
            self.stream.write_stderr(data)

    @property
    def closed(self) -> bool:
        return self.killed is not None or self.interrupted or self.command_killed is not None or self.stream.closed

    def wait_closed(self, timeout: float | None = None) -> bool:
        """Block until the process is signalled or its stream closes (the host hung up: a dropped transport, a
        closed `adb shell`), returning at once for either, as a process blocked in the kernel is woken."""
        deadline = None if timeout is None else time.monotonic() + timeout
        if not self.closed:
            self._watch_stream()
        while not self.closed:
            left = 0.05 if deadline is None else min(0.05, deadline - time.monotonic())
            if left <= 0:
                return False
            if self._wake.wait(left):
                self._wake.clear()
        return True

    def _watch_stream(self) -> None:
        """Wake `wait_closed` when the stream closes: one thread per process that waits, blocked on the stream
        until it closes (a stream that cannot be waited on returns at once and ends it)."""
        with self._watch_lock:
            if self._watching:
                return
            self._watching = True

        def watch() -> None:
            if self.stream.wait_closed(None):
                self._wake.set()

        threading.Thread(target=watch, name=f"sh-hup-{self.pid}", daemon=True).start()

    # --- signals --------------------------------------------------------------------------------------
    def deliver(self, sig: int) -> None:
        """What the kernel and mksh do with a signal sent to this process."""
        if sig == SIGKILL:
            self.killed = sig
        elif sig in self.catching:
            self.interrupted = True
        elif sig in self.traps:
            if self.traps[sig]:
                self.pending.append(sig)
        elif sig in self.ignored or sig in _DEFAULT_IGNORED:
            return
        else:
            self.killed = sig
        self._wake.set()

    def deliver_to_command(self, sig: int) -> None:
        """A signal sent to the pid of the command running in the foreground (not to the shell)."""
        if sig in self.catching:
            self.interrupted = True
        elif sig == SIGKILL or not (sig in self.ignored or sig in _DEFAULT_IGNORED):
            self.command_killed = sig
        self._wake.set()


@dataclass
class Job:
    number: int
    pid: int
    text: str  # the command as written, what `jobs` shows
    io: ProcIO
    holds_stream: bool  # its output goes to the command line's stream: the stream stays open until it ends
    status: int | None = None
    done: threading.Event = field(default_factory=threading.Event)

    def finish(self, status: int) -> None:
        self.status = status
        self.done.set()

    def state_text(self) -> str:
        if self.status is None:
            return "Running"
        if self.io.killed is not None:
            return MESSAGES.get(self.io.killed, f"Signal {self.io.killed}")
        return "Done" if self.status == 0 else f"Done ({self.status})"


def format_jobs(jobs: list[Job], long: bool) -> str:
    """mksh's j_print(JP_MEDIUM / JP_LONG): `[N] + Running              cmd` (+ the newest job, - the one before)."""
    lines = []
    order = sorted(jobs, key=lambda j: j.number)
    newest = sorted(jobs, key=lambda j: j.pid, reverse=True)
    for j in order:
        mark = "+" if j is newest[0] else ("-" if len(newest) > 1 and j is newest[1] else " ")
        pid = f"{j.pid:5d} " if long else ""
        lines.append(f"[{j.number}] {mark} {pid}{j.state_text():<20} {j.text}\n")
    return "".join(lines)


# --- processes and jobs of the runner -------------------------------------------------------------------
def run_command(state: ShellState, argv: list[str], call: Callable[[], int]) -> int:
    """Run one command. One that installs signal handlers (HANDLERS: screenrecord) is a process of its own while
    it runs (listed by ps; `pkill -INT screenrecord` from another shell reaches it); a signal it handles ends its
    work, one it does not ends it with 128+SIG and the shell goes on."""
    name = argv[0].rsplit("/", 1)[-1]
    handled = HANDLERS.get(name)
    if not handled:
        return call()
    proc, procs = state.root, state.model.procs
    pid = None
    if not proc.background:  # a job's command is the job's own pid (mksh execs it in the forked child)
        pid = procs.add_daemon("shell", name, " ".join(argv))
        procs.signal_targets[pid] = proc.deliver_to_command
    proc.catching, proc.interrupted, proc.command_killed = handled, False, None
    try:
        status = call()
        return status if proc.command_killed is None else 128 + proc.command_killed
    finally:
        proc.catching, proc.interrupted, proc.command_killed = frozenset(), False, None
        if pid is not None:
            procs.signal_targets.pop(pid, None)
            procs.remove_daemon(pid)


def new_process(parent: ProcIO, pid: int, background: bool = False) -> ProcIO:
    """A child process's signal state: it inherits ignored signals (`trap '' SIG`, a job's INT and QUIT), not
    traps (mksh's cleartraps())."""
    io = ProcIO(parent.stream, parent.lock, pid, background)
    io.ignored |= parent.ignored | {s for s, action in parent.traps.items() if not action}
    return io


def run_process(state: ShellState, body: Callable[[], int], fds: Fds) -> int:
    """Run a shell process's script: its pid takes signals while it runs; its EXIT trap runs at the end."""
    proc = state.root
    targets = state.model.procs.signal_targets
    targets[proc.pid] = proc.deliver
    try:
        status, _ended = run_body(state, body)
        return end_process(state, fds, status)
    finally:
        targets.pop(proc.pid, None)


def run_body(state: ShellState, body: Callable[[], int]) -> tuple[int, bool]:
    """Run a shell process's script, or one line of an interactive one: (status, whether the shell ended -
    `exit`, a signal that ends it, the host gone). `return` outside a function ends the script (as in a dot
    script), not the shell; `break`/`continue` outside a loop end nothing more than the command."""
    proc = state.root
    try:
        status, ended = body(), False
    except ExitShell as e:
        status, ended = e.status, True
    except LoopControl:
        status, ended = state.status, False
    except ReturnFunc as e:
        status, ended = e.status, False
    except (Abort, StreamClosed):
        status, ended = 128 + (proc.killed or SIGHUP), True  # SIGHUP: the host closed the stream
    if proc.killed is not None:
        return 128 + proc.killed, True
    return status, ended


def end_process(state: ShellState, fds: Fds, status: int) -> int:
    """The end of a shell process that ended with `status`: its EXIT trap runs (not after a signal killed it); the
    exit status."""
    proc = state.root
    if proc.killed is not None:
        return 128 + proc.killed
    action = proc.traps.pop(0, None)
    if action and not proc.closed:
        state.status = status
        try:
            state.run_source(action, fds, same_state=True)
        except ExitShell as e:
            status = e.status
        except (Abort, StreamClosed, LoopControl, ReturnFunc):
            pass
    return status & 0xFF


def spawn(state: ShellState, item: AndOr, fds: Fds) -> Job:
    """`ITEM &`: start it as a job of `state` (its own thread, pid and signal state; stdin /dev/null)."""
    words = item.first.commands[0].words if isinstance(item.first.commands[0], Simple) else []
    name = (words[0].literal() or "sh") if words else "sh"
    pid = state.model.procs.add_daemon("shell", name.rsplit("/", 1)[-1], item.text)
    io = new_process(state.root, pid, background=True)
    sub = state.child()
    sub.root, sub.jobs = io, []
    f = fds.copy()
    f.stdin = Source()
    if isinstance(f.stdout, RootSink):
        f.stdout = RootSink(io, False)
    if isinstance(f.stderr, RootSink):
        f.stderr = RootSink(io, True)
    holds = (isinstance(f.stdout, RootSink) or isinstance(f.stderr, RootSink)) and _writes_stream(item)
    taken = {j.number for j in state.jobs}
    job = Job(next(n for n in range(1, len(taken) + 2) if n not in taken), pid, item.text, io, holds)
    state.jobs.append(job)
    state.spawned.append(job)
    state.last_bg = str(pid)
    threading.Thread(target=_run_job, args=(sub, item, f, job), name=f"sh-job-{pid}", daemon=True).start()
    return job


def _run_job(sub: ShellState, item: AndOr, fds: Fds, job: Job) -> None:
    status = 1
    try:
        status = run_process(sub, lambda: sub.run_and_or(item, fds), fds)
    except Exception:  # a command bug must not leave the job running forever
        log.exception("shell job %r failed", item.text)
    finally:
        sub.model.procs.remove_daemon(job.pid)
        job.finish(status)


def _writes_stream(item: AndOr) -> bool:
    """Whether a job's stdout or stderr is still the stream after its redirections (`cmd >/dev/null 2>&1 &`
    lets adbd close the stream when the shell exits; `cmd &` keeps it open until cmd ends)."""
    for pipe in [item.first] + [p for _, p in item.rest]:
        cmd = pipe.commands[-1]
        targets = {1: "stream", 2: "stream"}
        for r in getattr(cmd, "redirects", []):
            text = r.target.literal()
            if r.op in (">", ">>"):
                targets[r.fd] = "stream" if text in ("/dev/stdout", "/dev/stderr", "/dev/tty") else "file"
            elif r.op == ">&":
                targets[r.fd] = targets.get(int(text), "file") if text and text.isdigit() else "file"
        if "stream" in (targets[1], targets[2]):
            return True
    return False


def wait_for_stream(state: ShellState) -> None:
    """At the end of a command line: jobs that still write to the stream keep it open until they end; when the
    host closes it they get SIGHUP."""
    for job in state.spawned:
        if not job.holds_stream:
            continue
        while not job.done.wait(0.05):
            if job.io.stream.closed:
                job.io.deliver(SIGHUP)
                break


def find_job(state: ShellState, spec: str) -> Job | None:
    """mksh's j_lookup: PID, %N, %+ / %% / %, %-, %?TEXT, %PREFIX."""
    jobs = sorted(state.jobs, key=lambda j: j.pid, reverse=True)
    if spec.isdigit():
        return next((j for j in jobs if j.pid == int(spec)), None)
    if not spec.startswith("%"):
        return None
    rest = spec[1:]
    if rest in ("", "+", "%"):
        return jobs[0] if jobs else None
    if rest == "-":
        return jobs[1] if len(jobs) > 1 else None
    if rest.isdigit():
        return next((j for j in jobs if j.number == int(rest)), None)
    found = [j for j in jobs if (rest[1:] in j.text if rest.startswith("?") else j.text.startswith(rest))]
    return found[0] if len(found) == 1 else None


def wait_job(state: ShellState, job: Job) -> int:
    """Block until `job` ends (a trapped signal interrupts the wait with 128+SIG); it leaves the job list."""
    while not job.done.wait(0.05):
        if state.root.closed:
            raise Abort()
        if state.root.pending:
            return 128 + state.root.pending[0]
    if job in state.jobs:
        state.jobs.remove(job)
    return job.status or 0


# --- builtins -------------------------------------------------------------------------------------------
def _wait(ctx: Ctx, argv: list[str]) -> int:
    state = ctx.state
    if len(argv) == 1:  # every job; always 0
        for each in list(state.jobs):
            if wait_job(state, each) > 128 and state.root.pending:
                return 128 + state.root.pending[0]
        return 0
    status = 0
    for spec in argv[1:]:
        job = find_job(state, spec)
        if job is None:
            if not spec.isdigit():
                ctx.errln(f"{SH}: wait: {spec}: " + ("no such job" if spec.startswith("%") else _NOT_JOB))
            status = 127
            continue
        status = wait_job(state, job)
    return status


_NOT_JOB = "argument must be %job or process id"


def _jobs(ctx: Ctx, argv: list[str]) -> int:
    opts = "".join(a[1:] for a in argv[1:] if a.startswith("-"))
    specs = [a for a in argv[1:] if not a.startswith("-")]
    state = ctx.state
    chosen = state.jobs
    if specs:
        chosen = []
        for spec in specs:
            job = find_job(state, spec)
            if job is None:
                ctx.errln(f"{SH}: jobs: {spec}: " + ("no such job" if spec[:1] in "%0123456789" else _NOT_JOB))
                return 1
            chosen.append(job)
    if "p" in opts:
        ctx.out("".join(f"{j.pid}\n" for j in sorted(chosen, key=lambda j: j.number)))
    else:
        ctx.out(format_jobs(chosen, long="l" in opts))
    for job in chosen:  # a finished job is reported once
        if job.done.is_set() and job in state.jobs:
            state.jobs.remove(job)
    return 0


def _trap(ctx: Ctx, argv: list[str]) -> int:
    """`trap [--] [ACTION] SIG...` (EXIT or 0, names with or without SIG, numbers); `-` resets, '' ignores;
    no argument lists the traps as `trap -- 'ACTION' NAME`."""
    args = argv[1:]
    if args and args[0] == "--":
        args = args[1:]
    proc = ctx.state.root
    if not args:
        for sig, action in sorted(proc.traps.items()):
            quoted = "'" + action.replace("'", "'\\''") + "'"
            ctx.outln(f"trap -- {quoted} {'EXIT' if sig == 0 else SIGNAL_NAMES.get(sig, str(sig))}")
        return 0
    action, conditions = (args[0], args[1:]) if len(args) > 1 else ("-", args)
    status = 0
    for cond in conditions:
        number = 0 if cond.upper() in ("EXIT", "0") else signal_number(cond)
        if number is None:
            ctx.errln(f"{SH}: trap: bad signal '{cond}'")
            status = 1
        elif action == "-":
            proc.traps.pop(number, None)
        else:
            proc.traps[number] = action
    return status


JOB_BUILTINS: dict[str, Callable[[Ctx, list[str]], int]] = {"wait": _wait, "jobs": _jobs, "trap": _trap}
