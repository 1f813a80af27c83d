"""What a device process reports of its memory (emulator.virtual.memreport, bench/device_memory.py), and the holders'
own figures it reads: the frame cache's contents and hits, the glyph masks' hits, one malloc arena."""

from __future__ import annotations

import json
import os
import signal
import sys
import tracemalloc
from pathlib import Path

import pytest
from PIL import Image

from emulator.virtual import memreport
from emulator.virtual.memtrim import one_arena
from emulator.virtual.model import VirtualDeviceModel
from emulator.virtual.ui.frames import FrameCache
from emulator.virtual.ui.glyphs import MaskCache


def test_a_trace_goes_to_the_holder_of_its_innermost_named_frame() -> None:
    assert memreport.holder(["/x/emulator/virtual/ui/glyphs.py", "/x/emulator/virtual/ui/render.py"]) == (
        "fonts and glyph masks"
    )
    assert memreport.holder(["/usr/lib/python3.11/copy.py", "/x/emulator/virtual/model.py"]) == (
        "device state and snapshots"
    )
    assert memreport.holder(["<frozen importlib._bootstrap>", "/x/emulator/virtual/ui/view.py"]) == (
        "interpreter and imports"
    )
    assert memreport.holder(["/usr/lib/python3.11/json/decoder.py"]) == "other"


def test_the_frame_cache_says_what_it_holds_and_how_often_it_served() -> None:
    cache = FrameCache(images=1, encoded=2)
    img = cache.image("a", lambda: Image.new("RGB", (10, 20)))
    assert cache.image("a", lambda: Image.new("RGB", (1, 1))) is img
    cache.jpeg("a", lambda: img, 1.0, 80)
    held = cache.held()
    assert held["frame images"] == 1 and held["frame image bytes"] == 10 * 20 * 4  # Pillow keeps RGB in 4 bytes
    assert (held["frame image hits"], held["frame image misses"]) == (1, 1)
    assert held["encoded frames"] == 1 and held["encoded frame bytes"] > 0
    cache.image("b", lambda: Image.new("RGB", (10, 20)))
    assert cache.held()["frame images"] == 1, "one frame kept by default bound"


def test_the_glyph_masks_count_their_hits_and_misses() -> None:
    masks = MaskCache()
    assert masks.get((1, "x", 0.0, 0.0)) is None
    masks.put(object(), (1, "x", 0.0, 0.0), (Image.new("L", (4, 4)), 0, 0))  # type: ignore[arg-type]
    assert masks.get((1, "x", 0.0, 0.0)) is not None
    assert (masks.hits, masks.misses) == (1, 1)


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="glibc's mallopt")
def test_one_arena_is_set_where_the_c_library_is_glibc() -> None:
    import platform

    if platform.libc_ver()[0] != "glibc":
        pytest.skip("not glibc")
    assert one_arena() is True


def test_a_device_writes_its_report_on_sigusr1(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(memreport.ENV, str(tmp_path))
    monkeypatch.setenv(memreport.TRACE_ENV, "4")
    was_tracing = tracemalloc.is_tracing()
    before = signal.getsignal(signal.SIGUSR1)
    try:
        memreport.start_tracing()
        model = VirtualDeviceModel()
        model.screenshot()
        memreport.install(model, 3)
        os.kill(os.getpid(), signal.SIGUSR1)  # the handler runs in this (the main) thread before kill returns
        report = json.loads((tmp_path / f"{os.getpid()}.json").read_text())
    finally:
        signal.signal(signal.SIGUSR1, before)
        if not was_tracing:
            tracemalloc.stop()
    assert report["pid"] == os.getpid()
    assert report["known"]["boot snapshots"] == 3 and report["known"]["frame images"] == 1
    assert report["python"]["traced"] > 0 and set(report["python"]["holders"]) <= {
        label for label, _ in memreport.HOLDERS
    } | {"other"}


def test_no_report_without_the_environment_variable(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(memreport.ENV, raising=False)
    before = signal.getsignal(signal.SIGUSR1)
    memreport.install(VirtualDeviceModel(), 1)
    assert signal.getsignal(signal.SIGUSR1) is before
