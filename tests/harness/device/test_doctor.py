"""`droidharness doctor`: the checks through the real private adb server to embedded virtual devices (healthy,
unauthorized, offline, uiautomator2 unreachable), a fake SDK tree, bad input, and that nothing touches 5037."""

from __future__ import annotations

import json
import os
import stat
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from emulator.virtual import VirtualDevice
from emulator.virtual.adbserver import PrivateAdbServer
from emulator.virtual.statedir import state_dir
from harness.cli.main import app
from harness.device.doctor import Check, kvm_check, sdk_checks, state_check
from harness.device.provision import adb_server_running

runner = CliRunner()
ACCEL_OK = "accel:\n0\nKVM (version 12) is installed and usable.\naccel\n"
ACCEL_BAD = "accel:\n9\n/dev/kvm is not found: VT disabled in BIOS or KVM kernel module not loaded\naccel\n"


def _wait(cond: Callable[[], bool], timeout: float = 10.0) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if cond():
            return True
        threading.Event().wait(0.05)
    return cond()


def _script(path: Path, body: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("#!/bin/sh\n" + body)
    path.chmod(path.stat().st_mode | stat.S_IXUSR)
    return path


def fake_sdk(root: Path, accel: str = ACCEL_OK, accel_exit: int = 0) -> Path:
    """An SDK tree whose `emulator` prints an `-accel-check` answer and records its arguments."""
    _script(
        root / "emulator" / "emulator",
        f'echo "$@" >> "{root}/emulator.args"\nprintf "%s" "{accel}"\nexit {accel_exit}\n',
    )
    for tool in ("sdkmanager", "avdmanager"):
        _script(root / "cmdline-tools" / "latest" / "bin" / tool, "exit 0\n")
    _script(root / "platform-tools" / "adb", "exit 0\n")
    return root


def no_sdk_env(tmp_path: Path) -> dict[str, str | None]:
    empty = tmp_path / "empty-path"
    empty.mkdir(exist_ok=True)
    return {"ANDROID_HOME": None, "ANDROID_SDK_ROOT": None, "PATH": str(empty)}


def doctor(*args: str, env: dict[str, str | None] | None = None) -> tuple[int, list[dict[str, Any]], str]:
    r = runner.invoke(app, ["doctor", *args, "--json"], env=env)
    rows = json.loads(r.stdout) if r.exit_code in (0, 1) else []
    return r.exit_code, rows, r.output


def rows_of(rows: list[dict[str, Any]], serial: str) -> dict[str, dict[str, Any]]:
    """The device's rows by check ("uiautomator2", "adb state", ...)."""
    return {r["name"].split(": ", 1)[1]: r for r in rows if r["name"].startswith(serial + ": ")}


def test_a_healthy_device_exits_0_and_every_row_is_ok(vdevice, adb_server, tmp_path):
    env = {"ANDROID_HOME": str(fake_sdk(tmp_path / "sdk")), "ANDROID_SDK_ROOT": None}
    code, rows, out = doctor("--device", vdevice.serial, env=env)
    assert code == 0, out
    names = [r["name"] for r in rows]
    assert names[:3] == ["adb", "Android SDK", "emulator"] and "adb server" in names
    assert not [r for r in rows if r["status"] != "ok" and r["name"] != "KVM"], out  # KVM is the host's
    mine = rows_of(rows, vdevice.serial)
    assert set(mine) == {"adb state", "uiautomator2", "text input (IME)", "screen", "Android", "locale"}
    assert "JSON-RPC" in mine["uiautomator2"]["detail"] and "launched by doctor" in mine["uiautomator2"]["detail"]
    assert "你好" in mine["text input (IME)"]["detail"] and "round-trips" in mine["text input (IME)"]["detail"]
    assert mine["screen"]["detail"] == "1080x2400, 420 dpi"
    assert mine["Android"]["detail"].startswith("Android 14 (API 34)")
    assert mine["locale"]["detail"].startswith("en-US")
    assert f"{adb_server.port}" in next(r for r in rows if r["name"] == "adb server")["detail"]
    assert vdevice.model.clipboard in (None, "")  # the device's clipboard is put back


def test_the_rows_follow_the_device(make_vdevice, tmp_path):
    vd = make_vdevice(profile="pixel_fold", locale="zh")
    code, rows, out = doctor("--device", vd.serial, env=no_sdk_env(tmp_path))
    mine = rows_of(rows, vd.serial)
    assert code == 0, out
    assert mine["screen"]["detail"].startswith("1840x2208, 420 dpi") and mine["locale"]["detail"].startswith("zh")


def test_an_unauthorized_device_fails_with_the_rsa_fix(make_vdevice, adb_server, tmp_path):
    vd = make_vdevice(auth="unauthorized", connect=False)
    adb_server.client.connect(vd.address, timeout=5)
    assert _wait(lambda: adb_server.state(vd.serial) == "unauthorized"), adb_server.run("devices").stdout
    code, rows, out = doctor("--device", vd.serial, env=no_sdk_env(tmp_path))
    assert code == 1, out
    state = rows_of(rows, vd.serial)["adb state"]
    assert state["status"] == "fail" and state["detail"] == "unauthorized" and "RSA" in state["fix"]
    assert set(rows_of(rows, vd.serial)) == {"adb state"}  # nothing else can be checked on it


def test_an_offline_device_fails_with_the_reconnect_fix(vdevice, adb_server, tmp_path):
    vdevice.faults.go_offline()
    try:
        assert _wait(lambda: adb_server.state(vdevice.serial) == "offline"), adb_server.run("devices").stdout
        code, rows, out = doctor("--device", vdevice.serial, env=no_sdk_env(tmp_path))
        assert code == 1, out
        state = rows_of(rows, vdevice.serial)["adb state"]
        assert state["status"] == "fail" and "adb kill-server" in state["fix"]
    finally:
        vdevice.faults.go_offline(False)


def test_uiautomator2_that_cannot_be_reached_is_a_failed_row(vdevice, tmp_path):
    vdevice.faults.kill_u2()
    vdevice.model.ports[9008] = lambda stream: stream.close()  # something else holds the port: no launch
    try:
        code, rows, out = doctor("--device", vdevice.serial, env=no_sdk_env(tmp_path))
    finally:
        vdevice.model.ports.pop(9008, None)
    assert code == 1, out
    mine = rows_of(rows, vdevice.serial)
    assert mine["uiautomator2"]["status"] == "fail" and "could not launch" in mine["uiautomator2"]["detail"]
    assert "Address already in use" in mine["uiautomator2"]["detail"] and mine["uiautomator2"]["fix"]
    assert mine["text input (IME)"]["status"] == "fail" and "ASCII" in mine["text input (IME)"]["detail"]
    assert mine["screen"]["status"] == "ok"  # the shell paths still answer


def test_a_fake_sdk_gives_sdk_rows_and_runs_accel_check(tmp_path):
    root = fake_sdk(tmp_path / "sdk")
    rows = {c.name: c for c in sdk_checks({"ANDROID_HOME": str(root), "PATH": ""}, kvm=None)}
    assert set(rows) == {"Android SDK", "emulator"}
    assert rows["Android SDK"].status == "ok" and str(root) in rows["Android SDK"].detail
    assert rows["emulator"].status == "ok" and "KVM (version 12) is installed and usable." in rows["emulator"].detail
    assert (root / "emulator.args").read_text().split() == ["-accel-check"]


def test_no_acceleration_and_missing_tools_are_warnings(tmp_path):
    root = fake_sdk(tmp_path / "sdk", accel=ACCEL_BAD, accel_exit=9)
    (root / "cmdline-tools" / "latest" / "bin" / "avdmanager").unlink()
    rows = {c.name: c for c in sdk_checks({"ANDROID_SDK_ROOT": str(root), "PATH": ""}, kvm=None)}
    assert rows["emulator"].status == "warn" and "status 9" in rows["emulator"].detail
    assert "VT disabled in BIOS" in rows["emulator"].detail and "KVM" in rows["emulator"].fix
    assert rows["Android SDK"].status == "warn" and "avdmanager" in rows["Android SDK"].fix


def test_no_sdk_is_a_warning_not_a_failure(vdevice, tmp_path):
    code, rows, out = doctor("--device", vdevice.serial, env=no_sdk_env(tmp_path))
    assert code == 0, out
    sdk = next(r for r in rows if r["name"] == "Android SDK")
    assert sdk["status"] == "warn" and "not found" in sdk["detail"] and "ANDROID_HOME" in sdk["fix"]
    assert "emulator" not in [r["name"] for r in rows]


def test_kvm_rows(tmp_path):
    assert kvm_check(tmp_path / "kvm").status == "warn"  # missing
    node = tmp_path / "kvm"
    node.write_bytes(b"")
    assert kvm_check(node) == Check("KVM", "ok", f"{node} is readable and writable")
    if os.geteuid() != 0:  # root may read and write anything
        node.chmod(0)
        assert kvm_check(node).status == "warn" and "usermod -aG kvm" in kvm_check(node).fix


@pytest.mark.parametrize(
    "state, fix",
    [
        ("no permissions (user in plugdev group; are your udev rules wrong?)", "udev"),
        ("unauthorized", "RSA"),
        ("offline", "adb kill-server"),
        ("recovery", "adb reboot"),
        ("host", "adb devices"),
    ],
)
def test_every_non_device_state_fails_with_its_fix(state, fix):
    c = state_check("R58M123ABC", state)
    assert c.status == "fail" and fix in c.fix and c.detail == state and c.name == "R58M123ABC: adb state"


def test_a_serial_the_server_does_not_list_is_one_line_and_exit_2(vdevice):
    r = runner.invoke(app, ["doctor", "--device", "NOSUCHSERIAL"])
    assert r.exit_code == 2
    lines = r.output.strip().splitlines()
    assert len(lines) == 1 and "NOSUCHSERIAL" in lines[0] and "does not list it" in lines[0]
    assert vdevice.serial in lines[0]  # what it does list


def test_the_system_server_needs_system_adb(tmp_path):
    r = runner.invoke(app, ["doctor", "--device", "R58M123ABC"], env={"ANDROID_ADB_SERVER_PORT": None})
    assert r.exit_code == 2
    lines = r.output.strip().splitlines()
    assert len(lines) == 1 and "--system-adb" in lines[0] and "5037" in lines[0]


def test_system_adb_checks_every_device_on_that_server(tmp_path):
    # a server of its own stands in for the user's, with two devices on it, one of them unauthorized
    with PrivateAdbServer() as server, VirtualDevice() as a, VirtualDevice(auth="unauthorized") as b:
        server.connect(a.address)
        server.client.connect(b.address, timeout=5)
        assert _wait(lambda: server.state(b.serial) == "unauthorized"), server.run("devices").stdout
        env = {**no_sdk_env(tmp_path), "ANDROID_ADB_SERVER_PORT": str(server.port)}
        code, rows, out = doctor("--system-adb", env=env)
        server.disconnect(a.address)
        server.disconnect(b.address)
    assert code == 1, out
    assert next(r for r in rows if r["name"] == "adb server")["status"] == "ok"  # (it may list emulators too)
    assert {k: r["status"] for k, r in rows_of(rows, a.serial).items()} == dict.fromkeys(
        ["adb state", "uiautomator2", "text input (IME)", "screen", "Android", "locale"], "ok"
    )
    assert [(k, r["status"]) for k, r in rows_of(rows, b.serial).items()] == [("adb state", "fail")]


def _records() -> set[str]:
    """This process' private adb server records (other test workers start and stop their own meanwhile)."""
    mine = set()
    for p in (state_dir() / "adb-servers").glob("*.json"):
        try:
            if json.loads(p.read_text()).get("owner") == os.getpid():
                mine.add(p.name)
        except (OSError, ValueError):
            continue  # a record being written or removed by another worker
    return mine


def test_default_checks_the_embedded_device_and_never_uses_5037(tmp_path):
    before_5037, before_records = adb_server_running("127.0.0.1", 5037), _records()
    env = {**no_sdk_env(tmp_path), "ANDROID_ADB_SERVER_PORT": None}
    r = runner.invoke(app, ["doctor"], env=env, terminal_width=200)
    assert r.exit_code == 0, r.output
    assert "what to do" in r.output and "private adb server" in r.output and "a run would work" in r.output
    assert "uiautomator2" in r.output and "Android SDK" in r.output
    if not before_5037:
        assert not adb_server_running("127.0.0.1", 5037)  # doctor started nothing there
    assert _records() == before_records  # its private server is gone


def test_virtual_adds_the_embedded_device_to_a_device_check(vdevice, tmp_path):
    code, rows, out = doctor("--device", vdevice.serial, "--virtual", env=no_sdk_env(tmp_path))
    assert code == 0, out
    names = [r["name"] for r in rows]
    assert "adb server" in names and "private adb server" in names
    assert len([n for n in names if n.endswith(": uiautomator2")]) == 2
