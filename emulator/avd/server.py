"""The adb server emulators announce themselves to.

An emulator tells the adb server on `ANDROID_ADB_SERVER_PORT` (5037 when unset) that it started; adb servers also
find emulators by probing the adb ports 5555..5585. Every adb client starts a server by itself when none answers;
the harness does the same, but privately and for as long as it needs one (`adb_server_for`):

- asked for a port (`--adb-port P`): the server on P must answer (`AvdConfigError` naming the address if not);
- otherwise the user's server, on `$ANDROID_ADB_SERVER_PORT` or 5037, when it answers (it is left running);
- otherwise a private adb server on a free port (`emulator.virtual.adbserver.PrivateAdbServer`: recorded in the
  state directory, reaped if its owner is SIGKILLed), run by the SDK's `platform-tools/adb` when the SDK has one,
  else by the adb binary the harness ships (the adbutils wheel's), with the user's HOME: the emulator installs the
  user's `~/.android/adbkey.pub` in the device, so a server with another key would be refused as unauthorized.
  It is stopped when the block ends (by `adb kill-server`, then its pid).

Only the server started here is ever stopped; nothing is killed by name.
"""

from __future__ import annotations

import os
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass

from ..virtual.adbserver import AdbServerError, PrivateAdbClient, PrivateAdbServer
from .errors import AvdConfigError, SdkToolError
from .sdk import Sdk

DEFAULT_ADB_SERVER_PORT = 5037


def default_adb_server_port(env: Mapping[str, str] | None = None) -> int:
    """`$ANDROID_ADB_SERVER_PORT` (what adb itself honours), else 5037; a bad value is an `AvdConfigError`."""
    value = (os.environ if env is None else env).get("ANDROID_ADB_SERVER_PORT", "").strip()
    if not value:
        return DEFAULT_ADB_SERVER_PORT
    try:
        port = int(value)
    except ValueError:
        port = 0
    if not 0 < port < 65536:
        raise AvdConfigError(f"ANDROID_ADB_SERVER_PORT={value!r} is not a port number")
    return port


def adb_server_answers(port: int, timeout: float = 3.0) -> PrivateAdbClient | None:
    """A client of the adb server on 127.0.0.1:`port` if one answers there (never starts one), else None."""
    client = PrivateAdbClient(host="127.0.0.1", port=port, socket_timeout=timeout)
    try:
        client.server_version()
    except Exception:  # noqa: BLE001 - adbutils raises several kinds for a server that is not there
        return None
    return PrivateAdbClient(host="127.0.0.1", port=port, socket_timeout=10)


def answering_adb_server(port: int, fix: str) -> PrivateAdbClient:
    """A client of the adb server on `port` that has checked it answers; `AvdConfigError` naming the address and
    `fix` when nothing answers there. Never starts a server."""
    client = adb_server_answers(port)
    if client is None:
        raise AvdConfigError(
            f"no adb server answers on 127.0.0.1:{port}: start one (`adb -P {port} start-server`) or {fix}"
        )
    return client


@dataclass(frozen=True)
class AdbServerInUse:
    """The adb server a command uses: its port, a client of it, and the private server if this command started
    it (None: the user's, left running)."""

    port: int
    client: PrivateAdbClient
    private: PrivateAdbServer | None = None

    def describe(self) -> str:
        if self.private is None:
            return f"the adb server on 127.0.0.1:{self.port}"
        return f"a private adb server on 127.0.0.1:{self.port} (pid {self.private.pid}, {self.private.adb})"


def start_private_adb_server(sdk: Sdk) -> PrivateAdbServer:
    """A private adb server on a free port: the SDK's adb (else the harness's), the user's HOME (its adb key)."""
    home = sdk.env.get("HOME") or os.path.expanduser("~")
    srv = PrivateAdbServer(home=home)
    if sdk.adb is not None:
        srv.adb = str(sdk.adb)
    try:
        return srv.start()
    except (AdbServerError, OSError) as e:
        srv.stop()
        raise SdkToolError(f"{srv.adb}: could not start a private adb server on port {srv.port}: {e}") from None


@contextmanager
def adb_server_for(sdk: Sdk, adb_port: int | None = None, asked_by: str = "--adb-port") -> Iterator[AdbServerInUse]:
    """The adb server emulators started in this block announce themselves to (see the module's docstring):
    `adb_port` (must answer), else the user's if it answers, else a private one stopped when the block ends."""
    if adb_port is not None:
        yield AdbServerInUse(adb_port, answering_adb_server(adb_port, f"drop {asked_by} {adb_port}"))
        return
    port = default_adb_server_port(sdk.env)
    client = adb_server_answers(port)
    if client is not None:
        yield AdbServerInUse(port, client)
        return
    srv = start_private_adb_server(sdk)
    try:
        yield AdbServerInUse(srv.port, srv.client, srv)
    finally:
        srv.stop()
