"""Simple SMS Messenger's ThreadActivity: one conversation, from the telephony provider (`smsmessenger_data`).

- The toolbar (`thread_toolbar`): Back, the title (the contact's name, else the number), Delete (the whole
  conversation, after "Are you sure ...?") and Dial number (Phone's dial pad with the number).
- The messages (`thread_messages_list`, oldest first, from the end): a date/time row (`thread_date_time`) where
  more than five minutes passed, each message's `thread_message_holder` / `thread_message_body` (a received one with
  the sender's `thread_message_sender_photo`), "Not sent. Touch to retry." (`thread_error`) under a failed one,
  "Sending…" (`thread_sending`) under one in the outbox, and a check (`thread_success`) under the last if it is sent.
  Opening the thread marks its messages read and removes its notification.
- Touching "Not sent" puts the message back in the compose field and sends it again as the same message (the app's
  messageToResend; editing the text makes it a new one). A long press selects a message: the action mode
  (`action_mode_close_button` "Done", `actionbar_title` "1 / N", Copy to clipboard, Delete, More options > Forward).
- The compose bar (`message_holder`): `thread_add_attachment` (inert: no attachments), `thread_type_message`
  ("Type a message…"), `thread_send_message` ("SMS", content-desc "OK"; disabled while the text is empty). A number
  with letters (a short code) cannot be answered: "Sender doesn't support replies" instead of the bar.
- Leaving with text in the field keeps it as the conversation's draft (the list shows "Draft"); the app stores
  drafts in the provider's draft box, this twin keeps them with the app.
"""

from __future__ import annotations

import math
from typing import Any

from ..providers.sms import FAILED, INBOX, OUTBOX, SENT, SmsProvider
from ..records import INTENT_ACTION, INTENT_DATA
from ..ui import dialogs
from ..ui import widgets as w
from ..ui.fonts import text_width, wrap
from ..ui.layout import Ctx, Row, V
from ..ui.view import View
from .base import page
from .common import avatar_color
from .smsmessenger_data import (
    NEW,
    PKG,
    THREAD,
    delete_thread,
    mark_read,
    send,
    shown_date,
    thread_for,
    thread_rows,
    title_for,
    tr,
)

DIALER_PKG = "com.google.android.dialer"
MIN_DATE_TIME_DIFF_MS = 300_000  # ThreadActivity's MIN_DATE_TIME_DIFF_SECS


def draft_key(number: str) -> str:
    digits = "".join(ch for ch in number if ch.isdigit())
    return digits[-10:] or number


def open_thread(ctx: Ctx, thread_id: int | None, number: str, title: str, text: str = "") -> None:
    """Start ThreadActivity (THREAD_ID, THREAD_NUMBER, THREAD_TITLE, THREAD_TEXT)."""
    ctx.push(THREAD, {"thread_id": thread_id, "number": number, "name": title, "text": text})


def current(ctx: Ctx) -> tuple[int | None, str, list[dict[str, Any]]]:
    """(thread id, number, messages) of the conversation on screen: its thread, else the thread with its number
    (a new conversation has none until its first message)."""
    ex = ctx.extras
    number = str(ex.get("number") or "")
    tid = ex.get("thread_id")
    rows = thread_rows(ctx.model, tid)
    if not rows and number:
        tid = thread_for(ctx.model, number)
        rows = thread_rows(ctx.model, tid)
    if rows:
        ex["thread_id"] = tid
        if not number:
            number = str(rows[0]["address"])
    return tid, number, rows


def thread_opened(ctx: Ctx) -> None:
    """onCreate / onResume: the draft (or the intent's text) in the field, the messages read, the notification gone."""
    tid, number, rows = current(ctx)
    drafts: dict[str, str] = ctx.data.setdefault("drafts", {})
    text = str(ctx.extras.get("text") or "") or drafts.get(draft_key(number), "")
    ctx.set_field("compose", text)
    ctx.ui["resend"] = None
    ctx.ui["selected"] = None
    ctx.ui.setdefault("scroll", {})["thread"] = 10**9
    if tid is not None:
        mark_read(ctx.model, tid)
        with ctx.model.lock:
            for n in list(ctx.model.notifications.posted):
                if n.package == PKG and n.id == tid:
                    ctx.model.notifications.cancel(n.key)
    if not rows:
        ctx.set_focus("compose")


def thread_back(ctx: Ctx) -> bool:
    if ctx.ui.get("selected") is not None:  # the action mode ends first
        ctx.ui["selected"] = None
        return True
    _keep_draft(ctx)
    return False


def _keep_draft(ctx: Ctx) -> None:
    """onPause: the text left in the field is the conversation's draft (an empty field drops it)."""
    _, number, _ = current(ctx)
    drafts: dict[str, str] = ctx.data.setdefault("drafts", {})
    text = ctx.field_value("compose")
    if text:
        drafts[draft_key(number)] = text
    else:
        drafts.pop(draft_key(number), None)


def _up(ctx: Ctx) -> None:
    _keep_draft(ctx)
    ctx.finish()


def _send(ctx: Ctx) -> None:
    text = ctx.field_value("compose").strip()  # Simple-Commons' EditText.value is the trimmed text
    if not text:
        ctx.toast(ctx.tr("An unknown error occurred", "未知错误"))
        return
    _, number, _ = current(ctx)
    mid, sent = send(ctx.model, number, text, ctx.ui.get("resend"))
    ctx.ui["resend"] = None
    ctx.set_field("compose", "")
    ctx.data.setdefault("drafts", {}).pop(draft_key(number), None)
    ctx.ui.setdefault("scroll", {})["thread"] = 10**9
    current(ctx)  # the new conversation has its thread now
    if not sent:
        ctx.toast(tr(ctx, "error_radio_turned_off"))


def _retry(ctx: Ctx, message: dict[str, Any]) -> None:
    """handleItemClick(ThreadError): the failed message's text in the field, to be resent as that message."""
    ctx.set_field("compose", str(message["body"]))
    ctx.ui["resend"] = int(message["_id"])


def _typed(ctx: Ctx, value: str) -> None:
    ctx.set_field("compose", value)
    ctx.ui["resend"] = None  # onTextChangeListener: messageToResend = null


def screen(ctx: Ctx) -> list[View]:
    l, t, r, b = ctx.area
    th = ctx.theme
    tid, number, msgs = current(ctx)
    title = title_for(ctx.model, number) if number else str(ctx.extras.get("name") or "")
    selected = ctx.ui.get("selected")
    if selected is not None and not any(m["_id"] == selected for m in msgs):
        selected = ctx.ui["selected"] = None
    bar = _action_mode(ctx, msgs, selected) if selected is not None else _toolbar(ctx, title, number, bool(msgs))
    rows: list[Row] = []
    prev = -(10**15)
    size = ctx.sp(16)
    max_w = int((r - l) * 0.75)
    pad = ctx.dp(12)
    for i, m in enumerate(msgs):
        if m["date"] - prev > MIN_DATE_TIME_DIFF_MS:
            rows.append(
                w.text_row(ctx, shown_date(ctx.model, int(m["date"]), with_time=True), "thread_date_time", align="c")
            )
            prev = int(m["date"])
        rows.append(_message_row(ctx, m, title, size, max_w, pad, selected))
        kind = int(m["type"])
        if kind == FAILED:

            def error(x: int, y: int, wd: int, m: dict[str, Any] = m) -> View:
                return w.text(
                    ctx,
                    (x + wd // 3, y, x + wd - ctx.dp(16), y + ctx.dp(28)),
                    tr(ctx, "message_not_sent_touch_retry"),
                    "thread_error",
                    size=12,
                    color=(211, 47, 47),
                    align="r",
                    clickable=True,
                    focusable=True,
                    on_click=lambda: _retry(ctx, m),
                )

            rows.append(Row(ctx.dp(28), error))
        elif kind == OUTBOX:
            rows.append(w.text_row(ctx, tr(ctx, "sending"), "thread_sending", size=12, align="r", height_dp=28))
        if i == len(msgs) - 1 and kind == SENT:

            def success(x: int, y: int, wd: int) -> View:
                return w.icon(
                    ctx,
                    (x + wd - ctx.dp(36), y + ctx.dp(2), x + wd - ctx.dp(16), y + ctx.dp(22)),
                    "check",
                    th.text2,
                    "thread_success",
                )

            rows.append(Row(ctx.dp(24), success))
    footer_h = ctx.dp(64)
    footer = _compose_bar(ctx, number, footer_h)
    free = (b - footer_h) - bar.bounds[3] - sum(row.height for row in rows)
    if free > 0:  # stackFromEnd: a short conversation sits at the bottom, above the compose bar
        rows.insert(0, Row(free, lambda x, y, wd: None))
    return page(ctx, [bar], rows, key="thread", rid="thread_messages_list", footer=[footer], footer_h=footer_h)


def _toolbar(ctx: Ctx, title: str, number: str, has_messages: bool) -> View:
    actions: list[tuple[str, str, w.Click, str]] = []
    if has_messages:
        actions.append(("delete", tr(ctx, "delete"), lambda: ctx.show_dialog({"id": "delete"}), "delete"))
    if number and not any(ch.isalpha() for ch in number):

        def dial() -> None:  # Intent(ACTION_DIAL, tel:NUMBER)
            extras = {INTENT_ACTION: "android.intent.action.DIAL", INTENT_DATA: f"tel:{number}"}
            ctx.model.start_activity(DIALER_PKG, None, extras)

        actions.append(("phone", tr(ctx, "dial_number"), dial, "dial_number"))
    return w.toolbar(ctx, title, ("back", tr(ctx, "back"), lambda: _up(ctx)), actions, rid="thread_toolbar")


def _action_mode(ctx: Ctx, msgs: list[dict[str, Any]], selected: int) -> View:
    """Simple-Commons' action mode over the toolbar: Done, "1 / N", Copy to clipboard, Delete, More options."""
    msg = next(m for m in msgs if m["_id"] == selected)

    def done() -> None:
        ctx.ui["selected"] = None

    def copy() -> None:
        ctx.model.clipboard = str(msg["body"])
        ctx.ui["selected"] = None
        ctx.toast(tr(ctx, "value_copied_to_clipboard"))

    def delete() -> None:
        SmsProvider().delete(ctx.model, f"sms/{selected}", lambda r: True)
        ctx.ui["selected"] = None

    def more() -> None:
        ctx.show_dialog({"id": "cab_menu", "message": selected})

    bar = w.toolbar(
        ctx,
        f"1 / {len(msgs)}",
        ("back", tr(ctx, "done"), done),
        [
            ("copy", tr(ctx, "copy_to_clipboard"), copy, "cab_copy_to_clipboard"),
            ("delete", tr(ctx, "delete"), delete, "cab_delete"),
            ("more", ctx.tr("More options", "更多选项"), more, ""),
        ],
        rid="action_mode_bar",
        title_rid="actionbar_title",
        bg=ctx.theme.surface2,
    )
    for v in bar.children:
        if v.resource_id == "android:id/home":
            v.resource_id = ctx.rid("action_mode_close_button")
    return bar


def cab_menu(ctx: Ctx, spec: dict[str, Any]) -> View:
    """The action mode's overflow: Forward (NewConversationActivity with the message as EXTRA_TEXT)."""
    l, t, r, _ = ctx.area
    msg = next(
        (m for m in thread_rows(ctx.model, ctx.extras.get("thread_id")) if m["_id"] == spec.get("message")), None
    )

    def close() -> None:
        ctx.dismiss_dialog()

    def forward() -> None:
        ctx.dismiss_dialog()
        ctx.ui["selected"] = None
        if msg is not None:
            ctx.push(NEW, {"android.intent.extra.TEXT": str(msg["body"])})

    item_h = ctx.dp(48)
    wd = ctx.dp(200)
    box = (r - wd - ctx.dp(8), t + ctx.dp(8), r - ctx.dp(8), t + ctx.dp(16) + item_h)
    root = V(
        ctx,
        w.FRAME,
        box,
        style={"bg": ctx.theme.surface, "radius": ctx.dp(4), "shadow": True, "modal": True, "on_cancel": close},
    )
    lst = V(ctx, "android.widget.ListView", box)
    row = V(
        ctx,
        w.LINEAR,
        (box[0], box[1] + ctx.dp(8), box[2], box[1] + ctx.dp(8) + item_h),
        clickable=True,
        focusable=True,
        on_click=forward,
    )
    row.children.append(
        w.text(
            ctx,
            (box[0] + ctx.dp(16), row.bounds[1], box[2] - ctx.dp(16), row.bounds[3]),
            tr(ctx, "forward_message"),
            "android:id/title",
            size=16,
        )
    )
    lst.children.append(row)
    root.children.append(lst)
    return root


def _message_row(ctx: Ctx, m: dict[str, Any], title: str, size: int, max_w: int, pad: int, selected: int | None) -> Row:
    th = ctx.theme
    body = str(m["body"])
    lines = wrap(body, size, max_w - 2 * pad) if body else []
    widest = math.ceil(max(text_width(x, size) for x in lines)) if lines else 0
    bw = min(max_w, widest + 2 * pad + 1) if lines else ctx.dp(48)
    bh = ctx.line_h(16, max(1, len(lines))) + ctx.dp(16)
    h = bh + ctx.dp(8)
    received = int(m["type"]) == INBOX

    def build(x: int, y: int, wd: int) -> View:
        holder = V(
            ctx,
            "android.view.ViewGroup",
            (x, y, x + wd, y + h),
            "thread_message_holder",
            selected=m["_id"] == selected,
            style={"bg": th.surface2} if m["_id"] == selected else {},
        )
        photo = ctx.dp(36)
        x0 = x + ctx.dp(16) + photo + ctx.dp(8) if received else x + wd - ctx.dp(16) - bw
        left = x + ctx.dp(16) if received else x0
        wrapper = V(ctx, "android.widget.RelativeLayout", (left, y, x0 + bw, y + h), "thread_message_wrapper")
        if received:
            wrapper.children.append(
                V(
                    ctx,
                    w.IMAGE,
                    (x + ctx.dp(16), y + ctx.dp(4), x + ctx.dp(16) + photo, y + ctx.dp(4) + photo),
                    "thread_message_sender_photo",
                    clickable=True,
                    style={
                        "kind": "avatar",
                        "letter": (title[:1] if title[:1].isalpha() else "#").upper(),
                        "bg": avatar_color(title),
                        "fg": (255, 255, 255),
                        "radius": photo // 2,
                        "size": ctx.sp(16),
                    },
                )
            )

        def select() -> None:
            ctx.ui["selected"] = m["_id"]

        def click() -> None:  # with the action mode on, a click selects another message
            if ctx.ui.get("selected") is not None:
                select()

        wrapper.children.append(
            V(
                ctx,
                w.TEXT,
                (x0, y + ctx.dp(4), x0 + bw, y + ctx.dp(4) + bh),
                "thread_message_body",
                text=body,
                clickable=True,
                long_clickable=True,
                focusable=True,
                on_click=click,
                on_long_click=select,
                style={
                    "bg": th.bubble_in if received else th.primary,
                    "radius": ctx.dp(16),
                    "fg": th.text if received else th.on_primary,
                    "size": size,
                    "lines": max(1, len(lines)),
                    "pad": pad,
                    "valign": "c",
                },
            )
        )
        holder.children.append(wrapper)
        return holder

    return Row(h, build)


def _compose_bar(ctx: Ctx, number: str, h: int) -> View:
    l, _, r, b = ctx.area
    th = ctx.theme
    if number and any(ch.isalpha() for ch in number):  # maybeDisableShortCodeReply
        holder = V(ctx, w.LINEAR, (l, b - h, r, b), "short_code_holder", style={"bg": th.surface2})
        holder.children.append(
            w.text(
                ctx,
                (l + ctx.dp(16), b - h, r - ctx.dp(16), b),
                tr(ctx, "no_reply_support"),
                "short_code_info",
                align="c",
                color=th.text2,
            )
        )
        return holder
    bar = V(ctx, "android.view.ViewGroup", (l, b - h, r, b), "message_holder", style={"bg": th.surface})
    isz = ctx.dp(48)
    y0 = b - h + (h - isz) // 2
    attach = w.icon(
        ctx,
        (l + ctx.dp(4), y0, l + ctx.dp(4) + isz, y0 + isz),
        "add",
        th.text,
        "thread_add_attachment",
        tr(ctx, "attachment"),
        on_click=lambda: None,
    )
    attach.style["inset"] = ctx.dp(12)
    bar.children.append(attach)
    text = ctx.field_value("compose")
    send_w = ctx.dp(56)
    bar.children.append(
        w.edit(
            ctx,
            (l + ctx.dp(4) + isz + ctx.dp(4), y0, r - send_w - ctx.dp(8), y0 + isz),
            "compose",
            text,
            tr(ctx, "type_a_message"),
            lambda v: _typed(ctx, v),
            "thread_type_message",
            multiline=True,
            box="none",
        )
    )
    enabled = bool(text)
    color = th.text if enabled else th.text2
    box = (r - send_w - ctx.dp(4), y0, r - ctx.dp(4), y0 + isz)
    label_h = ctx.line_h(12)
    icon_box = (box[0] + ctx.dp(16), box[1] + ctx.dp(4), box[2] - ctx.dp(16), box[3] - label_h - ctx.dp(2))
    bar.children.append(w.icon(ctx, icon_box, "send", color))  # the button's drawableTop
    bar.children.append(
        V(
            ctx,
            w.BUTTON,
            box,
            "thread_send_message",
            text=tr(ctx, "sms"),
            desc=tr(ctx, "ok"),
            clickable=enabled,
            focusable=True,
            enabled=enabled,
            on_click=(lambda: _send(ctx)) if enabled else None,
            style={"fg": color, "size": ctx.sp(12), "align": "c", "valign": "t", "pad_top": isz - label_h - ctx.dp(2)},
        )
    )
    return bar


def delete_dialog(ctx: Ctx, spec: dict[str, Any]) -> View:
    """ConfirmationDialog: delete every message of the conversation, then leave it."""

    def yes() -> None:
        ctx.dismiss_dialog()
        tid, number, _ = current(ctx)
        if tid is not None:
            delete_thread(ctx.model, tid)
        ctx.data.setdefault("drafts", {}).pop(draft_key(number), None)
        ctx.set_field("compose", "")
        ctx.finish()

    return dialogs.dialog(
        ctx,
        "",
        tr(ctx, "delete_whole_conversation_confirmation"),
        [
            (tr(ctx, "yes"), "android:id/button1", yes),
            (tr(ctx, "no"), "android:id/button2", ctx.dismiss_dialog),
        ],
        on_cancel=ctx.dismiss_dialog,
    )
