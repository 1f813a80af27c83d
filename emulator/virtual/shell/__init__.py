"""The virtual device's mini shell (/system/bin/sh with toybox-like commands).

CONTRACT used by the shell services:
    run(model, command_line: str, io: ShellIO, wait_jobs=True) -> int   # exit status; never raises for bad input
    Session(model, io).run_line(line) -> int, .close() -> int, .ended   # one shell reading lines (`adb shell`)

Layout: `parser` (mksh subset -> AST, executes nothing), `runner` (expansion, redirections, pipes, dispatch,
exec logging), `jobs` (job control, traps) over `process` (a shell process's signal state, its jobs),
`registry` (Ctx, the `Shell` a command sees, the command registry), `proctable` (the device's processes as ps and
/proc see them), `procfs` (/proc files), and the commands by area, each registering itself into the registry:
`cmd_text`, `cmd_files`, `cmd_system`, `cmd_proc`, `cmd_identity`, `cmd_logcat`, `cmd_kill`, `cmd_input`, `cmd_am`,
`cmd_pm` (+ `apk`), `cmd_dumpsys` (+ `windowdump`), `cmd_hardware`, `cmd_notification`, `cmd_service`,
`cmd_capture`, `cmd_perms` (chmod, chown), `cmd_dd` (+ `devnodes`), `cmd_tty` (+ `ttys`), `cmd_runas`. This
package is the top: it imports every command module, so the runner finds them all in `registry.COMMANDS`.
"""

from . import (  # noqa: F401 - each registers its commands into registry.COMMANDS
    cmd_am,
    cmd_capture,
    cmd_content,
    cmd_dd,
    cmd_dumpsys,
    cmd_fileinfo,
    cmd_files,
    cmd_filters,
    cmd_find,
    cmd_hardware,
    cmd_identity,
    cmd_input,
    cmd_kill,
    cmd_logcat,
    cmd_net,
    cmd_notification,
    cmd_perms,
    cmd_pm,
    cmd_proc,
    cmd_runas,
    cmd_service,
    cmd_sqlite,
    cmd_system,
    cmd_text,
    cmd_tty,
)
from .runner import Session, run

__all__ = ["Session", "run"]
