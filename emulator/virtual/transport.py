"""The adbd side of the adb protocol on loopback TCP: connections, AUTH, streams with flow control.

Threads, not asyncio: one accept thread, one reader thread per connection, one thread per opened service (taken
from the connection's cached pool, `workers.ServiceThreads`).
The reader thread never blocks on a service: host WRTEs go into the stream's inbox (their OKAY is deferred while
the inbox holds more than `INBOX_LIMIT` bytes, so a slow reader pushes back on the host), host OKAYs release the
stream's single WRTE in flight and send what its service wrote meanwhile (`adbstream`: the reader thread sends
it, as adbd's event loop does). Writes of all streams of one connection share a send lock.

Faults (`model.faults`): `drop_transport()` closes every connection (the adb server reconnects TCP transports by
itself); while `offline` is set a host's CNXN goes unanswered (`adb devices` shows `offline`) and is answered once
the fault clears; `auth_mode` "accept" sends an AUTH TOKEN and takes any signature or key, "unauthorized" answers
each signature with a new TOKEN and a public key with silence (adb 36 lists the device as `unauthorized` and
`adb connect` prints "failed to authenticate").
"""

from __future__ import annotations

import itertools
import logging
import os
import socket
import threading
import time
from collections.abc import Callable
from typing import TYPE_CHECKING

from .adbstream import INBOX_LIMIT, AdbStream  # noqa: F401 - INBOX_LIMIT re-exported for tests
from .protocol import (
    A_AUTH,
    A_CLSE,
    A_CNXN,
    A_OKAY,
    A_OPEN,
    A_VERSION,
    A_VERSION_MIN,
    A_WRTE,
    AUTH_RSAPUBLICKEY,
    AUTH_SIGNATURE,
    AUTH_TOKEN,
    MAX_PAYLOAD,
    MAX_PAYLOAD_V1,
    TOKEN_SIZE,
    Packet,
    PacketReader,
    ProtocolError,
    checksum,
    device_banner,
    pack_header,
    parse_host_banner,
)
from .streams import StreamClosed
from .workers import ServiceThreads

if TYPE_CHECKING:  # pragma: no cover
    from .model import VirtualDeviceModel

log = logging.getLogger(__name__)

_BIG = 64 * 1024  # payloads above this are sent without concatenating them to the header
OFFLINE_POLL = 0.1  # seconds between checks of the `offline` fault while a host waits for our CNXN

Handler = Callable[["AdbStream"], None]


class Connection:
    """One TCP connection from the adb server: the handshake, then packets routed to streams."""

    _ids = itertools.count(1)

    def __init__(self, server: AdbdServer, sock: socket.socket, address: tuple) -> None:
        self.server = server
        self.model = server.model
        self.sock = sock
        self.address = address
        self.id = next(self._ids)
        self.max_payload = MAX_PAYLOAD
        self.peer_version = A_VERSION
        self.host_features: set[str] = set()
        self.online = False
        self._send_lock = threading.Lock()
        self._streams: dict[int, AdbStream] = {}
        self._streams_lock = threading.Lock()
        self._local_ids = itertools.count(1)
        self._closing = threading.Event()
        self._token = b""
        self._waiting_online = False
        self.thread = threading.Thread(target=self._run, name=f"adbd-conn-{self.id}", daemon=True)
        self.workers = ServiceThreads(f"adbd-svc-{self.id}")

    # --- sending ---------------------------------------------------------------------------------
    def send_packet(self, command: int, arg0: int, arg1: int, data: bytes | memoryview = b"") -> None:
        length = len(data)
        check = checksum(data) if (length and self.peer_version < A_VERSION) else 0
        header = pack_header(command, arg0, arg1, length, check)
        try:
            with self._send_lock:
                if length == 0:
                    self.sock.sendall(header)
                elif length <= _BIG:
                    self.sock.sendall(header + bytes(data))
                else:
                    self.sock.sendall(header)
                    self.sock.sendall(data)
        except OSError as e:
            self.close(f"send failed: {e}")
            raise StreamClosed(f"connection {self.id} lost: {e}") from e

    def _send_quiet(self, command: int, arg0: int, arg1: int, data: bytes = b"") -> None:
        try:
            self.send_packet(command, arg0, arg1, data)
        except StreamClosed:
            pass

    # --- lifecycle -------------------------------------------------------------------------------
    def start(self) -> None:
        self.thread.start()

    def close(self, reason: str = "closed") -> None:
        if self._closing.is_set():
            return
        self._closing.set()
        log.debug("adbd connection %d from %s: %s", self.id, self.address, reason)
        try:
            self.sock.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass
        try:
            self.sock.close()
        except OSError:
            pass
        with self._streams_lock:
            streams = list(self._streams.values())
            self._streams.clear()
        for s in streams:
            s._on_close(by_host=True)
        self.workers.stop()
        self.server._forget(self)

    @property
    def closed(self) -> bool:
        return self._closing.is_set()

    def stream_closed_by_device(self, stream: AdbStream) -> None:
        with self._streams_lock:
            known = self._streams.pop(stream.local_id, None) is not None
        if known and not self.closed:
            self._send_quiet(A_CLSE, stream.local_id, stream.remote_id)

    # --- receiving -------------------------------------------------------------------------------
    def _run(self) -> None:
        reader = PacketReader(self.sock)
        try:
            while not self._closing.is_set():
                pkt = reader.read()
                if pkt is None:
                    self.close("host closed the connection")
                    return
                self._handle(pkt)
        except ProtocolError as e:
            log.warning("adbd connection %d: malformed data, closing: %s", self.id, e)
            self.close(f"protocol error: {e}")
        except (OSError, StreamClosed) as e:
            self.close(f"socket error: {e}")
        except Exception:  # noqa: BLE001 - never let one connection take the server down
            log.exception("adbd connection %d: unexpected error, closing", self.id)
            self.close("internal error")

    def _handle(self, pkt: Packet) -> None:
        cmd = pkt.command
        if cmd == A_CNXN:
            self._on_cnxn(pkt)
        elif cmd == A_AUTH:
            self._on_auth(pkt)
        elif cmd == A_OPEN:
            self._on_open(pkt)
        elif cmd == A_WRTE:
            s = self._stream(pkt.arg1)
            if s is not None:
                s._on_write(pkt.data)
        elif cmd == A_OKAY:
            s = self._stream(pkt.arg1)
            if s is not None and s.remote_id == 0:  # the host accepted a stream we opened (adb reverse)
                s.remote_id = pkt.arg0
                s.opened.set()
            elif s is not None:
                s._on_okay()
        elif cmd == A_CLSE:
            with self._streams_lock:
                s = self._streams.pop(pkt.arg1, None)
            if s is not None and s.remote_id == 0:  # the host refused a stream we opened
                s._on_close(by_host=True)
                s.opened.set()
            elif s is not None:
                # adbd answers a host's CLSE on an open stream with its own CLSE (clients that speak the
                # protocol themselves, e.g. adb-shell's sync client, wait for it); unknown ids are ignored
                s._on_close(by_host=True)
                self._send_quiet(A_CLSE, s.local_id, s.remote_id)
        else:
            log.debug("adbd connection %d: ignoring %r", self.id, pkt)

    def _stream(self, local_id: int) -> AdbStream | None:
        with self._streams_lock:
            return self._streams.get(local_id)

    def _on_cnxn(self, pkt: Packet) -> None:
        faults = self.model.faults
        self.peer_version = min(pkt.arg0, A_VERSION) if pkt.arg0 >= A_VERSION_MIN else A_VERSION_MIN
        self.max_payload = max(MAX_PAYLOAD_V1, min(pkt.arg1 or MAX_PAYLOAD_V1, MAX_PAYLOAD))
        banner = parse_host_banner(pkt.data)
        self.host_features = set(filter(None, banner.get("features", "").split(",")))
        if faults.offline:
            log.debug("adbd connection %d: offline, not answering CNXN", self.id)
            self._await_online()
            return
        self._answer_cnxn()

    def _await_online(self) -> None:
        """While the device is offline the host waits on its CNXN; answer it once the fault clears."""
        if self._waiting_online:
            return
        self._waiting_online = True

        def watch() -> None:
            while not self._closing.wait(OFFLINE_POLL):
                if not self.model.faults.offline:
                    self._waiting_online = False
                    try:
                        self._answer_cnxn()
                    except StreamClosed:
                        pass
                    return

        threading.Thread(target=watch, name=f"adbd-offline-{self.id}", daemon=True).start()

    def _answer_cnxn(self) -> None:
        faults = self.model.faults
        if faults.auth_mode in ("accept", "unauthorized"):
            self._send_token()
        else:
            self._go_online()

    def _send_token(self) -> None:
        self._token = os.urandom(TOKEN_SIZE)
        self.send_packet(A_AUTH, AUTH_TOKEN, 0, self._token)

    def _on_auth(self, pkt: Packet) -> None:
        faults = self.model.faults
        if faults.offline:
            self._await_online()  # restart the handshake (a fresh TOKEN) once the fault clears
            return
        mode = faults.auth_mode
        if pkt.arg0 == AUTH_SIGNATURE:
            if mode == "unauthorized":
                self._send_token()  # "wrong key": the host tries its next key, then its public key
            else:
                self._go_online()
        elif pkt.arg0 == AUTH_RSAPUBLICKEY:
            if mode == "unauthorized":
                # a phone would show the "Allow USB debugging?" dialog; nobody answers it
                self.model.events.log("auth", result="unauthorized")
            else:
                self._go_online()
        else:
            log.debug("adbd connection %d: ignoring AUTH type %d", self.id, pkt.arg0)

    def _go_online(self) -> None:
        self.online = True
        banner = device_banner(self.model.props)
        # logged before the host can see the device online: whoever waits for "device" finds the event
        self.model.events.log("connect", connection=self.id)
        self.send_packet(A_CNXN, self.peer_version, self.max_payload, banner)

    def _on_open(self, pkt: Packet) -> None:
        from .services import route

        host_id = pkt.arg0
        name = pkt.data.rstrip(b"\0").decode("utf-8", "replace")
        if not self.online or host_id == 0:
            self._send_quiet(A_CLSE, 0, host_id)
            return
        try:
            handler = route(self.model, name)
        except Exception:  # noqa: BLE001 - a broken route refuses this stream, not the connection
            log.exception("adbd: routing %r failed", name)
            handler = None
        if handler is None:
            log.debug("adbd connection %d: refusing service %r", self.id, name)
            self.model.events.log("service_refused", name=name)
            self.send_packet(A_CLSE, 0, host_id)
            return
        local_id = next(self._local_ids)
        stream = AdbStream(self, local_id, host_id, name)
        with self._streams_lock:
            self._streams[local_id] = stream
        self.model.events.log("service", name=name)
        self.send_packet(A_OKAY, local_id, host_id)
        self.workers.run(lambda: self._run_service(stream, handler))

    def open_to_host(self, service: str, timeout: float = 10.0) -> AdbStream:
        """Open a stream toward the host, as adbd does for a connection to an `adb reverse` socket: OPEN with our
        id and the forward's remote spec ("tcp:9000"); the host answers OKAY (then it connects its own port)
        or CLSE. Raises StreamClosed when refused or unanswered."""
        local_id = next(self._local_ids)
        stream = AdbStream(self, local_id, 0, service)
        with self._streams_lock:
            self._streams[local_id] = stream
        self.send_packet(A_OPEN, local_id, 0, service.encode() + b"\0")
        if not stream.opened.wait(timeout) or stream.remote_id == 0:
            with self._streams_lock:
                self._streams.pop(local_id, None)
            stream._on_close(by_host=True)
            raise StreamClosed(f"the host refused {service!r}")
        return stream

    def _run_service(self, stream: AdbStream, handler: Handler) -> None:
        try:
            handler(stream)
        except StreamClosed:
            log.debug("adbd: %r: stream closed under the service", stream)
        except Exception:  # noqa: BLE001 - a failing service closes its stream, not the connection
            log.exception("adbd: service %r failed", stream.service)
        finally:
            stream.close()


class AdbdServer:
    """A listening adbd for one `VirtualDeviceModel`. `start()` returns once the port is bound."""

    def __init__(self, model: VirtualDeviceModel, host: str = "127.0.0.1", port: int = 0) -> None:
        self.model = model
        self.host = host
        self._requested_port = port
        self.port = port
        self._listener: socket.socket | None = None
        self._accept_thread: threading.Thread | None = None
        self._conns: set[Connection] = set()
        self._lock = threading.Lock()
        self._stopping = threading.Event()
        self._hook_registered = False

    @property
    def address(self) -> str:
        return f"{self.host}:{self.port}"

    @property
    def connections(self) -> list[Connection]:
        with self._lock:
            return list(self._conns)

    def start(self) -> AdbdServer:
        if self._listener is not None:
            return self
        self._stopping.clear()
        sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind((self.host, self._requested_port))
        sock.listen(64)
        self._listener = sock
        self.port = sock.getsockname()[1]
        if not self._hook_registered:
            self.model.faults.on_drop(self.drop_all)
            self._hook_registered = True
        self._accept_thread = threading.Thread(
            target=self._accept_loop, args=(sock,), name=f"adbd-accept-{self.port}", daemon=True
        )
        self._accept_thread.start()
        log.debug("adbd listening on %s", self.address)
        return self

    def _accept_loop(self, listener: socket.socket) -> None:
        while not self._stopping.is_set():
            try:
                sock, addr = listener.accept()
            except OSError:
                if self._stopping.is_set():
                    return
                time.sleep(0.01)  # e.g. EMFILE; do not spin
                continue
            if self._stopping.is_set():
                sock.close()
                return
            sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            conn = Connection(self, sock, addr)
            with self._lock:
                self._conns.add(conn)
            conn.start()

    def _forget(self, conn: Connection) -> None:
        with self._lock:
            self._conns.discard(conn)

    def drop_all(self) -> None:
        """Close every connection at once (the `drop_transport` fault). The listener stays open."""
        for conn in self.connections:
            conn.close("dropped")

    def stop(self, timeout: float = 2.0) -> None:
        self._stopping.set()
        listener, self._listener = self._listener, None
        if listener is not None:
            try:
                listener.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
            listener.close()
        conns = self.connections
        self.drop_all()
        deadline = time.monotonic() + timeout
        if self._accept_thread is not None and self._accept_thread is not threading.current_thread():
            self._accept_thread.join(max(0.0, deadline - time.monotonic()))
        me = threading.current_thread()
        for conn in conns:
            if conn.thread is not me:
                conn.thread.join(max(0.0, deadline - time.monotonic()))
            for t in conn.workers.busy:
                if t is not me:
                    t.join(max(0.0, min(0.5, deadline - time.monotonic())))

    def __enter__(self) -> AdbdServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()
