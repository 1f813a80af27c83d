"""harness.hierarchy: uiautomator XML from the virtual device and a real-phone-style dump, and hostile input."""

from __future__ import annotations

import pytest

from emulator.virtual.model import VirtualDeviceModel
from harness.errors import HarnessError, HierarchyError
from harness.hierarchy import VOLATILE_PACKAGES, UIElement, UITree, format_element

# An Android 9-style `uiautomator dump`: no drawing-order / hint / visible-to-user attributes, one line per
# node, three window roots (app, status bar, keyboard), an escaped newline and entities in text.
REAL_DUMP = """<?xml version='1.0' encoding='UTF-8' standalone='yes' ?>
<hierarchy rotation="0">
<node index="0" text="" resource-id="" class="android.widget.FrameLayout" package="com.example.notes" content-desc="" checkable="false" checked="false" clickable="false" enabled="true" focusable="false" focused="false" scrollable="false" long-clickable="false" password="false" selected="false" bounds="[0,0][1080,2400]">
<node index="0" text="" resource-id="com.example.notes:id/toolbar" class="android.view.ViewGroup" package="com.example.notes" content-desc="" checkable="false" checked="false" clickable="false" enabled="true" focusable="false" focused="false" scrollable="false" long-clickable="false" password="false" selected="false" bounds="[0,63][1080,210]">
<node index="0" text="" resource-id="" class="android.widget.ImageButton" package="com.example.notes" content-desc="Navigate up" checkable="false" checked="false" clickable="true" enabled="true" focusable="true" focused="false" scrollable="false" long-clickable="false" password="false" selected="false" bounds="[0,74][126,200]" />
<node index="1" text="Edit note" resource-id="" class="android.widget.TextView" package="com.example.notes" content-desc="" checkable="false" checked="false" clickable="false" enabled="true" focusable="false" focused="false" scrollable="false" long-clickable="false" password="false" selected="false" bounds="[180,105][450,168]" />
<node index="2" text="Save" resource-id="com.example.notes:id/save" class="android.widget.Button" package="com.example.notes" content-desc="" checkable="false" checked="false" clickable="true" enabled="true" focusable="true" focused="false" scrollable="false" long-clickable="false" password="false" selected="false" bounds="[870,84][1059,189]" />
</node>
<node index="1" text="Search" resource-id="com.example.notes:id/search" class="android.widget.EditText" package="com.example.notes" content-desc="" checkable="false" checked="false" clickable="true" enabled="true" focusable="true" focused="true" scrollable="false" long-clickable="true" password="false" selected="false" bounds="[42,231][1038,357]" />
<node index="2" text="" resource-id="com.example.notes:id/list" class="android.widget.ScrollView" package="com.example.notes" content-desc="" checkable="false" checked="false" clickable="false" enabled="true" focusable="true" focused="false" scrollable="true" long-clickable="false" password="false" selected="false" bounds="[0,378][1080,1500]">
<node index="0" text="Line one&#10;line two &amp; &quot;three&quot;" resource-id="com.example.notes:id/body" class="android.widget.TextView" package="com.example.notes" content-desc="" checkable="false" checked="false" clickable="false" enabled="true" focusable="false" focused="false" scrollable="false" long-clickable="false" password="false" selected="false" bounds="[42,399][700,520]" />
<node index="1" text="Pinned" resource-id="com.example.notes:id/pin" class="android.widget.CheckBox" package="com.example.notes" content-desc="" checkable="true" checked="true" clickable="true" enabled="true" focusable="true" focused="false" scrollable="false" long-clickable="false" password="false" selected="false" bounds="[720,410][1038,510]" />
<node index="2" text="Archive" resource-id="com.example.notes:id/archive" class="android.widget.Button" package="com.example.notes" content-desc="" checkable="false" checked="false" clickable="true" enabled="false" focusable="true" focused="false" scrollable="false" long-clickable="false" password="false" selected="false" bounds="[42,540][500,640]" />
<node index="3" text="Hidden" resource-id="" class="android.widget.TextView" package="com.example.notes" content-desc="" checkable="false" checked="false" clickable="true" enabled="true" focusable="false" focused="false" scrollable="false" long-clickable="false" password="false" selected="false" bounds="[42,660][42,700]" />
</node>
</node>
<node index="0" text="" resource-id="com.android.systemui:id/status_bar" class="android.widget.FrameLayout" package="com.android.systemui" content-desc="" checkable="false" checked="false" clickable="false" enabled="true" focusable="false" focused="false" scrollable="false" long-clickable="false" password="false" selected="false" bounds="[0,0][1080,63]">
<node index="0" text="9:41" resource-id="com.android.systemui:id/clock" class="android.widget.TextView" package="com.android.systemui" content-desc="" checkable="false" checked="false" clickable="false" enabled="true" focusable="false" focused="false" scrollable="false" long-clickable="false" password="false" selected="false" bounds="[42,0][150,63]" />
</node>
<node index="0" text="" resource-id="" class="android.widget.FrameLayout" package="com.google.android.inputmethod.latin" content-desc="" checkable="false" checked="false" clickable="false" enabled="true" focusable="false" focused="false" scrollable="false" long-clickable="false" password="false" selected="false" bounds="[0,1600][1080,2400]">
<node index="0" text="" resource-id="" class="android.widget.FrameLayout" package="com.google.android.inputmethod.latin" content-desc="q" checkable="false" checked="false" clickable="true" enabled="true" focusable="false" focused="false" scrollable="false" long-clickable="true" password="false" selected="false" bounds="[0,1700][108,1850]" />
</node>
</hierarchy>
"""  # noqa: E501 - a verbatim dump: one line per node, as the device writes it


@pytest.fixture(scope="module")
def real() -> UITree:
    return UITree.from_xml(REAL_DUMP, source="pixel4.xml")


@pytest.fixture(scope="module")
def notes_model() -> VirtualDeviceModel:
    m = VirtualDeviceModel(profile="pixel_7_pro", locale="zh")
    m.start_activity("com.droidharness.notes")
    return m


# --- the virtual device's dumps ----------------------------------------------------------------------------
@pytest.mark.parametrize("u2", [False, True])
def test_virtual_device_dump_matches_its_views(notes_model, u2):
    tree = UITree.from_xml(notes_model.hierarchy_xml(u2=u2), source="notes.xml")
    views = [v for root in notes_model.view_roots() for v in root.walk()]
    assert len(tree) == len(views) > 10
    assert len(tree.roots) == len(notes_model.view_roots())
    for el, v in zip(tree, views, strict=True):
        assert el.bounds == v.bounds
        assert (el.text, el.content_desc, el.resource_id, el.class_name, el.package, el.hint) == (
            v.text,
            v.desc,
            v.resource_id,
            v.cls,
            v.package,
            v.hint,
        )
        assert (
            el.clickable,
            el.long_clickable,
            el.checkable,
            el.checked,
            el.enabled,
            el.focusable,
            el.focused,
            el.scrollable,
            el.selected,
            el.password,
        ) == (
            v.clickable,
            v.long_clickable,
            v.checkable,
            v.checked,
            v.enabled,
            v.focusable,
            v.focused,
            v.scrollable,
            v.selected,
            v.password,
        )
        assert el.center == v.center
        assert el.visible_to_user
    assert tree.rotation == 0


def test_virtual_device_structure_and_chinese_text(notes_model):
    tree = UITree.from_xml(notes_model.hierarchy_xml(), source="notes.xml")
    views = [v for root in notes_model.view_roots() for v in root.walk()]
    # parent / children / depth agree with the view tree
    for el in tree:
        kids = [tree[c] for c in el.children]
        assert all(k.parent == el.index and k.depth == el.depth + 1 for k in kids)
        assert [views[c] for c in el.children] == views[el.index].children
    (title,) = tree.find(text="购物清单")
    assert title.resource_name == "note_title" and title.short_class == "TextView"
    preview = tree.find(text_contains="sunflower42")[0]
    assert "\n" in preview.text  # &#10; in the dump
    search = tree.find(content_desc="搜索")[0]
    assert search.is_interactable and search.label == "搜索"
    assert tree.at(*title.center).index == title.index
    card = tree.at(*title.center, prefer_clickable=True)
    assert card.resource_name == "note_card" and title.index in card.children


def test_virtual_device_rotation_attribute():
    m = VirtualDeviceModel(profile="pixel_7_pro", locale="en")
    m.start_activity("com.droidharness.notes")
    m.set_rotation(1)
    tree = UITree.from_xml(m.hierarchy_xml())
    assert tree.rotation == 1


def test_signature_ignores_the_status_bar_but_not_content(notes_model):
    xml = notes_model.hierarchy_xml()
    base = UITree.from_xml(xml)
    clock_changed = UITree.from_xml(xml.replace('text="12:00"', 'text="12:01"').replace("百分之 100", "百分之 99"))
    assert clock_changed.signature() == base.signature()
    assert clock_changed.signature(ignore_packages=()) != base.signature(ignore_packages=())
    content_changed = UITree.from_xml(xml.replace("购物清单", "购物清单!"))
    assert content_changed.signature() != base.signature()
    assert UITree.from_xml(xml).signature() == base.signature()
    d = base.diff(content_changed)
    assert (d.added, d.removed) == (1, 1) and not d.unchanged
    assert base.diff(UITree.from_xml(xml)).unchanged


# --- a real-phone-style dump -------------------------------------------------------------------------------
def test_real_dump_fields(real):
    assert len(real) == 15 and real.roots == (0, 11, 13) and real.rotation == 0
    save = real.find(resource_id="save")[0]
    assert save is real.find(resource_id="com.example.notes:id/save")[0]
    assert (save.index, save.text, save.short_class, save.bounds) == (4, "Save", "Button", (870, 84, 1059, 189))
    assert save.center == (964, 136) and save.width == 189 and save.height == 105 and save.area == 189 * 105
    assert save.parent == 1 and save.depth == 2 and real[1].children == (2, 3, 4)
    body = real.find(resource_id="body")[0]
    assert body.text == 'Line one\nline two & "three"'
    # attributes older dumps lack get their defaults
    assert all(e.visible_to_user and e.hint == "" and e.drawing_order is None for e in real)
    assert real[2].label == "Navigate up" and real[1].label == "toolbar"


def test_states_and_find(real):
    assert [e.text for e in real.find(checked=True)] == ["Pinned"]
    assert [e.text for e in real.find(class_name="Button", enabled=False)] == ["Archive"]
    assert [e.text for e in real.find(class_name="android.widget.EditText", focused=True)] == ["Search"]
    assert real.find(text="save") == []  # exact and case-sensitive
    assert len(real.find(package="com.android.systemui")) == 2
    with pytest.raises(TypeError, match="unknown state"):
        real.find(shiny=True)


def test_visibility_and_interactability(real):
    hidden = real.find(text="Hidden")[0]
    assert hidden.area == 0 and not hidden.is_visible
    archive = real.find(text="Archive")[0]
    assert archive.is_visible and not archive.is_interactable  # disabled
    labels = [e.label for e in real.interactable()]
    assert labels == ["Navigate up", "Save", "Search", "list", "Pinned", "q"]
    assert "q" not in [e.label for e in real.interactable(exclude_packages=["com.google.android.inputmethod.latin"])]
    assert hidden not in real.visible()


def test_reading_order_rows(real):
    clickable = [e for e in real.find(package="com.example.notes", clickable=True) if e.is_visible]
    order = [e.label for e in real.reading_order(clickable)]
    # Navigate up and Save share the toolbar row; Search below; the list's row: Pinned; then Archive
    assert order == ["Navigate up", "Save", "Search", "Pinned", "Archive"]
    texts = [e.label for e in real.reading_order([real.find(text="Pinned")[0], real.find(resource_id="body")[0]])]
    assert texts == [real.find(resource_id="body")[0].text, "Pinned"]  # same row: left to right


def test_reading_order_does_not_let_a_container_swallow_rows():
    items = [
        UIElement(0, (0, 0, 1000, 1000)),
        UIElement(1, (500, 10, 600, 100)),
        UIElement(2, (10, 20, 100, 90)),
        UIElement(3, (10, 500, 100, 600)),
    ]
    tree = UITree(items)
    assert [e.index for e in tree.reading_order()] == [0, 2, 1, 3]


def test_at(real):
    assert real.at(900, 100).text == "Save"
    assert real.at(100, 450).resource_name == "body"
    assert real.at(100, 450, prefer_clickable=True).resource_name == "body"  # no clickable ancestor: itself
    assert real.at(50, 1800).content_desc == "q"  # the keyboard window's key, deepest
    assert real.at(5000, 5000) is None
    assert real.at(42, 680).resource_name == "list"  # the zero-width "Hidden" is never hit


def test_to_prompt(real):
    text = real.to_prompt(with_bounds=True)
    lines = text.splitlines()
    assert '[4] Button "Save" (clickable) @[870,84][1059,189]' in lines
    assert '[5] EditText "Search" (clickable, long-clickable, editable, focused) @[42,231][1038,357]' in lines
    assert '[8] CheckBox "Pinned" (clickable, checked) @[720,410][1038,510]' in lines
    assert '[9] Button "Archive" (clickable, disabled) @[42,540][500,640]' in lines
    assert '[7] TextView "Line one\\nline two & \\"three\\"" @[42,399][700,520]' in lines
    assert all(line.startswith("[") and "\n" not in line for line in lines)
    assert "Hidden" not in text
    plain = real.to_prompt()
    assert "@[" not in plain and '[2] ImageButton desc="Navigate up" (clickable)' in plain.splitlines()
    assert "[6] ScrollView id=list (scrollable)" in plain.splitlines()


def test_to_prompt_limits(real):
    full = real.to_prompt()
    short = real.to_prompt(max_len=120)
    assert len(short) <= 120 and short.splitlines()[-1].startswith("... ")
    assert short.splitlines()[:-1] == full.splitlines()[: len(short.splitlines()) - 1]
    assert real.to_prompt(max_len=len(full)) == full
    long = UIElement(0, (0, 0, 10, 10), text="x" * 500, clickable=True)
    assert len(format_element(long, max_text=20)) < 60


def test_to_prompt_hint():
    el = UIElement(
        3,
        (0, 0, 100, 50),
        text="",
        hint="Search notes",
        class_name="android.widget.EditText",
        focused=True,
        enabled=True,
        clickable=True,
    )
    assert format_element(el) == '[3] EditText hint="Search notes" (clickable, editable, focused)'


def test_elements_are_immutable(real):
    with pytest.raises(AttributeError):
        real[0].text = "x"  # type: ignore[misc]
    with pytest.raises(IndexError, match="no element 99"):
        real[99]
    assert isinstance(real.elements, tuple) and list(real) == list(real.elements)


def test_large_dump_parses():
    node = (
        '<node index="0" text="item {i}" resource-id="a:id/t" class="android.widget.TextView" package="a" '
        'content-desc="" clickable="true" enabled="true" bounds="[0,{t}][1080,{b}]" />'
    )
    body = "".join(node.format(i=i, t=i * 10, b=i * 10 + 10) for i in range(2000))
    xml = f'<hierarchy rotation="0"><node bounds="[0,0][1080,20000]" class="x" package="a">{body}</node></hierarchy>'
    tree = UITree.from_xml(xml)
    assert len(tree) == 2001 and tree[2000].text == "item 1999" and len(tree[0].children) == 2000
    assert tree[2000].bounds == (0, 19990, 1080, 20000)
    assert len(tree.to_prompt().splitlines()) == 2000


def test_deep_nesting_does_not_recurse():
    depth = 200
    xml = "<hierarchy>" + '<node bounds="[0,0][10,10]">' * depth + "</node>" * depth + "</hierarchy>"
    tree = UITree.from_xml(xml)
    assert len(tree) == depth and tree[depth - 1].depth == depth - 1


def test_empty_hierarchy_and_bytes_input():
    assert len(UITree.from_xml('<hierarchy rotation="0"/>')) == 0
    tree = UITree.from_xml(REAL_DUMP.encode("utf-8"))
    assert len(tree) == 15
    assert len(UITree.from_xml(b"\xef\xbb\xbf" + REAL_DUMP.encode())) == 15
    assert len(UITree.from_xml(REAL_DUMP.encode("utf-16"))) == 15


# --- malformed and hostile input ---------------------------------------------------------------------------
BILLION_LAUGHS = """<?xml version="1.0"?>
<!DOCTYPE lolz [
 <!ENTITY lol "lol">
 <!ENTITY lol2 "&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;">
 <!ENTITY lol3 "&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;">
]>
<hierarchy rotation="0"><node text="&lol3;" bounds="[0,0][1,1]" /></hierarchy>"""

EXTERNAL_ENTITY = """<?xml version="1.0"?>
<!DOCTYPE hierarchy [<!ENTITY xxe SYSTEM "file:///etc/passwd">]>
<hierarchy rotation="0"><node text="&xxe;" bounds="[0,0][1,1]">&xxe;</node></hierarchy>"""


@pytest.mark.parametrize(
    "xml, expected",
    [
        ("", "dump.xml: empty hierarchy dump"),
        ("   \n", "dump.xml: empty hierarchy dump"),
        ("ERROR: could not get idle state.", "dump.xml: not well-formed XML at line 1"),
        (REAL_DUMP[: len(REAL_DUMP) // 2], "dump.xml: not well-formed XML at line"),
        (
            '<?xml version="1.0"?><root><node bounds="[0,0][1,1]"/></root>',
            "root element is <root>, expected <hierarchy>",
        ),
        ('<hierarchy>\n<node bounds="[0,0][abc]" /></hierarchy>', "dump.xml: line 2: attribute bounds='[0,0][abc]'"),
        ('<hierarchy><node text="x" /></hierarchy>', "has no 'bounds' attribute"),
        ('<hierarchy rotation="5"><node bounds="[0,0][1,1]"/></hierarchy>', "attribute rotation='5'"),
        (BILLION_LAUGHS, "DOCTYPE / ENTITY declarations are not allowed"),
        (BILLION_LAUGHS.encode("utf-16"), "DOCTYPE / ENTITY declarations are not allowed"),
        (BILLION_LAUGHS.replace("DOCTYPE", "doctype"), "DOCTYPE / ENTITY declarations are not allowed"),
        (EXTERNAL_ENTITY, "DOCTYPE / ENTITY declarations are not allowed"),
        ('<hierarchy><node bounds="[0,0][1,1]">&xxe;</node></hierarchy>', "not well-formed XML"),
        (b"\xff\xfe\x00\x00garbage\x80", "dump.xml: "),
        (b"<hierarchy>\xc3\x28</hierarchy>", "not UTF-8 text (byte 11"),
        ('<hierarchy><node bounds="[0,0][1,1]" text="a\x00b"/></hierarchy>', "dump.xml: "),
    ],
)
def test_malformed_input_raises_hierarchy_error(xml, expected):
    with pytest.raises(HierarchyError) as info:
        UITree.from_xml(xml, source="dump.xml")
    assert expected in str(info.value)
    assert str(info.value).startswith("dump.xml: ")
    assert isinstance(info.value, HarnessError)
    assert "lol" * 20 not in str(info.value) and "root:" not in str(info.value)


def test_entities_are_never_resolved_even_past_the_doctype_check():
    """Second layer: the lxml parser itself refuses to fetch external entities."""
    from lxml import etree

    from harness.hierarchy import _parser

    in_content = EXTERNAL_ENTITY.replace('text="&xxe;"', 'text="x"')
    root = etree.fromstring(in_content.encode(), _parser())
    assert "root:" not in etree.tostring(root, encoding="unicode")
    with pytest.raises(etree.XMLSyntaxError, match="external entity"):  # in an attribute: refused
        etree.fromstring(EXTERNAL_ENTITY.encode(), _parser())


def test_negative_and_inverted_bounds_are_accepted_as_invisible():
    xml = (
        '<hierarchy><node bounds="[-100,0][50,50]" text="off" /><node bounds="[50,50][10,10]" text="inv" /></hierarchy>'
    )
    tree = UITree.from_xml(xml)
    assert tree[0].bounds == (-100, 0, 50, 50) and tree[0].is_visible
    assert tree[1].width == 0 and not tree[1].is_visible


def test_volatile_packages_constant():
    assert "com.android.systemui" in VOLATILE_PACKAGES


def test_the_visible_elements_are_found_once_and_each_caller_gets_its_own_list(real):
    tree = real
    first = tree.visible()
    assert first and all(e.is_visible for e in first)
    assert [e.index for e in first] == [e.index for e in tree if e.is_visible]
    first.clear()  # a caller's list is its own
    assert [e.index for e in tree.visible()] == [e.index for e in tree if e.is_visible]
    assert tree.visible() is not tree.visible()
