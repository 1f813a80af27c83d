"""TFRecord files of `tf.train.Example`, read and written without TensorFlow.

Framing of one record (all integers little-endian):

    uint64 length | uint32 masked_crc32c(length bytes) | data[length] | uint32 masked_crc32c(data)

with `masked(crc) = ((crc >> 15) | (crc << 17)) + 0xA282EAD8` (mod 2**32) over CRC-32C (Castagnoli). Both CRCs
are verified. Files may be GZIP-compressed (AitW is), detected by the gzip magic bytes. Reading streams: one
record in memory at a time.

`tf.train.Example` is decoded with the `protobuf` package from a message definition built here with the
descriptor API (same field numbers as TensorFlow's example.proto / feature.proto, in a private descriptor pool
and package, so it never clashes with a real TensorFlow install):

    Example { Features features = 1; }
    Features { map<string, Feature> feature = 1; }
    Feature { oneof kind { BytesList bytes_list = 1; FloatList float_list = 2; Int64List int64_list = 3; } }
    BytesList { repeated bytes value = 1; }  FloatList { repeated float value = 1 [packed]; }
    Int64List { repeated int64 value = 1 [packed]; }
"""

from __future__ import annotations

import gzip
import struct
import zlib
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, BinaryIO

import crc32c as _crc32c
from google.protobuf import descriptor_pb2, descriptor_pool, message_factory
from google.protobuf.message import DecodeError

_MASK_DELTA = 0xA282EAD8
_GZIP_MAGIC = b"\x1f\x8b"


def masked_crc32c(data: bytes) -> int:
    crc = _crc32c.crc32c(data)
    return (((crc >> 15) | (crc << 17)) + _MASK_DELTA) & 0xFFFFFFFF


class RecordError(Exception):
    """Broken framing at one record: `resync` is False when the rest of the file cannot be located."""

    def __init__(self, index: int, offset: int, message: str, resync: bool):
        super().__init__(f"record {index} (byte {offset} of the uncompressed stream): {message}")
        self.index = index
        self.offset = offset
        self.detail = message
        self.resync = resync


@dataclass(frozen=True)
class Record:
    index: int
    offset: int
    data: bytes | None  # None when the data CRC failed (then `error` says why)
    error: RecordError | None = None


def _open(path: Path) -> BinaryIO:
    f = open(path, "rb")
    head = f.read(2)
    f.seek(0)
    if head == _GZIP_MAGIC:
        return gzip.GzipFile(fileobj=f, mode="rb")  # type: ignore[return-value]  # reason: a GzipFile is a BinaryIO
    return f


def iter_records(path: str | Path) -> Iterator[Record]:
    """Yield the records of a (possibly gzipped) TFRecord file in order.

    A record whose *data* CRC fails is yielded with `data=None` and `error` set (framing is intact, reading goes
    on). A broken length CRC, a truncated record or a broken gzip stream raise `RecordError` with
    `resync=False`: nothing after it can be trusted.
    """
    p = Path(path)
    with _open(p) as f:
        index = 0
        offset = 0
        while True:
            try:
                header = f.read(12)
                if not header:
                    return
                if len(header) < 12:
                    raise RecordError(index, offset, f"truncated header ({len(header)} of 12 bytes)", False)
                (length,) = struct.unpack("<Q", header[:8])
                (len_crc,) = struct.unpack("<I", header[8:])
                if masked_crc32c(header[:8]) != len_crc:
                    raise RecordError(index, offset, "length CRC mismatch (corrupt framing)", False)
                data = f.read(length)
                if len(data) < length:
                    raise RecordError(index, offset, f"truncated data ({len(data)} of {length} bytes)", False)
                footer = f.read(4)
                if len(footer) < 4:
                    raise RecordError(index, offset, "truncated data CRC", False)
            except (EOFError, OSError, zlib.error) as exc:  # gzip stream broken or cut short
                raise RecordError(index, offset, f"compressed stream is broken: {exc}", False) from exc
            (data_crc,) = struct.unpack("<I", footer)
            if masked_crc32c(data) != data_crc:
                yield Record(index, offset, None, RecordError(index, offset, "data CRC mismatch", True))
            else:
                yield Record(index, offset, data)
            offset += 16 + length
            index += 1


def frame(data: bytes) -> bytes:
    """One TFRecord frame around `data`."""
    length = struct.pack("<Q", len(data))
    return length + struct.pack("<I", masked_crc32c(length)) + data + struct.pack("<I", masked_crc32c(data))


def write_records(path: str | Path, records: Iterable[bytes], *, compress: bool = True) -> int:
    """Write records (streaming) to a TFRecord file, GZIP-compressed by default. Returns the record count."""
    n = 0
    raw = open(path, "wb")
    out: BinaryIO = (
        gzip.GzipFile(fileobj=raw, mode="wb", compresslevel=1)  # type: ignore[assignment]  # reason: a
        if compress
        else raw
    )  # GzipFile is a BinaryIO
    try:
        for data in records:
            out.write(frame(data))
            n += 1
    finally:
        out.close()
        if compress:
            raw.close()
    return n


# --- tf.train.Example --------------------------------------------------------------------------------------
def _build_example_class() -> Any:
    fdp = descriptor_pb2.FileDescriptorProto(
        name="droidharness/tf_example.proto", package="droidharness.tfexample", syntax="proto3"
    )
    F = descriptor_pb2.FieldDescriptorProto
    pkg = ".droidharness.tfexample."

    def add(msg: str, fields: list[tuple[str, int, int, int, str | None, int | None]]) -> Any:
        m = fdp.message_type.add(name=msg)
        for name, number, typ, label, type_name, oneof in fields:
            f = m.field.add(name=name, number=number, type=typ, label=label)
            if type_name:
                f.type_name = type_name
            if oneof is not None:
                f.oneof_index = oneof
        return m

    rep, opt = F.LABEL_REPEATED, F.LABEL_OPTIONAL
    add("BytesList", [("value", 1, F.TYPE_BYTES, rep, None, None)])
    add("FloatList", [("value", 1, F.TYPE_FLOAT, rep, None, None)])
    add("Int64List", [("value", 1, F.TYPE_INT64, rep, None, None)])
    feat = add(
        "Feature",
        [
            ("bytes_list", 1, F.TYPE_MESSAGE, opt, pkg + "BytesList", 0),
            ("float_list", 2, F.TYPE_MESSAGE, opt, pkg + "FloatList", 0),
            ("int64_list", 3, F.TYPE_MESSAGE, opt, pkg + "Int64List", 0),
        ],
    )
    feat.oneof_decl.add(name="kind")
    feats = add("Features", [("feature", 1, F.TYPE_MESSAGE, rep, pkg + "Features.FeatureEntry", None)])
    entry = feats.nested_type.add(name="FeatureEntry")
    entry.field.add(name="key", number=1, type=F.TYPE_STRING, label=opt)
    entry.field.add(name="value", number=2, type=F.TYPE_MESSAGE, label=opt, type_name=pkg + "Feature")
    entry.options.map_entry = True
    add("Example", [("features", 1, F.TYPE_MESSAGE, opt, pkg + "Features", None)])
    pool = descriptor_pool.DescriptorPool()
    pool.Add(fdp)
    return message_factory.GetMessageClass(pool.FindMessageTypeByName("droidharness.tfexample.Example"))


Example = _build_example_class()

FeatureValue = list[bytes] | list[float] | list[int]


class ExampleError(Exception):
    pass


def parse_example(data: bytes) -> dict[str, tuple[str, FeatureValue]]:
    """Serialized Example -> `{name: (kind, values)}` with kind "bytes" | "float" | "int64"."""
    msg = Example()
    try:
        msg.ParseFromString(data)
    except DecodeError as exc:
        raise ExampleError(f"not a tf.train.Example: {exc}") from exc
    out: dict[str, tuple[str, FeatureValue]] = {}
    for name, feat in msg.features.feature.items():
        kind = feat.WhichOneof("kind")
        if kind == "bytes_list":
            out[name] = ("bytes", list(feat.bytes_list.value))
        elif kind == "float_list":
            out[name] = ("float", list(feat.float_list.value))
        elif kind == "int64_list":
            out[name] = ("int64", list(feat.int64_list.value))
        else:
            out[name] = ("none", [])
    return out


def build_example(features: Mapping[str, tuple[str, Iterable[Any]]]) -> bytes:
    """`{name: (kind, values)}` -> serialized Example (kind "bytes" | "float" | "int64")."""
    msg = Example()
    for name, (kind, values) in features.items():
        feat = msg.features.feature[name]
        if kind == "bytes":
            feat.bytes_list.value.extend(v.encode("utf-8") if isinstance(v, str) else bytes(v) for v in values)
        elif kind == "float":
            feat.float_list.value.extend(float(v) for v in values)
        elif kind == "int64":
            feat.int64_list.value.extend(int(v) for v in values)
        else:
            raise ValueError(f"feature {name!r}: unknown kind {kind!r}")
    return msg.SerializeToString(deterministic=True)  # map keys sorted: the same features, the same bytes


def read_all(path: str | Path) -> list[dict[str, tuple[str, FeatureValue]]]:
    """Every Example of a small file (tests and debugging only; loaders stream)."""
    return [parse_example(r.data) for r in iter_records(path) if r.data is not None]


__all__ = [
    "Example",
    "ExampleError",
    "Record",
    "RecordError",
    "build_example",
    "frame",
    "iter_records",
    "masked_crc32c",
    "parse_example",
    "read_all",
    "write_records",
]
