"""Simple SMS Messenger's NewConversationActivity: whom to write to.

`new_conversation_toolbar` (Back, "New conversation"); `new_conversation_address` ("Add Contact or Number…", focused
with the keyboard up) and its check `new_conversation_confirm`, shown from three characters on, which opens the
conversation with what was typed (a number with letters is refused: "Can't reply to short codes like this");
"Suggestions" (`suggestions_holder`: the contacts among the latest messages' senders, `suggested_contact_name`);
the contacts (`contacts_list` of `item_contact_frame`: `item_contact_name`, `item_contact_number`, the number as
PhoneNumber.normalizedNumber), filtered as one types (by name or number, those whose name starts with the text
first), "No contacts found" when none is left. A contact opens the conversation with its number. Started with
EXTRA_TEXT (a forwarded message), the conversation opens with that text in its compose field.
"""

from __future__ import annotations

from typing import Any

from ..ui import widgets as w
from ..ui.layout import Ctx, Row, V, hlist
from ..ui.view import View
from .base import page
from .common import avatar_color
from .contacts import contacts_of
from .smsmessenger_data import conversations, normalized, same_number, tr
from .smsmessenger_thread import open_thread

TEXT_EXTRA = "android.intent.extra.TEXT"


def _launch(ctx: Ctx, number: str, name: str) -> None:
    """launchThreadActivity: the conversation with `number`, with the text this activity was started with (EXTRA_TEXT
    or `sms_body`) in its compose field."""
    ctx.hide_keyboard()
    text = ctx.extras.get(TEXT_EXTRA) or ctx.extras.get("sms_body") or ""
    open_thread(ctx, None, number, name, str(text))


def _confirm(ctx: Ctx) -> None:
    number = ctx.field_value("new_address").strip()
    if any(ch.isalpha() for ch in number):  # isShortCodeWithLetters
        ctx.set_field("new_address", "")
        ctx.toast(ctx.tr("Can't reply to short codes like this", "无法回复类似这样的短码"))
        return
    _launch(ctx, number, number)


def _suggestions(ctx: Ctx) -> list[tuple[str, str]]:
    """getSuggestedContacts: (name, number) of the contacts among the senders of the latest 50 messages."""
    out: list[tuple[str, str]] = []
    people = contacts_of(ctx.model)
    for c in conversations(ctx.model)[:50]:
        who = next((p for p in people if p.get("phone") and same_number(p["phone"], c.address)), None)
        if who is not None and not any(same_number(n, c.address) for _, n in out):
            out.append((str(who["name"]), c.address))
    return out


def _matching(ctx: Ctx, query: str) -> list[dict[str, Any]]:
    people = [p for p in contacts_of(ctx.model) if p.get("phone")]
    if not query:
        return people
    q = query.lower()
    hits = [p for p in people if q in normalized(str(p["phone"])).lower() or q in str(p["name"]).lower()]
    return sorted(hits, key=lambda p: not str(p["name"]).lower().startswith(q))


def screen(ctx: Ctx) -> list[View]:
    l, t, r, b = ctx.area
    th = ctx.theme
    tb = w.toolbar(
        ctx, tr(ctx, "new_conversation"), ("back", tr(ctx, "back"), ctx.finish), rid="new_conversation_toolbar"
    )
    y = tb.bounds[3]
    query = ctx.field_value("new_address")
    isz = ctx.dp(48)
    header: list[View] = [tb]
    field_r = r - ctx.dp(16) - (isz if len(query) > 2 else 0)
    header.append(
        w.edit(
            ctx,
            (l + ctx.dp(16), y, field_r, y + isz),
            "new_address",
            query,
            tr(ctx, "add_contact_or_number"),
            lambda v: ctx.set_field("new_address", v),
            "new_conversation_address",
            size=18,
            box="none",
        )
    )
    if len(query) > 2:
        confirm = w.icon(
            ctx,
            (r - ctx.dp(8) - isz, y, r - ctx.dp(8), y + isz),
            "check",
            th.text,
            "new_conversation_confirm",
            on_click=lambda: _confirm(ctx),
        )
        confirm.style["inset"] = ctx.dp(12)
        header.append(confirm)
    y += isz
    header.append(V(ctx, w.IMAGE, (l, y, r, y + max(1, ctx.dp(1))), "add_contact_divider", style={"bg": th.divider}))
    y += ctx.dp(1)
    suggested = _suggestions(ctx)
    if suggested:
        label_h = ctx.dp(36)
        header.append(
            w.text(
                ctx,
                (l + ctx.dp(16), y, r - ctx.dp(16), y + label_h),
                tr(ctx, "suggestions"),
                "suggestions_label",
                color=th.primary,
            )
        )
        y += label_h
        cell_w, cell_h = ctx.dp(80), ctx.dp(100)

        def cell(name: str, number: str) -> tuple[int, Any]:
            def build(x: int, yy: int, hh: int) -> View:
                holder = V(
                    ctx,
                    "android.widget.RelativeLayout",
                    (x, yy, x + cell_w, yy + hh),
                    "suggested_contact_holder",
                    clickable=True,
                    focusable=True,
                    on_click=lambda: _launch(ctx, normalized(number), name),
                )
                sz = ctx.dp(56)
                holder.children.append(
                    V(
                        ctx,
                        w.IMAGE,
                        (x + (cell_w - sz) // 2, yy, x + (cell_w + sz) // 2, yy + sz),
                        "suggested_contact_image",
                        style={
                            "kind": "avatar",
                            "letter": name[:1].upper(),
                            "bg": avatar_color(name),
                            "fg": (255, 255, 255),
                            "radius": sz // 2,
                            "size": ctx.sp(20),
                        },
                    )
                )
                holder.children.append(
                    w.text(
                        ctx,
                        (x, yy + sz + ctx.dp(4), x + cell_w, yy + hh),
                        name,
                        "suggested_contact_name",
                        align="c",
                        lines=2,
                        valign="t",
                        style={"ellipsize": True},
                    )
                )
                return holder

            return cell_w, build

        header.append(
            hlist(
                ctx,
                "suggestions",
                (l, y, r, y + cell_h),
                [cell(n, p) for n, p in suggested],
                "suggestions_holder",
                cls="android.widget.HorizontalScrollView",
                pad=ctx.dp(8),
            )
        )
        y += cell_h
    people = _matching(ctx, query)
    row_h = ctx.dp(72)
    rows: list[Row] = []
    for p in people:

        def build(x: int, yy: int, wd: int, p: dict[str, Any] = p) -> View:
            number = normalized(str(p["phone"]))
            return w.list_item(
                ctx,
                (x, yy, x + wd, yy + row_h),
                str(p["name"]),
                number,
                lambda: _launch(ctx, number, str(p["name"])),
                avatar=str(p["name"]),
                avatar_color=avatar_color(str(p["name"])),
                rid="item_contact_frame",
                title_rid="item_contact_name",
                summary_rid="item_contact_number",
                cls="android.view.ViewGroup",
            )

        rows.append(Row(row_h, build))
    if not people:
        rows.append(w.text_row(ctx, tr(ctx, "no_contacts_found"), "no_contacts_placeholder", size=18, align="c"))
    return page(ctx, header, rows, key="contacts", rid="contacts_list")
