"""`abb:` and `abb_exec:`: Android Binder Bridge, `cmd` without a shell (features `abb`, `abb_exec`).

The service string is `abb:` or `abb_exec:` then the arguments of `cmd`, each ended by a NUL (empty arguments
are dropped, as adbd's abb does when it splits them). adbd hands them to its in-process `cmd`; here they run as
`cmd ARG...` through the mini shell (each argument quoted, so nothing in it is expanded), which answers what
`adb shell cmd ...` answers.

- `abb:` speaks the shell protocol v2 (stdout 1, stderr 2, exit 3; stdin 0, close-stdin 4). adbd's in-process
  command has no process to wait for, so the exit packet always carries 1, whatever `cmd` returned: `adb abb`
  exits 1 after a success too (AOSP's AbbTest only checks that a failure stays a failure).
- `abb_exec:` is raw: stdin streamed in (`adb install` sends the APK to `abb_exec:package install -S N`),
  stdout and stderr merged out, no exit status.
"""

from __future__ import annotations

import shlex
from typing import TYPE_CHECKING

from ..streams import Stream
from .shell_service import RawShellIO, V2ShellIO, run_command

if TYPE_CHECKING:  # pragma: no cover
    from ..model import VirtualDeviceModel

ABB_ARG_DELIMITER = "\0"
IN_PROCESS_EXIT = 1  # the exit status adbd reports for an in-process command


def parse_args(text: str) -> list[str]:
    """The arguments of an abb service string's tail: split at NUL, empty ones dropped."""
    return [a for a in text.split(ABB_ARG_DELIMITER) if a]


def command_line(args: list[str]) -> str:
    """`cmd` with `args`, quoted for the shell."""
    return " ".join(["cmd", *(shlex.quote(a) for a in args)])


def serve_abb(model: VirtualDeviceModel, args: str, stream: Stream) -> None:
    io = V2ShellIO(stream)
    run_command(model, command_line(parse_args(args)), io)
    io.send_exit(IN_PROCESS_EXIT)


def serve_abb_exec(model: VirtualDeviceModel, args: str, stream: Stream) -> None:
    run_command(model, command_line(parse_args(args)), RawShellIO(stream, stderr=True))
