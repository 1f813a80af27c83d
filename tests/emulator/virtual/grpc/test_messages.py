"""The gRPC messages the virtual device builds match the emulator's published protos (android_env ships them and
their generated stubs): every modelled field has the published name, number, type and cardinality, and bytes
written by one side read back on the other."""

from __future__ import annotations

import pytest

from emulator.grpcproto import messages
from emulator.virtual.grpc import controller, snapshots

ec = pytest.importorskip("android_env.proto.emulator_controller_pb2")
ss = pytest.importorskip("android_env.proto.snapshot_service_pb2")
sp = pytest.importorskip("android_env.proto.snapshot_pb2")


def _published(name: str):
    return getattr(ec, name, None) or getattr(ss, name)


@pytest.mark.parametrize("name", sorted(messages.CONTROL_MESSAGES))
def test_each_modelled_message_has_the_published_fields(name):
    mine = messages.POOL.FindMessageTypeByName(f"{messages.PACKAGE}.{name}")
    theirs = _published(name).DESCRIPTOR
    assert mine.full_name == theirs.full_name
    published = {f.name: f for f in theirs.fields}
    assert {f.name for f in mine.fields} == set(published)  # the whole message, not a subset
    for f in mine.fields:
        t = published[f.name]
        assert (f.number, f.type, f.is_repeated) == (t.number, t.type, t.is_repeated), f.name
        if f.message_type is not None:
            assert f.message_type.full_name == t.message_type.full_name
        if f.enum_type is not None:
            assert {(v.name, v.number) for v in f.enum_type.values} == {(v.name, v.number) for v in t.enum_type.values}


def test_the_snapshot_details_fields_are_the_published_ones():
    mine = messages.POOL.FindMessageTypeByName("emulator_snapshot.Snapshot")
    published = {f.name: f for f in sp.Snapshot.DESCRIPTOR.fields}
    for f in mine.fields:
        assert (f.number, f.type) == (published[f.name].number, published[f.name].type), f.name


def test_every_published_method_is_registered_as_modelled_or_unimplemented():
    for module, service in (
        (controller, ec.DESCRIPTOR.services_by_name["EmulatorController"]),
        (snapshots, ss.DESCRIPTOR.services_by_name["SnapshotService"]),
    ):
        published = {m.name for m in service.methods}
        streams = getattr(module, "MODELLED_STREAMS", ())
        ours = set(module.MODELLED_UNARY) | set(streams) | set(module.UNMODELLED)
        assert ours == published
        assert service.full_name == module.SERVICE


def test_bytes_cross_between_our_messages_and_the_generated_ones():
    img = messages.message("Image")(image=b"\x01\x02", seq=7)
    img.format.width, img.format.format = 320, 2
    theirs = ec.Image.FromString(img.SerializeToString())
    assert (theirs.image, theirs.seq, theirs.format.width, theirs.format.format) == (b"\x01\x02", 7, 320, 2)
    touch = ec.TouchEvent(touches=[ec.Touch(x=5, y=6, identifier=2, pressure=1)])
    mine = messages.message("TouchEvent").FromString(touch.SerializeToString())
    assert [(t.x, t.y, t.identifier, t.pressure) for t in mine.touches] == [(5, 6, 2, 1)]
