"""The virtual device's window manager: layout on every profile, input dispatch, keyboard, scrolling, recents."""

from __future__ import annotations

import xml.etree.ElementTree as ET

import pytest

from emulator.virtual.model import LAUNCHER_PACKAGE, VirtualDeviceModel
from emulator.virtual.profiles import PROFILES
from emulator.virtual.ui.keyboard import IME_PACKAGE
from tests.ui_helpers import exists, find, tap, views

NOTES = "com.droidharness.notes"
SHOP = "com.droidharness.shop"
SETTINGS = "com.android.settings"
CLOCK = "com.google.android.deskclock"


def check_frame(m: VirtualDeviceModel) -> None:
    W, H = m.display_size
    for v in views(m):
        l, t, r, b = v.bounds
        assert 0 <= l <= r <= W and 0 <= t <= b <= H, (v.cls, v.resource_id, v.text, v.bounds, (W, H))
    img = m.screenshot()
    assert img.size == (W, H) and img.mode == "RGB"
    root = ET.fromstring(m.hierarchy_xml())
    assert root.tag == "hierarchy" and len(root) >= 3


# --- layout on every profile ------------------------------------------------------------------------


@pytest.mark.parametrize("rotation", [0, 1])
@pytest.mark.parametrize("profile", list(PROFILES))
def test_every_app_fits_every_profile(profile: str, rotation: int) -> None:
    m = VirtualDeviceModel(profile=profile, locale="zh" if rotation else "en")
    m.set_rotation(rotation)
    check_frame(m)
    for pkg in [p.name for p in m.packages.values() if p.launcher_activity]:
        m.start_activity(pkg)
        check_frame(m)
        # open the first list item / button of each app and check again
        clickable = [v for v in views(m) if v.clickable and v.package == pkg and v.enabled]
        if clickable:
            m.tap(*clickable[len(clickable) // 2].center)
            check_frame(m)
        m.key(3)


def test_landscape_relayouts_to_the_rotated_size() -> None:
    m = VirtualDeviceModel(profile="medium_phone")
    m.start_activity(SETTINGS)
    portrait = find(m, rid="android:id/content").bounds
    m.set_rotation(1)
    landscape = find(m, rid="android:id/content").bounds
    assert portrait[2] == 1080 and landscape[2] == 2400
    assert landscape[3] < 1080


# --- launcher and taps -------------------------------------------------------------------------------


def test_home_shows_icons_with_locale_labels() -> None:
    m = VirtualDeviceModel(locale="zh")
    assert m.foreground.package == LAUNCHER_PACKAGE
    icon = find(m, text="笔记")
    assert icon.desc == "笔记" and icon.clickable and icon.cls == "android.widget.TextView"
    m.tap(*icon.center)
    assert m.foreground.package == NOTES


def test_tap_outside_clickables_does_nothing() -> None:
    m = VirtualDeviceModel()
    w, h = m.display_size
    clickables = [v.bounds for v in views(m) if v.clickable or v.long_clickable]
    # a point of the home screen's wallpaper, below the status bar and above the hot seat, that no view takes
    spot = next(
        (x, y)
        for y in range(h // 4, 3 * h // 4, 8)
        for x in range(4, w, 8)
        if not any(l <= x < r and t <= y < b for l, t, r, b in clickables)
    )
    m.tap(*spot)
    assert m.foreground.package == LAUNCHER_PACKAGE


# --- text entry and the keyboard ---------------------------------------------------------------------


def test_tap_focuses_field_shows_keyboard_and_types_cjk() -> None:
    m = VirtualDeviceModel(profile="pixel_7_pro", locale="zh")
    m.start_activity(SHOP)
    tap(m, rid="ad_close")
    field = tap(m, rid="search_box")
    assert field.text == "搜索商品" and field.hint == "搜索商品"  # empty field reports its hint, as on Android
    assert find(m, rid="search_box").focused
    assert exists(m, package=IME_PACKAGE)
    assert m.commit_text("你好 world")
    f = find(m, rid="search_box")
    assert f.text == "你好 world" and f.focused
    assert m.focused_text() == "你好 world"
    xml = m.hierarchy_xml()
    assert 'text="你好 world"' in xml and 'focused="true"' in xml


def test_del_enter_and_keycodes() -> None:
    m = VirtualDeviceModel()
    m.start_activity(SHOP)
    tap(m, rid="ad_close")
    tap(m, rid="search_box")
    for code in (41, 43, 47):  # KEYCODE_M, O, S
        m.key(code)
    m.key(67)  # DEL
    m.commit_text("use")
    assert m.focused_text() == "mouse"
    m.key(66)  # ENTER = the field's search action
    assert exists(m, rid="results_title")
    assert "mouse" in find(m, rid="results_title").text.lower()
    assert not exists(m, package=IME_PACKAGE)  # the search hid the keyboard


def test_soft_keyboard_keys_type() -> None:
    m = VirtualDeviceModel()
    m.start_activity(NOTES)
    tap(m, rid="fab_add")
    assert find(m, rid="note_title_edit").focused
    tap(m, desc="Shift", package=IME_PACKAGE)
    tap(m, desc="H", package=IME_PACKAGE)
    tap(m, desc="i", package=IME_PACKAGE)
    tap(m, desc="Space", package=IME_PACKAGE)
    assert m.focused_text() == "Hi "
    tap(m, desc="Delete", package=IME_PACKAGE)
    assert m.focused_text() == "Hi"


def test_back_closes_keyboard_then_finishes_activity() -> None:
    m = VirtualDeviceModel()
    m.start_activity(SHOP)
    tap(m, rid="ad_close")
    find_first = find(m, rid="product_item")
    m.tap(*find_first.center)
    assert m.foreground.activity.endswith("ProductActivity")
    m.key(4)
    assert m.foreground.activity.endswith("MainActivity")
    tap(m, rid="search_box")
    assert exists(m, package=IME_PACKAGE)
    m.key(4)
    assert not exists(m, package=IME_PACKAGE)
    assert find(m, rid="search_box").focused  # focus stays, like Android
    m.key(4)
    assert m.foreground.package == LAUNCHER_PACKAGE


def test_no_focus_means_commit_text_fails() -> None:
    m = VirtualDeviceModel()
    assert m.commit_text("x") is False
    assert m.focused_text() is None


def test_multiline_enter_inserts_newline() -> None:
    m = VirtualDeviceModel()
    m.start_activity(NOTES)
    tap(m, rid="fab_add")
    m.key(66)  # title: ENTER = next -> body
    assert find(m, rid="note_body_edit").focused
    m.commit_text("a")
    m.key(66)
    m.commit_text("b")
    assert m.focused_text() == "a\nb"


# --- scrolling ----------------------------------------------------------------------------------------


def test_swipe_scrolls_list_and_reveals_later_items() -> None:
    m = VirtualDeviceModel()
    m.start_activity(SHOP)
    tap(m, rid="ad_close")
    lst = find(m, rid="product_list")
    assert lst.scrollable and lst.cls == "androidx.recyclerview.widget.RecyclerView"
    assert not exists(m, text="Headphone Stand")
    first = [v.text for v in views(m) if v.resource_id.endswith("product_title")]
    cx = lst.center[0]
    for _ in range(20):
        if exists(m, text="Headphone Stand"):
            break
        m.swipe(cx, lst.bounds[3] - 50, cx, lst.bounds[1] + 50, 300)
    assert exists(m, text="Headphone Stand")
    later = [v.text for v in views(m) if v.resource_id.endswith("product_title")]
    assert first[0] not in later
    # only visible rows exist, and they lie inside the list's bounds
    for v in views(m):
        if v.resource_id.endswith("product_item"):
            assert lst.bounds[1] <= v.bounds[1] and v.bounds[3] <= lst.bounds[3]
    # swiping down goes back
    for _ in range(20):
        m.swipe(cx, lst.bounds[1] + 50, cx, lst.bounds[3] - 50, 300)
    assert exists(m, text="Wireless Earbuds")


# --- system UI ----------------------------------------------------------------------------------------


def test_status_and_navigation_bars() -> None:
    m = VirtualDeviceModel()
    clock = find(m, rid="com.android.systemui:id/clock")
    assert clock.text == "12:00" and clock.package == "com.android.systemui"
    assert exists(m, rid="wifi_signal")
    assert exists(m, rid="home_handle")
    m.settings["secure"]["navigation_mode"] = "0"
    back = find(m, rid="com.android.systemui:id/back")
    m.start_activity(SETTINGS)
    tap(m, rid="com.android.systemui:id/back")
    assert m.foreground.package == LAUNCHER_PACKAGE
    assert back.desc == "Back"
    m.start_activity(SETTINGS)
    tap(m, rid="com.android.systemui:id/home")
    assert m.foreground.package == LAUNCHER_PACKAGE


def test_gesture_swipe_up_from_bottom_goes_home() -> None:
    m = VirtualDeviceModel()
    m.start_activity(CLOCK)
    W, H = m.display_size
    m.swipe(W // 2, H - 5, W // 2, H // 2, 200)
    assert m.foreground.package == LAUNCHER_PACKAGE


def test_recents_open_switch_and_dismiss() -> None:
    m = VirtualDeviceModel()
    m.start_activity(NOTES)
    m.start_activity(SETTINGS)
    m.key(187)
    cards = [v for v in views(m) if v.resource_id.endswith("snapshot")]
    assert [c.desc for c in cards] == ["Settings", "Notes"]
    m.tap(*find(m, rid="snapshot", desc="Notes").center)
    assert m.foreground.package == NOTES
    assert not exists(m, rid="overview_panel")
    m.key(187)
    card = find(m, rid="snapshot", desc="Notes")
    x, y = card.center
    m.swipe(x, y, x, y - 800, 200)
    assert m.recent_packages() == [SETTINGS]
    assert exists(m, rid="overview_panel")
    tap(m, rid="clear_all")
    assert m.recent_packages() == []
    assert m.foreground.package == LAUNCHER_PACKAGE


def test_dialog_is_modal_and_back_dismisses_it() -> None:
    m = VirtualDeviceModel()
    m.start_activity(NOTES)
    card = find(m, rid="note_card")
    m.long_press(*card.center)
    assert exists(m, rid="android:id/button1")
    # a tap on the list under the dialog does not open the note
    m.tap(card.center[0], card.center[1])
    assert m.foreground.activity.endswith("MainActivity")
    m.start_activity(NOTES)
    m.long_press(*find(m, rid="note_card").center)
    m.key(4)
    assert not exists(m, rid="android:id/button1")
    assert m.foreground.package == NOTES


def test_xml_states_match_the_ui() -> None:
    m = VirtualDeviceModel()
    m.start_activity(CLOCK)
    root = ET.fromstring(m.hierarchy_xml())
    tabs = {
        n.get("content-desc"): n.get("selected")
        for n in root.iter("node")
        if n.get("resource-id", "").startswith(CLOCK + ":id/tab_menu_")
    }
    assert tabs == {"Alarm": "true", "Clock": "false", "Timer": "false", "Stopwatch": "false"}
    switches = [n for n in root.iter("node") if n.get("class") == "android.widget.Switch"]
    assert [s.get("checked") for s in switches] == ["true", "false"]
    assert all(s.get("checkable") == "true" for s in switches)


def test_snapshot_restore_round_trip() -> None:
    m = VirtualDeviceModel()
    m.start_activity(NOTES)
    tap(m, rid="fab_add")
    m.commit_text("draft")
    snap = m.snapshot()
    m.key(4)
    m.key(4)
    m.go_home()
    m.restore(snap)
    assert m.foreground.package == NOTES
    assert find(m, rid="note_title_edit").text == "draft"
