"""Shared fixtures: a private, real adb server per test session, and virtual devices connected through it."""

from __future__ import annotations

import os
import subprocess
import time
import warnings
from collections.abc import Callable, Iterator

import pytest
from hypothesis import settings

from emulator.virtual import VirtualDevice
from emulator.virtual.adbserver import PrivateAdbServer
from tests.device_util import free_console_port

# Property tests have no wall-clock deadline: a first example that imports scipy, or any example on a loaded CI
# machine, may take longer than Hypothesis' default 200 ms without being wrong (tests bound time through injected
# clocks, never the host's).
settings.register_profile("droidharness", deadline=None)
settings.load_profile("droidharness")

# Emulators started by tests (emulator/avd) use console ports no adb server probes (5555..5585 are), so no other
# test's private adb server ever lists them; they announce themselves to their own test's server.
os.environ["DROIDHARNESS_EMULATOR_PORTS"] = "5600-5680"


@pytest.hookimpl(tryfirst=True)  # before xdist's own hook reads the groups (`--dist loadgroup`)
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Every test that talks to the session's real adb server (directly or through a device fixture built on it)
    is an integration test; modules that start their own devices or processes say so with `pytestmark`.

    Under xdist (`make test`: `-n WORKERS --dist loadgroup`) the Ray tests are one group, so one worker
    runs them one after the other (never two Ray instances on the machine's cores at once), and a worker process
    runs the groups (tests sharing a worker's work, such as one walk of the screens) and the slow tests first, the
    quick ones last: no long test starts when the other workers are about to finish."""
    for item in items:
        if "adb_server" in getattr(item, "fixturenames", ()):
            item.add_marker(pytest.mark.integration)
        if item.get_closest_marker("ray") is not None:
            item.add_marker(pytest.mark.xdist_group("ray"))
    if hasattr(config, "workerinput"):  # an xdist worker: the controller hands the tests out in this order
        items.sort(key=_run_order)


@pytest.hookimpl(trylast=True)  # after xdist's hook, which names each grouped test's group in its node id
def pytest_collection_finish(session: pytest.Session) -> None:
    """A worker under `--dist loadgroup` whose grouped tests carry no group in their node id hands them out one by
    one (pytest-xdist issue 1386, on pytest 9.2): say so instead of running slower without a word."""
    if not hasattr(session.config, "workerinput") or not session.config.getvalue("loadgroup"):
        return
    named = lambda nodeid: nodeid.rfind("@") > nodeid.rfind("]")  # noqa: E731 - xdist's own test of a group suffix
    lost = [i.nodeid for i in session.items if i.get_closest_marker("xdist_group") and not named(i.nodeid)]
    if lost:
        message = f"--dist loadgroup does not group these tests here: {lost[:3]}"
        warnings.warn(pytest.PytestWarning(message), stacklevel=1)


def _run_order(item: pytest.Item) -> int:
    """Groups first, then the slow tests, then the rest (a stable sort: each keeps its collection order)."""
    if item.get_closest_marker("xdist_group") is not None:
        return 0
    return 1 if item.get_closest_marker("slow") is not None else 2


@pytest.fixture(scope="session")
def adb_server() -> Iterator[PrivateAdbServer]:
    """A private adb server (the binary from the adbutils wheel) on a free port, killed at the end."""
    srv = PrivateAdbServer().start()
    old = os.environ.get("ANDROID_ADB_SERVER_PORT")
    os.environ["ANDROID_ADB_SERVER_PORT"] = str(srv.port)
    try:
        yield srv
    finally:
        srv.stop()
        if old is None:
            os.environ.pop("ANDROID_ADB_SERVER_PORT", None)
        else:
            os.environ["ANDROID_ADB_SERVER_PORT"] = old


@pytest.fixture(scope="module")
def ray_instance() -> Iterator[None]:
    """A local Ray instance for the module (2 CPUs, no dashboard): the `ray` tests'; a machine where Ray cannot
    start fails here."""
    import ray

    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False, configure_logging=False)
    try:
        yield
    finally:
        ray.shutdown()


@pytest.fixture(scope="session")
def adb_client(adb_server: PrivateAdbServer):
    return adb_server.client


@pytest.fixture
def adb_cli(adb_server: PrivateAdbServer) -> Callable[..., subprocess.CompletedProcess]:
    """Run the adb CLI against the private server: `adb_cli("-s", serial, "shell", "false")`."""
    return adb_server.run


@pytest.fixture
def make_vdevice(adb_server: PrivateAdbServer) -> Iterator[Callable[..., VirtualDevice]]:
    """Factory: `make_vdevice(profile="pixel_fold", locale="zh", connect=True)` -> a started VirtualDevice
    (connected through the private adb server unless connect=False; `.adb` is its adbutils device)."""
    started: list[VirtualDevice] = []

    def make(connect: bool = True, **kwargs) -> VirtualDevice:
        vd = VirtualDevice(**kwargs).start()
        started.append(vd)
        if connect:
            vd.connect(adb_server)
        return vd

    yield make
    for vd in started:
        if not vd.emulator_console:
            adb_server.disconnect(vd.address)
        vd.stop()
        if vd.emulator_console:  # the server drops an emulator once it notices: let it, before a test reuses the pair
            deadline = time.monotonic() + 5
            while adb_server.state(vd.serial) is not None and time.monotonic() < deadline:
                time.sleep(0.02)


@pytest.fixture
def vdevice(make_vdevice) -> VirtualDevice:
    """A fresh virtual device (medium_phone, en, instant latency) connected through the real adb server."""
    return make_vdevice()


@pytest.fixture
def u2dev(vdevice: VirtualDevice, adb_server: PrivateAdbServer):
    """uiautomator2 (unmodified) connected to `vdevice` (u2.jar push is skipped: the device preloads it), over the
    harness's adbutils device (`FastAdbDevice`: TCP_NODELAY, as the harness drives phones, so no RPC waits ~44 ms for
    the adb server's delayed ACK); tests/emulator/virtual/u2/test_u2.py drives the device with the stock one."""
    import uiautomator2 as u2

    from harness.device.fastadb import FastAdbDevice

    d = u2.connect(FastAdbDevice(adb_server.client, vdevice.serial))
    yield d
    try:
        d.stop_uiautomator(wait=False)
    except Exception:  # noqa: BLE001 - the device may already be gone
        pass


@pytest.fixture
def make_posing_emulator(tmp_path, monkeypatch, make_vdevice, adb_server) -> Callable[..., tuple[VirtualDevice, str]]:
    """Factory: a virtual device posing as an emulator - it answers on a free emulator console pair and announces
    itself to the session's adb server, which lists it as `emulator-NNNN` -> (the device, its serial), once the server
    has it as `device`. HOME (the console's auth token, as the emulator keeps it) and $XDG_RUNTIME_DIR (a gRPC door's
    discovery file) are this test's. Keyword arguments go to the device (`grpc_port=0`, `latency=...`, another
    `console_home`)."""
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.setenv("XDG_RUNTIME_DIR", str(tmp_path / "run"))

    def make(**kwargs) -> tuple[VirtualDevice, str]:
        for attempt in range(5):  # a process outside this session may take the free pair first
            # not a pair whose emulator the server still lists: a device stopped a moment ago on that pair is
            # dropped by the server only when it notices, and the new device's announcement would go unheard
            port = free_console_port(taken=lambda p: adb_server.state(f"emulator-{p}") is not None)
            try:
                vd = make_vdevice(
                    connect=False,
                    emulator_console=True,
                    console_port=port,
                    adb_server_port=adb_server.port,
                    **{"console_home": str(tmp_path), **kwargs},
                )
                break
            except OSError:
                if attempt == 4:
                    raise
                time.sleep(0.2)
        serial = f"emulator-{port}"
        deadline = time.monotonic() + 30
        while adb_server.state(serial) != "device":  # the adb server connects to it
            assert time.monotonic() < deadline, adb_server.run("devices").stdout
            time.sleep(0.05)
        return vd, serial

    return make


@pytest.fixture
def posing_emulator(make_posing_emulator) -> tuple[VirtualDevice, str]:
    """A virtual device posing as an emulator (`make_posing_emulator`) -> (the device, its serial)."""
    return make_posing_emulator()


@pytest.fixture
def grpc_emulator(request, make_posing_emulator) -> tuple[VirtualDevice, str]:
    """`posing_emulator` with the emulator's gRPC door too (a free port, calls need a token), its discovery file
    written under the test's $XDG_RUNTIME_DIR (avd/running/pid_<pid>.ini) -> (the device, its serial). Its latency
    profile is `instant` unless the test passes another (`@pytest.mark.parametrize("grpc_emulator", ["pixel"],
    indirect=True)`: adb's paths then cost what a phone's do, the gRPC door, on the host as an emulator's is,
    nothing)."""
    return make_posing_emulator(grpc_port=0, grpc_token=True, latency=getattr(request, "param", "instant"))
