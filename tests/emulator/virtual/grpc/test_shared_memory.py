"""Screenshots into shared memory on the emulator's gRPC door (`ImageFormat.transport` MMAP), driven by the
emulator's own generated stubs (android_env's): the client creates and sizes the region, the device writes the
frame's rows at its start and answers with an empty `image`; what it wrote is what `screencap` shows."""

from __future__ import annotations

import io
import mmap
import os

import pytest

grpc = pytest.importorskip("grpc")
ec = pytest.importorskip("android_env.proto.emulator_controller_pb2")
ecg = pytest.importorskip("android_env.proto.emulator_controller_pb2_grpc")
from PIL import Image  # noqa: E402

pytestmark = pytest.mark.integration


@pytest.fixture
def door(make_posing_emulator):
    vd, serial = make_posing_emulator(grpc_port=0)
    channel = grpc.insecure_channel(vd.grpc_address)
    yield vd, serial, ecg.EmulatorControllerStub(channel)
    channel.close()


def _region(path, size: int) -> mmap.mmap:
    with open(path, "wb") as f:
        f.truncate(size)
    with open(path, "r+b") as f:
        return mmap.mmap(f.fileno(), 0)


def _request(fmt, handle: str, **kw):
    return ec.ImageFormat(format=fmt, transport=ec.ImageTransport(channel=ec.ImageTransport.MMAP, handle=handle), **kw)


def test_the_device_writes_rgb888_and_rgba8888_rows_into_the_clients_region(door, adb_server, tmp_path):
    vd, serial, stub = door
    w, h = vd.model.display_size
    shown = Image.open(io.BytesIO(adb_server.client.device(serial).shell("screencap -p", encoding=None)))
    path = tmp_path / "frame.rgb"
    region = _region(path, w * h * 4 + 1024)  # as the emulator's own tests size it: room to spare
    reply = stub.getScreenshot(_request(ec.ImageFormat.RGB888, "file://" + str(path)))
    assert reply.image == b""  # the pixels are in the region, not in the reply
    assert (reply.format.width, reply.format.height, reply.format.format) == (w, h, ec.ImageFormat.RGB888)
    assert region[: w * h * 3] == shown.convert("RGB").tobytes()
    assert region[w * h * 3 : w * h * 3 + 16] == bytes(16)  # nothing past the frame
    reply = stub.getScreenshot(_request(ec.ImageFormat.RGBA8888, "file://" + str(path)))
    assert reply.image == b"" and region[: w * h * 4] == shown.convert("RGBA").tobytes()
    small = stub.getScreenshot(_request(ec.ImageFormat.RGB888, "file://" + str(path), width=w // 4))
    sw, sh = small.format.width, small.format.height
    assert (sw, sh) == (w // 4, round(h / 4))
    expect = shown.convert("RGB").resize((sw, sh), Image.Resampling.BILINEAR).tobytes()
    assert region[: sw * sh * 3] == expect


def test_the_region_is_mapped_once_so_the_client_may_unlink_it(door, tmp_path):
    vd, _, stub = door
    w, h = vd.model.display_size
    path = tmp_path / "frame.rgb"
    region = _region(path, w * h * 3)
    handle = "file://" + str(path)
    stub.getScreenshot(_request(ec.ImageFormat.RGB888, handle))
    os.unlink(path)  # the harness does so at once: nothing is left behind, however it ends
    vd.model.key(3)  # a new frame (HOME) ...
    region[:16] = bytes(16)
    stub.getScreenshot(_request(ec.ImageFormat.RGB888, handle))
    assert region[:16] != bytes(16)  # ... written into the kept mapping


def test_a_missing_or_too_small_region_is_an_invalid_argument(door, tmp_path):
    vd, _, stub = door
    w, h = vd.model.display_size
    with pytest.raises(grpc.RpcError) as e:
        stub.getScreenshot(_request(ec.ImageFormat.RGB888, "file://" + str(tmp_path / "absent")))
    assert e.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    small = tmp_path / "small.rgb"
    _region(small, w * h * 3 - 1)
    with pytest.raises(grpc.RpcError) as e:
        stub.getScreenshot(_request(ec.ImageFormat.RGB888, "file://" + str(small)))
    assert e.value.code() == grpc.StatusCode.INVALID_ARGUMENT and "needs" in e.value.details()
    with pytest.raises(grpc.RpcError) as e:
        stub.getScreenshot(_request(ec.ImageFormat.RGB888, ""))
    assert e.value.code() == grpc.StatusCode.INVALID_ARGUMENT
