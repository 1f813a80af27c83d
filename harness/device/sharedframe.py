"""Screenshots through shared memory: the region a device writes raw frames into, as the emulator's gRPC door does
for `getScreenshot` with an MMAP transport (`ImageTransport.channel` MMAP, `handle` a `file:///path` URL: the
client creates and sizes the region, the emulator maps it once by its handle and writes each frame's rows at its
start; the reply's `image` is empty). No encoding on either side and one copy out of the region.

A region is a file under /dev/shm (the host's shared memory; the temporary directory where there is none), unlinked
as soon as the device has mapped it: the device and the harness keep their mappings, and nothing is left on disk
however the harness ends, SIGKILL included. A new screen size (a rotation) takes a new region.

`RawFrame` is what a capture returns: the frame's RGB888 rows (`pixels`, a fresh writable numpy array of height x
width x 3, top down: a consumer that wants an array takes it as it is) and a PIL image of them that is decoded only
when something reads its pixels (PIL's lazy loading, as for a JPEG). The copy out of the region is numpy's (its
large allocations are transparent huge pages where the kernel allows: a 7.8 MB frame costs ~0.3 ms, where a
zero-filled `bytearray` of small pages costs ~10 ms of page faults).
"""

from __future__ import annotations

import io
import itertools
import mmap
import os
import tempfile
import threading
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
from PIL import Image

_COUNTER = itertools.count(1)


def shm_directory() -> str:
    """Where regions are made: /dev/shm when the host has it (memory, never written to disk), else the temporary
    directory."""
    return "/dev/shm" if os.path.isdir("/dev/shm") and os.access("/dev/shm", os.W_OK) else tempfile.gettempdir()


class _Headed(io.RawIOBase):
    """A read-only file of `head` followed by `body` (a buffer), without joining them."""

    def __init__(self, head: bytes, body: np.ndarray) -> None:
        self._parts = (memoryview(head), body.data.cast("B"))
        self._size = len(head) + len(body)
        self._pos = 0

    def readable(self) -> bool:
        return True

    def seekable(self) -> bool:
        return True

    def tell(self) -> int:
        return self._pos

    def seek(self, pos: int, whence: int = io.SEEK_SET) -> int:
        base = {io.SEEK_SET: 0, io.SEEK_CUR: self._pos, io.SEEK_END: self._size}[whence]
        self._pos = max(0, base + pos)
        return self._pos

    def readinto(self, b: bytearray | memoryview) -> int:  # type: ignore[override]
        out = memoryview(b).cast("B")
        done, pos = 0, self._pos
        for part in self._parts:
            if pos >= len(part):
                pos -= len(part)
                continue
            n = min(len(part) - pos, len(out) - done)
            out[done : done + n] = part[pos : pos + n]
            done += n
            pos = 0
            if done == len(out):
                break
        self._pos += done
        return done


def lazy_rgb_image(pixels: np.ndarray, size: tuple[int, int]) -> Image.Image:
    """A PIL image of RGB888 rows, decoded on first use (the rows are read as a binary PPM's body)."""
    w, h = size
    return Image.open(io.BufferedReader(_Headed(b"P6\n%d %d\n255\n" % (w, h), pixels), buffer_size=1 << 16))


@dataclass(frozen=True)
class RawFrame:
    """One screenshot that came as raw rows: `pixels` (RGB888, `size` = (width, height)) and `image`, lazily
    decoded from them."""

    pixels: np.ndarray
    size: tuple[int, int]
    image: Image.Image


class SharedRegion:
    """One client's region for frames of up to `size` pixels at `channels` bytes each; `handle` is what the request
    names. Made by `create`, unlinked by `forget_path` once the device has mapped it, closed by `close`."""

    def __init__(self, size: tuple[int, int], channels: int = 3, directory: str | None = None) -> None:
        self.size = size
        self.length = size[0] * size[1] * channels
        name = f"droidharness-frame-{os.getpid()}-{next(_COUNTER)}.rgb"
        self.path: str | None = os.path.join(directory or shm_directory(), name)
        fd = os.open(self.path, os.O_RDWR | os.O_CREAT | os.O_EXCL, 0o600)
        try:
            os.ftruncate(fd, self.length)
            self._map = mmap.mmap(fd, self.length)
        except BaseException:
            os.close(fd)
            self.forget_path()
            raise
        os.close(fd)
        self.handle = "file://" + self.path

    def forget_path(self) -> None:
        """Unlink the file (the mappings stay): called once the device has mapped it."""
        path, self.path = self.path, None
        if path is not None:
            try:
                os.unlink(path)
            except FileNotFoundError:
                pass

    def read(self, size: tuple[int, int]) -> RawFrame:
        """The frame of `size` the device wrote: its rows copied out once (writable), and a lazy image of them."""
        n = size[0] * size[1] * 3
        if n > self.length:
            raise ValueError(f"a {size[0]}x{size[1]} frame does not fit a region of {self.length} bytes")
        pixels = np.frombuffer(self._map, np.uint8, n).reshape(size[1], size[0], 3).copy()
        return RawFrame(pixels, size, lazy_rgb_image(pixels, size))

    def close(self) -> None:
        self.forget_path()
        self._map.close()


class SharedFrames:
    """A client's shared memory screenshots: one region per screen size, made on first use. `take(handle, size)`
    is the device call (it writes the frame and returns its size); the region is unlinked after its first frame."""

    def __init__(self, directory: str | None = None) -> None:
        self._regions: dict[tuple[int, int], SharedRegion] = {}
        self._directory = directory
        self._lock = threading.Lock()

    def region(self, size: tuple[int, int]) -> SharedRegion:
        w, h = max(size), max(size)  # either rotation fits: one region for a device that turns
        with self._lock:
            region = self._regions.get((w, h))
            if region is None:
                region = self._regions[(w, h)] = SharedRegion((w, h), directory=self._directory)
            return region

    def capture(self, size: tuple[int, int], take: Callable[[str], tuple[int, int]]) -> RawFrame:
        """The device writes its frame into the region for `size` (`take(handle)` -> the frame's size)."""
        region = self.region(size)
        got = take(region.handle)
        region.forget_path()
        return region.read(got)

    def drop(self, size: tuple[int, int]) -> None:
        """Forget the region for `size` (the device lost its mapping, e.g. it restarted): the next capture makes a
        new one."""
        w, h = max(size), max(size)
        with self._lock:
            region = self._regions.pop((w, h), None)
        if region is not None:
            region.close()

    def close(self) -> None:
        with self._lock:
            regions, self._regions = list(self._regions.values()), {}
        for region in regions:
            region.close()


__all__ = ["RawFrame", "SharedFrames", "SharedRegion", "lazy_rgb_image", "shm_directory"]
