"""Markor's first start: IntroActivity's five pages (Main View, View, Share -> Markor, To-Do, QuickNote; NEXT on
each, DONE on the last, which records `net.gsantner.markor.activity.IntroActivitywas_shown` in the app's default
SharedPreferences file), then - while the app lacks all-files access - StoragePermissionActivity's dialog ("Storage
permission required to read and write files", OK / Exit): OK opens Settings' "All files access" page for Markor,
where "Allow access to manage all files" grants it (the MANAGE_EXTERNAL_STORAGE app-op). AndroidWorld's one-time
set-up of the app clicks through exactly these."""

from __future__ import annotations

from ..appstorage import SharedPrefs
from ..records import INTENT_DATA
from ..ui import dialogs
from ..ui import widgets as w
from ..ui.layout import Ctx, V
from ..ui.view import View
from .markor_files import PKG

INTRO = f"{PKG}.activity.IntroActivity"
WAS_SHOWN = f"{INTRO}was_shown"
PREFS = SharedPrefs(PKG)
ALL_FILES_OP = "MANAGE_EXTERNAL_STORAGE"
ALL_FILES_ACTION = "android.settings.MANAGE_APP_ALL_FILES_ACCESS_PERMISSION"
SLIDES = (
    (
        ("Main View", "主视图"),
        (
            "Notebook is the folder that Markor loads in the file browser when the app is started. It is the home "
            "folder of your files.",
            "笔记本是 Markor 启动时在文件浏览器中加载的文件夹，是您文件的主文件夹。",
        ),
    ),
    (("View", "查看"), ("", "")),
    (("Share -> Markor", "分享 -> Markor"), ("", "")),
    (
        ("To-Do", "待办"),
        (
            "Manage your tasks with ToDo. It is a file in todo.txt format with default location >Notebook/todo.txt<, "
            "you can set a custom filepath in the settings.",
            "用待办管理您的任务。它是 todo.txt 格式的文件，默认位置为 >Notebook/todo.txt<，可在设置中更改路径。",
        ),
    ),
    (
        ("QuickNote", "快记"),
        (
            "QuickNote is the fastest option to write down notes. It is a file in Markdown format with default "
            "location >Notebook/QuickNote.md<, you can set a custom filepath in the settings.",
            "快记是记下笔记最快的方式。它是 Markdown 格式的文件，默认位置为 >Notebook/QuickNote.md<，"
            "可在设置中更改路径。",
        ),
    ),
)


def intro_done(ctx: Ctx) -> bool:
    return PREFS.read(ctx.model.fs).get(WAS_SHOWN) is True


def storage_granted(ctx: Ctx) -> bool:
    pkg = ctx.model.packages.get(PKG)
    return pkg is not None and pkg.appops.get(ALL_FILES_OP) == "allow"


def intro_back(ctx: Ctx) -> bool:
    """BACK on a page after the first goes to the page before; on the first, the intro closes."""
    page = int(ctx.extras.get("page", 0))
    if page > 0:
        ctx.extras["page"] = page - 1
        return True
    return False


def _next(ctx: Ctx) -> None:
    ctx.extras["page"] = int(ctx.extras.get("page", 0)) + 1


def _done(ctx: Ctx) -> None:
    PREFS.put(ctx.model.fs, WAS_SHOWN, True)
    ctx.finish()
    if not storage_granted(ctx):
        ask_storage(ctx)


def ask_storage(ctx: Ctx) -> None:
    ctx.show_dialog({"id": "storage"})


def open_all_files_access(ctx: Ctx) -> None:
    """StoragePermissionActivity's OK: Settings' All files access page for the app."""
    ctx.dismiss_dialog()
    ctx.start(
        "com.android.settings",
        "com.android.settings.Settings$AppManageExternalStorageActivity",
        {"android.intent.action": ALL_FILES_ACTION, INTENT_DATA: f"package:{PKG}"},
    )


def storage_dialog(ctx: Ctx, spec: dict[str, object]) -> View:
    def leave() -> None:
        ctx.dismiss_dialog()
        ctx.finish()

    return dialogs.dialog(
        ctx,
        "",
        ctx.tr("Storage permission required to read and write files", "需要存储权限才能读写文件"),
        [
            (ctx.tr("OK", "确定"), "android:id/button1", lambda: open_all_files_access(ctx)),
            (ctx.tr("Exit", "退出"), "android:id/button2", leave),
        ],
        on_cancel=leave,
        cancel_outside=False,
    )


def intro_screen(ctx: Ctx) -> list[View]:
    l, t, r, b = ctx.area
    th = ctx.theme
    page = min(int(ctx.extras.get("page", 0)), len(SLIDES) - 1)
    (title_en, title_zh), (text_en, text_zh) = SLIDES[page]
    root = V(ctx, "android.widget.FrameLayout", (l, t, r, b), "background", style={"bg": th.bg})
    pad = ctx.dp(32)
    bar_h = ctx.dp(56)
    title_top = t + min(ctx.dp(96), (b - t) // 8)
    title_h = ctx.line_h(28) + ctx.dp(8)
    root.children.append(
        w.text(
            ctx,
            (l + pad, title_top, r - pad, title_top + title_h),
            ctx.tr(title_en, title_zh),
            "title",
            size=28,
            bold=True,
            align="c",
            color=th.primary,
        )
    )
    if text_en:
        top = title_top + title_h + ctx.dp(16)
        bottom = b - bar_h - ctx.dp(16)
        lines = max(1, (bottom - top) // ctx.line_h(16))
        root.children.append(
            w.text(
                ctx,
                (l + pad, top, r - pad, bottom),
                ctx.tr(text_en, text_zh),
                "description",
                size=16,
                align="c",
                lines=lines,
                valign="t",
            )
        )
    bar = V(ctx, "android.widget.LinearLayout", (l, b - bar_h, r, b), "bottom", style={"bg": th.surface})
    last = page == len(SLIDES) - 1
    label, rid, cb = ("DONE", "done", lambda: _done(ctx)) if last else ("NEXT", "next", lambda: _next(ctx))
    bw = ctx.dp(96)
    box = (r - bw - ctx.dp(8), b - bar_h + ctx.dp(8), r - ctx.dp(8), b - ctx.dp(8))
    bar.children.append(w.button(ctx, box, label, cb, rid, kind="text"))
    dots = (l + ctx.dp(120), b - bar_h, r - ctx.dp(120), b)
    bar.children.append(V(ctx, "android.widget.LinearLayout", dots, "indicator_container"))
    root.children.append(bar)
    return [root]
