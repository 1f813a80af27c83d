"""UiAutomator's UiObject and UiScrollable methods of the uiautomator2 server: whether a selector matches
(exist, waits, count), object info, named UiObjects and their children (`childByText` & co.), and scrolling and
flinging a scrollable container. Mixed into `rpc.RpcService`, which gives the screen and the gestures."""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from .base import INVALID_PARAMS, STEP_MS, UI_OBJECT_NOT_FOUND, RpcError, integer, not_found, rpc
from .selector import Node, describe, find, find_all, obj_info, subtree_signature, with_chain, with_instance

SCROLL_STEPS = 55  # UiScrollable's default scroll steps
FLING_STEPS = 5
MAX_SEARCH_SWIPES = 30  # UiScrollable.mMaxSearchSwipes
SWIPE_DEAD_ZONE = 0.1  # UiScrollable.DEFAULT_SWIPE_DEADZONE_PERCENT


class UiObjectMethods:
    """The selector and scrolling RPC methods; needs `RpcService`'s screen, selector and gesture helpers."""

    if TYPE_CHECKING:  # provided by RpcService
        _lock: threading.Lock
        _objects: OrderedDict[str, dict[str, Any]]

        def _nodes(self) -> list[Node]: ...

        def _selector(self, obj: Any) -> dict[str, Any]: ...

        def _find(self, obj: Any) -> Node | None: ...

        def _must(self, obj: Any) -> Node: ...

        def _wait(self, pred: Callable[[], bool], timeout_ms: Any) -> bool: ...

        def _name(self, sel: dict[str, Any]) -> str: ...

        def _swipe(self, x1: float, y1: float, x2: float, y2: float, ms: int) -> None: ...

    # --- selectors -----------------------------------------------------------------------------------
    @rpc()
    def exist(self, obj: Any) -> bool:
        try:
            return self._find(obj) is not None
        except RpcError as e:
            if e.code == UI_OBJECT_NOT_FOUND:  # an unknown UiObject name does not exist
                return False
            raise

    @rpc()
    def waitForExists(self, obj: Any, timeout: Any = 0) -> bool:
        sel = self._selector(obj)
        return self._wait(lambda: find(self._nodes(), sel) is not None, timeout)

    @rpc()
    def waitUntilGone(self, obj: Any, timeout: Any = 0) -> bool:
        sel = self._selector(obj)
        return self._wait(lambda: find(self._nodes(), sel) is None, timeout)

    @rpc()
    def count(self, obj: Any) -> int:
        return len(find_all(self._nodes(), self._selector(obj)))

    @rpc()
    def objInfo(self, obj: Any) -> dict[str, Any]:
        return obj_info(self._must(obj))

    @rpc()
    def objInfoOfAllInstances(self, obj: Any) -> list[dict[str, Any]]:
        return [obj_info(n) for n in find_all(self._nodes(), self._selector(obj))]

    @rpc()
    def finds(self, obj: Any) -> list[dict[str, Any]]:
        return self.objInfoOfAllInstances(obj)

    @rpc()
    def getUiObject(self, obj: Any) -> str:
        return self._name(self._selector(obj))

    @rpc()
    def removeUiObject(self, name: Any) -> None:
        with self._lock:
            self._objects.pop(str(name), None)

    @rpc()
    def getUiObjects(self) -> list[str]:
        with self._lock:
            return list(self._objects)

    @rpc()
    def getChild(self, name: Any, sub: Any) -> str | None:
        with self._lock:
            sel = self._objects.get(str(name))
        if sel is None or not isinstance(sub, dict):
            return None
        return self._name(with_chain(sel, "child", sub))

    @rpc()
    def getFromParent(self, name: Any, sub: Any) -> str | None:
        with self._lock:
            sel = self._objects.get(str(name))
        if sel is None or not isinstance(sub, dict):
            return None
        return self._name(with_chain(sel, "sibling", sub))

    def _child_by(self, collection: Any, child: Any, field: str, value: str, allow_scroll: Any) -> str:
        coll = self._selector(collection)
        if not isinstance(child, dict):
            raise RpcError(INVALID_PARAMS, "Invalid method parameters: child pattern must be a selector")
        rows_sel = with_chain(coll, "child", child)

        def attempt() -> int | None:
            nodes = self._nodes()
            for i, row in enumerate(find_all(nodes, rows_sel)):
                if any(getattr(n.view, field) == value for n in nodes[row.pos : row.end]):
                    return i
            return None

        found = attempt()
        if found is None:
            container = find(self._nodes(), coll)
            scroll = bool(allow_scroll) if allow_scroll is not None else bool(container and container.view.scrollable)
            if container is not None and scroll:  # UiScrollable: scroll the collection until the item shows
                self._scroll_until(coll, True, lambda: attempt() is not None)
                found = attempt()
        if found is None:
            attr = "text" if field == "text" else "description"
            raise not_found(f'for {attr}= "{value}"')
        return self._name(with_chain(coll, "child", with_instance(child, found)))

    @rpc()
    def childByText(self, collection: Any, child: Any, text: Any, allow_scroll: Any = None) -> str:
        return self._child_by(collection, child, "text", str(text), allow_scroll)

    @rpc()
    def childByDescription(self, collection: Any, child: Any, text: Any, allow_scroll: Any = None) -> str:
        return self._child_by(collection, child, "desc", str(text), allow_scroll)

    @rpc()
    def childByInstance(self, collection: Any, child: Any, instance: Any) -> str:
        coll = self._selector(collection)
        if not isinstance(child, dict):
            raise RpcError(INVALID_PARAMS, "Invalid method parameters: child pattern must be a selector")
        return self._name(with_chain(coll, "child", with_instance(child, integer(instance, "instance"))))

    # --- scrolling -----------------------------------------------------------------------------------
    def _scroll(self, obj: Any, vertical: Any, forward: bool, steps: Any) -> bool:
        """One UiScrollable scroll: a swipe inside the container's bounds minus a 10% dead zone.
        True if the content moved (False at the end, as the real one reports)."""
        sel = self._selector(obj)
        nodes = self._nodes()
        node = find(nodes, sel)
        if node is None:
            raise not_found(describe(sel))
        before = subtree_signature(nodes, node)
        l, t, r, b = node.visible
        if vertical:
            x = (l + r) // 2
            near, far = t + int((b - t) * SWIPE_DEAD_ZONE), b - int((b - t) * SWIPE_DEAD_ZONE)
            path = (x, far, x, near) if forward else (x, near, x, far)
        else:
            y = (t + b) // 2
            near, far = l + int((r - l) * SWIPE_DEAD_ZONE), r - int((r - l) * SWIPE_DEAD_ZONE)
            path = (far, y, near, y) if forward else (near, y, far, y)
        self._swipe(*path, max(1, integer(steps, "steps")) * STEP_MS)
        nodes = self._nodes()
        after = find(nodes, sel)
        return after is None or subtree_signature(nodes, after) != before

    def _scroll_until(
        self,
        sel: dict[str, Any],
        vertical: Any,
        done: Callable[[], bool],
        max_swipes: int = MAX_SEARCH_SWIPES,
        steps: int = SCROLL_STEPS,
    ) -> bool:
        """UiScrollable.scrollIntoView: look, go to the beginning, then forward one page at a time."""
        if done():
            return True
        for _ in range(max_swipes):
            if not self._scroll(sel, vertical, False, steps):
                break
        if done():
            return True
        for _ in range(max_swipes):
            moved = self._scroll(sel, vertical, True, steps)
            if done():
                return True
            if not moved:
                return False
        return False

    @rpc()
    def scrollForward(self, obj: Any, vertical: Any = True, steps: Any = SCROLL_STEPS) -> bool:
        return self._scroll(obj, vertical, True, steps)

    @rpc()
    def scrollBackward(self, obj: Any, vertical: Any = True, steps: Any = SCROLL_STEPS) -> bool:
        return self._scroll(obj, vertical, False, steps)

    def _scroll_to_edge(self, obj: Any, vertical: Any, forward: bool, max_swipes: Any, steps: Any) -> bool:
        for _ in range(max(0, integer(max_swipes, "maxSwipes"))):
            if not self._scroll(obj, vertical, forward, steps):
                break
        return True

    @rpc()
    def scrollToBeginning(
        self, obj: Any, vertical: Any = True, max_swipes: Any = 500, steps: Any = SCROLL_STEPS
    ) -> bool:
        return self._scroll_to_edge(obj, vertical, False, max_swipes, steps)

    @rpc()
    def scrollToEnd(self, obj: Any, vertical: Any = True, max_swipes: Any = 500, steps: Any = SCROLL_STEPS) -> bool:
        return self._scroll_to_edge(obj, vertical, True, max_swipes, steps)

    @rpc()
    def scrollTo(self, obj: Any, target: Any, vertical: Any = True) -> bool:
        sel = self._selector(obj)
        if not isinstance(target, dict):
            raise RpcError(INVALID_PARAMS, "Invalid method parameters: scrollTo target must be a selector")
        if find(self._nodes(), sel) is None:
            raise not_found(describe(sel))
        inside = with_chain(sel, "child", target)
        return self._scroll_until(sel, vertical, lambda: find(self._nodes(), inside) is not None)

    @rpc()
    def flingForward(self, obj: Any, vertical: Any = True) -> bool:
        return self._scroll(obj, vertical, True, FLING_STEPS)

    @rpc()
    def flingBackward(self, obj: Any, vertical: Any = True) -> bool:
        return self._scroll(obj, vertical, False, FLING_STEPS)

    @rpc()
    def flingToBeginning(self, obj: Any, vertical: Any = True, max_swipes: Any = 500) -> bool:
        return self._scroll_to_edge(obj, vertical, False, max_swipes, FLING_STEPS)

    @rpc()
    def flingToEnd(self, obj: Any, vertical: Any = True, max_swipes: Any = 500) -> bool:
        return self._scroll_to_edge(obj, vertical, True, max_swipes, FLING_STEPS)
