"""Families over Contacts and Messages: a new contact with a name and number; a text to a contact that the start
state creates from the parameters."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .base import Family
from .build import both, click, milestone, open_app, steps_for_both, type_into
from .params import Name, NameParam, Phone, PhoneParam, Text, TextParam

CONTACTS = "com.google.android.contacts"
MESSAGING = "com.google.android.apps.messaging"
QUICK_CONTACT = "com.android.contacts.quickcontact.QuickContactActivity"
CONVERSATION = "com.google.android.apps.messaging.ui.conversation.ConversationActivity"
TEXTS = (
    ("Running 10 minutes late", "我晚到10分钟"),
    ("Can you call me back?", "方便回个电话吗？"),
    ("Dinner at 7 tonight", "今晚7点吃饭"),
    ("Thanks for your help!", "谢谢你的帮助！"),
    ("The meeting moved to Friday", "会议改到周五了"),
    ("I left the keys at the front desk", "钥匙放在前台了"),
    ("Happy birthday!", "生日快乐！"),
)


def build_contact(v: Mapping[str, Any]) -> dict[str, Any]:
    name: Name = v["name"]
    phone: Phone = v["phone"]
    names, numbers = both(name.en, name.zh), both(phone.en, phone.zh)
    # the editor's First name / Last name (a Chinese name's surname is its first character: ZH_SURNAME's are one)
    first, last = both(name.first, name.zh[1:]), both(name.en.split()[-1], name.zh[:1])
    saved = {"activity": QUICK_CONTACT}
    return {
        "category": "2-1",
        "apps": [CONTACTS],
        "instruction": {
            "en": f"Create a new contact named {name.en} with the phone number {phone.en}.",
            "zh": f"新建联系人：姓名{name.zh}，电话 {phone.zh}。",
        },
        "start": {"reset_apps": [CONTACTS]},
        "max_steps": 12,
        "milestones": {
            "order": "ordered",
            "children": [
                milestone(
                    "editor",
                    "Open the new-contact form",
                    "打开新建联系人页面",
                    {
                        "activity": "com.android.contacts.activities.ContactEditorActivity",
                        "element": {"resource_id": "editor_first_name"},
                    },
                ),
                {
                    "id": "saved",
                    "order": "unordered",
                    "children": [
                        milestone(
                            "name",
                            "The name is exactly right",
                            "姓名完全正确",
                            {**saved, "element": {"resource_id": "large_title", "text": names, "case_sensitive": True}},
                        ),
                        milestone(
                            "phone",
                            "The phone number is exactly right",
                            "电话号码完全正确",
                            {**saved, "element": {"resource_id": "header", "text": numbers}},
                        ),
                    ],
                },
            ],
        },
        "end_state": [
            {
                "check": {
                    "state": {
                        "content": {
                            "uri": "content://com.android.contacts/data/phones",
                            "row": {
                                "display_name": {"equals": names, "case_sensitive": True},
                                "data1": {"digits": both(phone.en_digits, phone.zh_digits)},
                            },
                        }
                    }
                }
            }
        ],
        "reference": steps_for_both(
            [
                open_app("Contacts", "通讯录", CONTACTS),
                click("floating_action_button"),
                type_into(first, "editor_first_name"),
                type_into(last, "editor_last_name"),
                type_into(numbers, "editor_phone"),
                click("editor_menu_save_button"),
                {"type": "COMPLETE"},
            ]
        ),
    }


def build_text(v: Mapping[str, Any]) -> dict[str, Any]:
    name: Name = v["name"]
    phone: Phone = v["phone"]
    text: Text = v["text"]
    title = {"resource_id": "conversation_title", "text": name.en}
    return {
        "category": "1-4",
        "apps": [CONTACTS, MESSAGING],
        "instruction": {
            "en": f'Send {name.en} a text that says "{text.en}".',
            "zh": f"给{name.en}发一条短信：“{text.zh}”。",
        },
        # the contact is the parameters' own, put on the device by the start state (the same contact in both
        # languages: the start state has no language)
        "start": {"reset_apps": [CONTACTS, MESSAGING], "contacts": [{"name": name.en, "phone": phone.en}]},
        "max_steps": 14,
        "milestones": {
            "order": "ordered",
            "children": [
                milestone(
                    "thread",
                    f"A conversation with {name.en} is open",
                    f"打开与{name.en}的对话",
                    {"activity": CONVERSATION, "element": title},
                ),
                milestone(
                    "sent",
                    "The text is sent",
                    "短信已发送",
                    {
                        "activity": CONVERSATION,
                        "all_elements": [
                            title,
                            {"resource_id": "message_text", "text": text.loc(), "case_sensitive": True},
                        ],
                    },
                ),
            ],
        },
        "end_state": [
            {
                "check": {
                    "state": {
                        "content": {
                            "uri": "content://sms/sent",
                            "row": {
                                "address": {"digits": phone.en_digits},
                                "body": {"equals": text.loc(), "case_sensitive": True},
                            },
                        }
                    }
                }
            }
        ],
        "reference": steps_for_both(
            [
                open_app("Contacts", "通讯录", CONTACTS),
                type_into(name.first, "search_view"),
                click("cliv_name_textview", text=name.en),
                click("message_button"),
                click("permission_allow_button"),
                type_into(text.loc(), "compose_message_text"),
                click("send_message_button_icon"),
                {"type": "COMPLETE"},
            ]
        ),
    }


CONTACT = Family(
    "contacts-new",
    "a new contact with a name and a phone number (Contacts; judged by the contacts provider's rows)",
    {"name": NameParam(), "phone": PhoneParam()},
    build_contact,
)
TEXT = Family(
    "messages-text-contact",
    "a text with a given message to a contact the start state creates (Contacts, Messages; judged by content://sms/sent)",
    {"name": NameParam(), "phone": PhoneParam(), "text": TextParam(TEXTS)},
    build_text,
)
