"""The built-in apps, driven in-process through taps, swipes, keys and text; plus a few checks through the real
adb server and uiautomator2."""

from __future__ import annotations

import xml.etree.ElementTree as ET

from emulator.virtual.model import LAUNCHER_PACKAGE, VirtualDeviceModel
from emulator.virtual.ui.keyboard import IME_PACKAGE
from emulator.virtual.ui.systembars import SYSTEM_BAR_ROOT_IDS
from emulator.virtual.ui.view import View
from tests.ui_helpers import exists, find, tap, views

SETTINGS = "com.android.settings"
NOTES = "com.droidharness.notes"
CONTACTS = "com.google.android.contacts"
CLOCK = "com.google.android.deskclock"
SHOP = "com.droidharness.shop"
WEATHER = "com.droidharness.weather"
MESSAGES = "com.google.android.apps.messaging"
PERMISSION = "com.google.android.permissioncontroller"


def texts(m: VirtualDeviceModel, rid: str) -> list[str]:
    return [v.text for v in views(m) if v.resource_id.endswith(rid)]


def scroll_to(m: VirtualDeviceModel, list_rid: str, **kw) -> View:
    lst = find(m, rid=list_rid)
    x = lst.center[0]
    for _ in range(30):
        if exists(m, **kw):
            return find(m, **kw)
        m.swipe(x, lst.bounds[3] - 40, x, lst.bounds[1] + 40, 300)
    return find(m, **kw)


# --- launcher ---------------------------------------------------------------------------------------


def test_launcher_drawer_lists_all_apps_and_searches() -> None:
    m = VirtualDeviceModel()
    W, H = m.display_size
    m.swipe(W // 2, H * 0.6, W // 2, H * 0.2, 300)
    assert exists(m, rid="apps_list_view")
    labels = {v.text for v in views(m) if v.cls == "android.widget.TextView" and v.package == LAUNCHER_PACKAGE}
    assert {"Settings", "Notes", "Contacts", "Clock", "Shop", "Weather", "Messages"} <= labels
    tap(m, rid="search_box_input")
    m.commit_text("wea")
    icons = [
        v.text
        for v in views(m)
        if v.desc and v.resource_id == "" and v.package == LAUNCHER_PACKAGE and v.cls == "android.widget.TextView"
    ]
    assert icons == ["Weather"]
    m.key(66)
    assert m.foreground.package == WEATHER
    m.key(3)
    assert not exists(m, rid="apps_list_view")  # home resets the drawer


def test_launcher_search_bar_opens_drawer_with_focus() -> None:
    m = VirtualDeviceModel(locale="zh")
    tap(m, rid="search_container_hotseat")
    assert find(m, rid="search_box_input").focused
    m.commit_text("设置")
    tap(m, desc="设置", package=LAUNCHER_PACKAGE)
    assert m.foreground.package == SETTINGS


def test_a_system_language_switched_over_content_set_up_in_another_keeps_the_content() -> None:
    """A device set up in en whose system language is then zh (a user switching the phone's language): the apps'
    labels speak zh, the contacts they had stay en - through a reset to a snapshot of that state as well."""
    m = VirtualDeviceModel()
    m.set_locale("zh", content="en")
    assert (m.locale, m.content_locale, m.props["persist.sys.locale"]) == ("zh", "en", "zh-CN")
    m.start_activity("com.google.android.contacts")
    assert exists(m, text="搜索联系人") and exists(m, text="Alice Johnson")
    snap = m.snapshot()
    m.set_locale("en")
    assert m.content_locale == "en"
    m.restore(snap)
    assert (m.locale, m.content_locale) == ("zh", "en")
    zh = VirtualDeviceModel(locale="zh")  # set up in zh: its own content
    zh.start_activity("com.google.android.contacts")
    assert not exists(zh, text="Alice Johnson") and exists(zh, text="搜索联系人")


# --- settings ----------------------------------------------------------------------------------------


def test_settings_wifi_bluetooth_and_dark_theme_switches() -> None:
    m = VirtualDeviceModel()
    m.start_activity(SETTINGS)
    tap(m, text="Network & internet")
    row = find(m, rid="wifi_row")
    sw = [c for c in row.walk() if c.cls == "android.widget.Switch"][0]
    assert sw.checked and sw.resource_id == "android:id/switch_widget"
    m.tap(*row.center)
    assert m.settings["global"]["wifi_on"] == "0"
    assert not [c for c in find(m, rid="wifi_row").walk() if c.cls == "android.widget.Switch"][0].checked
    assert not exists(m, rid="wifi_signal")  # the status bar follows
    m.key(4)
    tap(m, text="Connected devices")
    tap(m, rid="bluetooth_row")
    assert m.settings["global"]["bluetooth_on"] == "1"
    assert exists(m, rid="com.android.systemui:id/bluetooth")
    m.key(4)
    tap(m, text="Display")
    tap(m, rid="dark_theme_row")
    assert m.settings["secure"]["ui_night_mode"] == "2"
    # the setting is read live: the shell changing it shows in the app
    m.settings["secure"]["ui_night_mode"] = "1"
    assert not [c for c in find(m, rid="dark_theme_row").walk() if c.cls == "android.widget.Switch"][0].checked


def test_settings_about_phone_and_search() -> None:
    m = VirtualDeviceModel(profile="pixel_7_pro", locale="zh")
    m.start_activity(SETTINGS)
    lst = "recycler_view"
    scroll_to(m, lst, text="关于手机")
    tap(m, text="关于手机")
    assert exists(m, text="Pixel 7 Pro")
    assert exists(m, text=m.props["ro.build.version.release"])
    assert exists(m, text=m.props["ro.build.id"])
    m.key(4)
    tap(m, rid="search_action_bar")
    m.commit_text("蓝牙")
    tap(m, text="蓝牙", rid="android:id/title")
    assert m.foreground.extras == {"page": "connected"}


# --- notes -------------------------------------------------------------------------------------------


def test_notes_create_edit_search_delete() -> None:
    m = VirtualDeviceModel()
    m.start_activity(NOTES)
    assert texts(m, "note_title") == ["Shopping list", "Meeting notes", "Wi-Fi password"]
    tap(m, rid="fab_add")
    m.commit_text("Trip")
    tap(m, rid="note_body_edit")
    m.commit_text("Pack passport")
    m.key(4)  # keyboard
    m.key(4)  # save and close
    assert texts(m, "note_title")[0] == "Trip"
    assert "Pack passport" in texts(m, "note_preview")[0]
    # edit
    tap(m, text="Trip")
    assert find(m, rid="note_title_edit").text == "Trip"
    tap(m, rid="note_title_edit")
    m.commit_text(" 2")
    tap(m, desc="Navigate up")
    assert texts(m, "note_title")[0] == "Trip 2"
    # search
    tap(m, rid="action_search")
    m.commit_text("wi-fi")
    assert texts(m, "note_title") == ["Wi-Fi password"]
    m.key(4)
    m.key(4)
    assert len(texts(m, "note_title")) == 4
    # long press -> confirm -> delete
    m.long_press(*find(m, text="Meeting notes").center)
    assert find(m, rid="android:id/alertTitle").text == "Delete note?"
    tap(m, rid="android:id/button1")
    assert "Meeting notes" not in texts(m, "note_title")
    assert [n["title"] for n in m.app_data[NOTES]["notes"]] == ["Trip 2", "Shopping list", "Wi-Fi password"]


def test_notes_empty_new_note_is_not_saved_and_delete_from_editor() -> None:
    m = VirtualDeviceModel()
    m.start_activity(NOTES)
    tap(m, rid="fab_add")
    m.key(4)
    m.key(4)
    assert len(m.app_data[NOTES]["notes"]) == 3
    tap(m, text="Shopping list")
    tap(m, rid="action_delete")
    tap(m, rid="android:id/button1")
    assert m.foreground.activity.endswith("MainActivity")
    assert "Shopping list" not in texts(m, "note_title")


def test_copy_note_and_paste_in_messages_through_keyboard_chip() -> None:
    m = VirtualDeviceModel()
    m.start_activity(NOTES)
    tap(m, text="Wi-Fi password")
    tap(m, rid="action_copy")
    assert m.clipboard == "Guest network: VirtualWiFi\nPassword: sunflower42"
    m.start_activity(MESSAGES)
    tap(m, rid="permission_allow_button")
    tap(m, text="Alice Johnson")
    tap(m, rid="compose_message_text")
    tap(m, rid="clipboard_chip", package=IME_PACKAGE)
    assert "sunflower42" in m.focused_text()
    tap(m, rid="send_message_button_icon")
    assert "Password: sunflower42" in texts(m, ":id/message_text")[-1]


# --- contacts ----------------------------------------------------------------------------------------


def test_contacts_list_search_add_edit_delete() -> None:
    m = VirtualDeviceModel()
    m.start_activity(CONTACTS)
    names = texts(m, "cliv_name_textview")
    assert names[:3] == ["Alice Johnson", "Bob Smith", "Carlos Diaz"]
    assert texts(m, "header")[:3] == ["A", "B", "C"]
    tap(m, rid="search_view")
    m.commit_text("grace")
    assert texts(m, "cliv_name_textview") == ["Grace Lee"]
    m.set_focused_text("555-0110")
    assert texts(m, "cliv_name_textview") == ["Jack Brown"]
    m.set_focused_text("")
    m.key(4)
    tap(m, rid="floating_action_button")
    assert find(m, rid="editor_first_name").focused
    assert not find(m, rid="editor_menu_save_button").enabled
    m.commit_text("Zoe")
    tap(m, rid="editor_last_name")
    m.commit_text("Adams")
    tap(m, rid="editor_phone")
    m.commit_text("+1 650-555-0199")
    tap(m, rid="editor_email")
    m.commit_text("zoe@example.com")
    tap(m, rid="editor_menu_save_button")
    assert m.foreground.activity.endswith("QuickContactActivity")
    assert find(m, rid="large_title").text == "Zoe Adams"
    assert exists(m, text="+1 650-555-0199")
    tap(m, rid="menu_edit")
    assert find(m, rid="editor_first_name").text == "Zoe" and find(m, rid="editor_last_name").text == "Adams"
    tap(m, rid="editor_last_name")
    m.set_focused_text("Baker")
    tap(m, rid="editor_menu_save_button")
    assert find(m, rid="large_title").text == "Zoe Baker"
    tap(m, rid="menu_delete")
    tap(m, rid="android:id/button1")
    assert m.foreground.activity.endswith("PeopleActivity")
    assert all(c["name"] != "Zoe Baker" for c in m.app_data[CONTACTS]["contacts"])


def test_contact_text_button_opens_messages_thread() -> None:
    m = VirtualDeviceModel(locale="zh")
    m.start_activity(MESSAGES)
    tap(m, rid="permission_allow_button")
    m.start_activity(CONTACTS)
    tap(m, text="李娜")
    tap(m, rid="message_button")
    assert m.foreground.package == MESSAGES
    assert find(m, rid="conversation_title").text == "李娜"
    assert "能把今天的幻灯片发给我吗？" in texts(m, ":id/message_text")


# --- clock -------------------------------------------------------------------------------------------


def test_clock_tabs_and_alarm_switch() -> None:
    m = VirtualDeviceModel()
    m.start_activity(CLOCK)
    assert texts(m, "digital_clock") == ["7:00 AM", "8:30 AM"]
    tap(m, rid="onoff")
    assert m.app_data[CLOCK]["alarms"][0]["enabled"] is False
    tap(m, rid="tab_menu_clock")
    assert find(m, rid="tab_menu_clock").selected and not find(m, rid="tab_menu_alarm").selected
    assert texts(m, "digital_clock")[0] == "12:00 PM"
    assert "London" in texts(m, "city_name")
    tap(m, rid="tab_menu_timer")
    tap(m, rid="timer_setup_digit_5")
    tap(m, rid="timer_setup_digit_00")
    assert find(m, rid="timer_setup_time").text == "00h 05m 00s"
    tap(m, rid="fab")
    assert find(m, rid="timer_time_text").text == "00:05:00"


def test_clock_add_edit_delete_alarm() -> None:
    m = VirtualDeviceModel(locale="zh")
    m.start_activity(CLOCK)
    tap(m, rid="fab")
    assert m.foreground.activity.endswith("AlarmEditActivity")
    tap(m, rid="hour")
    m.set_focused_text("8")
    m.key(4)
    for _ in range(3):
        tap(m, rid="minute_down")  # 00 -> 57
    tap(m, rid="pm_label")
    assert find(m, rid="pm_label").checked and not find(m, rid="am_label").checked
    tap(m, rid="label_edit")
    m.commit_text("晚饭")
    m.key(4)
    tap(m, rid="day_button_5")
    tap(m, rid="save_button")
    assert "下午8:57" in texts(m, "digital_clock")
    assert "晚饭" in texts(m, "edit_label")
    a = [x for x in m.app_data[CLOCK]["alarms"] if x["label"] == "晚饭"][0]
    assert (a["hour"], a["minute"], a["days"][5], a["enabled"]) == (20, 57, True, True)
    m.tap(*find(m, desc="下午8:57 晚饭").center)
    tap(m, rid="delete")
    assert "下午8:57" not in texts(m, "digital_clock")


# --- shop --------------------------------------------------------------------------------------------


def test_shop_ad_once_search_product_cart_checkout() -> None:
    m = VirtualDeviceModel()
    m.start_activity(SHOP)
    assert find(m, rid="ad_title").text == "Limited-time offer!"
    tap(m, rid="ad_close")
    assert not exists(m, rid="ad_title")
    m.force_stop(SHOP)
    m.start_activity(SHOP)
    assert not exists(m, rid="ad_title")  # only on the very first launch
    tap(m, rid="search_box")
    m.commit_text("mouse")
    m.key(66)
    assert texts(m, "product_title") == ["Wireless Mouse"]
    tap(m, text="Wireless Mouse")
    price = find(m, rid="product_price").text
    tap(m, rid="add_to_cart_button")
    assert find(m, rid="snackbar_text").text == "Added to cart"
    assert find(m, rid="cart_button").desc == "Cart, 1 items"
    tap(m, rid="cart_button")
    assert texts(m, "cart_item_title") == ["Wireless Mouse"]
    tap(m, rid="quantity_plus")
    assert find(m, rid="quantity").text == "2"
    cents = int(price.replace("$", "").replace(",", "").replace(".", ""))
    total = cents * 2
    assert find(m, rid="cart_total").text == f"Total: ${total // 100:,}.{total % 100:02d}"
    tap(m, rid="checkout_button")
    tap(m, rid="android:id/button1")
    assert exists(m, rid="empty_cart")
    assert m.app_data[SHOP]["orders"][0]["total"] == total


def test_shop_pm_clear_brings_the_ad_back() -> None:
    m = VirtualDeviceModel()
    m.start_activity(SHOP)
    tap(m, rid="ad_close")
    m.clear_data(SHOP)
    m.start_activity(SHOP)
    assert exists(m, rid="ad_close")


# --- weather -----------------------------------------------------------------------------------------


def test_weather_units_forecast_city_and_hourly_scroll() -> None:
    m = VirtualDeviceModel(locale="zh")
    m.start_activity(WEATHER)
    assert find(m, rid="city_name").text == "山景城"
    assert find(m, rid="current_temp").text == "21°"
    assert find(m, rid="unit_celsius").checked
    tap(m, rid="unit_fahrenheit")
    assert find(m, rid="current_temp").text == "70°"
    assert find(m, rid="unit_fahrenheit").checked and not find(m, rid="unit_celsius").checked
    tap(m, rid="unit_celsius")
    days = scroll_to(m, "weather_scroll", text="周日")
    assert days.resource_id.endswith("day_name")
    item = [v for v in views(m) if v.resource_id.endswith("daily_item") and "周五" in v.desc][0]
    assert item.desc == "周五, 雨, 70%, 17°/11°"
    tap(m, rid="city_picker")
    tap(m, text="伦敦")
    assert find(m, rid="city_name").text == "伦敦"
    # hourly row scrolls sideways
    m2 = VirtualDeviceModel()
    m2.start_activity(WEATHER)
    row = find(m2, rid="hourly_list")
    before = texts(m2, "hour_time")
    y = row.center[1]
    m2.swipe(row.bounds[2] - 40, y, row.bounds[0] + 40, y, 300)
    after = texts(m2, "hour_time")
    assert before[0] == "Now" and after[0] != "Now"
    assert find(m2, rid="current_temp").text == "70°"  # en defaults to °F


# --- messages ----------------------------------------------------------------------------------------


def test_messages_permission_dialog_and_send() -> None:
    m = VirtualDeviceModel()
    m.start_activity(MESSAGES)
    title = find(m, rid="com.android.permissioncontroller:id/permission_message")
    assert title.package == PERMISSION
    assert title.text == "Allow Messages to send and view SMS messages?"
    tap(m, rid="com.android.permissioncontroller:id/permission_allow_button")
    assert m.app_data[MESSAGES]["permission"] == "granted"
    assert not exists(m, package=PERMISSION)
    tap(m, text="Bob Smith")
    send = find(m, rid="send_message_button_icon")
    assert not send.enabled
    tap(m, rid="compose_message_text")
    m.commit_text("Sure, sending now")
    assert find(m, rid="send_message_button_icon").enabled
    m.key(66)  # ENTER sends
    assert texts(m, ":id/message_text")[-1] == "Sure, sending now"
    assert m.focused_text() == ""
    m.key(4)
    m.key(4)
    assert texts(m, "conversation_name")[0] == "Bob Smith"
    assert texts(m, "conversation_snippet")[0] == "You: Sure, sending now"
    # the dialog does not come back after a restart
    m.force_stop(MESSAGES)
    m.start_activity(MESSAGES)
    assert not exists(m, package=PERMISSION)


def test_messages_deny_then_new_conversation_from_contacts() -> None:
    m = VirtualDeviceModel()
    m.start_activity(MESSAGES)
    m.key(4)  # BACK on the permission dialog = deny
    assert m.app_data[MESSAGES]["permission"] == "denied"
    assert exists(m, rid="permission_banner_button")
    tap(m, rid="start_chat_fab")
    assert find(m, rid="recipient_text_view").focused
    m.commit_text("emma")
    assert texts(m, "contact_name") == ["Emma Wilson"]
    tap(m, text="Emma Wilson")
    assert find(m, rid="conversation_title").text == "Emma Wilson"
    tap(m, rid="compose_message_text")
    m.commit_text("Hi Emma")
    tap(m, rid="send_message_button_icon")
    assert exists(m, package=PERMISSION)  # sending needs the permission
    tap(m, rid="permission_allow_button")
    tap(m, rid="send_message_button_icon")
    assert texts(m, ":id/message_text") == ["Hi Emma"]
    m.key(4)
    assert m.foreground.activity.endswith("ConversationListActivity")
    assert texts(m, "conversation_name")[0] == "Emma Wilson"


def test_state_persists_across_switches_and_force_stop_resets_ui_only() -> None:
    m = VirtualDeviceModel()
    m.start_activity(NOTES)
    tap(m, rid="fab_add")
    m.commit_text("Keep me")
    m.key(4)
    m.key(4)
    m.start_activity(SETTINGS)
    m.start_activity(NOTES)
    assert texts(m, "note_title")[0] == "Keep me"
    tap(m, rid="action_search")
    m.force_stop(NOTES)
    m.start_activity(NOTES)
    assert not exists(m, rid="search_src_text")  # UI state went with the process
    assert texts(m, "note_title")[0] == "Keep me"  # data stays


# --- through the real adb server and uiautomator2 --------------------------------------------------------


def test_adb_input_tap_on_launcher_icon_opens_app(vdevice) -> None:
    m = vdevice.model
    x, y = find(m, text="Notes").center
    vdevice.adb.shell(f"input tap {x} {y}")
    assert m.foreground.package == NOTES
    xml = vdevice.adb.dump_hierarchy()
    root = ET.fromstring(xml.encode("utf-8") if isinstance(xml, str) else xml)
    assert "Shopping list" in [n.get("text") for n in root.iter("node")]


def test_u2_dump_hierarchy_matches_model(u2dev, vdevice) -> None:
    m = vdevice.model
    m.start_activity(SETTINGS)
    xml = u2dev.dump_hierarchy()
    root = ET.fromstring(xml.encode("utf-8"))
    nodes = list(root.iter("node"))
    # the dump holds the app window, not the status and navigation bars (a device's compressed dump)
    ours = [v for r in m.view_roots() if r.resource_id not in SYSTEM_BAR_ROOT_IDS for v in r.walk()]
    assert len(nodes) == len(ours) < len(views(m))
    assert "com.android.systemui" not in {n.get("package") for n in nodes}
    wifi = [n for n in nodes if n.get("text") == "Network & internet"]
    assert wifi and wifi[0].get("resource-id") == "android:id/title"
    u2dev(text="Network & internet").click()
    assert m.foreground.extras == {"page": "network"}
    assert u2dev(resourceId="android:id/switch_widget").info["checked"] is True
