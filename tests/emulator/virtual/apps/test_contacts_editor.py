"""Google Contacts' "Create contact" form driven as clients drive a phone: uiautomator2 (unmodified) for the screen,
the real adb server for `monkey`, `content` and `sqlite3`. The form is read as AndroidWorld's ContactsNewContactDraft
judge reads it (text, hint, content description, bounds); what Save wrote is read back from the contacts provider
as ContactsContract clients read it (display name, given / family name, the phone's TYPE and LABEL)."""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET

import pytest

from tests.emulator.virtual.apps.devshell import sh, uiautomator

pytest.importorskip("uiautomator2")

PKG = "com.google.android.contacts"
RID = PKG + ":id/"
PHONES = "content query --uri content://com.android.contacts/data/phones --projection display_name:data1:data2:data3"
NAMES = "content query --uri content://com.android.contacts/data --where \"mimetype='vnd.android.cursor.item/name'\""
DB = "/data/data/com.android.providers.contacts/databases/contacts2.db"


@pytest.fixture
def zh_u2(make_vdevice, adb_server):
    vd = make_vdevice(locale="zh")
    with uiautomator(adb_server, vd.serial) as d:
        yield vd, d


def _new_contact(d, adb_cli, serial: str) -> None:
    sh(adb_cli, serial, f"monkey -p {PKG} 1")
    d(resourceId=RID + "floating_action_button").click()
    assert d(resourceId=RID + "editor_menu_save_button").wait(timeout=5)


def _nodes(d) -> list[dict[str, str]]:
    return [n.attrib for n in ET.fromstring(d.dump_hierarchy()).iter("node") if n.attrib.get("package") == PKG]


def _bounds(node: dict[str, str]) -> tuple[int, ...]:
    return tuple(int(v) for v in re.findall(r"\d+", node["bounds"]))


def _label(d, text: str) -> dict[str, str]:
    """The phone's type label: the node AndroidWorld's draft judge wants (text = the label, content description
    "<label> Phone") - and, as its fallback wants, just below the phone field."""
    nodes = _nodes(d)
    (label,) = [n for n in nodes if n["resource-id"] == "android:id/text1" and n["class"].endswith(".TextView")]
    (phone,) = [n for n in nodes if n["resource-id"] == RID + "editor_phone"]
    assert label["text"] == text
    top, bottom = _bounds(label)[1], _bounds(phone)[3]
    assert bottom <= top <= bottom + (bottom - _bounds(phone)[1])
    return label


def test_the_form_is_google_contacts_and_its_phone_label_is_saved_as_the_phones_type(u2dev, vdevice, adb_cli):
    s = vdevice.serial
    _new_contact(u2dev, adb_cli, s)
    fields = [n for n in _nodes(u2dev) if n["class"] == "android.widget.EditText"]
    assert [n["hint"] for n in fields] == ["First name", "Last name", "Phone", "Email"]
    assert [n["text"] for n in fields] == ["First name", "Last name", "Phone", "Email"]  # empty: the hint shown
    assert [n["resource-id"] for n in fields] == [
        RID + r for r in ("editor_first_name", "editor_last_name", "editor_phone", "editor_email")
    ]
    assert u2dev(resourceId=RID + "editor_first_name").info["focused"]
    assert _label(u2dev, "Mobile")["content-desc"] == "Mobile Phone"  # a new contact's phone is Mobile
    u2dev(resourceId=RID + "editor_first_name").set_text("Alice")
    u2dev(resourceId=RID + "editor_last_name").set_text("Smith")
    u2dev(resourceId=RID + "editor_phone").set_text("123-456-7890")
    u2dev(resourceId=RID + "spinner", className="android.widget.Spinner").click()
    menu = u2dev(className="android.widget.CheckedTextView", resourceId="android:id/text1")
    assert [m.info["text"] for m in menu][:8] == [
        "Mobile",
        "Home",
        "Work",
        "Work Fax",
        "Home Fax",
        "Pager",
        "Other",
        "Custom",
    ]
    assert [m.info["checked"] for m in menu][:2] == [True, False]
    u2dev(className="android.widget.CheckedTextView", text="Home").click()
    assert not u2dev(className="android.widget.CheckedTextView").exists  # the menu is gone
    assert _label(u2dev, "Home")["content-desc"] == "Home Phone"
    screen = {(n["text"], n["hint"]) for n in _nodes(u2dev)}
    assert {("Alice", "First name"), ("Smith", "Last name"), ("123-456-7890", "Phone")} <= screen
    assert "Alice Smith" not in sh(adb_cli, s, PHONES)  # a draft: nothing saved yet
    u2dev(resourceId=RID + "editor_menu_save_button").click()
    assert u2dev(resourceId=RID + "large_title", text="Alice Smith").wait(timeout=5)
    assert u2dev(resourceId=RID + "sub_header", text="Home").exists  # the card shows the type
    assert "display_name=Alice Smith, data1=123-456-7890, data2=1, data3=NULL" in sh(adb_cli, s, PHONES)
    names = sh(adb_cli, s, NAMES + " --projection display_name:data2:data3")
    assert "display_name=Alice Smith, data2=Alice, data3=Smith" in names
    legacy = sh(adb_cli, s, "content query --uri content://contacts/phones/ --projection display_name:number:type")
    assert "display_name=Alice Smith, number=123-456-7890, type=1" in legacy  # what AndroidWorld's list_contacts reads


def test_a_custom_label_and_the_editor_of_a_saved_contact(u2dev, vdevice, adb_cli):
    s = vdevice.serial
    _new_contact(u2dev, adb_cli, s)
    u2dev(resourceId=RID + "editor_first_name").set_text("Zoe")
    u2dev(resourceId=RID + "editor_phone").set_text("555 0100")
    u2dev(resourceId=RID + "spinner").click()
    u2dev(className="android.widget.CheckedTextView", text="Custom").click()
    assert u2dev(resourceId="android:id/alertTitle", text="Custom label name").wait(timeout=5)
    assert not u2dev(resourceId="android:id/button1").info["enabled"]  # nothing typed yet
    u2dev(resourceId=RID + "custom_dialog_content").set_text("Gym")
    u2dev(resourceId="android:id/button1", text="OK").click()
    assert _label(u2dev, "Gym")["content-desc"] == "Gym Phone"
    u2dev(resourceId=RID + "editor_menu_save_button").click()
    assert u2dev(resourceId=RID + "large_title", text="Zoe").wait(timeout=5)
    assert "display_name=Zoe, data1=555 0100, data2=0, data3=Gym" in sh(adb_cli, s, PHONES)  # TYPE_CUSTOM + LABEL
    u2dev(resourceId=RID + "menu_edit").click()  # the saved contact comes back as it was typed
    assert u2dev(resourceId=RID + "editor_first_name").info["text"] == "Zoe"
    assert u2dev(resourceId=RID + "editor_last_name").info["text"] == "Last name"  # empty
    assert _label(u2dev, "Gym")
    u2dev(resourceId=RID + "spinner").click()
    menu = [m.info["text"] for m in u2dev(className="android.widget.CheckedTextView")]
    assert menu[:3] == ["Gym", "Mobile", "Home"]  # the custom label in use heads the list
    u2dev(className="android.widget.CheckedTextView", text="Work").click()
    u2dev(resourceId=RID + "editor_last_name").set_text("Park")
    u2dev(resourceId=RID + "editor_menu_save_button").click()
    assert u2dev(resourceId=RID + "large_title", text="Zoe Park").wait(timeout=5)
    assert "display_name=Zoe Park, data1=555 0100, data2=3, data3=NULL" in sh(adb_cli, s, PHONES)


def test_a_seeded_contact_edited_and_a_typed_row_read_back(u2dev, vdevice, adb_cli):
    """A contact made before the form had first and last name splits into them and saves back unchanged; a phone's
    type written into contacts2.db shows in the app."""
    s = vdevice.serial
    sh(adb_cli, s, f"monkey -p {PKG} 1")
    u2dev(resourceId=RID + "cliv_name_textview", text="Diana Evans").click()
    u2dev(resourceId=RID + "menu_edit").click()
    assert u2dev(resourceId=RID + "editor_first_name").info["text"] == "Diana"
    assert u2dev(resourceId=RID + "editor_last_name").info["text"] == "Evans"
    assert _label(u2dev, "Mobile")
    u2dev(resourceId=RID + "editor_menu_save_button").click()
    assert u2dev(resourceId=RID + "large_title", text="Diana Evans").wait(timeout=5)
    assert "display_name=Diana Evans, data1=+1 650-555-0104, data2=2, data3=NULL" in sh(adb_cli, s, PHONES)
    phone_v2 = "(SELECT _id FROM mimetypes WHERE mimetype='vnd.android.cursor.item/phone_v2')"
    sh(adb_cli, s, f'sqlite3 {DB} "UPDATE data SET data2=3 WHERE raw_contact_id=4 AND mimetype_id={phone_v2}"')
    assert "display_name=Diana Evans, data1=+1 650-555-0104, data2=3" in sh(adb_cli, s, PHONES)
    sh(adb_cli, s, "input keyevent KEYCODE_BACK")
    u2dev(resourceId=RID + "cliv_name_textview", text="Diana Evans").click()
    assert u2dev(resourceId=RID + "sub_header", text="Work").wait(timeout=5)


def test_the_zh_form_asks_the_family_name_first_and_joins_a_chinese_name_without_a_space(zh_u2, adb_cli):
    vd, d = zh_u2
    _new_contact(d, adb_cli, vd.serial)
    fields = [n for n in _nodes(d) if n["class"] == "android.widget.EditText"]
    assert [n["hint"] for n in fields] == ["姓氏", "名字", "电话", "电子邮件"]  # name_family, name_given (zh-rCN order)
    assert _label(d, "手机")["content-desc"] == "手机 电话"
    d(resourceId=RID + "editor_last_name").set_text("林")
    d(resourceId=RID + "editor_first_name").set_text("峰")
    d(resourceId=RID + "editor_phone").set_text("139 0000 1234")
    d(resourceId=RID + "spinner").click()
    assert [m.info["text"] for m in d(className="android.widget.CheckedTextView")][:4] == [
        "手机",
        "住宅",
        "单位",
        "单位传真",
    ]
    d(className="android.widget.CheckedTextView", text="单位").click()
    assert _label(d, "单位")["content-desc"] == "单位 电话"
    d(resourceId=RID + "editor_menu_save_button").click()
    assert d(resourceId=RID + "large_title", text="林峰").wait(timeout=5)
    assert "display_name=林峰, data1=139 0000 1234, data2=3" in sh(adb_cli, vd.serial, PHONES)
    names = sh(adb_cli, vd.serial, NAMES + " --projection display_name:data2:data3")
    assert "display_name=林峰, data2=峰, data3=林" in names


def test_a_contact_inserted_as_a_client_inserts_it_shows_its_name_and_type(u2dev, vdevice, adb_cli):
    """`content insert` of a raw contact, a name row of given + family name only and a phone row with a TYPE: the
    provider joins the display name (a Chinese one without a space), the app shows the type and edits the parts."""
    s = vdevice.serial
    data = "content insert --uri content://com.android.contacts/data --bind raw_contact_id:i:16"
    sh(adb_cli, s, "content insert --uri content://com.android.contacts/raw_contacts --bind account_name:n:")
    sh(adb_cli, s, data + " --bind mimetype:s:vnd.android.cursor.item/name --bind data2:s:Ivan --bind data3:s:Adams")
    sh(adb_cli, s, data + " --bind mimetype:s:vnd.android.cursor.item/phone_v2 --bind data1:s:5550142 --bind data2:i:3")
    assert "display_name=Ivan Adams, data1=5550142, data2=3, data3=NULL" in sh(adb_cli, s, PHONES)
    sh(adb_cli, s, "am start -n " + PKG + "/com.android.contacts.activities.PeopleActivity")
    u2dev(resourceId=RID + "search_view").set_text("Ivan")
    u2dev(resourceId=RID + "cliv_name_textview", text="Ivan Adams").click()
    assert u2dev(resourceId=RID + "sub_header", text="Work").wait(timeout=5)
    u2dev(resourceId=RID + "menu_edit").click()
    assert u2dev(resourceId=RID + "editor_last_name").info["text"] == "Adams"
    assert _label(u2dev, "Work")["content-desc"] == "Work Phone"
    sh(adb_cli, s, data + " --bind mimetype:s:vnd.android.cursor.item/name --bind data2:s:伟 --bind data3:s:张")
    assert "display_name=张伟, data1=5550142" in sh(adb_cli, s, PHONES)
