"""toybox's find expression, `ls -ll`, `cp -a SRC/. DST` and MediaStore's rows over shared storage, through the real
adb binary - the commands AndroidWorld's set-ups and judges run (file_utils, app_snapshot, clear_device_storage)."""

from __future__ import annotations

import re

import pytest

pytestmark = pytest.mark.integration


def _sh(adb_cli, serial: str, line: str) -> tuple[int, str]:
    r = adb_cli("-s", serial, "shell", line)
    return r.returncode, (r.stdout + r.stderr).decode()


def _root(adb_cli, serial: str) -> None:
    assert adb_cli("-s", serial, "root").returncode == 0
    for _ in range(100):
        if _sh(adb_cli, serial, "id -u") == (0, "0\n"):
            return
    raise AssertionError("adbd did not come back as root")


@pytest.fixture
def serial(posing_emulator, adb_cli) -> str:
    _, s = posing_emulator
    tree = "mkdir -p /sdcard/T/a/b /sdcard/T/c; echo 1 > /sdcard/T/x.md; echo 22 > /sdcard/T/a/y.txt; "
    tree += "echo 333 > /sdcard/T/a/b/z.md; : > /sdcard/T/c/empty"
    assert _sh(adb_cli, s, tree)[0] == 0
    return s


def _lines(out: str) -> list[str]:
    return sorted(out.split("\n")[:-1])


def test_find_s_expression(serial, adb_cli):
    s = serial
    assert _lines(_sh(adb_cli, s, "find /sdcard/T -type f -o -type d")[1]) == [
        "/sdcard/T",
        "/sdcard/T/a",
        "/sdcard/T/a/b",
        "/sdcard/T/a/b/z.md",
        "/sdcard/T/a/y.txt",
        "/sdcard/T/c",
        "/sdcard/T/c/empty",
        "/sdcard/T/x.md",
    ]
    assert _lines(_sh(adb_cli, s, "find /sdcard/T -name '*.md'")[1]) == ["/sdcard/T/a/b/z.md", "/sdcard/T/x.md"]
    assert _lines(_sh(adb_cli, s, "find /sdcard/T -mindepth 2 -maxdepth 2 -type f")[1]) == [
        "/sdcard/T/a/y.txt",
        "/sdcard/T/c/empty",
    ]
    assert _lines(_sh(adb_cli, s, "find /sdcard/T ! -type d -size -2c")[1]) == ["/sdcard/T/c/empty"]
    assert _lines(_sh(adb_cli, s, r"find /sdcard/T \( -name a -o -name c \) -prune")[1]) == [
        "/sdcard/T/a",
        "/sdcard/T/c",
    ]
    assert _lines(_sh(adb_cli, s, "find /sdcard/T -path '*/b/*'")[1]) == ["/sdcard/T/a/b/z.md"]
    assert _sh(adb_cli, s, "find /sdcard/T -empty -type f -print0")[1] == "/sdcard/T/c/empty\0"
    status, out = _sh(adb_cli, s, "find /sdcard/T -bogus")
    assert status == 1 and out == "find: Unknown option '-bogus'\n"
    # clear_device_storage: every regular file under shared storage, the folders left
    assert _sh(adb_cli, s, "find /storage/emulated/0/ -mindepth 1 -type f -delete") == (0, "")
    assert _lines(_sh(adb_cli, s, "find /sdcard/T")[1]) == ["/sdcard/T", "/sdcard/T/a", "/sdcard/T/a/b", "/sdcard/T/c"]
    status, out = _sh(adb_cli, s, "find /sdcard/T/a -delete; ls /sdcard/T")
    assert status == 0 and out.split() == ["c"]  # empty folders go, children first


def test_ls_full_time_and_files_stamped_by_the_device_clock(serial, adb_cli):
    s = serial
    _root(adb_cli, s)
    assert _sh(adb_cli, s, "date 112912002026.00; echo a > /sdcard/T/late; date 112908002026.00")[0] == 0
    assert _sh(adb_cli, s, "echo b > /sdcard/T/early")[0] == 0
    out = _sh(adb_cli, s, "ls /sdcard/T -ll -au")[1]
    line = next(x for x in out.splitlines() if x.endswith(" late"))
    # AndroidWorld's parse: the 6th and 7th fields, less the last three digits, are an ISO time
    parts = line.split(None, 8)
    assert " ".join(parts[5:7])[:-3] == "2026-11-29 12:00:00.000000" and re.fullmatch(r"[+-]\d{4}", parts[7])
    early = next(x for x in out.splitlines() if x.endswith(" early")).split(None, 8)
    assert early[5:7] == ["2026-11-29", "08:00:00.000000000"]
    assert _sh(adb_cli, s, "ls -l /sdcard/T/late")[1].split()[5:7] == ["2026-11-29", "12:00"]


def test_cp_a_of_a_dot_copies_the_contents_and_keeps_owner_mode_and_time(serial, adb_cli):
    s = serial
    _root(adb_cli, s)
    setup = "mkdir -p /data/data/p.q/shared_prefs /data/snap/p.q; echo v > /data/data/p.q/shared_prefs/x.xml; "
    setup += "chown 10123:10123 /data/data/p.q/shared_prefs/x.xml; chmod 660 /data/data/p.q/shared_prefs/x.xml"
    assert _sh(adb_cli, s, setup)[0] == 0
    before = _sh(adb_cli, s, "ls -lln /data/data/p.q/shared_prefs/x.xml")[1].split()
    assert _sh(adb_cli, s, "cp -a /data/data/p.q/. /data/snap/p.q/") == (0, "")
    assert _sh(adb_cli, s, "ls /data/snap/p.q")[1].split() == ["shared_prefs"]  # not p.q/p.q
    after = _sh(adb_cli, s, "ls -lln /data/snap/p.q/shared_prefs/x.xml")[1].split()
    assert after[:8] == before[:8]  # mode, owner, size and time kept
    assert _sh(adb_cli, s, "rm -r /data/data/p.q/*; cp -a /data/snap/p.q/. /data/data/p.q/") == (0, "")
    assert _sh(adb_cli, s, "cat /data/data/p.q/shared_prefs/x.xml")[1] == "v\n"


def test_media_store_lists_and_deletes_shared_storage_files(serial, adb_cli):
    s = serial
    assert _sh(adb_cli, s, "echo d > /sdcard/Download/a.txt; echo p > /sdcard/Download/b.png")[0] == 0
    out = _sh(adb_cli, s, "content query --uri content://media/external/downloads --projection _display_name:mime_type")
    assert _lines(out[1]) == [
        "Row: 0 _display_name=a.txt, mime_type=text/plain",
        "Row: 1 _display_name=b.png, mime_type=image/png",
    ]
    images = _sh(adb_cli, s, "content query --uri content://media/external/images/media --projection _data")[1]
    assert images == "Row: 0 _data=/storage/emulated/0/Download/b.png\n"
    assert (
        _sh(adb_cli, s, "content delete --uri content://media/external/downloads --where \"_display_name='a.txt'\"")[0]
        == 0
    )
    assert _sh(adb_cli, s, "ls /sdcard/Download")[1].split() == ["b.png"]
    assert _sh(adb_cli, s, "content delete --uri content://media/external/downloads")[0] == 0
    assert _sh(adb_cli, s, "ls /sdcard/Download")[1] == "" and _sh(adb_cli, s, "ls /sdcard/T")[1] != ""
