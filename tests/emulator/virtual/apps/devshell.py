"""What the app tests do to a device through the session's adb server, in one place: its shell, the window in focus,
`adb root`, uiautomator2 on it, an app's SQLite file pulled and pushed as AndroidWorld moves it, and `sqlite3` run in
its shell. `adb_cli` is the `adb_cli` fixture (tests/conftest.py): the adb CLI against the private server."""

from __future__ import annotations

import posixpath
import sqlite3
import subprocess
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING

from emulator.virtual import VirtualDevice
from emulator.virtual.adbserver import PrivateAdbServer

if TYPE_CHECKING:
    import uiautomator2

AdbCli = Callable[..., subprocess.CompletedProcess]
Emu = tuple[VirtualDevice, str]  # a device posing as an emulator, and its serial (`emulator-NNNN`)


def sh(adb_cli: AdbCli, serial: str, line: str, *, stderr: bool = True) -> str:
    """`adb -s SERIAL shell LINE`, which must exit 0 -> its stdout, then its stderr unless `stderr=False`."""
    r = adb_cli("-s", serial, "shell", line)
    assert r.returncode == 0, r.stderr
    return r.stdout.decode() + (r.stderr.decode() if stderr else "")


def focus(adb_cli: AdbCli, serial: str) -> str:
    """The focused window's component, as `dumpsys window` names it in mCurrentFocus (`package/activity`)."""
    return sh(adb_cli, serial, "dumpsys window | grep mCurrentFocus").split()[-1].rstrip("}")


def root(adb_cli: AdbCli, serial: str, timeout: float = 15) -> str:
    """`adb root` (must exit 0), then waits until the shell answers as root (`id -u` is 0) -> what `adb root` said."""
    said = adb_cli("-s", serial, "root")
    assert said.returncode == 0, said.stderr
    deadline = time.monotonic() + timeout
    while True:  # adbd restarts: the shell fails or answers as the old adbd's user until the new one is up
        r = adb_cli("-s", serial, "shell", "id -u")
        if r.returncode == 0 and r.stdout.strip() == b"0":
            return said.stdout.decode()
        assert time.monotonic() < deadline, "adbd did not come back as root"
        time.sleep(0.05)


@contextmanager
def emulator_image(server: PrivateAdbServer, as_root: bool = False) -> Iterator[VirtualDevice]:
    """A device of the emulator's image connected to `server` (adbd restarted as root with `as_root`), stopped and
    disconnected on the way out: a module's device where its tests need no fresh one."""
    vd = VirtualDevice(image="emulator").start()
    vd.connect(server)
    try:
        if as_root:
            root(server.run, vd.serial)
        yield vd
    finally:
        server.disconnect(vd.address)
        vd.stop()


def u2_connect(server: PrivateAdbServer, serial: str) -> uiautomator2.Device:
    """uiautomator2 (unmodified) on the device `serial` through `server`, over the harness's adbutils device
    (`FastAdbDevice`: TCP_NODELAY on its sockets, as the harness drives phones): each RPC skips the ~44 ms the stock
    client's request body waits for the adb server's delayed ACK (tests/emulator/virtual/u2/test_u2.py drives the
    device with the stock adbutils device)."""
    import uiautomator2 as u2

    from harness.device.fastadb import FastAdbDevice

    return u2.connect(FastAdbDevice(server.client, serial))


@contextmanager
def uiautomator(server: PrivateAdbServer, serial: str) -> Iterator[uiautomator2.Device]:
    """uiautomator2 on the device `serial` through `server` (`u2_connect`), its uiautomator stopped on the way out."""
    d = u2_connect(server, serial)
    try:
        yield d
    finally:
        try:
            d.stop_uiautomator(wait=False)
        except Exception:  # noqa: BLE001 - the device may already be gone
            pass


def pull_db(adb_cli: AdbCli, serial: str, remote: str, local: Path) -> sqlite3.Connection:
    """`adb pull` of an app's SQLite file to `local` (replaced) -> a connection to the copy, rows as sqlite3.Row."""
    local.unlink(missing_ok=True)
    r = adb_cli("-s", serial, "pull", remote, str(local))
    assert r.returncode == 0, r.stderr
    conn = sqlite3.connect(local)
    conn.row_factory = sqlite3.Row
    return conn


def push_db(adb_cli: AdbCli, serial: str, local: Path, remote: str, package: str) -> None:
    """As AndroidWorld's controller pushes a database: its directory emptied, the file pushed, the app stopped."""
    sh(adb_cli, serial, f"rm -r {posixpath.dirname(remote)}/*")
    r = adb_cli("-s", serial, "push", str(local), remote)
    assert r.returncode == 0, r.stderr
    sh(adb_cli, serial, f"am force-stop {package}")


def sqlite(adb_cli: AdbCli, serial: str, db: str, sql: str) -> list[list[str]]:
    """`sqlite3 DB "SQL"` in the device's shell -> its rows, each split at `|` (empty lines left out)."""
    return [line.split("|") for line in sh(adb_cli, serial, f'sqlite3 {db} "{sql}"').splitlines() if line]
