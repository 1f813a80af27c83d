"""Dialog windows: `dialog` (an AlertDialog-like modal window: title, message, rows, buttons; also the
permission dialog's stacked buttons) and `confirm_buttons` (its positive/negative pair)."""

from __future__ import annotations

from .layout import Ctx, Row, V, vlist
from .view import View
from .widgets import BUTTON, FRAME, LINEAR, TEXT, Click, icon


def dialog(
    ctx: Ctx,
    title: str,
    message: str = "",
    buttons: list[tuple[str, str, Click]] | None = None,
    rows: list[Row] | None = None,
    on_cancel: Click = None,
    package: str | None = None,
    width_dp: float = 312,
    icon_name: str = "",
    centered_buttons: bool = False,
    title_rid: str = "android:id/alertTitle",
    message_rid: str = "android:id/message",
    cancel_outside: bool = True,
) -> View:
    """A modal dialog window: title, message, optional rows, buttons (label, rid, click) laid right to left
    (or stacked full-width when `centered_buttons`, as the permission dialog does)."""
    from .fonts import wrap

    th = ctx.theme
    sl, st, sr, sb = ctx.mgr.dialog_area()
    avail_w = sr - sl
    w = min(ctx.dp(width_dp), avail_w - ctx.dp(32))
    pad = ctx.dp(24)
    inner_w = w - 2 * pad
    title_px = ctx.sp(20 if not centered_buttons else 18)
    msg_px = ctx.sp(14)
    title_lines = wrap(title, title_px, inner_w, False) if title else []
    msg_lines = wrap(message, msg_px, inner_w) if message else []
    title_h = int(len(title_lines) * title_px * 1.35)
    msg_h = int(len(msg_lines) * msg_px * 1.45)
    icon_h = ctx.dp(40) if icon_name else 0
    btn_h = ctx.dp(40)
    buttons = buttons or []
    btns_h = (len(buttons) * (btn_h + ctx.dp(8)) if centered_buttons else btn_h) if buttons else 0
    rows = rows or []
    rows_h = sum(rw.height for rw in rows)
    fixed = pad + icon_h + title_h + (ctx.dp(16) if message else 0) + msg_h + ctx.dp(16) + btns_h + ctx.dp(20)
    max_h = (sb - st) - ctx.dp(32)
    list_h = max(0, min(rows_h, max_h - fixed))
    h = min(max_h, fixed + list_h)
    x0 = sl + (avail_w - w) // 2
    y0 = st + ((sb - st) - h) // 2
    pkg = package or ctx.pkg
    root = V(
        ctx,
        FRAME,
        (x0, y0, x0 + w, y0 + h),
        package=pkg,
        style={
            "bg": th.surface if th.dark else (248, 246, 252),
            "radius": ctx.dp(28),
            "dim": True,
            "modal": True,
            "on_cancel": on_cancel,
            "shadow": True,
            "cancel_outside": cancel_outside,
        },
    )
    panel = V(
        ctx, LINEAR, (x0, y0, x0 + w, y0 + h), "android:id/parentPanel" if not package else "grant_dialog", package=pkg
    )
    root.children.append(panel)
    y = y0 + pad
    if icon_name:
        panel.children.append(
            icon(ctx, (x0 + w // 2 - ctx.dp(14), y, x0 + w // 2 + ctx.dp(14), y + ctx.dp(28)), icon_name, th.primary)
        )
        y += icon_h
    if title:
        panel.children.append(
            V(
                ctx,
                TEXT,
                (x0 + pad, y, x0 + w - pad, y + title_h),
                title_rid,
                text=title,
                package=pkg,
                style={
                    "fg": th.text,
                    "size": title_px,
                    "lines": len(title_lines),
                    "align": "c" if centered_buttons else "l",
                    "valign": "t",
                },
            )
        )
        y += title_h + (ctx.dp(16) if message else 0)
    if message:
        panel.children.append(
            V(
                ctx,
                TEXT,
                (x0 + pad, y, x0 + w - pad, y + msg_h),
                message_rid,
                text=message,
                package=pkg,
                style={"fg": th.text2, "size": msg_px, "lines": len(msg_lines), "valign": "t"},
            )
        )
        y += msg_h
    if rows:
        lst = vlist(
            ctx,
            "dialog_list",
            (x0, y, x0 + w, y + list_h),
            rows,
            "select_dialog_listview",
            cls="android.widget.ListView",
        )
        for v in lst.walk():
            v.package = pkg
        panel.children.append(lst)
        y += list_h
    y += ctx.dp(16)
    if centered_buttons:
        for label, brid, cb in buttons:
            panel.children.append(
                V(
                    ctx,
                    BUTTON,
                    (x0 + pad, y, x0 + w - pad, y + btn_h),
                    brid,
                    text=label,
                    package=pkg,
                    clickable=True,
                    focusable=True,
                    on_click=cb,
                    style={
                        "bg": th.primary_container,
                        "fg": th.on_primary_container,
                        "radius": btn_h // 2,
                        "align": "c",
                        "size": ctx.sp(14),
                        "bold": True,
                    },
                )
            )
            y += btn_h + ctx.dp(8)
    else:
        bx = x0 + w - pad
        for label, brid, cb in buttons:
            from .fonts import text_width

            bw = int(text_width(label, ctx.sp(14), True)) + ctx.dp(24)
            panel.children.append(
                V(
                    ctx,
                    BUTTON,
                    (bx - bw, y, bx, y + btn_h),
                    brid,
                    text=label,
                    package=pkg,
                    clickable=True,
                    focusable=True,
                    on_click=cb,
                    style={"fg": th.primary, "radius": btn_h // 2, "align": "c", "size": ctx.sp(14), "bold": True},
                )
            )
            bx -= bw + ctx.dp(8)
    return root


def popup_window(ctx: Ctx, box: tuple[int, int, int, int], on_cancel: Click = None) -> View:
    """A popup menu's window (a Spinner's list, an overflow menu): a raised surface over the app, modal, gone with a
    tap outside it (`on_cancel`, by default the app's dialog dismissed)."""
    th = ctx.theme
    return V(
        ctx,
        FRAME,
        box,
        style={
            "bg": th.surface,
            "radius": ctx.dp(4),
            "shadow": True,
            "modal": True,
            "on_cancel": on_cancel or ctx.dismiss_dialog,
        },
    )


def confirm_buttons(
    ctx: Ctx, ok_label: str, ok: Click, cancel: Click, cancel_label: str = ""
) -> list[tuple[str, str, Click]]:
    """[(positive), (negative)] with android:id/button1 / button2, as AlertDialog names them."""
    return [
        (ok_label, "android:id/button1", ok),
        (cancel_label or ctx.tr("Cancel", "取消"), "android:id/button2", cancel),
    ]
