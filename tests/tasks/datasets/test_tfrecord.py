"""TFRecord framing and the tf.train.Example codec, checked against hand-built bytes."""

from __future__ import annotations

import gzip
import struct

import pytest

from tasks.datasets import tfrecord
from tests.paths import REPO


def test_crc32c_and_mask_known_values():
    import crc32c

    assert crc32c.crc32c(b"123456789") == 0xE3069283  # the standard CRC-32C check value
    assert tfrecord.masked_crc32c(b"") == 0xA282EAD8  # crc 0, masked = rotate(0) + delta
    crc = crc32c.crc32c(b"abc")
    assert tfrecord.masked_crc32c(b"abc") == ((((crc >> 15) | (crc << 17)) & 0xFFFFFFFF) + 0xA282EAD8) % 2**32


def test_frame_layout():
    data = b"hello"
    fr = tfrecord.frame(data)
    assert len(fr) == 8 + 4 + 5 + 4
    assert struct.unpack("<Q", fr[:8])[0] == 5
    assert struct.unpack("<I", fr[8:12])[0] == tfrecord.masked_crc32c(fr[:8])
    assert fr[12:17] == data
    assert struct.unpack("<I", fr[17:])[0] == tfrecord.masked_crc32c(data)


def _hand_built_example() -> bytes:
    # Example{features: Features{feature: {"a": Feature{int64_list: {5, 300}}, "f": Feature{float_list: {0.5}},
    #                                     "b": Feature{bytes_list: {"xy"}}}}}, written byte by byte
    int64_list = b"\x0a\x03\x05\xac\x02"  # field 1, packed varints 5, 300
    feat_a = b"\x1a" + bytes([len(int64_list)]) + int64_list  # Feature.int64_list = 3
    float_list = b"\x0a\x04" + struct.pack("<f", 0.5)  # packed float
    feat_f = b"\x12" + bytes([len(float_list)]) + float_list  # Feature.float_list = 2
    bytes_list = b"\x0a\x02xy"
    feat_b = b"\x0a" + bytes([len(bytes_list)]) + bytes_list  # Feature.bytes_list = 1

    def entry(key: bytes, feat: bytes) -> bytes:
        body = b"\x0a" + bytes([len(key)]) + key + b"\x12" + bytes([len(feat)]) + feat
        return b"\x0a" + bytes([len(body)]) + body  # Features.feature = 1 (map entry)

    features = entry(b"a", feat_a) + entry(b"f", feat_f) + entry(b"b", feat_b)
    return b"\x0a" + bytes([len(features)]) + features  # Example.features = 1


def test_parse_hand_built_example():
    assert tfrecord.parse_example(_hand_built_example()) == {
        "a": ("int64", [5, 300]),
        "f": ("float", [0.5]),
        "b": ("bytes", [b"xy"]),
    }


def test_build_then_parse_matches_hand_built():
    built = tfrecord.build_example({"a": ("int64", [5, 300]), "f": ("float", [0.5]), "b": ("bytes", ["xy"])})
    assert tfrecord.parse_example(built) == tfrecord.parse_example(_hand_built_example())


def test_unpacked_repeated_values_are_accepted():
    # Int64List with two unpacked varint entries (wire type 0): proto parsers must accept both encodings
    int64_list = b"\x08\x07\x08\x09"
    feat = b"\x1a" + bytes([len(int64_list)]) + int64_list
    body = b"\x0a\x01k\x12" + bytes([len(feat)]) + feat
    ex = b"\x0a" + bytes([len(body) + 2]) + b"\x0a" + bytes([len(body)]) + body
    assert tfrecord.parse_example(ex) == {"k": ("int64", [7, 9])}


def test_garbage_is_not_an_example():
    with pytest.raises(tfrecord.ExampleError):
        tfrecord.parse_example(b"\xff\xff\xff")


@pytest.mark.parametrize("compress", [True, False])
def test_write_and_read_records(tmp_path, compress):
    path = tmp_path / "x.tfrecord"
    payloads = [b"", b"a", b"b" * 70000]
    assert tfrecord.write_records(path, payloads, compress=compress) == 3
    head = path.read_bytes()[:2]
    assert (head == b"\x1f\x8b") == compress
    recs = list(tfrecord.iter_records(path))
    assert [r.data for r in recs] == payloads
    assert [r.index for r in recs] == [0, 1, 2]


def test_bad_data_crc_is_reported_and_reading_goes_on(tmp_path):
    frames = bytearray(tfrecord.frame(b"first") + tfrecord.frame(b"second") + tfrecord.frame(b"third"))
    frames[len(tfrecord.frame(b"first")) + 12] ^= 0x01  # a data byte of record 1
    path = tmp_path / "x.gz"
    path.write_bytes(gzip.compress(bytes(frames)))
    recs = list(tfrecord.iter_records(path))
    assert [r.data for r in recs] == [b"first", None, b"third"]
    assert recs[1].error is not None and "data CRC" in recs[1].error.detail


def test_bad_length_crc_stops_the_file(tmp_path):
    frames = bytearray(tfrecord.frame(b"first") + tfrecord.frame(b"second"))
    frames[len(tfrecord.frame(b"first")) + 9] ^= 0x40  # the length CRC of record 1
    path = tmp_path / "x.gz"
    path.write_bytes(gzip.compress(bytes(frames)))
    it = tfrecord.iter_records(path)
    assert next(it).data == b"first"
    with pytest.raises(tfrecord.RecordError) as ei:
        next(it)
    assert ei.value.index == 1 and "length CRC" in ei.value.detail


def test_truncated_gzip_stream(tmp_path):
    path = tmp_path / "x.gz"
    whole = gzip.compress(tfrecord.frame(b"a" * 1000) + tfrecord.frame(b"b" * 1000))
    path.write_bytes(whole[: len(whole) // 2])
    with pytest.raises(tfrecord.RecordError):
        list(tfrecord.iter_records(path))


def test_written_examples_are_the_same_bytes_in_every_process():
    """Map fields (the Example's features) serialize in key order, not in a per-process hash order: a shard
    written twice is byte-identical (tests that cut a shard at an offset rely on it)."""
    import subprocess
    import sys

    code = (
        "import hashlib; from tasks.datasets.tfrecord import build_example; "
        "print(hashlib.sha256(build_example({f'k{i}': ('int64', [i]) for i in range(40)})).hexdigest())"
    )
    digests = {
        subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=str(REPO)).stdout
        for _ in range(4)
    }
    assert len(digests) == 1, digests
