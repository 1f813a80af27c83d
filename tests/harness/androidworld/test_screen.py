"""The accessibility forest made of a screen's hierarchy, in android_env's own protos, as its a11y forwarder
delivers one: every element a node with its bounds, texts, flags and children; invisible or empty ones marked."""

from __future__ import annotations

import pytest

pytest.importorskip("android_env.proto.a11y.android_accessibility_forest_pb2")

from harness.androidworld.screen import forest_of  # noqa: E402
from harness.hierarchy import UITree  # noqa: E402

XML = """<?xml version='1.0' encoding='UTF-8' standalone='yes' ?>
<hierarchy rotation="0">
  <node index="0" text="" resource-id="" class="android.widget.FrameLayout" package="com.google.android.deskclock"
        content-desc="" checkable="false" checked="false" clickable="false" enabled="true" focusable="false"
        focused="false" scrollable="false" long-clickable="false" password="false" selected="false"
        bounds="[0,0][1080,2400]">
    <node index="0" text="" resource-id="com.google.android.deskclock:id/fab" class="android.widget.ImageButton"
          package="com.google.android.deskclock" content-desc="Start" checkable="false" checked="false"
          clickable="true" enabled="true" focusable="true" focused="false" scrollable="false" long-clickable="false"
          password="false" selected="false" bounds="[465,1900][615,2050]" />
    <node index="1" text="Stopwatch" resource-id="" class="android.widget.EditText"
          package="com.google.android.deskclock" content-desc="" checkable="false" checked="false" clickable="false"
          enabled="true" focusable="false" focused="true" scrollable="false" long-clickable="false" password="false"
          selected="true" bounds="[0,0][0,0]" />
  </node>
</hierarchy>"""


def test_every_element_is_a_node_with_its_fields():
    forest = forest_of(UITree.from_xml(XML), (1080, 2400), "com.google.android.deskclock")
    [window] = forest.windows
    assert window.bounds_in_screen.right == 1080 and window.title == "com.google.android.deskclock"
    root, fab, label = window.tree.nodes
    assert list(root.child_ids) == [1, 2] and not fab.child_ids
    assert fab.content_description == "Start" and fab.class_name == "android.widget.ImageButton"
    assert fab.view_id_resource_name == "com.google.android.deskclock:id/fab" and fab.is_clickable
    assert (fab.bounds_in_screen.left, fab.bounds_in_screen.bottom) == (465, 2050) and fab.is_visible_to_user
    assert label.text == "Stopwatch" and label.is_editable and label.is_focused and label.is_selected
    assert not label.is_visible_to_user  # no area on screen: AndroidWorld leaves it out
