"""Which rows of a new frame differ from the frame drawn before it, known from their views, so that only those rows
are drawn again (Android's damage regions, in whole-width bands of JPEG block rows).

A frame paints a list of items in order (`paint_items`): the colour the image starts in, a dialog's dimming of what
is under it, and each drawn view's own decoration (background, bitmap, border, widget, text), named by everything
drawing it reads (its class, bounds, text, states, style, whether it is the root the image was filled with) and by
the clip rectangles around it. Drawing an item writes only the rows it touches, which the renderer records as it
draws (`Trace`: every ImageDraw call, pasted bitmap and line of text reports its rows), so a frame carries the rows
of each of its items.

Between two frames of the same size, the items both paint in the same order (`difflib.SequenceMatcher`'s matching)
paint the same pixels in the same order; a row no other item touches, in either frame, is the same in both. So the
new frame is the old one with the rows of the items that are not common drawn again (`plan`): each such band drawn
whole, from the image's first colour, every item that touches it drawn into it in order (the others skipped),
clipped to it - the same pixels as drawing the whole frame.

Translating a drawing by whole rows changes nothing, except where Pillow truncates a fractional coordinate toward
zero (the lines, polygons and arcs of the vector icons, plain text): inside a band such a coordinate may fall above
the band's top. So a band never starts inside an item that drew at a fractional row: it is widened upward to that
item's top. A new item's rows are predicted before it is drawn and checked after: drawn outside its band, the frame
is drawn whole instead.
"""

from __future__ import annotations

import difflib
import math
from collections.abc import Callable, Hashable, Sequence
from dataclasses import dataclass, field
from typing import Any

from .view import View

BLOCK = 16  # a JPEG block row with 4:2:0 chroma: bands start and end on them
MAX_SHARE = 0.6  # a frame with more of its rows to draw again is drawn whole (one pass), its JPEG still patched
MERGE_GAP = 2 * BLOCK  # bands closer than this are drawn as one

Rows = tuple[int, int]  # [top, bottom) in the frame's rows


@dataclass
class Drawn:
    """What an item drew: its rows (`top` >= `bottom`: none) and whether it drew at a fractional row."""

    top: int = 1 << 30
    bottom: int = -(1 << 30)
    fractional: bool = False

    def add(self, top: float, bottom: float, fractional: bool) -> None:
        self.top = min(self.top, math.floor(top))
        self.bottom = max(self.bottom, math.ceil(bottom))
        self.fractional = self.fractional or fractional


@dataclass(frozen=True)
class PaintList:
    """A frame's items in paint order, where each one's subtree ends (the index after it) and the rows each is
    expected to touch (its drawn box with room for a shadow and overflowing text)."""

    size: tuple[int, int]
    items: tuple[Hashable, ...]
    ends: tuple[int, ...]
    predicted: tuple[Rows, ...]


@dataclass
class Trace:
    """The renderer's log of one frame: the rows each item drew, by item index and, drawing bands (`bands`), which
    items it may skip (`known`: an item's rows from the frame before, None for a new item)."""

    paint: PaintList
    bands: Sequence[Rows] = ()
    known: Sequence[Drawn | None] = ()
    index: int = 0
    current: Drawn | None = None
    drawn: list[Drawn] = field(init=False)
    touched: list[bool] = field(init=False)

    def __post_init__(self) -> None:
        self.drawn = [Drawn() for _ in self.paint.items]
        self.touched = [False] * len(self.paint.items)

    def _known(self, i: int) -> Drawn | None:
        return self.known[i] if i < len(self.known) else None

    def enter(self, band: Rows | None = None) -> tuple[int, bool]:
        """The next item's index and whether to draw it (made `current`, the one whose rows are recorded): not
        when drawing `band` (absolute rows) and its rows, known from the frame before, miss it."""
        i = self.index
        self.index += 1
        known = self._known(i)
        if band is not None and known is not None and not (known.top < band[1] and known.bottom > band[0]):
            self.current = None
            return i, False
        self.current, self.touched[i] = self.drawn[i], True
        return i, True

    def skip_subtree(self, first: int) -> None:
        """Skip the items under item `first` (drawn nowhere in the band being drawn)."""
        self.index = self.paint.ends[first]
        self.current = None

    def touch(self, top: float, bottom: float, fractional: bool = False) -> None:
        """The current item drew rows [top, bottom) (of the frame)."""
        if self.current is not None:
            self.current.add(top, bottom, fractional)

    def result(self) -> list[Drawn]:
        """Each item's rows: as drawn, or as known from the frame before where it was drawn in no band."""
        out = []
        for i, (d, t) in enumerate(zip(self.drawn, self.touched, strict=True)):
            known = self._known(i)
            out.append(d if t or known is None else known)
        return out

    def new_items_inside(self) -> bool:
        """Did every item the frame before did not paint draw inside the bands (as predicted)?"""
        return all(covered(d, self.bands) for i, d in enumerate(self.drawn) if self._known(i) is None)


def fills(v: View, size: tuple[int, int]) -> bool:
    """Does `v` start by painting the whole image one colour (its square background over all of it)? The image is
    then created in that colour instead of painted twice."""
    st = v.style
    bg = st.get("bg")
    return (
        st.get("draw", v.bounds) == (0, 0, *size)
        and isinstance(bg, tuple)
        and len(bg) == 3
        and all(isinstance(c, int) for c in bg)
        and not st.get("radius")
        and not st.get("shadow")
        and not st.get("invisible")
        and not st.get("dim")
    )


def paint_items(roots: list[View], size: tuple[int, int], own_key: Callable[[View], Hashable]) -> PaintList:
    """The items `render(roots, size, ...)` paints, in its order (see the module's docstring); `own_key(view)`
    names a view's own drawing (not its children's)."""
    H = size[1]
    first = roots[0] if roots else None
    filled = first if first is not None and fills(first, size) else None
    items: list[Hashable] = [("fill", filled.style["bg"] if filled is not None else None)]
    ends: list[int] = [1]
    predicted: list[Rows] = [(0, H)]

    def walk(v: View, clip: tuple[tuple[int, int, int, int], ...]) -> None:
        st = v.style
        l, t, r, b = st.get("draw", v.bounds)
        if r <= l or b <= t:
            return
        i = len(items)
        items.append((own_key(v), clip, v is filled))
        ends.append(i + 1)
        predicted.append(predict(v, (t, b), H))
        if st.get("clip") and v.children:
            cl, ct, cr, cb = v.bounds
            if cr > cl and cb > ct:
                for c in v.children:
                    walk(c, (*clip, (cl, ct, cr, cb)))
        else:
            for c in v.children:
                walk(c, clip)
        ends[i] = len(items)

    for root in roots:
        if root.style.get("dim"):
            items.append(("dim",))
            ends.append(len(items))
            predicted.append((0, H))
        walk(root, ())
    return PaintList(size, tuple(items), tuple(ends), tuple(predicted))


def predict(v: View, rows: Rows, height: int) -> Rows:
    """The rows a view's own drawing is expected to touch, drawn at `rows` (its box's): none for a container that
    draws nothing, its box for a background, bitmap, border, widget or icon (a shadow falls 4 rows below), and
    its text's line where that is taller than the box. Checked against what it draws (`Trace.new_items_inside`)."""
    st = v.style
    if st.get("invisible"):
        return (0, 0)
    t, b = rows
    boxed = any(st.get(k) for k in ("bg", "image", "border", "kind", "icon", "shadow"))
    lo, hi = (t, b + (4 if st.get("shadow") else 0)) if boxed else (height, 0)
    if v.text or st.get("label") or st.get("kind"):
        size = st.get("size", 14)
        line = int((size if isinstance(size, (int, float)) else 14) * 1.35) + 4
        over = max(0, line - (b - t)) // 2 + 8
        pad = st.get("pad_top", 0)
        lo, hi = min(lo, t - over), max(hi, b + over + (int(pad) if isinstance(pad, (int, float)) else 0))
    return (max(0, lo), min(height, hi)) if lo < hi else (0, 0)


def plan(old: PaintList, old_drawn: Sequence[Drawn], new: PaintList) -> tuple[list[Rows], list[Drawn | None]] | None:
    """The bands where `new` may differ from the frame `old` drew (its items' rows `old_drawn`) and what is known of
    each new item's rows (from its match in `old`); None for a frame of another size."""
    if old.size != new.size or len(old_drawn) != len(old.items):
        return None
    H = new.size[1]
    matcher = difflib.SequenceMatcher(None, old.items, new.items, autojunk=False)
    known: list[Drawn | None] = [None] * len(new.items)
    common_old = [False] * len(old.items)
    for a, b, n in matcher.get_matching_blocks():
        for k in range(n):
            known[b + k] = old_drawn[a + k]
            common_old[a + k] = True
    damaged: list[Rows] = [
        (d.top, d.bottom) for d, c in zip(old_drawn, common_old, strict=True) if not c and d.top < d.bottom
    ]
    damaged += [new.predicted[j] for j, k in enumerate(known) if k is None]
    return widen(merge(damaged, H), [d for d in known if d is not None and d.fractional], H), known


def worth_bands(bands: Sequence[Rows], height: int) -> bool:
    """Are `bands` few enough rows to draw them alone (`MAX_SHARE`), rather than the whole frame in one pass?"""
    return sum(b - t for t, b in bands) <= MAX_SHARE * height


def merge(rows: Sequence[Rows], height: int) -> list[Rows]:
    """`rows` on whole blocks, inside [0, height), overlapping or close ones joined."""
    out: list[Rows] = []
    aligned = ((max(0, t) // BLOCK * BLOCK, min(height, -(-b // BLOCK) * BLOCK)) for t, b in rows if b > t)
    for t, b in sorted(aligned):
        if b <= t:
            continue
        if out and t <= out[-1][1] + MERGE_GAP:
            out[-1] = (out[-1][0], max(out[-1][1], b))
        else:
            out.append((t, b))
    return out


def widen(bands: list[Rows], fractional: Sequence[Drawn], height: int) -> list[Rows]:
    """`bands` with each top moved up until it starts inside no item that drew at a fractional row."""
    while True:
        moved = False
        out: list[Rows] = []
        for t, b in bands:
            for d in fractional:
                if d.top < t < d.bottom:
                    t, moved = max(0, d.top) // BLOCK * BLOCK, True
            out.append((t, b))
        bands = merge(out, height)
        if not moved:
            return bands


def covered(drawn: Drawn, bands: Sequence[Rows]) -> bool:
    """Are all of `drawn`'s rows inside one of `bands`?"""
    if drawn.top >= drawn.bottom:
        return True
    return any(t <= drawn.top and drawn.bottom <= b for t, b in bands)


def xy_rows(xy: Any, width: float = 0) -> tuple[float, float, bool]:
    """The rows an ImageDraw call with coordinates `xy` (a box, points, or flat numbers) and line `width` may touch,
    and whether any row coordinate is fractional (bands are whole rows wide: only rows move)."""
    flat: list[float] = []
    for p in xy:
        if isinstance(p, (tuple, list)):
            flat.extend(p)
        else:
            flat.append(p)
    ys = flat[1::2]
    pad = width + 2
    return min(ys) - pad, max(ys) + pad + 1, any(not float(c).is_integer() for c in ys)


class RecordingDraw:
    """An ImageDraw that tells `trace` the rows each call may touch (shifted by `oy` to the frame's rows, cut to
    `clip`), then draws."""

    def __init__(self, draw: Any, trace: Trace, oy: int, clip: Rows) -> None:
        self._draw, self._trace, self._oy, self._clip = draw, trace, oy, clip

    def cut(self, clip: Rows) -> RecordingDraw:
        """The same drawing, its rows cut to `clip`."""
        return RecordingDraw(self._draw, self._trace, self._oy, clip)

    def note(self, top: float, bottom: float, frac: bool = False) -> None:
        """Rows [top, bottom) of the image drawn (by this or by a paste beside it), told to the trace."""
        top, bottom = max(top + self._oy, self._clip[0]), min(bottom + self._oy, self._clip[1])
        if bottom > top:
            self._trace.touch(top, bottom, frac)

    def __getattr__(self, name: str) -> Callable[..., Any]:
        fn = getattr(self._draw, name)

        def call(xy: Any, *args: Any, **kwargs: Any) -> Any:
            if name == "text":
                font = kwargs.get("font")
                _, ft, _, fb = font.getbbox(args[0]) if font is not None else (0, 0, 0, 10)
                self.note(xy[1] + ft - 2, xy[1] + fb + 2, True)
            else:
                self.note(*xy_rows(xy, float(kwargs.get("width", 0) or 0)))
            return fn(xy, *args, **kwargs)

        return call
