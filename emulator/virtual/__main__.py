"""`python -m emulator.virtual`: one embedded virtual device as its own process.

    python -m emulator.virtual [--profile P] [--locale en|zh] [--latency L] [--port N] [--serial S]
                               [--clock real|virtual]
                               [--emulator --console-port 5554 --adb-server-port N --avd-name NAME]
                               [--grpc PORT [--grpc-use-token]]
                               [--boot-delay SECONDS | --never-boot] [--ready-file PATH]

Starts a `VirtualDevice`, then writes one JSON line `{"serial", "address", "port", "console_port", "pid"}` to
the ready file (atomically: a temporary file renamed into place) and to stdout, and runs until SIGTERM/SIGINT
or the emulator console's `kill`; exits 0. With `--emulator` the device poses as `emulator-<console port>`,
announces itself to the adb server on `--adb-server-port` and answers the console's `avd name` with
`--avd-name`. `--boot-delay` / `--never-boot` keep `sys.boot_completed` at 0 for a while / for ever, as a
booting emulator does (the AVD lifecycle's boot wait is tested with them). Bad arguments exit 2 with one line.
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import sys
import threading
from pathlib import Path

from .clock import CLOCKS
from .latency import LATENCY_PROFILES
from .profiles import DEFAULT_PROFILE, PROFILES
from .stopsignal import StopSignals

BOOT_PROPS = ("sys.boot_completed", "dev.bootcomplete")


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="python -m emulator.virtual", description=__doc__.splitlines()[0])
    p.add_argument("--profile", default=DEFAULT_PROFILE, help="hardware profile: " + ", ".join(PROFILES))
    p.add_argument("--locale", default="en", choices=["en", "zh"])
    p.add_argument("--latency", default="instant", choices=sorted(LATENCY_PROFILES))
    p.add_argument(
        "--clock", default="real", choices=list(CLOCKS), help="virtual: simulated time, waits advance it (no sleeping)"
    )
    p.add_argument("--port", type=int, default=0, help="adb port without --emulator (0 = any free port)")
    p.add_argument("--serial", default=None, help="ro.serialno (default: emulator-PORT or VIRTUAL0001)")
    p.add_argument("--auth", default="none", choices=["none", "accept", "unauthorized"])
    p.add_argument("--emulator", action="store_true", help="pose as emulator-<console port> with a console")
    p.add_argument(
        "--console-port",
        type=int,
        default=None,
        help="even port in 5554..5682 (adb port = +1); default: the first free pair in 5554..5584 "
        "($DROIDHARNESS_EMULATOR_PORTS)",
    )
    p.add_argument("--adb-server-port", type=int, default=None, help="adb server to announce the emulator to")
    p.add_argument("--avd-name", default=None, help="what the console's `avd name` answers")
    p.add_argument("--grpc", type=int, default=None, metavar="PORT", help="serve the emulator's gRPC services here")
    p.add_argument("--grpc-use-token", action="store_true", help="gRPC calls must bring the discovery file's token")
    boot = p.add_mutually_exclusive_group()
    boot.add_argument("--boot-delay", type=float, default=0.0, help="seconds before sys.boot_completed is 1")
    boot.add_argument("--never-boot", action="store_true", help="sys.boot_completed stays 0")
    p.add_argument("--ready-file", type=Path, default=None, help="where to write the JSON ready line")
    return p


def _write_atomic(path: Path, text: str) -> None:
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    tmp.write_text(text)
    os.replace(tmp, path)


def _fail(message: str) -> int:
    print(f"error: {message}", file=sys.stderr, flush=True)
    return 2


def main(argv: list[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    from .device import VirtualDevice
    from .memtrim import one_arena

    one_arena()  # before the device starts a thread: one malloc arena for them all (memtrim.one_arena)

    logging.basicConfig(level=logging.INFO, stream=sys.stderr, format="%(asctime)s %(levelname)s %(message)s")
    if args.profile.replace("-", "_").lower() not in PROFILES:
        return _fail(f"--profile: unknown profile {args.profile!r}; choose one of: {', '.join(PROFILES)}")
    if args.boot_delay < 0:
        return _fail(f"--boot-delay: must be >= 0, got {args.boot_delay}")
    try:
        vd = VirtualDevice(
            profile=args.profile,
            locale=args.locale,
            latency=args.latency,
            port=args.port,
            auth=args.auth,
            emulator_console=args.emulator,
            console_port=args.console_port,
            adb_server_port=args.adb_server_port,
            avd_name=args.avd_name,
            serial=args.serial,
            grpc_port=args.grpc,
            grpc_token=args.grpc_use_token,
            clock=args.clock,
        )
    except ValueError as e:
        return _fail(str(e))

    booting = args.never_boot or args.boot_delay > 0
    if booting:  # before any host can ask: the props are read on each getprop
        with vd.model.lock:
            for prop in BOOT_PROPS:
                vd.model.props[prop] = "0"

    stop = StopSignals()
    done = threading.Event()  # set once the device is to stop (the boot-delay thread waits on it)
    try:
        vd.start()
    except OSError as e:
        return _fail(f"cannot listen on port {vd._requested_port}: {e.strerror or e}")

    if args.boot_delay > 0 and not args.never_boot:

        def _boot() -> None:
            if not done.wait(args.boot_delay):
                with vd.model.lock:
                    for prop in BOOT_PROPS:
                        vd.model.props[prop] = "1"
                logging.info("boot completed after %.1fs", args.boot_delay)

        threading.Thread(target=_boot, name="boot-delay", daemon=True).start()
    elif args.never_boot:
        logging.info("--never-boot: sys.boot_completed stays 0")

    ready = {
        "serial": vd.serial,
        "address": vd.address,
        "port": vd.port,
        "console_port": vd.console_port if args.emulator else None,
        "pid": os.getpid(),
    }
    if vd.grpc_address is not None:
        ready["grpc_port"] = int(vd.grpc_address.rsplit(":", 1)[1])
    line = json.dumps(ready)
    if args.ready_file is not None:
        _write_atomic(args.ready_file, line + "\n")
    print(line, flush=True)
    while not vd.wait(0) and not stop.wait(0.2):  # the device trims its heap at rest on its own (memtrim)
        pass
    done.set()
    vd.stop()
    logging.info("virtual device %s stopped", vd.serial)
    return 0


if __name__ == "__main__":
    sys.exit(main())
