"""Messages: conversation list, a conversation (bubbles, compose field, send), and a new-conversation picker
over the Contacts app's data. The first launch asks for the SMS permission through a system dialog
(package com.google.android.permissioncontroller); denying it blocks sending until it is granted.
"""

from __future__ import annotations

import math
from typing import Any
from urllib.parse import parse_qs, unquote

from ..records import INTENT_DATA
from ..ui import dialogs
from ..ui import widgets as w
from ..ui.fonts import text_width, wrap
from ..ui.layout import Ctx, Row, V
from ..ui.view import View
from .base import App, page
from .common import DEVICE_HOUR, DEVICE_MINUTE, MESSAGES_CONVERSATION, MESSAGES_PKG, avatar_color, fmt_time

PKG = MESSAGES_PKG
LIST = "com.google.android.apps.messaging.ui.ConversationListActivity"
CONVERSATION = MESSAGES_CONVERSATION
NEW = "com.google.android.apps.messaging.ui.contact.NewConversationActivity"
PERMISSION_PKG = "com.google.android.permissioncontroller"
PERMISSION_RID = "com.android.permissioncontroller:id/"

SEED = {
    "en": [
        (
            "Alice Johnson",
            "+1 650-555-0101",
            [
                (False, "Are we still on for lunch tomorrow?", "11:42 AM"),
                (True, "Yes! 12:30 at the usual place?", "11:45 AM"),
                (False, "Perfect, see you there", "11:46 AM"),
            ],
            False,
        ),
        ("Bob Smith", "+1 650-555-0102", [(False, "Can you send me the slides from today?", "9:15 AM")], True),
        ("22000", "22000", [(False, "Your verification code is 482913. Do not share it with anyone.", "Sun")], False),
    ],
    "zh": [
        (
            "张伟",
            "+86 138 0013 8001",
            [
                (False, "明天中午还一起吃饭吗？", "上午11:42"),
                (True, "好呀！12:30 老地方？", "上午11:45"),
                (False, "好的，到时见", "上午11:46"),
            ],
            False,
        ),
        ("李娜", "+86 138 0013 8002", [(False, "能把今天的幻灯片发给我吗？", "上午9:15")], True),
        ("10690000", "10690000", [(False, "您的验证码是 482913，请勿泄露给他人。", "周日")], False),
    ],
}


def _digits(s: str) -> str:
    return "".join(ch for ch in s if ch.isdigit())


class MessagesApp(App):
    package = PKG
    labels = {"en": "Messages", "zh": "信息"}
    activities = {LIST: "list", CONVERSATION: "conversation", NEW: "new"}
    launcher = LIST
    intent_filters = [
        (action, f"scheme:{scheme}", CONVERSATION)
        for action in ("android.intent.action.SENDTO", "android.intent.action.VIEW")
        for scheme in ("sms", "smsto", "mms", "mmsto")
    ]
    color = (11, 87, 208)
    glyph = "message"

    def seed(self, data: dict[str, Any], locale: str) -> None:
        data["permission"] = None
        data["threads"] = [
            {
                "id": i + 1,
                "name": name,
                "phone": phone,
                "unread": unread,
                "messages": [{"me": me, "text": text, "time": tm} for me, text, tm in msgs],
            }
            for i, (name, phone, msgs, unread) in enumerate(SEED.get(locale, SEED["en"]))
        ]
        data["next_id"] = len(data["threads"]) + 1

    def on_create(self, ctx: Ctx) -> None:
        if ctx.data.get("permission") is None:
            ctx.show_dialog({"id": "permission"})

    def on_intent(self, ctx: Ctx, action: str, extras: dict[str, Any]) -> None:
        """SENDTO / VIEW `sms:NUMBER[?body=TEXT]`: the conversation with that number (its thread, or a new one
        named as the number's contact) with the text (`sms_body` extra, or the URI's body) in the compose field."""
        if ctx.activity != CONVERSATION:
            return
        uri = str(extras.get(INTENT_DATA) or "")
        number, _, query = uri.partition(":")[2].partition("?")
        number = unquote(number).split(",")[0].strip()
        body = extras.get("sms_body")
        if body is None:
            body = parse_qs(query).get("body", [""])[0]
        thread = self._thread_for(ctx, number)
        from .contacts import contacts_of

        who = next((c for c in contacts_of(ctx.model) if self._thread_for_match(c.get("phone", ""), number)), None)
        extras.pop("thread_id", None)
        if thread is not None:
            extras["thread_id"] = thread["id"]
            thread["unread"] = False
        extras.update(phone=number, name=who["name"] if who else number)
        ctx.ui.setdefault("scroll", {}).pop("conversation", None)
        ctx.set_field("compose", str(body or ""))

    @staticmethod
    def _thread_for_match(a: str, b: str) -> bool:
        da, db = _digits(a), _digits(b)
        return bool(da and db) and da[-10:] == db[-10:]

    # --- helpers -------------------------------------------------------------------------------------
    def _thread(self, ctx: Ctx) -> dict[str, Any] | None:
        ex = ctx.extras
        threads = ctx.data["threads"]
        if ex.get("thread_id") is not None:
            t = next((t for t in threads if t["id"] == ex["thread_id"]), None)
            if t is not None:
                return t
        phone = _digits(str(ex.get("phone", "")))
        if phone:
            return next((t for t in threads if _digits(t["phone"])[-10:] == phone[-10:]), None)
        return None

    def _open(
        self, ctx: Ctx, thread: dict[str, Any] | None = None, phone: str = "", name: str = "", replace: bool = False
    ) -> None:
        ctx.set_field("compose", "")
        ctx.ui.setdefault("scroll", {}).pop("conversation", None)
        if replace:
            ctx.finish()
        if thread is not None:
            thread["unread"] = False
            ctx.push(CONVERSATION, {"thread_id": thread["id"]})
        else:
            ctx.push(CONVERSATION, {"phone": phone, "name": name or phone})

    def _send(self, ctx: Ctx) -> None:
        text = ctx.field_value("compose")
        if not text.strip():
            return
        data = ctx.data
        if data.get("permission") != "granted":
            ctx.show_dialog({"id": "permission"})
            return
        t = self._thread(ctx)
        if t is None:
            tid = int(data.get("next_id", 1))
            data["next_id"] = tid + 1
            t = {
                "id": tid,
                "name": ctx.extras.get("name") or ctx.extras.get("phone", ""),
                "phone": ctx.extras.get("phone", ""),
                "unread": False,
                "messages": [],
            }
            ctx.extras.clear()
            ctx.extras["thread_id"] = tid
        else:
            data["threads"].remove(t)
        data["threads"].insert(0, t)
        t["messages"].append({"me": True, "text": text, "time": fmt_time(DEVICE_HOUR, DEVICE_MINUTE, ctx.zh)})
        ctx.set_field("compose", "")
        ctx.ui.setdefault("scroll", {})["conversation"] = 10**9
        ctx.model.events.log("sms", action="send", to=t["phone"], text=text)

    # --- list ----------------------------------------------------------------------------------------
    def screen_list(self, ctx: Ctx) -> list[View]:
        th = ctx.theme
        tb = w.toolbar(
            ctx,
            self.label(ctx.locale),
            None,
            [
                ("search", ctx.tr("Search", "搜索"), lambda: None, "action_zero_state_search"),
                ("person", ctx.tr("Account", "账号"), lambda: None, "selected_account_disc"),
            ],
        )
        rows: list[Row] = []
        if ctx.data.get("permission") == "denied":
            note = ctx.tr("Messages needs permission to send and view SMS", "“信息”需要获得发送和查看短信的权限")
            allow = ctx.tr("Allow", "允许")
            n = min(3, len(wrap(note, ctx.sp(14), (ctx.area[2] - ctx.area[0]) - ctx.dp(64))))
            h = max(ctx.dp(112), ctx.dp(16 + 56) + ctx.line_h(14, n))
            bw = max(ctx.dp(104), int(text_width(allow, ctx.sp(14), True)) + ctx.dp(48))

            def banner(x: int, y: int, wd: int) -> View:
                card = w.card_bg(
                    ctx, (x + ctx.dp(16), y + ctx.dp(8), x + wd - ctx.dp(16), y + h - ctx.dp(8)), "permission_banner"
                )
                card.children.append(
                    w.text(
                        ctx,
                        (x + ctx.dp(32), y + ctx.dp(16), x + wd - ctx.dp(32), y + ctx.dp(16) + ctx.line_h(14, n)),
                        note,
                        "permission_banner_text",
                        size=14,
                        lines=n,
                        valign="t",
                    )
                )
                card.children.append(
                    w.button(
                        ctx,
                        (x + wd - ctx.dp(32) - bw, y + h - ctx.dp(56), x + wd - ctx.dp(32), y + h - ctx.dp(20)),
                        allow,
                        lambda: ctx.show_dialog({"id": "permission"}),
                        "permission_banner_button",
                    )
                )
                return card

            rows.append(Row(h, banner))
        row_h = ctx.dp(76)
        for t in ctx.data["threads"]:
            last: dict[str, Any] = t["messages"][-1] if t["messages"] else {"text": "", "time": "", "me": False}
            snippet = (ctx.tr("You: ", "您：") if last["me"] else "") + last["text"]

            def build(
                x: int, y: int, wd: int, t: dict[str, Any] = t, snippet: str = snippet, last: dict[str, Any] = last
            ) -> View:
                v = w.list_item(
                    ctx,
                    (x, y, x + wd, y + row_h),
                    t["name"],
                    snippet,
                    lambda: self._open(ctx, t),
                    avatar=t["name"] if not t["name"][:1].isdigit() else "#",
                    avatar_color=avatar_color(t["name"]),
                    rid="swipeableContainer",
                    title_rid="conversation_name",
                    summary_rid="conversation_snippet",
                    trailing_text=last["time"],
                    trailing_rid="conversation_timestamp",
                    ellipsize=True,  # one line of the name, one of the last message
                )
                if t.get("unread"):
                    for c in v.children:
                        if c.resource_id.endswith(("conversation_name", "conversation_snippet")):
                            c.style.update(bold=True, fg=th.text)
                return v

            rows.append(Row(row_h, build))

        def start_chat() -> None:
            ctx.set_field("to", "")  # a new chat starts empty
            ctx.push(NEW, focus="to")

        overlays = [
            w.fab(
                ctx,
                "message",
                ctx.tr("Start chat", "发起聊天"),
                start_chat,
                "start_chat_fab",
                label=ctx.tr("Start chat", "发起聊天"),
            )
        ]
        return page(ctx, [tb], rows, key="threads", rid="conversation_list", overlays=overlays, pad_bottom=ctx.dp(88))

    # --- conversation --------------------------------------------------------------------------------
    def screen_conversation(self, ctx: Ctx) -> list[View]:
        l, t, r, b = ctx.area
        th = ctx.theme
        thread = self._thread(ctx)
        name = thread["name"] if thread else (ctx.extras.get("name") or ctx.extras.get("phone") or "")
        phone = thread["phone"] if thread else ctx.extras.get("phone", "")
        tb = w.toolbar(
            ctx,
            name,
            ("back", ctx.tr("Navigate up", "向上导航"), ctx.finish),
            [
                (
                    "phone",
                    ctx.tr("Call", "通话"),
                    lambda: ctx.toast(ctx.tr(f"Calling {phone}…", f"正在呼叫 {phone}…")),
                    "action_call",
                )
            ],
            title_rid="conversation_title",
        )
        msgs = thread["messages"] if thread else []
        rows: list[Row] = []

        size = ctx.sp(16)
        max_w = int((r - l) * 0.72)
        pad = ctx.dp(16)
        for m in msgs:
            lines = wrap(m["text"], size, max_w - 2 * pad)
            widest = math.ceil(max(text_width(x, size) for x in lines)) if lines else 0
            bw = min(max_w, widest + 2 * pad + 1) if lines else ctx.dp(48)
            bh = ctx.line_h(16, len(lines)) + ctx.dp(20)
            h = bh + ctx.dp(28)

            def build(
                x: int, y: int, wd: int, m: dict[str, Any] = m, bw: int = bw, bh: int = bh, n: int = len(lines)
            ) -> View:
                me = m["me"]
                x0 = x + wd - ctx.dp(16) - bw if me else x + ctx.dp(16)
                holder = V(
                    ctx,
                    w.FRAME,
                    (x, y, x + wd, y + bh + ctx.dp(28)),
                    "message_content",
                    desc=(ctx.tr("You said ", "您说 ") if me else f"{name}: ") + m["text"],
                )
                holder.children.append(
                    V(
                        ctx,
                        w.TEXT,
                        (x0, y + ctx.dp(4), x0 + bw, y + ctx.dp(4) + bh),
                        "message_text",
                        text=m["text"],
                        long_clickable=True,
                        on_long_click=lambda: self._copy(ctx, m["text"]),
                        style={
                            "bg": th.bubble_out if me else th.bubble_in,
                            "radius": ctx.dp(18),
                            "fg": th.on_bubble_out if me else th.text,
                            "size": size,
                            "lines": n,
                            "pad": pad,
                            "valign": "c",
                        },
                    )
                )
                holder.children.append(
                    w.text(
                        ctx,
                        (x0, y + bh + ctx.dp(6), x0 + bw, y + bh + ctx.dp(26)),
                        m["time"],
                        "message_status",
                        size=11,
                        color=th.text2,
                        align="r" if me else "l",
                    )
                )
                return holder

            rows.append(Row(h, build))
        if not msgs:
            rows.append(
                w.text_row(
                    ctx,
                    ctx.tr(f"Start a conversation with {name}", f"开始与{name}对话"),
                    "empty_conversation",
                    color=th.text2,
                    align="c",
                    height_dp=96,
                )
            )
        st = ctx.ui.setdefault("scroll", {})
        st.setdefault("conversation", 10**9)
        footer_h = ctx.dp(72)
        compose = ctx.field_value("compose")
        bar = V(ctx, w.LINEAR, (l, b - footer_h, r, b), "compose_message_container", style={"bg": th.bg})
        sz = ctx.dp(48)
        fy = b - footer_h + (footer_h - sz) // 2
        bar.children.append(
            w.edit(
                ctx,
                (l + ctx.dp(12), fy, r - ctx.dp(12) - sz - ctx.dp(8), fy + sz),
                "compose",
                compose,
                ctx.tr("Text message", "短信"),
                lambda v: ctx.set_field("compose", v),
                "compose_message_text",
                multiline=True,
                action=lambda: self._send(ctx),
                action_kind="send",
                box="filled",
            )
        )
        send = w.icon(
            ctx,
            (r - ctx.dp(12) - sz, fy, r - ctx.dp(12), fy + sz),
            "send",
            th.on_primary if compose.strip() else th.text2,
            "send_message_button_icon",
            ctx.tr("Send SMS", "发送短信"),
            bg=th.primary if compose.strip() else th.surface2,
            cls=w.IMAGE_BUTTON,
            on_click=lambda: self._send(ctx),
        )
        send.enabled = bool(compose.strip())
        send.style["inset"] = ctx.dp(12)
        bar.children.append(send)
        return page(ctx, [tb], rows, key="conversation", rid="messages_list", footer=[bar], footer_h=footer_h)

    def _copy(self, ctx: Ctx, text: str) -> None:
        ctx.model.clipboard = text
        ctx.toast(ctx.tr("Message copied", "已复制消息"))

    # --- new conversation ---------------------------------------------------------------------------
    def screen_new(self, ctx: Ctx) -> list[View]:
        from .contacts import contacts_of

        l, t, r, b = ctx.area
        th = ctx.theme
        tb = w.toolbar(
            ctx, ctx.tr("New conversation", "新对话"), ("back", ctx.tr("Navigate up", "向上导航"), ctx.finish)
        )
        y = tb.bounds[3]
        query = ctx.field_value("to")
        to = ctx.tr("To", "收件人")
        lab_r = l + ctx.dp(16) + max(ctx.dp(40), math.ceil(text_width(to, ctx.sp(16))) + ctx.dp(4))
        lab = w.text(ctx, (l + ctx.dp(16), y, lab_r, y + ctx.dp(56)), to, "to_label", size=16, color=th.text2)

        def submit() -> None:
            q = query.strip()
            matches = self._matches(ctx, contacts_of(ctx.model), q)
            if matches:
                c = matches[0]
                self._open(ctx, self._thread_for(ctx, c["phone"]), c["phone"], c["name"], replace=True)
            elif _digits(q):
                self._open(ctx, self._thread_for(ctx, q), q, q, replace=True)

        field = w.edit(
            ctx,
            (lab_r + ctx.dp(4), y + ctx.dp(4), r - ctx.dp(16), y + ctx.dp(52)),
            "to",
            query,
            ctx.tr("Type name, phone number, or email", "输入姓名、电话号码或电子邮件地址"),
            lambda v: ctx.set_field("to", v),
            "recipient_text_view",
            action=submit,
            action_kind="go",
            box="underline",
        )
        spacer = V(ctx, w.FRAME, (l, y, r, y + ctx.dp(60)))
        people = self._matches(ctx, contacts_of(ctx.model), query.strip())
        row_h = ctx.dp(72)
        rows: list[Row] = []
        for c in people:

            def build(x: int, yy: int, wd: int, c: dict[str, Any] = c) -> View:
                return w.list_item(
                    ctx,
                    (x, yy, x + wd, yy + row_h),
                    c["name"],
                    c["phone"],
                    lambda: self._open(ctx, self._thread_for(ctx, c["phone"]), c["phone"], c["name"], replace=True),
                    avatar=c["name"],
                    avatar_color=avatar_color(c["name"]),
                    rid="contact_picker_item",
                    title_rid="contact_name",
                    summary_rid="contact_details",
                )

            rows.append(Row(row_h, build))
        if not people and query.strip():
            rows.append(
                w.text_row(
                    ctx,
                    ctx.tr(f"Send to {query.strip()}", f"发送给 {query.strip()}"),
                    "send_to_number",
                    color=th.primary,
                )
            )
        return page(ctx, [tb, spacer, lab, field], rows, key="picker", rid="contact_picker_list")

    def _matches(self, ctx: Ctx, people: list[dict[str, Any]], q: str) -> list[dict[str, Any]]:
        if not q:
            return people
        ql = q.lower()
        d = _digits(q)
        return [
            c
            for c in people
            if ql in c["name"].lower() or ql in (c.get("sort") or "") or (d and d in _digits(c["phone"]))
        ]

    def _thread_for(self, ctx: Ctx, phone: str) -> dict[str, Any] | None:
        p = _digits(phone)
        return next((t for t in ctx.data["threads"] if p and _digits(t["phone"])[-10:] == p[-10:]), None)

    # --- the runtime permission dialog ---------------------------------------------------------------
    def dialog_permission(self, ctx: Ctx, spec: dict[str, Any]) -> View:
        def grant(ok: bool) -> None:
            ctx.data["permission"] = "granted" if ok else "denied"
            ctx.dismiss_dialog()
            ctx.model.events.log("permission", package=PKG, permission="android.permission.SEND_SMS", granted=ok)

        return dialogs.dialog(
            ctx,
            ctx.tr("Allow Messages to send and view SMS messages?", "要允许“信息”发送和查看短信吗？"),
            "",
            [
                (ctx.tr("Allow", "允许"), PERMISSION_RID + "permission_allow_button", lambda: grant(True)),
                (ctx.tr("Don\u2019t allow", "不允许"), PERMISSION_RID + "permission_deny_button", lambda: grant(False)),
            ],
            on_cancel=lambda: grant(False),
            package=PERMISSION_PKG,
            icon_name="message",
            centered_buttons=True,
            title_rid=PERMISSION_RID + "permission_message",
            width_dp=320,
            cancel_outside=False,
        )
