"""adbd's wire protocol: message constants, the 24-byte header, and a packet reader over a socket.

A message is a header of six little-endian u32 (`command, arg0, arg1, data_length, data_check, magic`) followed
by `data_length` payload bytes. `magic` is `command ^ 0xFFFFFFFF`. Hosts since protocol version 0x01000001
neither send nor check `data_check`; we send 0 and ignore what arrives (older peers get a real checksum).
"""

from __future__ import annotations

import socket
import struct
from dataclasses import dataclass

from .sync_codecs import available as available_codecs

A_SYNC = 0x434E5953
A_CNXN = 0x4E584E43
A_AUTH = 0x48545541
A_OPEN = 0x4E45504F
A_OKAY = 0x59414B4F
A_CLSE = 0x45534C43
A_WRTE = 0x45545257
A_STLS = 0x534C5453

COMMAND_NAMES = {
    A_SYNC: "SYNC",
    A_CNXN: "CNXN",
    A_AUTH: "AUTH",
    A_OPEN: "OPEN",
    A_OKAY: "OKAY",
    A_CLSE: "CLSE",
    A_WRTE: "WRTE",
    A_STLS: "STLS",
}

A_VERSION = 0x01000001  # skip checksums
A_VERSION_MIN = 0x01000000
MAX_PAYLOAD = 1024 * 1024  # what we accept and offer; the connection uses min(host's, ours)
MAX_PAYLOAD_V1 = 4096

# AUTH arg0 types
AUTH_TOKEN = 1
AUTH_SIGNATURE = 2
AUTH_RSAPUBLICKEY = 3
TOKEN_SIZE = 20

HEADER = struct.Struct("<6I")
HEADER_SIZE = HEADER.size  # 24

# Features we implement (what the CNXN banner advertises), in the order of an API 34 adbd's list (AOSP
# transport.cpp, supported_features). Nothing else: clients pick code paths from this list. Left out of adbd's
# list: apex (no APEX install), remount_shell (no remount), track_app (no track-app service),
# openscreen_mdns and devicetracker_proto_format (host-side features) and delayed_ack (the transport acknowledges
# every WRTE). A compression's feature is there only when its codec imports (`sync_codecs.available`).
_CODEC_FEATURES = tuple(f"sendrecv_v2_{name}" for name in available_codecs())
DEVICE_FEATURES = (
    "shell_v2",
    "cmd",
    "stat_v2",
    "ls_v2",
    "fixed_push_mkdir",
    "abb",
    "fixed_push_symlink_timestamp",
    "abb_exec",
    "sendrecv_v2",
    *_CODEC_FEATURES,
    "sendrecv_v2_dry_run_send",
)

# Refuse payloads above this even if a host claims a larger maximum (a malformed length ends the connection).
HARD_PAYLOAD_LIMIT = 16 * 1024 * 1024


class ProtocolError(Exception):
    """The peer sent something that is not an adb message; the connection must end."""


@dataclass(frozen=True)
class Packet:
    command: int
    arg0: int
    arg1: int
    data: bytes | bytearray  # a fresh buffer per packet, owned by the receiver

    @property
    def name(self) -> str:
        return command_name(self.command)

    def __repr__(self) -> str:  # short: payloads can be megabytes
        return f"Packet({self.name}, {self.arg0:#x}, {self.arg1:#x}, {len(self.data)} bytes)"


def command_name(command: int) -> str:
    return COMMAND_NAMES.get(command, f"{command:#010x}")


def checksum(data: bytes | bytearray | memoryview) -> int:
    return sum(data) & 0xFFFFFFFF


def pack_header(command: int, arg0: int, arg1: int, length: int, check: int = 0) -> bytes:
    return HEADER.pack(command, arg0 & 0xFFFFFFFF, arg1 & 0xFFFFFFFF, length, check, command ^ 0xFFFFFFFF)


def unpack_header(raw: bytes | bytearray) -> tuple[int, int, int, int, int, int]:
    """(command, arg0, arg1, data_length, data_check, magic); raises ProtocolError on a bad magic or size."""
    if len(raw) != HEADER_SIZE:
        raise ProtocolError(f"short header: {len(raw)} bytes")
    command, arg0, arg1, length, check, magic = HEADER.unpack(raw)
    if magic != command ^ 0xFFFFFFFF:
        raise ProtocolError(f"bad magic {magic:#010x} for command {command:#010x}")
    if command not in COMMAND_NAMES:
        raise ProtocolError(f"unknown command {command:#010x}")
    if length > HARD_PAYLOAD_LIMIT:
        raise ProtocolError(f"payload length {length} too large")
    return command, arg0, arg1, length, check, magic


def encode(command: int, arg0: int, arg1: int, data: bytes = b"", with_checksum: bool = False) -> bytes:
    """One whole message (header + payload) as bytes; fine for small payloads."""
    return pack_header(command, arg0, arg1, len(data), checksum(data) if with_checksum else 0) + data


def recv_exact(sock: socket.socket, n: int, head: bytes | bytearray = b"") -> bytearray | None:
    """Exactly n bytes, the first of them `head` (read before), the rest from `sock`: one buffer, filled in place.
    None at a clean EOF before the first byte; ProtocolError on EOF mid-way."""
    if n == 0:
        return bytearray()
    buf = bytearray(n)
    buf[: len(head)] = head
    view = memoryview(buf)
    got = len(head)
    while got < n:
        k = sock.recv_into(view[got:], n - got)
        if k == 0:
            if got == 0:
                return None
            raise ProtocolError(f"connection closed mid-message ({got} of {n} bytes)")
        got += k
    return buf


READ_AHEAD = 64 * 1024  # bytes a reader asks the socket for at once (what one recv may hand over)


class PacketReader:
    """Reads whole packets from a connected socket, the only reader of it: one `recv` takes what has come (a
    header and its payload, or several packets the host sent together), where a read per header and per payload
    would cost two system calls a packet - and the connection's thread gives up the interpreter at each, and may
    wait for it again behind a thread that is drawing. A payload longer than what has come is read to its end
    straight into its own buffer."""

    def __init__(self, sock: socket.socket, max_payload: int = HARD_PAYLOAD_LIMIT) -> None:
        self.sock = sock
        self.max_payload = max_payload
        self._pending = bytearray()  # read, not handed out yet

    def read(self) -> Packet | None:
        """The next packet, or None at a clean EOF. Raises ProtocolError (malformed) or OSError (socket)."""
        pending = self._pending
        while len(pending) < HEADER_SIZE:
            chunk = self.sock.recv(READ_AHEAD)
            if not chunk:
                if not pending:
                    return None
                raise ProtocolError(f"connection closed mid-message ({len(pending)} of {HEADER_SIZE} bytes)")
            pending += chunk
        command, arg0, arg1, length, _check, _magic = unpack_header(pending[:HEADER_SIZE])
        if length > self.max_payload:
            raise ProtocolError(f"payload of {length} bytes exceeds the maximum {self.max_payload}")
        end = HEADER_SIZE + length
        if len(pending) >= end:
            data = pending[HEADER_SIZE:end] if length else b""
            del pending[:end]
            return Packet(command, arg0, arg1, data)
        head = pending[HEADER_SIZE:]
        pending.clear()
        payload = recv_exact(self.sock, length, head)  # no copy: the buffer is the payload
        if payload is None:
            raise ProtocolError("connection closed before the payload")
        return Packet(command, arg0, arg1, payload)


def device_banner(props: dict[str, str], features: tuple[str, ...] = DEVICE_FEATURES) -> bytes:
    """CNXN payload: `device::ro.product.name=..;ro.product.model=..;ro.product.device=..;features=..`."""
    parts = [f"{k}={props.get(k, '')};" for k in ("ro.product.name", "ro.product.model", "ro.product.device")]
    return ("device::" + "".join(parts) + "features=" + ",".join(features)).encode()


def parse_host_banner(data: bytes | bytearray) -> dict[str, str]:
    """Properties of a host's CNXN banner (`host::features=a,b`), e.g. {"features": "a,b"}."""
    text = data.rstrip(b"\0").decode("utf-8", "replace")
    _, _, rest = text.partition("::")
    out: dict[str, str] = {}
    for item in rest.split(";"):
        if "=" in item:
            k, _, v = item.partition("=")
            out[k] = v
    return out
