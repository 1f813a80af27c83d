"""What Simple Mobile Tools' apps share through Simple-Commons, as the twins here use it: MySearchMenu, the search
field across the top of a main screen (`top_app_bar_layout` > `top_toolbar_holder`: the
`top_toolbar_search_icon` - search, or Back while searching -, the `top_toolbar_search` field, and the screen's
action icons at the end)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..ui import widgets as w
from ..ui.layout import Ctx, V
from ..ui.view import View

RELATIVE = "android.widget.RelativeLayout"
Action = tuple[str, str, Callable[[], Any], str]  # icon, content description, click, resource id


def search_bar(
    ctx: Ctx,
    key: str,
    hint: str,
    icon: tuple[str, str, Callable[[], Any]],
    on_change: Callable[[str], None],
    actions: list[Action] | None = None,
) -> View:
    """The top bar: `icon` (name, description, click) at the start, the field `key`, `actions` at the end."""
    l, t, r, _ = ctx.area
    h = ctx.dp(64)
    layout = V(ctx, "android.widget.LinearLayout", (l, t, r, t + h), "top_app_bar_layout", style={"bg": ctx.theme.bg})
    holder = V(
        ctx,
        RELATIVE,
        (l + ctx.dp(12), t + ctx.dp(8), r - ctx.dp(12), t + h - ctx.dp(8)),
        "top_toolbar_holder",
        style={"bg": ctx.theme.surface2, "radius": ctx.dp(24)},
    )
    layout.children.append(holder)
    isz = ctx.dp(48)
    y0 = t + (h - isz) // 2
    icon_box = (l + ctx.dp(12), y0, l + ctx.dp(12) + isz, y0 + isz)
    name, desc, click = icon
    holder.children.append(w.icon_button(ctx, icon_box, name, desc, click, "top_toolbar_search_icon"))
    ax = r - ctx.dp(16)
    for a_name, a_desc, a_click, rid in reversed(actions or []):
        holder.children.append(w.icon_button(ctx, (ax - isz, y0, ax, y0 + isz), a_name, a_desc, a_click, rid))
        ax -= isz
    field_right = ax - ctx.dp(4 if actions else 8)
    field_box = (icon_box[2], t + ctx.dp(8), field_right, t + h - ctx.dp(8))
    field = w.edit(ctx, field_box, key, ctx.field_value(key), hint, on_change, "top_toolbar_search", box="none")
    holder.children.append(field)
    return layout
