"""Clipper (`ca.zgrs.clipper`): the clipboard over adb that test harnesses install (AndroidWorld's set-up sets and
reads the clipboard through it). Its receiver takes `am broadcast -a clipper.set -e text TEXT` (also `set`): the
clipboard is TEXT, `result=-1, data="Text is copied into clipboard."` (no text: `result=0` and the usage), and
`clipper.get` (also `get`): `result=-1, data="TEXT"`; since Android 10 only the app in front may read the clipboard,
so with Clipper not in front (or nothing copied) `get` answers `result=0, data=""`. Its one screen (`.Main`) says
what it does."""

from __future__ import annotations

from typing import Any

from ..ui import widgets as w
from ..ui.host import Device
from ..ui.layout import Ctx
from ..ui.view import View
from .base import App

PKG = "ca.zgrs.clipper"
MAIN = "ca.zgrs.clipper.Main"
SET_ACTIONS = ("clipper.set", "set")
GET_ACTIONS = ("clipper.get", "get")
RESULT_OK, RESULT_CANCELED = -1, 0


class ClipperApp(App):
    package = PKG
    labels = {"en": "Clipper", "zh": "Clipper"}
    activities = {MAIN: "main"}
    launcher = MAIN
    receivers = SET_ACTIONS + GET_ACTIONS
    color = (96, 125, 139)
    glyph = "copy"

    def on_broadcast(self, model: Device, action: str, extras: dict[str, Any]) -> tuple[int, str | None] | None:
        if action in SET_ACTIONS:
            text = extras.get("text")
            if text is None:
                return RESULT_CANCELED, 'No text is provided. Use -e text \\"text to be pasted\\"'
            model.clipboard = str(text)
            model.events.log("clipboard", action="set", package=PKG)
            return RESULT_OK, "Text is copied into clipboard."
        with model.lock:
            in_front = bool(model.tasks) and model.tasks[-1].package == PKG
            clip = model.clipboard
        if not in_front or clip is None:
            return RESULT_CANCELED, ""
        return RESULT_OK, clip

    def screen_main(self, ctx: Ctx) -> list[View]:
        tb = w.toolbar(ctx, self.label(ctx.locale))
        l, _, r, b = ctx.area
        y = tb.bounds[3] + ctx.dp(16)
        note = ctx.tr(
            "Clipper service is running. Use adb to set or get the clipboard:\n"
            'am broadcast -a clipper.set -e text "text"\nam broadcast -a clipper.get',
            'Clipper 服务正在运行。使用 adb 设置或读取剪贴板：\nam broadcast -a clipper.set -e text "text"\n'
            "am broadcast -a clipper.get",
        )
        return [
            tb,
            w.text(ctx, (l + ctx.dp(16), y, r - ctx.dp(16), b), note, "message", color=ctx.theme.text2, lines=8),
        ]
