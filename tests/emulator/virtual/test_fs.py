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


def test_generation_moves_with_every_change_and_only_then():
    from emulator.virtual.fs import FileSystem

    fs = FileSystem(lambda: 1_800_000_000.0)
    seen = [fs.generation]

    def changed() -> bool:
        moved = fs.generation != seen[-1]
        seen.append(fs.generation)
        return moved

    fs.write("/sdcard/a.txt", b"x")
    assert changed()
    fs.read("/sdcard/a.txt"), fs.stat("/sdcard/a.txt"), fs.listdir("/sdcard"), fs.peek("/sdcard/a.txt")
    snap = fs.snapshot()
    assert not changed()  # reads and snapshots change nothing
    fs.write("/sdcard/a.txt", b"y", append=True)
    assert changed()
    fs.mkdir("/sdcard/d")
    assert changed()
    fs.mkdir("/sdcard/d", parents=True)  # there already: no change
    assert not changed()
    fs.chmod("/sdcard/a.txt", 0o600)
    assert changed()
    fs.chown("/sdcard/a.txt", 10001, None)
    assert changed()
    fs.remove("/sdcard/d", recursive=True)
    assert changed()
    fs.restore(snap)
    assert changed() and fs.peek("/sdcard/a.txt") == b"x"
    assert seen == sorted(seen)  # never reused


def test_a_tree_copy_is_a_deep_copy_that_shares_nothing_mutable():
    import copy

    from emulator.virtual.fs import copy_tree

    fs = FileSystem()
    fs.write("/sdcard/Download/a.txt", b"hello", mode=0o640, mtime=1700000000)
    fs.mkdir("/data/data/com.example/databases", parents=True)
    fs.chown("/sdcard/Download/a.txt", 10123, 1015)
    root = fs.snapshot()
    assert copy_tree(root) == copy.deepcopy(root) == root  # dataclass equality: every field, the whole tree

    def nodes(n):
        yield n
        for child in (n.children or {}).values():
            yield from nodes(child)

    copied = copy_tree(root)
    pairs = list(zip(nodes(root), nodes(copied), strict=True))
    assert all(a is not b and (a.children is None or a.children is not b.children) for a, b in pairs)
    fs.restore(root)
    fs.write("/sdcard/Download/a.txt", b"changed")
    fs.write("/sdcard/Download/b.txt", b"new")
    assert fs.snapshot() != root and copy_tree(root) == copied, "a restored tree's changes never reach the snapshot"
