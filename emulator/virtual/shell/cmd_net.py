"""`nc` / `netcat` (toybox): connect to a socket on the device, or listen on one.

- client, `nc HOST PORT` (HOST the loopback) or `nc -U NAME`: the connection reaches whatever listens on the
  device (`services.tcp_service.device_handler`): another shell's `nc -l`, a socket `adb reverse` made (the
  connection goes on to the host), a port the device serves itself (the uiautomator2 server). Nothing there:
  "Connection refused".
- listener, `nc -l [-p PORT] [-s ADDR]` (one connection, then exit) or `-L` (one after another until killed); with
  `-U -s NAME` a unix socket (`@NAME` an abstract one, what `adb forward tcp:N localabstract:NAME` reaches).
  Without -p it prints the port it bound. A host's `adb forward tcp:N tcp:PORT` reaches it.

Either way the connection's data is the command's stdout and the command's stdin goes to the connection; it ends
when the peer closes (or, with -q SECS, SECS after its stdin ended; -W SECS idle; -w SECS to connect/accept).
Running a COMMAND per connection (`nc -l -p N sh`) is not modelled."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable

from ..listeners import free_port, listen, pipe_pair, unlisten
from ..services.tcp_service import device_handler
from ..streams import Stream, StreamClosed
from .registry import Ctx, command

_LOCAL = {"localhost", "127.0.0.1", "::1", "ip6-localhost", "0.0.0.0", "::"}
_VALUED = set("pqsfWw")
_FLAGS = set("46ElLntuUvz")
_USAGE = "usage: netcat [-46ELlntUu] [-pqWw #] [-s addr] {IPADDR PORTNUM|-f FILENAME|COMMAND...}"


def _options(argv: list[str]) -> tuple[set[str], dict[str, str], list[str]] | str:
    """toybox's option parsing: flags may be grouped (`-lp 8080`), a valued one takes the rest or the next word."""
    flags: set[str] = set()
    values: dict[str, str] = {}
    args = argv[1:]
    i = 0
    while i < len(args) and args[i].startswith("-") and len(args[i]) > 1:
        word = args[i]
        i += 1
        if word == "--":
            break
        for k, c in enumerate(word[1:], start=1):
            if c in _VALUED:
                value = word[k + 1 :]
                if not value:
                    if i >= len(args):
                        return f"nc: Missing argument to -{c}"
                    value, i = args[i], i + 1
                values[c] = value
                break
            if c not in _FLAGS:
                return f"nc: Unknown option '{c}'"
            flags.add(c)
    for c in "pqWw":
        if c in values and not values[c].isdigit():
            return f"nc: -{c} '{values[c]}' not integer"
    return flags, values, args[i:]


@command("nc", "netcat", toybox=True)
def nc(ctx: Ctx, argv: list[str]) -> int:
    parsed = _options(argv)
    if isinstance(parsed, str):
        ctx.errln(parsed)
        return 1
    flags, values, rest = parsed
    if "u" in flags or "f" in values:
        ctx.errln("nc: UDP and -f are not available on the virtual device")
        return 1
    if "l" in flags or "L" in flags:
        return _listen(ctx, flags, values, rest)
    wanted = 1 if "U" in flags else 2
    if len(rest) != wanted:
        ctx.errln(f"{_USAGE}\nnc: bad argument count")
        return 1
    if "U" in flags:
        spec = _unix_spec(rest[0])
    else:
        host, port = rest
        if host not in _LOCAL:
            ctx.errln("nc: connect: Network is unreachable")
            return 1
        if not port.isdigit():
            ctx.errln(f"nc: bad port '{port}'")
            return 1
        spec = f"tcp:{int(port)}"
    handler = device_handler(ctx.model, spec)
    if handler is None:
        ctx.errln("nc: connect: Connection refused")
        return 1
    mine, theirs = pipe_pair()
    threading.Thread(target=_serve, args=(handler, theirs), name=f"nc-{spec}", daemon=True).start()
    ctx.model.events.log("nc", spec=spec)
    if "v" in flags:
        ctx.errln(f"{rest[0]}:{rest[-1]} [open]")
    if "z" in flags:
        mine.close()
        return 0
    return _pollinate(ctx, mine, values)


def _serve(handler: Callable[[Stream], None], stream: Stream) -> None:
    try:
        handler(stream)
    except StreamClosed:
        pass
    finally:
        stream.close()


def _unix_spec(name: str) -> str:
    return f"localabstract:{name[1:]}" if name.startswith("@") else f"localfilesystem:{name}"


def _listen(ctx: Ctx, flags: set[str], values: dict[str, str], rest: list[str]) -> int:
    if rest:
        ctx.errln("nc: running a command per connection is not available on the virtual device")
        return 1
    if "U" in flags:
        if "s" not in values:
            ctx.errln("nc: -s must be provided if using -U with -L/-l")
            return 1
        spec = _unix_spec(values["s"])
    else:
        if "s" in values and values["s"] not in _LOCAL:
            ctx.errln("nc: bind: Cannot assign requested address")
            return 1
        port = int(values.get("p", "0"))
        if not 0 <= port < 65536:
            ctx.errln(f"nc: -p {port} > 65535")
            return 1
        if port == 0:
            port = free_port(ctx.model)
            ctx.outln(str(port))
        spec = f"tcp:{port}"
    sock = listen(ctx.model, spec)
    if sock is None:
        ctx.errln("nc: bind: Address already in use")
        return 1
    deadline = time.monotonic() + int(values["w"]) if values.get("w") else None
    try:
        while True:
            conn = None
            while conn is None:
                if ctx.io.closed:
                    return 1
                if deadline is not None and time.monotonic() >= deadline:
                    ctx.errln("nc: Timeout")
                    return 1
                conn = sock.accept(0.1)
            deadline = None
            if "L" not in flags:
                unlisten(ctx.model, sock)  # one connection: the socket closes once it is accepted
            try:
                _pollinate(ctx, conn.stream, values)
            finally:
                conn.done.set()
            if "L" not in flags:
                return 0
    finally:
        unlisten(ctx.model, sock)


def _pollinate(ctx: Ctx, conn: Stream, values: dict[str, str]) -> int:
    """Copy stdin to the connection and the connection to stdout until the peer closes it (toybox's pollinate)."""
    finished = threading.Event()
    stdin_ended: list[float] = []  # when stdin ended

    def feed() -> None:
        try:
            while not finished.is_set():
                try:
                    data = ctx.io.read_stdin(-1, 0.2)
                except TimeoutError:
                    continue
                if not data:
                    stdin_ended.append(time.monotonic())
                    return
                conn.write(data)
        except Exception:  # noqa: BLE001 - the connection or the session went away
            return

    threading.Thread(target=feed, name="nc-stdin", daemon=True).start()
    quit_after = int(values["q"]) if values.get("q") else None
    idle = int(values["W"]) if values.get("W") else None
    last = time.monotonic()
    try:
        while not ctx.io.closed:
            if quit_after is not None and stdin_ended and time.monotonic() - stdin_ended[0] >= quit_after:
                break
            if idle is not None and time.monotonic() - last >= idle:
                break
            try:
                chunk = conn.read(-1, timeout=0.2)
            except TimeoutError:
                continue
            if not chunk:
                break
            last = time.monotonic()
            ctx.io.write_stdout(chunk)
    finally:
        finished.set()
        conn.close()
    return 0
