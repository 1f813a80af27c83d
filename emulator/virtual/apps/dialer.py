"""Phone (the dialer), as far as intents reach it: DIAL, VIEW and CALL with a `tel:` URI open the dial pad with the
number in its field (CALL too: the shell may not place calls). A field to edit the
number, a keypad and a call button that says it cannot call. No launcher icon: the built-in home screen keeps
its apps where tasks expect them. An inbound call (the console's `gsm call`) rings with the in-call screen
(`incall`, `InCallActivity`)."""

from __future__ import annotations

from functools import partial
from typing import Any
from urllib.parse import unquote

from ..records import INTENT_DATA
from ..telephony import DIALER, INCALL
from ..ui import widgets as w
from ..ui.layout import Ctx, Row
from ..ui.theme import Color
from ..ui.view import View
from .base import App, page
from .incall import BG as INCALL_BG
from .incall import on_back as incall_back
from .incall import screen as incall_screen

PKG = DIALER
DIALTACTS = "com.google.android.dialer.extensions.GoogleDialtactsActivity"
KEYS = ["1", "2", "3", "4", "5", "6", "7", "8", "9", "*", "0", "#"]


class DialerApp(App):
    package = PKG
    labels = {"en": "Phone", "zh": "电话"}
    activities = {DIALTACTS: "dialpad", INCALL: "incall"}
    launcher = None
    color = (26, 115, 232)
    glyph = "phone"
    intent_filters = [(f"android.intent.action.{a}", "scheme:tel", DIALTACTS) for a in ("DIAL", "VIEW", "CALL")] + [
        ("android.intent.action.DIAL", "", DIALTACTS)
    ]

    def on_intent(self, ctx: Ctx, action: str, extras: dict[str, Any]) -> None:
        uri = str(extras.get(INTENT_DATA) or "")
        ctx.set_field("digits", unquote(uri.partition(":")[2]) if uri.startswith("tel:") else "")

    def on_back(self, ctx: Ctx) -> bool:
        return ctx.activity == INCALL and incall_back(ctx)

    def window_bg(self, ctx: Ctx) -> Color:
        return INCALL_BG if ctx.activity == INCALL else ctx.theme.bg

    def screen_incall(self, ctx: Ctx) -> list[View]:
        return incall_screen(ctx)

    def screen_dialpad(self, ctx: Ctx) -> list[View]:
        tb = w.toolbar(ctx, ctx.tr("Phone", "电话"), ("back", ctx.tr("Navigate up", "向上导航"), ctx.finish))
        number = ctx.field_value("digits")
        rows: list[Row] = [
            Row(
                ctx.dp(88),
                lambda x, y, wd: w.edit(
                    ctx,
                    (x + ctx.dp(24), y + ctx.dp(12), x + wd - ctx.dp(24), y + ctx.dp(80)),
                    "digits",
                    number,
                    "",
                    lambda v: ctx.set_field("digits", v),
                    "digits",
                    size=28,
                ),
            )
        ]
        kh = ctx.dp(64)
        for r in range(4):

            def keys(x: int, y: int, wd: int, r: int = r) -> list[View]:
                kw = min(ctx.dp(96), wd // 3)
                x0 = x + (wd - 3 * kw) // 2
                out = []
                for i, k in enumerate(KEYS[3 * r : 3 * r + 3]):
                    b = (x0 + i * kw + ctx.dp(6), y + ctx.dp(4), x0 + (i + 1) * kw - ctx.dp(6), y + kh - ctx.dp(4))
                    out.append(w.button(ctx, b, k, partial(self._press, ctx, k), f"dialpad_key_{k}", kind="tonal"))
                return out

            rows.append(Row(kh, keys))

        def call() -> None:
            ctx.toast(ctx.tr("Calls are not available on this device", "此设备无法拨打电话"))

        rows.append(
            Row(
                ctx.dp(88),
                lambda x, y, wd: w.button(
                    ctx,
                    (x + wd // 2 - ctx.dp(40), y + ctx.dp(12), x + wd // 2 + ctx.dp(40), y + ctx.dp(76)),
                    ctx.tr("Call", "拨打"),
                    call,
                    "dialpad_voice_call_button",
                    enabled=bool(number),
                ),
            )
        )
        return page(ctx, [tb], rows, key="dialpad", rid="dialpad_view")

    def _press(self, ctx: Ctx, key: str) -> None:
        ctx.set_field("digits", ctx.field_value("digits") + key)
