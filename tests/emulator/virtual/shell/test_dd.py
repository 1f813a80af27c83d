"""toybox dd through the real adb binary: /dev/urandom and /dev/zero as inputs, files made then pulled, skip/seek
offsets, conv=notrunc/sync, the "records in/out" and "bytes copied" lines on stderr."""

from __future__ import annotations

import re

import pytest

from emulator.virtual.shell.cmd_dd import human_readable, parse_size

pytestmark = pytest.mark.integration

STATUS = re.compile(r"(\d+) bytes \(([^)]*)\) copied, \d+\.\d{6} s, [\d.]+ [BKMGT]/s\n")


def _sh(adb_cli, serial: str, line: str) -> tuple[int, bytes, str]:
    r = adb_cli("-s", serial, "shell", line)
    return r.returncode, r.stdout, r.stderr.decode()


def test_sizes_and_human_readable_as_toybox_prints_them():
    assert [parse_size(t, 0) for t in ("512", "1k", "1K", "1m", "2M", "1g", "1kd", "0x10", "010", "2b")] == [
        512,
        1024,
        1024,
        1 << 20,
        2 << 20,
        1 << 30,
        1000,
        16,
        8,
        1024,
    ]
    assert [human_readable(n) for n in (0, 512, 999, 1000, 2 << 20, 1536, 100 * 10**6)] == [
        "0 B",
        "512 B",
        "999 B",
        "0.9 K",  # toybox's arithmetic: 1000 / 1024, one decimal, rounded down
        "2.0 M",
        "1.5 K",
        "95 M",
    ]


def test_dd_urandom_then_pull_is_two_mib(posing_emulator, adb_cli, tmp_path):
    _, serial = posing_emulator
    status, out, err = _sh(adb_cli, serial, "dd if=/dev/urandom of=/data/local/tmp/rnd bs=1m count=2")
    assert status == 0 and out == b""
    lines = err.splitlines(keepends=True)
    assert lines[:2] == ["2+0 records in\n", "2+0 records out\n"]
    m = STATUS.fullmatch(lines[2])
    assert m is not None and m.groups() == ("2097152", "2.0 M"), lines[2]
    local = tmp_path / "rnd"
    assert adb_cli("-s", serial, "pull", "/data/local/tmp/rnd", str(local)).returncode == 0
    data = local.read_bytes()
    assert len(data) == 2 << 20 and data != bytes(len(data))  # random, not zeros
    md5 = _sh(adb_cli, serial, "md5sum /data/local/tmp/rnd")[1].split()[0].decode()
    import hashlib

    assert md5 == hashlib.md5(data).hexdigest()


def test_dd_skip_and_seek_copy_the_right_bytes(posing_emulator, adb_cli, tmp_path):
    _, serial = posing_emulator
    src = tmp_path / "src"
    payload = bytes(range(256)) * 16  # 4096 bytes
    src.write_bytes(payload)
    assert adb_cli("-s", serial, "push", str(src), "/data/local/tmp/src").returncode == 0
    # 3 blocks of 100 from block 2 of the input, written from block 1 of the output
    status, _, err = _sh(
        adb_cli, serial, "dd if=/data/local/tmp/src of=/data/local/tmp/dst bs=100 skip=2 seek=1 count=3"
    )
    assert status == 0 and err.startswith("3+0 records in\n3+0 records out\n300 bytes (300 B) copied, ")
    out = tmp_path / "dst"
    assert adb_cli("-s", serial, "pull", "/data/local/tmp/dst", str(out)).returncode == 0
    assert out.read_bytes() == bytes(100) + payload[200:500]
    # conv=notrunc keeps what lies after the written block
    _sh(adb_cli, serial, "dd if=/dev/zero of=/data/local/tmp/src bs=10 count=1 seek=1 conv=notrunc status=none")
    assert adb_cli("-s", serial, "pull", "/data/local/tmp/src", str(out)).returncode == 0
    assert out.read_bytes() == payload[:10] + bytes(10) + payload[20:]
    # without it the file ends where the written block does
    _sh(adb_cli, serial, "dd if=/dev/zero of=/data/local/tmp/src bs=10 count=1 seek=1 status=none")
    assert _sh(adb_cli, serial, "stat -c %s /data/local/tmp/src")[1] == b"20\n"


def test_dd_to_stdout_partial_records_and_status(posing_emulator, adb_cli):
    _, serial = posing_emulator
    status, out, err = _sh(adb_cli, serial, "dd if=/dev/zero bs=1000 count=1 2>/dev/null; echo foo")
    assert status == 0 and out == bytes(1000) + b"foo\n" and err == ""
    status, out, err = _sh(adb_cli, serial, "echo hello | dd ibs=4 obs=3 status=noxfer")
    assert out == b"hello\n"
    assert err == "1+1 records in\n2+0 records out\n"
    status, out, err = _sh(adb_cli, serial, "printf abc | dd bs=8 conv=sync status=none")
    assert out == b"abc" + bytes(5) and err == ""
    status, _, err = _sh(adb_cli, serial, "dd if=/data/local/tmp/nope of=/dev/null")
    assert status == 1 and err == "dd: /data/local/tmp/nope: No such file or directory\n"
    status, _, err = _sh(adb_cli, serial, "dd bogus")
    assert status == 1 and err == "dd: bad arg bogus\n"
    status, _, err = _sh(adb_cli, serial, "dd if=/dev/zero of=/system/x count=1")
    assert status == 1 and err == "dd: /system/x: Read-only file system\n"
