"""The uiautomator2 server process of the virtual device (what `app_process ... com.wetest.uia2.Main -p 9008` runs).

    serve_until_closed(model, io, port) -> int

The mini shell calls it for that command line. It listens on the device port (`model.ports[port]`, reached by the
host through adb `tcp:PORT` streams; HTTP/1.1 requests one after another on a stream the client keeps alive, as
NanoHTTPD serves them), prints its start-up lines, and blocks until
the shell stream closes (the client stops the server by closing it) or the server is killed
(`model.faults.kill_u2()`). Then the port stops answering and the connections kept alive to it close, so the
client's next call fails to connect and its
reconnect logic launches the server again. A server whose shell stream has closed (the host hung up, the transport
dropped) is gone at once for whatever looks for it next - a connection to the port, a new launch, the
`drop_transport` fault's end - even before its own thread has woken: a phone's process dies with its terminal well
before a host could reconnect and reach the port again.

Only one server runs per device, as only one UiAutomation connection may be registered: a second launch prints
the "already registered" error the client looks for and exits with status 1.
"""

from __future__ import annotations

import itertools
import re
import threading
import time
import weakref
from typing import TYPE_CHECKING, Any

from .u2.http import BadRequest, RequestReader, format_response
from .u2.rpc import RpcService, ServerKilled

if TYPE_CHECKING:  # pragma: no cover
    from .model import VirtualDeviceModel
    from .streams import ShellIO

DEFAULT_PORT = 9008
EXIT_KILLED = 137  # 128 + SIGKILL
SERVER_VERSION = "3.7.1"
_PIDS = itertools.count(21000, 37)


class U2Server:
    """One running server process: its port handler and RPC state."""

    def __init__(self, model: VirtualDeviceModel, port: int, pid: int, io: ShellIO | None = None) -> None:
        self.model = model
        self.port = port
        self.pid = pid
        self.io = io  # the shell stream it runs on (its terminal): closed, the process is gone
        self.killed = threading.Event()  # SIGKILL: in-flight requests are dropped
        self.stopped = threading.Event()  # the process is gone (killed or its terminal closed)
        self.rpc = RpcService(model, self.killed)
        self._streams: set[Any] = set()  # its open connections (closed when the process is gone)
        self._conn_lock = threading.Lock()

    # the transport calls this in its own thread for every `tcp:PORT` stream
    def handle_stream(self, stream: Any) -> None:
        with self._conn_lock:
            self._streams.add(stream)
        try:
            if self.stopped.is_set():  # stopped as it connected (`stop` may have closed the others already)
                return
            reader = RequestReader(stream, self.model.uptime)
            while self._serve_one(stream, reader):
                pass
        except ServerKilled:
            pass  # the process died mid-request: the connection just drops
        except Exception:  # noqa: BLE001 - StreamClosed and friends: the host went away
            pass
        finally:
            with self._conn_lock:
                self._streams.discard(stream)
            try:
                stream.close()
            except Exception:  # noqa: BLE001 - closing a stream the host already dropped
                pass

    def _serve_one(self, stream: Any, reader: RequestReader) -> bool:
        """Answer the connection's next request; whether the connection stays open for another."""
        try:
            req = reader.next()
        except BadRequest as e:
            self._reply(stream, e.status, str(e).encode(), "text/plain; charset=UTF-8", False)
            return False
        if req is None or self.stopped.is_set():
            return False
        keep = req.keep_alive
        if req.path == "/ping":
            self._reply(stream, 200, b"pong", "text/plain; charset=UTF-8", keep)
        elif req.path == "/version":
            self._reply(stream, 200, SERVER_VERSION.encode(), "text/plain; charset=UTF-8", keep)
        elif req.path == "/jsonrpc/0":
            if req.method != "POST":
                self._reply(stream, 405, b"Method Not Allowed", "text/plain; charset=UTF-8", keep)
            else:
                body = self.rpc.handle(req.body)
                self._reply(stream, 200, body, "application/json; charset=UTF-8", keep)
        else:
            self._reply(stream, 404, b"Not Found", "text/plain; charset=UTF-8", keep)
        return keep and not self.stopped.is_set()

    def _reply(self, stream: Any, status: int, body: bytes, ctype: str, keep_alive: bool) -> None:
        if self.stopped.is_set():
            return
        stream.write(format_response(status, body, ctype, keep_alive))

    @property
    def hung_up(self) -> bool:
        """Its terminal is gone (the host closed the shell stream or the transport dropped)."""
        return self.io is not None and self.io.closed

    def kill(self) -> None:
        self.killed.set()
        self.stop()

    def stop(self) -> None:
        """The process is gone: unregister the port at once so `tcp:PORT` is refused (logged once)."""
        m = self.model
        with m.lock:
            if self.stopped.is_set():
                return
            self.stopped.set()
            if m.ports.get(self.port) == self.handle_stream:
                del m.ports[self.port]
            servers = _servers(m)
            if servers.get(self.port) is self:
                del servers[self.port]
            _publish(m, servers)
        with self._conn_lock:  # a dead process's sockets close: kept-alive connections end at once
            streams, self._streams = list(self._streams), set()
        for stream in streams:
            try:
                stream.close()
            except Exception:  # noqa: BLE001 - a stream the host already dropped
                pass
        m.events.log("u2_server", action="killed" if self.killed.is_set() else "stop", port=self.port, pid=self.pid)


# per model: the running servers by port (a model has at most one, see the module docstring)
_REGISTRY: weakref.WeakKeyDictionary[Any, dict[int, U2Server]] = weakref.WeakKeyDictionary()
_REGISTRY_LOCK = threading.Lock()

# Starting: a shell stream that runs the server's main class was opened, its command has not bound the port
# yet. The device starts the server at once (its latency profile says how long a call takes, not how long a JVM
# boots), so until the port is bound a connection to it waits instead of being refused - the uiautomator2
# client's launcher would otherwise find nothing listening right after the launch and sleep half a second.
MAIN_CLASS = "com.wetest.uia2.Main"
LAUNCH_WAIT = 0.3  # at most this long after the launch (a launch that fails never binds)
_LAUNCH_PORT = re.compile(r"(?:^|\s)-p\s+(\d+)")
# model -> port -> deadline; a model's launches whose deadline passed are dropped at its next launch, so a model holds
# the ports of the launches of its last LAUNCH_WAIT seconds (docs/caches.md), and goes with its model (weak keys)
_LAUNCHES: weakref.WeakKeyDictionary[Any, dict[int, float]] = weakref.WeakKeyDictionary()


def note_launch(model: VirtualDeviceModel, command: str) -> None:
    """Called as a shell stream opens (before its OKAY): if `command` starts the server, a connection to its port
    (`-p PORT`, default 9008) waits for it (`listener`) for a moment instead of being refused."""
    if MAIN_CLASS in command:
        m = _LAUNCH_PORT.search(command.split(MAIN_CLASS, 1)[1])
        port = int(m.group(1)) if m else DEFAULT_PORT
        now = time.monotonic()
        with _REGISTRY_LOCK:
            launches = {p: d for p, d in _LAUNCHES.get(model, {}).items() if d > now}
            launches[port] = now + LAUNCH_WAIT
            _LAUNCHES[model] = launches


def listener(model: VirtualDeviceModel, port: int) -> Any:
    """What listens on the device's `port` (`model.ports[port]`), waiting while a server launch on it is under
    way; a server whose terminal is gone does not listen any more."""
    reap(model)
    while True:
        with model.lock:
            found = model.ports.get(port)
        with _REGISTRY_LOCK:
            deadline = _LAUNCHES.get(model, {}).get(port, 0.0)
        if found is not None or time.monotonic() >= deadline:
            return found
        time.sleep(0.002)


def _servers(model: VirtualDeviceModel) -> dict[int, U2Server]:
    with _REGISTRY_LOCK:
        servers = _REGISTRY.get(model)
        if servers is None:
            servers = _REGISTRY[model] = {}
            ref = weakref.ref(model)
            model.faults.on_kill_u2(lambda: _kill_all(ref()))
            # after the transport's own hook (registered when adbd started, before any server could be
            # launched over adb): the streams are closed by then
            model.faults.on_drop(lambda: _reap_ref(ref()))
        return servers


def reap(model: VirtualDeviceModel) -> None:
    """Stop every server whose terminal is gone now, without waiting for its thread to notice."""
    for server in list(_servers(model).values()):
        if server.hung_up:
            server.stop()


def _reap_ref(model: VirtualDeviceModel | None) -> None:
    if model is not None:
        reap(model)


def _kill_all(model: VirtualDeviceModel | None) -> None:
    if model is None:
        return
    for server in list(_servers(model).values()):
        server.kill()


def _publish(model: VirtualDeviceModel, servers: dict[int, U2Server]) -> None:
    """What `ps` shows: whether the server process runs, and its pid."""
    model.u2_running = bool(servers)
    model.u2_pid = next(iter(servers.values())).pid if servers else None


def running_server(model: VirtualDeviceModel, port: int | None = None) -> U2Server | None:
    reap(model)
    servers = _servers(model)
    if port is None:
        return next(iter(servers.values()), None)
    return servers.get(port)


def _write(io: ShellIO, text: str, err: bool = False) -> None:
    try:
        (io.write_stderr if err else io.write_stdout)(text.encode())
    except Exception:  # noqa: BLE001 - the shell stream may be gone; the server keeps running
        pass


def _new_pid(model: VirtualDeviceModel) -> int:
    alloc = getattr(model, "alloc_pid", None)
    if callable(alloc):
        try:
            return int(alloc())
        except Exception:  # noqa: BLE001 - a model without a working pid allocator: use our own counter
            pass
    return next(_PIDS)


def serve_until_closed(model: VirtualDeviceModel, io: ShellIO, port: int = DEFAULT_PORT) -> int:
    """Run the uiautomator2 server on `port` until the shell stream closes (exit 0) or it is killed (exit 137).
    Exits 1 at once if a server already runs on this device, or something else listens on the port."""
    reap(model)  # one whose terminal closed is gone, even if its thread has not woken yet
    servers = _servers(model)
    with model.lock:
        if servers:
            other = next(iter(servers.values()))
            _write(io, "[server] INFO: [UiAutomator2Server] Starting Server\n")
            _write(
                io,
                "java.lang.IllegalStateException: UiAutomationService "
                f"android.accessibilityservice.IAccessibilityServiceClient$Stub$Proxy@{other.pid:x}"
                "already registered!\n",
                err=True,
            )
            return 1
        if port in model.ports:
            _write(
                io, f"java.net.BindException: bind failed: EADDRINUSE (Address already in use) port {port}\n", err=True
            )
            return 1
        server = U2Server(model, port, _new_pid(model), io)
        model.ports[port] = server.handle_stream
        servers[port] = server
        _publish(model, servers)
    model.events.log("u2_server", action="start", port=port, pid=server.pid)
    _write(io, "[server] INFO: [UiAutomator2Server] Starting Server\n")
    _write(io, f"[server] INFO: [UiAutomator2Server] Listening on port {port}\n")
    try:
        while not server.stopped.is_set():
            if io.wait_closed(timeout=0.05):
                break
    finally:
        server.stop()  # unless it was stopped already (killed, or reaped when its terminal closed)
    return EXIT_KILLED if server.killed.is_set() else 0
