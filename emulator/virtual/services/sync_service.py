"""`sync:`: adb's file sync protocol against `model.fs` (push, pull, ls, stat).

Requests are `id[4] + u32 length + payload`. Implemented: STAT (v1), STA2/LST2 (stat_v2), LIST (DENT...DONE),
LIS2 (DNT2...DONE, ls_v2), RECV (DATA chunks, DONE | FAIL), SEND ("path,mode", DATA..., DONE+mtime -> OKAY |
FAIL), QUIT, and sync v2's SND2/RCV2 (`sendrecv_v2`): the path, then a setup message (SND2: id, mode, flags;
RCV2: id, flags) whose flags pick a compression (`sync_codecs`: brotli, LZ4, zstd) for the DATA stream and, for
SND2, a dry run (`adb push -n`: nothing is written, the answer is OKAY). As adbd does, a failed SEND or RECV
reports FAIL and ends the session.

The file system is touched in four places only: `_lookup` (stat), `_entries` (listdir), `_recv` (read) and
`_send` (write).
"""

from __future__ import annotations

import errno
import logging
import os
import posixpath
import stat as statmod
import struct
import zlib
from collections.abc import Callable
from typing import TYPE_CHECKING

from ..fs import R_OK, W_OK, FsError, Node, normalize
from ..shell.users import adbd_user
from ..streams import Stream
from ..sync_codecs import CodecError, decoder, encoder, parse_flags

if TYPE_CHECKING:  # pragma: no cover
    from ..model import VirtualDeviceModel

log = logging.getLogger(__name__)

SYNC_DATA_MAX = 64 * 1024
MAX_PATH = 1024
_REQ = struct.Struct("<4sI")
_STAT_V1 = struct.Struct("<4sIII")  # id, mode, size, mtime
_STAT_V2 = struct.Struct("<4sIQQIIIIQqqq")  # id, error, dev, ino, mode, nlink, uid, gid, size, atime, mtime, ctime
_DENT_V1 = struct.Struct("<4sIIII")  # id, mode, size, mtime, namelen
_DENT_V2 = struct.Struct("<4sIQQIIIIQqqqI")  # stat v2 fields + namelen
_SEND_V2_REST = struct.Struct("<4sII")  # after SND2's path: id (SND2 again), mode, flags
_RECV_V2_REST = struct.Struct("<4xI")  # after RCV2's path: id (RCV2 again), flags

assert _STAT_V2.size == 72 and _DENT_V2.size == 76 and _DENT_V1.size == 20

_DEV = 0xFD05


def _under(path: str, root: str) -> bool:
    return path == root or path.startswith(root + "/")


def _ino(path: str) -> int:
    return zlib.crc32(normalize(path).encode()) | 0x10000


def _stat_v2_fields(path: str, node: Node) -> tuple:
    uid, gid = node.uid, node.gid
    nlink = 2 if node.is_dir else 1
    return (0, _DEV, _ino(path), node.mode, nlink, uid, gid, node.size, node.mtime, node.mtime, node.mtime)


def _err(code: int) -> str:
    return os.strerror(code)


class _Session:
    def __init__(self, model: VirtualDeviceModel, stream: Stream) -> None:
        self.model = model
        self.fs = model.fs
        self.stream = stream
        self.creds = adbd_user(model)  # whom adbd runs as: its opens and stats are checked for this user

    # --- helpers ---------------------------------------------------------------------------------
    def fail(self, message: str) -> None:
        data = message.encode("utf-8", "replace")
        self.stream.write(_REQ.pack(b"FAIL", len(data)) + data)

    def _lookup(self, path: str) -> tuple[Node | None, int]:
        """(node, 0) or (None, errno)."""
        self.fs.refresh(path)
        try:
            self.fs.check_access(path, self.creds, 0)  # search permission on the way (adbd's lstat)
            with self.fs._lock:
                return self.fs._walk(path), 0
        except FsError as e:
            return None, e.errno or errno.ENOENT
        except AttributeError:  # a FileSystem without the private walker
            node = self.fs.stat(path)
            return node, 0 if node is not None else errno.ENOENT

    # --- requests --------------------------------------------------------------------------------
    def serve(self) -> None:
        while True:
            header = self._read_header()
            if header is None:
                return
            ident, length = header
            if ident == b"QUIT":
                return
            if ident in (b"SEND", b"SND2", b"RECV", b"RCV2", b"STAT", b"STA2", b"LST2", b"LIST", b"LIS2"):
                if length > MAX_PATH:
                    self.fail(f"path too long: {length}")
                    return
                path = self.stream.read_exact(length).decode("utf-8", "surrogateescape") if length else ""
                handler = getattr(self, "do_" + ident.decode().lower())
                if handler(path) is False:
                    return
            else:
                self.fail(f"unknown command {ident!r}")
                return

    def _read_header(self) -> tuple[bytes, int] | None:
        first = self.stream.read(_REQ.size)
        if not first:
            return None
        raw = first if len(first) == _REQ.size else first + self.stream.read_exact(_REQ.size - len(first))
        ident, length = _REQ.unpack(raw)
        return ident, length

    def do_stat(self, path: str) -> None:
        node, _ = self._lookup(path)
        if node is None:
            self.stream.write(_STAT_V1.pack(b"STAT", 0, 0, 0))
        else:
            self.stream.write(_STAT_V1.pack(b"STAT", node.mode, node.size & 0xFFFFFFFF, node.mtime & 0xFFFFFFFF))

    def _stat2(self, ident: bytes, path: str) -> None:
        node, code = self._lookup(path)
        if node is None:
            self.stream.write(_STAT_V2.pack(ident, code, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0))
        else:
            self.stream.write(_STAT_V2.pack(ident, *_stat_v2_fields(path, node)))

    def do_sta2(self, path: str) -> None:
        self._stat2(b"STA2", path)

    def do_lst2(self, path: str) -> None:
        self._stat2(b"LST2", path)

    def _entries(self, path: str) -> list[tuple[str, str, Node]]:
        """(name, full path, node) of a directory, with "." and ".." first as readdir gives them."""
        node, _ = self._lookup(path)
        if node is None or not node.is_dir:
            return []
        p = normalize(path)
        parent = posixpath.dirname(p) or "/"
        parent_node, _ = self._lookup(parent)
        out = [(".", p, node), ("..", parent, parent_node or node)]
        try:
            out += [(name, posixpath.join(p, name), child) for name, child in self.fs.listdir(p)]
        except FsError:
            pass
        return out

    def _send_batched(self, messages: list[bytes]) -> None:
        batch = bytearray()
        limit = int(getattr(self.stream, "max_payload", 256 * 1024))
        for m in messages:
            if batch and len(batch) + len(m) > limit:
                self.stream.write(batch)
                batch = bytearray()
            batch += m
        if batch:
            self.stream.write(batch)

    def do_list(self, path: str) -> None:
        msgs = []
        for name, _full, node in self._entries(path):
            raw = name.encode("utf-8", "surrogateescape")
            msgs.append(
                _DENT_V1.pack(b"DENT", node.mode, node.size & 0xFFFFFFFF, node.mtime & 0xFFFFFFFF, len(raw)) + raw
            )
        msgs.append(_DENT_V1.pack(b"DONE", 0, 0, 0, 0))
        self._send_batched(msgs)

    def do_lis2(self, path: str) -> None:
        msgs = []
        for name, full, node in self._entries(path):
            raw = name.encode("utf-8", "surrogateescape")
            msgs.append(_DENT_V2.pack(b"DNT2", *_stat_v2_fields(full, node), len(raw)) + raw)
        msgs.append(_DENT_V2.pack(b"DONE", 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0))
        self._send_batched(msgs)

    def do_recv(self, path: str) -> bool:
        return self._recv(path, None)

    def do_rcv2(self, path: str) -> bool:
        (flags,) = _RECV_V2_REST.unpack(self.stream.read_exact(_RECV_V2_REST.size))
        parsed = parse_flags(flags, allow_dry_run=False)
        if isinstance(parsed, str):
            self.fail(parsed)
            return False
        return self._recv(path, parsed[0])

    def _recv(self, path: str, codec: str | None) -> bool:
        """The file as DATA chunks (through `codec`'s compressor stream, when one is asked for), then DONE."""
        node, code = self._lookup(path)
        if node is None:
            self.fail(f"open failed: {_err(code)}")
            return False
        if node.is_dir:
            self.fail(f"read failed: {_err(errno.EISDIR)}")
            return False
        try:
            self.fs.check_access(path, self.creds, R_OK)
        except FsError as e:
            self.fail(f"open failed: {_err(e.errno or errno.EACCES)}")
            return False
        data = self.fs.read(path)
        view = memoryview(data)
        enc = encoder(codec)
        out = _DataWriter(self.stream)
        for off in range(0, len(view), SYNC_DATA_MAX):
            out.add(enc.feed(bytes(view[off : off + SYNC_DATA_MAX])))
        out.add(enc.finish())
        out.done()
        self.model.events.log("sync", op="recv", path=normalize(path), size=len(data), compression=codec or "none")
        return True

    def _send_target_error(self, path: str) -> str | None:
        """Why `path` cannot be written, as adbd words it, or None."""
        p = normalize(path)
        if p == "/" or not p.strip("/"):
            return f"couldn't create file: {_err(errno.EISDIR)}"
        node, _ = self._lookup(p)
        if node is not None and node.is_dir:
            return f"couldn't create file: {_err(errno.EISDIR)}"
        # the nearest existing ancestor decides whether parent directories can be made
        parent = posixpath.dirname(p)
        anc = parent
        while True:
            anc_node, code = self._lookup(anc)
            if anc_node is not None:
                break
            if code == errno.ENOTDIR:
                return f"secure_mkdirs failed: {_err(errno.ENOTDIR)}"
            anc = posixpath.dirname(anc)
        if not anc_node.is_dir:
            return f"secure_mkdirs failed: {_err(errno.ENOTDIR)}"
        try:  # adbd unlinks an existing file first: its directory's bits decide, not its own
            if node is not None:
                self.fs.check_parent(p, self.creds)
            else:
                self.fs.check_access(p, self.creds, W_OK)
            denied = None
        except FsError as e:
            denied = e.errno or errno.EACCES
        if denied is not None:
            prefix = "couldn't create file" if anc == parent else "secure_mkdirs failed"
            return f"{prefix}: {_err(denied)}"
        return None

    def do_send(self, spec: str) -> bool:
        path, comma, mode_s = spec.rpartition(",")
        if not comma:
            path, mode_s = spec, "0"
        try:
            mode = int(mode_s)
        except ValueError:
            path, mode = spec, 0
        return self._send(path, mode, None, dry_run=False)

    def do_snd2(self, path: str) -> bool:
        _ident, mode, flags = _SEND_V2_REST.unpack(self.stream.read_exact(_SEND_V2_REST.size))
        parsed = parse_flags(flags, allow_dry_run=True)
        if isinstance(parsed, str):
            self.fail(parsed)
            return False
        codec, dry_run = parsed
        return self._send(path, mode, codec, dry_run)

    def _send(self, path: str, mode: int, codec: str | None, dry_run: bool) -> bool:
        """Read DATA... DONE+mtime (decompressing with `codec`), then write the file and answer OKAY, or FAIL.
        A dry run (`adb push -n`) checks nothing on the device and writes nothing; it still reads and decodes the
        data, as adbd does, so a corrupt stream fails it."""
        problem = None if dry_run else self._send_target_error(path)
        dec = decoder(codec)
        data = bytearray()
        mtime = 0
        while True:
            ident, length = _REQ.unpack(self.stream.read_exact(_REQ.size))
            if ident == b"DATA":
                if length > SYNC_DATA_MAX * 4:
                    self.fail(f"DATA chunk of {length} bytes is too large")
                    return False
                chunk = self.stream.read_exact(length)
                if problem is None:
                    problem = self._decode(dec.feed, chunk, data)
            elif ident == b"DONE":
                mtime = length
                if problem is None:
                    problem = self._decode(lambda _: dec.finish(), b"", data)
                break
            else:
                self.fail(f"invalid data message: expected ID_DATA, got {ident!r}")
                return False
        if problem is not None:
            self.fail(problem)
            return False
        if not dry_run:
            perm = statmod.S_IMODE(mode) or 0o644
            try:
                owner = (self.creds.uid, self.creds.gid)
                old, _ = self._lookup(path)
                if old is not None and not old.is_chr:
                    self.fs.remove(path)  # adbd's unlink: the new file gets the pushed mode and the pusher's owner
                self.fs.write(path, bytes(data), mode=perm, mtime=mtime or None, parents=True, owner=owner)
            except FsError as e:
                self.fail(f"couldn't create file: {e.message}")
                return False
        self.model.events.log(
            "sync", op="send", path=normalize(path), size=len(data), compression=codec or "none", dry_run=dry_run
        )
        self.stream.write(_REQ.pack(b"OKAY", 0))
        return True

    @staticmethod
    def _decode(step: Callable[[bytes], bytes], chunk: bytes, into: bytearray) -> str | None:
        try:
            into += step(chunk)
        except CodecError as e:
            log.debug("sync: %s", e)
            return "decompress failed"
        return None


class _DataWriter:
    """Output bytes as DATA messages of at most SYNC_DATA_MAX bytes, gathered into writes of at most the
    stream's max payload; `done` adds DONE and sends the rest."""

    def __init__(self, stream: Stream) -> None:
        self.stream = stream
        self.limit = int(getattr(stream, "max_payload", 256 * 1024))
        self.batch = bytearray()

    def add(self, data: bytes) -> None:
        view = memoryview(data)
        for off in range(0, len(view), SYNC_DATA_MAX):
            part = view[off : off + SYNC_DATA_MAX]
            if self.batch and len(self.batch) + _REQ.size + len(part) > self.limit:
                self.stream.write(self.batch)
                self.batch = bytearray()
            self.batch += _REQ.pack(b"DATA", len(part))
            self.batch += part

    def done(self) -> None:
        self.batch += _REQ.pack(b"DONE", 0)
        self.stream.write(self.batch)
        self.batch = bytearray()


def serve(model: VirtualDeviceModel, stream: Stream) -> None:
    """Run one `sync:` session until QUIT, an error, or the host closing the stream."""
    _Session(model, stream).serve()
