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

`U2Rpc` is a direct uiautomator2 JSON-RPC client (one request = one `tcp:PORT` stream, headers and body in one
`sendall`), used for the hot path; uiautomator2 itself still owns launching its server.
"""

from __future__ import annotations

import base64
import json
import socket
import struct
import threading
from dataclasses import dataclass
from typing import Any

import adbutils
from adbutils.errors import AdbError

_SHELL_V2_STDOUT, _SHELL_V2_STDERR, _SHELL_V2_EXIT, _SHELL_V2_CLOSE_STDIN = 1, 2, 3, 4
_server_versions: dict[tuple[str, int], int] = {}
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


def read_to_end(sock: socket.socket, size_hint: int = 1 << 16) -> bytes:
    """Everything until the peer closes, linear in the size (recv_into a bytearray that doubles)."""
    buf = bytearray(max(4096, size_hint))
    n = 0
    while True:
        if n == len(buf):
            buf.extend(bytes(len(buf)))
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


def _open_service(dev: adbutils.AdbDevice, service: str, timeout: float) -> socket.socket:
    c = dev.open_transport(timeout=timeout)
    sock = c.conn
    try:
        sock.settimeout(timeout)
        c.send_command(service)
        c.check_okay()
    except BaseException:
        close_socket(sock)
        raise
    return sock


def exec_out(dev: adbutils.AdbDevice, command: str, timeout: float = 30.0) -> bytes:
    """`adb exec-out COMMAND`: raw stdout bytes (binary-safe, no PTY), read linearly."""
    sock = _open_service(dev, "exec:" + command, timeout)
    try:
        return read_to_end(sock)
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


def shell_v2(dev: adbutils.AdbDevice, command: str, timeout: float = 30.0) -> ShellResult:
    """Run COMMAND with the shell v2 protocol: exit code and separate stderr, read linearly."""
    sock = _open_service(dev, "shell,v2,raw:" + command, timeout)
    try:
        sock.sendall(bytes([_SHELL_V2_CLOSE_STDIN]) + struct.pack("<I", 0))
        data = read_to_end(sock)
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


def shell_v1(dev: adbutils.AdbDevice, command: str, timeout: float = 30.0) -> bytes:
    """`shell:COMMAND` (v1, stdout+stderr merged), read linearly: for devices without shell_v2."""
    sock = _open_service(dev, "shell:" + command, timeout)
    try:
        return read_to_end(sock)
    finally:
        close_socket(sock)


# --- uiautomator2 JSON-RPC, direct -------------------------------------------------------------------------------
class U2RpcError(Exception):
    """The uiautomator2 server answered with a JSON-RPC error (code, message)."""

    def __init__(self, method: str, code: Any, message: str) -> None:
        super().__init__(f"{method}: {message} (code {code})")
        self.method, self.code, self.message = method, code, message


class U2Unreachable(ConnectionError):
    """The uiautomator2 server did not answer (not running, killed, or the transport is gone)."""


class U2Rpc:
    """`U2Rpc(dev).call("deviceInfo")`: one HTTP/1.1 request per adb `tcp:PORT` stream, sent in one write."""

    def __init__(self, dev: adbutils.AdbDevice, port: int = 9008) -> None:
        self.dev = dev
        self.port = port

    def _http(self, method: str, path: str, body: bytes, timeout: float) -> tuple[int, bytes]:
        try:
            sock = self.dev.create_connection(adbutils.Network.TCP, self.port)
        except (AdbError, OSError) as e:
            raise U2Unreachable(f"cannot open tcp:{self.port} to the uiautomator2 server: {e}") from e
        set_nodelay(sock)
        try:
            sock.settimeout(timeout)
            head = (
                f"{method} {path} HTTP/1.1\r\nHost: 127.0.0.1:{self.port}\r\nUser-Agent: droidharness\r\n"
                f"Accept-Encoding: \r\nContent-Type: application/json\r\nContent-Length: {len(body)}\r\n"
                "Connection: close\r\n\r\n"
            ).encode("ascii")
            sock.sendall(head + body)
            raw = read_to_end(sock)
        except TimeoutError as e:
            raise TimeoutError(f"uiautomator2 {path} timed out after {timeout:.1f} s") from e
        except OSError as e:
            raise U2Unreachable(f"uiautomator2 connection failed: {e}") from e
        finally:
            close_socket(sock)
        head_end = raw.find(b"\r\n\r\n")
        if head_end < 0:
            raise U2Unreachable(f"uiautomator2 server closed the connection without a reply ({len(raw)} bytes)")
        status_line = raw[: raw.find(b"\r\n")].decode("iso-8859-1")
        try:
            status = int(status_line.split()[1])
        except (IndexError, ValueError):
            raise U2Unreachable(f"bad HTTP status line from uiautomator2: {status_line!r}") from None
        return status, raw[head_end + 4 :]

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
            data = json.loads(body)
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
        return base64.b64decode(data)
