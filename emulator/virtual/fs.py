"""An in-memory POSIX-like file system for the virtual device (what `sync:`, `ls`, `cat`, `rm` ... act on)."""

from __future__ import annotations

import copy
import errno
import posixpath
import stat as statmod
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Protocol

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


def _dir_node(mtime: float) -> Node:
    return Node(mode=statmod.S_IFDIR | 0o771, mtime=int(mtime), children={})


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


class Watcher(Protocol):
    """What keeps a file that is also a live store (a provider's database): `before_read` brings the file up to
    date before anyone reads or stats it; `after_write` takes in what was written to it. Both are called with no
    lock of the file system held, so they may take their own locks and then read or write files."""

    def before_read(self, path: str) -> None: ...

    def after_write(self, path: str) -> None: ...


class FileSystem:
    """Thread-safe tree of `Node`s. Every method takes device paths; errors are `FsError` with an errno."""

    def __init__(self, now: Callable[[], float] = time.time) -> None:
        self.now = now  # the device's wall clock: what mtimes are stamped with
        self._root = _dir_node(now())
        self._lock = threading.RLock()
        self._watches: dict[str, Watcher] = {}
        self._watched_dirs: dict[str, list[str]] = {}
        for d in _DEFAULT_DIRS:
            self.mkdir(d, parents=True)

    # --- watched files -------------------------------------------------------------------------
    def watch(self, path: str, watcher: Watcher) -> None:
        """Let `watcher` keep the file at `path` (see `Watcher`); the watch outlives `restore`."""
        p = normalize(path)
        self._watches[p] = watcher
        self._watched_dirs.setdefault(posixpath.dirname(p), []).append(p)

    def refresh(self, path: str) -> None:
        """Let a watched file's watcher bring it up to date (what every read and stat does first)."""
        if self._watches:
            p = normalize(path)
            w = self._watches.get(p)
            if w is not None:
                w.before_read(p)

    def peek(self, path: str) -> bytes | None:
        """A file's bytes as they are, without asking its watcher; None when it is not a file."""
        with self._lock:
            try:
                node = self._walk(path)
            except FsError:
                return None
            return None if node.is_dir else bytes(node.data)

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
        self.refresh(path)
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
        if self._watched_dirs:
            for p in self._watched_dirs.get(normalize(path), ()):
                self._watches[p].before_read(p)
        with self._lock:
            node = self._walk(path)
            if not node.is_dir:
                raise FsError(errno.ENOTDIR, path)
            assert node.children is not None
            return sorted(node.children.items())

    def read(self, path: str) -> bytes:
        self.refresh(path)
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
        self._write(path, data, mode, mtime, parents, append)
        if self._watches:
            p = normalize(path)
            w = self._watches.get(p)
            if w is not None:
                w.after_write(p)

    def _write(self, path: str, data: bytes, mode: int, mtime: int | None, parents: bool, append: bool) -> None:
        with self._lock:
            parent, name = self._parent(path, parents)
            assert parent.children is not None
            old = parent.children.get(name)
            if old is not None and old.is_dir:
                raise FsError(errno.EISDIR, path)
            if append and old is not None:
                old.data.extend(data)
                old.mtime = int(mtime or self.now())
                return
            perm = statmod.S_IMODE(mode) or 0o644
            parent.children[name] = Node(
                mode=statmod.S_IFREG | perm, mtime=int(mtime or self.now()), data=bytearray(data)
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
                    child = node.children[part] = _dir_node(self.now())
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
