"""The `sync:` service: push/pull/ls/stat through the real adb CLI, adbutils, and raw sync requests."""

from __future__ import annotations

import hashlib
import os
import stat
import struct
from pathlib import Path

import pytest
from adbutils import AdbError

pytestmark = pytest.mark.timeout(60)

STAT_V2 = struct.Struct("<4sIQQIIIIQqqq")


def open_sync(adb):
    c = adb.open_transport()
    c.send_command("sync:")
    c.check_okay()
    return c


def request(c, ident: bytes, payload: bytes) -> None:
    c.conn.sendall(ident + struct.pack("<I", len(payload)) + payload)


@pytest.fixture
def big_file(tmp_path: Path) -> Path:
    f = tmp_path / "big.bin"
    f.write_bytes(os.urandom(5 * 1024 * 1024 + 123))
    return f


def test_adb_cli_push_pull_5mb(vdevice, adb_cli, big_file: Path, tmp_path: Path) -> None:
    r = adb_cli("-s", vdevice.serial, "push", str(big_file), "/sdcard/Download/big.bin")
    assert r.returncode == 0, r.stderr
    assert vdevice.model.fs.read("/sdcard/Download/big.bin") == big_file.read_bytes()
    node = vdevice.model.fs.stat("/sdcard/Download/big.bin")
    assert node.mtime == int(big_file.stat().st_mtime)  # DONE carries the local mtime
    out = tmp_path / "back.bin"
    r = adb_cli("-s", vdevice.serial, "pull", "/sdcard/Download/big.bin", str(out))
    assert r.returncode == 0, r.stderr
    assert hashlib.sha256(out.read_bytes()).digest() == hashlib.sha256(big_file.read_bytes()).digest()


def test_adb_cli_push_into_a_directory(vdevice, adb_cli, tmp_path: Path) -> None:
    f = tmp_path / "note.txt"
    f.write_bytes(b"hello")
    r = adb_cli("-s", vdevice.serial, "push", str(f), "/sdcard/Documents")
    assert r.returncode == 0, r.stderr
    assert vdevice.model.fs.read("/sdcard/Documents/note.txt") == b"hello"


def test_adbutils_sync_push_pull_5mb(vdevice, big_file: Path, tmp_path: Path) -> None:
    sync = vdevice.adb.sync
    assert sync.push(str(big_file), "/data/local/tmp/big.bin") == big_file.stat().st_size
    node = vdevice.model.fs.stat("/data/local/tmp/big.bin")
    assert stat.S_IMODE(node.mode) == 0o755
    assert sync.read_bytes("/data/local/tmp/big.bin") == big_file.read_bytes()
    out = tmp_path / "pulled.bin"
    assert sync.pull("/data/local/tmp/big.bin", str(out)) == big_file.stat().st_size
    assert out.read_bytes() == big_file.read_bytes()


def test_send_creates_parent_dirs(vdevice, adb_cli, tmp_path: Path) -> None:
    vdevice.adb.sync.push(b"deep", "/sdcard/a/b/c/deep.txt")
    assert vdevice.model.fs.read("/sdcard/a/b/c/deep.txt") == b"deep"
    assert vdevice.model.fs.is_dir("/sdcard/a/b")
    f = tmp_path / "x.txt"
    f.write_bytes(b"cli")
    r = adb_cli("-s", vdevice.serial, "push", str(f), "/data/local/tmp/new/dir/x.txt")
    assert r.returncode == 0, r.stderr
    assert vdevice.model.fs.read("/data/local/tmp/new/dir/x.txt") == b"cli"


def test_adb_ls_uses_lis2_and_terminates(vdevice, adb_cli) -> None:
    vdevice.model.fs.write("/sdcard/Download/a.txt", b"12345")
    r = adb_cli("-s", vdevice.serial, "ls", "/sdcard/Download", timeout=20)
    assert r.returncode == 0, r.stderr
    names = {ln.split()[-1]: ln.split() for ln in r.stdout.decode().splitlines()}
    assert {".", "..", "a.txt"} <= set(names)
    assert int(names["a.txt"][1], 16) == 5  # size column
    assert any(e.data == {"name": "sync:"} for e in vdevice.model.events.all("service"))


def test_adb_ls_of_a_missing_dir_is_empty(vdevice, adb_cli) -> None:
    r = adb_cli("-s", vdevice.serial, "ls", "/sdcard/nope", timeout=20)
    assert r.stdout == b""


def test_raw_lis2_end_marker_is_76_bytes(vdevice) -> None:
    vdevice.model.fs.write("/sdcard/Music/song.mp3", b"\0" * 10)
    c = open_sync(vdevice.adb)
    try:
        request(c, b"LIS2", b"/sdcard/Music")
        names = []
        while True:
            head = c.read_exact(76)
            if head[:4] == b"DONE":
                assert head[4:] == b"\0" * 72
                break
            assert head[:4] == b"DNT2"
            namelen = struct.unpack("<I", head[72:76])[0]
            names.append(c.read_exact(namelen).decode())
        assert names == [".", "..", "song.mp3"]
        request(c, b"QUIT", b"")
        assert c.read_until_close(encoding=None) == b""
    finally:
        c.close()


def test_adbutils_list_and_stat(vdevice) -> None:
    vdevice.model.fs.write("/sdcard/Pictures/p.png", b"x" * 42)
    entries = {e.path: e for e in vdevice.adb.sync.list("/sdcard/Pictures")}
    assert entries["p.png"].size == 42
    assert stat.S_ISREG(entries["p.png"].mode)
    assert stat.S_ISDIR(entries["."].mode)
    st = vdevice.adb.sync.stat("/sdcard/Pictures/p.png")
    assert st.size == 42 and stat.S_ISREG(st.mode)
    assert vdevice.adb.sync.exists("/sdcard/Pictures")


def test_stat_of_a_missing_path(vdevice) -> None:
    st = vdevice.adb.sync.stat("/sdcard/missing.txt")
    assert (st.mode, st.size, st.mtime) == (0, 0, None)
    assert not vdevice.adb.sync.exists("/sdcard/missing.txt")
    c = open_sync(vdevice.adb)
    try:
        request(c, b"STA2", b"/sdcard/missing.txt")
        reply = STAT_V2.unpack(c.read_exact(72))
        assert reply[0] == b"STA2" and reply[1] == 2  # ENOENT
        request(c, b"LST2", b"/sdcard/Download")
        reply = STAT_V2.unpack(c.read_exact(72))
        assert reply[0] == b"LST2" and reply[1] == 0 and stat.S_ISDIR(reply[4])
    finally:
        c.close()


def test_recv_of_a_missing_file_fails(vdevice, adb_cli, tmp_path: Path) -> None:
    with pytest.raises(AdbError, match="No such file or directory"):
        vdevice.adb.sync.read_bytes("/sdcard/nothing.bin")
    r = adb_cli("-s", vdevice.serial, "pull", "/sdcard/nothing.bin", str(tmp_path / "n"))
    assert r.returncode != 0
    assert b"nothing.bin" in r.stderr
    c = open_sync(vdevice.adb)
    try:
        request(c, b"RECV", b"/sdcard/Download")
        assert c.read_exact(4) == b"FAIL"
        n = struct.unpack("<I", c.read_exact(4))[0]
        assert c.read_exact(n) == b"read failed: Is a directory"
    finally:
        c.close()


def _raw_send(adb, spec: bytes, data: bytes) -> bytes:
    c = open_sync(adb)
    try:
        request(c, b"SEND", spec)
        c.conn.sendall(b"DATA" + struct.pack("<I", len(data)) + data + b"DONE" + struct.pack("<I", 1_700_000_000))
        status = c.read_exact(4)
        n = struct.unpack("<I", c.read_exact(4))[0]
        return status + (c.read_exact(n) if status == b"FAIL" else b"")
    finally:
        c.close()


def test_send_errors_are_reported(vdevice, adb_cli, tmp_path: Path) -> None:
    fs = vdevice.model.fs
    assert _raw_send(vdevice.adb, b"/sdcard/Download,33188", b"x") == b"FAIL" + b"couldn't create file: Is a directory"
    assert fs.is_dir("/sdcard/Download")
    msg = _raw_send(vdevice.adb, b"/system/newdir/file,33188", b"x")
    assert msg.startswith(b"FAIL") and b"Read-only file system" in msg
    assert not fs.exists("/system/newdir")
    fs.write("/sdcard/plain", b"f")
    msg = _raw_send(vdevice.adb, b"/sdcard/plain/child,33188", b"x")
    assert msg.startswith(b"FAIL") and b"Not a directory" in msg
    # the CLI reports the device's message
    f = tmp_path / "x"
    f.write_bytes(b"x")
    r = adb_cli("-s", vdevice.serial, "push", str(f), "/system/newdir/x")
    assert r.returncode != 0 and b"Read-only file system" in r.stderr


def test_send_mode_and_mtime(vdevice) -> None:
    assert _raw_send(vdevice.adb, b"/sdcard/Download/m.sh," + str(0o100700).encode(), b"#!") == b"OKAY"
    node = vdevice.model.fs.stat("/sdcard/Download/m.sh")
    assert stat.S_IMODE(node.mode) == 0o700 and node.mtime == 1_700_000_000


def test_unknown_sync_request_fails(vdevice) -> None:
    c = open_sync(vdevice.adb)
    try:
        request(c, b"WHAT", b"")
        assert c.read_exact(4) == b"FAIL"
    finally:
        c.close()
