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
from ..ui.layout import Ctx, V
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


def screen(ctx: Ctx) -> list[View]:
    l, t, r, b = ctx.area
    th = ctx.theme
    page = str(ctx.extras.get("page", "welcome"))
    root = V(ctx, "android.view.ViewGroup", (l, t, r, b), "fragment_onboarding_placeholder", style={"bg": th.bg})
    pad = ctx.dp(24)
    bar_h = ctx.dp(72)
    y = t + (b - t) // 4
    titles = {
        "welcome": (ctx.tr("Welcome to VLC!", "欢迎使用 VLC！"), "welcome_title"),
        "permission": (ctx.tr("Permission", "权限"), "permission_title"),
        "no_permission": (ctx.tr("Permission not granted", "未授予权限"), "no_permission_title"),
        "scan": (ctx.tr("Auto-discover your media", "自动发现您的媒体"), "scanning_title"),
        "theme": (ctx.tr("Make yourself at home", "随心设置"), "theme_title"),
    }
    title, title_id = titles.get(page, titles["welcome"])
    if page == "welcome":
        isz = ctx.dp(96)
        root.children.append(
            w.icon(
                ctx,
                ((l + r - isz) // 2, y - isz - ctx.dp(16), (l + r + isz) // 2, y - ctx.dp(16)),
                "play",
                vw.ORANGE,
                "imageView",
            )
        )
    th1 = ctx.line_h(24) + ctx.dp(8)
    root.children.append(w.text(ctx, (l + pad, y, r - pad, y + th1), title, title_id, 24, bold=True, align="c"))
    y += th1 + ctx.dp(8)

    def para(text: str, rid: str, lines: int = 3, color: tuple[int, int, int] | None = None) -> None:
        nonlocal y
        h = ctx.line_h(16, lines)
        root.children.append(
            w.text(
                ctx, (l + pad, y, r - pad, y + h), text, rid, 16, color or th.text2, align="c", lines=lines, valign="t"
            )
        )
        y += h + ctx.dp(8)

    if page == "welcome":
        para(ctx.tr("The free and open source multimedia player", "自由开源的多媒体播放器"), "textView", 2)
    elif page == "permission":
        para(
            ctx.tr("VLC needs your permission to access media on your device", "VLC 需要您的许可才能访问设备上的媒体"),
            "textView",
            2,
        )
        choice = str(ctx.extras.get("choice", "permAll"))
        cell = (r - l - 2 * pad) // 3
        sz = min(cell - ctx.dp(16), ctx.dp(88))
        for i, (rid, img, _) in enumerate(PERMISSION_CHOICES):
            x0 = l + pad + i * cell + (cell - sz) // 2
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
            frame.children.append(
                w.icon(
                    ctx,
                    (x0 + sz // 4, y + sz // 4, x0 + 3 * sz // 4, y + 3 * sz // 4),
                    ("close", "play", "check")[i],
                    th.text,
                    img,
                    desc=PERMISSION_CHOICES[i][2],
                )
            )
            root.children.append(frame)
        y += sz + ctx.dp(16)
        text = next(d for rid, _, d in PERMISSION_CHOICES if rid == choice)
        para(text, "permDescription", 4, vw.ORANGE)
    elif page == "no_permission":
        para("You won't be able to auto-discover your media nor use external subtitles", "permission_explanation")
        para("You will be able to only play streams or network media", "permission_explanation_allow", 2)
        bw = ctx.dp(220)
        btn = w.button(
            ctx,
            ((l + r - bw) // 2, y, (l + r + bw) // 2, y + ctx.dp(48)),
            ctx.tr("GRANT PERMISSION", "授予权限"),
            lambda: _ask(ctx),
            "grant_permission_button",
        )
        btn.style.update(bg=vw.ORANGE, fg=(255, 255, 255))
        root.children.append(btn)
    elif page == "scan":
        para("VLC can automatically scan your device to organize your media collection.", "textView4")
        on = bool(ctx.extras.get("scan", True))
        row_h = ctx.dp(56)
        sw = V(
            ctx,
            w.SWITCH,
            (l + pad, y, r - pad, y + row_h),
            "scanningEnableSwitch",
            text="Let VLC scan my device for media content",
            checkable=True,
            checked=on,
            clickable=True,
            focusable=True,
            on_click=lambda: ctx.extras.__setitem__("scan", not on),
            style={"kind": "switch", "size": ctx.sp(15), "fg": th.text},
        )
        root.children.append(sw)
    else:
        para("Make VLC look the way you like it", "themeDescription", 2)
        for i, (rid, label) in enumerate(
            (("dayNightTheme", "Follow system theme"), ("lightTheme", "Light theme"), ("darkTheme", "Black theme"))
        ):
            cell = (r - l - 2 * pad) // 3
            x0 = l + pad + i * cell + ctx.dp(8)
            root.children.append(
                V(
                    ctx,
                    w.FRAME,
                    (x0, y, x0 + cell - ctx.dp(16), y + ctx.dp(96)),
                    rid,
                    desc=label,
                    clickable=True,
                    focusable=True,
                    style={"bg": th.surface2, "radius": ctx.dp(12)},
                )
            )
    bw = ctx.dp(112)
    by = b - bar_h + ctx.dp(12)
    last = page == "theme"
    root.children.append(
        w.button(
            ctx,
            (r - pad - bw, by, r - pad, by + ctx.dp(48)),
            ctx.tr("Done", "完成") if last else ctx.tr("Next", "下一步"),
            lambda: _next(ctx),
            "next_button",
            kind="text",
        )
    )
    root.children.append(
        w.button(
            ctx,
            (r - pad - 2 * bw - ctx.dp(8), by, r - pad - bw - ctx.dp(8), by + ctx.dp(48)),
            ctx.tr("Skip", "跳过"),
            lambda: _finish(ctx),
            "skip_button",
            kind="text",
        )
    )
    for button in root.children[-2:]:
        button.style["fg"] = vw.ORANGE
    return [root]
