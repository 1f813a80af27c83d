"""UiSelector semantics on the model's view tree, as the uiautomator2 server applies them to the JSON selector
the Python client sends (`uiautomator2._selector.Selector`: a dict of criteria, a `mask` of the criteria that
are set, and parallel lists `childOrSibling` ("child" | "sibling") / `childOrSiblingSelector`).

- Nodes are searched over every window root, depth-first pre-order: the order of the hierarchy XML.
- `index` is a node's position among its parent's children (a window root's position among the roots).
- `instance` is the n-th match (0-based) in document order among everything the selector matches.
- `*Matches` criteria are Java `String.matches`: the whole string must match (`re.fullmatch`).
- `child(sub)`: `sub` searched in the descendants of every match; `sibling(sub)` (UiSelector.fromParent):
  in the subtree of every match's parent. A sub-selector's `instance` counts across all those scopes.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from ..ui.view import Bounds, View

# mask bits of uiautomator2's Selector (the same as the server's Selector.MASK_*)
FIELDS: dict[str, int] = {
    "text": 0x01,
    "textContains": 0x02,
    "textMatches": 0x04,
    "textStartsWith": 0x08,
    "className": 0x10,
    "classNameMatches": 0x20,
    "description": 0x40,
    "descriptionContains": 0x80,
    "descriptionMatches": 0x0100,
    "descriptionStartsWith": 0x0200,
    "checkable": 0x0400,
    "checked": 0x0800,
    "clickable": 0x1000,
    "longClickable": 0x2000,
    "scrollable": 0x4000,
    "enabled": 0x8000,
    "focusable": 0x010000,
    "focused": 0x020000,
    "selected": 0x040000,
    "packageName": 0x080000,
    "packageNameMatches": 0x100000,
    "resourceId": 0x200000,
    "resourceIdMatches": 0x400000,
    "index": 0x800000,
    "instance": 0x01000000,
}

_BOOL_FIELDS = {
    "checkable": "checkable",
    "checked": "checked",
    "clickable": "clickable",
    "longClickable": "long_clickable",
    "scrollable": "scrollable",
    "enabled": "enabled",
    "focusable": "focusable",
    "focused": "focused",
    "selected": "selected",
}

# how java's UiSelector.toString names each criterion
_JAVA_NAMES = {
    "text": "TEXT",
    "textContains": "CONTAINS_TEXT",
    "textMatches": "PATTERN_TEXT",
    "textStartsWith": "START_TEXT",
    "className": "CLASS",
    "classNameMatches": "CLASS_REGEX",
    "description": "DESCRIPTION",
    "descriptionContains": "CONTAINS_DESCRIPTION",
    "descriptionMatches": "DESCRIPTION_REGEX",
    "descriptionStartsWith": "START_DESCRIPTION",
    "checkable": "CHECKABLE",
    "checked": "CHECKED",
    "clickable": "CLICKABLE",
    "longClickable": "LONG_CLICKABLE",
    "scrollable": "SCROLLABLE",
    "enabled": "ENABLED",
    "focusable": "FOCUSABLE",
    "focused": "FOCUSED",
    "selected": "SELECTED",
    "packageName": "PACKAGE_NAME",
    "packageNameMatches": "PACKAGE_NAME_REGEX",
    "resourceId": "RESOURCE_ID",
    "resourceIdMatches": "RESOURCE_ID_REGEX",
    "index": "INDEX",
    "instance": "INSTANCE",
}


class SelectorError(ValueError):
    """The selector itself is invalid (bad regex, wrong types): reported as a Java exception, not 'not found'."""

    def __init__(self, java_class: str, message: str) -> None:
        super().__init__(message)
        self.java_class = java_class


@dataclass(eq=False)
class Node:
    """One view in the flattened tree, with what matching needs to know about its place."""

    view: View
    parent: Node | None
    index: int  # position among the parent's children
    pos: int  # position in document order
    end: int  # pos of the first node after this subtree
    visible: Bounds  # bounds clipped to the ancestors and the display


def _intersect(a: Bounds, b: Bounds) -> Bounds:
    l, t = max(a[0], b[0]), max(a[1], b[1])
    r, btm = min(a[2], b[2]), min(a[3], b[3])
    if r < l:
        r = l
    if btm < t:
        btm = t
    return (l, t, r, btm)


def flatten(roots: list[View], display: tuple[int, int]) -> list[Node]:
    """Every view of every window, in document (XML) order."""
    out: list[Node] = []
    screen: Bounds = (0, 0, display[0], display[1])

    def visit(v: View, parent: Node | None, index: int, clip: Bounds) -> None:
        node = Node(v, parent, index, len(out), 0, _intersect(v.bounds, clip))
        out.append(node)
        for i, c in enumerate(v.children):
            visit(c, node, i, node.visible)
        node.end = len(out)

    for i, r in enumerate(roots):
        visit(r, None, i, screen)
    return out


@lru_cache(maxsize=256)
def _regex(pattern: str) -> re.Pattern[str]:
    try:
        return re.compile(pattern)
    except re.error as e:
        raise SelectorError("java.util.regex.PatternSyntaxException", f"{e} near index {e.pos}\n{pattern}") from None


def _str(v: Any, name: str) -> str:
    if not isinstance(v, str):
        raise SelectorError("java.lang.IllegalArgumentException", f"{name} must be a string, got {v!r}")
    return v


def _criteria(sel: dict[str, Any]) -> list[tuple[str, Any]]:
    """The criteria that are set: keys whose bit is in `mask` (or, without a mask, every known key present)."""
    mask = sel.get("mask")
    out = []
    for name, bit in FIELDS.items():
        if name not in sel or sel[name] is None:
            continue
        if isinstance(mask, int) and not (mask & bit):
            continue
        out.append((name, sel[name]))
    return out


def matches(node: Node, sel: dict[str, Any]) -> bool:
    """Whether `node` meets every criterion of `sel` except `instance` and the child/sibling chain."""
    v = node.view
    for name, want in _criteria(sel):
        if name == "instance":
            continue
        if name in _BOOL_FIELDS:
            if bool(getattr(v, _BOOL_FIELDS[name])) != bool(want):
                return False
            continue
        if name == "index":
            if not isinstance(want, int) or node.index != want:
                return False
            continue
        base, op = _split(name)
        have = {
            "text": v.text,
            "className": v.cls,
            "description": v.desc,
            "packageName": v.package,
            "resourceId": v.resource_id,
        }[base]
        have = have or ""
        want_s = _str(want, name)
        if op == "":
            ok = have == want_s
        elif op == "Contains":
            ok = want_s in have
        elif op == "StartsWith":
            ok = have.startswith(want_s)
        else:  # Matches
            ok = _regex(want_s).fullmatch(have) is not None
        if not ok:
            return False
    return True


def _split(name: str) -> tuple[str, str]:
    """`textStartsWith` -> ("text", "StartsWith")."""
    for op in ("Contains", "StartsWith", "Matches"):
        if name.endswith(op):
            return name[: -len(op)], op
    return name, ""


def chain(sel: dict[str, Any]) -> list[tuple[str, dict[str, Any]]]:
    kinds = sel.get("childOrSibling") or []
    subs = sel.get("childOrSiblingSelector") or []
    if not isinstance(kinds, list) or not isinstance(subs, list):
        raise SelectorError("java.lang.IllegalArgumentException", "childOrSibling must be lists")
    out = []
    for kind, sub in zip(kinds, subs, strict=False):
        if kind not in ("child", "sibling") or not isinstance(sub, dict):
            raise SelectorError("java.lang.IllegalArgumentException", f"bad childOrSibling entry {kind!r}")
        out.append((kind, sub))
    return out


def _instance(sel: dict[str, Any]) -> int | None:
    for name, want in _criteria(sel):
        if name == "instance":
            if not isinstance(want, int) or isinstance(want, bool):
                raise SelectorError("java.lang.IllegalArgumentException", f"instance must be an int, got {want!r}")
            return want
    return None


def _select(nodes: list[Node], scope: Iterable[Node], sel: dict[str, Any]) -> list[Node]:
    if not isinstance(sel, dict):
        raise SelectorError("java.lang.IllegalArgumentException", f"selector must be an object, got {sel!r}")
    found = [n for n in scope if matches(n, sel)]
    inst = _instance(sel)
    if inst is not None:
        found = [found[inst]] if 0 <= inst < len(found) else []
    for kind, sub in chain(sel):
        positions: set[int] = set()
        for n in found:
            if kind == "child":
                positions.update(range(n.pos + 1, n.end))
            elif n.parent is not None:
                positions.update(range(n.parent.pos + 1, n.parent.end))
            else:  # a window root has no parent: its "siblings" are the other windows
                positions.update(range(len(nodes)))
        found = _select(nodes, (nodes[p] for p in sorted(positions)), sub)
    return found


def find_all(nodes: list[Node], sel: dict[str, Any]) -> list[Node]:
    """Every node the selector (with its chain) designates, in document order."""
    return _select(nodes, nodes, sel)


def find(nodes: list[Node], sel: dict[str, Any]) -> Node | None:
    found = find_all(nodes, sel)
    return found[0] if found else None


def with_chain(sel: dict[str, Any], kind: str, sub: dict[str, Any]) -> dict[str, Any]:
    """A copy of `sel` with one more child/sibling step (what UiSelector.childSelector/fromParent build)."""
    out = dict(sel)
    out["childOrSibling"] = list(sel.get("childOrSibling") or []) + [kind]
    out["childOrSiblingSelector"] = list(sel.get("childOrSiblingSelector") or []) + [sub]
    return out


def with_instance(sel: dict[str, Any], instance: int) -> dict[str, Any]:
    out = dict(sel)
    out["instance"] = instance
    out["mask"] = int(sel.get("mask") or 0) | FIELDS["instance"]
    return out


def describe(sel: Any) -> str:
    """Java's UiSelector.toString, e.g. `UiSelector[TEXT=OK, CLASS=android.widget.Button]`."""
    if not isinstance(sel, dict):
        return f"UiSelector[{sel}]"
    parts = []
    for name, want in _criteria(sel):
        if isinstance(want, bool):
            want = "true" if want else "false"
        parts.append(f"{_JAVA_NAMES[name]}={want}")
    for kind, sub in chain_lenient(sel):
        parts.append(("CHILD=" if kind == "child" else "PARENT=") + describe(sub))
    return "UiSelector[" + ", ".join(parts) + "]"


def chain_lenient(sel: dict[str, Any]) -> list[tuple[str, Any]]:
    try:
        return chain(sel)
    except SelectorError:
        return []


def bounds_dict(b: Bounds) -> dict[str, int]:
    return {"left": int(b[0]), "top": int(b[1]), "right": int(b[2]), "bottom": int(b[3])}


def obj_info(node: Node) -> dict[str, Any]:
    """The server's ObjInfo for one node."""
    v = node.view
    return {
        "bounds": bounds_dict(v.bounds),
        "checkable": v.checkable,
        "checked": v.checked,
        "childCount": len(v.children),
        "className": v.cls,
        "clickable": v.clickable,
        "contentDescription": v.desc,
        "enabled": v.enabled,
        "focusable": v.focusable,
        "focused": v.focused,
        "longClickable": v.long_clickable,
        "packageName": v.package,
        "resourceName": v.resource_id or None,
        "scrollable": v.scrollable,
        "selected": v.selected,
        "text": v.text,
        "visibleBounds": bounds_dict(node.visible),
    }


def subtree_signature(nodes: list[Node], node: Node) -> tuple:
    """What a scroll changes: texts and positions of everything inside `node` (to tell if a scroll moved)."""
    return tuple(
        (n.view.text, n.view.desc, n.view.resource_id, tuple(n.view.bounds)) for n in nodes[node.pos + 1 : node.end]
    )
