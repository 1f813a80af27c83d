"""An in-memory POSIX-like file system for the virtual device (what `sync:`, `ls`, `cat`, `rm` ... act on)."""

from __future__ import annotations

import errno
import posixpath
import stat as statmod
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Protocol

# Paths that are the same directory on Android.
_ALIASES = {
    "/storage/emulated/0": "/sdcard",
    "/storage/self/primary": "/sdcard",
    "/mnt/sdcard": "/sdcard",
    "/data/media/0": "/sdcard",
}

_DEFAULT_DIRS = [
    # shared storage's standard folders (Environment.STANDARD_DIRECTORIES), as a fresh Android 14 image has them
    "/sdcard/Alarms",
    "/sdcard/Android/data",
    "/sdcard/Android/media",
    "/sdcard/Audiobooks",
    "/sdcard/DCIM/Camera",
    "/sdcard/Documents",
    "/sdcard/Download",
    "/sdcard/Movies",
    "/sdcard/Music",
    "/sdcard/Notifications",
    "/sdcard/Pictures",
    "/sdcard/Podcasts",
    "/sdcard/Recordings",
    "/sdcard/Ringtones",
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


# the modes and owners of the image's own directories, where they differ from 0771 root:root (made as needed)
_DIR_MODES = {
    "/": (0o755, 0, 0),
    "/dev": (0o755, 0, 0),
    "/etc": (0o755, 0, 0),
    "/proc": (0o555, 0, 0),
    "/system": (0o755, 0, 0),
    "/system/bin": (0o755, 0, 2000),
    "/system/app": (0o755, 0, 0),
    "/system/priv-app": (0o755, 0, 0),
    "/vendor": (0o755, 0, 2000),
    "/data": (0o771, 1000, 1000),
    "/data/app": (0o771, 1000, 1000),
    "/data/data": (0o771, 1000, 1000),
    "/data/local": (0o751, 0, 0),
    "/data/local/tmp": (0o771, 2000, 2000),
    "/storage": (0o755, 0, 0),
}


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
    errno.EROFS: "Read-only file system",
    errno.EPERM: "Operation not permitted",
}


@dataclass
class Node:
    mode: int  # full st_mode including the file type bits
    mtime: int
    data: bytes = b""  # immutable: a snapshot's deep copy and a restore share it (issue 50: one copy a device)
    children: dict[str, Node] | None = None  # set for directories
    uid: int = 0
    gid: int = 0
    rdev: int = 0  # (major << 8) | minor of a character device

    @property
    def is_chr(self) -> bool:
        return statmod.S_ISCHR(self.mode)

    @property
    def is_dir(self) -> bool:
        return self.children is not None

    @property
    def size(self) -> int:
        return 4096 if self.is_dir else len(self.data)


def _dir_node(mtime: float, owner: tuple[int, int] = (0, 0)) -> Node:
    return Node(mode=statmod.S_IFDIR | 0o771, mtime=int(mtime), children={}, uid=owner[0], gid=owner[1])


# --- permissions ------------------------------------------------------------------------------------------------
R_OK, W_OK, X_OK = 4, 2, 1
SHELL_UID = 2000
APP_UID, MEDIA_RW = 10148, 1023  # who owns /sdcard's files as the FUSE view shows them (u0_a148 media_rw)
READ_ONLY_MOUNTS = ("/system", "/vendor", "/product", "/system_ext", "/apex", "/odm")
FUSE_ROOTS = ("/sdcard", "/storage")  # MediaProvider's FUSE: it decides access, not the mode bits
# the character devices every image has: name -> (mode, major, minor)
DEV_NODES = {"null": (0o666, 1, 3), "zero": (0o666, 1, 5), "random": (0o666, 1, 8), "urandom": (0o666, 1, 9)}


def copy_tree(node: Node) -> Node:
    """`copy.deepcopy(node)` for a tree of nodes (no node in two places: there are no hard links), ~10x faster: a
    node's fields are numbers and immutable bytes but for its children."""
    out = Node.__new__(Node)
    out.__dict__.update(node.__dict__)  # every field, as `copy.copy` would (~5x faster)
    if node.children is not None:
        out.children = {name: copy_tree(child) for name, child in node.children.items()}
    return out


class Creds(Protocol):
    """Whom an access is checked for (`shell.users.User` is one): a uid, a primary gid, supplementary groups."""

    @property
    def uid(self) -> int: ...

    @property
    def gid(self) -> int: ...

    @property
    def groups(self) -> tuple[int, ...]: ...


def _under(path: str, roots: tuple[str, ...]) -> bool:
    return any(path == r or path.startswith(r + "/") for r in roots)


def under_fuse(path: str) -> bool:
    """Whether `path` is on the FUSE view of shared storage (/sdcard), where the mode bits are kept but the storage
    daemon, not they, decides who may do what."""
    return _under(normalize(path), FUSE_ROOTS)


def default_owner(path: str) -> tuple[int, int]:
    """(uid, gid) a file made at `path` gets when no one in particular makes it: what `ls -l` shows there."""
    p = normalize(path)
    if _under(p, FUSE_ROOTS):
        return APP_UID, MEDIA_RW
    if _under(p, ("/data/local/tmp",)):
        return SHELL_UID, SHELL_UID
    return 0, 0


def permits(node: Node, creds: Creds, want: int) -> bool:
    """Whether the mode bits of `node` grant `creds` every access in `want` (R_OK | W_OK | X_OK); root always."""
    if creds.uid == 0:
        return True
    if creds.uid == node.uid:
        bits = node.mode >> 6
    elif node.gid == creds.gid or node.gid in creds.groups:
        bits = node.mode >> 3
    else:
        bits = node.mode
    return (bits & 7 & want) == want


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
        # bumped by every change made through these methods (never reused): equal generations, equal contents
        self.generation = 0
        for d in _DEFAULT_DIRS:
            self.mkdir(d, parents=True)
        for d, (perm, uid, gid) in _DIR_MODES.items():
            node = self._walk(d)
            node.mode, node.uid, node.gid = statmod.S_IFDIR | perm, uid, gid
        dev = self._walk("/dev")
        assert dev.children is not None
        for name, (perm, major, minor) in DEV_NODES.items():
            dev.children[name] = Node(mode=statmod.S_IFCHR | perm, mtime=int(now()), rdev=(major << 8) | minor)

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

    # --- access ------------------------------------------------------------------------------
    def check_access(self, path: str, creds: Creds | None, want: int) -> None:
        """Raise `FsError` unless `creds` may access `path` as `want` (R_OK | W_OK | X_OK) says, as the kernel
        decides it: search (x) on every directory on the way, then the mode bits of the file - or, when it does not
        exist yet and `want` has W_OK, write and search on the nearest directory that does (where it would be
        made). Writes under a read-only mount fail with EROFS for everyone; root (or `creds` None: the device
        itself) passes the rest; /sdcard is FUSE, where the storage daemon lets the shell do anything; the live
        stores of `watch` (providers' databases) and their directories are open to the shell as after `adb root`."""
        p = normalize(path)
        if want & W_OK and (p == "/" or _under(p, READ_ONLY_MOUNTS)):
            raise FsError(errno.EROFS, path)
        if creds is None or creds.uid == 0 or p in self._watches or p in self._watched_dirs or under_fuse(p):
            return
        with self._lock:
            node = self._root
            parts = [x for x in p.split("/") if x]
            for i, part in enumerate(parts):
                if not node.is_dir:
                    raise FsError(errno.ENOTDIR, path)
                assert node.children is not None
                if not permits(node, creds, X_OK):
                    raise FsError(errno.EACCES, path)
                child = node.children.get(part)
                if child is None:
                    if not want & W_OK:
                        raise FsError(errno.ENOENT, path)
                    if i < len(parts) - 1 and not permits(node, creds, W_OK | X_OK):
                        raise FsError(errno.EACCES, path)
                    break
                node = child
            else:
                if not permits(node, creds, want):
                    raise FsError(errno.EACCES, path)
                return
            if not permits(node, creds, W_OK | X_OK):
                raise FsError(errno.EACCES, path)

    def check_parent(self, path: str, creds: Creds | None) -> None:
        """What removing or renaming `path` needs: write and search on its directory (EROFS on a read-only mount)."""
        p = normalize(path)
        if _under(p, READ_ONLY_MOUNTS):
            raise FsError(errno.EROFS, path)
        self.check_access(posixpath.dirname(p), creds, W_OK | X_OK)

    def chmod(self, path: str, perm: int) -> None:
        with self._lock:
            node = self._walk(path)
            node.mode = statmod.S_IFMT(node.mode) | (perm & 0o7777)
            self.generation += 1

    def chown(self, path: str, uid: int | None, gid: int | None) -> None:
        with self._lock:
            node = self._walk(path)
            if uid is not None:
                node.uid = uid
            if gid is not None:
                node.gid = gid
            self.generation += 1

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
        owner: tuple[int, int] | None = None,
    ) -> None:
        """Write (or with `append` add to) a file, made with `mode` and `owner` (default: `default_owner`) when
        it is new; an existing file keeps its mode and owner. A character device takes the data and keeps none."""
        self._write(path, data, mode, mtime, parents, append, owner)
        if self._watches:
            p = normalize(path)
            w = self._watches.get(p)
            if w is not None:
                w.after_write(p)

    def _write(
        self,
        path: str,
        data: bytes,
        mode: int,
        mtime: int | None,
        parents: bool,
        append: bool,
        owner: tuple[int, int] | None,
    ) -> None:
        with self._lock:
            parent, name = self._parent(path, parents)
            assert parent.children is not None
            old = parent.children.get(name)
            if old is not None and old.is_dir:
                raise FsError(errno.EISDIR, path)
            if old is not None and old.is_chr:
                return
            if old is not None:
                old.data = old.data + bytes(data) if append else bytes(data)
                old.mtime = int(mtime or self.now())
                self.generation += 1
                return
            perm = statmod.S_IMODE(mode) or 0o644
            uid, gid = owner if owner is not None and not _under(normalize(path), FUSE_ROOTS) else default_owner(path)
            parent.children[name] = Node(
                mode=statmod.S_IFREG | perm, mtime=int(mtime or self.now()), data=bytes(data), uid=uid, gid=gid
            )
            self.generation += 1

    def mkdir(self, path: str, parents: bool = False, owner: tuple[int, int] | None = None) -> None:
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
                    here = "/" + "/".join(parts[: i + 1])
                    who = owner if owner is not None and not _under(here, FUSE_ROOTS) else default_owner(here)
                    child = node.children[part] = _dir_node(self.now(), who)
                    self.generation += 1
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
            self.generation += 1

    # --- snapshots -----------------------------------------------------------------------------
    def snapshot(self) -> Node:
        with self._lock:
            return copy_tree(self._root)

    def restore(self, root: Node) -> None:
        with self._lock:
            self._root = copy_tree(root)
            self.generation += 1
