"""`reverse:` (adb reverse) and `framebuffer:` (adb's legacy screenshot).

reverse: requests as adbd's handle_forward_request answers them on the device side: `forward:[norebind:]LOCAL;REMOTE`
and `killforward:LOCAL` -> "OKAY" (a `tcp:0` local port: then the chosen port as a 4-hex-length string) or
"FAIL" + length + message; `killforward-all` -> "OKAY"; `list-forward` -> one length-prefixed string of
"host-N LOCAL REMOTE\\n" lines. A device-side client connecting to LOCAL (`connect_reverse`, the shell's `nc`)
makes the device open a stream to the host naming REMOTE, as adbd does; the host adb server then connects its
own REMOTE port.

framebuffer: a version-2 fbinfo header (version, bpp, colorSpace, size, width, height, red offset/length,
blue offset/length, green offset/length, alpha offset/length; little-endian u32) then RGBA_8888 pixels.
"""

from __future__ import annotations

import itertools
import struct
import threading
from typing import TYPE_CHECKING, Any

from ..streams import Stream, StreamClosed

if TYPE_CHECKING:  # pragma: no cover
    from ..model import VirtualDeviceModel

_LOCK = threading.Lock()
_PORTS = itertools.count(37001)


def _protocol_string(text: str) -> bytes:
    data = text.encode()
    return f"{len(data):04x}".encode() + data


def _fail(stream: Stream, message: str) -> None:
    stream.write(b"FAIL" + _protocol_string(message))


def _valid_local(spec: str) -> bool:
    kind, _, rest = spec.partition(":")
    if kind == "tcp":
        return rest.isdigit() and 0 <= int(rest) < 65536
    return kind in ("localabstract", "localreserved", "localfilesystem") and bool(rest)


def serve_reverse(model: VirtualDeviceModel, request: str, stream: Stream) -> None:
    conn: Any = getattr(stream, "conn", None)
    table: dict[str, tuple[Any, str]] = model.reverse_forwards
    if request == "list-forward":
        with _LOCK:
            lines = "".join(f"host-{getattr(c, 'id', 0)} {local} {remote}\n" for local, (c, remote) in table.items())
        stream.write(_protocol_string(lines))
        return
    if request == "killforward-all":
        with _LOCK:
            for local in [k for k, (c, _) in table.items() if c is conn]:
                del table[local]
        stream.write(b"OKAY")
        return
    if request.startswith("killforward:"):
        local = request[len("killforward:") :]
        with _LOCK:
            found = table.pop(local, None) is not None
        if found:
            stream.write(b"OKAY")
        else:
            _fail(stream, f"listener '{local}' not found")
        return
    if request.startswith("forward:"):
        spec = request[len("forward:") :]
        norebind = spec.startswith("norebind:")
        if norebind:
            spec = spec[len("norebind:") :]
        local, sep, remote = spec.partition(";")
        if not sep or not remote or not _valid_local(local):
            _fail(stream, f"bad forward: {spec}" if sep else "bad forward: missing ';'")
            return
        resolved = None
        with _LOCK:
            if local == "tcp:0":
                resolved = next(_PORTS)
                local = f"tcp:{resolved}"
            if norebind and local in table:
                _fail(stream, "cannot rebind existing socket")
                return
            table[local] = (conn, remote)
        model.events.log("reverse", local=local, remote=remote)
        stream.write(b"OKAY" + (_protocol_string(str(resolved)) if resolved is not None else b""))
        return
    _fail(stream, f"unknown reverse request: {request}")


def has_reverse(model: VirtualDeviceModel, local: str) -> bool:
    """Whether `adb reverse` made a device-side socket `local` (`tcp:PORT`, `localabstract:NAME`)."""
    with _LOCK:
        return local in model.reverse_forwards


def connect_reverse(model: VirtualDeviceModel, local: str, timeout: float = 10.0) -> Stream:
    """What a device app connecting to an `adb reverse` socket gets: a stream to the host's end.
    Raises ConnectionRefusedError when nothing is forwarded there or the host refuses."""
    with _LOCK:
        entry = model.reverse_forwards.get(local)
    if entry is None:
        raise ConnectionRefusedError(local)
    conn, remote = entry
    if conn is None or conn.closed:
        raise ConnectionRefusedError(local)
    try:
        return conn.open_to_host(remote, timeout)
    except StreamClosed:
        raise ConnectionRefusedError(local) from None


DDMS_RAWIMAGE_VERSION = 2


def serve_framebuffer(model: VirtualDeviceModel, stream: Stream) -> None:
    img = model.screenshot().convert("RGBA")
    w, h = img.size
    pixels = img.tobytes()
    # bpp, colorSpace (1 = sRGB), size, width, height, red off/len, blue off/len, green off/len, alpha off/len
    header = struct.pack("<14I", DDMS_RAWIMAGE_VERSION, 32, 1, len(pixels), w, h, 0, 8, 16, 8, 8, 8, 24, 8)
    model.events.log("framebuffer", width=w, height=h)
    stream.write(header + pixels)
