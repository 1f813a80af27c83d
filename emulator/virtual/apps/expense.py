"""Pro Expense (`com.arduia.expense` 1.0.0-beta05, versionCode 11: the build AndroidWorld installs), an expense
log over its Room database `accounting.db` (`expense_data`), which is the app's one truth: every screen reads
the file and every change is written to it, so rows pushed with `adb push` show on the next frame and what the
screens add or delete is what `adb pull` reads back.

One activity, `.ui.MainActivity` (the launcher's), whose fragments stack as its NavHostFragment does
(`expense_widgets.nav`):
- the first time (preference `isFirstTime`), the onboarding (`expense_onboard`): NEXT, then CONTINUE;
- Home (`rv_home`): the week's Totals card (income, outcome, in the currency's code), the week's graph card, the
  Recent card (the four newest expenses: `cd_expense` rows with `tv_name`, `tv_date`, `tv_amount`,
  `tv_currency_symbol`; MORE, `btn_more_logs`, opens the logs) and the add button (`fb_main_add`);
- the drawer (the Home toolbar's navigation icon): Home, Expense Logs, Statistics, Backup, Feedback, About,
  Settings (`design_menu_item_text`);
- Expense Logs (`expense_logs`): every expense newest first, swipe right to select (the toolbar then counts them
  and deletes them), swipe left or long-press to reveal a row's own delete button, tap for the detail;
- the expense detail sheet (delete, edit) and the delete confirmation sheet (`expense_sheets`);
- the entry (`expense_entry`): name, amount, the category list, note, SAVE (or UPDATE for an expense opened from
  its detail).

Left out: the Statistics, Backup, Feedback, About and Settings pages' content (each shows its title only), the
week graph's bars, the entry's date and time pickers, the logs filter's date range pickers, the app's dark theme
(the device's theme is used), Myanmar strings (shown in English) and the splash screen's moment.
"""

from __future__ import annotations

from typing import Any

from ..ui import widgets as w
from ..ui.fonts import text_width
from ..ui.layout import Ctx, Row, V, vlist
from ..ui.theme import Color
from ..ui.view import View
from .base import App, page
from .expense_data import (
    DB,
    INCOME,
    MAIN,
    PKG,
    VERSION_CODE,
    VERSION_NAME,
    currency,
    expenses,
    shown_amount,
    tr,
    week_range,
    week_start,
)
from .expense_entry import entry_screen, open_entry
from .expense_logs import logs_screen
from .expense_onboard import screen as onboard_screen
from .expense_sheets import delete_sheet, detail_sheet, filter_sheet
from .expense_widgets import CARD, RECYCLER, RELATIVE, button, expense_views, nav, navigate, pop, toolbar, top

BLUE: Color = (3, 169, 244)  # blue_light_500, the launcher icon's and the primary colour
DRAWER = (
    ("home", "home", "home"),
    ("logs", "expense_logs", "message"),
    ("statistics", "statistics", "display"),
    ("backup", "backup", "storage"),
    ("feedback", "feedback", "mail"),
    ("about", "about", "info"),
    ("settings", "settings", "settings"),
)


class ExpenseApp(App):
    package = PKG
    labels = {"en": "Pro Expense", "zh": "Pro Expense"}
    activities = {MAIN: "main"}
    launcher = MAIN
    color = BLUE
    glyph = "edit"
    version_name = VERSION_NAME
    version_code = VERSION_CODE
    installed = True  # as AndroidWorld installs it
    databases = (DB,)

    # --- lifecycle -----------------------------------------------------------------------------------
    def on_foreground(self, ctx: Ctx) -> None:
        nav(ctx)

    def on_back(self, ctx: Ctx) -> bool:
        return pop(ctx)

    # --- screens -------------------------------------------------------------------------------------
    def screen_main(self, ctx: Ctx) -> list[View]:
        dest = top(ctx)["dest"]
        if dest == "onboard":
            return onboard_screen(ctx)
        if dest == "logs":
            return logs_screen(ctx)
        if dest == "entry":
            return entry_screen(ctx)
        if dest == "home":
            return self.home(ctx)
        return self.page(ctx, dest)

    def home(self, ctx: Ctx) -> list[View]:
        bar = toolbar(ctx, tr(ctx, "home"), "menu", lambda: ctx.show_dialog({"id": "drawer"}))
        rows = [self._totals(ctx), self._graph(ctx), self._recent(ctx)]
        overlays = []
        if not ctx.ui.get("dialog"):  # hidden while a sheet is up (MainHost.hideAddButton)
            overlays.append(w.fab(ctx, "add", "", lambda: open_entry(ctx, None), "fb_main_add"))
        return page(ctx, [bar], rows, key="home", rid="rv_home", overlays=overlays, pad_bottom=ctx.dp(88))

    def page(self, ctx: Ctx, dest: str) -> list[View]:
        key = next((k for d, k, _ in DRAWER if d == dest), "home")
        bar = toolbar(ctx, tr(ctx, key), "menu", lambda: ctx.show_dialog({"id": "drawer"}))
        return page(ctx, [bar], [], key=dest, rid=f"rv_{dest}")

    # --- home's cards --------------------------------------------------------------------------------
    def _card(self, ctx: Ctx, x: int, y: int, wd: int, h: int) -> tuple[View, tuple[int, int, int, int]]:
        box = (x + ctx.dp(16), y + ctx.dp(8), x + wd - ctx.dp(16), y + h - ctx.dp(8))
        card = V(ctx, CARD, box, style={"bg": ctx.theme.surface2 if not ctx.theme.dark else ctx.theme.surface})
        card.style["radius"] = ctx.dp(12)
        inner = (box[0] + ctx.dp(16), box[1] + ctx.dp(16), box[2] - ctx.dp(16), box[3] - ctx.dp(16))
        return card, inner

    def _totals(self, ctx: Ctx) -> Row:
        """layout_expense_in_out: this week's income and outcome (from Sunday), in the currency's code."""
        since = int(week_start(ctx.model).timestamp() * 1000)
        week = DB.rows(ctx.model.fs, "SELECT amount, category FROM `expense` WHERE modified_date > ?", (since,))
        income = sum(int(r["amount"]) for r in week if r["category"] == INCOME)
        outcome = sum(int(r["amount"]) for r in week if r["category"] != INCOME)
        code = currency(ctx.model.fs).code
        lh = ctx.line_h
        h = ctx.dp(32 + 16) + lh(18) + lh(14) + 2 * (lh(12) + lh(28))

        def build(x: int, y: int, wd: int) -> View:
            card, (l, t, r, _) = self._card(ctx, x, y, wd, h)
            box = V(ctx, RELATIVE, card.bounds)
            card.children.append(box)
            th = ctx.theme
            y0 = t
            parts: list[tuple[str, str, float, Any, bool]] = [
                ("tv_expense_in_out_title", tr(ctx, "totals"), 18, th.text, True),
                ("tv_date_range", week_range(ctx.model), 14, th.text2, False),
                ("tv_income", tr(ctx, "income").upper(), 12, th.text2, False),
            ]
            for rid, s, size, color, bold in parts:
                box.children.append(w.text(ctx, (l, y0, r, y0 + lh(size)), s, rid, size, color, bold))
                y0 += lh(size)
            for value_rid, symbol_rid, cents, label in (
                ("tv_income_value", "tv_income_symobol", income, None),
                ("tv_outcome_value", "tv_outcome_symbol", outcome, tr(ctx, "outcome").upper()),
            ):
                if label is not None:
                    box.children.append(w.text(ctx, (l, y0, r, y0 + lh(12)), label, "tv_outcome", 12, th.text2))
                    y0 += lh(12)
                value = shown_amount(cents)
                vw = int(text_width(value, ctx.sp(28), True)) + ctx.dp(4)
                box.children.append(w.text(ctx, (l, y0, l + vw, y0 + lh(28)), value, value_rid, 28, bold=True))
                sym = (l + vw + ctx.dp(4), y0, r, y0 + lh(28))
                box.children.append(w.text(ctx, sym, code, symbol_rid, 14, th.text2))
                y0 += lh(28)
            return card

        return Row(h, build)

    def _graph(self, ctx: Ctx) -> Row:
        """layout_expense_graph: the title, the week's range and the graph (its bars left out)."""
        h = ctx.dp(32 + 16 + 140) + ctx.line_h(18) + ctx.line_h(14)

        def build(x: int, y: int, wd: int) -> View:
            card, (l, t, r, b) = self._card(ctx, x, y, wd, h)
            box = V(ctx, RELATIVE, card.bounds)
            card.children.append(box)
            lh = ctx.line_h
            box.children.append(
                w.text(ctx, (l, t, r, t + lh(18)), tr(ctx, "expenses_in_this_week"), "tv_title", 18, bold=True)
            )
            rng = (l, t + lh(18), r, t + lh(18) + lh(14))
            box.children.append(w.text(ctx, rng, week_range(ctx.model), "tv_date_range", 14, ctx.theme.text2))
            graph = (l, rng[3] + ctx.dp(8), r, b)
            box.children.append(V(ctx, "android.view.View", graph, "expense_graph"))
            return card

        return Row(h, build)

    def _recent(self, ctx: Ctx) -> Row:
        """layout_recent_lists: the four newest expenses (a tap shows the detail) and MORE."""
        recent = expenses(ctx.model.fs, limit=4)
        code = currency(ctx.model.fs).code
        item_h = ctx.dp(64)
        title_h = ctx.line_h(18) + ctx.dp(8)
        h = ctx.dp(32 + 16 + 48 + 8) + title_h + item_h * len(recent)

        def build(x: int, y: int, wd: int) -> View:
            card, (l, t, r, b) = self._card(ctx, x, y, wd, h)
            col = V(ctx, w.LINEAR, card.bounds)
            card.children.append(col)
            col.children.append(
                w.text(ctx, (l, t, r, t + ctx.line_h(18)), tr(ctx, "recent"), "tv_recent_lists", 18, bold=True)
            )
            lst = V(
                ctx,
                RECYCLER,
                (card.bounds[0], t + title_h, card.bounds[2], t + title_h + item_h * len(recent)),
                "rv_recent_lists",
            )
            col.children.append(lst)
            for i, e in enumerate(recent):
                yy = t + title_h + i * item_h
                row_box = (card.bounds[0], yy, card.bounds[2], yy + item_h)
                row = V(
                    ctx,
                    RELATIVE,
                    row_box,
                    "cd_expense",
                    clickable=True,
                    focusable=True,
                    on_click=lambda eid=e["expense_id"]: ctx.show_dialog(
                        {"id": "detail", "expense_id": eid, "home": True}
                    ),
                )
                row.children.extend(expense_views(ctx, row_box, e, code))
                lst.children.append(row)
            more = tr(ctx, "more")
            bw = text_width(more.upper(), ctx.sp(14), True) + ctx.dp(24)
            cx = (l + r) // 2
            by = b - ctx.dp(48)
            col.children.append(
                button(
                    ctx,
                    (cx - int(bw) // 2, by, cx + int(bw) // 2, by + ctx.dp(40)),
                    more,
                    lambda: navigate(ctx, "logs"),
                    "btn_more_logs",
                    kind="text",
                )
            )
            return card

        return Row(h, build)

    # --- dialogs -------------------------------------------------------------------------------------
    def dialog_detail(self, ctx: Ctx, spec: dict[str, Any]) -> View | None:
        return detail_sheet(ctx, spec)

    def dialog_delete(self, ctx: Ctx, spec: dict[str, Any]) -> View | None:
        return delete_sheet(ctx, spec)

    def dialog_filter(self, ctx: Ctx, spec: dict[str, Any]) -> View | None:
        return filter_sheet(ctx, spec)

    def dialog_drawer(self, ctx: Ctx, spec: dict[str, Any]) -> View:
        """NavigationView `nv_main` over the dimmed screen: the header (`btn_close`, the app's name, BETA) and the
        menu, the current page checked; an item closes the drawer and opens its page (Home: back to home)."""
        l, t, r, b = ctx.mgr.dialog_area()
        th = ctx.theme
        wd = min(ctx.dp(280), r - l - ctx.dp(56))
        root = V(
            ctx,
            "android.widget.FrameLayout",
            (l, t, l + wd, b),
            "nv_main",
            style={
                "bg": th.surface if th.dark else (255, 255, 255),
                "dim": True,
                "modal": True,
                "on_cancel": ctx.dismiss_dialog,
            },
        )
        lh = ctx.line_h
        head_h = ctx.dp(60 + 16) + max(ctx.dp(56), lh(20) + lh(10) + ctx.dp(12))

        def header(x: int, y: int, hw: int) -> View:
            box = V(ctx, RELATIVE, (x, y, x + hw, y + head_h))
            isz = ctx.dp(48)
            close = (x + hw - isz - ctx.dp(4), y + ctx.dp(4), x + hw - ctx.dp(4), y + ctx.dp(4) + isz)
            box.children.append(w.icon_button(ctx, close, "back", "", ctx.dismiss_dialog, "btn_close"))
            logo = (x + ctx.dp(16), y + ctx.dp(60), x + ctx.dp(72), y + ctx.dp(116))
            box.children.append(w.icon(ctx, logo, "apps", th.primary, "imv_app_logo"))
            nx, right = logo[2] + ctx.dp(12), x + hw - ctx.dp(16)
            names = V(ctx, w.LINEAR, (nx, logo[1], right, y + head_h - ctx.dp(8)), "ln_app_name")
            box.children.append(names)
            ny = logo[1] + ctx.dp(4)
            names.children.append(w.text(ctx, (nx, ny, right, ny + lh(20)), tr(ctx, "app_name"), "tv_app_name", 20))
            beta = tr(ctx, "beta").upper()
            bw = int(text_width(beta, ctx.sp(10), True)) + ctx.dp(12)
            by = ny + lh(20) + ctx.dp(4)
            badge = {"bg": (255, 193, 7), "radius": ctx.dp(4)}  # colorOnWarning on the warning colour
            names.children.append(
                w.text(
                    ctx,
                    (nx, by, nx + bw, by + lh(10)),
                    beta,
                    size=10,
                    color=(0, 0, 0),
                    bold=True,
                    align="c",
                    style=badge,
                )
            )
            return box

        here = top(ctx)["dest"]
        ih = max(ctx.dp(48), lh(14) + ctx.dp(16))
        rows = [Row(head_h + ctx.dp(8), header)]
        for dest, key, icon in DRAWER:
            on = dest == here

            def pick(dest: str = dest) -> None:
                ctx.dismiss_dialog()
                if dest == "home":
                    while top(ctx)["dest"] != "home" and pop(ctx):
                        pass
                elif top(ctx)["dest"] != dest:
                    navigate(ctx, dest)

            def item(
                x: int, y: int, iw: int, on: bool = on, pick: w.Click = pick, key: str = key, icon: str = icon
            ) -> View:
                ib = (x + ctx.dp(8), y, x + iw - ctx.dp(8), y + ih)
                style = {"bg": th.primary_container if on else None, "radius": ctx.dp(24)}
                v = V(ctx, w.FRAME, ib, clickable=True, focusable=True, checkable=True, checked=on, on_click=pick)
                v.style.update(style)
                ix, cy = ib[0] + ctx.dp(16), y + ih // 2
                color = th.primary if on else th.text2
                v.children.append(w.icon(ctx, (ix, cy - ctx.dp(12), ix + ctx.dp(24), cy + ctx.dp(12)), icon, color))
                label = (ix + ctx.dp(40), y, ib[2] - ctx.dp(8), y + ih)
                text = w.text(
                    ctx, label, tr(ctx, key), "design_menu_item_text", 14, th.primary if on else th.text, True
                )
                text.cls, text.checkable, text.checked = "android.widget.CheckedTextView", True, on
                v.children.append(text)
                return v

            rows.append(Row(ih, item))
        root.children.append(vlist(ctx, "drawer", root.bounds, rows, "design_navigation_view"))
        return root
