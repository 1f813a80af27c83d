"""The windows of `emulator.virtual.sysdialogs`' interruptions, over the foreground app: a system dialog (its own
window of package `android` - "<App> isn't responding" - or `com.google.android.permissioncontroller` - the
runtime permission prompt), drawn with a scrim, and an in-app popup (a window of the app's own package: the
rating prompt, or a full-screen promo with a close button). Each goes with its buttons or BACK; none of them
changes the app's state except "Close app", which stops the app as Android does."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from .dialogs import dialog
from .layout import Ctx, V
from .permissionprompt import prompt as permission_prompt
from .view import View
from .widgets import BUTTON, FRAME, TEXT, icon_button
from .windowstate import Slot, WindowState

PERMISSION_CONTROLLER = "com.google.android.permissioncontroller"
PC_ID = "com.android.permissioncontroller:id/"  # the resource ids keep the AOSP package name


def _label(ctx: Ctx, package: str) -> str:
    pkg = ctx.model.packages.get(package)
    if pkg is None:
        return package
    return pkg.labels.get(ctx.model.locale) or pkg.labels.get("en") or package


def _gone(ctx: Ctx, state: WindowState, slot: Slot, button: str, then: Callable[[], None] | None = None) -> Any:
    def click() -> None:
        shown = state.slot(slot) or {}
        state.set_slot(slot, None)
        ctx.model.events.log("interruption", action="dismiss", what=shown.get("kind"), button=button)
        if then is not None:
            then()

    return click


def _system(ctx_for: Callable[[str], Ctx], state: WindowState, shown: dict[str, Any]) -> View | None:
    kind, package = shown.get("kind"), str(shown.get("package", ""))
    if kind == "anr":
        ctx = ctx_for("android")
        app = _label(ctx, package)
        wait = _gone(ctx, state, "sysdialog", "wait")
        close = _gone(ctx, state, "sysdialog", "close", lambda: ctx.model.force_stop(package))
        return dialog(
            ctx,
            ctx.tr(f"{app} isn't responding", f"“{app}”没有响应"),
            buttons=[
                (ctx.tr("Close app", "关闭应用"), "android:id/aerr_close", close),
                (ctx.tr("Wait", "等待"), "android:id/aerr_wait", wait),
            ],
            on_cancel=wait,  # BACK waits, as the dialog's cancel does
            centered_buttons=True,
            cancel_outside=False,
        )
    if kind == "permission" and shown.get("request"):  # an app's requestPermissions (permissionprompt)
        return permission_prompt(ctx_for(PERMISSION_CONTROLLER), state, shown)
    if kind == "permission":
        ctx = ctx_for(PERMISSION_CONTROLLER)
        app = _label(ctx, package)
        deny = _gone(ctx, state, "sysdialog", "deny")
        return dialog(
            ctx,
            ctx.tr(f"Allow {app} to take pictures and record video?", f"要允许“{app}”拍摄照片和录制视频吗？"),
            buttons=[
                (
                    ctx.tr("While using the app", "使用该应用时允许"),
                    PC_ID + "permission_allow_foreground_only_button",
                    _gone(ctx, state, "sysdialog", "foreground"),
                ),
                (
                    ctx.tr("Only this time", "仅限这一次"),
                    PC_ID + "permission_allow_one_time_button",
                    _gone(ctx, state, "sysdialog", "one-time"),
                ),
                (ctx.tr("Don't allow", "不允许"), PC_ID + "permission_deny_button", deny),
            ],
            on_cancel=deny,  # BACK denies this request (it may ask again)
            package=PERMISSION_CONTROLLER,
            centered_buttons=True,
            title_rid=PC_ID + "permission_message",
            cancel_outside=False,
        )
    return None


def _promo(ctx: Ctx, state: WindowState, app: str) -> View:
    l, t, r, b = ctx.area
    th = ctx.theme
    close = _gone(ctx, state, "popup", "close")
    root = V(
        ctx,
        FRAME,
        (l, t, r, b),
        "promo_root",
        style={"bg": th.primary_container, "modal": True, "on_cancel": close, "cancel_outside": False},
    )
    pad = ctx.dp(24)
    size = ctx.dp(48)
    root.children.append(
        icon_button(
            ctx,
            (r - size - ctx.dp(8), t + ctx.dp(8), r - ctx.dp(8), t + ctx.dp(8) + size),
            "close",
            ctx.tr("Close", "关闭"),
            close,
            "promo_close",
        )
    )
    mid = (t + b) // 2
    root.children.append(
        V(
            ctx,
            TEXT,
            (l + pad, mid - ctx.dp(120), r - pad, mid - ctx.dp(60)),
            "promo_title",
            text=ctx.tr(f"{app} Premium", f"{app} 高级版"),
            style={"fg": th.on_primary_container, "size": ctx.sp(28), "bold": True, "align": "c"},
        )
    )
    root.children.append(
        V(
            ctx,
            TEXT,
            (l + pad, mid - ctx.dp(50), r - pad, mid + ctx.dp(10)),
            "promo_text",
            text=ctx.tr("No ads, more themes. Free for 7 days.", "无广告，更多主题。免费试用 7 天。"),
            style={"fg": th.on_primary_container, "size": ctx.sp(16), "align": "c"},
        )
    )
    h = ctx.dp(48)
    root.children.append(
        V(
            ctx,
            BUTTON,
            (l + pad, mid + ctx.dp(40), r - pad, mid + ctx.dp(40) + h),
            "promo_cta",
            text=ctx.tr("Start free trial", "开始免费试用"),
            clickable=True,
            focusable=True,
            on_click=_gone(ctx, state, "popup", "trial"),
            style={"bg": th.primary, "fg": th.bg, "radius": h // 2, "align": "c", "size": ctx.sp(16), "bold": True},
        )
    )
    return root


def _popup(ctx: Ctx, state: WindowState, shown: dict[str, Any]) -> View | None:
    app = _label(ctx, ctx.pkg)
    if shown.get("kind") == "promo":
        return _promo(ctx, state, app)
    if shown.get("kind") == "rate":
        not_now = _gone(ctx, state, "popup", "not-now")
        return dialog(
            ctx,
            ctx.tr(f"Enjoying {app}?", f"喜欢“{app}”吗？"),
            ctx.tr(
                "Tap Rate to tell us what you think on Google Play.", "点按“评分”，在 Google Play 上告诉我们您的想法。"
            ),
            buttons=[
                (ctx.tr("Rate", "评分"), "rate_button", _gone(ctx, state, "popup", "rate")),
                (ctx.tr("Not now", "以后再说"), "not_now_button", not_now),
            ],
            on_cancel=not_now,
            cancel_outside=False,
        )
    return None


def build_interruptions(state: WindowState, foreground: str, ctx_for: Callable[[str], Ctx]) -> list[View]:
    """The popup of the foreground app (when it has one up), then the system dialog: the windows to put over the
    app, bottom to top."""
    out: list[View] = []
    popup = state.popup
    if popup and popup.get("package") == foreground:
        v = _popup(ctx_for(foreground), state, popup)
        if v is not None:
            out.append(v)
    sysdialog = state.sysdialog
    if sysdialog:
        v = _system(ctx_for, state, sysdialog)
        if v is not None:
            out.append(v)
    return out
