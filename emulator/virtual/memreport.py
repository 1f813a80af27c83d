"""What a device process holds, told from inside it (issue 50): a bench's probe, off unless asked for.

`bench/device_memory.py` runs the harness with `DROIDHARNESS_MEMORY_REPORT` naming a directory. Every device process
(`devicemain.serve`) then, on SIGUSR1, writes `<dir>/<pid>.json` with
- `known`: the sizes its bounded holders report themselves (frames drawn and encoded, glyph masks, logcat, event
  log, boot snapshots) - pixel buffers are C memory, which tracemalloc does not see;
- `malloc`: glibc's `mallinfo2` (bytes in use, free inside the heap, mmapped): freed memory kept in the arenas shows
  there as `free`;
- `python`: with `DROIDHARNESS_MEMORY_TRACE=N` also set, `tracemalloc` started when the device started (N frames a
  trace), its live bytes grouped into holders (`HOLDERS`: the first frame of a trace, innermost first, whose file
  names a holder) and by file. A device forked from a warmed zygote traces only what it allocated itself: what it
  inherited is the zygote's (shared until written).
- `gc`: whether its collector runs (a device forked from the zygote, which collects nothing before a fork, turns
  its own on) and how many objects are frozen out of it (what a zygote's child inherited).
The bench reads /proc itself (PSS, private and shared, per mapping). Tracing costs time and memory of its own
(reported as `tracemalloc_overhead`): the bench's PSS figures come from a run without it.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import gc
import json
import os
import signal
import sys
import tracemalloc
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .model import VirtualDeviceModel

ENV = "DROIDHARNESS_MEMORY_REPORT"
TRACE_ENV = "DROIDHARNESS_MEMORY_TRACE"

# (holder, path fragments): a trace goes to the holder of the first frame (innermost first) whose file contains one
# of the fragments; a trace none names is "other". Imports first: a module's code and constants, made while it
# imports, belong to the interpreter whatever module it is.
HOLDERS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("interpreter and imports", ("<frozen importlib", "importlib/__init__", "/zipimport", "pkgutil")),
    ("frame buffers and encoded frames", ("/ui/frames.py", "/ui/render", "/display.py", "/grpc/screen", "screencap")),
    ("fonts and glyph masks", ("/ui/glyphs.py", "/ui/fonts.py", "PIL/ImageFont", "PIL/ImageDraw")),
    ("logs", ("/events.py", "/procs.py", "/lognoise.py", "/logging/")),
    (
        "app data and databases",
        ("/appstorage.py", "/sqlitefile.py", "/providers/", "/mediastore.py", "/fs.py", "/records.py", "_data.py"),
    ),
    ("layouts and view trees", ("/ui/", "/apps/", "/sysdialogs.py", "/notifications.py")),
    ("device state and snapshots", ("/model.py", "/console", "/copy.py", "/devicemain.py")),
    ("protocols and services", ("/adbd.py", "/adbstream.py", "/u2", "/shell/", "/services/", "/grpc/", "/transport")),
    ("caches", ("functools",)),
)


def holder(filenames: list[str]) -> str:
    """The holder of a trace whose frames (innermost first) are in `filenames`."""
    for name in filenames:
        for label, fragments in HOLDERS:
            if any(f in name for f in fragments):
                return label
    return "other"


class _MallInfo2(ctypes.Structure):
    _fields_ = [
        (name, ctypes.c_size_t)
        for name in ("arena", "ordblks", "smblks", "hblks", "hblkhd", "usmblks", "fsmblks", "uordblks", "fordblks")
    ] + [("keepcost", ctypes.c_size_t)]


def mallinfo() -> dict[str, int]:
    """glibc's heap figures (bytes): `arena` (the heaps' size), `in_use`, `free` (kept inside them), `mmapped`
    (large blocks mapped apart); {} where the C library has no `mallinfo2` (glibc < 2.33, not glibc)."""
    name = ctypes.util.find_library("c")
    fn = getattr(ctypes.CDLL(name), "mallinfo2", None) if name else None
    if fn is None:
        return {}
    fn.restype = _MallInfo2
    m = fn()
    return {"arena": m.arena, "in_use": m.uordblks, "free": m.fordblks, "mmapped": m.hblkhd, "mmapped_blocks": m.hblks}


def deep_size(obj: object, seen: set[int] | None = None) -> int:
    """Bytes of `obj` and what it holds (containers, slotted objects and dataclasses followed; strings and numbers
    shared with others counted once per call)."""
    seen = set() if seen is None else seen
    if id(obj) in seen:
        return 0
    seen.add(id(obj))
    size = sys.getsizeof(obj)
    if isinstance(obj, dict):
        size += sum(deep_size(k, seen) + deep_size(v, seen) for k, v in obj.items())
    elif isinstance(obj, (list, tuple, set, frozenset)):
        size += sum(deep_size(v, seen) for v in obj)
    elif hasattr(obj, "__slots__"):
        size += sum(deep_size(getattr(obj, n), seen) for n in obj.__slots__ if hasattr(obj, n))
    return size


def sampled_size(items: list[object], samples: int = 300) -> int:
    """`deep_size` of `items`, estimated from an evenly spread sample of them."""
    if not items:
        return 0
    step = max(1, len(items) // samples)
    picked = items[::step]
    return sys.getsizeof(items) + sum(deep_size(i) for i in picked) * len(items) // len(picked)


def known(model: VirtualDeviceModel, snapshots: int) -> dict[str, int]:
    """The sizes the device's bounded holders report (bytes, or counts where named so)."""
    from .ui.glyphs import MASKS
    from .ui.render import SCALED

    return {
        **model.ui.frames.held(),
        **SCALED.held(),
        "glyph masks": len(MASKS.masks),
        "glyph mask bytes": MASKS.bytes,
        "glyph mask hits": MASKS.hits,
        "glyph mask misses": MASKS.misses,
        "logcat entries": model.logbuf.kept(),
        "event log entries": model.events.kept(),
        "event log bytes": sampled_size(list(model.events.all())),
        "boot snapshots": snapshots,
        "python objects": len(gc.get_objects()),
        "modules": len(sys.modules),
    }


def python_heap(limit: int = 40) -> dict[str, object]:
    """tracemalloc's live bytes by holder and the `limit` largest files (innermost frame), if it traces."""
    if not tracemalloc.is_tracing():
        return {}
    snap = tracemalloc.take_snapshot()
    holders: dict[str, int] = {}
    files: dict[str, int] = {}
    for trace in snap.traces:
        names = [f.filename for f in reversed(trace.traceback)]  # innermost first (a Traceback is oldest first)
        label = holder(names)
        holders[label] = holders.get(label, 0) + trace.size
        files[names[0]] = files.get(names[0], 0) + trace.size
    current, peak = tracemalloc.get_traced_memory()
    top = sorted(files.items(), key=lambda kv: -kv[1])[:limit]
    return {
        "traced": current,
        "traced_peak": peak,
        "tracemalloc_overhead": tracemalloc.get_tracemalloc_memory(),
        "holders": holders,
        "files": dict(top),
    }


def write_report(path: Path, model: VirtualDeviceModel, snapshots: int) -> None:
    """The report as JSON at `path`, replaced whole."""
    data = {
        "pid": os.getpid(),
        "known": known(model, snapshots),
        "malloc": mallinfo(),
        "python": python_heap(),
        "gc": {"enabled": gc.isenabled(), "frozen": gc.get_freeze_count()},  # a zygote's child: its own collector
    }
    tmp = path.with_name(f".{path.name}.tmp")
    tmp.write_text(json.dumps(data), encoding="utf-8")
    os.replace(tmp, path)


def start_tracing() -> None:
    """Start tracemalloc if the bench asked for traces (`DROIDHARNESS_MEMORY_TRACE=N`, N frames a trace)."""
    frames = os.environ.get(TRACE_ENV)
    if os.environ.get(ENV) and frames and not tracemalloc.is_tracing():
        tracemalloc.start(max(1, int(frames)))


def install(model: VirtualDeviceModel, snapshots: int) -> None:
    """With `DROIDHARNESS_MEMORY_REPORT` set: write the report on SIGUSR1 (call from the main thread, whose idle
    loop then runs the handler)."""
    folder = os.environ.get(ENV)
    if not folder:
        return
    path = Path(folder) / f"{os.getpid()}.json"

    def on_signal(*_: object) -> None:
        try:
            write_report(path, model, snapshots)
        except OSError as e:  # a figure for a bench: the device serves on without it
            print(f"{ENV}={folder}: {e}", file=sys.stderr)

    signal.signal(signal.SIGUSR1, on_signal)
