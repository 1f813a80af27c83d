"""A client of the Android Emulator console: the telnet-style text protocol on the even port (5554, ...).

    with EmulatorConsoleClient(5554) as c:   # reads the banner, authenticates if the banner asks to
        c.avd_name()                          # "Pixel_7_Pro_API_34"
        c.snapshot_save("clean"); c.snapshot_load("clean"); c.snapshot_list(); c.snapshot_delete("clean")
        c.kill()

Every reply ends with a line starting "OK" or "KO"; a KO is a `ConsoleError` naming the port and the command.
The auth token is the content of `~/.emulator_console_auth_token` (the emulator creates it; an empty file turns
authentication off). A wrong token is `ConsoleAuthError`, nothing listening is `ConsoleRefusedError`.
"""

from __future__ import annotations

import os
import socket
from pathlib import Path

from .errors import AvdConfigError, ConsoleAuthError, ConsoleError, ConsoleRefusedError


def auth_token_file(home: str | Path | None = None) -> Path:
    return Path(home if home is not None else os.path.expanduser("~")) / ".emulator_console_auth_token"


def read_auth_token(home: str | Path | None = None) -> str | None:
    """The console auth token, or None when the file does not exist."""
    try:
        return auth_token_file(home).read_text().strip()
    except FileNotFoundError:
        return None


class EmulatorConsoleClient:
    """One console connection. `token=None` reads it from `home`'s (default: the user's) token file."""

    def __init__(
        self,
        port: int,
        host: str = "127.0.0.1",
        token: str | None = None,
        home: str | Path | None = None,
        timeout: float = 10.0,
    ) -> None:
        if not 1 <= port <= 65535:
            raise AvdConfigError(f"console port {port} is not a TCP port")
        self.port = port
        self.host = host
        self.timeout = timeout
        self._token = token
        self._home = home
        self._sock: socket.socket | None = None
        self._buf = b""

    # --- connection ----------------------------------------------------------------------------
    def connect(self) -> EmulatorConsoleClient:
        try:
            self._sock = socket.create_connection((self.host, self.port), timeout=self.timeout)
        except ConnectionRefusedError:
            raise ConsoleRefusedError(
                f"emulator console {self.host}:{self.port}: connection refused "
                "(no emulator runs with this console port)"
            ) from None
        except OSError as e:
            raise ConsoleError(f"emulator console {self.host}:{self.port}: cannot connect: {e}") from None
        banner = self._reply("(banner)")
        if any("Authentication required" in line for line in banner):
            self._authenticate()
        return self

    def _authenticate(self) -> None:
        token = self._token if self._token is not None else read_auth_token(self._home)
        where = auth_token_file(self._home)
        if not token:
            raise ConsoleAuthError(
                f"emulator console {self.host}:{self.port} requires authentication, but {where} is missing or empty"
            )
        try:
            self._command(f"auth {token}", "auth")
        except ConsoleAuthError:
            raise
        except ConsoleError as e:
            raise ConsoleAuthError(
                f"emulator console {self.host}:{self.port}: auth token rejected (read from "
                f"{where}): {e.args[0].rsplit(': ', 1)[-1]}"
            ) from None

    def close(self) -> None:
        if self._sock is not None:
            try:
                self._sock.sendall(b"quit\r\n")
            except OSError:
                pass
            self._sock.close()
            self._sock = None

    def __enter__(self) -> EmulatorConsoleClient:
        return self.connect() if self._sock is None else self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # --- protocol ------------------------------------------------------------------------------
    def _readline(self, what: str) -> str | None:
        assert self._sock is not None
        while b"\n" not in self._buf:
            try:
                chunk = self._sock.recv(4096)
            except TimeoutError:
                raise ConsoleError(
                    f"emulator console {self.host}:{self.port}: no answer to {what!r} in {self.timeout:g}s"
                ) from None
            except OSError as e:
                raise ConsoleError(f"emulator console {self.host}:{self.port}: {what!r}: {e}") from None
            if not chunk:
                if self._buf:
                    line, self._buf = self._buf, b""
                    return line.decode(errors="replace").rstrip("\r\n")
                return None
            self._buf += chunk
        line, _, self._buf = self._buf.partition(b"\n")
        return line.decode(errors="replace").rstrip("\r")

    def _reply(self, what: str) -> list[str]:
        """Lines up to the closing OK line (which is not returned); a KO line raises."""
        lines: list[str] = []
        while True:
            line = self._readline(what)
            if line is None:
                raise ConsoleError(f"emulator console {self.host}:{self.port}: closed the connection during {what!r}")
            if line.startswith("OK"):
                rest = line[2:].lstrip(": ").strip()
                return lines + ([rest] if rest else [])
            if line.startswith("KO"):
                raise ConsoleError(f"emulator console {self.host}:{self.port}: {what}: {line[2:].lstrip(': ')}")
            lines.append(line)

    def _command(self, line: str, what: str | None = None) -> list[str]:
        if self._sock is None:
            self.connect()
        assert self._sock is not None
        if "\n" in line or "\r" in line:
            raise AvdConfigError(f"console command {line!r}: one line only")
        try:
            self._sock.sendall(line.encode() + b"\r\n")
        except OSError as e:
            raise ConsoleError(f"emulator console {self.host}:{self.port}: {what or line!r}: {e}") from None
        return self._reply(what or line)

    def command(self, line: str) -> list[str]:
        """Any console command; the reply's lines without the closing OK."""
        return self._command(line)

    # --- commands ------------------------------------------------------------------------------
    def avd_name(self) -> str:
        lines = self._command("avd name")
        if not lines:
            raise ConsoleError(f"emulator console {self.host}:{self.port}: 'avd name' answered nothing")
        return lines[0].strip()

    def _snapshot(self, sub: str, name: str) -> None:
        if not name or any(c.isspace() for c in name):
            raise AvdConfigError(f"snapshot name {name!r}: one word, not empty")
        self._command(f"avd snapshot {sub} {name}")

    def snapshot_save(self, name: str) -> None:
        self._snapshot("save", name)

    def snapshot_load(self, name: str) -> None:
        self._snapshot("load", name)

    def snapshot_delete(self, name: str) -> None:
        self._snapshot("delete", name)

    def snapshot_list(self) -> list[str]:
        """The snapshots' tags (the second column of the emulator's table)."""
        names: list[str] = []
        for line in self._command("avd snapshot list"):
            cols = line.split()
            if len(cols) >= 2 and cols[0] != "ID" and not line.startswith(("List of", "There is no")):
                names.append(cols[1])
        return names

    def kill(self) -> None:
        """Ask the emulator to exit (the console closes right after its OK)."""
        try:
            self._command("kill")
        except ConsoleError as e:
            if "closed the connection" not in str(e):
                raise
        finally:
            if self._sock is not None:
                self._sock.close()
                self._sock = None
