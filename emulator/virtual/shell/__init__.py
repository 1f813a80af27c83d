"""The virtual device's mini shell (/system/bin/sh with toybox-like commands).

CONTRACT used by the shell services:
    run(model, command_line: str, io: ShellIO, wait_jobs=True) -> int   # exit status; never raises for bad input
    Session(model, io).run_line(line) -> int, .close() -> int, .ended   # one shell reading lines (`adb shell`)

Layout: `parser` (mksh subset -> AST, executes nothing), `runner` (expansion, redirections, pipes, dispatch,
exec logging), `jobs` (job control, signals, traps), `registry` (Ctx, command registry, per-device process
table), and the commands by area: `cmd_text`, `cmd_files`, `cmd_system`, `cmd_proc`, `cmd_kill`, `cmd_input`,
`cmd_am`, `cmd_pm` (+ `apk`), `cmd_dumpsys`, `cmd_capture`.
"""

from .runner import Session, run

__all__ = ["Session", "run"]
