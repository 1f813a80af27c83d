"""The Phone app's in-call screen (`InCallActivity`), drawn from the modem's calls (`model.hw.calls`, kept by
`telephony`): a ringing inbound call shows "Incoming call", the caller (the contact's name when the number is a
contact's, the number under it) and Answer / Decline buttons; an answered call shows "On call" (no timer) and
an End call button. Answer is the console's `gsm accept`, Decline and End call are its `gsm cancel`."""

from __future__ import annotations

from typing import Any

from ..providers.contacts import name_for
from ..telephony import RINGING_STATES, answer, hang_up, shown_call
from ..ui import widgets as w
from ..ui.layout import Ctx, V
from ..ui.theme import Color
from ..ui.view import View

BG: Color = (32, 33, 36)
FG: Color = (255, 255, 255)
FG2: Color = (189, 193, 198)
GREEN: Color = (30, 142, 62)
RED: Color = (217, 48, 37)


def _round_button(
    ctx: Ctx, cx: int, top: int, rid: str, label: str, color: Color, on_click: Any, glyph: str = "phone"
) -> View:
    """A round coloured button with its label under it; the whole of it is the button (content-desc = label)."""
    size, gap = ctx.dp(72), ctx.dp(8)
    box = (cx - ctx.dp(56), top, cx + ctx.dp(56), top + size + gap + ctx.dp(24))
    icon = w.icon(ctx, (cx - size // 2, top, cx + size // 2, top + size), glyph, FG, bg=color)
    text = w.text(ctx, (box[0], top + size + gap, box[2], box[3]), label, size=14, color=FG, align="c")
    return V(
        ctx,
        w.LINEAR,
        box,
        rid,
        desc=label,
        clickable=True,
        focusable=True,
        on_click=on_click,
        children=[icon, text],
    )


def screen(ctx: Ctx) -> list[View]:
    model = ctx.model
    l, t, r, b = ctx.area
    bg = V(ctx, w.FRAME, (l, t, r, b), "incall_screen", style={"bg": BG})
    call = shown_call(model.hw)
    if call is None:  # nothing to show (the activity opened by hand): an empty screen
        return [bg]
    ringing = call.inbound and call.state in RINGING_STATES
    number = call.number
    name = name_for(model, number)
    if ringing:
        state = ctx.tr("Incoming call", "来电")
    elif call.state == "held":
        state = ctx.tr("On hold", "通话保持中")
    else:
        state = ctx.tr("On call", "通话中")
    cx, y = (l + r) // 2, t + ctx.dp(48)
    small, big = max(ctx.dp(24), ctx.text_h(16)), max(ctx.dp(44), ctx.text_h(32))
    views = [
        bg,
        w.text(ctx, (l, y, r, y + small), state, "contactgrid_status_text", size=16, color=FG2, align="c"),
    ]
    y += small + ctx.dp(16)
    views.append(
        w.text(ctx, (l, y, r, y + big), name or number, "contactgrid_contact_name", size=32, color=FG, align="c")
    )
    y += big + ctx.dp(4)
    if name:
        views.append(
            w.text(ctx, (l, y, r, y + small), number, "contactgrid_caller_number", size=16, color=FG2, align="c")
        )
        y += small
    # the avatar in the middle of the screen, or of the room left between the texts and the buttons when the
    # screen is short (landscape)
    room_top, room_bottom = y + ctx.dp(8), b - ctx.dp(168)
    avatar = min(ctx.dp(96), room_bottom - room_top)
    ay = max(room_top, min((t + b) // 2 - avatar, room_bottom - avatar))
    if avatar >= ctx.dp(32):
        views.append(
            w.icon(
                ctx,
                (cx - avatar // 2, ay, cx + avatar // 2, ay + avatar),
                "letter" if name else "phone",
                FG,
                "contactgrid_avatar",
                bg=(95, 99, 104),
                letter=(name or "")[:1],
            )
        )
    top = b - ctx.dp(160)
    if ringing:
        off = (r - l) // 4
        views.append(
            _round_button(
                ctx,
                cx - off,
                top,
                "incoming_call_decline",
                ctx.tr("Decline", "拒接"),
                RED,
                lambda: hang_up(model, number),
                glyph="close",
            )
        )
        views.append(
            _round_button(
                ctx,
                cx + off,
                top,
                "incoming_call_answer",
                ctx.tr("Answer", "接听"),
                GREEN,
                lambda: answer(model, number),
            )
        )
    else:
        views.append(
            _round_button(
                ctx,
                cx,
                top,
                "incall_end_call_button",
                ctx.tr("End call", "结束通话"),
                RED,
                lambda: hang_up(model, number),
            )
        )
    return views


def on_back(ctx: Ctx) -> bool:
    """BACK while a call rings does nothing (the call must be answered or declined); else the screen goes."""
    call = shown_call(ctx.model.hw)
    return call is not None and call.inbound and call.state in RINGING_STATES
