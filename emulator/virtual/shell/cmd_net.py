"""`nc` (toybox netcat), client side: connects to a port on the device. A port set up with `adb reverse` leads to
the host (the device opens an adb stream naming the forward's remote end); nothing else listens on the device's
loopback for shell clients, so other ports are refused."""

from __future__ import annotations

import threading

from ..services.extra_services import connect_reverse
from .registry import Ctx, command

_LOCAL = {"localhost", "127.0.0.1", "::1", "ip6-localhost"}


@command("nc", "netcat", toybox=True)
def nc(ctx: Ctx, argv: list[str]) -> int:
    args = argv[1:]
    wait = None
    rest: list[str] = []
    while args:
        a = args.pop(0)
        if a in ("-w", "-W", "-q", "-p", "-s") and args:
            v = args.pop(0)
            if a == "-w" and v.isdigit():
                wait = int(v)
        elif a.startswith("-") and len(a) > 1:
            if "l" in a or "L" in a:
                ctx.errln("nc: listen mode is not available on the virtual device")
                return 1
        else:
            rest.append(a)
    if len(rest) != 2 or not rest[1].isdigit():
        ctx.errln("usage: nc [-w SECS] HOST PORT")
        return 1
    host, port = rest
    if host not in _LOCAL:
        ctx.errln("nc: connect: Network is unreachable")
        return 1
    try:
        stream = connect_reverse(ctx.model, f"tcp:{port}")
    except ConnectionRefusedError:
        ctx.errln("nc: connect: Connection refused")
        return 1
    ctx.model.events.log("nc", port=int(port))

    def pump_stdin() -> None:
        try:
            while True:
                data = ctx.io.read_stdin(-1)
                if not data:
                    return
                stream.write(data)
        except Exception:  # noqa: BLE001 - the far end went away
            return

    feeder = threading.Thread(target=pump_stdin, name="nc-stdin", daemon=True)
    feeder.start()
    try:
        while not ctx.io.closed:
            try:
                chunk = stream.read(-1, timeout=wait if wait else 0.2)
            except TimeoutError:
                if wait:
                    break
                continue
            if not chunk:
                break
            ctx.io.write_stdout(chunk)
    finally:
        stream.close()
    return 0
