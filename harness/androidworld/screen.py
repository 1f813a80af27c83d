"""A screen as AndroidWorld reads it: the accessibility forest android_env's a11y forwarder delivers (one window of
`AndroidAccessibilityNodeInfo`s, android_env's own protos), made from the harness's view hierarchy, and the pixels
as an RGB array. AndroidWorld's own converter (`representation_utils.forest_to_ui_elements`, invisible elements
left out, as its controller calls it) turns the forest into the `ui_elements` its judges read."""

from __future__ import annotations

from typing import TYPE_CHECKING

from harness.hierarchy import UITree

if TYPE_CHECKING:
    from android_env.proto.a11y import android_accessibility_forest_pb2

EDITABLE_CLASSES = ("EditText", "AutoCompleteTextView", "MultiAutoCompleteTextView", "SearchAutoComplete")


def forest_of(
    tree: UITree, size: tuple[int, int], package: str = ""
) -> android_accessibility_forest_pb2.AndroidAccessibilityForest:
    """The forest of one application window holding every element of `tree` (ids = the tree's indices, children
    in order, bounds in screen pixels); `size` is the window's (the screen's) and `package` its app."""
    from android_env.proto.a11y import android_accessibility_forest_pb2 as forest_pb2
    from android_env.proto.a11y import android_accessibility_window_info_pb2 as window_pb2

    forest = forest_pb2.AndroidAccessibilityForest()
    window = forest.windows.add()
    window.id = 0
    window.display_id = 0
    window.window_type = window_pb2.AndroidAccessibilityWindowInfo.WindowType.TYPE_APPLICATION
    window.is_active = window.is_focused = True
    window.title = package
    window.bounds_in_screen.right, window.bounds_in_screen.bottom = size
    for e in tree:
        node = window.tree.nodes.add()
        node.unique_id = e.index
        l, t, r, b = e.bounds
        node.bounds_in_screen.left, node.bounds_in_screen.top = l, t
        node.bounds_in_screen.right, node.bounds_in_screen.bottom = r, b
        node.class_name = e.class_name
        node.content_description = e.content_desc
        node.hint_text = e.hint
        node.package_name = e.package
        node.text = e.text
        node.view_id_resource_name = e.resource_id
        node.window_id = 0
        node.is_checkable, node.is_checked = e.checkable, e.checked
        node.is_clickable, node.is_long_clickable = e.clickable, e.long_clickable
        node.is_editable = e.class_name.rsplit(".", 1)[-1] in EDITABLE_CLASSES
        node.is_enabled = e.enabled
        node.is_focusable, node.is_focused = e.focusable, e.focused
        node.is_password = e.password
        node.is_scrollable, node.is_selected = e.scrollable, e.selected
        node.is_visible_to_user = e.visible_to_user and e.area > 0
        node.depth = e.depth
        if e.drawing_order is not None:
            node.drawing_order = e.drawing_order
        node.child_ids.extend(e.children)
    return forest


__all__ = ["forest_of"]
