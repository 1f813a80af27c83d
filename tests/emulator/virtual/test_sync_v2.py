"""Sync v2 (SND2/RCV2): compressed push/pull and dry-run push through the real adb CLI, and raw requests."""

from __future__ import annotations

import os
import struct
import subprocess
import sys
from pathlib import Path

import pytest

from emulator.virtual import protocol, sync_codecs

pytestmark = pytest.mark.timeout(120)

CODECS = ["brotli", "lz4", "zstd"]
REQ = struct.Struct("<4sI")


def sync_events(vd, op: str) -> list[dict]:
    return [e.data for e in vd.model.events.all() if e.kind == "sync" and e.data.get("op") == op]


def open_sync(vd):
    c = vd.adb.open_transport()
    c.send_command("sync:")
    c.check_okay()
    return c


def read_status(c) -> tuple[bytes, bytes]:
    ident, length = REQ.unpack(c.read(REQ.size))
    return ident, (c.read(length) if ident == b"FAIL" and length else b"")


@pytest.fixture
def payload(tmp_path: Path) -> Path:
    f = tmp_path / "random.bin"
    f.write_bytes(os.urandom(3 * 1024 * 1024 + 4321))
    return f


@pytest.fixture
def empty(tmp_path: Path) -> Path:
    f = tmp_path / "empty.bin"
    f.write_bytes(b"")
    return f


def test_the_host_sees_the_api_34_features(vdevice, adb_cli) -> None:
    r = adb_cli("-s", vdevice.serial, "features")
    assert r.returncode == 0, r.stderr
    listed = r.stdout.decode().split()
    assert set(listed) == set(protocol.DEVICE_FEATURES)
    for feature in ("sendrecv_v2", "sendrecv_v2_dry_run_send", "abb", "abb_exec", "stat_v2", "ls_v2", "shell_v2"):
        assert feature in listed
    assert {f"sendrecv_v2_{c}" for c in CODECS} <= set(listed)  # the three codecs import here


@pytest.mark.slow
@pytest.mark.parametrize("codec", [*CODECS, "none"])
def test_push_and_pull_round_trip_with_each_compression(vdevice, adb_cli, payload, empty, tmp_path, codec) -> None:
    flag = ["-Z"] if codec == "none" else ["-z", codec]
    for src in (payload, empty):
        remote = f"/sdcard/Download/{codec}-{src.name}"
        r = adb_cli("-s", vdevice.serial, "push", *flag, str(src), remote)
        assert r.returncode == 0, r.stderr
        assert vdevice.model.fs.read(remote) == src.read_bytes()
        back = tmp_path / f"back-{codec}-{src.name}"
        r = adb_cli("-s", vdevice.serial, "pull", *flag, remote, str(back))
        assert r.returncode == 0, r.stderr
        assert back.read_bytes() == src.read_bytes()
    # the large file went both ways through the codec asked for (a small file is pushed with SEND v1, uncompressed)
    want = "none" if codec == "none" else codec
    assert [e["compression"] for e in sync_events(vdevice, "send") if e["size"] > 0] == [want]
    assert {e["compression"] for e in sync_events(vdevice, "recv")} == {want}


def test_push_dry_run_writes_nothing_and_succeeds(vdevice, adb_cli, payload, tmp_path) -> None:
    small = tmp_path / "small.txt"
    small.write_bytes(b"not stored")
    vdevice.model.fs.write("/sdcard/Download/kept.txt", b"original")
    for src, remote in (
        (payload, "/sdcard/Download/never.bin"),
        (small, "/sdcard/Download/kept.txt"),
        (small, "/data/local/tmp/new/dir/never.txt"),
        (small, "/system/never.txt"),  # adbd's dry run checks nothing on the device
    ):
        r = adb_cli("-s", vdevice.serial, "push", "-n", str(src), remote)
        assert r.returncode == 0, r.stderr
    assert vdevice.model.fs.stat("/sdcard/Download/never.bin") is None
    assert vdevice.model.fs.read("/sdcard/Download/kept.txt") == b"original"
    assert vdevice.model.fs.stat("/data/local/tmp/new") is None
    assert vdevice.model.fs.stat("/system/never.txt") is None
    assert all(e["dry_run"] for e in sync_events(vdevice, "send"))


def test_a_real_push_still_fails_where_the_shell_user_cannot_write(vdevice, adb_cli, payload) -> None:
    r = adb_cli("-s", vdevice.serial, "push", "-z", "zstd", str(payload), "/system/denied.bin")
    assert r.returncode != 0
    assert b"Read-only file system" in r.stderr
    assert vdevice.model.fs.stat("/system/denied.bin") is None


def _snd2(c, path: str, mode: int, flags: int) -> None:
    raw = path.encode()
    c.conn.sendall(REQ.pack(b"SND2", len(raw)) + raw + struct.pack("<4sII", b"SND2", mode, flags))


def test_snd2_with_two_compressions_is_refused_as_adbd_words_it(vdevice) -> None:
    c = open_sync(vdevice)
    _snd2(c, "/sdcard/x.bin", 0o100644, sync_codecs.FLAG_BROTLI | sync_codecs.FLAG_ZSTD)
    assert read_status(c) == (b"FAIL", b"multiple compression flags received: 5")


def test_rcv2_refuses_unknown_flags_and_the_dry_run_bit(vdevice) -> None:
    vdevice.model.fs.write("/sdcard/y.txt", b"y")
    for flags, message in ((8, b"unknown flags: 8"), (sync_codecs.FLAG_DRY_RUN, b"unknown flags: -2147483648")):
        c = open_sync(vdevice)
        raw = b"/sdcard/y.txt"
        c.conn.sendall(REQ.pack(b"RCV2", len(raw)) + raw + struct.pack("<4sI", b"RCV2", flags))
        assert read_status(c) == (b"FAIL", message)


def test_rcv2_streams_one_compressed_frame_in_data_chunks(vdevice) -> None:
    data = os.urandom(200_000) + bytes(300_000)
    vdevice.model.fs.write("/sdcard/z.bin", data)
    c = open_sync(vdevice)
    raw = b"/sdcard/z.bin"
    c.conn.sendall(REQ.pack(b"RCV2", len(raw)) + raw + struct.pack("<4sI", b"RCV2", sync_codecs.FLAG_ZSTD))
    dec = sync_codecs.decoder("zstd")
    out = bytearray()
    while True:
        ident, length = REQ.unpack(c.read(REQ.size))
        if ident == b"DONE":
            break
        assert ident == b"DATA" and 0 < length <= 64 * 1024
        out += dec.feed(c.read(length))
    out += dec.finish()
    assert bytes(out) == data


def test_a_corrupt_compressed_push_fails_and_writes_nothing(vdevice) -> None:
    c = open_sync(vdevice)
    _snd2(c, "/sdcard/bad.bin", 0o100644, sync_codecs.FLAG_LZ4)
    junk = b"this is not an LZ4 frame" * 10
    c.conn.sendall(REQ.pack(b"DATA", len(junk)) + junk + REQ.pack(b"DONE", 0))
    assert read_status(c) == (b"FAIL", b"decompress failed")
    assert vdevice.model.fs.stat("/sdcard/bad.bin") is None


def test_a_compressed_push_with_mode_and_mtime(vdevice) -> None:
    data = b"hello v2 " * 5000
    enc = sync_codecs.encoder("brotli")
    blob = enc.feed(data) + enc.finish()
    c = open_sync(vdevice)
    _snd2(c, "/data/local/tmp/v2.txt", 0o100640, sync_codecs.FLAG_BROTLI)
    half = len(blob) // 2  # the chunk boundaries mean nothing: split the stream anywhere
    for part in (blob[:half], blob[half:]):
        c.conn.sendall(REQ.pack(b"DATA", len(part)) + part)
    c.conn.sendall(REQ.pack(b"DONE", 1_700_000_000))
    assert read_status(c) == (b"OKAY", b"")
    node = vdevice.model.fs.stat("/data/local/tmp/v2.txt")
    assert vdevice.model.fs.read("/data/local/tmp/v2.txt") == data
    assert node.mtime == 1_700_000_000 and node.mode & 0o777 == 0o640


def test_a_codec_that_does_not_import_is_not_advertised() -> None:
    """A fresh interpreter where `lz4` cannot be imported: the banner lacks sendrecv_v2_lz4, the rest stays."""
    code = (
        "import sys; sys.modules['lz4'] = None; sys.modules['lz4.frame'] = None\n"
        "from emulator.virtual import protocol, sync_codecs\n"
        "print(','.join(protocol.DEVICE_FEATURES)); print(sync_codecs.parse_flags(2, allow_dry_run=False))\n"
    )
    root = Path(__file__).resolve().parents[3]
    r = subprocess.run([sys.executable, "-c", code], cwd=root, capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr
    features, refused = r.stdout.splitlines()
    assert "sendrecv_v2_lz4" not in features.split(",")
    assert {"sendrecv_v2", "sendrecv_v2_brotli", "sendrecv_v2_zstd", "abb"} <= set(features.split(","))
    assert refused == "unknown flags: 2"
