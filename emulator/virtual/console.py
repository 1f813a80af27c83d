"""The emulator console (telnet text protocol on the even port, e.g. 5554) of a virtual device with an
emulator identity, so AVD snapshot-reset code can be tested without an emulator.

Supported: `auth TOKEN`, `help [COMMAND]`, `avd name`, `avd status`, `avd snapshot save|load|list|delete NAME`,
`kill`, `ping`, `quit`/`exit`, and the commands that change what Android shows (`sms`, `gsm`, `geo`, `power`,
`rotate`, `network`: `console_commands`). The token lives in `~/.emulator_console_auth_token` (created when
missing, as the emulator does); an empty token file means no authentication is required.
"""

from __future__ import annotations

import logging
import os
import secrets
import socket
import tempfile
import threading
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .console_commands import help_text
from .console_commands import run as run_console_command

if TYPE_CHECKING:  # pragma: no cover
    from .model import VirtualDeviceModel

log = logging.getLogger(__name__)


def auth_token_path(home: str | None = None) -> Path:
    return Path(home or os.path.expanduser("~")) / ".emulator_console_auth_token"


def load_or_create_token(path: Path) -> str:
    """The console's auth token: the file's, or a new one written there when there is none. Emulators started
    together share one home: the new token is written whole to a private file first and linked into place only
    if no other emulator got there first (then that one's token is everyone's), so none of them keeps a token the
    file does not hold and none reads a half-written file."""
    try:
        return path.read_text().strip()
    except FileNotFoundError:
        pass
    fd, tmp = tempfile.mkstemp(prefix=path.name + ".", dir=path.parent)  # mode 0600
    try:
        with os.fdopen(fd, "w") as f:
            f.write(secrets.token_urlsafe(12))
        try:
            os.link(tmp, path)
        except FileExistsError:
            pass  # another emulator created it meanwhile: its token is the one
    finally:
        os.unlink(tmp)
    return path.read_text().strip()


def notify_adb_server(adb_port: int, server_port: int, host: str = "127.0.0.1") -> bool:
    """Tell a running adb server about a new emulator (`host:emulator:PORT`), as the emulator does at boot."""
    msg = f"host:emulator:{adb_port}".encode()
    try:
        with socket.create_connection((host, server_port), timeout=3) as s:
            s.sendall(b"%04x" % len(msg) + msg)
            s.settimeout(1)
            try:
                s.recv(4)
            except OSError:
                pass
        return True
    except OSError:
        return False


class EmulatorConsole:
    """Line-based console server. `on_kill` is called for `kill` (the VirtualDevice stops itself)."""

    def __init__(
        self,
        model: VirtualDeviceModel,
        avd_name: str,
        port: int,
        on_kill: Callable[[], None],
        host: str = "127.0.0.1",
        home: str | None = None,
        snapshots: dict[str, Any] | None = None,
    ) -> None:
        self.model = model
        self.avd_name = avd_name
        self.port = port
        self.host = host
        self.on_kill = on_kill
        self.token_path = auth_token_path(home)
        self.token = load_or_create_token(self.token_path)
        self.snapshots: dict[str, Any] = {} if snapshots is None else snapshots  # shared with gRPC's SnapshotService
        self._sock: socket.socket | None = None
        self._stop = threading.Event()
        self._threads: list[threading.Thread] = []

    def start(self) -> EmulatorConsole:
        s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        s.bind((self.host, self.port))
        s.listen(8)
        self._sock = s
        t = threading.Thread(target=self._accept_loop, name=f"console-{self.port}", daemon=True)
        t.start()
        self._threads.append(t)
        return self

    @property
    def bound_port(self) -> int:
        """The port it listens on (the one the OS chose when `port` was 0); 0 before `start()`."""
        return self._sock.getsockname()[1] if self._sock is not None else 0

    def stop(self) -> None:
        """Stop listening: shut the listener down before closing it - closing alone does not wake the thread blocked
        in accept(), and the port would go on listening until the process ends."""
        self._stop.set()
        if self._sock is not None:
            try:
                self._sock.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
            try:
                self._sock.close()
            except OSError:
                pass

    def _accept_loop(self) -> None:
        assert self._sock is not None
        while not self._stop.is_set():
            try:
                conn, _ = self._sock.accept()
            except OSError:
                return
            t = threading.Thread(target=self._serve, args=(conn,), daemon=True)
            t.start()

    def _serve(self, conn: socket.socket) -> None:
        authed = not self.token
        with conn:
            f = conn.makefile("rwb", buffering=0)

            def say(text: str) -> None:
                f.write(text.replace("\n", "\r\n").encode())

            if authed:
                say("Android Console: type 'help' for a list of commands\nOK\n")
            else:
                say(
                    "Android Console: Authentication required\n"
                    "Android Console: type 'auth <auth_token>' to authenticate\n"
                    f"Android Console: you can find your <auth_token> in \n'{self.token_path}'\nOK\n"
                )
            while not self._stop.is_set():
                try:
                    line = f.readline()
                except OSError:
                    return
                if not line:
                    return
                text = line.decode(errors="replace").strip()
                words = text.split()
                if not words:
                    continue
                if words[0] == "auth":
                    if len(words) == 2 and secrets.compare_digest(words[1], self.token or ""):
                        authed = True
                        say("Android Console: type 'help' for a list of commands\nOK\n")
                    else:
                        say("KO: authentication token does not match ~/.emulator_console_auth_token\n")
                    continue
                if words[0] in ("quit", "exit"):
                    return
                if not authed:
                    say("KO: unknown command, try 'help'\n")
                    continue
                reply, kill = self.execute(text)
                try:
                    say(reply)
                except OSError:
                    return
                if kill:
                    self.on_kill()
                    return

    def execute(self, line: str) -> tuple[str, bool]:
        """One console command -> (reply text ending in OK/KO line, whether to kill the emulator)."""
        words = line.split()
        cmd = words[0] if words else ""
        if cmd in ("help", "h", "?"):
            return help_text(words[1] if len(words) > 1 else None), False
        reply = run_console_command(self.model, line)
        if reply is not None:
            return reply, False
        if cmd == "ping":
            return "I am alive!\nOK\n", False
        if cmd == "kill":
            self.model.events.log("console", command="kill")
            return "OK: killing emulator, bye bye\n", True
        if cmd == "avd":
            return self._avd(words[1:]), False
        return "KO: unknown command, try 'help'\n", False

    def _avd(self, args: list[str]) -> str:
        if not args:
            return "KO: missing sub-command\n"
        if args[0] == "name":
            return f"{self.avd_name}\nOK\n"
        if args[0] == "status":
            return "virtual device is running\nOK\n"
        if args[0] != "snapshot" or len(args) < 2:
            return "KO: bad sub-command\n"
        sub, name = args[1], (args[2] if len(args) > 2 else "")
        self.model.events.log("console", command=f"avd snapshot {sub}", name=name)
        if sub == "list":
            if not self.snapshots:
                return "There is no snapshot available.\nOK\n"
            rows = ["List of snapshots present on all disks:", "ID        TAG                 VM SIZE"]
            rows += [f"--        {n:<19} 0 B" for n in self.snapshots]
            return "\n".join(rows) + "\nOK\n"
        if not name:
            return f"KO: missing snapshot name for 'avd snapshot {sub}'\n"
        if sub == "save":
            self.snapshots[name] = self.model.snapshot()
            return "OK\n"
        if sub == "load":
            snap = self.snapshots.get(name)
            if snap is None:
                return f"KO: snapshot '{name}' does not exist\n"
            self.model.restore(snap)
            return "OK\n"
        if sub == "delete":
            if self.snapshots.pop(name, None) is None:
                return f"KO: snapshot '{name}' does not exist\n"
            return "OK\n"
        return f"KO: unknown snapshot sub-command '{sub}'\n"
