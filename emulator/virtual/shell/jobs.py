"""Job control as mksh has it without a terminal (a non-interactive `sh -c`, or `adb shell` with no pty).

- `CMD &` runs CMD as a job in its own thread while the shell goes on (and keeps reading its stdin); the job's
  stdin is /dev/null unless it redirects it, and it ignores SIGINT and SIGQUIT (mksh's exchild() without
  FMONITOR), so only commands that install their own handlers (`screenrecord`) see those.
- A shell process is a `ProcIO` (`process.py`, with `Job` and the signals): the `ShellIO` its commands see,
  wrapping the stream's. A signal delivered to it (`kill -SIG PID`, `kill %N`) either runs the shell's trap, is
  ignored, reaches the running command's own handler (the command sees its stream as closed, finishes its work
  and returns), or ends the process with status 128+SIG (the command sees its stream closed, and the runner
  unwinds).
- `wait [PID|%N]`, `jobs [-l|-p]` and `$!` read the shell's job list; a job that is waited for leaves it.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable

from ..streams import StreamClosed
from .ast_nodes import AndOr, Simple
from .plumbing import Abort, ExitShell, Fds, LoopControl, ReturnFunc, RootSink, Source
from .process import HANDLERS, SELF_LISTED, SIGHUP, SIGNAL_NAMES, Job, format_jobs, new_process, signal_number
from .registry import SH, Ctx, Shell

log = logging.getLogger(__name__)


# --- processes and jobs of the runner -------------------------------------------------------------------
def run_command(state: Shell, argv: list[str], call: Callable[[], int], own: bool = True) -> int:
    """Run one command. A command that is not a shell builtin (`own`) is a process of its own while it runs: a
    child of the shell (its pid in ps and /proc, PPID the shell's), which `kill PID` from another shell reaches
    (`ProcIO.deliver_to_command`); a job's command is the job's own process (mksh execs it in the forked child).
    A signal the command handles itself (HANDLERS: screenrecord's SIGINT) ends its work; one it does not ends it
    with 128+SIG and the shell goes on."""
    if state.root.background:  # a job's command may change the screen after its line ended (statelock)
        call = _then_changed(state, call)
    name = argv[0].rsplit("/", 1)[-1]
    handled = HANDLERS.get(name, frozenset())
    own = own and name not in SELF_LISTED
    if not handled and not own:
        return call()
    proc, procs = state.root, state.model.procs
    pid = None
    if own and not proc.background:
        pid = procs.add_shell_process(name, " ".join(argv), state.pid, state.user.name)
        procs.signal_targets[pid] = proc.deliver_to_command
    saved = proc.foreground
    proc.catching, proc.interrupted, proc.command_killed = handled, False, None
    proc.start_command(pid)
    try:
        status = call()
        return status if proc.command_killed is None else 128 + proc.command_killed
    finally:
        proc.catching, proc.interrupted, proc.command_killed = frozenset(), False, None
        proc.start_command(saved)
        if pid is not None:
            procs.signal_targets.pop(pid, None)
            procs.remove_daemon(pid)


def _then_changed(state: Shell, call: Callable[[], int]) -> Callable[[], int]:
    def run() -> int:
        try:
            return call()
        finally:
            state.model.changed()

    return run


def run_process(state: Shell, body: Callable[[], int], fds: Fds) -> int:
    """Run a shell process's script: its pid takes signals while it runs; its EXIT trap runs at the end."""
    proc = state.root
    targets = state.model.procs.signal_targets
    targets[proc.pid] = proc.deliver
    try:
        status, _ended = run_body(state, body)
        return end_process(state, fds, status)
    finally:
        targets.pop(proc.pid, None)


def run_body(state: Shell, body: Callable[[], int]) -> tuple[int, bool]:
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


def end_process(state: Shell, fds: Fds, status: int) -> int:
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


def spawn(state: Shell, item: AndOr, fds: Fds) -> Job:
    """`ITEM &`: start it as a job of `state` (its own thread, pid and signal state; stdin /dev/null)."""
    words = item.first.commands[0].words if isinstance(item.first.commands[0], Simple) else []
    name = (words[0].literal() or "sh") if words else "sh"
    pid = state.model.procs.add_shell_process(name.rsplit("/", 1)[-1], item.text, state.pid, state.user.name)
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


def _run_job(sub: Shell, item: AndOr, fds: Fds, job: Job) -> None:
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


def wait_for_stream(state: Shell) -> None:
    """At the end of a command line: jobs that still write to the stream keep it open until they end; when the
    host closes it they get SIGHUP."""
    for job in state.spawned:
        if not job.holds_stream:
            continue
        while not job.done.wait(0.05):
            if job.io.stream.closed:
                job.io.deliver(SIGHUP)
                break


def find_job(state: Shell, spec: str) -> Job | None:
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


def wait_job(state: Shell, job: Job) -> int:
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
