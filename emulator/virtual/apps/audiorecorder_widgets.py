"""Pieces Audio Recorder's screens share: an activity replacing itself (startActivity + finish), its yes/no dialog
(`dialog_layout`: `dialog_title`, `dialog_content`, `dialog_positive_btn` / `dialog_negative_btn`), a PopupMenu,
SettingView (`setting_title`, its info button, a ChipsView of choices) and a Spinner with its drop-down."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from ..ui import dialogs
from ..ui import widgets as w
from ..ui.fonts import text_width
from ..ui.layout import Ctx, Row, V, vlist
from ..ui.view import View
from .audiorecorder_data import PKG, PRIMARY, TEXT, TEXT2

SPINNER = "android.widget.Spinner"
LISTVIEW = "android.widget.ListView"


def replace_top(ctx: Ctx, activity: str, extras: dict[str, Any] | None = None) -> None:
    """The activity on top starts `activity` and finishes (it leaves the back stack)."""
    with ctx.model.lock:
        task = ctx.model.tasks[-1]
        if task.package == PKG and task.stack and task.stack[-1] is ctx.record:
            task.stack.pop()
    ctx.push(activity, extras)


def yes_no(ctx: Ctx, title: str, message: str, buttons: list[tuple[str, str, Any]]) -> View:
    """AndroidUtils.showDialog*: `dialog_title`, `dialog_content`, its buttons (the first at the end)."""
    return dialogs.dialog(
        ctx,
        title,
        message,
        buttons,
        on_cancel=ctx.dismiss_dialog,
        title_rid="dialog_title",
        message_rid="dialog_content",
    )


def _popup_list(
    ctx: Ctx, box: tuple[int, int, int, int], items: list[tuple[str, str, Any, bool]], text_rid: str
) -> View:
    """A popup window with a list (scrolling when the window is lower than it) of (label, rid, click, selected)."""
    root = dialogs.popup_window(ctx, box)
    item_h = ctx.dp(48)

    def row(label: str, rid: str, cb: Any, selected: bool) -> Row:
        def build(x: int, y: int, wd: int) -> View:
            item = V(
                ctx,
                w.LINEAR,
                (x, y, x + wd, y + item_h),
                rid,
                clickable=True,
                focusable=True,
                on_click=cb,
                selected=selected,
            )
            item.children.append(
                w.text(
                    ctx,
                    (x + ctx.dp(16), y, x + wd - ctx.dp(16), y + item_h),
                    label,
                    text_rid,
                    size=16,
                    style={"ellipsize": True},
                )
            )
            return item

        return Row(item_h, build)

    inner = (box[0], box[1] + ctx.dp(8), box[2], box[3] - ctx.dp(8))
    root.children.append(vlist(ctx, f"popup_{text_rid}", inner, [row(*i) for i in items], "", cls=LISTVIEW))
    return root


def popup_menu(ctx: Ctx, items: Sequence[tuple[str, str, Any]], top: int | None = None) -> View:
    """A PopupMenu at the top end of the window (or from `top`): one `android:id/title` row an item."""
    l, t, r, b = ctx.mgr.dialog_area()
    item_h = ctx.dp(48)
    widest = max(int(text_width(label, ctx.sp(16))) for label, _, _ in items)
    wd = min(r - l - ctx.dp(16), max(ctx.dp(180), widest + ctx.dp(40)))
    height = min(b - t - ctx.dp(16), ctx.dp(16) + len(items) * item_h)
    y0 = max(t + ctx.dp(8), min(top if top is not None else t + ctx.dp(8), b - ctx.dp(8) - height))
    box = (r - wd - ctx.dp(8), y0, r - ctx.dp(8), y0 + height)
    return _popup_list(ctx, box, [(label, rid, cb, False) for label, rid, cb in items], "android:id/title")


def setting_view(
    ctx: Ctx,
    rid: str,
    title: str,
    choices: Sequence[tuple[Any, str]],
    selected: Any,
    pick: Callable[[Any], None],
    info: str,
) -> Row:
    """SettingView: its title and info button over a ChipsView, one chip a choice (the selected one checked)."""
    chip_h = ctx.dp(36)
    gap = ctx.dp(8)
    avail = ctx.area[2] - ctx.area[0] - ctx.dp(32)
    widths = [int(text_width(label, ctx.sp(14), True)) + ctx.dp(32) for _, label in choices]
    lines, x = 1, 0
    for cw in widths:
        if x and x + cw > avail:
            lines, x = lines + 1, 0
        x += cw + gap
    title_h = max(ctx.dp(40), ctx.line_h(16) + ctx.dp(8))
    h = title_h + lines * (chip_h + gap) + ctx.dp(8)

    def build(x0: int, y0: int, wd: int) -> View:
        root = V(ctx, w.LINEAR, (x0, y0, x0 + wd, y0 + h), rid)
        root.children.append(
            w.text(
                ctx,
                (x0 + ctx.dp(16), y0, x0 + wd - ctx.dp(56), y0 + title_h),
                title,
                "setting_title",
                size=16,
                color=TEXT,
            )
        )
        isz = ctx.dp(40)
        root.children.append(
            w.icon_button(
                ctx,
                (x0 + wd - ctx.dp(8) - isz, y0, x0 + wd - ctx.dp(8), y0 + isz),
                "info",
                "",
                lambda: ctx.show_dialog({"id": "info_text", "text": info}),
                "setting_btn_info",
                TEXT2,
            )
        )
        chips = V(
            ctx, "com.dimowner.audiorecorder.app.widget.ChipsView", (x0, y0 + title_h, x0 + wd, y0 + h), "chips_view"
        )
        cx, cy = x0 + ctx.dp(16), y0 + title_h
        for (key, label), cw in zip(choices, widths, strict=True):
            if cx > x0 + ctx.dp(16) and cx + cw > x0 + ctx.dp(16) + avail:
                cx, cy = x0 + ctx.dp(16), cy + chip_h + gap
            on = key == selected
            chip = V(
                ctx,
                w.CHECKBOX,
                (cx, cy, cx + cw, cy + chip_h),
                text=label,
                checkable=True,
                checked=on,
                clickable=True,
                focusable=True,
                on_click=lambda key=key: pick(key),
                style={
                    "bg": TEXT if on else PRIMARY,
                    "border": TEXT2,
                    "radius": chip_h // 2,
                    "align": "c",
                    "fg": PRIMARY if on else TEXT,
                    "size": ctx.sp(14),
                },
            )
            chips.children.append(chip)
            cx += cw + gap
        root.children.append(chips)
        return root

    return Row(h, build)


def spinner_row(ctx: Ctx, rid: str, label: str, on_click: Callable[[], None], icon: str) -> Row:
    """A Spinner showing its selected item (`list_item_spinner`: an icon and `txtItem`)."""
    h = max(ctx.dp(56), ctx.line_h(16) + ctx.dp(24))

    def build(x: int, y: int, wd: int) -> View:
        sp = V(ctx, SPINNER, (x, y, x + wd, y + h), rid, clickable=True, focusable=True, on_click=on_click)
        sp.children.append(
            w.icon(
                ctx, (x + ctx.dp(16), y + (h - ctx.dp(24)) // 2, x + ctx.dp(40), y + (h + ctx.dp(24)) // 2), icon, TEXT
            )
        )
        sp.children.append(
            w.text(ctx, (x + ctx.dp(56), y, x + wd - ctx.dp(40), y + h), label, "txtItem", size=16, color=TEXT)
        )
        sp.children.append(
            w.icon(
                ctx,
                (x + wd - ctx.dp(36), y + (h - ctx.dp(24)) // 2, x + wd - ctx.dp(12), y + (h + ctx.dp(24)) // 2),
                "drop_down",
                TEXT,
            )
        )
        return sp

    return Row(h, build)


def spinner_popup(ctx: Ctx, labels: Sequence[str], selected: int, pick: Callable[[int], None]) -> View:
    """A Spinner's drop-down list: its items (`txtItem`), the one picked selected and the list gone."""
    l, t, r, b = ctx.mgr.dialog_area()
    item_h = ctx.dp(48)
    top = min(t + ctx.dp(96), b - ctx.dp(16) - 2 * item_h)
    box = (
        l + ctx.dp(16),
        max(t + ctx.dp(8), top),
        r - ctx.dp(16),
        min(b - ctx.dp(16), top + ctx.dp(16) + len(labels) * item_h),
    )

    def choose(i: int) -> Any:
        def go() -> None:
            ctx.dismiss_dialog()
            pick(i)

        return go

    return _popup_list(ctx, box, [(label, "", choose(i), i == selected) for i, label in enumerate(labels)], "txtItem")


def info_dialog(ctx: Ctx, text: str) -> View:
    """AndroidUtils.showInfoDialog: "Information", the text, Ok."""
    return yes_no(ctx, "Information", text, [("Ok", "dialog_positive_btn", ctx.dismiss_dialog)])
