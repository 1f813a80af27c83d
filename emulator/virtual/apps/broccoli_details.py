"""Broccoli's RecipeDetailsActivity: one recipe as the database holds it.

The app bar (collapsed: a recipe without a photo) has "Navigate up", the recipe's title, "Mark as favorite"
(`action_details_like`; "Remove from favorites", `action_details_unlike`, once it is one) and "More options", whose
menu has Edit and Delete. The page (`scroll_view`): the title (`details_title`), the servings and the time
(`details_servings`, `details_preparation_time`, their icons "Servings" / "Time"), the categories
(`details_categories`), the description (`details_description`), the source (`details_source`), "Ingredients" (one
row per line in `details_ingredients`: a bold leading amount `ingredient_quantity`, the rest `ingredient_text`) and
"Directions" (one numbered step per line in `details_directions`: `direction_position`, `direction_text`); an empty
part is not shown. Delete asks "Delete this recipe?" (DELETE / CANCEL), deletes the row, says "The recipe has been
deleted." and goes back to the list. Edit opens the form on the recipe.
Left out: the photo backdrop, Share, Share as file, the cooking assistant (its "Cook" button).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..ui import dialogs
from ..ui import widgets as w
from ..ui.fonts import wrap
from ..ui.layout import Ctx, Row, V
from ..ui.view import View
from . import broccoli_data as data
from .base import page
from .broccoli_data import DETAILS, caps, tr
from .broccoli_widgets import GREEN_800, app_bar, popup_menu


def opened(ctx: Ctx) -> None:
    ctx.ui.setdefault("scroll", {}).pop("details", None)


def current(ctx: Ctx) -> dict[str, Any]:
    """The recipe shown: its row, or the copy the intent carried when the row is gone."""
    found = data.recipe(ctx.model.fs, ctx.extras.get("recipe_id"))
    return found or dict(ctx.extras.get("recipe") or {"recipeId": 0, "title": ""})


def _text_h(ctx: Ctx, text: str, size: float, width: int) -> tuple[int, int]:
    n = max(1, len(wrap(text, ctx.sp(size), width)))
    return n, ctx.line_h(size, n)


def _text_row(ctx: Ctx, text: str, rid: str, size: float = 14, gap: int = 16) -> Row:
    width = ctx.area[2] - ctx.area[0] - ctx.dp(32)
    n, h = _text_h(ctx, text, size, width)

    def build(x: int, y: int, wd: int) -> View:
        top = y + ctx.dp(gap)
        return w.text(
            ctx, (x + ctx.dp(16), top, x + wd - ctx.dp(16), top + h), text, rid, size=size, lines=n, valign="t"
        )

    return Row(h + ctx.dp(gap), build)


def _icon_row(ctx: Ctx, parts: list[tuple[str, str, str, str, str]]) -> Row:
    """Icons with their texts on one line: (icon, its id, its description, the text, the text's id)."""
    h = ctx.dp(24)

    def build(x: int, y: int, wd: int) -> list[View]:
        out: list[View] = []
        cx = x + ctx.dp(16)
        top = y + ctx.dp(16)
        for name, icon_rid, desc, text, text_rid in parts:
            out.append(w.icon(ctx, (cx, top, cx + h, top + h), name, ctx.theme.text2, icon_rid, desc))
            cx += h + ctx.dp(5)
            tw = min(x + wd - ctx.dp(16) - cx, int(ctx.sp(14) * 0.6 * max(1, len(text))) + ctx.dp(8))
            out.append(w.text(ctx, (cx, top, cx + tw, top + h), text, text_rid, style={"ellipsize": True}))
            cx += tw + ctx.dp(50)
        return out

    return Row(h + ctx.dp(16), build)


def _list_block(ctx: Ctx, header: str, rid: str, items: list[tuple[str, str]], numbered: bool) -> Row:
    """ "Ingredients" / "Directions": the header, then the container of one row per item (a lead and a text)."""
    width = ctx.area[2] - ctx.area[0] - ctx.dp(32)
    lead_w = ctx.dp(28)
    heights = []
    for lead, text in items:
        lw = lead_w if numbered else (int(ctx.sp(14) * 0.62 * len(lead)) + ctx.dp(4) if lead else 0)
        heights.append((lw, *_text_h(ctx, text, 14, width - lw)))
    pad = ctx.dp(5) if numbered else 0
    head_h = ctx.line_h(18) + ctx.dp(5)
    total = ctx.dp(16) + head_h + sum(h + 2 * pad for _, _, h in heights)

    def build(x: int, y: int, wd: int) -> list[View]:
        x0, x1 = x + ctx.dp(16), x + wd - ctx.dp(16)
        top = y + ctx.dp(16)
        out = [w.text(ctx, (x0, top, x1, top + ctx.line_h(18)), header, size=18, color=GREEN_800)]
        cy = top + head_h
        box = V(ctx, w.LINEAR, (x0, cy, x1, y + total), rid)
        for (lead, text), (lw, n, h) in zip(items, heights, strict=True):
            if numbered:
                row = V(ctx, "android.widget.RelativeLayout", (x0, cy, x1, cy + h + 2 * pad))
                row.children.append(
                    w.text(
                        ctx,
                        (x0 + pad, cy + pad, x0 + lw, cy + pad + ctx.line_h(14)),
                        lead,
                        "direction_position",
                        color=GREEN_800,
                        align="c",
                    )
                )
                row.children.append(
                    w.text(
                        ctx,
                        (x0 + lw + pad, cy + pad, x1 - pad, cy + pad + h),
                        text,
                        "direction_text",
                        lines=n,
                        valign="t",
                    )
                )
            else:
                row = V(ctx, "android.view.ViewGroup", (x0, cy, x1, cy + h))
                if lead:
                    row.children.append(
                        w.text(ctx, (x0, cy, x0 + lw, cy + ctx.line_h(14)), lead, "ingredient_quantity", bold=True)
                    )
                row.children.append(
                    w.text(ctx, (x0 + lw, cy, x1, cy + h), text, "ingredient_text", lines=n, valign="t")
                )
            box.children.append(row)
            cy += h + 2 * pad
        out.append(box)
        return out

    return Row(total, build)


def screen(ctx: Ctx) -> list[View]:
    fs = ctx.model.fs
    r = current(ctx)
    rid = int(r.get("recipeId") or 0)
    favorite = bool(r.get("favorite"))

    def toggle_favorite() -> None:
        if data.recipe(fs, rid) is not None:
            data.set_favorite(fs, rid, not favorite)

    def more() -> None:
        ctx.ui.setdefault("scroll", {}).pop("popup_menu", None)
        ctx.show_dialog({"id": "overflow"})

    like = (
        ("star", tr(ctx, "remove_from_favorite_action"), toggle_favorite, "action_details_unlike")
        if favorite
        else ("star", tr(ctx, "mark_as_favorite_action"), toggle_favorite, "action_details_like")
    )
    bar = app_bar(
        ctx,
        str(r.get("title") or "").strip(),
        ("back", tr(ctx, "navigate_up"), ctx.finish),
        [like, ("more", tr(ctx, "more_options"), more, "")],
    )
    for v in bar.children:
        if v.resource_id.endswith("action_details_like") or v.resource_id.endswith("action_details_unlike"):
            v.cls = "android.widget.TextView"  # an ActionMenuItemView
        elif v.desc == tr(ctx, "more_options"):
            v.cls = w.IMAGE  # the overflow button (an ImageView)
    rows = [_text_row(ctx, str(r.get("title") or "").strip(), "details_title", size=22)]
    servings, time = str(r.get("servings") or ""), str(r.get("preparationTime") or "")
    parts = []
    if servings:
        parts.append(("person", "details_icon_servings", tr(ctx, "servings"), servings, "details_servings"))
    if time:
        parts.append(
            ("timer", "details_icon_preparation_time", tr(ctx, "preparation_time"), time, "details_preparation_time")
        )
    if parts:
        rows.append(_icon_row(ctx, parts))
    cats = ", ".join(str(c["name"] or "") for c in data.recipe_categories(fs, rid))
    if cats:
        rows.append(
            _icon_row(ctx, [("menu", "details_icon_categories", tr(ctx, "categories"), cats, "details_categories")])
        )
    description, source = str(r.get("description") or ""), str(r.get("source") or "")
    if description:
        rows.append(_text_row(ctx, description, "details_description"))
    if source:
        rows.append(_icon_row(ctx, [("forward", "details_icon_source", tr(ctx, "source"), source, "details_source")]))
    ingredients = data.ingredient_lines(r.get("ingredients"))
    if ingredients:
        rows.append(_list_block(ctx, tr(ctx, "ingredients"), "details_ingredients", ingredients, False))
    directions = data.direction_lines(r.get("directions"))
    if directions:
        steps = [(str(i + 1), d) for i, d in enumerate(directions)]
        rows.append(_list_block(ctx, tr(ctx, "directions"), "details_directions", steps, True))
    return page(
        ctx, [bar], rows, key="details", rid="scroll_view", cls="android.widget.ScrollView", pad_bottom=ctx.dp(90)
    )


# --- the menu and the dialog ----------------------------------------------------------------------------------
def overflow(ctx: Ctx, spec: dict[str, Any]) -> View:
    """The toolbar's overflow menu: Edit, Delete."""
    from .broccoli_edit import open_existing

    def run(fn: Callable[[], Any]) -> Callable[[], Any]:
        def go() -> None:
            ctx.dismiss_dialog()
            fn()

        return go

    def edit() -> None:
        open_existing(ctx, current(ctx))

    def delete() -> None:
        ctx.show_dialog({"id": "delete", "recipe_id": ctx.extras.get("recipe_id")})

    items: list[tuple[str, Callable[[], Any], bool | None]] = [
        (tr(ctx, "edit_action"), run(edit), None),
        (tr(ctx, "delete_action"), run(delete), None),
    ]
    return popup_menu(ctx, items, (ctx.area[2], ctx.area[1] + ctx.dp(8)))


def delete_dialog(ctx: Ctx, spec: dict[str, Any]) -> View:
    """ "Delete this recipe?": DELETE removes the row, says so, and the details close."""

    def confirm() -> None:
        ctx.dismiss_dialog()
        recipe_id = spec.get("recipe_id")
        if recipe_id is not None:
            data.delete(ctx.model.fs, int(recipe_id))
        ctx.toast(tr(ctx, "recipe_deleted_message"))
        if ctx.activity == DETAILS:
            ctx.finish()

    buttons: list[tuple[str, str, w.Click]] = [
        (caps(tr(ctx, "delete_action")), "android:id/button1", confirm),
        (caps(tr(ctx, "cancel")), "android:id/button2", ctx.dismiss_dialog),
    ]
    return dialogs.dialog(ctx, "", tr(ctx, "delete_recipe_question"), buttons, on_cancel=ctx.dismiss_dialog)
