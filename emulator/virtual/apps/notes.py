"""Notes: a list of notes (search, long-press to delete), a FAB to create one, and an editor with title and
body fields that saves on BACK (or the toolbar arrow), copies its text to the clipboard, and deletes with a
confirmation dialog.
"""

from __future__ import annotations

from typing import Any

from ..ui import dialogs
from ..ui import widgets as w
from ..ui.layout import Ctx, Row, V
from ..ui.view import View
from .base import App, page

PKG = "com.droidharness.notes"
MAIN = f"{PKG}.MainActivity"
EDITOR = f"{PKG}.EditorActivity"

SEED = {
    "en": [
        ("Shopping list", "Milk, eggs, bread, coffee beans, 2 apples"),
        ("Meeting notes", "Project sync on Tuesday at 10:00. Discuss the Q3 roadmap and the new onboarding flow."),
        ("Wi-Fi password", "Guest network: VirtualWiFi\nPassword: sunflower42"),
    ],
    "zh": [
        ("购物清单", "牛奶、鸡蛋、面包、咖啡豆、两个苹果"),
        ("会议记录", "周二上午10点项目同步会。讨论第三季度路线图和新的引导流程。"),
        ("WLAN 密码", "访客网络：VirtualWiFi\n密码：sunflower42"),
    ],
}


class NotesApp(App):
    package = PKG
    labels = {"en": "Notes", "zh": "笔记"}
    activities = {MAIN: "list", EDITOR: "editor"}
    launcher = MAIN
    color = (251, 188, 4)
    glyph = "edit"

    def seed(self, data: dict[str, Any], locale: str) -> None:
        notes = SEED.get(locale, SEED["en"])
        data["notes"] = [{"id": i + 1, "title": t, "body": b} for i, (t, b) in enumerate(notes)]
        data["next_id"] = len(notes) + 1

    # --- actions -----------------------------------------------------------------------------------
    def _find(self, ctx: Ctx, note_id: Any) -> dict[str, Any] | None:
        return next((n for n in ctx.data["notes"] if n["id"] == note_id), None)

    def _open(self, ctx: Ctx, note: dict[str, Any] | None) -> None:
        ctx.set_field("title", note["title"] if note else "")
        ctx.set_field("body", note["body"] if note else "")
        ctx.push(EDITOR, {"note_id": note["id"] if note else None}, focus=None if note else "title")

    def _save(self, ctx: Ctx) -> None:
        title, body = ctx.field_value("title"), ctx.field_value("body")
        data = ctx.data
        note = self._find(ctx, ctx.extras.get("note_id"))
        if note is not None:
            note["title"], note["body"] = title, body
            data["notes"].remove(note)
            data["notes"].insert(0, note)
        elif title.strip() or body.strip():
            nid = int(data.get("next_id", 1))
            data["next_id"] = nid + 1
            data["notes"].insert(0, {"id": nid, "title": title, "body": body})
            ctx.extras["note_id"] = nid

    def _save_and_close(self, ctx: Ctx) -> None:
        self._save(ctx)
        ctx.finish()

    def _delete(self, ctx: Ctx, note_id: Any) -> None:
        ctx.data["notes"] = [n for n in ctx.data["notes"] if n["id"] != note_id]
        ctx.dismiss_dialog()
        if ctx.activity == EDITOR:
            ctx.finish()
        ctx.toast(ctx.tr("Note deleted", "笔记已删除"))

    def on_back(self, ctx: Ctx) -> bool:
        if ctx.activity == EDITOR:
            self._save_and_close(ctx)
            return True
        if ctx.ui.get("searching"):
            ctx.ui["searching"] = False
            ctx.set_field("search", "")
            return True
        return False

    # --- screens -------------------------------------------------------------------------------------
    def screen_list(self, ctx: Ctx) -> list[View]:
        l, t, r, b = ctx.area
        th = ctx.theme
        query = ctx.field_value("search")
        if ctx.ui.get("searching"):

            def close_search() -> None:
                ctx.ui["searching"] = False
                ctx.set_field("search", "")
                ctx.set_focus(None)

            bar = V(ctx, w.VIEWGROUP, (l, t, r, t + ctx.dp(64)), "toolbar", style={"bg": th.bg})
            isz = ctx.dp(48)
            y0 = t + ctx.dp(8)
            bar.children.append(
                w.icon_button(
                    ctx,
                    (l + ctx.dp(4), y0, l + ctx.dp(4) + isz, y0 + isz),
                    "back",
                    ctx.tr("Close search", "关闭搜索"),
                    close_search,
                    "search_close",
                )
            )
            bar.children.append(
                w.edit(
                    ctx,
                    (l + ctx.dp(60), y0, r - ctx.dp(16), y0 + isz),
                    "search",
                    query,
                    ctx.tr("Search notes", "搜索笔记"),
                    lambda v: ctx.set_field("search", v),
                    "search_src_text",
                    action=ctx.hide_keyboard,
                    action_kind="search",
                    box="filled",
                )
            )
            header = [bar]
        else:

            def open_search() -> None:
                ctx.ui["searching"] = True
                ctx.set_focus("search")

            header = [
                w.toolbar(
                    ctx,
                    self.label(ctx.locale),
                    None,
                    [("search", ctx.tr("Search", "搜索"), open_search, "action_search")],
                )
            ]
        notes = ctx.data["notes"]
        q = query.strip().lower() if ctx.ui.get("searching") else ""
        if q:
            notes = [n for n in notes if q in n["title"].lower() or q in n["body"].lower()]
        rows: list[Row] = []
        title_h = max(ctx.dp(26), ctx.line_h(17))
        card_h = max(ctx.dp(104), ctx.dp(16 + 2 + 16 + 12) + title_h + ctx.line_h(14, 2))
        for n in notes:

            def build(x: int, y: int, wd: int, n: dict[str, Any] = n) -> View:
                m = ctx.dp(16)
                card = w.card_bg(
                    ctx,
                    (x + m, y + ctx.dp(6), x + wd - m, y + card_h - ctx.dp(6)),
                    "note_card",
                    cls=w.LINEAR,
                    clickable=True,
                    focusable=True,
                    long_clickable=True,
                    on_click=lambda: self._open(ctx, n),
                    on_long_click=lambda: ctx.show_dialog({"id": "delete", "note_id": n["id"]}),
                )
                cx0, cx1 = x + m + ctx.dp(16), x + wd - m - ctx.dp(16)
                ty = y + ctx.dp(16)
                card.children.append(
                    w.text(
                        ctx,
                        (cx0, ty, cx1, ty + title_h),
                        n["title"] or ctx.tr("Untitled", "无标题"),
                        "note_title",
                        size=17,
                        bold=True,
                        style={"ellipsize": True},
                    )
                )
                card.children.append(
                    w.text(
                        ctx,
                        (cx0, ty + title_h + ctx.dp(2), cx1, y + card_h - ctx.dp(16)),
                        n["body"],
                        "note_preview",
                        size=14,
                        color=th.text2,
                        lines=2,
                        valign="t",
                        style={"ellipsize": True},  # Keep's preview: two lines, the rest cut with an ellipsis
                    )
                )
                return card

            rows.append(Row(card_h, build))
        if not notes:
            rows.append(
                w.text_row(
                    ctx,
                    ctx.tr("No matching notes", "没有匹配的笔记")
                    if q
                    else ctx.tr("No notes yet. Tap + to write one.", "还没有笔记。点按 + 新建一条。"),
                    "empty_view",
                    color=th.text2,
                    align="c",
                    height_dp=120,
                )
            )
        overlays = (
            []
            if ctx.keyboard
            else [w.fab(ctx, "add", ctx.tr("New note", "新建笔记"), lambda: self._open(ctx, None), "fab_add")]
        )
        return page(ctx, header, rows, key="notes", rid="notes_list", overlays=overlays, pad_bottom=ctx.dp(88))

    def screen_editor(self, ctx: Ctx) -> list[View]:
        l, t, r, b = ctx.area
        note_id = ctx.extras.get("note_id")

        def copy_text() -> None:
            body = ctx.field_value("body")
            title = ctx.field_value("title")
            ctx.model.clipboard = body or title
            ctx.toast(ctx.tr("Copied to clipboard", "已复制到剪贴板"))

        def delete() -> None:
            if note_id is None and self._find(ctx, ctx.extras.get("note_id")) is None:
                ctx.finish()  # an unsaved new note: discard
                return
            ctx.show_dialog({"id": "delete", "note_id": ctx.extras.get("note_id")})

        tb = w.toolbar(
            ctx,
            "",
            ("back", ctx.tr("Navigate up", "向上导航"), lambda: self._save_and_close(ctx)),
            [
                ("copy", ctx.tr("Copy text", "复制文字"), copy_text, "action_copy"),
                ("delete", ctx.tr("Delete", "删除"), delete, "action_delete"),
            ],
        )
        title_h = ctx.dp(64)
        view_h = b - tb.bounds[3]
        body_h = max(ctx.dp(120), view_h - title_h - ctx.dp(8))
        title = ctx.field_value("title")
        body = ctx.field_value("body")

        def title_row(x: int, y: int, wd: int) -> View:
            return w.edit(
                ctx,
                (x + ctx.dp(16), y + ctx.dp(8), x + wd - ctx.dp(16), y + title_h),
                "title",
                title,
                ctx.tr("Title", "标题"),
                lambda v: ctx.set_field("title", v),
                "note_title_edit",
                action=lambda: ctx.set_focus("body"),
                action_kind="next",
                size=22,
                box="underline",
            )

        def body_row(x: int, y: int, wd: int) -> View:
            v = w.edit(
                ctx,
                (x + ctx.dp(16), y + ctx.dp(8), x + wd - ctx.dp(16), y + body_h),
                "body",
                body,
                ctx.tr("Note", "笔记内容"),
                lambda v: ctx.set_field("body", v),
                "note_body_edit",
                multiline=True,
                size=16,
                box="none",
                lines=max(1, (body_h - ctx.dp(8)) // int(ctx.sp(16) * 1.35)),
            )
            v.style["pad_top"] = ctx.dp(4)
            return v

        rows = [Row(title_h, title_row, ("title",)), Row(body_h, body_row, ("body",))]
        return page(ctx, [tb], rows, key="editor", rid="editor_scroll", cls="android.widget.ScrollView")

    # --- dialogs -------------------------------------------------------------------------------------
    def dialog_delete(self, ctx: Ctx, spec: dict[str, Any]) -> View:
        note = self._find(ctx, spec.get("note_id"))
        name = (note or {}).get("title") or ctx.tr("this note", "这条笔记")
        return dialogs.dialog(
            ctx,
            ctx.tr("Delete note?", "要删除笔记吗？"),
            ctx.tr(f"\u201c{name}\u201d will be deleted permanently.", f"“{name}”将被永久删除。"),
            dialogs.confirm_buttons(
                ctx, ctx.tr("Delete", "删除"), lambda: self._delete(ctx, spec.get("note_id")), ctx.dismiss_dialog
            ),
            on_cancel=ctx.dismiss_dialog,
        )
