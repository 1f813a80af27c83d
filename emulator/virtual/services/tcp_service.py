"""`tcp:PORT` and `localabstract:NAME` (what the host opens after `adb forward`): a byte pipe to whatever listens
on that socket on the device, looked up in this order:

- a listener a shell process made (`nc -l -p PORT`; `listeners`),
- a socket `adb reverse` made: the connection goes on to the host, as a device app's connection to it would
  (the device opens a stream naming the reverse's remote end; `extra_services.connect_reverse`), and the two
  streams are joined both ways,
- a port the device serves itself (`model.ports[PORT]`, e.g. the uiautomator2 server on 9008).

Nothing listening: the OPEN is refused (adbd answers CLSE)."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from ..listeners import bridge, lookup
from ..streams import Stream
from ..u2server import listener
from .extra_services import connect_reverse, has_reverse

if TYPE_CHECKING:  # pragma: no cover
    from ..model import VirtualDeviceModel

_LOCAL_HOSTS = ("localhost", "127.0.0.1", "::1", "")
LOCAL_KINDS = ("localabstract:", "localreserved:", "localfilesystem:")


def parse_port(service: str) -> int | None:
    """PORT of `tcp:PORT` or `tcp:localhost:PORT`; None for anything else (remote hosts are not reachable)."""
    rest = service[len("tcp:") :] if service.startswith("tcp:") else service
    host, sep, port = rest.rpartition(":")
    if sep and host not in _LOCAL_HOSTS:
        return None
    try:
        n = int(port)
    except ValueError:
        return None
    return n if 0 < n < 65536 else None


def device_handler(model: VirtualDeviceModel, spec: str) -> Callable[[Stream], None] | None:
    """What accepts a connection to the device socket `spec` (`tcp:PORT`, `localabstract:NAME`, ...), or None
    when nothing listens there."""
    own = lookup(model, spec)
    if own is not None and not own.closed:
        return own.handle
    if has_reverse(model, spec):
        return lambda stream: _to_host(model, spec, stream)
    if spec.startswith("tcp:"):
        found = listener(model, int(spec[4:]))  # waits a moment while the uiautomator2 server is being launched
        if found is not None:
            return lambda stream: found(stream)
    return None


def _to_host(model: VirtualDeviceModel, spec: str, stream: Stream) -> None:
    try:
        far = connect_reverse(model, spec)
    except ConnectionRefusedError:
        return
    model.events.log("forward-to-reverse", local=spec)
    bridge(stream, far)


def tcp_handler(model: VirtualDeviceModel, service: str) -> Callable[[Stream], None] | None:
    """The listener's handler bound to the stream, or None (refuse: nothing listens there)."""
    port = parse_port(service)
    if port is None:
        return None
    return device_handler(model, f"tcp:{port}")


def local_handler(model: VirtualDeviceModel, service: str) -> Callable[[Stream], None] | None:
    """`localabstract:NAME` (and `localreserved:`/`localfilesystem:`): a listener of that name, or None."""
    if not service.startswith(LOCAL_KINDS) or not service.partition(":")[2]:
        return None
    return device_handler(model, service)
