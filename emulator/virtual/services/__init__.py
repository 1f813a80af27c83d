"""Service router: the string of an adb OPEN -> a blocking handler run in its own thread, or None to refuse.

A handler takes the opened `Stream`; the transport closes the stream when the handler returns.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from functools import partial
from typing import TYPE_CHECKING

from ..streams import Stream
from . import abb_service, extra_services, root_service, shell_service, sync_service, tcp_service

if TYPE_CHECKING:  # pragma: no cover
    from ..model import VirtualDeviceModel

log = logging.getLogger(__name__)

Handler = Callable[[Stream], None]


def _message_service(model: VirtualDeviceModel, text: str, stream: Stream) -> None:
    stream.write(text.encode())


def _reboot_service(model: VirtualDeviceModel, target: str, stream: Stream) -> None:
    # A production adbd would restart the phone; the virtual device records the request and closes the stream.
    model.events.log("reboot", target=target)


def route(model: VirtualDeviceModel, service: str) -> Handler | None:
    """The handler for `service` (e.g. "shell,v2,raw:ls", "sync:", "tcp:9008"), or None when refused."""
    name = service.rstrip("\0")
    if name.startswith("shell:") or name.startswith("shell,"):
        return shell_service.shell_handler(model, name)
    if name.startswith("exec:"):
        return partial(shell_service.serve_exec, model, name[len("exec:") :])
    if name.startswith("abb:"):
        return partial(abb_service.serve_abb, model, service[len("abb:") :])
    if name.startswith("abb_exec:"):
        return partial(abb_service.serve_abb_exec, model, service[len("abb_exec:") :])
    if name == "sync:" or name == "sync":
        return partial(sync_service.serve, model)
    if name.startswith("tcp:"):
        return tcp_service.tcp_handler(model, name)
    if name.startswith(tcp_service.LOCAL_KINDS):
        return tcp_service.local_handler(model, name)
    if name.startswith("reboot:") or name == "reboot":
        return partial(_reboot_service, model, name.partition(":")[2])
    if name.startswith("reverse:"):
        return partial(extra_services.serve_reverse, model, name[len("reverse:") :])
    if name == "framebuffer:":
        return partial(extra_services.serve_framebuffer, model)
    if name in ("root:", "unroot:"):
        return partial(root_service.serve_root, model, name == "root:")
    if name in ("remount:", "enable-verity:", "disable-verity:"):
        return partial(_message_service, model, "not supported on a user build\n")
    # jdwp:, track-jdwp, ... are refused
    return None


__all__ = ["Handler", "route"]
