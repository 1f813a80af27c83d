"""Contacts: an A-Z list with section headers and a search field, a contact detail page (call, text -> Messages,
email, edit, delete), and the editor to add or edit a contact (`contacts_editor`: first and last name, phone with
its type label, email).

Other apps read the contact list through `contacts_of(model)` (Messages' new-conversation picker).
"""

from __future__ import annotations

from functools import partial
from typing import Any

from ..ui import dialogs
from ..ui import widgets as w
from ..ui.host import Device
from ..ui.layout import Ctx, Row, V
from ..ui.view import View
from .base import App, page
from .common import MESSAGES_CONVERSATION, MESSAGES_PKG, avatar_color
from .contacts_data import DETAIL, EDITOR, LIST, PKG, find_contact, phone_type_label, phone_type_of
from .contacts_editor import custom_label_dialog, fill_from_insert, label_menu, open_editor
from .contacts_editor import screen as editor_screen

__all__ = ["DETAIL", "EDITOR", "LIST", "PKG", "ContactsApp", "contacts_of"]

SEED: dict[str, list[tuple[str, ...]]] = {
    "en": [
        ("Alice Johnson", "+1 650-555-0101", "alice.johnson@example.com"),
        ("Bob Smith", "+1 650-555-0102", "bob.smith@example.com"),
        ("Carlos Diaz", "+1 650-555-0103", "carlos.diaz@example.com"),
        ("Diana Evans", "+1 650-555-0104", "diana.evans@example.com"),
        ("Emma Wilson", "+1 650-555-0105", "emma.wilson@example.com"),
        ("Frank Miller", "+1 650-555-0106", ""),
        ("Grace Lee", "+1 650-555-0107", "grace.lee@example.com"),
        ("Henry Zhang", "+1 650-555-0108", "henry.zhang@example.com"),
        ("Isabel Garcia", "+1 650-555-0109", ""),
        ("Jack Brown", "+1 650-555-0110", "jack.brown@example.com"),
        ("Karen Davis", "+1 650-555-0111", "karen.davis@example.com"),
        ("Liam Nguyen", "+1 650-555-0112", ""),
        ("Mia Thompson", "+1 650-555-0113", "mia.thompson@example.com"),
        ("Noah Patel", "+1 650-555-0114", "noah.patel@example.com"),
        ("Olivia Martin", "+1 650-555-0115", "olivia.martin@example.com"),
    ],
    "zh": [
        ("张伟", "+86 138 0013 8001", "zhangwei@example.com", "zhang wei"),
        ("李娜", "+86 138 0013 8002", "lina@example.com", "li na"),
        ("王芳", "+86 138 0013 8003", "wangfang@example.com", "wang fang"),
        ("刘洋", "+86 138 0013 8004", "", "liu yang"),
        ("陈静", "+86 138 0013 8005", "chenjing@example.com", "chen jing"),
        ("杨磊", "+86 138 0013 8006", "", "yang lei"),
        ("赵敏", "+86 138 0013 8007", "zhaomin@example.com", "zhao min"),
        ("黄丽", "+86 138 0013 8008", "huangli@example.com", "huang li"),
        ("周杰", "+86 138 0013 8009", "", "zhou jie"),
        ("吴婷", "+86 138 0013 8010", "wuting@example.com", "wu ting"),
        ("徐强", "+86 138 0013 8011", "xuqiang@example.com", "xu qiang"),
        ("孙悦", "+86 138 0013 8012", "", "sun yue"),
        ("马超", "+86 138 0013 8013", "machao@example.com", "ma chao"),
        ("朱琳", "+86 138 0013 8014", "zhulin@example.com", "zhu lin"),
        ("胡军", "+86 138 0013 8015", "", "hu jun"),
    ],
}


def contacts_of(model: Device) -> list[dict[str, Any]]:
    """The contact list, sorted as the app shows it (seeded on first use)."""
    app = model.ui.apps.get(PKG)
    data = app.data(model) if app else model.app_data.get(PKG, {})
    return sorted(data.get("contacts", []), key=lambda c: (_section(c) == "#", c.get("sort") or c["name"].lower()))


def _section(c: dict[str, Any]) -> str:
    ch = (c.get("sort") or c["name"] or "#")[:1].upper()
    return ch if "A" <= ch <= "Z" else "#"


class ContactsApp(App):
    package = PKG
    labels = {"en": "Contacts", "zh": "通讯录"}
    activities = {LIST: "list", DETAIL: "detail", EDITOR: "editor"}
    launcher = LIST
    intent_filters = [
        ("android.intent.action.INSERT", "mime:vnd.android.cursor.dir/contact", EDITOR),
        ("android.intent.action.INSERT", "mime:vnd.android.cursor.dir/raw_contact", EDITOR),
    ]
    color = (26, 115, 232)
    glyph = "person"

    def seed(self, data: dict[str, Any], locale: str) -> None:
        rows = SEED.get(locale, SEED["en"])
        data["contacts"] = [
            {"id": i + 1, "name": r[0], "phone": r[1], "email": r[2], "sort": (r[3] if len(r) > 3 else r[0].lower())}
            for i, r in enumerate(rows)
        ]
        data["next_id"] = len(rows) + 1

    def on_intent(self, ctx: Ctx, action: str, extras: dict[str, Any]) -> None:
        """ContactsContract.Intents.Insert: the editor opens filled in from the `name`, `phone` (`phone_type`) and
        `email` extras (AndroidWorld adds contacts with `am start -a ...INSERT -t vnd.android.cursor.dir/contact`)."""
        if action == "android.intent.action.INSERT" and ctx.activity == EDITOR:
            fill_from_insert(ctx, extras)

    def _find(self, ctx: Ctx, cid: Any) -> dict[str, Any] | None:
        return find_contact(ctx.data, cid)

    # --- list ----------------------------------------------------------------------------------------
    def screen_list(self, ctx: Ctx) -> list[View]:
        l, t, r, b = ctx.area
        th = ctx.theme
        query = ctx.field_value("search")
        fh = ctx.dp(52)
        search = w.edit(
            ctx,
            (l + ctx.dp(16), t + ctx.dp(8), r - ctx.dp(16), t + ctx.dp(8) + fh),
            "search",
            query,
            ctx.tr("Search contacts", "搜索联系人"),
            lambda v: ctx.set_field("search", v),
            "search_view",
            action=ctx.hide_keyboard,
            action_kind="search",
            box="filled",
        )
        spacer = V(ctx, w.FRAME, (l, t, r, t + fh + ctx.dp(16)))
        q = query.strip().lower()
        people = contacts_of(ctx.model)
        if q:
            digits = "".join(ch for ch in q if ch.isdigit())
            people = [
                c
                for c in people
                if q in c["name"].lower()
                or q in (c.get("sort") or "")
                or (digits and digits in "".join(ch for ch in c["phone"] if ch.isdigit()))
            ]
        rows: list[Row] = []
        section = None
        row_h = ctx.dp(64)

        def header(sec: str, x: int, y: int, wd: int) -> View:
            return w.text(
                ctx,
                (x + ctx.dp(24), y, x + wd - ctx.dp(16), y + ctx.dp(36)),
                sec,
                "header",
                size=14,
                color=th.primary,
                bold=True,
            )

        for c in people:
            sec = _section(c)
            if sec != section and not q:
                section = sec
                rows.append(Row(ctx.dp(36), partial(header, sec)))

            def build(x: int, y: int, wd: int, c: dict[str, Any] = c) -> View:
                return w.list_item(
                    ctx,
                    (x, y, x + wd, y + row_h),
                    c["name"],
                    on_click=lambda: ctx.push(DETAIL, {"contact_id": c["id"]}),
                    avatar=c["name"],
                    avatar_color=avatar_color(c["name"]),
                    rid="contact_row",
                    title_rid="cliv_name_textview",
                    desc=c["name"],
                )

            rows.append(Row(row_h, build))
        if not people:
            rows.append(
                w.text_row(
                    ctx,
                    ctx.tr("No contacts found", "未找到联系人") if q else ctx.tr("No contacts", "没有联系人"),
                    "empty_list_view",
                    color=th.text2,
                    align="c",
                    height_dp=96,
                )
            )
        overlays = (
            []
            if ctx.keyboard
            else [
                w.fab(
                    ctx,
                    "add",
                    ctx.tr("Create contact", "新建联系人"),
                    lambda: open_editor(ctx, None),
                    "floating_action_button",
                )
            ]
        )
        return page(
            ctx, [spacer, search], rows, key="contacts", rid="contact_list", overlays=overlays, pad_bottom=ctx.dp(88)
        )

    # --- detail --------------------------------------------------------------------------------------
    def screen_detail(self, ctx: Ctx) -> list[View]:
        th = ctx.theme
        c = self._find(ctx, ctx.extras.get("contact_id"))
        l, t, r, b = ctx.area
        if c is None:
            tb = w.toolbar(ctx, "", ("back", ctx.tr("Navigate up", "向上导航"), ctx.finish))
            return [tb, w.text(ctx, (l, tb.bounds[3], r, b), ctx.tr("Contact not found", "找不到联系人"), align="c")]
        tb = w.toolbar(
            ctx,
            "",
            ("back", ctx.tr("Navigate up", "向上导航"), ctx.finish),
            [
                ("edit", ctx.tr("Edit contact", "修改联系人"), lambda: open_editor(ctx, c), "menu_edit"),
                (
                    "delete",
                    ctx.tr("Delete", "删除"),
                    lambda: ctx.show_dialog({"id": "delete", "contact_id": c["id"]}),
                    "menu_delete",
                ),
            ],
        )
        big = ctx.dp(112)
        rows: list[Row] = [
            Row(
                big + ctx.dp(16),
                lambda x, y, wd: V(
                    ctx,
                    w.IMAGE,
                    (x + wd // 2 - big // 2, y + ctx.dp(8), x + wd // 2 + big // 2, y + ctx.dp(8) + big),
                    "photo",
                    style={
                        "kind": "avatar",
                        "letter": c["name"][:1].upper(),
                        "bg": avatar_color(c["name"]),
                        "radius": big // 2,
                        "size": ctx.sp(48),
                        "fg": (255, 255, 255),
                    },
                ),
            ),
            Row(
                ctx.dp(52),
                lambda x, y, wd: w.text(
                    ctx,
                    (x + ctx.dp(16), y, x + wd - ctx.dp(16), y + ctx.dp(52)),
                    c["name"],
                    "large_title",
                    size=28,
                    align="c",
                ),
            ),
        ]

        def text_contact() -> None:
            extras = {"phone": c["phone"], "name": c["name"]}
            ctx.start(MESSAGES_PKG, MESSAGES_CONVERSATION, extras)
            top = ctx.model.foreground
            if top.package == MESSAGES_PKG and top.activity == MESSAGES_CONVERSATION:
                top.extras.clear()
                top.extras.update(extras)

        def call() -> None:
            ctx.toast(ctx.tr(f"Calling {c['name']}…", f"正在呼叫{c['name']}…"))

        def email() -> None:
            ctx.toast(
                ctx.tr("No email app installed", "未安装电子邮件应用")
                if c.get("email")
                else ctx.tr("No email address", "没有电子邮件地址")
            )

        def actions(x: int, y: int, wd: int) -> list[View]:
            items = [
                ("phone", ctx.tr("Call", "通话"), call, "call_button"),
                ("message", ctx.tr("Text", "短信"), text_contact, "message_button"),
                ("mail", ctx.tr("Email", "电子邮件"), email, "email_button"),
            ]
            cw = min(ctx.dp(96), wd // 3)
            x0 = x + (wd - cw * 3) // 2
            out = []
            for i, (ic, label, cb, rid) in enumerate(items):
                bx = x0 + i * cw
                v = V(
                    ctx,
                    w.BUTTON,
                    (bx, y, bx + cw, y + ctx.dp(80)),
                    rid,
                    desc=label,
                    clickable=True,
                    focusable=True,
                    on_click=cb,
                )
                v.children.append(
                    w.icon(
                        ctx,
                        (bx + cw // 2 - ctx.dp(24), y + ctx.dp(4), bx + cw // 2 + ctx.dp(24), y + ctx.dp(52)),
                        ic,
                        th.on_primary_container,
                        bg=th.primary_container,
                    )
                )
                v.children.append(w.text(ctx, (bx, y + ctx.dp(54), bx + cw, y + ctx.dp(78)), label, size=13, align="c"))
                out.append(v)
            return out

        rows.append(Row(ctx.dp(96), actions))
        h = ctx.dp(72)
        rows.append(
            Row(
                h,
                lambda x, y, wd: w.list_item(
                    ctx,
                    (x, y, x + wd, y + h),
                    c["phone"],
                    phone_type_label(phone_type_of(c), c.get("phone_label", ""), ctx.zh),
                    call,
                    leading=("phone", th.text2),
                    rid="phone_row",
                    title_rid="header",
                    summary_rid="sub_header",
                ),
            )
        )
        if c.get("email"):
            rows.append(
                Row(
                    h,
                    lambda x, y, wd: w.list_item(
                        ctx,
                        (x, y, x + wd, y + h),
                        c["email"],
                        ctx.tr("Email", "电子邮件"),
                        email,
                        leading=("mail", th.text2),
                        rid="email_row",
                        title_rid="header",
                        summary_rid="sub_header",
                    ),
                )
            )
        return page(ctx, [tb], rows, key="detail", rid="contact_detail")

    # --- editor (contacts_editor) ----------------------------------------------------------------------
    def screen_editor(self, ctx: Ctx) -> list[View]:
        return editor_screen(ctx)

    def dialog_phone_type(self, ctx: Ctx, spec: dict[str, Any]) -> View:
        return label_menu(ctx, spec)

    def dialog_custom_label(self, ctx: Ctx, spec: dict[str, Any]) -> View:
        return custom_label_dialog(ctx, spec)

    def dialog_delete(self, ctx: Ctx, spec: dict[str, Any]) -> View:
        c = self._find(ctx, spec.get("contact_id"))

        def delete() -> None:
            ctx.data["contacts"] = [x for x in ctx.data["contacts"] if x["id"] != spec.get("contact_id")]
            ctx.dismiss_dialog()
            ctx.finish()
            ctx.toast(ctx.tr("Contact deleted", "联系人已删除"))

        name = c["name"] if c else ""
        return dialogs.dialog(
            ctx,
            ctx.tr("Delete this contact?", "要删除此联系人吗？"),
            ctx.tr(f"{name} will be removed from your contacts.", f"{name}将从您的通讯录中移除。"),
            dialogs.confirm_buttons(ctx, ctx.tr("Delete", "删除"), delete, ctx.dismiss_dialog),
            on_cancel=ctx.dismiss_dialog,
        )
