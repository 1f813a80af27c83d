"""Frames on disk: every distinct screen and hierarchy of a run stored once, named by a hash.

A screenshot that came encoded (`Frame.encoded`: uiautomator2's JPEG, `screencap -p`'s PNG) is stored byte for
byte, named by the hash of its bytes; one that came as pixels is encoded losslessly (WebP for RGB / RGBA, PNG for
other modes), named by the hash of its decoded pixels, mode and size; a hierarchy XML is gzip'd (mtime 0) and
named by the hash of the XML. A frame file only ever appears by an atomic replace, so one already in frames/ is
complete and reused. `WriterOptions` are the writer's storage settings (layout, fsync, frame encoding).
"""

from __future__ import annotations

import dataclasses
import gzip
import io
import threading
import time
from collections import OrderedDict
from pathlib import Path
from typing import Any

from harness.scrub import redact
from harness.trajectory.diskfull import writing
from harness.trajectory.records import FRAMES_DIR, atomic_write_bytes, pixel_digest, text_digest

# Frame names a store remembers as written (docs/caches.md): the most recently seen, so a screen the run keeps coming
# back to is not looked up on disk again; one it forgot costs a stat (`_have`). ~300 bytes a name: ~0.6 MB at most,
# reached within ~1300 episodes, where remembering every frame of a long run grows with it (~1.5 new frames an
# episode: ~0.5 MB per 1000 episodes, measured with tracemalloc over bench/soak.py's suite).
KNOWN_FRAMES = 2048


def image_bytes(img: Any, compress_level: int) -> bytes:
    if isinstance(img, (bytes, bytearray)):
        return bytes(img)
    buf = io.BytesIO()
    img.save(buf, "PNG", compress_level=compress_level)
    return buf.getvalue()


def as_image(img: Any) -> Any:
    """A PIL image (encoded bytes are decoded: the frame's name is the hash of its pixels)."""
    if isinstance(img, (bytes, bytearray)):
        from PIL import Image

        with Image.open(io.BytesIO(bytes(img))) as im:
            im.load()
            return im
    return img


WEBP_MODES = ("RGB", "RGBA")  # what lossless WebP stores exactly; any other mode is kept as PNG


def stream_kind(data: bytes) -> str | None:
    """ "jpg" / "png" for a complete JPEG / PNG stream (a device's encoded screenshot), else None."""
    if data[:2] == b"\xff\xd8" and b"\xff\xd9" in data[-4:]:
        return "jpg"
    if data[:8] == b"\x89PNG\r\n\x1a\n" and b"IEND" in data[-16:]:
        return "png"
    return None


# --- writer ----------------------------------------------------------------------------------------------------
@dataclasses.dataclass
class WriterOptions:
    fsync: bool = True  # fsync each step line and each frame before it is published
    background: bool = True  # hashing, encoding + writes on one writer thread per episode
    queue_size: int = 4  # bounded: write_step blocks when the writer thread is this far behind
    compress_level: int = 1  # PNG zlib level (v1 layout, and frames in modes WebP cannot hold exactly)
    # lossless WebP effort (bench/trajectory.py measures the trade-off on the virtual device's screens)
    webp_method: int = 1
    webp_quality: int = 0
    layout: int = 2  # 2: content-addressed frames/ (default); 1: the old NNN.png / NNN.xml (benchmarks only)
    # "webp": lossless WebP, ~45% of PNG's bytes for ~4x the encoding CPU; "png": level-1 PNG, for CPU-bound runs
    # (both content-addressed: a screen is stored once per run either way)
    frames: str = "webp"

    def __post_init__(self) -> None:
        if self.frames not in ("webp", "png"):
            raise ValueError(f"frame format {self.frames!r} is not webp or png")
        if self.layout not in (1, 2):
            raise ValueError(f"trajectory layout {self.layout!r} is not 1 or 2")


def frame_extension(img: Any, options: WriterOptions) -> str:
    """ "webp" (lossless, the default: smallest) for RGB/RGBA, "png" for other modes or `frames="png"`."""
    return "webp" if img.mode in WEBP_MODES and options.frames == "webp" else "png"


def encode_frame(img: Any, options: WriterOptions) -> tuple[str, bytes]:
    """(extension, bytes) of a screenshot in the v2 layout (`frame_extension`)."""
    buf = io.BytesIO()
    if frame_extension(img, options) == "webp":
        img.save(buf, "WEBP", lossless=True, method=options.webp_method, quality=options.webp_quality, exact=True)
        return "webp", buf.getvalue()
    img.save(buf, "PNG", compress_level=options.compress_level)
    return "png", buf.getvalue()


@dataclasses.dataclass
class FrameStats:
    screenshots: int = 0  # screenshots handed to the writer
    encoded: int = 0  # ... of which were encoded and written (the others were already on disk)
    encode_seconds: float = 0.0  # time spent encoding those
    bytes: int = 0  # bytes written for them
    hierarchies: int = 0
    hierarchies_written: int = 0


class FrameStore:
    """`runs/<run_id>/frames/`: screenshots and hierarchies, content-addressed, each written once per run.

    Thread-safe (the writer threads of all episodes share one store). A name is reused only when its file
    exists, and a file only appears by an atomic replace of a complete temp file, so a step line never names a
    partial frame."""

    def __init__(self, run_dir: Path, options: WriterOptions) -> None:
        self.path, self.options = Path(run_dir) / FRAMES_DIR, options
        self.stats = FrameStats()
        self._known: OrderedDict[str, None] = OrderedDict()  # names known written, least recently seen first
        self._lock = threading.Lock()

    def _remember(self, name: str) -> None:
        """Note `name` as written (the caller holds the lock); the least recently seen past KNOWN_FRAMES goes."""
        self._known[name] = None
        self._known.move_to_end(name)
        if len(self._known) > KNOWN_FRAMES:
            self._known.popitem(last=False)

    def _have(self, name: str) -> bool:
        with self._lock:
            if name in self._known:
                self._known.move_to_end(name)
                return True
        if (self.path / name).is_file():  # written earlier (resume, forgotten) or by another episode's thread
            with self._lock:
                self._remember(name)
            return True
        return False

    def _publish(self, name: str, data: bytes) -> None:
        with writing(self.path / name, self.path.parent, len(data)):  # a full disk: DiskFullError, no frame
            self.path.mkdir(exist_ok=True)
            atomic_write_bytes(self.path / name, data, self.options.fsync)
        with self._lock:
            self._remember(name)

    def add_encode(self, seconds: float, nbytes: int) -> None:
        with self._lock:
            self.stats.encoded += 1
            self.stats.encode_seconds += seconds
            self.stats.bytes += nbytes

    def put_image(self, screenshot: Any, encoded: bytes | None = None) -> str:
        """Store a screenshot (PIL image or encoded bytes); returns its file name in frames/. `encoded`: the
        bytes the device sent it as (a JPEG or PNG stream whose decoding IS this image): stored byte for byte as
        `<sha256 of the bytes>.jpg|.png`, with no decoding, hashing of pixels or encoding here."""
        kind = stream_kind(encoded) if encoded is not None else None
        if encoded is not None and kind is not None:
            name = f"{text_digest(encoded)}.{kind}"
            with self._lock:
                self.stats.screenshots += 1
            if not self._have(name):
                self.add_encode(0.0, len(encoded))
                self._publish(name, encoded)
            return name
        img = as_image(screenshot)
        name = f"{pixel_digest(img)}.{frame_extension(img, self.options)}"
        with self._lock:
            self.stats.screenshots += 1
        if not self._have(name):
            t0 = time.perf_counter()
            _, data = encode_frame(img, self.options)
            self.add_encode(time.perf_counter() - t0, len(data))
            self._publish(name, data)
        return name

    def put_xml(self, xml: str | bytes) -> str:
        """Store a hierarchy XML gzip'd; returns its file name in frames/."""
        data = redact(xml).encode("utf-8", "replace") if isinstance(xml, str) else bytes(xml)
        name = f"{text_digest(data)}.xml.gz"
        with self._lock:
            self.stats.hierarchies += 1
        if not self._have(name):
            self._publish(name, gzip.compress(data, 6, mtime=0))  # mtime=0: the same XML, the same bytes
            with self._lock:
                self.stats.hierarchies_written += 1
        return name
