"""android_env's `AdbRequest`s executed over the harness's own link to a device.

AndroidWorld's set-up and judges reach a device through `env.controller.execute_adb_call(AdbRequest)`: android_env
turns each request into `adb` command arguments (`AdbCallParser`: `shell am start -W -n ...`, `shell input tap`,
`push`, `pull`, `shell settings put ...`, and the `generic` request's own arguments) and hands them to its
`AdbController.execute_command(args)`, which runs the `adb` binary. Here android_env's own parser is kept, unchanged,
and `LinkAdb` stands in for its `AdbController`: the same arguments go over the harness's link instead of a
subprocess -

- `shell ARG...`: the arguments joined with spaces, unquoted, as the adb client joins them
  (`harness.shellquote.adb_client_join`: AndroidWorld's own command lines rely on the device shell for `*`, pipes
  and `if`; an agent's output never comes this way), run with the shell v2 protocol; the output is stdout then
  stderr (android_env reads the client's merged output);
- `push LOCAL REMOTE` / `pull REMOTE LOCAL`: adb's sync protocol on the same transport;
- `root` / `unroot`: adbd's `root:` / `unroot:` services (the link reconnects after adbd restarts);
- `emu LINE`: the device's emulator console, where it has one (`adb emu` reaches an emulator's console too);
- `uninstall PKG`: `pm uninstall`; `devices`, `get-state`, `wait-for-device` answered from the link.

Failures are android_env's: a command that exits non-zero or times out raises `AdbControllerError` (what its
AdbController raises once its retries are spent), which AndroidWorld's code catches where it expects one; a device
that cannot be reached raises the harness's `DeviceError` (an infrastructure failure). Installing an APK is not
done (the suite never downloads one): `install` fails as adb would on a missing file.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from harness.device.fastadb import ShellResult
from harness.errors import DeviceError
from harness.shellquote import adb_client_join, command

if TYPE_CHECKING:
    from android_env.proto import adb_pb2

log = logging.getLogger(__name__)
DEFAULT_TIMEOUT = 120.0  # android_env's AdbControllerConfig.default_timeout


class Doors(Protocol):
    """What `adb ARG...` reaches on one device: its shell, its files (sync), adbd's root switch, its console."""

    serial: str

    def shell(self, command_line: str, timeout: float) -> ShellResult: ...

    def push(self, data: bytes, path: str, timeout: float) -> None: ...

    def pull(self, path: str, timeout: float) -> bytes: ...

    def root(self, on: bool, timeout: float) -> str: ...

    def console(self, line: str) -> list[str] | None: ...

    def rebase(self) -> bool: ...


def adb_controller_error() -> type[Exception]:
    """android_env's `AdbControllerError` (what its AdbController raises for a failed command)."""
    from android_env.components import errors

    return errors.AdbControllerError


class LinkAdb:
    """android_env's `AdbController`, over `doors` (see the module docstring): `execute_command(args)` returns what
    `adb -s SERIAL ARG...` prints, or raises `AdbControllerError` where that command fails."""

    def __init__(self, doors: Doors, default_timeout: float = DEFAULT_TIMEOUT) -> None:
        self.doors = doors
        self.default_timeout = default_timeout
        self.commands: list[str] = []  # what was run, `adb ...` as android_env logs it (the episode's record)

    def _fail(self, args: Sequence[str], why: str) -> Exception:
        text = "adb " + " ".join(args)
        return adb_controller_error()(
            f"Error executing adb command: [{text}]\nCaused by: {why}\nadb stdout: [{why}]\nadb stderr: [None]"
        )

    def execute_command(self, args: list[str], timeout: float | None = None, device_specific: bool = True) -> bytes:
        t = self.default_timeout if timeout is None else timeout
        args = [str(a) for a in args]
        self.commands.append("adb " + " ".join(args))
        if not args:
            raise self._fail(args, "no adb command")
        verb, rest = args[0], args[1:]
        handler = _HANDLERS.get(verb)
        if handler is None:
            raise self._fail(args, f"`adb {verb}` is not something DroidHarness's link to a device does")
        return handler(self, args, rest, t)

    # --- the verbs ------------------------------------------------------------------------------------------------
    def _shell(self, args: list[str], rest: list[str], t: float) -> bytes:
        line = adb_client_join(a for a in rest if a != "")
        if not line:
            raise self._fail(args, "an interactive shell is not supported")
        try:
            r = self.doors.shell(line, t)
        except TimeoutError as e:
            raise self._fail(args, f"timed out after {t:g} s: {e}") from None
        out = r.stdout + r.stderr
        if r.exit_code != 0:
            raise self._fail(args, f"exit status {r.exit_code}: {out.decode('utf-8', 'replace').strip()[:400]}")
        return out

    def _push(self, args: list[str], rest: list[str], t: float) -> bytes:
        if len(rest) != 2:
            raise self._fail(args, "push takes LOCAL REMOTE")
        local, remote = rest
        try:
            data = Path(local).read_bytes()
        except OSError as e:
            raise self._fail(args, f"adb: error: cannot stat '{local}': {e.strerror}") from None
        try:
            self.doors.push(data, remote, t)
        except DeviceError:
            raise
        except Exception as e:  # noqa: BLE001 - the device refused the file (a read-only or missing folder)
            raise self._fail(args, f"adb: error: failed to copy '{local}' to '{remote}': {e}") from None
        return f"{local}: 1 file pushed, 0 skipped. ({len(data)} bytes)\n".encode()

    def _pull(self, args: list[str], rest: list[str], t: float) -> bytes:
        if len(rest) != 2:
            raise self._fail(args, "pull takes REMOTE LOCAL")
        remote, local = rest
        try:
            data = self.doors.pull(remote, t)
        except DeviceError:
            raise
        except Exception as e:  # noqa: BLE001 - no such file, or not readable: adb's own failure
            raise self._fail(args, f"adb: error: failed to stat remote object '{remote}': {e}") from None
        Path(local).write_bytes(data)
        return f"{remote}: 1 file pulled, 0 skipped. ({len(data)} bytes)\n".encode()

    def _root(self, args: list[str], rest: list[str], t: float) -> bytes:
        del rest
        text = self.doors.root(args[0] == "root", t)
        if "cannot" in text:  # "adbd cannot run as root in production builds"
            raise self._fail(args, text)
        return text.encode() + b"\n"

    def _emu(self, args: list[str], rest: list[str], t: float) -> bytes:
        del t
        lines = self.doors.console(adb_client_join(rest))
        if lines is None:
            raise self._fail(args, "error: no emulator detected")
        return ("\n".join([*lines, "OK"]) + "\n").encode()

    def _uninstall(self, args: list[str], rest: list[str], t: float) -> bytes:
        pkg = [a for a in rest if not a.startswith("-")]
        if len(pkg) != 1:
            raise self._fail(args, "uninstall takes one package")
        r = self.doors.shell(command("pm", "uninstall", pkg[0]), t)
        out = r.stdout + r.stderr
        if b"Success" not in out:
            raise self._fail(args, out.decode("utf-8", "replace").strip())
        return out

    def _state(self, args: list[str], rest: list[str], t: float) -> bytes:
        del rest, t
        if args[0] == "devices":
            return f"List of devices attached\n{self.doors.serial}\tdevice\n\n".encode()
        return b"device\n" if args[0] == "get-state" else b""

    def _install(self, args: list[str], rest: list[str], t: float) -> bytes:
        del rest, t
        raise self._fail(args, "DroidHarness installs no APK (the device brings its apps)")


_Handler = Callable[[LinkAdb, list[str], list[str], float], bytes]
_HANDLERS: dict[str, _Handler] = {
    "shell": LinkAdb._shell,
    "push": LinkAdb._push,
    "pull": LinkAdb._pull,
    "root": LinkAdb._root,
    "unroot": LinkAdb._root,
    "emu": LinkAdb._emu,
    "uninstall": LinkAdb._uninstall,
    "install": LinkAdb._install,
    "devices": LinkAdb._state,
    "get-state": LinkAdb._state,
    "wait-for-device": LinkAdb._state,
}


class AdbCalls:
    """`execute_adb_call(request) -> response`: android_env's own `AdbCallParser` over `LinkAdb`."""

    def __init__(self, doors: Doors, default_timeout: float = DEFAULT_TIMEOUT) -> None:
        from android_env.components import adb_call_parser

        self.adb = LinkAdb(doors, default_timeout)
        self._parser: Any = adb_call_parser.AdbCallParser(self.adb)

    def execute_adb_call(self, request: adb_pb2.AdbRequest) -> adb_pb2.AdbResponse:
        response: adb_pb2.AdbResponse = self._parser.parse(request)
        return response


__all__ = ["DEFAULT_TIMEOUT", "AdbCalls", "Doors", "LinkAdb", "adb_controller_error"]
