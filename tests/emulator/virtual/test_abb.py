"""`abb:` / `abb_exec:` (`adb abb ...`, `adb install` over abb_exec) against `adb shell cmd ...`."""

from __future__ import annotations

import struct
from pathlib import Path

import adbutils
import pytest

from emulator.virtual.services.abb_service import command_line, parse_args

pytestmark = pytest.mark.timeout(60)

U2_APK = Path(adbutils.__file__).resolve().parent.parent / "uiautomator2" / "assets" / "app-uiautomator.apk"


def test_args_split_at_nul_and_quoted_for_the_shell() -> None:
    assert parse_args("package\0list\0\0packages\0") == ["package", "list", "packages"]
    assert parse_args("") == []
    assert command_line(["settings", "put", "global", "x", "a b;$(rm -r /)"]) == (
        "cmd settings put global x 'a b;$(rm -r /)'"
    )


def test_adb_abb_prints_what_adb_shell_cmd_prints(vdevice, adb_cli) -> None:
    abb = adb_cli("-s", vdevice.serial, "abb", "package", "list", "packages")
    cmd = adb_cli("-s", vdevice.serial, "shell", "cmd", "package", "list", "packages")
    assert cmd.returncode == 0
    assert b"package:com.android.settings" in abb.stdout
    assert abb.stdout == cmd.stdout
    assert abb.stderr == cmd.stderr == b""
    assert any(e.kind == "service" and e.data["name"].startswith("abb:") for e in vdevice.model.events.all())


def test_an_unknown_service_fails_with_cmds_error(vdevice, adb_cli) -> None:
    abb = adb_cli("-s", vdevice.serial, "abb", "nosuchservice", "x")
    cmd = adb_cli("-s", vdevice.serial, "shell", "cmd", "nosuchservice", "x")
    assert cmd.returncode != 0 and abb.returncode != 0
    assert abb.stderr == cmd.stderr == b"cmd: Can't find service: nosuchservice\n"
    assert abb.stdout == cmd.stdout == b""


def test_abb_without_arguments_matches_cmd_without_arguments(vdevice, adb_cli) -> None:
    """AOSP's AbbTest.test_smoke: the same output as `adb shell cmd`; adbd's abb exits 1 whatever cmd returned."""
    abb = adb_cli("-s", vdevice.serial, "abb")
    cmd = adb_cli("-s", vdevice.serial, "shell", "cmd")
    assert abb.stdout == cmd.stdout == b""
    assert abb.stderr == cmd.stderr
    assert cmd.stderr.startswith(b"cmd: No service specified; use -l to list all running services.")
    assert cmd.returncode == 20 and abb.returncode == 1


def test_abb_exits_1_as_adbds_in_process_command_does(vdevice) -> None:
    """The shell protocol's exit packet of `abb:` carries 1 even after a success."""
    c = vdevice.adb.open_transport()
    c.send_command("abb:package\0list\0packages\0")
    c.check_okay()
    frames: list[tuple[int, bytes]] = []
    while True:
        head = c.read(5)
        if len(head) < 5:
            break
        kind, length = struct.unpack("<BI", head)
        frames.append((kind, c.read(length)))
        if kind == 3:
            break
    assert frames[-1] == (3, b"\x01")
    assert b"package:com.android.settings" in b"".join(d for k, d in frames if k == 1)


def test_abb_exec_is_raw_with_stderr_merged(vdevice) -> None:
    c = vdevice.adb.open_transport()
    c.send_command("abb_exec:nosuchservice\0")
    c.check_okay()
    assert c.read_until_close() == "cmd: Can't find service: nosuchservice\n"


@pytest.mark.slow
def test_adb_install_streams_the_apk_over_abb_exec(vdevice, adb_cli) -> None:
    """With abb_exec advertised, `adb install` sends the APK to `abb_exec:package install -S N`."""
    vdevice.model.packages.pop("com.github.uiautomator", None)
    r = adb_cli("-s", vdevice.serial, "install", str(U2_APK))
    assert r.returncode == 0, (r.stdout, r.stderr)
    assert b"Success" in r.stdout
    assert "com.github.uiautomator" in vdevice.model.packages
    names = [e.data["name"] for e in vdevice.model.events.all() if e.kind == "service"]
    assert any(n.startswith("abb_exec:package\0install\0-S\0") for n in names), names
