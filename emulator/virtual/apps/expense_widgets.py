"""Pro Expense's building blocks: its navigation (one activity, MainActivity, whose NavHostFragment stacks the
fragments: kept in the process's UI state, so a force-stop starts over at the splash), its toolbars (a Toolbar
with a navigation icon that has no content description, a title, a subtitle and menu items that are
ActionMenuItemViews: Buttons whose content description is the item's title), Material buttons (their labels in
capitals, textAllCaps), an expense row (`item_expense_recent` / `item_expense_log`'s views) and the bottom sheets
(BottomSheetDialogFragment: `design_bottom_sheet` over a dimmed window)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..ui import widgets as w
from ..ui.fonts import text_width
from ..ui.layout import Ctx, V
from ..ui.view import Bounds, View
from .expense_data import CATEGORY_ICONS, first_time, shown_amount, shown_date

TOOLBAR_CLS = "android.view.ViewGroup"
CARD = "androidx.cardview.widget.CardView"
RELATIVE = "android.widget.RelativeLayout"
RECYCLER = "androidx.recyclerview.widget.RecyclerView"
CATEGORY_BG = (179, 229, 252)  # the rows' circle (#b3e5fc)


# --- navigation --------------------------------------------------------------------------------------------------
def nav(ctx: Ctx) -> list[dict[str, Any]]:
    """The fragment back stack: the splash's choice on a fresh start (onboarding the first time, else home)."""
    stack = ctx.ui.get("nav")
    if not stack:
        stack = ctx.ui["nav"] = [{"dest": "onboard" if first_time(ctx.model.fs) else "home"}]
    return stack


def top(ctx: Ctx) -> dict[str, Any]:
    return nav(ctx)[-1]


def navigate(ctx: Ctx, dest: str, **args: Any) -> None:
    ctx.dismiss_dialog()
    ctx.hide_keyboard()
    ctx.set_focus(None)
    nav(ctx).append({"dest": dest, **args})


def pop(ctx: Ctx) -> bool:
    """popBackStack: False when home (or the onboarding) is the last fragment (the activity finishes)."""
    stack = nav(ctx)
    if len(stack) <= 1:
        return False
    left = stack.pop()
    if left["dest"] == "logs":
        ctx.ui.pop("swipe", None)  # ExpenseViewModel goes with its fragment
    ctx.set_focus(None)
    return True


# --- views -------------------------------------------------------------------------------------------------------
def toolbar(
    ctx: Ctx,
    title: str,
    nav_icon: str,
    on_nav: w.Click,
    actions: list[tuple[str, str, w.Click, str]] | None = None,
    subtitle: str = "",
    rid: str = "toolbar",
    enabled: bool = True,
) -> View:
    """A Toolbar across the top of the content area: the navigation ImageButton (no id, no description), the title
    (and subtitle), the menu's items (icon, title, click, id)."""
    l, t, r, _ = ctx.area
    h = ctx.dp(56 if not subtitle else 64)
    bar = V(ctx, TOOLBAR_CLS, (l, t, r, t + h), rid, style={"bg": ctx.theme.bg})
    isz = ctx.dp(48)
    y0 = t + (h - isz) // 2
    bar.children.append(w.icon_button(ctx, (l + ctx.dp(4), y0, l + ctx.dp(4) + isz, y0 + isz), nav_icon, "", on_nav))
    x = l + ctx.dp(72)
    ax = r - ctx.dp(4)
    items: list[View] = []
    for icon, label, cb, arid in reversed(actions or []):
        item = V(
            ctx,
            w.BUTTON,
            (ax - isz, y0, ax, y0 + isz),
            arid,
            desc=label,
            clickable=True,
            focusable=True,
            long_clickable=True,
            enabled=enabled,
            on_click=cb if enabled else None,
            style={"icon": icon, "icon_color": ctx.theme.text if enabled else ctx.theme.text2, "inset": ctx.dp(12)},
        )
        items.insert(0, item)
        ax -= isz
    if subtitle:
        line = ctx.line_h(20)
        ty = t + (h - line - ctx.line_h(14)) // 2
        bar.children.append(w.text(ctx, (x, ty, ax, ty + line), title, size=20, style={"ellipsize": True}))
        sub = (x, ty + line, ax, ty + line + ctx.line_h(14))
        bar.children.append(w.text(ctx, sub, subtitle, color=ctx.theme.text2, style={"ellipsize": True}))
    else:
        bar.children.append(w.text(ctx, (x, t, ax, t + h), title, size=20, style={"ellipsize": True}))
    bar.children.extend(items)
    return bar


def button(
    ctx: Ctx, box: Bounds, label: str, on_click: w.Click, rid: str, kind: str = "filled", color: Any = None
) -> View:
    """A MaterialButton: its label in capitals (textAllCaps)."""
    v = w.button(ctx, box, label.upper(), on_click, rid, kind=kind)
    v.style["radius"] = ctx.dp(4)
    if color is not None:
        v.style.update(bg=color, fg=(255, 255, 255))
    return v


def button_width(ctx: Ctx, label: str) -> int:
    return int(text_width(label.upper(), ctx.sp(14), True)) + ctx.dp(32)


def category_circle(ctx: Ctx, box: Bounds, category: int) -> View:
    """cv_category, the circle holding the category's icon (imv_category)."""
    card = V(ctx, w.FRAME, box, "cv_category", style={"bg": CATEGORY_BG, "radius": (box[2] - box[0]) // 2})
    pad = (box[2] - box[0]) // 4
    inner = (box[0] + pad, box[1] + pad, box[2] - pad, box[3] - pad)
    card.children.append(w.icon(ctx, inner, CATEGORY_ICONS.get(category, "more"), (66, 66, 66), "imv_category"))
    return card


def expense_views(ctx: Ctx, box: Bounds, e: dict[str, Any], symbol: str) -> list[View]:
    """An expense's category circle, name (cut at 20 characters, maxLength), date and amount with its currency."""
    l, t, r, b = box
    th = ctx.theme
    sz = ctx.dp(40)
    cy = (t + b) // 2
    out = [category_circle(ctx, (l + ctx.dp(16), cy - sz // 2, l + ctx.dp(16) + sz, cy + sz // 2), e["category"])]
    amount = shown_amount(e["amount"])[:15]
    aw = int(text_width(amount, ctx.sp(16), True)) + ctx.dp(2)
    sw = int(text_width(symbol, ctx.sp(12))) + ctx.dp(4)
    ax1 = r - ctx.dp(16)
    money = V(ctx, w.LINEAR, (ax1 - aw - sw, cy - ctx.dp(14), ax1, cy + ctx.dp(14)), "linear_amount")
    money.children.append(
        w.text(ctx, (ax1 - aw - sw, cy - ctx.dp(14), ax1 - sw, cy + ctx.dp(14)), amount, "tv_amount", 16, bold=True)
    )
    sym = (ax1 - sw, cy - ctx.dp(14), ax1, cy - ctx.dp(14) + ctx.line_h(12))
    money.children.append(w.text(ctx, sym, symbol, "tv_currency_symbol", 12, color=th.text2))
    x = l + ctx.dp(16) + sz + ctx.dp(16)
    right = ax1 - aw - sw - ctx.dp(8)
    nh, dh = ctx.line_h(16), ctx.line_h(12)
    y = cy - (nh + dh) // 2
    name = str(e["name"] or "")[:20]
    out.append(w.text(ctx, (x, y, right, y + nh), name, "tv_name", 16, style={"ellipsize": True}))
    date = shown_date(ctx, int(e["modified_date"]))
    out.append(
        w.text(ctx, (x, y + nh, right, y + nh + dh), date, "tv_date", 12, color=th.text2, style={"ellipsize": True})
    )
    out.append(money)
    return out


def sheet(ctx: Ctx, height: int, on_cancel: Callable[[], Any]) -> View:
    """A bottom sheet's window: `design_bottom_sheet` along the bottom of the screen, the rest dimmed (a touch
    there, or BACK, cancels it). Its content goes in as children (box: its bounds)."""
    l, t, r, b = ctx.mgr.dialog_area()
    h = min(height, b - t - ctx.dp(48))
    return V(
        ctx,
        w.FRAME,
        (l, b - h, r, b),
        "design_bottom_sheet",
        style={
            "bg": ctx.theme.surface if ctx.theme.dark else (255, 255, 255),
            "radius": ctx.dp(12),
            "dim": True,
            "modal": True,
            "on_cancel": on_cancel,
            "shadow": True,
        },
    )
