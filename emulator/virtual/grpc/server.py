"""The emulator's gRPC door on the virtual device: `EmulatorController` and `SnapshotService` served on
127.0.0.1:PORT in the emulator's wire format (grpcio's generic handlers with this package's messages), so stubs
generated from the emulator's published protos - android_env's, AndroidWorld's - work unchanged.

Every method of both published services is registered: the modelled ones (controller.py, snapshots.py) answer,
the others answer UNIMPLEMENTED (so does any other name, grpc's own answer). With a token (`--grpc-use-token`) a
call without the metadata `authorization: Bearer <token>` is refused UNAUTHENTICATED, as the emulator refuses it.
This is the only module that imports grpc.
"""

from __future__ import annotations

import logging
import secrets
import threading
from collections.abc import Callable, Iterator
from concurrent import futures
from typing import TYPE_CHECKING, Any

import grpc

from emulator.grpcproto.messages import message

from . import controller, snapshots
from .errors import RpcError, unimplemented

if TYPE_CHECKING:  # pragma: no cover
    from ..model import VirtualDeviceModel

log = logging.getLogger(__name__)
WORKERS = 16  # a stream holds a worker for as long as it runs


def _abort(context: Any, err: RpcError) -> None:
    context.abort(getattr(grpc.StatusCode, err.code, grpc.StatusCode.UNKNOWN), err.details)


def _unary(fn: Callable[[Any], Any]) -> Callable[[Any, Any], Any]:
    def handle(request: Any, context: Any) -> Any:
        try:
            return fn(request)
        except RpcError as e:
            _abort(context, e)

    return handle


def _streaming(fn: Callable[[Any, Callable[[], bool]], Iterator[Any]]) -> Callable[[Any, Any], Iterator[Any]]:
    def handle(request: Any, context: Any) -> Iterator[Any]:
        try:
            yield from fn(request, context.is_active)
        except RpcError as e:
            _abort(context, e)

    return handle


def _refuse(err: RpcError, kind: str) -> Any:
    """A handler of `kind` ("uu", "us", "su") that answers with `err`."""

    def refuse(request: Any, context: Any) -> Any:
        _abort(context, err)

    def refuse_stream(request: Any, context: Any) -> Iterator[Any]:
        _abort(context, err)
        yield from ()

    if kind == "us":
        return grpc.unary_stream_rpc_method_handler(refuse_stream)
    if kind == "su":
        return grpc.stream_unary_rpc_method_handler(refuse)
    return grpc.unary_unary_rpc_method_handler(refuse)


def _serialize(reply: Any) -> bytes:
    return bytes(reply.SerializeToString())


def _handlers(service: str, impl: Any, module: Any, streams: tuple[str, ...]) -> Any:
    table: dict[str, Any] = {}
    for name in module.MODELLED_UNARY:
        table[name] = grpc.unary_unary_rpc_method_handler(
            _unary(getattr(impl, name)),
            request_deserializer=message(module.REQUESTS[name]).FromString,
            response_serializer=_serialize,
        )
    for name in streams:
        table[name] = grpc.unary_stream_rpc_method_handler(
            _streaming(getattr(impl, name)),
            request_deserializer=message(module.REQUESTS[name]).FromString,
            response_serializer=_serialize,
        )
    for name, kind in module.UNMODELLED.items():
        table[name] = _refuse(unimplemented(service.rsplit(".", 1)[-1], name), kind)
    return grpc.method_handlers_generic_handler(service, table)


class _TokenCheck(grpc.ServerInterceptor):
    def __init__(self, token: str) -> None:
        self.expected = f"Bearer {token}"
        self.refusal = _refuse(RpcError("UNAUTHENTICATED", "missing or wrong authorization bearer token"), "uu")

    def intercept_service(self, continuation: Any, details: Any) -> Any:
        given = dict(details.invocation_metadata or ()).get("authorization", "")
        if isinstance(given, str) and secrets.compare_digest(given, self.expected):
            return continuation(details)
        return self.refusal


class GrpcServer:
    """The gRPC door of one device: `start()` binds host:port (0 = any free port; `port` then tells which)."""

    def __init__(
        self,
        model: VirtualDeviceModel,
        snapshot_store: dict[str, Any],
        avd_name: str,
        port: int,
        host: str = "127.0.0.1",
        token: str | None = None,
    ) -> None:
        self.model = model
        self.host = host
        self.token = token
        self._requested_port = port
        self.port = 0
        self._stop = threading.Event()
        self.control = controller.EmulatorControl(model, avd_name, self._stop)
        self.snapshots = snapshots.SnapshotControl(model, snapshot_store)
        self._server: Any = None

    def start(self) -> GrpcServer:
        interceptors = [_TokenCheck(self.token)] if self.token else []
        server = grpc.server(futures.ThreadPoolExecutor(max_workers=WORKERS), interceptors=interceptors)
        server.add_generic_rpc_handlers(
            (
                _handlers(controller.SERVICE, self.control, controller, controller.MODELLED_STREAMS),
                _handlers(snapshots.SERVICE, self.snapshots, snapshots, ()),
            )
        )
        address = f"{self.host}:{self._requested_port}"
        try:
            port = server.add_insecure_port(address)
        except RuntimeError as e:  # grpcio raises where older versions returned 0
            raise OSError(f"cannot serve gRPC on {address}: {e}") from None
        if not port:
            raise OSError(f"cannot serve gRPC on {address}")
        server.start()
        self._server, self.port = server, port
        log.info("gRPC (EmulatorController, SnapshotService) on %s:%d", self.host, port)
        return self

    def stop(self) -> None:
        self._stop.set()  # streams end
        if self._server is not None:
            self._server.stop(grace=0.5).wait(2)
        self.control.regions.close()
