"""Pro Expense's first-run configuration (OnBoardingConfigFragment), shown while the preference `isFirstTime` is not
false: the app's icon, "Hello! Welcome to Pro Expense" (`tv_welcome`) and a pager (`vp_config`) of two pages with
the button under them (`btn_continue`):

1. Choose Language (`rv_languages`: `cd_language` cards with `tv_language_name`, the chosen one with `imv_checked`)
   and NEXT, which turns the page;
2. Choose Currency (`rv_currencies`: `cv_currency` cards with `tv_symbol`, `tv_currency` and, on the chosen one,
   `imv_selected`), the button now CONTINUE: `isFirstTime` becomes false and the activity starts over at home.

A language or currency tapped is saved at once (`selected_language`, `selected_currency_number`). Left out: the
pages' search boxes and most of the 151 currencies.
"""

from __future__ import annotations

from ..ui import widgets as w
from ..ui.fonts import wrap
from ..ui.layout import Ctx, Row, V, vlist
from ..ui.view import View
from .expense_data import CURRENCIES, LANGUAGES, currency, language, tr, write_prefs
from .expense_widgets import button

CARD = "androidx.cardview.widget.CardView"


def _finish(ctx: Ctx) -> None:
    """finishedConfig: not the first time any more; the activity restarts (splash, then home)."""
    write_prefs(ctx.model.fs, isFirstTime=False)
    ctx.ui["nav"] = [{"dest": "home"}]
    ctx.ui.pop("onboard_page", None)
    ctx.ui.setdefault("scroll", {}).clear()


def _language_rows(ctx: Ctx) -> list[Row]:
    chosen = language(ctx.model.fs)
    h = ctx.dp(56)
    rows = []
    for lid, name in LANGUAGES:

        def build(x: int, y: int, wd: int, lid: str = lid, name: str = name) -> View:
            box = (x + ctx.dp(16), y + ctx.dp(4), x + wd - ctx.dp(16), y + h - ctx.dp(4))
            card = V(
                ctx,
                CARD,
                box,
                "cd_language",
                clickable=True,
                focusable=True,
                on_click=lambda: write_prefs(ctx.model.fs, selected_language=lid),
                style={"bg": ctx.theme.surface2, "radius": ctx.dp(8)},
            )
            inner = V(ctx, "android.widget.RelativeLayout", box, "rl_language")
            card.children.append(inner)
            cy = (box[1] + box[3]) // 2
            x0 = box[0] + ctx.dp(16)
            inner.children.append(
                w.icon(ctx, (x0, cy - ctx.dp(12), x0 + ctx.dp(25), cy + ctx.dp(13)), "location", rid="imv_flag")
            )
            inner.children.append(
                w.text(ctx, (x0 + ctx.dp(41), box[1], box[2] - ctx.dp(56), box[3]), name, "tv_language_name", 16)
            )
            if lid == chosen:
                x1 = box[2] - ctx.dp(16)
                inner.children.append(
                    w.icon(
                        ctx,
                        (x1 - ctx.dp(30), cy - ctx.dp(15), x1, cy + ctx.dp(15)),
                        "check",
                        ctx.theme.primary,
                        "imv_checked",
                    )
                )
            return card

        rows.append(Row(h, build))
    return rows


def _currency_rows(ctx: Ctx) -> list[Row]:
    chosen = currency(ctx.model.fs).number
    h = ctx.dp(56)
    rows = []
    for c in CURRENCIES:

        def build(x: int, y: int, wd: int, number: str = c.number, symbol: str = c.symbol, name: str = c.name) -> View:
            box = (x + ctx.dp(16), y + ctx.dp(4), x + wd - ctx.dp(16), y + h - ctx.dp(4))
            card = V(
                ctx,
                CARD,
                box,
                "cv_currency",
                clickable=True,
                focusable=True,
                on_click=lambda: write_prefs(ctx.model.fs, selected_currency_number=number),
                style={"bg": ctx.theme.surface2, "radius": ctx.dp(8)},
            )
            inner = V(ctx, w.VIEWGROUP, box, "linear_currency")
            card.children.append(inner)
            x0 = box[0] + ctx.dp(16)
            third = (box[2] - box[0]) * 4 // 10
            inner.children.append(
                w.text(ctx, (x0, box[1], x0 + third - ctx.dp(8), box[3]), symbol, "tv_symbol", 16, bold=True)
            )
            inner.children.append(
                w.text(
                    ctx,
                    (x0 + third, box[1], box[2] - ctx.dp(56), box[3]),
                    name,
                    "tv_currency",
                    16,
                    style={"ellipsize": True},
                )
            )
            if number == chosen:
                cy = (box[1] + box[3]) // 2
                x1 = box[2] - ctx.dp(16)
                inner.children.append(
                    w.icon(
                        ctx,
                        (x1 - ctx.dp(24), cy - ctx.dp(12), x1, cy + ctx.dp(12)),
                        "check",
                        ctx.theme.primary,
                        "imv_selected",
                    )
                )
            return card

        rows.append(Row(h, build))
    return rows


def screen(ctx: Ctx) -> list[View]:
    l, t, r, b = ctx.area
    th = ctx.theme
    root = V(ctx, w.VIEWGROUP, (l, t, r, b), style={"bg": th.surface})
    logo = ctx.dp(96)
    cx = (l + r) // 2
    y = t + ctx.dp(24)
    root.children.append(w.icon(ctx, (cx - logo // 2, y, cx + logo // 2, y + logo), "apps", th.primary, "imv_app"))
    y += logo + ctx.dp(12)
    hello = tr(ctx, "app_welcome")
    lines = min(3, len(wrap(hello, ctx.sp(20), r - l - ctx.dp(32))))
    box = (l + ctx.dp(16), y, r - ctx.dp(16), y + ctx.line_h(20, lines))
    root.children.append(w.text(ctx, box, hello, "tv_welcome", 20, align="c", lines=lines))
    y = box[3] + ctx.dp(16)
    page = int(ctx.ui.get("onboard_page", 0))
    btn_h = ctx.dp(48)
    pager_box = (l, y, r, b - btn_h - ctx.dp(32))
    pager = V(ctx, "androidx.viewpager.widget.ViewPager", pager_box, "vp_config")
    py = y + ctx.dp(8)
    title = tr(ctx, "choose_language" if page == 0 else "choose_currency")
    head = V(ctx, w.LINEAR, (l, py, r, py + ctx.line_h(16) + ctx.dp(8)), "linear_search")
    head.children.append(w.text(ctx, (l + ctx.dp(16), py, r - ctx.dp(16), py + ctx.line_h(16)), title, "tv_lang", 16))
    pager.children.append(head)
    list_box = (l, head.bounds[3] + ctx.dp(8), r, pager_box[3])
    if page == 0:
        pager.children.append(vlist(ctx, "languages", list_box, _language_rows(ctx), "rv_languages"))
    else:
        pager.children.append(vlist(ctx, "currencies", list_box, _currency_rows(ctx), "rv_currencies"))
    root.children.append(pager)

    def go_on() -> None:
        if page == 0:
            ctx.ui["onboard_page"] = 1  # continued(): the currency page, the button now Continue
        else:
            _finish(ctx)

    label = tr(ctx, "next" if page == 0 else "continue_home")
    by = b - btn_h - ctx.dp(16)
    root.children.append(button(ctx, (l + ctx.dp(24), by, r - ctx.dp(24), by + btn_h), label, go_on, "btn_continue"))
    return [root]
