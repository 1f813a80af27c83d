"""What a step's CPU on the virtual device is spared (issue 49): a new frame drawn over the one it pushes out of the
cache, heap trims only past a slack and at rest, a screenshot's response assembled around its base64 text."""

from __future__ import annotations

import pytest
from PIL import Image

from emulator.virtual import memtrim
from emulator.virtual.ui.frames import FrameCache
from emulator.virtual.ui.render import render
from emulator.virtual.ui.theme import theme_for
from emulator.virtual.ui.view import View

SIZE = (120, 240)


def _roots(bg: tuple[int, int, int], text: str) -> list[View]:
    label = View(cls="android.widget.TextView", bounds=(10, 40, 110, 80), text=text, style={"fg": (20, 20, 20)})
    card = View(bounds=(5, 100, 115, 200), style={"bg": (200, 60, 60), "radius": 8}, children=[])
    return [View(bounds=(0, 0, *SIZE), style={"bg": bg}, children=[label, card])]


def test_a_frame_drawn_over_an_old_one_has_the_pixels_of_a_new_image() -> None:
    theme = theme_for(False)
    old = render(_roots((10, 200, 30), "old"), SIZE, theme)
    for roots in (_roots((250, 250, 250), "new"), [View(bounds=(0, 0, 60, 60), style={"bg": (1, 2, 3)})]):
        fresh = render(roots, SIZE, theme)
        over = render(roots, SIZE, theme, canvas=old)
        assert over is old, "the canvas itself is drawn on"
        assert over.tobytes() == fresh.tobytes()


def _frame(cache: FrameCache, name: str, drawn: list[str], canvases: list[Image.Image | None]) -> Image.Image:
    def draw() -> Image.Image:
        drawn.append(name)
        canvases.append(None)
        return Image.new("RGB", SIZE)

    def draw_on(canvas: Image.Image) -> Image.Image:
        drawn.append(name)
        canvases.append(canvas)
        return canvas

    return cache.image(name, draw, draw_on)


def test_the_cache_draws_a_new_frame_over_the_frame_it_pushes_out_unless_someone_holds_it() -> None:
    cache = FrameCache(images=2)
    drawn: list[str] = []
    canvases: list[Image.Image | None] = []
    a = _frame(cache, "a", drawn, canvases)
    b_id = id(_frame(cache, "b", drawn, canvases))
    assert canvases == [None, None], "a cache not yet full allocates"
    c = _frame(cache, "c", drawn, canvases)
    assert canvases[-1] is None, "`a` is still held here: not drawn over"
    assert _frame(cache, "c", drawn, canvases) is c and drawn == ["a", "b", "c"], "a hit draws nothing"
    d = _frame(cache, "d", drawn, canvases)  # pushes out `b`, which nobody holds
    assert canvases[-1] is d and id(d) == b_id
    assert a.size == SIZE  # still usable: never drawn over while held
    assert _frame(cache, "c", drawn, canvases) is c and len(drawn) == 4, "the frame kept beside it stays"


def test_the_heap_is_trimmed_past_its_slack_and_at_rest(monkeypatch: pytest.MonkeyPatch) -> None:
    trims: list[int] = []
    rss = [100 << 20]
    monkeypatch.setattr(memtrim, "resident", lambda: rss[0])

    def malloc_trim(pad: int) -> int:
        trims.append(pad)
        return 1

    monkeypatch.setattr(memtrim, "_trim", malloc_trim)
    monkeypatch.setattr(memtrim, "_loaded", True)
    memtrim.trim()
    assert trims == [0]
    memtrim.frame_drawn(now=1000.0)
    rss[0] += memtrim.HEAP_SLACK
    memtrim.frame_drawn(now=1001.0)
    assert trims == [0], "within the slack: the freed buffers are kept for the next frame"
    assert not memtrim.trim_if_idle(now=1001.0 + memtrim.IDLE_SECONDS / 2), "still busy"
    assert memtrim.trim_if_idle(now=1001.0 + 2 * memtrim.IDLE_SECONDS) and trims == [0, 0], "at rest: trimmed"
    assert not memtrim.trim_if_idle(now=1010.0), "nothing drawn since"
    rss[0] += memtrim.HEAP_SLACK + 1
    memtrim.frame_drawn(now=1011.0)
    assert trims == [0, 0, 0], "past the slack: trimmed at once"
    rss[0] += memtrim.HEAP_SLACK + 1
    memtrim.frame_drawn(now=1011.0 + memtrim.RSS_EVERY / 2)
    assert trims == [0, 0, 0], "the resident size is not read again so soon"
    memtrim.frame_drawn(now=1011.0 + 2 * memtrim.RSS_EVERY)
    assert trims == [0, 0, 0, 0], "then it is: trimmed"


@pytest.mark.parametrize("req_id", [1, "a-é", None, 2**40])
def test_a_screenshot_response_is_the_bytes_json_would_give(req_id: object) -> None:
    """takeScreenshot's response is assembled around its base64 text, byte for byte what encoding it gives."""
    import base64
    import io
    import json
    import threading

    from emulator.virtual.model import VirtualDeviceModel
    from emulator.virtual.u2.rpc import Base64Text, RpcService

    svc = RpcService(VirtualDeviceModel(), threading.Event())
    assert type(svc.call("takeScreenshot", [1, 80])) is Base64Text, "the response is assembled, not encoded"
    body = json.dumps({"jsonrpc": "2.0", "id": req_id, "method": "takeScreenshot", "params": [1, 80]}).encode()
    out = svc.handle(body)
    result = json.loads(out)["result"]
    assert Image.open(io.BytesIO(base64.b64decode(result))).format == "JPEG"
    expected = {"jsonrpc": "2.0", "id": req_id, "result": result}
    assert out == json.dumps(expected, ensure_ascii=False).encode("utf-8", "replace")
