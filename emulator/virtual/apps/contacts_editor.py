"""Google Contacts' contact editor (ContactEditorActivity): "Create contact" / "Edit contact".

The bar: Cancel (`android:id/home`), the title, Save (`editor_menu_save_button`, enabled once a name or a number is
typed). The fields, outlined EditTexts whose hints are the app's strings: "First name" (`editor_first_name`) and
"Last name" (`editor_last_name`) - in zh-CN "姓氏" before "名字", as the app orders a structured name's fields
there (config_editor_field_order_primary) -, "Phone" (`editor_phone`) with its type label below it, "Email"
(`editor_email`). The label is a Spinner (`spinner`) showing the phone's type (`android:id/text1`, "Mobile" for a
new contact, content description "<label> Phone"); a tap opens its menu of the phone kind's types in the app's
order (Mobile, Home, Work, Work Fax, Home Fax, Pager, Other, Custom, Callback, ...: CheckedTextViews
`android:id/text1`, the current one checked; a custom label in use heads the list). "Custom" asks for a label
("Custom label name", `custom_dialog_content`, OK once it is not blank).

Save writes the contact as the provider keeps it (`contacts_data`): the display name joined from the first and
last name, the phone's TYPE_* (and a custom label), the email. Left out: the photo, the account header, name
prefix / middle / suffix and the other kinds (address, company, ...), an email type, a second phone, the
"Discard changes?" question on Cancel.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..ui import dialogs
from ..ui import widgets as w
from ..ui.fonts import text_width
from ..ui.layout import Ctx, Row, V, vlist
from ..ui.view import View
from .base import editor_bar, page
from .contacts_data import (
    DETAIL,
    EDITOR,
    EDITOR_PHONE_TYPES,
    TYPE_CUSTOM,
    TYPE_MOBILE,
    find_contact,
    join_name,
    phone_type_label,
    phone_type_of,
    split_name,
    structured_name,
)

FIELDS = ("first", "last", "phone", "email")
HINTS = {
    "first": ("First name", "名字"),
    "last": ("Last name", "姓氏"),
    "phone": ("Phone", "电话"),
    "email": ("Email", "电子邮件"),
}
RIDS = {"first": "editor_first_name", "last": "editor_last_name", "phone": "editor_phone", "email": "editor_email"}
SPINNER = "android.widget.Spinner"
CHECKED_TEXT = "android.widget.CheckedTextView"
MENU_SCROLL = "phone_type_menu"


def name_keys(ctx: Ctx) -> tuple[str, str]:
    """The name fields in the order the locale shows them (family name first in zh-CN)."""
    return ("last", "first") if ctx.zh else ("first", "last")


def _set_fields(ctx: Ctx, given: str, family: str, phone: str, email: str, phone_type: int, label: str) -> None:
    for k, v in (("first", given), ("last", family), ("phone", phone), ("email", email), ("phone_label", label)):
        ctx.set_field(k, v)
    ctx.set_field("phone_type", str(phone_type))


def open_editor(ctx: Ctx, c: dict[str, Any] | None) -> None:
    """The editor of `c`, or of a new contact, its first name field focused."""
    if c is None:
        _set_fields(ctx, "", "", "", "", TYPE_MOBILE, "")
    else:
        given, family = structured_name(c)
        _set_fields(ctx, given, family, c["phone"], c.get("email", ""), phone_type_of(c), c.get("phone_label", ""))
    ctx.push(EDITOR, {"contact_id": c["id"] if c else None}, focus=name_keys(ctx)[0])


def fill_from_insert(ctx: Ctx, extras: dict[str, Any]) -> None:
    """ContactsContract.Intents.Insert's extras: `name` (split into first and last name), `phone`, `phone_type` (a
    TYPE_* number, or a custom label), `email`."""
    kind = str(extras.get("phone_type") or "").strip()
    phone_type, label = (int(kind), "") if kind.isdigit() else ((TYPE_CUSTOM, kind) if kind else (TYPE_MOBILE, ""))
    name, phone, email = (str(extras.get(k) or "") for k in ("name", "phone", "email"))
    _set_fields(ctx, *split_name(name), phone, email, phone_type, label)


def _phone_type(ctx: Ctx) -> int:
    return phone_type_of({"phone_type": ctx.field_value("phone_type", str(TYPE_MOBILE))})


def _label(ctx: Ctx) -> str:
    return phone_type_label(_phone_type(ctx), ctx.field_value("phone_label"), ctx.zh)


def screen(ctx: Ctx) -> list[View]:
    cid = ctx.extras.get("contact_id")
    first, last, phone = (ctx.field_value(k) for k in ("first", "last", "phone"))
    can_save = bool(first.strip() or last.strip() or phone.strip())
    title = ctx.tr("Edit contact", "修改联系人") if cid else ctx.tr("Create contact", "新建联系人")
    bar = editor_bar(ctx, "editor_toolbar", title, lambda: save(ctx), "editor_menu_save_button", can_save)
    order = [*name_keys(ctx), "phone", "email"]

    def field(key: str, after: str | None) -> Row:
        action: Callable[[], Any] = (lambda: ctx.set_focus(after)) if after else (lambda: save(ctx))
        return w.field_row(
            ctx,
            key,
            ctx.field_value(key),
            ctx.tr(*HINTS[key]),
            lambda v: ctx.set_field(key, v),
            RIDS[key],
            action=action,
            action_kind="next" if after else "done",
        )

    rows = [field(k, order[i + 1] if i + 1 < len(order) else None) for i, k in enumerate(order)]
    rows.insert(order.index("phone") + 1, _label_row(ctx))
    return page(ctx, [bar], rows, key="editor", rid="editor_fields", cls="android.widget.ScrollView")


def _label_row(ctx: Ctx) -> Row:
    """The phone's type label under its field: a Spinner showing the type, its menu on a tap."""
    h = ctx.dp(48)
    label = _label(ctx)
    kind = ctx.tr("Phone", "电话")

    def build(x: int, y: int, wd: int) -> View:
        pad = ctx.dp(16)
        width = min(wd - 2 * pad, max(ctx.dp(120), int(text_width(label, ctx.sp(16))) + ctx.dp(64)))
        box = (x + pad, y, x + pad + width, y + h)

        def tapped() -> None:
            ctx.ui.setdefault("scroll", {}).pop(MENU_SCROLL, None)
            ctx.show_dialog({"id": "phone_type", "anchor": [box[1], box[3]]})

        spinner = V(
            ctx,
            SPINNER,
            box,
            "spinner",
            clickable=True,
            focusable=True,
            on_click=tapped,
            style={"border": ctx.theme.text2, "radius": ctx.dp(4)},
        )
        text_box = (box[0] + pad, y, box[2] - ctx.dp(40), y + h)
        spinner.children.append(w.text(ctx, text_box, label, "android:id/text1", size=16, desc=f"{label} {kind}"))
        arrow = (box[2] - ctx.dp(36), y + ctx.dp(12), box[2] - ctx.dp(12), y + ctx.dp(36))
        spinner.children.append(w.icon(ctx, arrow, "drop_down", ctx.theme.text2))
        return spinner

    return Row(h + ctx.dp(8), build)


def label_menu(ctx: Ctx, spec: dict[str, Any]) -> View:
    """The label Spinner's drop-down (a ListPopupWindow): the types, the current one checked; a tap picks one
    ("Custom" asks for a label first)."""
    current, custom = _phone_type(ctx), ctx.field_value("phone_label")
    items: list[tuple[int, str]] = [(TYPE_CUSTOM, custom)] if current == TYPE_CUSTOM and custom else []
    items += [(t, "") for t in EDITOR_PHONE_TYPES]  # (type, the custom label in use: the head of the list only)
    l, t, r, b = ctx.area
    item_h, margin = ctx.dp(48), ctx.dp(8)
    height = min(len(items) * item_h + 2 * margin, b - t - 2 * margin)
    anchor = spec.get("anchor") or [t, t]
    top = max(t + margin, min(int(anchor[1]), b - margin - height))
    box = (l + ctx.dp(16), top, min(r - ctx.dp(16), l + ctx.dp(16) + ctx.dp(280)), top + height)

    def pick(phone_type: int, label: str) -> None:
        ctx.dismiss_dialog()
        if phone_type == TYPE_CUSTOM and not label:
            ctx.set_field("custom_label", "")
            ctx.show_dialog({"id": "custom_label"})
            ctx.set_focus("custom_label")
            return
        ctx.set_field("phone_type", str(phone_type))
        ctx.set_field("phone_label", label if phone_type == TYPE_CUSTOM else "")
        ctx.set_focus("phone", keyboard=False)  # requestFocusForFirstEditField

    rows = []
    for i, (phone_type, label) in enumerate(items):

        def build(x: int, y: int, wd: int, i: int = i, phone_type: int = phone_type, label: str = label) -> View:
            on = phone_type == current and (i == 0 or not (current == TYPE_CUSTOM and custom))
            return w.text(
                ctx,
                (x + ctx.dp(16), y, x + wd - ctx.dp(16), y + item_h),
                phone_type_label(phone_type, label, ctx.zh),
                "android:id/text1",
                size=16,
                cls=CHECKED_TEXT,
                checkable=True,
                checked=on,
                clickable=True,
                focusable=True,
                on_click=lambda: pick(phone_type, label),
                style={"bg": ctx.theme.surface2} if on else {},
            )

        rows.append(Row(item_h, build))
    root = dialogs.popup_window(ctx, box)
    root.children.append(vlist(ctx, MENU_SCROLL, box, rows, cls="android.widget.ListView", pad_top=margin))
    return root


def custom_label_dialog(ctx: Ctx, spec: dict[str, Any]) -> View:
    """The "Custom label name" dialog: the label typed, OK once it is not blank (the phone then is TYPE_CUSTOM
    with that label)."""
    text = ctx.field_value("custom_label")

    def ok() -> None:
        ctx.dismiss_dialog()
        ctx.set_field("phone_type", str(TYPE_CUSTOM))
        ctx.set_field("phone_label", text.strip())
        ctx.set_focus("phone", keyboard=False)

    def cancel() -> None:
        ctx.dismiss_dialog()
        ctx.set_focus(None)

    def build(x: int, y: int, wd: int) -> View:
        return w.edit(
            ctx,
            (x + ctx.dp(24), y, x + wd - ctx.dp(24), y + ctx.dp(48)),
            "custom_label",
            text,
            "",
            lambda v: ctx.set_field("custom_label", v),
            "custom_dialog_content",
            action=ok if text.strip() else None,
            box="underline",
        )

    dlg = dialogs.dialog(
        ctx,
        ctx.tr("Custom label name", "自定义标签名称"),
        "",
        [(ctx.tr("OK", "确定"), "android:id/button1", ok), (ctx.tr("Cancel", "取消"), "android:id/button2", cancel)],
        rows=[Row(ctx.dp(56), build)],
        on_cancel=cancel,
    )
    if not text.strip():
        for v in dlg.walk():
            if v.resource_id == "android:id/button1":
                v.enabled, v.on_click = False, None
    return dlg


def save(ctx: Ctx) -> None:
    """The contact written as the editor shows it (a new one opens its card), "Contact saved"."""
    given, family, phone, email = (ctx.field_value(k).strip() for k in FIELDS)
    name = join_name(given, family)
    if not (name or phone):
        ctx.toast(ctx.tr("Enter a name or phone number", "请输入姓名或电话号码"))
        return
    data = ctx.data
    c = find_contact(data, ctx.extras.get("contact_id"))
    new = c is None
    if c is None:
        cid = int(data.get("next_id", 1))
        data["next_id"] = cid + 1
        c = {"id": cid}
        data["contacts"].append(c)
    phone_type = _phone_type(ctx)
    c.update(
        name=name or phone,
        given=given,
        family=family,
        phone=phone,
        phone_type=phone_type,
        phone_label=ctx.field_value("phone_label").strip() if phone_type == TYPE_CUSTOM else "",
        email=email,
        sort=(name or phone).lower(),
    )
    ctx.finish()
    if new:
        ctx.push(DETAIL, {"contact_id": c["id"]})
    ctx.toast(ctx.tr("Contact saved", "联系人已保存"))
