"""AVD copies for a run: `droidharness run --avd NAME --devices N` starts N read-only copies of one AVD headless
(`emulator.avd.start_avd_copies`), each with the emulator's gRPC door on a free port (`-grpc PORT`), waits for each
to boot, runs the suite on them by serial - the device pool finds each door from the copy's discovery file, takes
screenshots and input through it where that is faster and resets each copy between episodes by loading a boot
snapshot through it (on the console without one) - and stops them afterwards, whatever happened.

The copies announce themselves to an adb server (`emulator.avd.server.adb_server_for`): the one on `--adb-port`
when asked (it must answer), else the user's on `$ANDROID_ADB_SERVER_PORT` / 5037 when it answers, else a private
one started for the run and stopped after it (the SDK's adb, or the one the harness ships). For the run, this
process's adb clients use that server: `ANDROID_ADB_SERVER_PORT` is set to its port while the copies run and
restored afterwards."""

from __future__ import annotations

import logging
import os
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager

from emulator.avd import find_sdk, require_avd, start_avd_copies
from emulator.avd.errors import AvdError, SdkNotFoundError
from emulator.avd.server import adb_server_for
from harness.errors import ConfigError, DeviceError, HarnessError
from harness.run.fleet.phone import refuse_clock

log = logging.getLogger(__name__)


def as_harness_error(e: AvdError) -> HarnessError:
    """Bad input or setup -> `ConfigError`; an emulator that fails -> `DeviceError` (an infrastructure failure)."""
    return ConfigError(str(e)) if e.bad_input else DeviceError(str(e))


@contextmanager
def adb_server_port_set(port: int) -> Iterator[None]:
    """`ANDROID_ADB_SERVER_PORT=port` in this process for the block (the device layer's adb clients read it)."""
    old = os.environ.get("ANDROID_ADB_SERVER_PORT")
    os.environ["ANDROID_ADB_SERVER_PORT"] = str(port)
    try:
        yield
    finally:
        if old is None:
            os.environ.pop("ANDROID_ADB_SERVER_PORT", None)
        else:
            os.environ["ANDROID_ADB_SERVER_PORT"] = old


@contextmanager
def avd_copies(
    name: str, n: int, adb_port: int | None = None, timeout: float = 300.0, clock: str = "real"
) -> Iterator[list[str]]:
    """Start `n` read-only copies of AVD `name`, yield their serials once all booted, stop them at the end (and
    the private adb server, if the run started one). An emulator keeps its own time: `clock` other than `real`
    is a `ConfigError`, before anything starts."""
    if clock != "real":
        raise ConfigError(refuse_clock(f"the copies of AVD {name} keep their", clock))
    with ExitStack() as stack:
        try:
            sdk = find_sdk(dict(os.environ))
            if not sdk.found:
                raise SdkNotFoundError(
                    f"--avd {name}: no Android SDK found ({sdk.problems.get('emulator', 'not found')}); "
                    "set ANDROID_HOME"
                )
            sdk.require("emulator")
            require_avd(sdk, name)
            server = stack.enter_context(adb_server_for(sdk, adb_port))
            log.info("--avd %s: the copies announce themselves to %s", name, server.describe())
            emus = start_avd_copies(sdk, name, n, server.port, server.client, timeout=timeout, grpc=True)
        except AvdError as e:
            raise as_harness_error(e) from None

        @stack.callback
        def stop_copies() -> None:
            for emu in emus:
                try:
                    emu.stop(timeout=10)
                except AvdError as e:
                    log.warning("stopping %s: %s", emu.serial, e)

        stack.enter_context(adb_server_port_set(server.port))
        yield [emu.serial for emu in emus]
