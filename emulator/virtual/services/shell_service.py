"""`shell:` (v1), `shell,v2,...:` and `exec:`: a `ShellIO` over an adb stream, then the mini shell's `run`.

- v1: raw bytes both ways, stderr merged into stdout, no exit code.
- v2: packets `[id u8][len u32 LE][data]`; host -> device: 0 stdin, 4 close-stdin, 5 window size; device ->
  host: 1 stdout, 2 stderr, 3 exit (1 byte).
- exec: raw stdout, raw stdin (`adb install` streams the APK into `exec:cmd package install -S N`), no stderr.
- a terminal (`pty.Pty`) where adbd gives one: asked for (`pty`), or no command and no `raw`: the interactive
  session then prompts as mksh does (`prompt`).

A command line that ends at once (`shell.quick.ends_at_once`: `dumpsys ... | grep ...`, `settings get ...`,
`pm clear ...`) has its output held to its end (`Stream.hold_output`): the output, the exit status (v2) and the CLSE
leave as one WRTE, where sending at the first write would make the exit status wait a round trip through the adb
server for the host's OKAY. Any other line's output streams as it is written; a held line that reads the host's
stdin releases what it holds first.

No latency is applied here: the shell delays each command it runs.
"""

from __future__ import annotations

import logging
import struct
from collections.abc import Callable
from functools import partial
from typing import TYPE_CHECKING

from ..shell.quick import ends_at_once
from ..streams import ShellIO, Stream, StreamClosed
from ..u2server import note_launch
from .pty import Pty

if TYPE_CHECKING:  # pragma: no cover
    from ..model import VirtualDeviceModel
    from ..shell import Session

log = logging.getLogger(__name__)

ID_STDIN = 0
ID_STDOUT = 1
ID_STDERR = 2
ID_EXIT = 3
ID_CLOSE_STDIN = 4
ID_WINDOW_SIZE = 5
_V2_HEADER = struct.Struct("<BI")


# --- the shell itself ---------------------------------------------------------------------------------------
def run_command(model: VirtualDeviceModel, command_line: str, io: ShellIO) -> int:
    """Run one command line through the mini shell (`emulator.virtual.shell.run`); a line of an interactive
    session does not wait for the jobs it started (the session goes on reading lines)."""
    try:
        from ..shell import run
    except ImportError:  # the mini shell is not there yet: every program is missing
        return _missing_shell(command_line, io)
    try:
        return int(run(model, command_line, io, wait_jobs=not isinstance(io, _LineIO)))
    except StreamClosed:
        raise
    except Exception:  # noqa: BLE001 - the contract says run never raises; keep the transport alive if it does
        log.exception("shell: %r raised", command_line)
        io.write_stderr(b"/system/bin/sh: internal error\n")
        return 1


def _missing_shell(command_line: str, io: ShellIO) -> int:
    words = command_line.split()
    if not words:
        return 0
    io.write_stderr(f"/system/bin/sh: {words[0]}: inaccessible or not found\n".encode())
    return 127


# --- ShellIO implementations --------------------------------------------------------------------------------
class RawShellIO:
    """v1 and exec: stdin and stdout are the stream's bytes; stderr is merged (v1) or dropped (exec)."""

    def __init__(self, stream: Stream, stderr: bool = True) -> None:
        self.stream = stream
        self._stderr = stderr

    def read_stdin(self, n: int = -1, timeout: float | None = None) -> bytes:
        self.stream.release_output()  # the host may wait for it before it sends more
        return self.stream.read(n, timeout)

    def write_stdout(self, data: bytes) -> None:
        if data:
            self.stream.write(data)

    def write_stderr(self, data: bytes) -> None:
        if data and self._stderr:
            self.stream.write(data)

    @property
    def closed(self) -> bool:
        return self.stream.closed

    def wait_closed(self, timeout: float | None = None) -> bool:
        return self.stream.wait_closed(timeout)


class V2ShellIO:
    """The shell protocol v2: framed stdout/stderr/exit out, framed stdin/close-stdin in."""

    def __init__(self, stream: Stream) -> None:
        self.stream = stream
        self._pending = bytearray()  # stdin bytes of a packet not yet handed out
        self._packet_left = 0  # bytes of the current stdin packet still in the stream
        self._eof = False
        max_payload = int(getattr(stream, "max_payload", 1024 * 1024))
        self._chunk = max(1024, max_payload - _V2_HEADER.size)

    def read_stdin(self, n: int = -1, timeout: float | None = None) -> bytes:
        self.stream.release_output()  # the host may wait for it before it sends more
        while not self._pending and not self._eof:
            if self._packet_left:
                data = self.stream.read(self._packet_left, timeout)
                if not data:
                    self._eof = True
                    break
                self._packet_left -= len(data)
                self._pending += data
                break
            header = self._read_exact_or_eof(_V2_HEADER.size, timeout)
            if header is None:
                self._eof = True
                break
            kind, length = _V2_HEADER.unpack(header)
            if kind == ID_STDIN:
                self._packet_left = length
            else:
                body = self._read_exact_or_eof(length, None) if length else b""
                if body is None:
                    self._eof = True
                elif kind == ID_CLOSE_STDIN:
                    self._eof = True
                # ID_WINDOW_SIZE ("rows x cols,xpix x ypix") and unknown ids are ignored
        if not self._pending:
            return b""
        k = len(self._pending) if n is None or n < 0 else min(n, len(self._pending))
        out = bytes(self._pending[:k])
        del self._pending[:k]
        return out

    def _read_exact_or_eof(self, n: int, timeout: float | None) -> bytes | None:
        buf = bytearray()
        first = True
        while len(buf) < n:
            chunk = self.stream.read(n - len(buf), timeout if first else None)
            first = False
            if not chunk:
                return None
            buf += chunk
        return bytes(buf)

    def _send(self, kind: int, data: bytes) -> None:
        view = memoryview(data)
        for off in range(0, len(view), self._chunk):
            part = view[off : off + self._chunk]
            packet = bytearray(_V2_HEADER.pack(kind, len(part)))
            packet += part
            self.stream.write(packet)

    def write_stdout(self, data: bytes) -> None:
        if data:
            self._send(ID_STDOUT, data)

    def write_stderr(self, data: bytes) -> None:
        if data:
            self._send(ID_STDERR, data)

    def send_exit(self, code: int) -> None:
        self.stream.write(_V2_HEADER.pack(ID_EXIT, 1) + bytes([code & 0xFF]))

    @property
    def closed(self) -> bool:
        return self.stream.closed

    def wait_closed(self, timeout: float | None = None) -> bool:
        return self.stream.wait_closed(timeout)


# --- services -----------------------------------------------------------------------------------------------
def parse_shell_service(service: str) -> tuple[bool, dict[str, str], str]:
    """`shell,v2,TERM=xterm,raw:ls -l` -> (v2, {"TERM": "xterm", "raw": ""}, "ls -l")."""
    head, _, command = service.partition(":")
    args = head.split(",")[1:]
    options: dict[str, str] = {}
    for a in args:
        k, _, v = a.partition("=")
        options[k] = v
    return "v2" in options, options, command


def shell_handler(model: VirtualDeviceModel, service: str) -> Callable[[Stream], None]:
    v2, options, command = parse_shell_service(service)
    note_launch(model, command)
    return partial(serve_shell, model, command, v2, options)


def wants_pty(command: str, options: dict[str, str]) -> bool:
    """adbd's choice: a PTY when asked for (`pty`), none when asked not to (`raw`), else only without a command."""
    if "pty" in options:
        return True
    return "raw" not in options and not command.strip()


def serve_shell(model: VirtualDeviceModel, command: str, v2: bool, options: dict[str, str], stream: Stream) -> None:
    io: RawShellIO | V2ShellIO = V2ShellIO(stream) if v2 else RawShellIO(stream)
    shell_io: ShellIO = Pty(io) if wants_pty(command, options) else io
    if command.strip():
        if ends_at_once(command):
            stream.hold_output()
        code = run_command(model, command, shell_io)
    else:
        code = _interactive(model, shell_io, stream)
    if isinstance(io, V2ShellIO):
        io.send_exit(code)


def serve_exec(model: VirtualDeviceModel, command: str, stream: Stream) -> None:
    if ends_at_once(command):
        stream.hold_output()
    run_command(model, command, RawShellIO(stream, stderr=False))


class _LineIO:
    """One line of an interactive session: output goes to the session, stdin is the rest of the session."""

    interactive = True  # a ^C on its terminal does not end the shell (`ProcIO.interrupt`)

    def __init__(self, session: ShellIO, reader: _LineReader) -> None:
        self._session = session
        self._reader = reader

    @property
    def is_terminal(self) -> bool:
        return isinstance(self._session, Pty)

    def typed_interrupts(self, take_in: bool = True) -> int:
        """A terminal session: how many ^C were typed (what was typed is kept for the next line)."""
        return self._session.typed_interrupts(take_in) if isinstance(self._session, Pty) else 0

    def read_stdin(self, n: int = -1, timeout: float | None = None) -> bytes:
        return self._reader.take(n, timeout)

    def write_stdout(self, data: bytes) -> None:
        self._session.write_stdout(data)

    def write_stderr(self, data: bytes) -> None:
        self._session.write_stderr(data)

    @property
    def closed(self) -> bool:
        return self._session.closed

    def wait_closed(self, timeout: float | None = None) -> bool:
        return self._session.wait_closed(timeout)


class _LineReader:
    def __init__(self, io: ShellIO) -> None:
        self.io = io
        self.buf = bytearray()
        self.eof = False

    def _fill(self, timeout: float | None = None) -> bool:
        if self.eof:
            return False
        data = self.io.read_stdin(-1, timeout)
        if not data:
            self.eof = True
            return False
        self.buf += data
        return True

    def line(self) -> bytes | None:
        while b"\n" not in self.buf and b"\r" not in self.buf:
            if not self._fill():
                if self.buf:
                    out = bytes(self.buf)
                    self.buf.clear()
                    return out
                return None
        cut = min(i for i in (self.buf.find(b"\n"), self.buf.find(b"\r")) if i >= 0)
        out = bytes(self.buf[:cut])
        del self.buf[: cut + 1]
        return out

    def take(self, n: int, timeout: float | None) -> bytes:
        if not self.buf:
            self._fill(timeout)
        k = len(self.buf) if n is None or n < 0 else min(n, len(self.buf))
        out = bytes(self.buf[:k])
        del self.buf[:k]
        return out


def prompt(model: VirtualDeviceModel, cwd: str, status: int) -> bytes:
    """Android's mksh prompt (its mkshrc): the last status when it failed, the device's code name, the working
    directory, `$` for the shell user: `1|oriole:/sdcard $ `."""
    failed = f"{status}|" if status else ""
    return f"{failed}{model.props.get('ro.product.device', 'android')}:{cwd} $ ".encode()


def _interactive(model: VirtualDeviceModel, io: ShellIO, stream: Stream) -> int:
    """`adb shell` without a command: one shell (`shell.Session`) runs each line as it arrives, in one state
    (`cd`, variables, functions carry over), until `exit` or EOF. On a terminal (`Pty`) it prompts before each
    line (`PS2`, "> ", while a compound command or a quote is open) and a ^C drops what it had read of a command;
    without one (`shell,raw:`) it prompts for nothing. A line that ends at once sends its output - and the next
    prompt - as one write when it ends, as a one-off command's does (the session stays open: no exit status or
    CLSE goes with it)."""
    from ..shell import Session

    pty = io if isinstance(io, Pty) else None
    reader = _LineReader(io)
    session = Session(model, _LineIO(io, reader))
    pending = ""
    interrupts = 0

    def ask() -> None:
        if pty is not None and session.ended is None:
            state = session.state
            pty.inner.write_stdout(b"> " if pending else prompt(model, state.cwd, state.status))

    ask()
    while session.ended is None:
        raw = reader.line()
        if pty is not None and pty.interrupts != interrupts:  # ^C: the command read so far is dropped
            interrupts, pending = pty.interrupts, ""
        if raw is None:
            if stream.closed:  # the host hung up (not just the end of its input): SIGHUP to the session
                hang_up(session)
            elif pending:
                session.run_line(pending)  # reports the syntax error
            break
        line = raw.decode("utf-8", "replace").strip()
        if not line and not pending:
            ask()
            continue
        text = pending + "\n" + line if pending else line
        if _incomplete(text):  # a compound command or quote still open: read on, as mksh's PS2 prompt does
            pending = text
            ask()
            continue
        pending = ""
        held = ends_at_once(text)
        if held:
            stream.hold_output()
        try:
            session.run_line(text)
            ask()
        finally:
            if held:
                stream.release_output()
    return session.close()


def hang_up(session: Session) -> None:
    """adbd's answer to the host closing a session: SIGHUP to the session's processes; a shell that traps it runs
    its trap (the trap may `exit`), one that does not dies of it."""
    session.proc.hang_up()
    if session.proc.pending and session.ended is None:
        session.run_line(":")  # the trap runs between commands, as mksh runs it


def _incomplete(text: str) -> bool:
    try:
        from ..shell.parser import ShellSyntaxError, parse
    except ImportError:  # pragma: no cover
        return False
    try:
        parse(text)
    except ShellSyntaxError as e:
        msg = str(e)
        return (
            msg in ("syntax error: unexpected EOF", "no closing quote")
            or msg.startswith("syntax error: unmatched")
            or msg.startswith("here document")  # a here document's body follows on the next lines
        )
    except RecursionError:
        return False
    return False
