"""An in-memory POSIX-like file system for the virtual device (what `sync:`, `ls`, `cat`, `rm` ... act on)."""

from __future__ import annotations

import copy
import errno
import posixpath
import stat as statmod
import threading
import time
from dataclasses import dataclass, field

# Paths that are the same directory on Android.
_ALIASES = {"/storage/emulated/0": "/sdcard", "/storage/self/primary": "/sdcard", "/mnt/sdcard": "/sdcard"}

_DEFAULT_DIRS = [
    "/sdcard/Download",
    "/sdcard/DCIM/Camera",
    "/sdcard/Pictures",
    "/sdcard/Music",
    "/sdcard/Documents",
    "/sdcard/Android/data",
    "/data/local/tmp",
    "/data/app",
    "/data/data",
    "/system/bin",
    "/system/app",
    "/system/priv-app",
    "/vendor",
    "/proc",
    "/dev",
    "/etc",
    "/storage/emulated",
]


class FsError(OSError):
    """A file-system error carrying a POSIX errno (ENOENT, EISDIR, ENOTDIR, EEXIST, ENOTEMPTY)."""

    def __init__(self, code: int, path: str) -> None:
        super().__init__(code, f"{path}: {_MESSAGES.get(code, 'error')}")
        self.path = path

    @property
    def message(self) -> str:
        return "error" if self.errno is None else _MESSAGES.get(self.errno, "error")


_MESSAGES = {
    errno.ENOENT: "No such file or directory",
    errno.EISDIR: "Is a directory",
    errno.ENOTDIR: "Not a directory",
    errno.EEXIST: "File exists",
    errno.ENOTEMPTY: "Directory not empty",
    errno.EACCES: "Permission denied",
}


@dataclass
class Node:
    mode: int  # full st_mode including the file type bits
    mtime: int
    data: bytearray = field(default_factory=bytearray)
    children: dict[str, Node] | None = None  # set for directories

    @property
    def is_dir(self) -> bool:
        return self.children is not None

    @property
    def size(self) -> int:
        return 4096 if self.is_dir else len(self.data)


def _dir_node(mtime: int | None = None) -> Node:
    return Node(mode=statmod.S_IFDIR | 0o771, mtime=int(mtime or time.time()), children={})


def normalize(path: str) -> str:
    """Absolute, normalized path with Android's storage aliases resolved."""
    if not path.startswith("/"):
        path = "/" + path
    path = posixpath.normpath(path)
    if path.startswith("//"):
        path = path[1:]
    for alias, real in _ALIASES.items():
        if path == alias or path.startswith(alias + "/"):
            return real + path[len(alias) :]
    return path


class FileSystem:
    """Thread-safe tree of `Node`s. Every method takes device paths; errors are `FsError` with an errno."""

    def __init__(self) -> None:
        self._root = _dir_node()
        self._lock = threading.RLock()
        for d in _DEFAULT_DIRS:
            self.mkdir(d, parents=True)

    # --- lookups -------------------------------------------------------------------------------
    def _walk(self, path: str) -> Node:
        node = self._root
        for part in [p for p in normalize(path).split("/") if p]:
            if not node.is_dir:
                raise FsError(errno.ENOTDIR, path)
            assert node.children is not None
            if part not in node.children:
                raise FsError(errno.ENOENT, path)
            node = node.children[part]
        return node

    def stat(self, path: str) -> Node | None:
        with self._lock:
            try:
                return self._walk(path)
            except FsError:
                return None

    def exists(self, path: str) -> bool:
        return self.stat(path) is not None

    def is_dir(self, path: str) -> bool:
        n = self.stat(path)
        return n is not None and n.is_dir

    def listdir(self, path: str) -> list[tuple[str, Node]]:
        with self._lock:
            node = self._walk(path)
            if not node.is_dir:
                raise FsError(errno.ENOTDIR, path)
            assert node.children is not None
            return sorted(node.children.items())

    def read(self, path: str) -> bytes:
        with self._lock:
            node = self._walk(path)
            if node.is_dir:
                raise FsError(errno.EISDIR, path)
            return bytes(node.data)

    # --- changes -------------------------------------------------------------------------------
    def _parent(self, path: str, parents: bool) -> tuple[Node, str]:
        p = normalize(path)
        head, name = posixpath.split(p)
        if not name:
            raise FsError(errno.EEXIST, path)
        if parents:
            self.mkdir(head, parents=True)
        parent = self._walk(head)
        if not parent.is_dir:
            raise FsError(errno.ENOTDIR, path)
        return parent, name

    def write(
        self,
        path: str,
        data: bytes,
        mode: int = 0o644,
        mtime: int | None = None,
        parents: bool = False,
        append: bool = False,
    ) -> None:
        with self._lock:
            parent, name = self._parent(path, parents)
            assert parent.children is not None
            old = parent.children.get(name)
            if old is not None and old.is_dir:
                raise FsError(errno.EISDIR, path)
            if append and old is not None:
                old.data.extend(data)
                old.mtime = int(mtime or time.time())
                return
            perm = statmod.S_IMODE(mode) or 0o644
            parent.children[name] = Node(
                mode=statmod.S_IFREG | perm, mtime=int(mtime or time.time()), data=bytearray(data)
            )

    def mkdir(self, path: str, parents: bool = False) -> None:
        with self._lock:
            p = normalize(path)
            if p == "/":
                return
            node = self._root
            parts = [x for x in p.split("/") if x]
            for i, part in enumerate(parts):
                assert node.children is not None
                child = node.children.get(part)
                last = i == len(parts) - 1
                if child is None:
                    if not last and not parents:
                        raise FsError(errno.ENOENT, path)
                    child = node.children[part] = _dir_node()
                elif not child.is_dir:
                    raise FsError(errno.ENOTDIR if not last else errno.EEXIST, path)
                elif last and not parents:
                    raise FsError(errno.EEXIST, path)
                node = child

    def remove(self, path: str, recursive: bool = False) -> None:
        with self._lock:
            parent, name = self._parent(path, parents=False)
            assert parent.children is not None
            node = parent.children.get(name)
            if node is None:
                raise FsError(errno.ENOENT, path)
            if node.is_dir and not recursive:
                raise FsError(errno.EISDIR, path)
            del parent.children[name]

    # --- snapshots -----------------------------------------------------------------------------
    def snapshot(self) -> Node:
        with self._lock:
            return copy.deepcopy(self._root)

    def restore(self, root: Node) -> None:
        with self._lock:
            self._root = copy.deepcopy(root)
