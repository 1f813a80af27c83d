"""The compressions of sync v2 (`SND2`/`RCV2` flags): brotli, LZ4 and Zstandard as streams across DATA chunks.

adbd (compression_utils.h) runs one compressor stream per transfer and cuts its output into DATA messages of at
most SYNC_DATA_MAX bytes; the chunk boundaries carry no meaning, so the receiver feeds every DATA payload into
one decompressor stream and the DONE message ends it. The formats:
- brotli: one raw brotli stream (adbd compresses at quality 1);
- LZ4: one LZ4 frame (the LZ4F API: frame header, blocks, end mark);
- zstd: one Zstandard frame (streaming, level 1).

Each codec comes from its PyPI binding (`brotli`, `lz4`, `zstandard`); a codec whose module does not import is
left out of `available()`, and the device then does not advertise its `sendrecv_v2_<name>` feature.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from typing import Protocol

FLAG_BROTLI = 1
FLAG_LZ4 = 2
FLAG_ZSTD = 4
FLAG_DRY_RUN = 0x8000_0000

# wire flag -> codec name, in the order adbd tests the flags
CODEC_FLAGS: dict[int, str] = {FLAG_BROTLI: "brotli", FLAG_LZ4: "lz4", FLAG_ZSTD: "zstd"}
_MODULES = {"brotli": "brotli", "lz4": "lz4.frame", "zstd": "zstandard"}


class CodecError(Exception):
    """The compressed stream is corrupt or truncated."""


class Decoder(Protocol):
    def feed(self, data: bytes) -> bytes:
        """Decompressed bytes that `data` completes (maybe none yet)."""

    def finish(self) -> bytes:
        """The rest, at the end of input; raises CodecError when the stream is incomplete."""


class Encoder(Protocol):
    def feed(self, data: bytes) -> bytes:
        """Compressed bytes for `data` (the compressor may hold some back)."""

    def finish(self) -> bytes:
        """Everything still held, and the stream's end."""


def _module_present(name: str) -> bool:
    try:
        importlib.import_module(_MODULES[name])
    except ImportError:
        return False
    return True


_AVAILABLE = tuple(name for name in ("brotli", "lz4", "zstd") if _module_present(name))


def available() -> tuple[str, ...]:
    """The codecs whose modules import, e.g. ("brotli", "lz4", "zstd")."""
    return _AVAILABLE


class _Identity:
    def feed(self, data: bytes) -> bytes:
        return data

    def finish(self) -> bytes:
        return b""


class _BrotliDecoder:
    def __init__(self) -> None:
        import brotli

        self._error = brotli.error
        self._d = brotli.Decompressor()

    def feed(self, data: bytes) -> bytes:
        try:
            return bytes(self._d.process(data))
        except self._error as e:
            raise CodecError(str(e)) from None

    def finish(self) -> bytes:
        if not self._d.is_finished():
            raise CodecError("brotli stream ends early")
        return b""


class _BrotliEncoder:
    def __init__(self) -> None:
        import brotli

        self._c = brotli.Compressor(quality=1)

    def feed(self, data: bytes) -> bytes:
        return bytes(self._c.process(data))

    def finish(self) -> bytes:
        return bytes(self._c.finish())


class _Lz4Decoder:
    def __init__(self) -> None:
        import lz4.frame

        self._d = lz4.frame.LZ4FrameDecompressor()

    def feed(self, data: bytes) -> bytes:
        if not data:
            return b""
        try:
            return bytes(self._d.decompress(data))
        except (RuntimeError, EOFError) as e:  # the binding reports a bad frame as RuntimeError
            raise CodecError(str(e)) from None

    def finish(self) -> bytes:
        if not self._d.eof:
            raise CodecError("LZ4 frame ends early")
        return b""


class _Lz4Encoder:
    def __init__(self) -> None:
        import lz4.frame

        self._c = lz4.frame.LZ4FrameCompressor()
        self._head = bytes(self._c.begin())

    def feed(self, data: bytes) -> bytes:
        out = self._head + bytes(self._c.compress(data))
        self._head = b""
        return out

    def finish(self) -> bytes:
        out = self._head + bytes(self._c.flush())
        self._head = b""
        return out


class _ZstdDecoder:
    def __init__(self) -> None:
        import zstandard

        self._error = zstandard.ZstdError
        self._d = zstandard.ZstdDecompressor().decompressobj()

    def feed(self, data: bytes) -> bytes:
        if not data:
            return b""
        try:
            return bytes(self._d.decompress(data))
        except self._error as e:
            raise CodecError(str(e)) from None

    def finish(self) -> bytes:
        if not self._d.eof:
            raise CodecError("zstd frame ends early")
        return b""


class _ZstdEncoder:
    def __init__(self) -> None:
        import zstandard

        self._c = zstandard.ZstdCompressor(level=1).compressobj()

    def feed(self, data: bytes) -> bytes:
        return bytes(self._c.compress(data))

    def finish(self) -> bytes:
        return bytes(self._c.flush())


_DECODERS: dict[str, Callable[[], Decoder]] = {"brotli": _BrotliDecoder, "lz4": _Lz4Decoder, "zstd": _ZstdDecoder}
_ENCODERS: dict[str, Callable[[], Encoder]] = {"brotli": _BrotliEncoder, "lz4": _Lz4Encoder, "zstd": _ZstdEncoder}


def decoder(name: str | None) -> Decoder:
    """A decompressor stream for codec `name` (None: the bytes as they are)."""
    return _Identity() if name is None else _DECODERS[name]()


def encoder(name: str | None) -> Encoder:
    """A compressor stream for codec `name` (None: the bytes as they are)."""
    return _Identity() if name is None else _ENCODERS[name]()


def parse_flags(flags: int, allow_dry_run: bool) -> tuple[str | None, bool] | str:
    """(codec or None, dry_run) of a SND2/RCV2 setup's flags, or adbd's FAIL message for flags it refuses:
    two compressions at once, or bits it does not know (dry-run is known to SND2 only)."""
    codec: str | None = None
    rest = flags
    for bit, name in CODEC_FLAGS.items():
        if rest & bit:
            rest &= ~bit
            if codec is not None:
                return f"multiple compression flags received: {_as_int32(flags)}"
            codec = name
    dry_run = False
    if allow_dry_run and rest & FLAG_DRY_RUN:
        rest &= ~FLAG_DRY_RUN
        dry_run = True
    if rest or (codec is not None and codec not in _AVAILABLE):
        return f"unknown flags: {_as_int32(rest or flags)}"
    return codec, dry_run


def _as_int32(value: int) -> int:
    """The flags as adbd's `%d` prints a u32."""
    value &= 0xFFFF_FFFF
    return value - (1 << 32) if value & 0x8000_0000 else value
