"""`VirtualDevice`: the in-process API that starts one embedded virtual Android device.

    with VirtualDevice(profile="pixel_7_pro", locale="zh") as vd:
        print(vd.serial)          # "127.0.0.1:PORT" (or "emulator-5554" with emulator_console=True)
        vd.model.events.commands() # every program its shell ran
        vd.faults.drop_transport()

The device listens on 127.0.0.1:PORT for adb hosts (`adb connect 127.0.0.1:PORT`). With an emulator identity it
listens on the odd port of a console/adb pair (5555 for console 5554) and announces itself to the adb server,
which then lists it as `emulator-5554`. With `grpc_port` it also serves the emulator's gRPC services
(`emulator.virtual.grpc`) and writes the emulator's discovery file; `grpc_token=True` makes calls bring a token.
"""

from __future__ import annotations

import logging
import secrets
import threading
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .console import notify_adb_server
from .faults import Faults
from .memtrim import IDLE_TRIMMER
from .model import VirtualDeviceModel
from .ports import CONSOLE_PORT_MAX, CONSOLE_PORT_MIN, free_console_port
from .profiles import DEFAULT_PROFILE, get_profile

if TYPE_CHECKING:  # pragma: no cover
    import adbutils

    from .adbserver import PrivateAdbServer

log = logging.getLogger(__name__)

ANNOUNCE_DELAY = 0.3  # seconds after an adbd restart before announcing the device again


class VirtualDevice:
    def __init__(
        self,
        profile: str = DEFAULT_PROFILE,
        locale: str = "en",
        latency: str = "instant",
        port: int = 0,
        host: str = "127.0.0.1",
        auth: str = "none",
        emulator_console: bool = False,
        image: str = "phone",
        console_port: int | None = None,
        adb_server_port: int | None = None,
        avd_name: str | None = None,
        serial: str | None = None,
        console_home: str | None = None,
        grpc_port: int | None = None,
        grpc_token: bool = False,
        clock: str = "real",
        grpc_discovery: bool = True,
    ) -> None:
        if auth not in ("none", "accept", "unauthorized"):
            raise ValueError(f"unknown auth mode {auth!r}; choose none, accept or unauthorized")
        if emulator_console and console_port is None:
            console_port = free_console_port(host)  # where a restarted adb server's scan finds it again
        console_port = 5554 if console_port is None else console_port
        if emulator_console and (console_port % 2 or not CONSOLE_PORT_MIN <= console_port <= CONSOLE_PORT_MAX):
            raise ValueError(
                f"console port must be even and in {CONSOLE_PORT_MIN}..{CONSOLE_PORT_MAX}, got {console_port}"
            )
        self.host = host
        self.emulator_console = emulator_console
        self.console_port = console_port
        self.adb_server_port = adb_server_port
        self.console_home = console_home  # where ~/.emulator_console_auth_token lives (default: $HOME)
        self._requested_port = console_port + 1 if emulator_console else port
        hardware = get_profile(profile)
        self.avd_name = avd_name or hardware.model.replace(" ", "_") + "_API_" + str(hardware.api_level)
        self.model = VirtualDeviceModel(
            profile=hardware,
            # posing as an emulator, or an emulator's image on a TCP serial (`image="emulator"`): the emulator's
            # userdebug system image (`adb root` works)
            emulator_image=emulator_console or image == "emulator",
            locale=locale,
            latency=latency,
            serial=serial or (f"emulator-{console_port}" if emulator_console else "VIRTUAL0001"),
            avd_name=self.avd_name if emulator_console else None,
            clock=clock,
        )
        self.model.faults.auth_mode = auth
        self.grpc_port = grpc_port  # the emulator's gRPC door on 127.0.0.1:PORT (0 = any free port; None = none)
        self.grpc_token = secrets.token_urlsafe(24) if grpc_token else None  # calls must bring it (Bearer)
        # the emulator's discovery file names the door (False: only whoever started the device knows it)
        self.grpc_discovery = grpc_discovery
        self.snapshots: dict[str, Any] = {}  # one store for the console's `avd snapshot` and gRPC's SnapshotService
        self.discovery_file: Path | None = None
        self._server: Any = None
        self._console: Any = None
        self._grpc: Any = None
        self._stopped = threading.Event()
        self._trims = False  # holds IDLE_TRIMMER while it runs
        self.adb: Any = None  # adbutils.AdbDevice once `connect()`ed (Any: callers use it without a None check)

    def connect(self, server: PrivateAdbServer) -> adbutils.AdbDevice:
        """Connect through a `PrivateAdbServer`; returns the AdbDevice."""
        if self.emulator_console:
            self.adb = server.client.device(self.serial)
        else:
            self.adb = server.connect(self.address)
        return self.adb

    # --- lifecycle ------------------------------------------------------------------------------
    def start(self) -> VirtualDevice:
        from .transport import AdbdServer

        self._server = AdbdServer(self.model, host=self.host, port=self._requested_port)
        self._server.start()
        IDLE_TRIMMER.hold()  # its last frames' freed buffers go back to the system once it rests (memtrim)
        self._trims = True
        if self.emulator_console:
            from .console import EmulatorConsole

            self._console = EmulatorConsole(
                self.model,
                self.avd_name,
                self.console_port,
                on_kill=self.stop,
                host=self.host,
                home=self.console_home,
                snapshots=self.snapshots,
            ).start()
            if self.adb_server_port:
                notify_adb_server(self.port, self.adb_server_port)
                self.model.adbd.on_restart(self._announce_again)
        if self.grpc_port is not None:
            try:
                self._start_grpc()
            except OSError:
                self.stop()
                raise
        log.info(
            "virtual device %s (%s) listening on %s:%d", self.serial, self.model.profile.model, self.host, self.port
        )
        return self

    def _start_grpc(self) -> None:
        from emulator.grpcproto import discovery

        from .grpc.server import GrpcServer

        assert self.grpc_port is not None
        self._grpc = GrpcServer(
            self.model, self.snapshots, self.avd_name, self.grpc_port, host=self.host, token=self.grpc_token
        ).start()
        if not self.grpc_discovery:
            return
        self.discovery_file = discovery.write(
            discovery.entries(
                self.console_port if self.emulator_console else 0,
                self.port,
                self.avd_name,
                self._grpc.port,
                self.grpc_token,
            )
        )

    @property
    def grpc_address(self) -> str | None:
        """host:port of the gRPC door once started (None without one)."""
        return f"{self.host}:{self._grpc.port}" if self._grpc is not None else None

    def _announce_again(self) -> None:
        """After adbd restarted (`adb root`): tell the adb server again, as the emulator does when its adbd comes
        back (the server also retries an emulator's adb port on its own)."""
        time.sleep(ANNOUNCE_DELAY)
        if not self._stopped.is_set() and self.adb_server_port:
            notify_adb_server(self.port, self.adb_server_port)

    def stop_grpc(self) -> None:
        """Close the gRPC door alone (a fault: an emulator whose gRPC server died); the discovery file stays, as a
        crashed server leaves it, and the device goes on on its other doors."""
        if self._grpc is not None:
            self._grpc.stop()

    def stop(self) -> None:
        if self._stopped.is_set():
            return
        self._stopped.set()
        if self._grpc is not None:
            from emulator.grpcproto import discovery

            self._grpc.stop()
            if self.discovery_file is not None:
                discovery.remove(self.discovery_file)
        self.model.latency.cancel_all()
        self.model.faults.kill_u2()
        if self._trims:
            self._trims = False
            IDLE_TRIMMER.release()
        if self._console is not None:
            self._console.stop()
        if self._server is not None:
            self._server.stop()

    def wait(self, timeout: float | None = None) -> bool:
        """Block until stopped (e.g. by the console's `kill`)."""
        return self._stopped.wait(timeout)

    def __enter__(self) -> VirtualDevice:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    # --- identity -------------------------------------------------------------------------------
    @property
    def port(self) -> int:
        return self._server.port if self._server is not None else self._requested_port

    @property
    def address(self) -> str:
        """What `adb connect` takes."""
        return f"{self.host}:{self.port}"

    @property
    def serial(self) -> str:
        """The serial the adb server lists it under."""
        return f"emulator-{self.console_port}" if self.emulator_console else self.address

    @property
    def faults(self) -> Faults:
        return self.model.faults

    def __repr__(self) -> str:
        return f"VirtualDevice({self.model.profile.name}, {self.serial})"
