"""A device posing as an emulator is the emulator's userdebug image: `adb root` restarts adbd as root (the adb
server reconnects), `su` exists, root sets the clock; a phone profile refuses root as a user build does."""

from __future__ import annotations

import time

import pytest

pytestmark = pytest.mark.integration


def _wait_device(adb_server, serial: str, timeout: float = 15.0) -> None:
    deadline = time.monotonic() + timeout
    while adb_server.state(serial) != "device":
        assert time.monotonic() < deadline, adb_server.run("devices").stdout
        time.sleep(0.05)


def _shell(adb_cli, serial: str, line: str) -> tuple[int, str, str]:
    r = adb_cli("-s", serial, "shell", line)
    return r.returncode, r.stdout.decode(), r.stderr.decode()


def test_posing_emulator_is_a_userdebug_google_apis_image(posing_emulator, adb_cli):
    vd, serial = posing_emulator
    _, out, _ = _shell(
        adb_cli,
        serial,
        "getprop ro.build.type; getprop ro.kernel.qemu; getprop ro.boot.qemu; getprop ro.hardware; "
        "getprop ro.product.model; getprop ro.build.fingerprint; getprop ro.debuggable",
    )
    build_type, kqemu, bqemu, hardware, model, fingerprint, debuggable = out.split()
    assert (build_type, kqemu, bqemu, hardware, debuggable) == ("userdebug", "1", "1", "ranchu", "1")
    assert model == "sdk_gphone64_x86_64"
    assert fingerprint.startswith("google/sdk_gphone64_x86_64/emu64xa:14/") and ":userdebug/dev-keys" in fingerprint


def test_adb_root_restarts_adbd_as_root_and_unroot_back(posing_emulator, adb_cli, adb_server):
    vd, serial = posing_emulator
    assert _shell(adb_cli, serial, "id -u")[1].strip() == "2000"
    r = adb_cli("-s", serial, "root")
    assert "restarting adbd as root" in r.stdout.decode()
    _wait_device(adb_server, serial)
    status, out, _ = _shell(adb_cli, serial, "id")
    assert out.startswith("uid=0(root) gid=0(root) groups=0(root),"), out
    assert _shell(adb_cli, serial, "whoami")[1].strip() == "root"
    assert _shell(adb_cli, serial, "getprop service.adb.root")[1].strip() == "1"
    assert vd.model.adbd.restarts == 1
    assert "adbd is already running as root" in adb_cli("-s", serial, "root").stdout.decode()
    # as root toybox date sets the clock
    status, out, _ = _shell(adb_cli, serial, "date 010112002030.00")
    assert status == 0 and "2030" in out
    assert _shell(adb_cli, serial, "date +%Y%m%d%H%M")[1].strip() == "203001011200"
    r = adb_cli("-s", serial, "unroot")
    assert "restarting adbd as non root" in r.stdout.decode()
    _wait_device(adb_server, serial)
    assert _shell(adb_cli, serial, "id")[1].startswith("uid=2000(shell) gid=2000(shell)")
    assert _shell(adb_cli, serial, "whoami")[1].strip() == "shell"


def test_su_runs_a_command_as_root_on_the_userdebug_image(posing_emulator, adb_cli):
    vd, serial = posing_emulator
    assert _shell(adb_cli, serial, "su 0 id -un")[1].strip() == "root"
    assert _shell(adb_cli, serial, "su root whoami")[1].strip() == "root"
    status, _, err = _shell(adb_cli, serial, "date 060708092031.10")
    assert status == 1 and "date: cannot set date: Operation not permitted" in err
    status, out, _ = _shell(adb_cli, serial, "su 0 date 060708092031.10 >/dev/null; date +%Y-%m-%dT%H:%M:%S")
    assert out.strip() == "2031-06-07T08:09:10"
    # the log stamps its lines and the status bar shows the time with the device's clock
    _, out, _ = _shell(adb_cli, serial, "log -t ClockCheck set; logcat -d -s ClockCheck")
    assert out.splitlines()[-1].startswith("06-07 08:09:"), out
    assert 'text="08:09"' in vd.model.hierarchy_xml()


def test_a_phone_profile_refuses_root_and_has_no_su(make_vdevice, adb_cli):
    vd = make_vdevice(profile="pixel_7_pro")
    r = adb_cli("-s", vd.serial, "root")
    assert "adbd cannot run as root in production builds" in r.stdout.decode() + r.stderr.decode()
    assert vd.model.adbd.restarts == 0
    assert _shell(adb_cli, vd.serial, "getprop ro.build.type")[1].strip() == "user"
    status, _, err = _shell(adb_cli, vd.serial, "su 0 id")
    assert status == 127 and "su: inaccessible or not found" in err
    status, _, err = _shell(adb_cli, vd.serial, "date 010112002030.00")
    assert status == 1 and "Operation not permitted" in err
    assert _shell(adb_cli, vd.serial, "id -u")[1].strip() == "2000"


def test_su_and_sqlite3_are_found_where_an_emulator_image_keeps_them(posing_emulator, adb_cli):
    """`which` / `command -v` name /system/xbin for the userdebug image's su and sqlite3, toybox's /system/bin else."""
    _, serial = posing_emulator
    out = adb_cli("-s", serial, "shell", "command -v su; command -v sqlite3; command -v ls").stdout
    assert out.split() == [b"/system/xbin/su", b"/system/xbin/sqlite3", b"/system/bin/ls"]
