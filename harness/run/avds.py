"""AVD copies for a run: `droidharness run --avd NAME --devices N` starts N read-only copies of one AVD headless
(`emulator.avd.start_avd_copies`), waits for each to boot, runs the suite on them by serial - the device pool
resets each one between episodes by loading a boot snapshot on its console - and stops them afterwards, whatever
happened. The copies announce themselves to the adb server on `adb_port` (the user's, normally 5037: asking for an
AVD run is asking for the system adb server)."""

from __future__ import annotations

import logging
import os
from collections.abc import Iterator
from contextlib import contextmanager

from emulator.avd import find_sdk, require_avd, start_avd_copies
from emulator.avd.errors import AvdConfigError, AvdError, SdkNotFoundError
from emulator.virtual.adbserver import PrivateAdbClient
from harness.errors import ConfigError, DeviceError, HarnessError

log = logging.getLogger(__name__)


def as_harness_error(e: AvdError) -> HarnessError:
    """Bad input or setup -> `ConfigError`; an emulator that fails -> `DeviceError` (an infrastructure failure)."""
    return ConfigError(str(e)) if e.bad_input else DeviceError(str(e))


def adb_server_port() -> int:
    return int(os.environ.get("ANDROID_ADB_SERVER_PORT") or 5037)


def answering_adb_server(port: int, fix: str) -> PrivateAdbClient:
    """A client of the adb server on `port` that has checked it answers (emulators announce themselves to it);
    `AvdConfigError` naming the address and `fix` when nothing answers there. Never starts a server."""
    client = PrivateAdbClient(host="127.0.0.1", port=port, socket_timeout=10)
    try:
        client.server_version()
    except Exception as e:  # noqa: BLE001 - adbutils raises several kinds for a server that is not there
        raise AvdConfigError(
            f"no adb server on 127.0.0.1:{port} ({type(e).__name__}): start one (`adb start-server`) or {fix}"
        ) from None
    return client


@contextmanager
def avd_copies(name: str, n: int, adb_port: int | None = None, timeout: float = 300.0) -> Iterator[list[str]]:
    """Start `n` read-only copies of AVD `name`, yield their serials once all booted, stop them at the end."""
    port = adb_port or adb_server_port()
    try:
        sdk = find_sdk(dict(os.environ))
        if not sdk.found:
            raise SdkNotFoundError(
                f"--avd {name}: no Android SDK found ({sdk.problems.get('emulator', 'not found')}); set ANDROID_HOME"
            )
        sdk.require("emulator")
        require_avd(sdk, name)
        client = answering_adb_server(port, f"set ANDROID_ADB_SERVER_PORT (--avd {name})")
        emus = start_avd_copies(sdk, name, n, port, client, timeout=timeout)
    except AvdError as e:
        raise as_harness_error(e) from None
    try:
        yield [emu.serial for emu in emus]
    finally:
        for emu in emus:
            try:
                emu.stop(timeout=10)
            except AvdError as e:
                log.warning("stopping %s: %s", emu.serial, e)
