"""bench/soak.py's table of the device caches (emulator.virtual.cachefill) that changed after the warm-up: per
device process, its fill at the first sample after the warm-up and at the last one while episodes ran."""

from __future__ import annotations

import importlib.util
from types import ModuleType
from typing import Any

from tests.paths import REPO


def soak_module() -> ModuleType:
    spec = importlib.util.spec_from_file_location("bench_soak", REPO / "bench" / "soak.py")
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def sample(episodes: int, *devices: tuple[int, dict[str, list[int]] | None]) -> dict[str, Any]:
    procs: list[dict[str, Any]] = [{"pid": 1, "kind": "harness"}]
    procs += [{"pid": pid, "kind": "device", **({"caches": c} if c else {})} for pid, c in devices]
    return {"episodes": episodes, "procs": procs}


def test_the_caches_that_changed_after_the_warm_up_per_device() -> None:
    changes = soak_module().cache_changes
    run = {
        "episodes": 100,
        "samples": [
            sample(5, (7, {"glyph masks": [1, 4096], "event log": [10, 10000]})),  # in the warm-up: left out
            sample(10, (7, {"glyph masks": [20, 4096], "event log": [10000, 10000]}), (8, None)),
            sample(50, (7, {"glyph masks": [30, 4096], "event log": [10000, 10000]}), (8, {"glyph masks": [5, 4096]})),
            sample(99, (7, {"glyph masks": [40, 4096], "event log": [10000, 10000]}), (8, {"glyph masks": [9, 4096]})),
            sample(100, (7, {"glyph masks": [99, 4096], "event log": [10000, 10000]})),  # the run read back: out
        ],
    }
    assert changes(run, 10) == {"glyph masks": ["20 -> 40 / 4096 (1%)", "5 -> 9 / 4096 (0%)"]}  # the event log stayed


def test_bytes_are_shown_in_mb() -> None:
    run = {
        "episodes": 10,
        "samples": [
            sample(1, (7, {"glyph mask bytes": [1 << 20, 16 << 20]})),
            sample(9, (7, {"glyph mask bytes": [8 << 20, 16 << 20]})),
        ],
    }
    assert soak_module().cache_changes(run, 1) == {"glyph mask bytes": ["1.0 -> 8.0 / 16.0 MB (50%)"]}
