"""How full a device's bounded caches and logs are, against their bounds (issue 39, docs/caches.md).

A device process that serves thousands of episodes may grow only until its caches reach their bounds. `bench/soak.py`
tells a cache still filling from a leak with this: it sets `DROIDHARNESS_CACHE_FILL` to a directory for the run,
and every device process (`devicemain.serve`) then writes `<dir>/<pid>.json` every `FILL_EVERY` seconds,
`{name: [size, bound]}`, which the soak reads as it samples the process.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

from .model import VirtualDeviceModel
from .procs import BUFFER_LIMIT
from .shell.quick import ends_at_once
from .ui.fonts import get_font, text_width
from .ui.glyphs import MASKS
from .ui.render import SCALED
from .ui.view import quoteattr

ENV = "DROIDHARNESS_CACHE_FILL"
FILL_EVERY = 1.0  # seconds between a device process' writes (a few dict lookups and a small file)


def cache_fill(model: VirtualDeviceModel) -> dict[str, tuple[int, int]]:
    """(size, bound) of what the device remembers across episodes: the process' glyph masks (count and pixel
    bytes) and functools caches, the model's logcat buffers (entries, and bytes as logd counts them) and event
    log. Read without the caches' locks: a figure, not a transaction."""
    out: dict[str, tuple[int, int]] = {
        "glyph masks": (len(MASKS.masks), MASKS.max_masks),
        "glyph mask bytes": (MASKS.bytes, MASKS.max_bytes),
        "scaled bitmap bytes": (SCALED.held()["scaled bitmap bytes"], SCALED.max_bytes),
    }
    for name, fn in (
        ("text_width", text_width),
        ("quoteattr", quoteattr),
        ("get_font", get_font),
        ("ends_at_once", ends_at_once),
    ):
        info = fn.cache_info()
        out[name] = (info.currsize, info.maxsize or 0)
    log = model.logbuf
    out["logcat entries"] = (log.kept(), BUFFER_LIMIT)
    out["logcat bytes"] = (sum(log.used(b) for b in log.sizes), sum(log.sizes.values()))
    out["event log"] = (model.events.kept(), model.events.limit)
    return out


def write_cache_fill(path: Path, model: VirtualDeviceModel) -> None:
    """`cache_fill(model)` as JSON at `path`, replaced whole (a reader never sees half a file)."""
    tmp = path.with_name(f".{path.name}.tmp")
    tmp.write_text(json.dumps({k: list(v) for k, v in cache_fill(model).items()}), encoding="utf-8")
    os.replace(tmp, path)
