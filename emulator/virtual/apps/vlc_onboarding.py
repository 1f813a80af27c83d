"""VLC's first start (OnboardingActivity): Welcome ("Welcome to VLC!"), Permission (no access / media only / all
files - all files by default: Next opens Settings' "All files access" page for VLC, and the onboarding goes on
when the user comes back), Permission not granted (GRANT PERMISSION asks again), "Auto-discover your media" (the
scan switch) and "Make yourself at home" (the theme), with Skip (`skip_button`) and Next (`next_button`, Done on
the last page) at the bottom. Skip or Done records `app_onboarding_done` (and the scan choice) in the app's
preferences and leaves for the main screen - whose video list then asks for the permission if it still lacks it,
as AndroidWorld's one-time set-up of the app goes through (Skip, GRANT PERMISSION, OK, the Settings switch)."""

from __future__ import annotations

from ..records import INTENT_DATA
from ..ui import widgets as w
from ..ui.fonts import text_width
from ..ui.layout import Ctx, Row, V, vlist
from ..ui.view import View
from . import vlc_data as data
from . import vlc_widgets as vw
from .vlc_dialogs import ALL_FILES, ALL_FILES_ACTION

ONBOARDING = "org.videolan.vlc.gui.onboarding.OnboardingActivity"
PERMISSION_CHOICES = (
    (
        "permNone",
        "permNoneImage",
        "You won't be able to auto-discover your media.\nYou will be able to only play streams or network media",
    ),
    ("permMedia", "permMediaImage", "You will only be able to auto-discover standard media files"),
    (
        "permAll",
        "permAllImage",
        "You will be able to auto-discover all your files to play all types of media even "
        "weird ones, or compressed files",
    ),
)


def done(ctx: Ctx) -> bool:
    return data.pref(ctx.model, data.ONBOARDING_DONE, False) is True


def _finish(ctx: Ctx) -> None:
    """onDone: the choices recorded, the main screen (its video tab) shown."""
    fs = ctx.model.fs
    scan = bool(ctx.extras.get("scan", True))
    data.PREFS.put(fs, "first_run", data.VERSION_CODE)
    data.PREFS.put(fs, data.ONBOARDING_DONE, True)
    data.PREFS.put(fs, "ml_scan", 0 if scan else 1)
    ctx.finish()


def _show(ctx: Ctx, page: str) -> None:
    ctx.extras["page"] = page


def _ask(ctx: Ctx) -> None:
    """The all-files access page of Settings for VLC; the onboarding goes on when the user is back (`resume`)."""
    ctx.extras["asked"] = True
    ctx.start(
        "com.android.settings",
        ALL_FILES,
        {"android.intent.action": ALL_FILES_ACTION, INTENT_DATA: f"package:{data.PKG}"},
    )


def _next(ctx: Ctx) -> None:
    page = str(ctx.extras.get("page", "welcome"))
    granted = data.can_read_storage(ctx.model)
    if page == "welcome":
        _show(ctx, "scan" if granted else "permission")
    elif page == "permission":
        if ctx.extras.get("choice", "permAll") == "permAll" and not ctx.extras.get("asked"):
            _ask(ctx)
        else:
            _show(ctx, "scan" if granted else "no_permission")
    elif page == "no_permission":
        _show(ctx, "scan" if granted else "theme")
    elif page == "scan":
        _show(ctx, "theme")
    else:
        _finish(ctx)


def resume(ctx: Ctx) -> None:
    """Back from Settings after the permission page asked: on to the next page."""
    if ctx.extras.get("page") == "permission" and ctx.extras.get("asked") and not ctx.extras.get("resumed"):
        ctx.extras["resumed"] = True
        _next(ctx)


def back(ctx: Ctx) -> bool:
    return False  # BACK leaves the onboarding (the app closes, as on the real first start)


def _choices(ctx: Ctx) -> list[Row]:
    """The permission page's three choices (no access, media, all files) and what the chosen one means."""
    th = ctx.theme
    choice = str(ctx.extras.get("choice", "permAll"))
    pad = ctx.dp(24)
    width = ctx.area[2] - ctx.area[0]
    cell = (width - 2 * pad) // 3
    sz = min(cell - ctx.dp(16), ctx.dp(88))

    def build(x: int, y: int, wd: int) -> list[View]:
        out = []
        for i, (rid, img, meaning) in enumerate(PERMISSION_CHOICES):
            x0 = x + pad + i * cell + (cell - sz) // 2
            frame = V(
                ctx,
                w.FRAME,
                (x0, y, x0 + sz, y + sz),
                rid,
                clickable=True,
                focusable=True,
                selected=choice == rid,
                on_click=lambda rid=rid: ctx.extras.__setitem__("choice", rid),
                style={"bg": vw.ORANGE if choice == rid else th.surface2, "radius": ctx.dp(12)},
            )
            inner = (x0 + sz // 4, y + sz // 4, x0 + 3 * sz // 4, y + 3 * sz // 4)
            frame.children.append(w.icon(ctx, inner, ("close", "play", "check")[i], th.text, img, desc=meaning))
            out.append(frame)
        return out

    meaning = next(d for rid, _, d in PERMISSION_CHOICES if rid == choice)
    return [Row(sz + ctx.dp(16), build), vw.para(ctx, meaning, "permDescription", 16, vw.accent(ctx))]


def _page_rows(ctx: Ctx, page: str) -> list[Row]:
    th = ctx.theme
    title, title_id = {
        "welcome": (ctx.tr("Welcome to VLC!", "欢迎使用 VLC！"), "welcome_title"),
        "permission": (ctx.tr("Permission", "权限"), "permission_title"),
        "no_permission": (ctx.tr("Permission not granted", "未授予权限"), "no_permission_title"),
        "scan": (ctx.tr("Auto-discover your media", "自动发现您的媒体"), "scanning_title"),
        "theme": (ctx.tr("Make yourself at home", "随心设置"), "theme_title"),
    }.get(page, (ctx.tr("Welcome to VLC!", "欢迎使用 VLC！"), "welcome_title"))
    rows = [Row(max(ctx.dp(16), (ctx.area[3] - ctx.area[1]) // 12), lambda x, y, wd: None)]
    if page == "welcome":
        rows.append(vw.icon_row(ctx, "play", "imageView"))
    rows.append(vw.para(ctx, title, title_id, 24, bold=True))
    if page == "welcome":
        rows.append(
            vw.para(
                ctx,
                ctx.tr("The free and open source multimedia player", "自由开源的多媒体播放器"),
                "textView",
                16,
                th.text2,
            )
        )
    elif page == "permission":
        text = ctx.tr(
            "VLC needs your permission to access media on your device", "VLC 需要您的许可才能访问设备上的媒体"
        )
        rows += [vw.para(ctx, text, "textView", 16, th.text2), *_choices(ctx)]
    elif page == "no_permission":
        rows += [
            vw.para(
                ctx,
                ctx.tr(
                    "You won't be able to auto-discover your media nor use external subtitles",
                    "您将无法自动发现媒体或使用外部字幕",
                ),
                "permission_explanation",
                16,
                th.text2,
            ),
            vw.para(
                ctx,
                ctx.tr("You will be able to only play streams or network media", "您只能播放流或网络媒体"),
                "permission_explanation_allow",
                16,
                th.text2,
            ),
            vw.button_row(ctx, ctx.tr("GRANT PERMISSION", "授予权限"), lambda: _ask(ctx), "grant_permission_button"),
        ]
    elif page == "scan":
        text = ctx.tr(
            "VLC can automatically scan your device to organize your media collection.",
            "VLC 可以自动扫描您的设备来整理您的媒体收藏。",
        )
        on = bool(ctx.extras.get("scan", True))
        label = ctx.tr("Let VLC scan my device for media content", "允许 VLC 扫描设备中的媒体内容")
        row_h = max(ctx.dp(56), ctx.line_h(15, 2) + ctx.dp(16))

        def switch(x: int, y: int, wd: int) -> View:
            box = (x + ctx.dp(24), y, x + wd - ctx.dp(24), y + row_h)
            return V(
                ctx,
                w.SWITCH,
                box,
                "scanningEnableSwitch",
                text=label,
                checkable=True,
                checked=on,
                clickable=True,
                focusable=True,
                on_click=lambda: ctx.extras.__setitem__("scan", not on),
                style={"kind": "switch", "size": ctx.sp(15), "fg": th.text, "lines": 2},
            )

        rows += [vw.para(ctx, text, "textView4", 16, th.text2), Row(row_h, switch)]
    else:
        rows.append(
            vw.para(
                ctx,
                ctx.tr("Make VLC look the way you like it", "按您的喜好设置 VLC 的外观"),
                "themeDescription",
                16,
                th.text2,
            )
        )
        themes = (("dayNightTheme", "Follow system theme"), ("lightTheme", "Light theme"), ("darkTheme", "Black theme"))

        def cards(x: int, y: int, wd: int) -> list[View]:
            cell = (wd - ctx.dp(48)) // 3
            return [
                V(
                    ctx,
                    w.FRAME,
                    (x + ctx.dp(24) + i * cell + ctx.dp(8), y, x + ctx.dp(16) + (i + 1) * cell, y + ctx.dp(96)),
                    rid,
                    desc=label,
                    clickable=True,
                    focusable=True,
                    style={"bg": th.surface2, "radius": ctx.dp(12)},
                )
                for i, (rid, label) in enumerate(themes)
            ]

        rows.append(Row(ctx.dp(112), cards))
    return rows


def screen(ctx: Ctx) -> list[View]:
    l, t, r, b = ctx.area
    page = str(ctx.extras.get("page", "welcome"))
    root = V(ctx, "android.view.ViewGroup", (l, t, r, b), "fragment_onboarding_placeholder", style={"bg": ctx.theme.bg})
    bar_h = ctx.dp(72)
    root.children.append(vlist(ctx, f"onboarding_{page}", (l, t, r, b - bar_h), _page_rows(ctx, page)))
    pad = ctx.dp(24)
    by = b - bar_h + ctx.dp(12)
    buttons = (
        (ctx.tr("Done", "完成") if page == "theme" else ctx.tr("Next", "下一步"), lambda: _next(ctx), "next_button"),
        (ctx.tr("Skip", "跳过"), lambda: _finish(ctx), "skip_button"),
    )
    x = r - pad
    for label, cb, rid in buttons:
        bw = int(text_width(label, ctx.sp(14), True)) + ctx.dp(40)
        button = w.button(ctx, (x - bw, by, x, by + ctx.dp(48)), label, cb, rid, kind="text")
        button.style["fg"] = vw.accent(ctx)
        root.children.append(button)
        x -= bw + ctx.dp(8)
    return [root]
