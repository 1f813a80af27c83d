"""A second, independent adb client: the `adb-shell` package speaks the wire protocol itself, over TCP, straight to
the virtual device (no adb server in between). It waits for adbd's CLSE answer to its own CLSE, so this is where a
device that stays silent on a host CLSE hangs (push, pull, stat and list all close their sync stream that way).
"""

from __future__ import annotations

import os
import stat as statmod

import pytest

from emulator.virtual import VirtualDevice, VirtualDeviceModel
from emulator.virtual import protocol as p
from emulator.virtual.transport import AdbdServer
from tests.emulator.virtual.test_transport import RawHost

adb_device = pytest.importorskip("adb_shell.adb_device")

pytestmark = pytest.mark.timeout(60)


@pytest.fixture
def direct():
    """A virtual device not registered with any adb server, and an adb-shell client connected to it."""
    vd = VirtualDevice().start()
    dev = adb_device.AdbDeviceTcp("127.0.0.1", vd.port, default_transport_timeout_s=5)
    assert dev.connect(rsa_keys=None, auth_timeout_s=2, read_timeout_s=5)
    yield vd, dev
    dev.close()
    vd.stop()


def test_host_clse_on_open_stream_is_answered_and_unknown_ids_are_ignored() -> None:
    model = VirtualDeviceModel()
    srv = AdbdServer(model).start()
    host = RawHost(srv.port)
    try:
        assert host.connect().command == p.A_CNXN
        host.send(p.A_OPEN, 7, 0, b"sync:\0")
        okay = host.recv()
        assert okay.command == p.A_OKAY and okay.arg1 == 7
        host.send(p.A_CLSE, 7, okay.arg0)
        reply = host.recv()
        assert (reply.command, reply.arg0, reply.arg1) == (p.A_CLSE, okay.arg0, 7)
        # a CLSE for a stream that no longer exists gets nothing; the next packet we see answers our OPEN
        host.send(p.A_CLSE, 7, okay.arg0)
        host.send(p.A_OPEN, 8, 0, b"nope:\0")
        refused = host.recv()
        assert (refused.command, refused.arg0, refused.arg1) == (p.A_CLSE, 0, 8)
    finally:
        host.close()
        srv.stop()


def test_adb_shell_runs_commands_with_their_output(direct) -> None:
    vd, dev = direct
    assert dev.shell("echo hello; getprop ro.product.model").splitlines() == [
        "hello",
        vd.model.props["ro.product.model"],
    ]
    assert dev.shell("for i in 1 2 3; do echo $((i * 2)); done").split() == ["2", "4", "6"]
    assert "u2.jar" in dev.shell("ls /data/local/tmp")


def test_adb_shell_push_stat_list_pull_roundtrip(direct, tmp_path) -> None:
    vd, dev = direct
    payload = os.urandom(300_000)  # several sync DATA chunks each way
    src = tmp_path / "blob.bin"
    src.write_bytes(payload)
    dev.push(str(src), "/sdcard/Download/blob.bin")
    assert vd.model.fs.read("/sdcard/Download/blob.bin") == payload

    mode, size, mtime = dev.stat("/sdcard/Download/blob.bin")
    assert statmod.S_ISREG(mode) and size == len(payload) and mtime > 0
    dmode, _, _ = dev.stat("/sdcard/Download")
    assert statmod.S_ISDIR(dmode)
    assert dev.stat("/sdcard/Download/absent") == (0, 0, 0)

    entries = {bytes(e.filename).decode(): e for e in dev.list("/sdcard/Download")}
    assert "blob.bin" in entries and entries["blob.bin"].size == len(payload)

    dst = tmp_path / "back.bin"
    dev.pull("/sdcard/Download/blob.bin", str(dst))
    assert dst.read_bytes() == payload
    # the connection is still usable after four sync sessions, each closed by the host
    assert dev.shell("md5sum /sdcard/Download/blob.bin").split()[0] == __import__("hashlib").md5(payload).hexdigest()


def test_adb_shell_authenticates_with_its_own_key(tmp_path):
    keygen = pytest.importorskip("adb_shell.auth.keygen")
    signers = pytest.importorskip("adb_shell.auth.sign_pythonrsa")
    keygen.keygen(str(tmp_path / "adbkey"))
    signer = signers.PythonRSASigner.FromRSAKeyPath(str(tmp_path / "adbkey"))
    vd = VirtualDevice().start()
    vd.faults.auth_mode = "accept"  # AUTH TOKEN first; the signature (or the public key) is accepted
    dev = adb_device.AdbDeviceTcp("127.0.0.1", vd.port, default_transport_timeout_s=5)
    try:
        assert dev.connect(rsa_keys=[signer], auth_timeout_s=5, read_timeout_s=5)
        assert dev.shell("echo authed") == "authed\n"
    finally:
        dev.close()
        vd.stop()


def test_real_adb_server_closing_a_stream_is_answered(vdevice, monkeypatch):
    """The adb server sends CLSE when its client hangs up on a running command; the device answers with its own
    CLSE for that stream, forgets it, and the transport goes on."""
    import time

    from emulator.virtual.transport import Connection

    sent: list[tuple[int, int, int]] = []
    original = Connection.send_packet

    def recording(self, command, arg0, arg1, data=b""):
        sent.append((command, arg0, arg1))
        return original(self, command, arg0, arg1, data)

    monkeypatch.setattr(Connection, "send_packet", recording)

    def logcat_streams() -> list:
        return [s for c in vdevice._server.connections for s in list(c._streams.values()) if "logcat" in s.service]

    conn = vdevice.adb.shell("logcat", stream=True)  # follows forever: only the host can end it
    deadline = time.monotonic() + 20
    while not logcat_streams() and time.monotonic() < deadline:
        time.sleep(0.02)
    (stream,) = logcat_streams()
    conn.close()
    while not stream.closed and time.monotonic() < deadline:
        time.sleep(0.02)
    while (p.A_CLSE, stream.local_id, stream.remote_id) not in sent and time.monotonic() < deadline:
        time.sleep(0.02)
    assert sent.count((p.A_CLSE, stream.local_id, stream.remote_id)) == 1
    assert not logcat_streams()
    assert vdevice.adb.shell("echo alive") == "alive"
