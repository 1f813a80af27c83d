"""Reaching a device, written once: the adb server a serial is on, the embedded virtual device started behind a
private adb server, a started `Link` on a serial, an emulator's console, and a device's preparation.

`AdbDevice.connect` (harness.device.controller) builds its device over a `Connection` from here, the doctor
(harness.device.doctor) checks the devices it reaches here, and the device pool's backends (harness.run.fleet)
open their devices here. This module sits below the controller: it opens links, never an `AdbDevice`.

    conn = connect_serial("R58M123ABC", LinkConfig())      # a phone or an emulator on the adb server
    conn = start_owned_virtual(LinkConfig())               # a private adb server + an embedded device (owned)
    vd = start_embedded(server, serial="VIRTUAL0001")      # an embedded device connected to a private server
    conn = link_embedded(server, vd.address, LinkConfig())
    console = emulator_console("emulator-5554")             # its console, a boot snapshot saved; None: none answers
"""

from __future__ import annotations

import logging
import os
import re
import socket
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import adbutils

from harness.device.link import Link, LinkConfig
from harness.device.preparation import DevicePreparation, PreparationPlan
from harness.device.prepare import Preparable, prepare
from harness.errors import ConfigError, DeviceError

if TYPE_CHECKING:
    from emulator.avd.console import EmulatorConsoleClient
    from emulator.virtual import VirtualDevice
    from emulator.virtual.adbserver import PrivateAdbServer

log = logging.getLogger(__name__)
EMULATOR_SERIAL = re.compile(r"^emulator-(\d+)$")  # a running emulator: its console is on port NNNN
BOOT_SNAPSHOT = "droidharness-boot"  # the snapshot an emulator's console saves when it is opened, loaded on reset


# --- the adb server ---------------------------------------------------------------------------------------------
def adb_server_address(host: str | None, port: int | None) -> tuple[str, int]:
    """The adb server to use: the given host and port, else $ANDROID_ADB_SERVER_HOST / $ANDROID_ADB_SERVER_PORT,
    else 127.0.0.1:5037."""
    host = host or os.environ.get("ANDROID_ADB_SERVER_HOST") or "127.0.0.1"
    if port is None:
        env = os.environ.get("ANDROID_ADB_SERVER_PORT")
        try:
            port = int(env) if env else 5037
        except ValueError:
            raise ConfigError(f"ANDROID_ADB_SERVER_PORT={env!r} is not a port number") from None
    return host, port


def adb_server_running(host: str, port: int) -> bool:
    """True when something accepts connections at the adb server address (adbutils would otherwise start a
    server by itself)."""
    try:
        with socket.create_connection((host, port), timeout=0.5):
            return True
    except OSError:
        return False


def adb_client(host: str, port: int, timeout: float) -> adbutils.AdbClient:
    """A client of the adb server at host:port, which must be running (none is ever started here)."""
    if not adb_server_running(host, port):
        raise DeviceError(
            f"no adb server is running at {host}:{port} (start one with `adb start-server`, or "
            "connect without a serial to use the embedded virtual device)"
        )
    return adbutils.AdbClient(host=host, port=port, socket_timeout=timeout)


def only_device(client: adbutils.AdbClient, host: str, port: int) -> str:
    """The serial of the one device in the `device` state on the adb server (none, or several, is an error)."""
    ready = [d.serial for d in client.list() if d.state == "device"]
    if not ready:
        raise DeviceError(f"no device is connected to the adb server at {host}:{port}")
    if len(ready) > 1:
        raise ConfigError(f"several devices on the adb server at {host}:{port} ({', '.join(ready)}): pass serial=...")
    return ready[0]


# --- connections ------------------------------------------------------------------------------------------------
@dataclass
class Connection:
    """A started `Link` to one device and what closing the device undoes after the link is closed (`cleanup`, run
    last to first); `virtual`: the embedded device behind it, if any (the device's `virtual`)."""

    link: Link
    cleanup: list[Callable[[], None]] = field(default_factory=list)
    virtual: VirtualDevice | None = None

    def close(self) -> None:
        """Close the link, then undo the rest (a connection whose device could not be built on it)."""
        teardown([self.link.close, *self.cleanup])


def teardown(steps: list[Callable[[], None]]) -> None:
    """Run `steps` last to first, each whatever the others did (best effort: failures are logged)."""
    for fn in reversed(steps):
        try:
            fn()
        except Exception as e:  # noqa: BLE001 - best effort teardown
            log.debug("cleanup: %s", e)


def open_link(client: adbutils.AdbClient, serial: str, config: LinkConfig) -> Link:
    """A started `Link` to `serial` (a TCP serial is `adb connect`ed; uiautomator2 launched unless `use_u2=False`);
    closed again when it does not start."""
    link = Link(client, serial, config)
    try:
        return link.start()
    except BaseException:
        link.close()
        raise


def connect_serial(
    serial: str | None, config: LinkConfig, host: str | None = None, port: int | None = None
) -> Connection:
    """A connection to `serial` (None: the only device) on the adb server at host:port (default: the
    environment's, `adb_server_address`). Nothing is started, and closing it only closes the link. An emulator
    whose discovery file names a gRPC door that answers gets it on its link (`attach_emulator_grpc`)."""
    host, port = adb_server_address(host, port)
    client = adb_client(host, port, config.call_timeout)
    link = open_link(client, serial or only_device(client, host, port), config)
    attach_emulator_grpc(link)
    return Connection(link)


def attach_emulator_grpc(link: Link) -> None:
    """Give an `emulator-NNNN`'s link the client of its gRPC door, found from the emulator's discovery file
    (harness.device.grpc_link; grpcio imported only then); nothing for another serial or an emulator without one."""
    if emulator_port(link.serial) is None:
        return
    from harness.device.grpc_link import open_discovered

    client = open_discovered(link.serial)
    if client is not None:
        log.info("%s: using its gRPC door at %s", link.serial, client.endpoint.address)
        link.attach_grpc(client)


def grpc_available() -> bool:
    """Whether grpcio is installed (the `grpc` and `gym` extras): a device asked for its gRPC door without it
    goes on without one."""
    import importlib.util

    return importlib.util.find_spec("grpc") is not None


def attach_embedded_grpc(link: Link, address: str | None, token: str | None) -> None:
    """Give an embedded device's link the client of the gRPC door it was started with (`address` host:port; None:
    none), for its screenshots only: input keeps to adb's paths, as the device's episodes are run without the door
    (and a gesture held through gRPC would hold host time, which a virtual clock does not pass). A door that does not
    answer is logged and left unused."""
    if address is None:
        return
    from harness.device.grpc_link import EmulatorGrpc, GrpcEndpoint

    host, _, port = address.rpartition(":")
    client = EmulatorGrpc(GrpcEndpoint(int(port), token, host), link.serial)
    client.drives_input = False
    try:
        link.attach_grpc(client.open())
    except DeviceError as e:
        client.close()
        log.warning("%s: its gRPC door at %s is not used: %s", link.serial, address, e)


def start_embedded(
    server: PrivateAdbServer,
    *,
    profile: str = "medium_phone",
    locale: str = "en",
    latency: str = "instant",
    serial: str | None = None,
    clock: str = "real",
    image: str = "phone",
    grpc: bool = False,
) -> VirtualDevice:
    """An embedded virtual device on `clock` (real, or virtual: simulated time), started and connected to
    `server` (as a TCP serial); stopped again when it does not connect (a `DeviceError` naming it and its adb
    state). With `grpc` it also serves the emulator's gRPC door on a free port, with a token and no discovery
    file (`attach_embedded_grpc` gives it to the device's link)."""
    from emulator.virtual import VirtualDevice

    vd = VirtualDevice(
        profile=profile,
        locale=locale,
        latency=latency,
        serial=serial,
        clock=clock,
        image=image,
        grpc_port=0 if grpc and grpc_available() else None,
        grpc_token=grpc,
        grpc_discovery=False,
    ).start()
    try:
        server.connect(vd.address)
    except BaseException as e:
        state = server.state(vd.serial) or "absent"
        vd.stop()
        if isinstance(e, Exception) and not isinstance(e, DeviceError):
            raise DeviceError(f"the embedded device {vd.serial} did not connect: {e} (state {state})") from e
        raise
    return vd


def link_embedded(server: PrivateAdbServer, address: str, config: LinkConfig) -> Connection:
    """A connection to the embedded device at `address` (connected to `server`, which is asked to connect it
    again if needed); closing it disconnects the device from the server."""
    link = open_link(server.client, address, config)
    return Connection(link, [lambda: server.disconnect(address)])


def start_owned_virtual(
    config: LinkConfig,
    profile: str = "medium_phone",
    locale: str = "en",
    latency: str = "instant",
    clock: str = "real",
) -> Connection:
    """A private adb server and an embedded virtual device on `clock` behind it, both owned by the connection
    (closing it stops them)."""
    from emulator.virtual.adbserver import PrivateAdbServer

    cleanup: list[Callable[[], None]] = []
    try:
        server = PrivateAdbServer().start()
        cleanup.append(server.stop)
        vd = start_embedded(server, profile=profile, locale=locale, latency=latency, clock=clock)
        cleanup.append(vd.stop)
        conn = link_embedded(server, vd.address, config)
    except BaseException:
        teardown(cleanup)
        raise
    conn.cleanup[:0] = cleanup
    conn.virtual = vd
    return conn


# --- an emulator's console, a device's preparation ------------------------------------------------------------
def emulator_port(serial: str) -> int | None:
    """The console port of an `emulator-NNNN` serial; None for any other serial."""
    m = EMULATOR_SERIAL.match(serial)
    return int(m.group(1)) if m else None


def emulator_console(
    serial: str, snapshot: str | None = BOOT_SNAPSHOT, timeout: float = 60.0
) -> EmulatorConsoleClient | None:
    """The console of the emulator `serial` with `snapshot` saved on it (the state resets load; None: connected
    only); None when the serial is no emulator's or its console does not answer (or its auth token file does not
    open it)."""
    from emulator.avd.console import EmulatorConsoleClient
    from emulator.avd.errors import AvdError

    port = emulator_port(serial)
    if port is None:
        return None
    console: EmulatorConsoleClient | None = None
    try:
        console = EmulatorConsoleClient(port, timeout=timeout)
        console.connect()
        if snapshot is not None:
            console.snapshot_save(snapshot)
    except AvdError as e:
        if console is not None:
            console.close()
        log.warning("%s: no usable emulator console on port %d (%s); resetting by app data clear", serial, port, e)
        return None
    return console


def prepare_device(device: Preparable, plan: PreparationPlan) -> DevicePreparation:
    """Prepare `device` for a reproducible run (harness.device.prepare), saying what could not be set."""
    rec = prepare(device, plan)
    for r in rec.not_set:
        log.warning("%s: preparation could not set %s: %s", rec.serial, r.name, r.reason)
    return rec
