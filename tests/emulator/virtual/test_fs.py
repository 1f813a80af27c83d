import errno

import pytest

from emulator.virtual.fs import FileSystem, FsError, normalize


def test_normalize_resolves_storage_aliases_and_dots():
    assert normalize("/storage/emulated/0/Download/../DCIM") == "/sdcard/DCIM"
    assert normalize("sdcard//a/./b") == "/sdcard/a/b"
    assert normalize("/storage/self/primary") == "/sdcard"


def test_write_read_list_remove_roundtrip():
    fs = FileSystem()
    fs.write("/sdcard/Download/a.txt", b"hello", mode=0o600, mtime=1700000000)
    node = fs.stat("/storage/emulated/0/Download/a.txt")
    assert node is not None and node.size == 5 and node.mtime == 1700000000 and node.mode & 0o777 == 0o600
    assert fs.read("/sdcard/Download/a.txt") == b"hello"
    assert [n for n, _ in fs.listdir("/sdcard/Download")] == ["a.txt"]
    fs.write("/sdcard/Download/a.txt", b"++", append=True)
    assert fs.read("/sdcard/Download/a.txt") == b"hello++"
    fs.remove("/sdcard/Download/a.txt")
    assert not fs.exists("/sdcard/Download/a.txt")


@pytest.mark.parametrize(
    "op, code",
    [
        (lambda fs: fs.read("/sdcard/missing"), errno.ENOENT),
        (lambda fs: fs.read("/sdcard"), errno.EISDIR),
        (lambda fs: fs.write("/no/such/dir/f", b""), errno.ENOENT),
        (lambda fs: fs.remove("/sdcard/Download"), errno.EISDIR),
        (lambda fs: fs.mkdir("/sdcard/Download"), errno.EEXIST),
        (lambda fs: fs.listdir("/data/local/tmp/u2.jar"), errno.ENOTDIR),
    ],
)
def test_errors_carry_errno(op, code):
    fs = FileSystem()
    fs.write("/data/local/tmp/u2.jar", b"x")
    with pytest.raises(FsError) as e:
        op(fs)
    assert e.value.errno == code


def test_parents_created_on_request_and_snapshot_restore():
    fs = FileSystem()
    fs.write("/sdcard/a/b/c.bin", b"1", parents=True)
    snap = fs.snapshot()
    fs.remove("/sdcard/a", recursive=True)
    assert not fs.exists("/sdcard/a/b/c.bin")
    fs.restore(snap)
    assert fs.read("/sdcard/a/b/c.bin") == b"1"
