"""Google Contacts' data as the app and the contacts provider share it: the activities, a contact's structured name
(given and family name, joined into the display name as ContactsProvider's NameSplitter joins them) and its phone's
type (ContactsContract.CommonDataKinds.Phone's TYPE_* and the framework's labels for them, en and zh-CN).

A contact is a dict of the app's data: `id`, `name` (the display name), `given` / `family` (what the editor saved;
ignored once they no longer make up `name`, e.g. after a provider update of data1), `phone`, `phone_type` (TYPE_*,
TYPE_MOBILE when absent), `phone_label` (a TYPE_CUSTOM phone's label), `email`, `sort`.
"""

from __future__ import annotations

from typing import Any

PKG = "com.google.android.contacts"
LIST = "com.android.contacts.activities.PeopleActivity"
EDITOR = "com.android.contacts.activities.ContactEditorActivity"
DETAIL = "com.android.contacts.quickcontact.QuickContactActivity"

TYPE_CUSTOM, TYPE_HOME, TYPE_MOBILE, TYPE_WORK, TYPE_OTHER = 0, 1, 2, 3, 7
# Phone.TYPE_* -> the framework's label (phoneTypeHome, ...: en, zh-CN)
PHONE_TYPES: dict[int, tuple[str, str]] = {
    0: ("Custom", "自定义"),
    1: ("Home", "住宅"),
    2: ("Mobile", "手机"),
    3: ("Work", "单位"),
    4: ("Work Fax", "单位传真"),
    5: ("Home Fax", "住宅传真"),
    6: ("Pager", "寻呼机"),
    7: ("Other", "其他"),
    8: ("Callback", "回拨号码"),
    9: ("Car", "车载电话"),
    10: ("Company Main", "公司总机"),
    11: ("ISDN", "ISDN"),
    12: ("Main", "总机"),
    13: ("Other Fax", "其他传真"),
    14: ("Radio", "无线装置"),
    15: ("Telex", "电报"),
    16: ("TTY TDD", "TTY TDD"),
    17: ("Work Mobile", "单位手机"),
    18: ("Work Pager", "单位寻呼机"),
    19: ("Assistant", "助理"),
    20: ("MMS", "彩信"),
}
# the phone kind's types in the order the editor's label menu lists them (BaseAccountType.addDataKindPhone)
EDITOR_PHONE_TYPES = (2, 1, 3, 4, 5, 6, 7, 0, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20)


def phone_type_label(phone_type: int, label: str, zh: bool) -> str:
    """Phone.getTypeLabel: a custom (or assistant) type's own label when it has one, else the type's label."""
    if phone_type in (TYPE_CUSTOM, 19) and label:
        return label
    en, cn = PHONE_TYPES.get(phone_type, PHONE_TYPES[TYPE_CUSTOM])
    return cn if zh else en


def phone_type_of(c: dict[str, Any]) -> int:
    try:
        return int(c.get("phone_type", TYPE_MOBILE))
    except (TypeError, ValueError):
        return TYPE_MOBILE


def _cjk(s: str) -> bool:
    return any("\u3400" <= ch <= "\u9fff" or "\uf900" <= ch <= "\ufaff" for ch in s)


def join_name(given: str, family: str) -> str:
    """The display name of a structured name: given then family with a space (western), family then given with
    none when either is Chinese (NameSplitter's CJK full-name style)."""
    given, family = given.strip(), family.strip()
    if _cjk(given + family):
        return family + given
    return " ".join(p for p in (given, family) if p)


def split_name(name: str) -> tuple[str, str]:
    """A display name as (given, family): a Chinese name's first character is the family name; otherwise the last
    word is, the words before it the given name (a single word is a given name)."""
    name = name.strip()
    if not name:
        return "", ""
    if _cjk(name) and " " not in name:
        return (name[1:], name[0]) if len(name) > 1 else ("", name)
    head, _, last = name.rpartition(" ")
    return (head.strip(), last) if head.strip() else (last, "")


def structured_name(c: dict[str, Any]) -> tuple[str, str]:
    """A contact's (given, family): as the editor saved them while they still make up its name, else split from
    its name."""
    given, family = str(c.get("given") or ""), str(c.get("family") or "")
    name = str(c.get("name") or "")
    if (given or family) and join_name(given, family) == name:
        return given, family
    return split_name(name)


def find_contact(data: dict[str, Any], cid: Any) -> dict[str, Any] | None:
    return next((c for c in data.get("contacts", []) if c["id"] == cid), None)
