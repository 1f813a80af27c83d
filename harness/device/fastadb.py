"""Client-side fixes for adbutils and uiautomator2, kept inside the project (site-packages is never patched).

Three costs that real phones pay too (measured with bench/virtual_device.py; docs/virtual-device.md):

- uiautomator2's HTTP client writes the request headers and body in separate `send()`s on a socket without
  TCP_NODELAY, so the body waits for the adb server's delayed ACK (~44 ms per RPC). `FastAdbDevice` is an
  `adbutils.AdbDevice` whose `create_connection()` (what uiautomator2 opens for every request) and every other
  transport socket have TCP_NODELAY set. Pass it to `uiautomator2.connect()`.
- adbutils' `AdbConnection.read_until_close()` grows a `bytes` object chunk by chunk (quadratic: a 10 MB raw frame
  takes ~1 s). `read_to_end()` reads with `recv_into` into a growing `bytearray` (linear), and `exec_out()` /
  `shell_v2()` use it.
- adbutils asks the server for its version on every transport it opens (an extra connection) and sleeps 10 ms in
  every `close()`. `FastAdbDevice` caches the server version; the streamed readers here close without sleeping.

`U2Rpc` is a direct uiautomator2 JSON-RPC client (headers and body in one `sendall`), used for the hot path;
uiautomator2 itself still owns launching its server. It keeps its `tcp:PORT` streams alive between requests
(HTTP/1.1 keep-alive, which the server - NanoHTTPD - honours): opening a stream costs the adb server two round
trips and the device a new connection, three times a step. A kept connection is reused only while it is fresh
(KEEP_ALIVE_REUSE, below the server's idle timeout) and not closed by the other end; one that turns out dead
before any byte of the reply (the server closed it, the transport dropped) is replaced by a new stream for the
same request, as HTTP clients do.

`ShellSession` keeps one `adb shell` open for a query made on every step (the focused window): each command line
goes down the open stream and its output comes back up to an end line, so the query costs no new adb stream -
no connection to the adb server, no transport and service requests, no OPEN / CLSE with the device.
"""

from __future__ import annotations

import json
import re
import secrets
import select
import socket
import struct
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import adbutils
import orjson
from adbutils.errors import AdbError

from emulator import b64
from emulator.httpframing import FramingError, persists, read_chunked

_SHELL_V2_STDOUT, _SHELL_V2_STDERR, _SHELL_V2_EXIT, _SHELL_V2_CLOSE_STDIN = 1, 2, 3, 4
Clock = Callable[[], float]  # seconds on a monotonic scale: what every deadline here is measured on
# (host, port) of an adb server -> its version: one entry a server this process talks to (a run: one), forgotten all
# at once past _MAX_SERVERS (a test session starts a private server after another)
_server_versions: dict[tuple[str, int], int] = {}
_MAX_SERVERS = 64
_server_versions_lock = threading.Lock()


def set_nodelay(sock: socket.socket) -> socket.socket:
    """TCP_NODELAY on a socket (ignored for non-TCP sockets)."""
    try:
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    except OSError:
        pass
    return sock


def close_socket(sock: socket.socket | None) -> None:
    """Close without adbutils' 10 ms sleep."""
    if sock is None:
        return
    try:
        sock.close()
    except OSError:
        pass


class FastAdbDevice(adbutils.AdbDevice):
    """`adbutils.AdbDevice` with TCP_NODELAY on every socket and a cached adb server version.

    `uiautomator2.connect(FastAdbDevice(client, serial))` makes every u2 RPC skip the delayed-ACK stall, because
    u2's `AdbHTTPConnection.connect()` takes its socket from `create_connection()`.
    """

    def _server_version(self) -> int:
        key = (self._client.host, self._client.port)
        with _server_versions_lock:
            v = _server_versions.get(key)
        if v is None:
            v = self._client.server_version()
            with _server_versions_lock:
                if len(_server_versions) >= _MAX_SERVERS:
                    _server_versions.clear()
                _server_versions[key] = v
        return v

    def open_transport(self, command: str | None = None, timeout: float | None = 30.0) -> adbutils.AdbConnection:
        c = self._client.make_connection(timeout=timeout)
        set_nodelay(c.conn)
        try:
            if command:
                target = (
                    f"host-transport-id:{self._transport_id}:" if self._transport_id else f"host-serial:{self._serial}:"
                )
                c.send_command(target + command)
                c.check_okay()
            elif self._transport_id:
                c.send_command(f"host:transport-id:{self._transport_id}")
                c.check_okay()
            elif self._server_version() >= 41:
                c.send_command(f"host:tport:serial:{self._serial}")
                c.check_okay()
                c.read(8)  # the transport id
            else:
                c.send_command("host:transport:" + str(self._serial))
                c.check_okay()
        except BaseException:
            close_socket(c.conn)
            raise
        return c

    def create_connection(self, network: Any, address: int | str) -> socket.socket:
        return set_nodelay(super().create_connection(network, address))

    def features(self, timeout: float) -> str:
        """`get_features()` within `timeout` (adbutils' waits up to its 10-minute default per socket operation)."""
        with self.open_transport("features", timeout=timeout) as c:
            return c.read_string_block()


def arm(sock: socket.socket, deadline: float | None, clock: Clock = time.monotonic) -> None:
    """Give the socket's next operation the time left until `deadline` (an instant of `clock`; None: keep the
    socket's timeout). TimeoutError once it has passed. A call that re-arms before every send and receive ends by
    its deadline however the bytes trickle in, in the caller's own thread."""
    if deadline is None:
        return
    left = deadline - clock()
    if left <= 0:
        raise TimeoutError("the call's deadline has passed")
    sock.settimeout(left)


def read_to_end(
    sock: socket.socket, size_hint: int = 1 << 16, deadline: float | None = None, clock: Clock = time.monotonic
) -> bytes:
    """Everything until the peer closes, linear in the size (recv_into a bytearray that doubles), by `deadline`."""
    buf = bytearray(max(4096, size_hint))
    n = 0
    while True:
        if n == len(buf):
            buf.extend(bytes(len(buf)))
        arm(sock, deadline, clock)
        with memoryview(buf) as view:
            got = sock.recv_into(view[n:])
        if not got:
            del buf[n:]
            return bytes(buf)
        n += got


def read_exact(sock: socket.socket, size: int) -> bytes:
    """Exactly `size` bytes (recv_into a preallocated buffer); EOFError if the peer closes first."""
    buf = bytearray(size)
    n = 0
    with memoryview(buf) as view:
        while n < size:
            got = sock.recv_into(view[n:])
            if not got:
                raise EOFError(f"stream closed after {n} of {size} bytes")
            n += got
    return bytes(buf)


def _open_service(dev: adbutils.AdbDevice, service: str, deadline: float, clock: Clock) -> socket.socket:
    c = dev.open_transport(timeout=max(0.001, deadline - clock()))
    sock = c.conn
    try:
        arm(sock, deadline, clock)
        c.send_command(service)
        arm(sock, deadline, clock)
        c.check_okay()
    except BaseException:
        close_socket(sock)
        raise
    return sock


def exec_out(dev: adbutils.AdbDevice, command: str, timeout: float = 30.0, clock: Clock = time.monotonic) -> bytes:
    """`adb exec-out COMMAND`: raw stdout bytes (binary-safe, no PTY), read linearly, all within `timeout` (on
    `clock`)."""
    deadline = clock() + timeout
    sock = _open_service(dev, "exec:" + command, deadline, clock)
    try:
        return read_to_end(sock, deadline=deadline, clock=clock)
    finally:
        close_socket(sock)


@dataclass(frozen=True)
class ShellResult:
    exit_code: int
    stdout: bytes
    stderr: bytes

    @property
    def text(self) -> str:
        return self.stdout.decode("utf-8", errors="replace")

    @property
    def error_text(self) -> str:
        return self.stderr.decode("utf-8", errors="replace").strip()

    def merged(self) -> ShellResult:
        """The same result with stderr after stdout in `stdout` (as a kept shell session gives it)."""
        return ShellResult(self.exit_code, self.stdout + self.stderr, b"")


def shell_v2(
    dev: adbutils.AdbDevice, command: str, timeout: float = 30.0, clock: Clock = time.monotonic
) -> ShellResult:
    """Run COMMAND with the shell v2 protocol: exit code and separate stderr, read linearly, all within `timeout`
    (on `clock`)."""
    deadline = clock() + timeout
    sock = _open_service(dev, "shell,v2,raw:" + command, deadline, clock)
    try:
        arm(sock, deadline, clock)
        sock.sendall(bytes([_SHELL_V2_CLOSE_STDIN]) + struct.pack("<I", 0))
        data = read_to_end(sock, deadline=deadline, clock=clock)
    finally:
        close_socket(sock)
    out, err = bytearray(), bytearray()
    exit_code: int | None = None
    i = 0
    while i + 5 <= len(data):
        kind, length = data[i], struct.unpack_from("<I", data, i + 1)[0]
        payload = data[i + 5 : i + 5 + length]
        i += 5 + length
        if kind == _SHELL_V2_STDOUT:
            out += payload
        elif kind == _SHELL_V2_STDERR:
            err += payload
        elif kind == _SHELL_V2_EXIT and payload:
            exit_code = payload[0]
    if exit_code is None:
        raise EOFError(f"shell stream closed without an exit status: {command[:80]!r}")
    return ShellResult(exit_code, bytes(out), bytes(err))


def shell_v1(dev: adbutils.AdbDevice, command: str, timeout: float = 30.0, clock: Clock = time.monotonic) -> bytes:
    """`shell:COMMAND` (v1, stdout+stderr merged), read linearly, all within `timeout` (on `clock`): for devices
    without shell_v2."""
    deadline = clock() + timeout
    sock = _open_service(dev, "shell:" + command, deadline, clock)
    try:
        return read_to_end(sock, deadline=deadline, clock=clock)
    finally:
        close_socket(sock)


# --- a shell kept open ----------------------------------------------------------------------------------------------
_STATUS_LINE = re.compile(rb"(\d+)\r?\n")  # what follows a kept shell's end token: the exit status, a line end


def _end_line(buf: bytearray, token: bytes) -> tuple[int, int, int] | None:
    """(start, end, exit status) of the first `TOKEN<status>` line in `buf`, or None: a search for the token and one
    precompiled match after it (a regex made per call, with its token inside, would be compiled every call)."""
    pos = buf.find(token)
    while pos >= 0:
        found = _STATUS_LINE.match(buf, pos + len(token))
        if found is not None:
            return pos, found.end(), int(found.group(1))
        pos = buf.find(token, pos + 1)
    return None


END_TOKEN = "__droidharness_end_"  # how a kept shell session's end tokens begin (`ShellSession`)


class ShellSession:
    """`adb shell` with no command, kept open: the device's `sh` reads command lines from the stream and runs each
    as it arrives. `shell,raw:` - without `raw` adbd gives a command-less shell a PTY, which echoes the input and
    prints prompts; it is the shell v2 service syntax, so only for devices with the `shell_v2` feature (Android 7+).
    Raw v1: no prompt, no echo, stdout and stderr merged. `run()` writes
    `COMMAND; echo TOKEN$?` as one line and reads up to the end line, which carries a token drawn for the session
    (output cannot forge it: nothing on the device knows it before the end line prints it) and the exit status. One
    token per session rather than per call, so that the same command sends the same line every time, which the
    device can keep parsed (a virtual device's shell keeps its last lines' trees). One call at a time (a lock). A
    call that fails or passes its deadline closes the session - whatever it left running may still print - and
    the next call opens a new one, with a new token."""

    def __init__(self, dev: adbutils.AdbDevice, clock: Clock = time.monotonic) -> None:
        self.dev = dev
        self.clock = clock  # what a call's deadline is measured on
        self._sock: socket.socket | None = None
        self._token = ""  # the open session's end token
        self._lock = threading.Lock()

    def run(self, command: str, timeout: float = 30.0) -> tuple[int, bytes]:
        """(exit status, output) of one command line (no newline, not ending in `&` or a comment)."""
        if "\n" in command or "\r" in command:
            raise ValueError("a kept shell session runs one line at a time: the command has a line break")
        deadline = self.clock() + timeout
        with self._lock:
            sock = self._sock
            try:
                if sock is None:
                    sock = self._sock = _open_service(self.dev, "shell,raw:", deadline, self.clock)
                    self._token = f"{END_TOKEN}{secrets.token_hex(8)}_"
                token = self._token
                mark = token.encode("ascii")
                arm(sock, deadline, self.clock)
                sock.sendall(f"{command}; echo {token}$?\n".encode())
                buf = bytearray()
                while True:
                    found = _end_line(buf, mark)
                    if found is not None:
                        start, stop, status = found
                        if stop != len(buf):  # nothing follows the end line unless something else writes
                            raise EOFError("output after the end line of a kept shell session")
                        return status, bytes(buf[:start])
                    arm(sock, deadline, self.clock)
                    chunk = sock.recv(65536)
                    if not chunk:
                        raise EOFError(f"the kept shell session ended before its end line ({len(buf)} bytes)")
                    buf += chunk
            except BaseException:
                self._sock = None
                close_socket(sock)
                raise

    def close(self) -> None:
        with self._lock:
            sock, self._sock = self._sock, None
        close_socket(sock)


# --- uiautomator2 JSON-RPC, direct -------------------------------------------------------------------------------
class U2RpcError(Exception):
    """The uiautomator2 server answered with a JSON-RPC error (code, message)."""

    def __init__(self, method: str, code: Any, message: str) -> None:
        super().__init__(f"{method}: {message} (code {code})")
        self.method, self.code, self.message = method, code, message


class U2Unreachable(ConnectionError):
    """The uiautomator2 server did not answer (not running, killed, or the transport is gone)."""


KEEP_ALIVE_REUSE = 2.0  # seconds an idle kept-alive connection may be reused (NanoHTTPD closes after 5 s)
KEEP_ALIVE_MAX = 4  # idle connections kept per device (the harness makes at most a few calls at once)


class _StaleConnection(Exception):
    """A reused connection was closed before any byte of the reply: the request never reached the server."""


def _dropped(sock: socket.socket) -> bool:
    """Has the other end of an idle connection closed it (or sent what nobody asked for)?"""
    try:
        readable, _, _ = select.select([sock], [], [], 0)
    except (OSError, ValueError):
        return True
    return bool(readable)


class _ShortReply(EOFError):
    """The stream ended (or was reset) before the whole reply; `replied`: whether any byte of it had come."""

    def __init__(self, message: str, replied: bool) -> None:
        super().__init__(message)
        self.replied = replied


def _receive(
    sock: socket.socket, buf: bytearray, what: str, deadline: float, clock: Clock, replied: bool = True
) -> bool:
    """Append the next bytes the server sends to `buf` (always True) by `deadline`; _ShortReply at the end of the
    stream. `replied=False` while the reply has not started (whatever `buf` holds then is of it)."""
    arm(sock, deadline, clock)
    try:
        chunk = sock.recv(65536)
    except ConnectionError as e:  # reset by the other end
        raise _ShortReply(f"uiautomator2 connection reset {what}: {e}", replied or bool(buf)) from e
    if not chunk:
        raise _ShortReply(f"uiautomator2 server closed the connection {what} ({len(buf)} bytes)", replied or bool(buf))
    buf += chunk
    return True


def _read_reply(sock: socket.socket, deadline: float, clock: Clock) -> tuple[int, bytes, bool]:
    """One HTTP response by `deadline`: (status, body, whether the connection may carry another request). Raises
    _ShortReply when the stream ends early, TimeoutError when the deadline passes."""
    buf = bytearray()
    while b"\r\n\r\n" not in buf:
        _receive(sock, buf, "without a reply", deadline, clock, replied=False)
    head_end = buf.index(b"\r\n\r\n")
    lines = bytes(buf[:head_end]).decode("iso-8859-1").split("\r\n")
    del buf[: head_end + 4]
    parts = lines[0].split()
    try:
        status = int(parts[1])
    except (IndexError, ValueError):
        raise U2Unreachable(f"bad HTTP status line from uiautomator2: {lines[0]!r}") from None
    headers = {}
    for line in lines[1:]:
        name, _, value = line.partition(":")
        headers[name.strip().lower()] = value.strip()
    keep = persists(parts[0], headers)
    if "chunked" in headers.get("transfer-encoding", "").lower():
        try:
            return (
                status,
                read_chunked(buf, lambda: _receive(sock, buf, "inside a chunked reply", deadline, clock)),
                keep,
            )
        except FramingError as e:
            raise U2Unreachable(f"uiautomator2 reply: {e}") from None
    length_s = headers.get("content-length")
    if length_s is None or not length_s.isdigit():
        return status, bytes(buf) + read_to_end(sock, deadline=deadline, clock=clock), False  # ends with the stream
    length = int(length_s)
    while len(buf) < length:
        _receive(sock, buf, "inside a reply", deadline, clock)
    return status, bytes(buf[:length]), keep and len(buf) == length


def loads(body: bytes) -> Any:
    """`json.loads(body)`, through orjson (a screenshot's 110 KB reply 0.12 -> 0.03 ms, every step); what orjson
    refuses and `json` takes (NaN, lone surrogates) is read by `json`. One difference: orjson reads an integer past
    64 bits as a float (a Java server, uiautomator2's, sends none: its integers are longs)."""
    try:
        return orjson.loads(body)
    except orjson.JSONDecodeError:
        return json.loads(body)


class U2Rpc:
    """`U2Rpc(dev).call("deviceInfo")`: HTTP/1.1 requests over adb `tcp:PORT` streams kept alive between calls,
    each request sent in one write. Thread-safe: concurrent calls use separate connections. `close()` ends the
    idle ones."""

    def __init__(self, dev: adbutils.AdbDevice, port: int = 9008, clock: Clock = time.monotonic) -> None:
        self.dev = dev
        self.port = port
        self.clock = clock  # what deadlines and the age of a kept connection are measured on
        self._idle: list[tuple[socket.socket, float]] = []  # (connection, when it went idle), most recent last
        self._lock = threading.Lock()

    def _open(self, deadline: float) -> socket.socket:
        try:
            return set_nodelay(_open_service(self.dev, f"tcp:{self.port}", deadline, self.clock))
        except TimeoutError:
            raise
        except (AdbError, OSError) as e:
            raise U2Unreachable(f"cannot open tcp:{self.port} to the uiautomator2 server: {e}") from e

    def _checkout(self) -> socket.socket | None:
        """A fresh idle connection to reuse, or None; stale ones are closed on the way."""
        now = self.clock()
        while True:
            with self._lock:
                if not self._idle:
                    return None
                sock, since = self._idle.pop()
            if now - since < KEEP_ALIVE_REUSE and not _dropped(sock):
                return sock
            close_socket(sock)

    def _checkin(self, sock: socket.socket) -> None:
        with self._lock:
            if len(self._idle) < KEEP_ALIVE_MAX:
                self._idle.append((sock, self.clock()))
                return
        close_socket(sock)

    def close(self) -> None:
        """Close the idle connections (at the end, or after a failure: the transport reconnected, the server
        relaunched). The client stays usable: its next call opens a new one."""
        with self._lock:
            idle, self._idle = self._idle, []
        for sock, _ in idle:
            close_socket(sock)

    def _exchange(self, sock: socket.socket, request: bytes, deadline: float, reused: bool) -> tuple[int, bytes, bool]:
        try:
            try:
                arm(sock, deadline, self.clock)
                sock.sendall(request)
            except ConnectionError as e:  # reset or broken pipe: nothing of it was served
                raise _ShortReply(f"uiautomator2 connection lost while sending: {e}", replied=False) from e
            return _read_reply(sock, deadline, self.clock)
        except _ShortReply as e:
            if reused and not e.replied:
                raise _StaleConnection(str(e)) from e
            raise

    def _http(self, method: str, path: str, body: bytes, timeout: float) -> tuple[int, bytes]:
        request = (
            f"{method} {path} HTTP/1.1\r\nHost: 127.0.0.1:{self.port}\r\nUser-Agent: droidharness\r\n"
            f"Accept-Encoding: \r\nContent-Type: application/json\r\nContent-Length: {len(body)}\r\n"
            "Connection: keep-alive\r\n\r\n"
        ).encode("ascii") + body
        deadline = self.clock() + timeout
        sock = self._checkout()
        reused = sock is not None
        while True:
            try:
                if sock is None:
                    sock = self._open(deadline)
            except TimeoutError as e:
                raise TimeoutError(f"uiautomator2 {path} timed out after {timeout:.1f} s (opening a stream)") from e
            try:
                status, reply, keep = self._exchange(sock, request, deadline, reused)
            except _StaleConnection:
                close_socket(sock)
                sock, reused = None, False  # the request never reached the server: send it on a new stream
                continue
            except TimeoutError as e:
                close_socket(sock)
                raise TimeoutError(f"uiautomator2 {path} timed out after {timeout:.1f} s") from e
            except (OSError, EOFError) as e:
                close_socket(sock)
                raise U2Unreachable(f"uiautomator2 connection failed: {e}") from e
            except BaseException:
                close_socket(sock)
                raise
            if keep:
                self._checkin(sock)
            else:
                close_socket(sock)
            return status, reply

    def ping(self, timeout: float = 3.0) -> bool:
        try:
            status, body = self._http("GET", "/ping", b"", timeout)
        except (U2Unreachable, TimeoutError):
            return False
        return status == 200 and body.strip() == b"pong"

    def call(self, method: str, params: Any = None, timeout: float = 10.0) -> Any:
        payload = {"jsonrpc": "2.0", "id": 1, "method": method, "params": params if params is not None else {}}
        status, body = self._http("POST", "/jsonrpc/0", json.dumps(payload).encode("utf-8"), timeout)
        if status != 200:
            raise U2Unreachable(f"uiautomator2 {method}: HTTP {status}")
        try:
            data = loads(body)
        except ValueError as e:
            raise U2Unreachable(f"uiautomator2 {method}: reply is not JSON ({e})") from None
        if "error" in data:
            err = data["error"] or {}
            raise U2RpcError(method, err.get("code"), str(err.get("message", "")))
        return data.get("result")

    def screenshot_jpeg(self, timeout: float = 10.0, quality: int = 80) -> bytes:
        data = self.call("takeScreenshot", [1, quality], timeout)
        if not data:
            raise U2RpcError("takeScreenshot", None, "empty screenshot")
        return b64.decode(data)
