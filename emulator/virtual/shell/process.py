"""A shell process and its jobs as data: the signals Android has, `ProcIO` (one shell process's standard I/O with
its signal state: what a signal sent to it does) and `Job` (a command line run with `&`). The job control that
runs them is in `jobs`."""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass, field

from ..streams import ShellIO

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
TYPED_POLL = 0.05  # seconds between looks at what was typed on a terminal while a command runs
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
# commands that are no process record of their own while they run: the uiautomator2 server keeps its own pid and
# row; nohup execs its command, which is listed as it runs
SELF_LISTED = frozenset({"app_process", "app_process64", "nohup"})


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
        self.foreground: int | None = None  # the pid of the command it runs in the foreground now
        self.hung_up = False  # the host closed the stream and SIGHUP was delivered (once)
        self._wake = threading.Event()  # set by a signal and by the stream closing
        self._watching = False
        self._watch_lock = threading.Lock()
        self._typed = getattr(stream, "typed_interrupts", None)  # a terminal's count of ^C typed
        self._typed_at = 0.0
        self._typed_base = 0  # the count when the foreground command started

    # --- ShellIO --------------------------------------------------------------------------------------
    def read_stdin(self, n: int = -1, timeout: float | None = None) -> bytes:
        if self.background:
            return b""
        data = self.stream.read_stdin(n, timeout)
        if not data:
            self.hang_up()  # the end of input may be the host hanging up: SIGHUP comes first, as in a read(2)
        return data

    def write_stdout(self, data: bytes) -> None:
        with self.lock:
            self.stream.write_stdout(data)

    def write_stderr(self, data: bytes) -> None:
        with self.lock:
            self.stream.write_stderr(data)

    @property
    def is_terminal(self) -> bool:
        """Whether its standard I/O is a terminal (a session with a PTY: `[ -t 0 ]`)."""
        return bool(getattr(self.stream, "is_terminal", False))

    @property
    def closed(self) -> bool:
        """Whether what it runs should stop: a signal ended it or its command, or the host hung up and it did
        not survive the SIGHUP (a process that traps or ignores it goes on, its stream gone)."""
        if self.stream.closed and not self.hung_up:
            self.hang_up()
        if self._typed is not None and self.foreground is not None:
            self._poll_typed()
        return self.killed is not None or self.interrupted or self.command_killed is not None

    def _poll_typed(self) -> None:
        """While a command runs on a terminal: take in what was typed (at most every 50 ms); a ^C interrupts."""
        now = time.monotonic()
        if now - self._typed_at < TYPED_POLL:
            return
        self._typed_at = now
        if self._typed is not None:
            count = int(self._typed())
            if count != self._typed_base:
                self._typed_base = count
                self.interrupt()

    def start_command(self, pid: int | None) -> None:
        """`pid` runs in the foreground now (None: none does): a ^C typed from now on interrupts it."""
        self.foreground = pid
        if self._typed is not None:
            self._typed_base = int(self._typed(False))

    def interrupt(self) -> None:
        """A ^C on the session's terminal: SIGINT to the foreground process group - the running command, and a
        shell that is not interactive (an interactive mksh ignores it and prompts again)."""
        self.deliver_to_command(SIGINT)
        if not getattr(self.stream, "interactive", False):
            self.deliver(SIGINT)

    def hang_up(self) -> None:
        """The host closed the stream: adbd sends SIGHUP to the session's process group - the command running
        in the foreground and this shell - once; a trapped SIGHUP runs the trap, an ignored one is ignored."""
        with self._watch_lock:
            if self.hung_up or not self.stream.closed:
                return
            self.hung_up = True
        if self.foreground is not None:
            self.deliver_to_command(SIGHUP)
        self.deliver(SIGHUP)

    def wait_closed(self, timeout: float | None = None) -> bool:
        """Block until the process is signalled or its stream closes (the host hung up: a dropped transport, a
        closed `adb shell`), returning at once for either, as a process blocked in the kernel is woken."""
        if timeout is not None and timeout <= 0:
            return self.closed
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
        ignored = sig in self.ignored or sig in _DEFAULT_IGNORED or self.traps.get(sig) == ""  # inherited SIG_IGN
        if sig in self.catching:
            self.interrupted = True
        elif sig == SIGKILL or not ignored:
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


def new_process(parent: ProcIO, pid: int, background: bool = False) -> ProcIO:
    """A child process's signal state: it inherits ignored signals (`trap '' SIG`, a job's INT and QUIT), not
    traps (mksh's cleartraps())."""
    io = ProcIO(parent.stream, parent.lock, pid, background)
    io.ignored |= parent.ignored | {s for s, action in parent.traps.items() if not action}
    return io
