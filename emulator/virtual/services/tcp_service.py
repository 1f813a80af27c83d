"""`tcp:PORT`: a byte pipe to a device-side port (`model.ports[PORT]`, e.g. the uiautomator2 server on 9008)."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from ..streams import Stream
from ..u2server import listener

if TYPE_CHECKING:  # pragma: no cover
    from ..model import VirtualDeviceModel

_LOCAL_HOSTS = ("localhost", "127.0.0.1", "::1", "")


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


def tcp_handler(model: VirtualDeviceModel, service: str) -> Callable[[Stream], None] | None:
    """The listener's handler bound to the stream, or None (refuse: nothing listens there)."""
    port = parse_port(service)
    if port is None:
        return None
    found = listener(model, port)  # waits a moment while the uiautomator2 server is being launched
    if found is None:
        return None

    def serve(stream: Stream) -> None:
        found(stream)

    return serve
