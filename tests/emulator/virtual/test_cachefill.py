"""How full a device's caches are against their bounds (emulator.virtual.cachefill): what bench/soak.py reads of
every device process to tell a cache still filling from a leak (issue 39)."""

from __future__ import annotations

import json
import time

from emulator.virtual import cachefill
from emulator.virtual.cachefill import cache_fill, write_cache_fill
from emulator.virtual.events import LIMIT
from emulator.virtual.model import VirtualDeviceModel
from emulator.virtual.procdevice import DeviceProcess
from emulator.virtual.procs import BUFFER_LIMIT, DEFAULT_BUFFER_SIZE
from emulator.virtual.ui.glyphs import MASKS


def test_the_fill_counts_what_the_device_remembers_against_the_bounds_in_the_code():
    model = VirtualDeviceModel()
    model.screenshot()  # draws the home screen's labels: glyph masks
    before = cache_fill(model)
    assert before["glyph masks"] == (len(MASKS.masks), MASKS.max_masks) and before["glyph masks"][0] > 0
    assert before["glyph mask bytes"] == (MASKS.bytes, 6 << 20)
    assert before["text_width"][1] == before["quoteattr"][1] == 8192
    assert before["logcat entries"][1] == BUFFER_LIMIT
    assert before["logcat bytes"][1] == len(model.logbuf.sizes) * DEFAULT_BUFFER_SIZE
    assert before["event log"][1] == LIMIT

    model.log("I", "SoakTest", "one more line")
    model.events.log("tap", x=1, y=2)
    after = cache_fill(model)
    assert after["logcat entries"][0] == before["logcat entries"][0] + 1 == model.logbuf.kept()
    assert after["logcat bytes"][0] > before["logcat bytes"][0]
    assert after["event log"][0] == before["event log"][0] + 1 == model.events.kept()


def test_an_event_log_and_a_log_buffer_keep_no_more_than_their_bound():
    model = VirtualDeviceModel()
    small = type(model.events)(limit=3)
    for i in range(5):
        small.log("tap", x=i, y=i)
    assert small.kept() == 3 == small.limit
    for i in range(BUFFER_LIMIT + 10):
        model.logbuf.write("I", "T", "x", buffer="radio" if i % 2 else "events")
    assert model.logbuf.kept() <= BUFFER_LIMIT


def test_the_fill_is_written_whole_as_json(tmp_path):
    model = VirtualDeviceModel()
    path = tmp_path / "123.json"
    write_cache_fill(path, model)
    data = json.loads(path.read_text())
    assert data["logcat entries"] == list(cache_fill(model)["logcat entries"])
    assert [p.name for p in tmp_path.iterdir()] == ["123.json"]  # the temporary file was renamed over it


def test_a_device_process_writes_its_fill_when_asked_by_the_environment(tmp_path, monkeypatch):
    monkeypatch.setenv(cachefill.ENV, str(tmp_path))
    dp = DeviceProcess("fill-proc-1", "medium_phone").spawn()
    try:
        info = dp.wait_ready()
        path = tmp_path / f"{info['pid']}.json"
        deadline = time.monotonic() + 30
        while not path.exists() and time.monotonic() < deadline:
            time.sleep(0.1)
        fill = json.loads(path.read_text())
        assert fill["logcat entries"][1] == BUFFER_LIMIT and fill["glyph masks"][1] == MASKS.max_masks
    finally:
        dp.stop()
