"""Simple SMS Messenger (`com.simplemobiletools.smsmessenger` 5.19.3, the build AndroidWorld installs): the
conversations list (`MainActivity`), a conversation (`ThreadActivity`, `smsmessenger_thread`) and a new one
(`NewConversationActivity`, `smsmessenger_new`), over the telephony provider it shares with Messages
(`smsmessenger_data`). Resource ids, content descriptions and strings are the app's (and its Simple-Commons').

- The launcher's icon is the alias `.activities.SplashActivity.Orange`, which opens MainActivity and goes.
- MainActivity asks for the SMS role when the app does not hold it: the system's request dialog (PermissionController's,
  "Set SMS Messenger as your default SMS app?", the SMS apps as a radio list with the holder checked; "Set as default"
  once another is checked, "Cancel"); cancelled, MainActivity finishes. The role's holder takes SENDTO sms: and
  announces incoming SMS (`roles`, `providers.sms`).
- The list: the search bar (`top_toolbar_search`; two characters or more search titles and bodies), the
  conversations newest first (`conversation_frame`: `conversation_address`, `conversation_body_short`, a draft's
  `draft_indicator`, `conversation_date`), unread ones in bold, and the `conversations_fab` to a new conversation.
- SEND / SENDTO / VIEW `sms:` `smsto:` `mms:` `mmsto:` reach NewConversationActivity, which opens the conversation
  with the number (the `sms_body` or EXTRA_TEXT extra in its compose field) and finishes.
Left out: the settings, about, archive and recycle-bin screens, MMS and attachments, scheduled messages, blocking.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import parse_qs, unquote

from ..records import INTENT_DATA, Package
from ..roles import PERMISSION_CONTROLLER, ROLE_SMS, role_holder, set_role_holder
from ..ui import dialogs
from ..ui import widgets as w
from ..ui.fonts import text_width
from ..ui.layout import Ctx, Row, V
from ..ui.theme import Color
from ..ui.view import View
from .base import App, page
from .common import avatar_color
from .simplecommons import search_bar
from .smsmessenger_data import (
    MAIN,
    NEW,
    PKG,
    SPLASH,
    THREAD,
    VERSION_CODE,
    VERSION_NAME,
    conversations,
    shown_date,
    thread_rows,
    tr,
)
from .smsmessenger_new import screen as new_conversation_screen
from .smsmessenger_thread import cab_menu, delete_dialog, draft_key, open_thread, thread_back, thread_opened
from .smsmessenger_thread import screen as thread_screen

PERMISSION_RID = "com.android.permissioncontroller:id/"
ROLE_TITLE = ("Set {} as your default SMS app?", "要将{}设为您的默认短信应用吗？")
ROLE_DESCRIPTION = (
    "This app will be given access to your Camera, Contacts, Files and media, Microphone, Phone, and SMS",
    "该应用将获得对摄像头、通讯录、文件和媒体、麦克风、电话和短信的访问权限",
)
SMS_SCHEMES = ("sms", "smsto", "mms", "mmsto")
RELATIVE = "android.widget.RelativeLayout"
ORANGE: Color = (245, 124, 0)  # Simple apps' default primary colour, the orange launcher icon's


def _searching(ctx: Ctx) -> bool:
    """The search bar is open: its field focused, or text typed in it."""
    return bool(ctx.ui.get("search")) or ctx.focus == "search"


def _replace_top(ctx: Ctx, activity: str, extras: dict[str, Any]) -> None:
    """The activity on top starts `activity` and finishes (it leaves the back stack)."""
    with ctx.model.lock:
        task = ctx.model.tasks[-1]
        if task.package == PKG and task.stack and task.stack[-1] is ctx.record:
            task.stack.pop()
    ctx.push(activity, extras)


class SmsMessengerApp(App):
    package = PKG
    labels = {"en": "SMS Messenger", "zh": "短信"}
    activities = {SPLASH: "splash", MAIN: "main", THREAD: "thread", NEW: "new"}
    launcher = SPLASH
    intent_filters = [
        (f"android.intent.action.{action}", f"scheme:{scheme}", NEW)
        for action in ("SEND", "SENDTO", "VIEW")
        for scheme in SMS_SCHEMES
    ]
    color = ORANGE
    glyph = "message"
    version_name = VERSION_NAME
    version_code = VERSION_CODE
    installed = True  # as AndroidWorld installs it

    # --- lifecycle -----------------------------------------------------------------------------------
    def on_foreground(self, ctx: Ctx) -> None:
        if ctx.activity == SPLASH:  # SplashActivity starts MainActivity and finishes
            _replace_top(ctx, MAIN, {})
            return
        ex = ctx.extras
        if ctx.activity == MAIN and not ex.get("_created"):
            ex["_created"] = True
            ctx.ui.pop("search", None)
            if role_holder(ctx.model, ROLE_SMS) != PKG:  # loadMessages(): RoleManager.createRequestRoleIntent
                ctx.show_dialog({"id": "role", "checked": role_holder(ctx.model, ROLE_SMS)})
        elif ctx.activity == THREAD and not ex.get("_created"):
            ex["_created"] = True
            thread_opened(ctx)
        elif ctx.activity == NEW and not ex.get("_created"):
            ex["_created"] = True
            ctx.set_field("new_address", "")
            ctx.ui.setdefault("scroll", {}).pop("contacts", None)
            ctx.set_focus("new_address")  # SOFT_INPUT_STATE_ALWAYS_VISIBLE, the field focused

    def on_intent(self, ctx: Ctx, action: str, extras: dict[str, Any]) -> None:
        """NewConversationActivity.isThirdPartyIntent: SENDTO / SEND / VIEW with an sms:/smsto:/mms:/mmsto: URI open
        the conversation with its number, the `sms_body` (or EXTRA_TEXT) in the compose field, and it finishes."""
        uri = str(extras.get(INTENT_DATA) or "")
        if ctx.activity != NEW or not uri:
            return
        scheme, _, rest = uri.partition(":")
        number, _, query = rest.partition("?")
        number = unquote(number.replace("+", "%2b")).strip()
        body = extras.get("android.intent.extra.TEXT") or extras.get("sms_body")
        if body is None:
            body = parse_qs(query).get("body", [""])[0]
        _replace_top(ctx, THREAD, {"number": number, "name": "", "text": str(body or "")})

    def on_back(self, ctx: Ctx) -> bool:
        if ctx.activity == THREAD:
            return thread_back(ctx)
        if ctx.activity == MAIN and _searching(ctx):  # MySearchMenu.closeSearch
            ctx.ui["search"] = False
            ctx.set_field("search", "")
            ctx.set_focus(None)
            return True
        return False

    # --- screens -------------------------------------------------------------------------------------
    def screen_splash(self, ctx: Ctx) -> list[View]:
        return []

    def screen_thread(self, ctx: Ctx) -> list[View]:
        return thread_screen(ctx)

    def screen_new(self, ctx: Ctx) -> list[View]:
        return new_conversation_screen(ctx)

    def screen_main(self, ctx: Ctx) -> list[View]:
        bar = self._search_bar(ctx)
        query = ctx.field_value("search")
        if _searching(ctx) and query:
            return self._search_results(ctx, bar, query)
        convs = conversations(ctx.model)
        drafts: dict[str, str] = ctx.data.get("drafts", {})
        row_h = ctx.dp(76)
        rows: list[Row] = []
        for c in convs:
            draft = drafts.get(draft_key(c.address))

            def build(x: int, y: int, wd: int, c: Any = c, draft: str | None = draft) -> View:
                return self._conversation_row(ctx, (x, y, x + wd, y + row_h), c, draft)

            rows.append(Row(row_h, build))
        if not convs:
            rows.append(
                w.text_row(
                    ctx, tr(ctx, "no_conversations_found"), "no_conversations_placeholder", size=18, align="c", lines=2
                )
            )

            def start(x: int, y: int, wd: int) -> View:
                return w.text(
                    ctx,
                    (x + wd // 4, y, x + wd - wd // 4, y + ctx.dp(56)),
                    tr(ctx, "start_conversation"),
                    "no_conversations_placeholder_2",
                    size=18,
                    color=ctx.theme.primary,
                    align="c",
                    clickable=True,
                    focusable=True,
                    on_click=lambda: ctx.push(NEW),
                )

            rows.append(Row(ctx.dp(56), start))
        fab = w.fab(ctx, "add", "", lambda: ctx.push(NEW), "conversations_fab")
        return page(
            ctx, [bar], rows, key="conversations", rid="conversations_list", overlays=[fab], pad_bottom=ctx.dp(88)
        )

    def _search_bar(self, ctx: Ctx) -> View:
        """MySearchMenu: the search field across the top (its icon turns into Back while searching)."""
        searching = _searching(ctx)

        def changed(v: str) -> None:
            ctx.set_field("search", v)
            ctx.ui["search"] = True

        click = (lambda: self.on_back(ctx)) if searching else (lambda: ctx.set_focus("search"))
        icon = ("back" if searching else "search", tr(ctx, "back" if searching else "search"), click)
        return search_bar(ctx, "search", tr(ctx, "search"), icon, changed)

    def _conversation_row(self, ctx: Ctx, box: tuple[int, int, int, int], c: Any, draft: str | None) -> View:
        x, y, r, b = box
        th = ctx.theme
        frame = V(
            ctx,
            w.FRAME,
            box,
            "conversation_frame",
            clickable=True,
            focusable=True,
            long_clickable=True,
            on_click=lambda: open_thread(ctx, c.thread_id, c.address, c.title),
            on_long_click=lambda: None,
        )
        holder = V(ctx, RELATIVE, box, "conversation_holder")
        frame.children.append(holder)
        sz = ctx.dp(48)
        top = y + (b - y - sz) // 2
        letter = c.title[:1] if not c.title[:1].isdigit() and c.title[:1] != "+" else ""
        holder.children.append(
            V(
                ctx,
                w.IMAGE,
                (x + ctx.dp(16), top, x + ctx.dp(16) + sz, top + sz),
                "conversation_image",
                style={
                    "kind": "avatar",
                    "letter": letter.upper() or "#",
                    "bg": avatar_color(c.title),
                    "fg": (255, 255, 255),
                    "radius": sz // 2,
                    "size": ctx.sp(18),
                },
            )
        )
        tx = x + ctx.dp(16) + sz + ctx.dp(16)
        date = shown_date(ctx.model, c.date)
        dw = int(text_width(date, ctx.sp(12), True)) + ctx.dp(24)
        line = int(ctx.sp(16) * 1.4)
        ty = y + (b - y - 2 * line) // 2
        bold = {"bold": not c.read}
        holder.children.append(
            w.text(
                ctx,
                (tx, ty, r - dw - ctx.dp(8), ty + line),
                c.title,
                "conversation_address",
                size=16,
                style={"ellipsize": True, **bold},
            )
        )
        body_x = tx
        if draft is not None:
            label = tr(ctx, "draft")
            dx = tx + ctx.dp(8) + int(ctx.sp(14) * 0.6 * len(label)) + ctx.dp(8)
            holder.children.append(
                w.text(ctx, (tx, ty + line, dx, ty + 2 * line), label, "draft_indicator", color=th.primary, bold=True)
            )
            body_x = dx
        holder.children.append(
            w.text(
                ctx,
                (body_x, ty + line, r - ctx.dp(16), ty + 2 * line),
                draft if draft is not None else c.snippet,
                "conversation_body_short",
                color=th.text if not c.read else th.text2,
                style={"ellipsize": True, **bold},
            )
        )
        holder.children.append(
            w.text(
                ctx,
                (r - dw, ty, r - ctx.dp(16), ty + line),
                date,
                "conversation_date",
                size=12,
                color=th.text2,
                align="r",
                style=bold,
            )
        )
        return frame

    def _search_results(self, ctx: Ctx, bar: View, query: str) -> list[View]:
        """MainActivity.searchTextChanged: under two characters a hint; else the conversations whose title and the
        messages whose body hold the text (newest first), each opening its conversation."""
        rows: list[Row] = []
        if len(query) < 2:
            rows.append(w.text_row(ctx, tr(ctx, "type_2_characters"), "search_placeholder_2", align="c", lines=3))
            return page(ctx, [bar], rows, key="search", rid="search_holder")
        q = query.lower()
        found: list[tuple[int, str, str, int, str]] = []  # thread, title, snippet, date, address
        for c in conversations(ctx.model):
            if q in c.title.lower():
                found.append((c.thread_id, c.title, c.address, c.date, c.address))
        for c in conversations(ctx.model):
            for m in reversed(thread_rows(ctx.model, c.thread_id)):
                if q in str(m["body"]).lower():
                    found.append((c.thread_id, c.title, str(m["body"]), int(m["date"]), c.address))
        if not found:
            rows.append(w.text_row(ctx, tr(ctx, "no_items_found"), "search_placeholder", align="c"))
        row_h = ctx.dp(72)
        for tid, title, snippet, date, address in found:

            def build(
                x: int,
                y: int,
                wd: int,
                tid: int = tid,
                title: str = title,
                snippet: str = snippet,
                date: int = date,
                address: str = address,
            ) -> View:
                return w.list_item(
                    ctx,
                    (x, y, x + wd, y + row_h),
                    title,
                    snippet,
                    lambda: open_thread(ctx, tid, address, title),
                    avatar=title,
                    avatar_color=avatar_color(title),
                    rid="search_result_holder",
                    title_rid="search_result_title",
                    summary_rid="search_result_snippet",
                    trailing_text=shown_date(ctx.model, date),
                    trailing_rid="search_result_date",
                    ellipsize=True,
                )

            rows.append(Row(row_h, build))
        return page(ctx, [bar], rows, key="search", rid="search_results_list")

    # --- dialogs -------------------------------------------------------------------------------------
    def dialog_delete(self, ctx: Ctx, spec: dict[str, Any]) -> View:
        return delete_dialog(ctx, spec)

    def dialog_cab_menu(self, ctx: Ctx, spec: dict[str, Any]) -> View:
        return cab_menu(ctx, spec)

    def dialog_role(self, ctx: Ctx, spec: dict[str, Any]) -> View:
        """PermissionController's RequestRoleFragment for the SMS role, over MainActivity."""
        model = ctx.model
        holder = role_holder(model, ROLE_SMS)
        checked = spec.get("checked", holder)
        label = self.label(ctx.locale)
        apps = sorted(
            (
                p
                for p in model.packages.values()
                if any(f[0] == "android.intent.action.SENDTO" for f in p.intent_filters)
            ),
            key=lambda p: p.label(ctx.locale).lower(),
        )

        def cancel() -> None:  # onCancel: denied once; MainActivity.onActivityResult finishes
            ctx.dismiss_dialog()
            model.events.log("role", action="denied", role=ROLE_SMS, package=PKG)
            ctx.finish()

        def set_default() -> None:
            ctx.dismiss_dialog()
            set_role_holder(model, ROLE_SMS, checked)
            if checked != PKG:
                ctx.finish()

        rows: list[Row] = []
        for p in apps:
            is_holder, is_checked = p.name == holder, p.name == checked
            sub = (
                ctx.tr("Current default", "当前默认应用")
                if is_holder
                else (ctx.tr(*ROLE_DESCRIPTION) if is_checked else "")
            )
            h, n = w.list_item_height(ctx, ctx.dp(312), sub, leading=True, trailing=True, max_lines=4)

            def build(
                x: int, y: int, wd: int, p: Package = p, sub: str = sub, h: int = h, n: int = n, on: bool = is_checked
            ) -> View:
                def pick() -> None:
                    ctx.ui["dialog"] = {**spec, "checked": p.name}

                icon = ctx.mgr.app_for(p.name).icon_style()

                row = w.list_item(
                    ctx,
                    (x, y, x + wd, y + h),
                    p.label(ctx.locale),
                    sub,
                    pick,
                    leading=(str(icon["icon"]), icon["bg"]),
                    title_rid=PERMISSION_RID + "title",
                    summary_rid=PERMISSION_RID + "subtitle",
                    summary_lines=n,
                    checked=on,
                    trailing=lambda bx: w.checkbox(ctx, bx, on, radio=True),
                    ellipsize=True,
                )
                row.package = PERMISSION_CONTROLLER
                for v in row.walk():
                    v.package = PERMISSION_CONTROLLER
                return row

            rows.append(Row(h, build))
        dlg = dialogs.dialog(
            ctx,
            ctx.tr(*ROLE_TITLE).format(label),
            "",
            [
                (ctx.tr("Set as default", "设为默认应用"), "android:id/button1", set_default),
                (ctx.tr("Cancel", "取消"), "android:id/button2", cancel),
            ],
            rows=rows,
            on_cancel=cancel,
            package=PERMISSION_CONTROLLER,
            title_rid=PERMISSION_RID + "title",
        )
        for v in dlg.walk():
            if v.resource_id.endswith(":id/select_dialog_listview"):
                v.resource_id = PERMISSION_RID + "list"
            if v.resource_id == "android:id/button1" and checked == holder:  # updateUi(): nothing to change yet
                v.enabled, v.on_click = False, None
        return dlg
