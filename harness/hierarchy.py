"""Parse uiautomator XML (`uiautomator dump`, uiautomator2's dumpWindowHierarchy, the virtual device) into an
immutable `UITree` of `UIElement`s.

- Element `index` = pre-order document position (0-based) over every `<node>` of every window root. It is
  stable for a given dump and is what `Click(element=...)` and the `[n]` numbers of `to_prompt` refer to.
- Bounds are display pixels in the dump's rotation, `(left, top, right, bottom)`, right/bottom exclusive.
- Safety: the XML is untrusted (it comes off a device). DOCTYPEs are refused outright, the parser never resolves
  entities, never touches the network and keeps libxml2's size limits, so billion-laughs and external entities
  fail with `HierarchyError` instead of expanding or fetching.
- Reading order (`reading_order`): elements sorted by top edge; two elements share a row when each one's
  vertical centre lies inside the other's vertical extent (so a tall container never swallows its children's
  rows); a row is anchored by its first (topmost) element; rows go top to bottom, left to right inside a row
  (ties: top, then document order).
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import re
from collections import Counter
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from functools import partial

from lxml import etree

from harness.errors import HierarchyError

Bounds = tuple[int, int, int, int]
VOLATILE_PACKAGES: tuple[str, ...] = ("com.android.systemui",)  # status bar clock / battery / signal
_EDITABLE = ("EditText", "AutoCompleteTextView")
_BOUNDS_RE = re.compile(r"^\s*\[\s*(-?\d+)\s*,\s*(-?\d+)\s*\]\s*\[\s*(-?\d+)\s*,\s*(-?\d+)\s*\]\s*$")
_DOCTYPE_RE = re.compile(r"<!\s*(DOCTYPE|ENTITY)", re.IGNORECASE)
_LXML_WHERE_RE = re.compile(r"(,\s*line \d+,\s*column \d+\s*)+$")
_XML_DECL_RE = re.compile(r"^\s*<\?xml[^>]*\?>")
# XML attribute -> UIElement field, for booleans; `visible-to-user` defaults to true when absent (old dumps)
_BOOL_ATTRS = {
    "checkable": "checkable",
    "checked": "checked",
    "clickable": "clickable",
    "long-clickable": "long_clickable",
    "enabled": "enabled",
    "focusable": "focusable",
    "focused": "focused",
    "scrollable": "scrollable",
    "selected": "selected",
    "password": "password",
    "visible-to-user": "visible_to_user",
}
STATE_NAMES: frozenset[str] = frozenset(_BOOL_ATTRS.values())


@dataclass(frozen=True, slots=True)
class UIElement:
    index: int
    bounds: Bounds
    text: str = ""
    content_desc: str = ""
    resource_id: str = ""
    class_name: str = ""
    package: str = ""
    hint: str = ""
    checkable: bool = False
    checked: bool = False
    clickable: bool = False
    long_clickable: bool = False
    enabled: bool = True
    focusable: bool = False
    focused: bool = False
    scrollable: bool = False
    selected: bool = False
    password: bool = False
    visible_to_user: bool = True
    depth: int = 0
    parent: int | None = None
    children: tuple[int, ...] = ()
    drawing_order: int | None = None

    @property
    def width(self) -> int:
        return max(0, self.bounds[2] - self.bounds[0])

    @property
    def height(self) -> int:
        return max(0, self.bounds[3] - self.bounds[1])

    @property
    def area(self) -> int:
        return self.width * self.height

    @property
    def center(self) -> tuple[int, int]:
        """Integer pixel centre `((l + r) // 2, (t + b) // 2)`, as the device taps it."""
        l, t, r, b = self.bounds
        return (l + r) // 2, (t + b) // 2

    @property
    def short_class(self) -> str:
        """ "Button" for "android.widget.Button"; inner classes keep their `$` part."""
        return self.class_name.rsplit(".", 1)[-1]

    @property
    def resource_name(self) -> str:
        """ "save" for "com.app:id/save"."""
        return self.resource_id.split(":id/", 1)[-1] if self.resource_id else ""

    @property
    def label(self) -> str:
        """What a person would call it: text, else content-desc, else the resource-id tail."""
        return self.text or self.content_desc or self.resource_name

    @property
    def is_editable(self) -> bool:
        return self.short_class.endswith(_EDITABLE)

    @property
    def is_visible(self) -> bool:
        return self.visible_to_user and self.area > 0

    @property
    def is_interactable(self) -> bool:
        return self.enabled and (
            self.clickable or self.long_clickable or self.checkable or self.scrollable or self.is_editable
        )

    def contains(self, x: float, y: float) -> bool:
        l, t, r, b = self.bounds
        return l <= x < r and t <= y < b


def _parser() -> etree.XMLParser:
    return etree.XMLParser(
        resolve_entities=False,
        no_network=True,
        huge_tree=False,
        load_dtd=False,
        dtd_validation=False,
        remove_comments=True,
        remove_pis=True,
    )


def _decode(xml: str | bytes, source: str) -> str:
    """Bytes -> text (UTF-8, or UTF-16 with a BOM); the XML declaration is blanked out (same length, so line and
    column numbers still match the input) so that no declared encoding can hide markup from the DOCTYPE check."""
    if isinstance(xml, (bytes, bytearray, memoryview)):
        data = bytes(xml)
        try:
            text = data.decode("utf-16" if data.startswith((b"\xff\xfe", b"\xfe\xff")) else "utf-8-sig")
        except UnicodeDecodeError as exc:
            raise HierarchyError(
                f"{source}: not UTF-8 text (byte {exc.start}: {data[exc.start : exc.start + 4]!r})"
            ) from None
    elif isinstance(xml, str):
        text = xml.lstrip("\ufeff")
    else:
        raise HierarchyError(f"{source}: expected str or bytes, got {type(xml).__name__}")
    return _XML_DECL_RE.sub(lambda m: " " * len(m.group(0)), text, count=1)


def _bool(value: str | None, default: bool) -> bool:
    if value is None:
        return default
    if value == "true" or value == "false":  # what uiautomator writes: no strip, no lower (~10 per node)
        return value == "true"
    return value.strip().lower() == "true"


# each boolean attribute with its field and default (`enabled` and `visible_to_user` are true when missing), in the
# order of UIElement's fields, where `_element` passes them by position
_BOOL_FIELDS = tuple((attr, f, f in ("enabled", "visible_to_user")) for attr, f in _BOOL_ATTRS.items())
_FIELD_ORDER = [f.name for f in dataclasses.fields(UIElement)]
if _FIELD_ORDER[8:19] != [f for _, f, _ in _BOOL_FIELDS] or _FIELD_ORDER[19:] != [
    "depth",
    "parent",
    "children",
    "drawing_order",
]:
    raise RuntimeError(f"UIElement's fields are not in the order _element passes them: {_FIELD_ORDER}")


def _state_is(e: UIElement, name: str, value: bool) -> bool:
    return bool(getattr(e, name) == value)


def _bound(test: Callable[[UIElement, str], bool], value: str) -> Callable[[UIElement], bool]:
    return lambda e: test(e, value)


class UITree:
    """An immutable parsed view hierarchy. Index it like a tuple: `tree[12]` is the element numbered 12."""

    __slots__ = ("_elements", "_roots", "_rotation", "_source", "_visible")

    def __init__(self, elements: Iterable[UIElement], rotation: int = 0, source: str = "<tree>") -> None:
        self._elements: tuple[UIElement, ...] = tuple(elements)
        self._rotation = rotation
        self._source = source
        self._roots = tuple(e.index for e in self._elements if e.parent is None)
        self._visible: tuple[UIElement, ...] | None = None  # `visible()`, once asked (the tree is immutable)
        for i, e in enumerate(self._elements):
            if e.index != i:
                raise HierarchyError(f"{source}: element at position {i} has index {e.index}")

    # --- parsing -------------------------------------------------------------------------------------
    @classmethod
    def from_xml(cls, xml: str | bytes, source: str = "<xml>") -> UITree:
        """Parse a uiautomator dump. Raises `HierarchyError` naming `source` and the line / attribute."""
        text = _decode(xml, source)
        if not text.strip():
            raise HierarchyError(f"{source}: empty hierarchy dump")
        if _DOCTYPE_RE.search(text):
            raise HierarchyError(f"{source}: DOCTYPE / ENTITY declarations are not allowed in a hierarchy dump")
        try:
            root = etree.fromstring(text, _parser())
        except etree.XMLSyntaxError as exc:
            line, col = exc.position if exc.position else (exc.lineno, 0)
            msg = _LXML_WHERE_RE.sub("", " ".join(str(exc.msg).split()))
            raise HierarchyError(f"{source}: not well-formed XML at line {line}, column {col}: {msg}") from None
        except ValueError as exc:  # lxml refuses NUL bytes and some control characters in str input
            raise HierarchyError(f"{source}: cannot parse XML: {exc}") from None
        if root is None or root.getroottree().docinfo.doctype:
            raise HierarchyError(f"{source}: not a hierarchy dump")
        if root.tag != "hierarchy":
            raise HierarchyError(
                f"{source}: root element is <{root.tag!s}>, expected <hierarchy> (line {root.sourceline})"
            )
        rot_attr = root.get("rotation", "0")
        if rot_attr.strip() not in ("0", "1", "2", "3"):
            raise HierarchyError(f"{source}: line {root.sourceline}: attribute rotation={rot_attr!r} is not 0..3")
        return cls(_walk(root, source), int(rot_attr), source)

    # --- sequence protocol --------------------------------------------------------------------------
    def __getitem__(self, index: int) -> UIElement:
        if isinstance(index, bool) or not isinstance(index, int) or not 0 <= index < len(self._elements):
            raise IndexError(f"{self._source}: no element {index!r} (the tree has {len(self._elements)})")
        return self._elements[index]

    def __len__(self) -> int:
        return len(self._elements)

    def __iter__(self) -> Iterator[UIElement]:
        return iter(self._elements)

    def __repr__(self) -> str:
        return f"UITree({len(self._elements)} elements, rotation={self._rotation}, source={self._source!r})"

    @property
    def elements(self) -> tuple[UIElement, ...]:
        return self._elements

    @property
    def rotation(self) -> int:
        return self._rotation

    @property
    def source(self) -> str:
        return self._source

    @property
    def roots(self) -> tuple[int, ...]:
        """Indices of the window roots (direct children of `<hierarchy>`)."""
        return self._roots

    def ancestors(self, index: int) -> Iterator[UIElement]:
        p = self[index].parent
        while p is not None:
            yield self._elements[p]
            p = self._elements[p].parent

    # --- selections ----------------------------------------------------------------------------------
    def visible(self) -> list[UIElement]:
        if self._visible is None:  # asked several times a step (milestones, the agent, probes): found once
            self._visible = tuple(e for e in self._elements if e.is_visible)
        return list(self._visible)

    def interactable(self, exclude_packages: Iterable[str] = ()) -> list[UIElement]:
        """Visible, interactable elements. `exclude_packages=VOLATILE_PACKAGES` drops the system bars (and the
        notification shade, which is the same package: off by default)."""
        skip = frozenset(exclude_packages)
        return [e for e in self._elements if e.is_visible and e.is_interactable and e.package not in skip]

    def reading_order(self, elements: Iterable[UIElement] | None = None) -> list[UIElement]:
        """Rows top to bottom, left to right within a row (rule in the module docstring)."""
        items = sorted(self.visible() if elements is None else elements, key=lambda e: (e.bounds[1], e.index))
        rows: list[list[UIElement]] = []
        for e in items:
            if rows and _same_row(rows[-1][0], e):
                rows[-1].append(e)
            else:
                rows.append([e])
        return [e for row in rows for e in sorted(row, key=lambda e: (e.bounds[0], e.bounds[1], e.index))]

    def at(self, x_px: float, y_px: float, prefer_clickable: bool = False) -> UIElement | None:
        """The visible element under a pixel: deepest, then smallest area, then last in document order (drawn
        on top). With `prefer_clickable`, the nearest clickable / long-clickable element on the way up from it
        (itself included) when there is one."""
        best: UIElement | None = None
        for e in self._elements:
            if (
                e.is_visible
                and e.contains(x_px, y_px)
                and (best is None or (e.depth, -e.area) >= (best.depth, -best.area))
            ):
                best = e
        if best is None or not prefer_clickable:
            return best
        for e in (best, *self.ancestors(best.index)):
            if e.clickable or e.long_clickable:
                return e
        return best

    def find(
        self,
        text: str | None = None,
        text_contains: str | None = None,
        resource_id: str | None = None,
        class_name: str | None = None,
        content_desc: str | None = None,
        package: str | None = None,
        **states: bool,
    ) -> list[UIElement]:
        """Elements matching every given criterion. `resource_id` matches the full id or its tail after
        ":id/"; `class_name` the full or the short class; `states` are boolean fields (`checked=True`, ...)."""
        unknown = set(states) - STATE_NAMES
        if unknown:
            raise TypeError(f"find(): unknown state(s) {sorted(unknown)}; expected some of {sorted(STATE_NAMES)}")
        given: list[tuple[str | None, Callable[[UIElement, str], bool]]] = [
            (text, lambda e, v: e.text == v),
            (text_contains, lambda e, v: v in e.text),
            (resource_id, lambda e, v: v in (e.resource_id, e.resource_name)),
            (class_name, lambda e, v: v in (e.class_name, e.short_class)),
            (content_desc, lambda e, v: e.content_desc == v),
            (package, lambda e, v: e.package == v),
        ]
        tests: list[Callable[[UIElement], bool]] = [_bound(f, v) for v, f in given if v is not None]
        tests += [partial(_state_is, name=k, value=bool(v)) for k, v in states.items()]
        return [e for e in self._elements if all(t(e) for t in tests)]

    # --- for models ----------------------------------------------------------------------------------
    def prompt_elements(self) -> list[UIElement]:
        """What `to_prompt` lists by default: visible elements that are interactable or carry text / a
        description, in reading order."""
        return self.reading_order(
            e for e in self._elements if e.is_visible and (e.is_interactable or e.text or e.content_desc)
        )

    def to_prompt(
        self,
        elements: Iterable[UIElement] | None = None,
        max_len: int | None = None,
        with_bounds: bool = False,
        max_text: int = 80,
    ) -> str:
        """One line per element, `[index] ShortClass "text" desc="..." hint="..." (states)`. The numbers are
        element indices (`Click(element=12)`). `max_len` caps the whole text in characters (whole lines are
        dropped and a final "... N more elements" line says so); `max_text` clips each string."""
        items = list(self.prompt_elements() if elements is None else elements)
        lines = [format_element(e, with_bounds=with_bounds, max_text=max_text) for e in items]
        if max_len is None or sum(len(s) + 1 for s in lines) - 1 <= max_len:
            return "\n".join(lines)
        kept: list[str] = []
        used = 0
        for i, line in enumerate(lines):
            tail = f"... {len(lines) - i - 1} more elements" if i + 1 < len(lines) else ""
            if used + len(line) + 1 + len(tail) > max_len:
                kept.append(f"... {len(lines) - i} more elements")
                break
            kept.append(line)
            used += len(line) + 1
        return "\n".join(kept)

    # --- change detection ----------------------------------------------------------------------------
    def signature(self, ignore_packages: Iterable[str] = VOLATILE_PACKAGES) -> str:
        """A hash of the screen content (class, ids, texts, bounds, states) that ignores `ignore_packages`
        (by default the system UI: clock, battery and signal change on their own). Equal signatures on two
        consecutive dumps = the screen has settled."""
        skip = frozenset(ignore_packages)
        h = hashlib.blake2b(digest_size=16)
        for e in self._elements:
            if e.package in skip:
                continue
            h.update(json.dumps(_content_key(e) + (e.bounds, _states(e)), ensure_ascii=False).encode())
            h.update(b"\x00")
        return h.hexdigest()

    def diff(self, other: UITree) -> TreeDiff:
        """Counts of elements added / removed / changed (same class, id, texts and depth; moved or changed
        state) going from `self` to `other`."""

        def index(tree: UITree) -> dict[tuple, list[UIElement]]:
            groups: dict[tuple, list[UIElement]] = {}
            for e in tree:
                groups.setdefault(_content_key(e) + (e.depth,), []).append(e)
            return groups

        a, b = index(self), index(other)
        ca = Counter({k: len(v) for k, v in a.items()})
        cb = Counter({k: len(v) for k, v in b.items()})
        changed = 0
        for k in a.keys() & b.keys():
            changed += sum(
                1 for x, y in zip(a[k], b[k], strict=False) if x.bounds != y.bounds or _states(x) != _states(y)
            )
        return TreeDiff(added=sum((cb - ca).values()), removed=sum((ca - cb).values()), changed=changed)


@dataclass(frozen=True, slots=True)
class TreeDiff:
    added: int
    removed: int
    changed: int

    @property
    def unchanged(self) -> bool:
        return not (self.added or self.removed or self.changed)


def _content_key(e: UIElement) -> tuple:
    return (e.class_name, e.resource_id, e.text, e.content_desc, e.package)


def _states(e: UIElement) -> tuple[bool, ...]:
    return (e.checked, e.selected, e.focused, e.enabled, e.clickable, e.scrollable, e.visible_to_user)


def _same_row(a: UIElement, b: UIElement) -> bool:
    ca, cb = (a.bounds[1] + a.bounds[3]) / 2, (b.bounds[1] + b.bounds[3]) / 2
    return a.bounds[1] <= cb <= a.bounds[3] and b.bounds[1] <= ca <= b.bounds[3]


def _quote(text: str, limit: int) -> str:
    if len(text) > limit:
        text = text[: max(limit - 1, 0)] + "…"
    return json.dumps(text, ensure_ascii=False)


def format_element(e: UIElement, with_bounds: bool = False, max_text: int = 80) -> str:
    """`[12] Button "Save" (clickable)`, the line `UITree.to_prompt` writes for one element."""
    parts = [f"[{e.index}]", e.short_class or "View"]
    if e.text:
        parts.append(_quote(e.text, max_text))
    if e.content_desc and e.content_desc != e.text:
        parts.append("desc=" + _quote(e.content_desc, max_text))
    if e.hint and e.hint != e.text:
        parts.append("hint=" + _quote(e.hint, max_text))
    if not (e.text or e.content_desc) and e.resource_name:
        parts.append("id=" + e.resource_name)
    states = [
        name
        for name, on in (
            ("clickable", e.clickable),
            ("long-clickable", e.long_clickable),
            ("scrollable", e.scrollable),
            ("editable", e.is_editable),
            ("focused", e.focused),
            ("selected", e.selected),
            ("checked" if e.checked else "unchecked", e.checkable),
            ("password", e.password),
            ("disabled", not e.enabled),
        )
        if on
    ]
    if states:
        parts.append("(" + ", ".join(states) + ")")
    if with_bounds:
        l, t, r, b = e.bounds
        parts.append(f"@[{l},{t}][{r},{b}]")
    return " ".join(parts)


def _walk(root: etree._Element, source: str) -> list[UIElement]:
    """One iterative pre-order pass over every `<node>` (no XPath), then one construction pass."""
    order: list[tuple[etree._Element, int | None, int]] = []
    kids: list[list[int]] = []
    stack: list[tuple[etree._Element, int | None, int]] = [(c, None, 0) for c in reversed(root) if c.tag == "node"]
    while stack:
        node, parent, depth = stack.pop()
        idx = len(order)
        order.append((node, parent, depth))
        kids.append([])
        if parent is not None:
            kids[parent].append(idx)
        stack.extend((c, idx, depth + 1) for c in reversed(node) if c.tag == "node")
    return [_element(node, i, parent, depth, tuple(kids[i]), source) for i, (node, parent, depth) in enumerate(order)]


def _element(
    node: etree._Element, idx: int, parent: int | None, depth: int, children: tuple[int, ...], source: str
) -> UIElement:
    a = node.attrib
    raw = a.get("bounds")
    if raw is None:
        raise HierarchyError(f"{source}: line {node.sourceline}: node {idx} has no 'bounds' attribute")
    m = _BOUNDS_RE.match(raw)
    if not m:
        raise HierarchyError(
            f"{source}: line {node.sourceline}: attribute bounds={raw!r} of node {idx} is not "
            f"'[left,top][right,bottom]'"
        )
    order = a.get("drawing-order")
    get = a.get
    ck, cd, cl, lc, en, fa, fo, sc, se, pw, vu = [_bool(get(attr), default) for attr, _, default in _BOOL_FIELDS]
    return UIElement(  # by position, in the fields' order (`_BOOL_FIELDS` is theirs: checked at import)
        idx,
        (int(m[1]), int(m[2]), int(m[3]), int(m[4])),
        get("text", ""),
        get("content-desc", ""),
        get("resource-id", ""),
        get("class", ""),
        get("package", ""),
        get("hint", ""),
        ck,
        cd,
        cl,
        lc,
        en,
        fa,
        fo,
        sc,
        se,
        pw,
        vu,
        depth,
        parent,
        children,
        int(order) if order is not None and order.strip().lstrip("-").isdigit() else None,
    )
