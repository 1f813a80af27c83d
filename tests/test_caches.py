"""Every cache has a documented bound (issue 39, docs/caches.md).

- Every `functools.cache` / `lru_cache` in harness/, agents/, tasks/, emulator/ and bench/ (found with `ast`) is a
  row of docs/caches.md's first table, with its bound: the `maxsize` it is given, or, for an unbounded one, "finite"
  (its key space is finite by construction). No row names a cache that is gone.
- The bounded caches of the second table, filled past their bound, stay at it.
"""

from __future__ import annotations

import ast
import re
import threading
import time
import weakref
from collections.abc import Callable
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from PIL import Image

from tests.paths import REPO

SCANNED = ("harness", "agents", "tasks", "emulator", "bench")
DOC = REPO / "docs" / "caches.md"
DEFAULT_MAXSIZE = 128  # functools.lru_cache's


# --- the functools caches against the page ---------------------------------------------------------------------


def functools_caches(source: str) -> list[tuple[str, int | None]]:
    """(function name, maxsize: None when unbounded) of every function decorated with functools' cache or
    lru_cache in `source`; a use of them other than as a decorator raises ValueError (write caches as decorators:
    this check sees them there)."""
    tree = ast.parse(source)
    names: dict[str, str] = {}  # local name -> "cache" | "lru_cache"
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module == "functools":
            names.update({a.asname or a.name: a.name for a in node.names if a.name in ("cache", "lru_cache")})

    def kind(expr: ast.expr) -> str | None:
        if isinstance(expr, ast.Name) and expr.id in names:
            return names[expr.id]
        if isinstance(expr, ast.Attribute) and isinstance(expr.value, ast.Name) and expr.value.id == "functools":
            return expr.attr if expr.attr in ("cache", "lru_cache") else None
        return None

    found: list[tuple[str, int | None]] = []
    decorators: set[int] = set()
    for node in ast.walk(tree):
        if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            continue
        for dec in node.decorator_list:
            call = dec if isinstance(dec, ast.Call) else None
            k = kind(call.func if call else dec)
            if k is None:
                continue
            decorators.update({id(dec), id(call.func) if call else id(dec)})
            if k == "cache":
                found.append((node.name, None))
                continue
            size: Any = DEFAULT_MAXSIZE
            if call is not None:
                arg = next(
                    (kw.value for kw in call.keywords if kw.arg == "maxsize"), call.args[0] if call.args else None
                )
                size = DEFAULT_MAXSIZE if arg is None else ast.literal_eval(arg)
            found.append((node.name, size))
    for node in ast.walk(tree):
        if isinstance(node, (ast.Name, ast.Attribute)) and kind(node) and id(node) not in decorators:
            if isinstance(node, ast.Name) and isinstance(getattr(node, "ctx", None), ast.Store):
                continue
            raise ValueError(f"line {node.lineno}: {ast.unparse(node)} used other than as a decorator")
    return sorted(found)


def doc_rows(section: str) -> dict[tuple[str, str], list[str]]:
    """(path, name) -> the cells of each row of the table under `## section` in docs/caches.md."""
    text = DOC.read_text(encoding="utf-8")
    body = text.split(f"## {section}\n", 1)[1].split("\n## ", 1)[0]
    rows: dict[tuple[str, str], list[str]] = {}
    for line in body.splitlines():
        if not line.startswith("| `"):
            continue
        cells = [c.strip() for c in line.strip("|").split(" | ")]
        where = re.findall(r"`([^`]+)`", cells[0])
        rows[(where[0], where[1])] = cells
    return rows


def tree_caches() -> dict[tuple[str, str], int | None]:
    out: dict[tuple[str, str], int | None] = {}
    for pkg in SCANNED:
        for path in sorted((REPO / pkg).rglob("*.py")):
            rel = path.relative_to(REPO).as_posix()
            try:
                caches = functools_caches(path.read_text(encoding="utf-8"))
            except ValueError as e:
                raise AssertionError(f"{rel}: {e}") from None
            out.update({(rel, name): size for name, size in caches})
    return out


def test_every_functools_cache_is_on_the_page_with_its_bound() -> None:
    found, rows = tree_caches(), doc_rows("functools caches")
    missing = sorted(f"{p} {n}" for p, n in found if (p, n) not in rows)
    assert not missing, f"functools caches not in docs/caches.md's first table: {missing}"
    gone = sorted(f"{p} {n}" for p, n in rows if (p, n) not in found)
    assert not gone, f"docs/caches.md lists functools caches the code no longer has: {gone}"
    wrong = []
    for key, size in found.items():
        bound = rows[key][3]
        if size is None and not bound.startswith("finite"):
            wrong.append(f"{key}: unbounded in the code, so its bound must say 'finite' and why: {bound!r}")
        if size is not None and str(size) not in bound.replace(" ", ""):
            wrong.append(f"{key}: maxsize={size} in the code, {bound!r} on the page")
    assert not wrong, "\n".join(wrong)


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        ("import functools\n@functools.cache\ndef a(): pass\n", [("a", None)]),
        ("import functools\n@functools.lru_cache\ndef a(): pass\n", [("a", DEFAULT_MAXSIZE)]),
        ("import functools\n@functools.lru_cache(maxsize=None)\ndef a(): pass\n", [("a", None)]),
        ("from functools import lru_cache\n@lru_cache(64)\ndef a(): pass\n", [("a", 64)]),
        ("from functools import lru_cache\n@lru_cache()\ndef a(): pass\n", [("a", DEFAULT_MAXSIZE)]),
        ("from functools import cache as memo\nclass C:\n    @memo\n    def a(self): pass\n", [("a", None)]),
        ("def a(): pass\n", []),
    ],
)
def test_the_scan_finds_every_form(source: str, expected: list[tuple[str, int | None]]) -> None:
    assert functools_caches(source) == expected


def test_the_scan_refuses_a_cache_it_cannot_name() -> None:
    with pytest.raises(ValueError, match="other than as a decorator"):
        functools_caches("import functools\ndef a(): pass\nb = functools.lru_cache(maxsize=8)(a)\n")


def test_the_second_table_names_what_exists() -> None:
    """Every row of the second table names a module that exists and a name it defines."""
    bad = []
    for path, name in doc_rows("Other caches, logs and pools"):
        src = REPO / path
        attr = name.rsplit(".", 1)[-1]
        if not src.is_file() or not re.search(rf"\b{re.escape(attr)}\b", src.read_text(encoding="utf-8")):
            bad.append(f"{path} {name}")
    assert not bad, f"docs/caches.md names caches that are not there: {bad}"


# --- the bounded caches, filled past their bound ---------------------------------------------------------------


def test_glyph_masks_and_their_fonts_stay_at_their_bounds(monkeypatch: pytest.MonkeyPatch) -> None:
    from emulator.virtual.ui import glyphs
    from emulator.virtual.ui.fonts import get_font

    cache = glyphs.MaskCache(max_masks=8, max_bytes=1 << 30, max_fonts=2)
    monkeypatch.setattr(glyphs, "MASKS", cache)
    img = Image.new("RGB", (400, 60))
    font = get_font(20)
    for i in range(20):
        glyphs.draw_text(img, (1, 1), f"line {i}", font, (255, 255, 255))
        assert len(cache.masks) <= 8
    assert [k[1] for k in cache.masks] == [f"line {i}" for i in range(12, 20)], "the least recently used went first"
    assert cache.bytes == sum(m.width * m.height for m, _, _ in cache.masks.values())
    for size in (11, 12, 13, 14, 15):
        glyphs.draw_text(img, (1, 1), "a", get_font(size), (255, 255, 255))
        assert len(cache.fonts) <= 2
        assert all(k[0] in cache.fonts for k in cache.masks), "every mask is keyed by a font kept alive"
    small = glyphs.MaskCache(max_bytes=3 * 40 * 40)  # about three 20-pixel lines' masks
    monkeypatch.setattr(glyphs, "MASKS", small)
    for i in range(20):
        glyphs.draw_text(img, (1, 1), f"line {i}", font, (255, 255, 255))
        assert small.bytes <= small.max_bytes or len(small.masks) == 1
    assert 1 <= len(small.masks) < 20 and small.bytes == sum(m.width * m.height for m, _, _ in small.masks.values())


def test_a_device_frame_cache_stays_at_its_bounds() -> None:
    from emulator.virtual.ui.frames import FrameCache

    def drawing(i: int) -> Callable[[], Image.Image]:
        return lambda: Image.new("RGB", (8, 8), (i, 0, 0))

    cache = FrameCache(images=2, encoded=3)
    for i in range(10):
        cache.image(("frame", i), drawing(i))
        cache.jpeg(("frame", i), drawing(i), 1.0, 80)
    assert len(cache._images) == 2 and len(cache._encoded) == 3
    misses = cache.misses
    cache.image(("frame", 9), lambda: Image.new("RGB", (8, 8)))
    assert cache.misses == misses, "the latest frame is still remembered"


def test_scaled_bitmaps_are_the_same_pixels_and_stay_at_their_bounds() -> None:
    from emulator.virtual.ui.render import ScaledBitmaps

    cache = ScaledBitmaps(max_bytes=100 * 100 * 4 * 2, max_items=3)
    small = Image.new("RGB", (30, 60), (10, 20, 30))
    small.paste((200, 0, 0), (0, 0, 15, 30))
    first = cache.get(small, (50, 100))
    assert first.tobytes() == small.resize((50, 100)).tobytes()  # what the frame drew before
    assert cache.get(small, (50, 100)) is first  # kept: not scaled again
    assert cache.get(small, (30, 60)) is small  # already as drawn: not copied, not kept
    paletted = small.quantize(16)
    assert cache.get(paletted, (30, 60)).tobytes() == paletted.convert("RGB").tobytes()
    for i in range(4):  # more than 3 bitmaps: the least recently drawn go
        cache.get(Image.new("RGB", (10, 10), (i, i, i)), (20, 20))
    held = cache.held()
    assert held["scaled bitmaps"] <= 3 and held["scaled bitmap bytes"] <= cache.max_bytes
    big = cache.get(small, (200, 200))  # larger than the bound: scaled, not kept
    assert cache.get(small, (200, 200)) is not big and cache.held()["scaled bitmap bytes"] <= cache.max_bytes
    other = Image.new("RGB", (30, 60), (1, 2, 3))  # another bitmap of the same size is another picture
    assert cache.get(other, (50, 100)).getpixel((0, 0)) == (1, 2, 3)
    before = cache.held()

    class Strokes:  # drawn afresh for each frame (simpledraw's StrokeLayer): never kept
        mode, size = "strokes", (10, 10)

        def convert(self, mode: str) -> Image.Image:
            return Image.new(mode, self.size, (9, 9, 9))

    assert cache.get(Strokes(), (20, 20)).getpixel((19, 19)) == (9, 9, 9) and cache.held() == before


def test_an_episode_apps_scaled_screens_stay_at_their_bound() -> None:
    from emulator.virtual.apps.episode_app import SCALED_MAX, EpisodeApp
    from harness.eval.replay_rules import recorded_episode
    from tests.harness.eval.test_replay_rules import load_aitz

    app = EpisodeApp(recorded_episode(load_aitz()), "org.droidharness.episode.test")
    for w in range(40, 40 + 3 * SCALED_MAX):
        app._image(0, (w, 2 * w))
        assert len(app._scaled) <= SCALED_MAX
    assert app._image(0, (100, 100)).size == (100, 100)


class _Model:
    """Stands for a device model: a key `_LAUNCHES` holds weakly."""


def test_u2_server_launches_keep_only_those_under_way(monkeypatch: pytest.MonkeyPatch) -> None:
    from emulator.virtual import u2server

    launches: weakref.WeakKeyDictionary[Any, dict[int, float]] = weakref.WeakKeyDictionary()
    monkeypatch.setattr(u2server, "_LAUNCHES", launches)
    model = _Model()
    for port in (9008, 9009):  # both under way
        u2server.note_launch(model, f"app_process / {u2server.MAIN_CLASS} server -p {port}")  # type: ignore[arg-type]
    assert set(launches[model]) == {9008, 9009}
    time.sleep(u2server.LAUNCH_WAIT + 0.05)  # those two are over
    monkeypatch.setattr(u2server, "LAUNCH_WAIT", 0.0)  # and from now on every launch is over by the next one
    for port in range(9010, 9060):
        u2server.note_launch(model, f"app_process / {u2server.MAIN_CLASS} server -p {port}")  # type: ignore[arg-type]
    assert set(launches[model]) == {9059}
    del model
    assert len(launches) == 0, "a model's launches go with it"


def test_u2_named_objects_stay_at_their_bound(monkeypatch: pytest.MonkeyPatch) -> None:
    from emulator.virtual.u2 import rpc

    monkeypatch.setattr(rpc, "MAX_NAMED_OBJECTS", 5)
    service = rpc.RpcService(None, threading.Event())  # type: ignore[arg-type]
    names = [service._name({"text": str(i)}) for i in range(12)]
    assert list(service._objects) == names[-5:]


def test_the_event_log_keeps_its_last_events_and_marks_stay_good() -> None:
    from emulator.virtual.events import LIMIT, EventLog

    assert EventLog()._events.maxlen == LIMIT
    log = EventLog(limit=5)
    for i in range(3):
        log.log("exec", argv=[f"c{i}"])
    mark = log.mark()
    for i in range(3, 12):
        log.log("exec", argv=[f"c{i}"])
    assert [e["argv"][0] for e in log.all()] == ["c7", "c8", "c9", "c10", "c11"]
    assert [e["argv"][0] for e in log.since(mark)] == ["c7", "c8", "c9", "c10", "c11"], "dropped ones are gone"
    mark = log.mark()
    log.log("tap", x=1)
    log.log("exec", argv=["last"])
    assert [e.kind for e in log.since(mark)] == ["tap", "exec"], "a mark taken on a full log still counts on"
    assert log.since(log.mark()) == []
    assert log.commands()[-1] == ["last"]
    log.clear()
    assert log.all() == [] and log.since(0) == []


def test_the_logcat_buffer_stays_at_its_bound(monkeypatch: pytest.MonkeyPatch) -> None:
    from emulator.virtual import procs

    monkeypatch.setattr(procs, "BUFFER_LIMIT", 10)
    buf = procs.LogBuffer()
    for i in range(50):
        buf.write("I", "Test", f"line {i}")
    kept = buf.entries(("main",))
    assert len(kept) <= 10 and kept[-1].msg == "line 49"


def test_adb_server_versions_stay_at_their_bound(monkeypatch: pytest.MonkeyPatch) -> None:
    from harness.device import fastadb

    versions: dict[tuple[str, int], int] = {}
    monkeypatch.setattr(fastadb, "_server_versions", versions)
    monkeypatch.setattr(fastadb, "_MAX_SERVERS", 4)
    for port in range(20):
        client = SimpleNamespace(host="127.0.0.1", port=port, server_version=lambda port=port: 40 + port)
        assert fastadb.FastAdbDevice._server_version(SimpleNamespace(_client=client)) == 40 + port  # type: ignore[arg-type]
        assert len(versions) <= 4


def test_a_run_remembers_its_latest_frame_names_only(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    from harness.trajectory import frames
    from harness.trajectory.frames import FrameStore, WriterOptions

    monkeypatch.setattr(frames, "KNOWN_FRAMES", 4)
    store = FrameStore(tmp_path, WriterOptions())
    names = [store.put_xml(f"<hierarchy n='{i}'/>") for i in range(10)]
    assert list(store._known) == names[-4:]
    assert store.put_xml("<hierarchy n='0'/>") == names[0]  # forgotten: found on disk, not written again
    assert store.stats.hierarchies_written == 10
    assert list(store._known)[-1] == names[0] and len(store._known) == 4


def test_the_jpegs_kept_cut_up_stay_at_their_bound() -> None:
    from emulator.virtual.ui import jpegsplit

    img = Image.new("RGB", (64, 16 * jpegsplit.SPLIT_MIN_ROWS), (20, 40, 60))
    made = [jpegsplit.encode(img.point(lambda v, k=k: (v + 7 * k) % 256), 80) for k in range(jpegsplit.KEEP_CUTS + 3)]
    assert len(jpegsplit._cuts) == jpegsplit.KEEP_CUTS
    assert [entry[0] for entry in jpegsplit._cuts.values()] == made[-jpegsplit.KEEP_CUTS :], "the last ones made"
