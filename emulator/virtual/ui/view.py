"""The view model shared by the hierarchy dump, the renderer, input dispatch and the uiautomator2 server.

One tree of `View`s is built per frame from app state. The same tree produces the uiautomator XML and the
screenshot pixels, so bounds in the XML are exactly where things are drawn.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

Bounds = tuple[int, int, int, int]  # left, top, right, bottom in display pixels (current rotation)


def int_bounds(b: tuple[float, float, float, float]) -> Bounds:
    """`b` with each edge truncated to a whole pixel (layout arithmetic may hand over floats)."""
    return (int(b[0]), int(b[1]), int(b[2]), int(b[3]))


class Behaviour:
    """A style value that says what a view does, never how it looks (an editable field's binding): the renderer
    never reads it, so the name of a frame (`frames.draw_key`) leaves it out, like the callbacks beside it."""

    __slots__ = ()


@dataclass(eq=False)
class View:
    cls: str = "android.widget.FrameLayout"
    text: str = ""
    desc: str = ""  # content-desc
    resource_id: str = ""
    package: str = ""
    bounds: Bounds = (0, 0, 0, 0)
    hint: str = ""
    clickable: bool = False
    long_clickable: bool = False
    checkable: bool = False
    checked: bool = False
    enabled: bool = True
    focusable: bool = False
    focused: bool = False
    scrollable: bool = False
    selected: bool = False
    password: bool = False
    children: list[View] = field(default_factory=list)
    # not serialized: behaviour and drawing
    on_click: Callable[[], Any] | None = None
    on_long_click: Callable[[], Any] | None = None
    on_scroll: Callable[[int, int], Any] | None = None  # (dx, dy) finger movement in px
    style: dict[str, Any] = field(default_factory=dict)  # renderer hints: bg, fg, size, radius, icon, ...
    key: str = ""  # stable identity inside an app (e.g. the text field a keyboard types into)

    # --- geometry -----------------------------------------------------------------------------
    @property
    def width(self) -> int:
        return self.bounds[2] - self.bounds[0]

    @property
    def height(self) -> int:
        return self.bounds[3] - self.bounds[1]

    @property
    def center(self) -> tuple[int, int]:
        l, t, r, b = self.bounds
        return (l + r) // 2, (t + b) // 2

    def contains(self, x: float, y: float) -> bool:
        l, t, r, b = self.bounds
        return l <= x < r and t <= y < b

    # --- traversal ----------------------------------------------------------------------------
    def walk(self) -> Iterator[View]:
        """Depth-first, pre-order (the order of the XML dump)."""
        yield self
        for c in self.children:
            yield from c.walk()

    def hit(self, x: float, y: float, pred: Callable[[View], bool]) -> View | None:
        """The topmost (last drawn) deepest view at (x, y) satisfying `pred`."""
        if not self.contains(x, y):
            return None
        for c in reversed(self.children):
            found = c.hit(x, y, pred)
            if found is not None:
                return found
        return self if pred(self) else None


_BOOL_ATTRS = [
    ("checkable", "checkable"),
    ("checked", "checked"),
    ("clickable", "clickable"),
    ("enabled", "enabled"),
    ("focusable", "focusable"),
    ("focused", "focused"),
    ("scrollable", "scrollable"),
    ("long-clickable", "long_clickable"),
    ("password", "password"),
    ("selected", "selected"),
]


# what an attribute value cannot carry as is (xml.sax.saxutils' escape, which imports urllib and http: ~0.07 s of a
# device's start)
_ATTR_ESCAPES = str.maketrans(
    {"&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "\n": "&#10;", "\r": "&#13;", "\t": "&#9;"}
)
_INVALID_XML = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ufffe\uffff]")


@functools.lru_cache(maxsize=8192)
def quoteattr(value: str) -> str:
    """Always double-quoted, as Android's XmlSerializer writes attributes; drops chars XML cannot carry. (Remembered:
    a dump quotes the same class names, packages, ids and labels on every node and every capture.)"""
    value = _INVALID_XML.sub("", value)
    return '"' + value.translate(_ATTR_ESCAPES) + '"'


def _b(v: bool) -> str:
    return "true" if v else "false"


def _node_xml(v: View, index: int, out: list[str], depth: int, max_depth: int, u2: bool, order: list[int]) -> None:
    order[0] += 1
    attrs = [
        f'index="{index}"',
        f"text={quoteattr(v.text)}",
        f"resource-id={quoteattr(v.resource_id)}",
        f"class={quoteattr(v.cls)}",
        f"package={quoteattr(v.package)}",
        f"content-desc={quoteattr(v.desc)}",
    ]
    attrs += [f'{name}="{_b(getattr(v, field_))}"' for name, field_ in _BOOL_ATTRS]
    if u2:
        attrs.append('visible-to-user="true"')
    l, t, r, b = v.bounds
    attrs.append(f'bounds="[{l},{t}][{r},{b}]"')
    attrs.append(f'drawing-order="{order[0]}"')
    attrs.append(f"hint={quoteattr(v.hint)}")
    if u2:
        attrs.append('display-id="0"')
    kids = v.children if depth < max_depth else []
    if not kids:
        out.append("<node " + " ".join(attrs) + " />")
        return
    out.append("<node " + " ".join(attrs) + ">")
    for i, c in enumerate(kids):
        _node_xml(c, i, out, depth + 1, max_depth, u2, order)
    out.append("</node>")


def to_xml(roots: list[View], rotation: int, u2: bool = False, max_depth: int = 50) -> str:
    """uiautomator XML for the given window roots, as `uiautomator dump` (or u2's dumpWindowHierarchy) writes it."""
    out = ["<?xml version='1.0' encoding='UTF-8' standalone='yes' ?>", f'<hierarchy rotation="{rotation}">']
    for i, r in enumerate(roots):
        _node_xml(r, i, out, 1, max_depth, u2, [0])
    out.append("</hierarchy>")
    return "".join(out)
