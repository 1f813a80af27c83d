"""Device processes pinned to cores (`--cpu-affinity`, harness.run.fleet.affinity): which core each slot's device gets,
that the child and every thread it starts later run there (read back from Linux, per thread), that the manifest
says so, and that `off` and latency-bound pools leave the scheduler alone."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from emulator.virtual.devicemain import parse_args
from harness.cli.main import app
from harness.errors import ConfigError
from harness.run.fleet.affinity import check_policy, device_cpus, never_waits, usable_cpus
from harness.run.fleet.pool import DevicePool
from harness.run.orchestration.suite import SuiteOptions, run_suite
from tests.run_util import FAST_WRITER

pytestmark = pytest.mark.integration

USABLE = usable_cpus()
two_cores = pytest.mark.skipif(
    not sys.platform.startswith("linux") or len(USABLE) < 2, reason="pinning needs Linux and two usable cores"
)


@pytest.fixture
def state(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    d = tmp_path / "state"
    monkeypatch.setenv("DROIDHARNESS_STATE_DIR", str(d))
    return d


def test_auto_pins_cpu_bound_devices_one_per_core_when_every_core_has_one():
    cores = (0, 1)
    assert [device_cpus(i, 2, "instant", "auto", cores) for i in range(2)] == [{0}, {1}]
    # round the cores this process may use, in order, whatever their numbers
    assert [device_cpus(i, 4, "instant", "auto", (2, 5)) for i in range(4)] == [{2}, {5}, {2}, {5}]
    assert device_cpus(0, 1, "instant", "auto", cores) is None, "fewer devices than cores: the scheduler places"
    assert device_cpus(0, 8, "pixel", "auto", cores) is None, "devices that mostly sleep are not pinned"
    assert device_cpus(0, 8, "no-such-profile", "auto", cores) is None


def test_a_virtual_clock_device_never_waits_whatever_its_latency_profile():
    assert never_waits("instant") and not never_waits("pixel")
    assert never_waits("pixel", "virtual"), "its delays advance its clock instead of sleeping: pure CPU"
    assert [device_cpus(i, 2, "pixel", "auto", (0, 1), clock="virtual") for i in range(2)] == [{0}, {1}]
    assert device_cpus(0, 2, "pixel", "auto", (0, 1), clock="real") is None


def test_on_pins_any_pool_and_off_none():
    assert device_cpus(0, 1, "pixel", "on", (0, 1)) == {0}
    assert device_cpus(3, 8, "pixel", "on", (0, 1, 2)) == {0}
    assert device_cpus(1, 2, "instant", "off", (0, 1)) is None
    assert device_cpus(0, 4, "instant", "on", (3,)) is None, "one core: nothing to choose"
    assert device_cpus(0, 4, "instant", "on", ()) is None, "a system that does not say which cores"


def test_an_unknown_policy_is_a_config_error_naming_the_option(tmp_path):
    assert check_policy("off") == "off"
    with pytest.raises(ConfigError, match="--cpu-affinity 'sometimes'"):
        check_policy("sometimes")
    with pytest.raises(ConfigError, match="--cpu-affinity"):
        DevicePool(2, isolation="process", cpu_affinity="sometimes")  # type: ignore[arg-type]
    r = CliRunner().invoke(app, ["run", "--cpu-affinity", "sometimes", "--out", str(tmp_path)])
    assert r.exit_code == 2 and "sometimes" in r.output and "Traceback" not in r.output


def test_the_device_process_refuses_a_malformed_core_list():
    base = ["--serial", "S", "--profile", "p", "--home", "/h", "--ready-file", "/r", "--parent", "1"]
    assert parse_args([*base, "--cpus", "2,0"], "t").cpus == {0, 2}
    for bad in ("", "a", "-1", "1,,2"):
        with pytest.raises(SystemExit):
            parse_args([*base, "--cpus", bad], "t")


def _pid(pool: DevicePool, slot: int) -> int:
    proc = pool.process(slot)
    assert proc is not None and proc.pid is not None
    return proc.pid


def _thread_cpus(pid: int) -> dict[int, set[int]]:
    """Every thread of `pid` -> the cores Linux lets it run on."""
    return {int(t): os.sched_getaffinity(int(t)) for t in os.listdir(f"/proc/{pid}/task")}


@two_cores
def test_a_pinned_device_and_every_thread_it_starts_later_run_on_its_core(state):
    core = USABLE[1]
    with DevicePool(2, isolation="process", latency="pixel", cpu_affinity="on") as pool:
        dev = pool.slot(1)
        pid = _pid(pool, 1)
        before = _thread_cpus(pid)
        # new adb streams: the device serves each on a thread it starts now
        assert dev.link.shell("test", "echo one").text.strip() == "one"
        assert dev.link.exec_out("test", "echo two").strip() == b"two"
        after = _thread_cpus(pid)
        assert len(after) > 1 and len(before) > 1, "the device runs many threads"
        assert all(cpus == {core} for cpus in [*before.values(), *after.values()]), (before, after)
        assert pool.describe(1)["cpus"] == [core]
        assert all(cpus == {USABLE[0]} for cpus in _thread_cpus(_pid(pool, 0)).values())
        assert os.sched_getaffinity(0) == set(USABLE), "the harness itself is not pinned"


@two_cores
def test_off_leaves_device_processes_where_the_scheduler_puts_them(state):
    with DevicePool(2, isolation="process", latency="instant", cpu_affinity="off") as pool:
        pool.wait_started()
        for i in range(2):
            assert all(c == set(USABLE) for c in _thread_cpus(_pid(pool, i)).values())
            assert "cpus" not in pool.describe(i)


@two_cores
def test_a_run_of_cpu_bound_devices_pins_one_per_core_and_its_manifest_says_where(tmp_path, state, monkeypatch):
    monkeypatch.setattr("harness.run.fleet.pool.usable_cpus", lambda: USABLE[:2])  # two devices, whatever the machine
    opts = SuiteOptions(
        writer=FAST_WRITER,
        task_ids=("settings-dark-theme",),
        langs=("en",),
        agent="reference",
        devices=2,
        isolation="process",
        latency="instant",
        out=tmp_path,
        run_id="pinned",
    )
    res = run_suite(opts)
    assert res.sr == 1.0
    manifest = json.loads((res.run_dir / "manifest.json").read_text())
    assert [d.get("cpus") for d in manifest["devices"]] == [[c] for c in USABLE[:2]]
    html = (res.run_dir / "report.html").read_text()
    for serial, core in zip((d["serial"] for d in manifest["devices"]), USABLE[:2], strict=True):
        header = html.split(f"<h3>{serial} ", 1)[1].split("</h3>", 1)[0]
        assert header.endswith(f" · on core {core}</span>"), header
