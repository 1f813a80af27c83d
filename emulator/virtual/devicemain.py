"""The child side of a device process: one `VirtualDevice` and its control console, run until told to stop.

Run as `python -m emulator.virtual.procdevice ...` (a fresh interpreter) or in a child the device zygote forked
(`emulator.virtual.zygote`: an interpreter that imported and warmed up everything once). Either way the child
writes one JSON line `{"serial", "address", "port", "console_port", "pid"}` to its ready file once it serves
(with `"cpus"`, the cores it runs on, when it was given `--cpus`), and exits on SIGTERM / SIGINT or when its parent
dies (`die_with_parent`).
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import signal
import sys
import time
from pathlib import Path

from .stopsignal import StopSignals

log = logging.getLogger(__name__)

BOOT_SNAPSHOT = "droidharness-boot"
LANGS = ("en", "zh")


def boot_snapshot(lang: str, ui: str | None = None) -> str:
    """The control console's snapshot of the boot state in `lang`; with `ui`, of a device set up in `lang` whose
    system language was then switched to `ui` (the apps' content in `lang`, their UI in `ui`)."""
    return f"{BOOT_SNAPSHOT}-{lang}" if ui in (None, lang) else f"{BOOT_SNAPSHOT}-{lang}-ui-{ui}"


def die_with_parent(parent: int) -> None:
    """SIGKILL this process when its parent dies (Linux), and exit now if the parent is already gone. The
    "parent" is the thread that forked this process: it must live as long as the parent wants the child."""
    if sys.platform.startswith("linux"):
        import ctypes

        pr_set_pdeathsig = 1
        try:
            ctypes.CDLL(None, use_errno=True).prctl(pr_set_pdeathsig, int(signal.SIGKILL), 0, 0, 0)
        except (OSError, AttributeError) as e:  # no prctl: the next pool's reap_orphans() is the fallback
            log.warning("prctl(PR_SET_PDEATHSIG) unavailable: %s", e)
    if os.getppid() != parent:
        os._exit(3)


def parse_cpus(text: str) -> frozenset[int]:
    """`--cpus` ("0", "2,3") -> the set of core numbers."""
    try:
        cpus = frozenset(int(part) for part in text.split(","))
    except ValueError:
        raise argparse.ArgumentTypeError(f"--cpus {text!r}: expected core numbers separated by commas") from None
    if not cpus or min(cpus) < 0:
        raise argparse.ArgumentTypeError(f"--cpus {text!r}: expected core numbers >= 0")
    return cpus


def pin_to(cpus: frozenset[int]) -> list[int] | None:
    """Run this process on `cpus` (Linux `sched_setaffinity`), before it starts any thread, so that every thread
    it starts later runs there too. Returns the cores it now runs on, or None where that could not be done (no
    `sched_setaffinity`, or cores this process may not use): the device then runs where the scheduler puts it."""
    if not hasattr(os, "sched_setaffinity"):
        log.warning("--cpus %s: this system cannot pin a process to cores; running unpinned", sorted(cpus))
        return None
    try:
        os.sched_setaffinity(0, cpus)
        return sorted(os.sched_getaffinity(0))
    except OSError as e:
        log.warning("--cpus %s: cannot run on these cores (%s); running unpinned", sorted(cpus), e)
        return None


def parse_args(argv: list[str] | None, prog: str) -> argparse.Namespace:
    p = argparse.ArgumentParser(prog=prog, description="one embedded device for a pool")
    p.add_argument("--serial", required=True)
    p.add_argument("--profile", required=True)
    p.add_argument("--locale", default="en", choices=list(LANGS))
    p.add_argument("--latency", default="instant")
    p.add_argument("--clock", default="real", choices=["real", "virtual"])
    p.add_argument(
        "--image",
        default="phone",
        choices=["phone", "emulator"],
        help="the system image: a phone's user build or the emulator's userdebug one",
    )
    p.add_argument("--home", required=True, help="private directory: console token, ready file")
    p.add_argument("--ready-file", type=Path, required=True)
    p.add_argument("--parent", type=int, required=True, help="pid of the process that started this one")
    p.add_argument("--grpc-port", type=int, default=None, help="serve the emulator's gRPC door (0: any free port)")
    p.add_argument(
        "--no-grpc-discovery",
        action="store_true",
        help="no emulator discovery file names the door (its port is in the ready file)",
    )
    p.add_argument("--cpus", type=parse_cpus, default=None, help="run on these cores only (e.g. 0 or 2,3)")
    return p.parse_args(argv)


def serve(args: argparse.Namespace) -> int:
    """Boot the device (boot snapshots in both languages, and each under the other's UI, on the console), announce
    it, serve until stopped."""
    die_with_parent(args.parent)
    logging.basicConfig(level=logging.INFO, stream=sys.stderr, format="%(asctime)s %(levelname)s %(message)s")
    cpus = pin_to(args.cpus) if args.cpus is not None else None  # before the device starts a thread
    from . import memreport  # bench/device_memory.py's probe: off unless its environment variable is set
    from .memtrim import one_arena

    one_arena()  # before the device starts a thread: one malloc arena for them all (memtrim.one_arena)
    memreport.start_tracing()

    from .cachefill import ENV as FILL_ENV
    from .cachefill import FILL_EVERY, write_cache_fill
    from .console import EmulatorConsole
    from .device import VirtualDevice

    stop = StopSignals()
    vd = VirtualDevice(
        profile=args.profile,
        locale=args.locale,
        latency=args.latency,
        serial=args.serial,
        grpc_port=args.grpc_port,
        clock=args.clock,
        image=args.image,
        grpc_discovery=not args.no_grpc_discovery,
    )
    console = EmulatorConsole(vd.model, vd.avd_name, 0, on_kill=vd.stop, home=args.home, snapshots=vd.snapshots)
    model = vd.model
    boot = model.snapshot()
    console.snapshots[boot_snapshot(args.locale)] = boot
    for lang in LANGS:
        for ui in LANGS:
            if (lang, ui) != (args.locale, args.locale):
                model.set_locale(ui, content=lang)
                console.snapshots[boot_snapshot(lang, ui)] = model.snapshot()
    model.restore(boot)
    vd.start()
    console.start()
    memreport.install(model, len(console.snapshots))
    ready: dict[str, object] = {
        "serial": vd.serial,
        "address": vd.address,
        "port": vd.port,
        "console_port": console.bound_port,
        "pid": os.getpid(),
    }
    if cpus is not None:
        ready["cpus"] = cpus
    if vd.grpc_address is not None:
        ready["grpc_port"] = int(vd.grpc_address.rsplit(":", 1)[1])
    tmp = args.ready_file.with_name(f".{args.ready_file.name}.tmp")
    tmp.write_text(json.dumps(ready) + "\n")
    os.replace(tmp, args.ready_file)
    fill_dir = os.environ.get(FILL_ENV)  # bench/soak.py: how full the caches are (emulator.virtual.cachefill)
    next_fill = 0.0
    while not vd.wait(0) and not stop.wait(0.2):  # stopped by the console's `kill`, or told to by a signal
        if fill_dir and time.monotonic() >= next_fill:
            next_fill = time.monotonic() + FILL_EVERY
            try:
                write_cache_fill(Path(fill_dir) / f"{os.getpid()}.json", model)
            except OSError as e:  # a figure for a bench: the device serves on without it
                log.warning("%s=%s: %s", FILL_ENV, fill_dir, e)
                fill_dir = None
    console.stop()
    vd.stop()
    return 0
