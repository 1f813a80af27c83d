"""One backend per device kind (harness/run/fleet/): each kind that can run here is started, health-checked, reset
(its method recorded) and closed through the `Backend` protocol alone - devices in threads, device processes,
in-process devices, and the user's kinds (a phone: an embedded device given by its plain serial; an emulator: one
posing as `emulator-NNNN` with a console) - and the pool only orchestrates: a fake backend plugged into it is
leased, replaced, quarantined after two failures in a row and retired, with no kind of its own known to the pool.
Processes: only those this test's pools start, ended by the pool (checked by pid)."""

from __future__ import annotations

import ast
import socket
import time
from pathlib import Path
from typing import Any

import pytest

from harness.device.controller import DeviceConfig
from harness.device.link import LinkConfig
from harness.device.preparation import PreparationPlan
from harness.device.provision import emulator_console
from harness.errors import ConfigError
from harness.run.fleet.backend import (
    APP_CLEAR,
    AVD_SNAPSHOT_LOAD,
    SNAPSHOT_LOAD,
    STATE_RESTORE,
    Backend,
    FleetSpec,
    NothingShared,
    ResetRecord,
)
from harness.run.fleet.kinds import build_fleet
from harness.run.fleet.pool import DevicePool, SlotRetiredError
from tests.device_util import free_console_port
from tests.paths import REPO

ROOT = REPO
QUICK = DeviceConfig(link=LinkConfig(call_timeout=5.0, reconnect_timeout=1.0))
PROBE = "settings get system droidharness_probe"


def spec(isolation: str = "thread", serials: tuple[str, ...] = (), clock: str = "real") -> FleetSpec:
    return FleetSpec(
        size=len(serials) or 1,
        serials=serials,
        isolation=isolation,
        profile="medium_phone",
        locale="en",
        latency="instant",
        langs=("en",),
        config=QUICK,
        cpu_affinity="off",
        usable_cpus=(),
        clock=clock,
    )


def _alive(pid: int) -> bool:
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return False
    return "\nState:\tZ" not in status


def _listening(address: str) -> bool:
    host, port = address.rsplit(":", 1)
    with socket.socket() as s:
        s.settimeout(0.5)
        return s.connect_ex((host, int(port))) == 0


def exercise(backend: Backend, apps: tuple[str, ...] = ()) -> ResetRecord:
    """Start, prepare, health-check, dirty, reset and describe one backend through the protocol; its reset."""
    dev = backend.start()
    assert backend.device is dev and backend.serial == dev.serial
    backend.prepare(PreparationPlan())
    assert backend.health() is None
    dev.put_setting("system", "droidharness_probe", "dirty")
    dev.launch("com.droidharness.notes")
    record = backend.reset(apps, "en")
    assert record.method == backend.reset_method and record.seconds >= 0
    backend.ensure_locale("en")
    row = backend.describe()
    assert row["serial"] == dev.serial and row["preparation"]["serial"] == dev.serial
    return record


def test_in_process_devices(tmp_path):
    fleet, (backend,) = build_fleet(spec("in_process"))
    fleet.begin()
    fleet.serve()
    try:
        assert (backend.kind, backend.replaceable, fleet.adb_server) == ("in-process", True, None)
        assert exercise(backend).method == STATE_RESTORE
        dev = backend.device
        assert dev is not None and dev.link.shell("probe", PROBE).text.strip() == "null", "the boot state is back"
        assert backend.model is not None and backend.process is None and backend.profile == "medium_phone"
        backend.ensure_locale("zh")
        assert backend.model.locale == "zh"
    finally:
        backend.close()
        fleet.close()
    assert backend.device is None and backend.model is None and backend.serial == "INPROC0001"


def test_devices_in_threads_behind_the_private_adb_server():
    fleet, (backend,) = build_fleet(spec("thread"))
    fleet.begin()
    fleet.serve()
    server = fleet.adb_server
    try:
        assert server is not None and server.alive()
        assert (backend.kind, backend.replaceable) == ("virtual", True)
        assert exercise(backend).method == STATE_RESTORE
        dev = backend.device
        assert dev is not None and dev.link.shell("probe", PROBE).text.strip() == "null"
        address = dev.virtual.address
        assert backend.model is dev.virtual.model and _listening(address)
    finally:
        backend.close()
        fleet.close()
    assert backend.device is None and backend.model is None
    assert not _listening(address), "closing the backend stopped its virtual device"
    assert not server.alive(), "closing the fleet stopped the private adb server"


def test_device_processes(tmp_path, monkeypatch):
    monkeypatch.setenv("DROIDHARNESS_STATE_DIR", str(tmp_path / "state"))  # this test's records only
    fleet, (backend,) = build_fleet(spec("process"))
    fleet.begin()
    fleet.serve()
    try:
        assert (backend.kind, backend.replaceable) == ("virtual-process", True)
        assert exercise(backend).method == SNAPSHOT_LOAD
        dev, proc = backend.device, backend.process
        assert dev is not None and dev.link.shell("probe", PROBE).text.strip() == "null"
        assert proc is not None and proc.pid is not None and _alive(proc.pid) and backend.model is None
        pid = proc.pid
        backend.ensure_locale("zh")
        assert dev.link.shell("locale", "getprop persist.sys.locale").text.strip() == "zh-CN"
    finally:
        backend.close()
        fleet.close()
    deadline = time.monotonic() + 15
    while _alive(pid) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not _alive(pid) and backend.process is None, "closing the backend stopped its device process"


def test_a_phone_by_its_serial(make_vdevice):
    vd = make_vdevice()  # an embedded device on the session's adb server, given by its plain serial
    fleet, (backend,) = build_fleet(spec(serials=(vd.serial,)))
    assert isinstance(fleet, NothingShared)
    try:
        assert (backend.kind, backend.replaceable, backend.serial) == ("phone", False, vd.serial)
        mark = vd.model.events.mark()
        assert exercise(backend, ("com.droidharness.notes",)).method == APP_CLEAR
        cleared = [list(e.data["argv"]) for e in vd.model.events.since(mark, "exec")]
        assert ["pm", "clear", "com.droidharness.notes"] in cleared
        assert backend.profile == "Medium Phone" and backend.model is None and backend.process is None
        backend.restore()  # its own settings back, as before the run
        dev = backend.device
        assert dev is not None
        assert dev.link.shell("anim", "settings get global window_animation_scale").text.strip() == "1.0"
    finally:
        backend.close()
    assert backend.device is None and backend.serial == vd.serial


def test_an_emulator_by_its_serial_resets_on_its_console(posing_emulator):
    vd, serial = posing_emulator
    fleet, (backend,) = build_fleet(spec(serials=(serial,)))
    try:
        assert (backend.kind, backend.replaceable) == ("emulator", False)
        assert exercise(backend).method == AVD_SNAPSHOT_LOAD
        dev = backend.device
        assert dev is not None and dev.link.shell("probe", PROBE).text.strip() == "null"
        assert any(e.data.get("command") == "avd snapshot load" for e in vd.model.events.all("console"))
    finally:
        backend.close()
    assert backend.reset_method == APP_CLEAR, "its console was closed with it"


@pytest.mark.parametrize("isolation", ["in_process", "thread", "process"])
def test_embedded_devices_run_on_the_pools_clock(isolation, tmp_path, monkeypatch):
    monkeypatch.setenv("DROIDHARNESS_STATE_DIR", str(tmp_path / "state"))  # this test's records only
    fleet, (backend,) = build_fleet(spec(isolation, clock="virtual"))
    fleet.begin()
    fleet.serve()
    try:
        dev = backend.start()
        assert dev.config.clock == "virtual", "the device's waits and step times are on its own clock"
        if backend.model is not None:
            assert backend.model.clock.name == "virtual"
        else:  # a device process: its clock is the child's `--clock`
            assert backend.process is not None and backend.process.clock == "virtual"
    finally:
        backend.close()
        fleet.close()


def test_a_phone_an_emulator_or_avd_copies_refuse_a_virtual_clock():
    from harness.run.fleet.avd import avd_copies

    with pytest.raises(ConfigError, match=r"device R58M123ABC \(phone\) keeps its own time: clock 'virtual'"):
        build_fleet(spec(serials=("R58M123ABC",), clock="virtual"))
    with pytest.raises(ConfigError, match=r"device emulator-5554 \(emulator\) keeps its own time"):
        build_fleet(spec(serials=("emulator-5554",), clock="virtual"))
    with pytest.raises(ConfigError, match="keeps its own time"):  # nothing connects: the pool is not even made
        DevicePool(1, ["R58M123ABC"], clock="virtual")
    with pytest.raises(ConfigError, match="the copies of AVD Pixel_7 keep their own time"):
        with avd_copies("Pixel_7", 1, clock="virtual"):  # before any SDK is looked for
            pass
    with pytest.raises(ConfigError, match="unknown clock 'warp'; choose one of: real, virtual"):
        DevicePool(1, clock="warp")


def test_an_emulator_serial_whose_console_does_not_answer_has_none():
    port = free_console_port()  # nothing listens there
    assert emulator_console(f"emulator-{port}", timeout=2.0) is None
    assert emulator_console("R58M123ABC") is None


# --- the pool only orchestrates -----------------------------------------------------------------------------------
class FakeDevice:
    def __init__(self, serial: str) -> None:
        self.serial = serial


class FakeBackend:
    """A kind the pool has never heard of: its devices are names, its health a flag, its reset a record."""

    kind = "fake"

    def __init__(self, slot: int, replaceable: bool, log: list[str]) -> None:
        self.slot, self.replaceable, self.log = slot, replaceable, log
        self.opened = 0
        self.sick = False
        self._device: FakeDevice | None = None

    @property
    def reset_method(self) -> str:
        return "fake_reset"

    @property
    def device(self) -> Any:
        return self._device

    @property
    def serial(self) -> str:
        return f"FAKE{self.slot}-{self.opened}"

    profile = "fake"
    preparation = None
    model = None
    process = None

    def start(self) -> Any:
        self.opened += 1
        self.sick = False
        self._device = FakeDevice(self.serial)
        self.log.append(f"start {self.serial}")
        return self._device

    def prepare(self, plan: PreparationPlan) -> Any:
        self.log.append(f"prepare {self.serial}")

    def health(self) -> str | None:
        return "fake sickness" if self.sick else None

    def reset(self, apps: Any = (), lang: str | None = None) -> ResetRecord:
        self.log.append(f"reset {self.serial} {list(apps)} {lang}")
        return ResetRecord("fake_reset", 0.0)

    def ensure_locale(self, lang: str, ui: str | None = None) -> None:
        self.log.append(f"locale {self.serial} {lang}" + (f" ui {ui}" if ui else ""))

    def describe(self) -> dict[str, Any]:
        return {"serial": self.serial, "fake": True}

    def restore(self) -> None:
        self.log.append(f"restore {self.serial}")

    def close(self) -> None:
        self.log.append(f"close {self.serial}")
        self._device = None


class FakePool(DevicePool):
    fakes_replaceable = True

    def make_fleet(self, spec: FleetSpec) -> tuple[Any, list[Any]]:
        self.log: list[str] = []
        return NothingShared(), [FakeBackend(i, self.fakes_replaceable, self.log) for i in range(spec.size)]


def test_a_fake_backend_is_leased_replaced_quarantined_and_replaced_by_the_pool():
    with FakePool(2) as pool:
        rows: list[tuple[int, dict[str, Any]]] = []
        pool.on_started(lambda i, row: rows.append((i, row)))
        assert sorted(rows, key=lambda r: r[0]) == [
            (0, {"serial": "FAKE0-1", "fake": True}),
            (1, {"serial": "FAKE1-1", "fake": True}),
        ]
        lease = pool.lease(0, ("a.b",), "en")
        assert lease.device.serial == "FAKE0-1" and lease.reset.method == "fake_reset"
        assert pool.kind(0) == "fake" and pool.reset_method(0) == "fake_reset" and pool.describe(0)["fake"]

        pool.backends[0].sick = True  # dies between episodes: replaced before the lease, not charged twice
        assert pool.lease(0).device.serial == "FAKE0-2" and pool.quarantined == []

        pool.failed(1, "first")
        assert pool.slot(1).serial == "FAKE1-2" and pool.quarantined == []
        pool.failed(1, "second in a row")
        (q,) = pool.quarantined
        assert (q.slot, q.serial, q.kind, q.failures, q.reason, q.replaced) == (
            1,
            "FAKE1-2",
            "fake",
            2,
            "second in a row",
            True,
        )
        assert pool.slot(1).serial == "FAKE1-3" and pool.usable(1)
        log = pool.log
    assert log[-4:-2] == ["restore FAKE0-2", "restore FAKE1-3"], "restored first, then closed all at once"
    assert set(log[-2:]) == {"close FAKE0-2", "close FAKE1-3"}
    assert "close FAKE1-1" in log and log.index("close FAKE1-1") < log.index("start FAKE1-2")


def test_a_fake_backend_that_cannot_be_replaced_retires_its_slot():
    class Unreplaceable(FakePool):
        fakes_replaceable = False

    with Unreplaceable(1) as pool:
        pool.failed(0, "first")  # a reconnection
        assert pool.slot(0).serial == "FAKE0-2"
        with pytest.raises(SlotRetiredError, match="quarantined after 2 failures in a row"):
            pool.failed(0, "second")
        assert not pool.usable(0) and [q.replaced for q in pool.quarantined] == [False]
        with pytest.raises(SlotRetiredError):
            pool.lease(0)


def test_the_pool_imports_no_kind_of_device():
    """The pool knows the protocol, the fleet's kinds table and core pinning's policy: nothing of any kind."""
    tree = ast.parse((ROOT / "harness" / "run" / "fleet" / "pool.py").read_text())
    fleet = {
        node.module
        for node in ast.walk(tree)
        if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("harness.run.fleet")
    }
    assert fleet == {"harness.run.fleet.affinity", "harness.run.fleet.backend", "harness.run.fleet.kinds"}
    imported = {node.module for node in ast.walk(tree) if isinstance(node, ast.ImportFrom) and node.module}
    assert not [m for m in imported if m.startswith(("harness.device.inprocess", "harness.device.provision"))]
