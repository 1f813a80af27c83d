"""`kill` (mksh's builtin: pids and %jobs), `killall` and `pkill` (toybox): signals reach the shell processes and
jobs running now (`jobs.ProcIO.deliver`); the shell user may stop its own daemons (the uiautomator2 server)."""

from __future__ import annotations

from .jobs import find_job
from .process import SIGHUP, SIGNAL_NAMES, SIGTERM, signal_number
from .proctable import process_table
from .registry import SH, Ctx, command


def _parse(ctx: Ctx, argv: list[str]) -> tuple[int, list[str]] | int:
    """(signal, targets), or an exit status after printing (`-l`, errors)."""
    sig, args, i = SIGTERM, argv[1:], 0
    while i < len(args) and args[i].startswith("-") and args[i] != "-" and not args[i][1:].startswith("-"):
        a = args[i]
        if a == "-l":
            rest = args[i + 1 :]
            if rest:
                if rest[0].isdigit():
                    ctx.outln(SIGNAL_NAMES.get(int(rest[0]) & 0x7F, rest[0]))
                else:
                    ctx.outln(str(signal_number(rest[0]) or ""))
            else:
                ctx.outln(" ".join(SIGNAL_NAMES[n] for n in sorted(SIGNAL_NAMES)))
            return 0
        if a in ("-s", "-n") and i + 1 < len(args):
            spec, i = args[i + 1], i + 2
        elif a == "-f" and argv[0] == "pkill":
            i += 1
            continue
        else:
            spec, i = a[1:], i + 1
        n = signal_number(spec)
        if n is None:
            bad = f"{SH}: kill: {spec}: unknown signal" if argv[0] == "kill" else f"{argv[0]}: Unknown signal '{spec}'"
            ctx.errln(bad)
            return 1
        sig = n
    if i < len(args) and args[i] == "--":
        i += 1
    return sig, args[i:]


@command("kill", "killall", "pkill", toybox=True)
def kill(ctx: Ctx, argv: list[str]) -> int:
    parsed = _parse(ctx, argv)
    if isinstance(parsed, int):
        return parsed
    sig, targets = parsed
    if not targets:
        ctx.errln(f"{argv[0]}: Needs 1 argument")
        return 1
    full = "-f" in argv
    rows = process_table(ctx.model)
    live = ctx.model.procs.signal_targets
    status = 0
    u2_pid = getattr(ctx.model, "u2_pid", None)
    for t in targets:
        if argv[0] == "kill" and t.startswith("%"):
            job = find_job(ctx.state, t)
            if job is None:
                ctx.errln(f"{SH}: kill: {t}: no such job")
                status = 1
            elif not job.done.is_set():
                job.io.deliver(sig)
            continue
        if argv[0] == "kill" and t.isdigit() and int(t) in live:
            live[int(t)](sig)
            continue
        if argv[0] == "kill":
            match = [r for r in rows if str(r.pid) == t]
        elif argv[0] == "pkill":
            match = [r for r in rows if (t in r.cmdline if full else t in r.comm)]
        else:
            match = [r for r in rows if r.name == t]
        if not match:
            if argv[0] == "kill":
                ctx.errln(f"kill: {t}: No such process")
            elif argv[0] == "killall":
                ctx.errln(f"killall: {t}: no process killed")
            status = 1
            continue
        for r in match:
            if r.user != "shell":
                ctx.errln(f"{argv[0]}: pid {r.pid}: Operation not permitted")
                status = 1
            elif sig == 0:
                continue
            elif r.pid in live:
                live[r.pid](sig)
            elif u2_pid and r.pid == u2_pid:
                ctx.model.events.log("kill", pid=r.pid, name=r.name)
                ctx.model.faults.kill_u2()
            elif r.pid in ctx.model.procs.daemons:
                ctx.model.procs.remove_daemon(r.pid)
    return status


@command("nohup", toybox=True)
def nohup(ctx: Ctx, argv: list[str]) -> int:
    """toybox's nohup: run COMMAND with SIGHUP ignored, so it outlives the session's hang-up (`nohup CMD &` keeps a
    job running after the host closed `adb shell`). Its output stays where it goes (an adb shell command has no
    terminal to take it from)."""
    if len(argv) < 2:
        ctx.errln("nohup: Needs 1 argument")
        return 125
    proc = ctx.state.root
    had = SIGHUP in proc.ignored
    proc.ignored.add(SIGHUP)
    try:
        return ctx.state.dispatch(argv[1:], ctx.io.fds, dict(ctx.env))
    finally:
        if not had:
            proc.ignored.discard(SIGHUP)
